package experiment

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/results"
)

// shpInfo is shard index of count of a sweep of 2 points × 2 replications (4 units), with
// units as shard.json says (normally 4; the tests of its check set it otherwise).
func shpInfo(index, count, units int) ShardInfo {
	return ShardInfo{Header: fixtureHeader(), Work: results.KindSweep, Index: index, Count: count, Replications: 2, Units: units,
		Points: [][]results.Param{{{Path: "rate", Value: "1/s"}}, {{Path: "rate", Value: "2/s"}}}}
}

// shpUnit is the summary the tests keep as unit u: its Total.Issued is u+1, so each unit's file
// differs from every other's while all encode to the same number of bytes (a gob uint below
// 128 is one byte).
func shpUnit(u int) results.Summary {
	var s results.Summary
	s.Total.Issued = uint64(u + 1)
	return s
}

// shpFinishShard writes a finished shard folder as the shard command does: OpenShard, every unit
// the shard owns, FinishShard.
func shpFinishShard(t *testing.T, dir string, info ShardInfo) {
	t.Helper()
	units, _, err := OpenShard(dir, info)
	if err != nil {
		t.Fatalf("OpenShard(%s, %v): %v", dir, info.Shard(), err)
	}
	for _, u := range info.Shard().Units(info.Units) {
		if err := units.Put(u, shpUnit(u)); err != nil {
			t.Fatal(err)
		}
	}
	if err := FinishShard(dir, info); err != nil {
		t.Fatalf("FinishShard(%s, %v): %v", dir, info.Shard(), err)
	}
}

// shpEditManifest rewrites dir's manifest.json after edit changes it, as a hand or another tool
// would.
func shpEditManifest(t *testing.T, dir string, edit func(*results.Manifest)) {
	t.Helper()
	var m results.Manifest
	if err := results.ReadJSON(filepath.Join(dir, results.ManifestFile), &m); err != nil {
		t.Fatal(err)
	}
	edit(&m)
	if err := results.WriteFileAtomic(filepath.Join(dir, results.ManifestFile), func(w io.Writer) error { return results.WriteJSON(w, m) }); err != nil {
		t.Fatal(err)
	}
}

// TestReadShardChecksUnitCount pins that shard.json's unit count is checked against
// points × replications (ShardInfo.Units: "len(Points) × Replications"; README, "Merging": each
// shard "finished and intact, every unit present once"). A shard whose shard.json counts more
// units than the work has would hand Merge units of points that do not exist; one that counts
// fewer would drop runs. Each folder here is otherwise consistent: its manifest lists exactly the
// units its shard.json implies, with their digests, so only the count check can refuse it.
func TestReadShardChecksUnitCount(t *testing.T) {
	for _, c := range []struct {
		gloss string
		shard Shard
		units int
		want  string // "" for a shard that must read
	}{
		{"2 points × 2 replications = 4 units", Shard{0, 1}, 4, ""},
		{"4 units over 2 shards", Shard{1, 2}, 4, ""},
		{"one unit too few", Shard{0, 1}, 3, `describes no valid shard (shard 0/1 of a "sweep" of 3 units)`},
		{"one unit too many", Shard{0, 1}, 5, `describes no valid shard (shard 0/1 of a "sweep" of 5 units)`},
		{"one too many, over 2 shards", Shard{0, 2}, 5, `describes no valid shard (shard 0/2 of a "sweep" of 5 units)`},
		{"no units at all", Shard{0, 1}, 0, `describes no valid shard (shard 0/1 of a "sweep" of 0 units)`},
	} {
		dir := t.TempDir()
		shpFinishShard(t, dir, shpInfo(c.shard.Index, c.shard.Count, c.units))
		r, err := ReadShard(dir)
		if c.want == "" {
			if err != nil || len(r.Units) != len(c.shard.Units(c.units)) {
				t.Errorf("%s: ReadShard(shard %v, units %d) = %d units, %v; want its %d units", c.gloss, c.shard, c.units, len(r.Units), err, len(c.shard.Units(c.units)))
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: ReadShard(shard %v, units %d) = %d units, error %v; want it refused saying %q (2 points × 2 replications are 4 units)",
				c.gloss, c.shard, c.units, len(r.Units), err, c.want)
		}
	}
}

// TestReadShardChecksUnitDigests pins that ReadShard checks each unit file's SHA-256, not only its
// size (FinishShard: "every unit file with its digest, so that Merge takes no unfinished,
// truncated or altered shard"; README, "Merging": it names "the truncated or altered unit"). A
// unit replaced by another unit's file, or edited in place, keeps its size and still decodes, so
// only the digest tells; read back, it would put another run's summary into the merge.
func TestReadShardChecksUnitDigests(t *testing.T) {
	for _, c := range []struct {
		gloss string
		alter func(t *testing.T, dir string)
		want  string
	}{
		{"unit 1 replaced by unit 3's file", func(t *testing.T, dir string) {
			b, err := os.ReadFile(filepath.Join(dir, results.UnitsDir, unitFile(3)))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, results.UnitsDir, unitFile(1)), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}, "unit 1 (point 0: rate=1/s, replication 1) (units/00000001.gob) changed after the shard finished"},
		{"unit 3 rewritten with another summary of the same size", func(t *testing.T, dir string) {
			var b bytes.Buffer
			info := shpInfo(1, 2, 4)
			if err := gob.NewEncoder(&b).Encode(unitRecord{Key: info.unitsKey(), Index: 3, Summary: shpUnit(40)}); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, results.UnitsDir, unitFile(3)), b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "unit 3 (point 1: rate=2/s, replication 1) (units/00000003.gob) changed after the shard finished"},
	} {
		dir := t.TempDir()
		// Shard 1/2 holds units 1 and 3, whose files (key, index and summary) encode to the
		// same size: a gob omits a zero index, so unit 0's would be shorter.
		shpFinishShard(t, dir, shpInfo(1, 2, 4))
		before := map[string]int64{}
		for _, u := range []int{1, 3} {
			fi, err := os.Stat(filepath.Join(dir, results.UnitsDir, unitFile(u)))
			if err != nil {
				t.Fatal(err)
			}
			before[unitFile(u)] = fi.Size()
		}
		c.alter(t, dir)
		for name, size := range before {
			if fi, err := os.Stat(filepath.Join(dir, results.UnitsDir, name)); err != nil || fi.Size() != size {
				t.Fatalf("%s: the alteration changed the size of %s (%v): the test must keep it", c.gloss, name, err)
			}
		}
		r, err := ReadShard(dir)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: ReadShard = units %v, error %v; want it refused saying %q (same size, other SHA-256)", c.gloss, shpIssued(r.Units), err, c.want)
		}
	}
}

// shpIssued lists the units' Total.Issued, by unit, to show which summaries a read returned.
func shpIssued(units map[int]results.Summary) string {
	var parts []string
	for _, u := range slices.Sorted(maps.Keys(units)) {
		parts = append(parts, fmt.Sprintf("%d:%d", u, units[u].Total.Issued))
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// TestShardManifestDigestRefused pins that ReadShard, which merge reads shards through (not
// through results.ReadManifest), refuses a manifest naming no scenario digest or another
// scenario's: a shard's digest must be its shard.json scenario's (results.Manifest.Digest: "two
// results with equal digests come from the same scenario").
func TestShardManifestDigestRefused(t *testing.T) {
	for _, c := range []struct {
		gloss  string
		digest string
	}{
		{"no digest", ""},
		{"another scenario's digest", results.ScenarioDigest("name: other\n")},
	} {
		dir := t.TempDir()
		shpFinishShard(t, dir, shpInfo(0, 1, 4))
		shpEditManifest(t, dir, func(m *results.Manifest) { m.Digest = c.digest })
		r, err := ReadShard(dir)
		if want := "its manifest.json is not this shard's"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: ReadShard = %d units, error %v; want it refused saying %q", c.gloss, len(r.Units), err, want)
		}
	}
}

// TestShardRunAgainKeepsUnits pins that a finished shard run again into its folder finds every
// unit kept (README, "Resuming": a shard "run … again into the same folder … runs only the units
// it lacks"): its manifest lists units/…, nested paths that claiming the folder never removes.
func TestShardRunAgainKeepsUnits(t *testing.T) {
	dir := t.TempDir()
	info := shpInfo(1, 2, 4) // units 1 and 3
	shpFinishShard(t, dir, info)
	_, kept, err := OpenShard(dir, info)
	if err != nil {
		t.Fatal(err)
	}
	if got := slices.Sorted(maps.Keys(kept)); !slices.Equal(got, []int{1, 3}) {
		t.Errorf("OpenShard(finished shard 1/2) kept units %v, want [1 3]: claiming the folder removed units its manifest lists", got)
	}
	for _, u := range []int{1, 3} {
		if _, err := os.Stat(filepath.Join(dir, results.UnitsDir, unitFile(u))); err != nil {
			t.Errorf("after OpenShard again: %v; want unit %d's file kept", err, u)
		}
	}
}

// fixtureHeader is the header of the shards the tests write: the scenario, seed and version
// that every shard of one work shares.
func fixtureHeader() results.Header {
	return results.Header{Tool: "overloadsim", Version: "v0.0.0-test", Scenario: "golden", Description: "a hand-built series",
		Claim: "formats are stable", Canonical: "name: golden\nseed: 7\nduration: 3.5s\n", Seed: 7,
		Streams:    results.DeriveStreams(7, "group/a", "group/b", "server/db/service"),
		StreamRule: results.StreamRule,
		Duration:   3500 * time.Millisecond, Interval: time.Second, Warmup: time.Second}
}

// TestTuneShardWithoutConstraintsReadsBack: a tuning sharded without --subject-to holds no
// constraints, which the command has as a nil list and shard.json writes, and reads back, as
// an empty one; the units the shard keeps under the one must be read under the other, or no
// such tuning could be merged.
func TestTuneShardWithoutConstraintsReadsBack(t *testing.T) {
	base := t.TempDir()
	var shards []ShardResult
	for i := range 2 {
		info := shpInfo(i, 2, 4)
		info.Work = results.KindTune
		info.Tune = &results.TuneShard{Params: []results.TuneParam{{Path: "rate", Range: "1/s:2/s:2", Unit: "/s", Lo: 1, Hi: 2, Levels: 2}},
			Objective: results.TuneObjective{Metric: "total.goodput", Sense: "maximize"}}
		dir := filepath.Join(base, fmt.Sprint(i))
		shpFinishShard(t, dir, info)
		s, err := ReadShard(dir)
		if err != nil {
			t.Fatalf("ReadShard of a tuning's shard without constraints: %v", err)
		}
		shards = append(shards, s)
	}
	if _, runs, err := Merge(shards); err != nil || len(runs) != 4 {
		t.Fatalf("Merge: %d units, %v", len(runs), err)
	}
}
