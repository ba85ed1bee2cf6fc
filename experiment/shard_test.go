package experiment

import (
	"slices"
	"strings"
	"testing"

	"github.com/overloadsim/overloadsim/results"
)

func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Shard
		err  string
	}{
		{"0/1", Shard{0, 1}, ""},
		{"3/4", Shard{3, 4}, ""},
		{" 2 / 5 ", Shard{2, 5}, ""},
		{"4/4", Shard{}, "index 4 is out of range: the shards of 4 are numbered 0 to 3"},
		{"-1/4", Shard{}, "index -1 is out of range"},
		{"0/0", Shard{}, "n is 0"},
		{"0/-2", Shard{}, "n is -2"},
		{"", Shard{}, "want i/n"},
		{"1", Shard{}, "want i/n"},
		{"1/2/3", Shard{}, "want i/n"},
		{"x/4", Shard{}, "want i/n"},
	} {
		got, err := ParseShard(tc.in)
		if tc.err == "" {
			if err != nil || got != tc.want {
				t.Errorf("ParseShard(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
			}
			if got.String() != strings.ReplaceAll(tc.in, " ", "") {
				t.Errorf("%v.String() = %q", got, got.String())
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("ParseShard(%q) error %v; want it to say %q", tc.in, err, tc.err)
		}
	}
}

// TestShardUnits: the documented rule, unit u to shard u mod n, every unit in exactly one shard,
// and the shards' sizes within one of each other.
func TestShardUnits(t *testing.T) {
	if got := (Shard{1, 4}).Units(10); !slices.Equal(got, []int{1, 5, 9}) {
		t.Errorf("shard 1/4 of 10 units = %v, want [1 5 9]", got)
	}
	for _, total := range []int{0, 1, 7, 12, 100} {
		for n := 1; n <= 9; n++ {
			seen := make([]int, total)
			minSize, maxSize := total, 0
			for i := range n {
				sh := Shard{i, n}
				us := sh.Units(total)
				minSize, maxSize = min(minSize, len(us)), max(maxSize, len(us))
				for _, u := range us {
					seen[u]++
					if !sh.Owns(u) || u%n != i {
						t.Errorf("shard %v runs unit %d, which it does not own", sh, u)
					}
				}
			}
			for u, c := range seen {
				if c != 1 {
					t.Errorf("%d units over %d shards: unit %d in %d shards", total, n, u, c)
				}
			}
			if total > 0 && maxSize-minSize > 1 {
				t.Errorf("%d units over %d shards: sizes %d to %d", total, n, minSize, maxSize)
			}
		}
	}
}

// testShards returns n shards of a 2-point × 2-replication work, holding their units.
func testShards(n int) []ShardResult {
	info := ShardInfo{Header: results.Header{Tool: "simulate", Version: "v1", Scenario: "s", Canonical: "name: s\n", Seed: 1},
		Work: results.KindSweep, Count: n, Replications: 2, Units: 4,
		Points: [][]results.Param{{{Path: "rate", Value: "1/s"}}, {{Path: "rate", Value: "2/s"}}}}
	var out []ShardResult
	for i := range n {
		si := info
		si.Index = i
		r := ShardResult{Dir: "d" + string(rune('0'+i)), Info: si, Units: map[int]results.Summary{}}
		for _, u := range si.Shard().Units(4) {
			var s results.Summary
			s.Total.Issued = uint64(u)
			r.Units[u] = s
		}
		out = append(out, r)
	}
	return out
}

func TestMerge(t *testing.T) {
	info, runs, err := Merge(testShards(3))
	if err != nil {
		t.Fatal(err)
	}
	if info.Units != 4 || len(runs) != 4 {
		t.Fatalf("merged %d runs of %d units", len(runs), info.Units)
	}
	for u, s := range runs {
		if s.Total.Issued != uint64(u) {
			t.Errorf("run %d is unit %d's", u, s.Total.Issued)
		}
	}

	for _, tc := range []struct {
		name   string
		damage func([]ShardResult) []ShardResult
		want   string
	}{
		{"none", func([]ShardResult) []ShardResult { return nil }, "no shard folders given"},
		{"version", func(s []ShardResult) []ShardResult { s[2].Info.Header.Version = "v2"; return s }, "shard 0/3 (d0) and shard 2/3 (d2) are shards of different work: simulator version v1 vs v2"},
		{"scenario", func(s []ShardResult) []ShardResult { s[1].Info.Header.Canonical = "name: t\n"; return s }, "different work: scenario digest"},
		{"replications", func(s []ShardResult) []ShardResult { s[1].Info.Replications = 4; return s }, "different work: replications 2 vs 4"},
		{"trigger", func(s []ShardResult) []ShardResult { s[1].Info.Trigger = "cut"; return s }, "different work: trigger"},
		{"missing", func(s []ShardResult) []ShardResult { return s[:2] }, "1 of 3 shards missing: shard 2/3 (its 1 units: unit 2 (point 1: rate=2/s, replication 0))"},
		{"lacks a unit", func(s []ShardResult) []ShardResult { delete(s[0].Units, 3); return s }, "shard 0/3 (d0) lacks unit 3 (point 1: rate=2/s, replication 1)"},
		{"a foreign unit", func(s []ShardResult) []ShardResult { s[0].Units[1] = results.Summary{}; return s }, "shard 0/3 (d0) holds unit 1 (point 0: rate=1/s, replication 1), which belongs to shard 1/3"},
	} {
		_, _, err := Merge(tc.damage(testShards(3)))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Merge error %v; want it to say %q", tc.name, err, tc.want)
		}
	}
}
