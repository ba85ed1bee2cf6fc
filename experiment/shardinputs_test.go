package experiment

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/sweep"
)

// TestMergeRefusesOtherOptions pins that shards must agree on every option that changes the
// merged result, not only on the scenario, seed and replications (Merge; conventions §15: work
// split over machines comes back only whole): a sweep's --slo, its points, its load context and
// its expectations. Either order of the shards is refused, naming both values.
func TestMergeRefusesOtherOptions(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(s []ShardResult)
		want   []string
	}{
		{"slo", func(s []ShardResult) {
			s[0].Info.Context, s[1].Info.Context, s[2].Info.Context = &sweep.LoadContext{SLO: 0.05}, &sweep.LoadContext{SLO: 0.02}, &sweep.LoadContext{SLO: 0.05}
		}, []string{"latency objective (--slo)", "50ms", "20ms"}},
		{"slo given to one only", func(s []ShardResult) {
			s[0].Info.Context, s[1].Info.Context, s[2].Info.Context = &sweep.LoadContext{}, &sweep.LoadContext{SLO: 0.02}, &sweep.LoadContext{}
		}, []string{"latency objective (--slo)", "none", "20ms"}},
		{"today's load", func(s []ShardResult) {
			s[0].Info.Context, s[1].Info.Context, s[2].Info.Context = &sweep.LoadContext{Today: 100}, &sweep.LoadContext{Today: 200}, &sweep.LoadContext{Today: 100}
		}, []string{"load context"}},
		{"points", func(s []ShardResult) {
			s[1].Info.Points = [][]results.Param{{{Path: "rate", Value: "1/s"}}, {{Path: "rate", Value: "3/s"}}}
		}, []string{"different work: points"}},
		{"expectations", func(s []ShardResult) {
			s[1].Info.Expect = []results.Expectation{{Metric: "total.goodput"}}
		}, []string{"different work: expectations"}},
	} {
		for _, reverse := range []bool{false, true} {
			s := testShards(3)
			tc.damage(s)
			if reverse {
				s[0], s[1] = s[1], s[0]
			}
			_, _, err := Merge(s)
			for _, w := range tc.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("%s (reversed %v): Merge error %v; want it to say %q", tc.name, reverse, err, w)
				}
			}
		}
	}
}

// TestShardCountBounded pins that a shard count is at most MaxShards, in --shard i/n
// (ParseShard) and in a shard.json read back (ReadShard), and that a merge missing many
// shards names a few and counts the rest: a count of 10⁹ once grew a merge to 7.8 GiB.
func TestShardCountBounded(t *testing.T) {
	if _, err := ParseShard("0/1000000000"); err == nil || !strings.Contains(err.Error(), "n is 1000000000: there may be at most 100000 shards") {
		t.Errorf("ParseShard(0/1000000000) = %v; want it refused, saying at most 100000 shards", err)
	}
	if sh, err := ParseShard("99999/100000"); err != nil || sh.Count != MaxShards {
		t.Errorf("ParseShard(99999/100000) = %v, %v; want it accepted", sh, err)
	}
	dir := t.TempDir()
	info := shpInfo(0, 1_000_000_000, 4)
	if err := results.WriteFileAtomic(filepath.Join(dir, results.ShardFile), func(w io.Writer) error { return results.WriteJSON(w, info) }); err != nil {
		t.Fatal(err)
	}
	err := withinSeconds(t, "ReadShard of a shard 0/1000000000", 5*time.Second, func() error { _, err := ReadShard(dir); return err })
	if err == nil || !strings.Contains(err.Error(), "count 1000000000: there may be at most 100000 shards") {
		t.Errorf("ReadShard of a shard.json counting 10⁹ shards = %v; want it refused", err)
	}
	s := testShards(3)
	for i := range s {
		s[i].Info.Count = MaxShards
	}
	err = withinSeconds(t, "Merge of 3 of 100000 shards", 5*time.Second, func() error { _, _, err := Merge(s); return err })
	if err == nil || !strings.Contains(err.Error(), "99997 of 100000 shards missing") || !strings.Contains(err.Error(), "and 99987 more") || len(err.Error()) > 4000 {
		t.Errorf("Merge of 3 of 100000 shards = %.300v (%d bytes); want the missing counted, 10 named", err, len(fmt.Sprint(err)))
	}
}
