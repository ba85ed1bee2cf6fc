package results

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// shpInfo is shard index of count of a sweep of 2 points × 2 replications (4 units), with
// units as shard.json says (normally 4; the tests of its check set it otherwise).
func shpInfo(index, count, units int) ShardInfo {
	return ShardInfo{Header: fixtureHeader(), Work: KindSweep, Index: index, Count: count, Replications: 2, Units: units,
		Points: [][]Param{{{Path: "rate", Value: "1/s"}}, {{Path: "rate", Value: "2/s"}}}}
}

// shpUnit is the summary the tests keep as unit u: its Total.Issued is u+1, so each unit's file
// differs from every other's while all encode to the same number of bytes (a gob uint below
// 128 is one byte).
func shpUnit(u int) Summary {
	var s Summary
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
func shpEditManifest(t *testing.T, dir string, edit func(*Manifest)) {
	t.Helper()
	var m Manifest
	if err := readJSON(filepath.Join(dir, ManifestFile), &m); err != nil {
		t.Fatal(err)
	}
	edit(&m)
	if err := WriteFileAtomic(filepath.Join(dir, ManifestFile), func(w io.Writer) error { return writeJSON(w, m) }); err != nil {
		t.Fatal(err)
	}
}

// shpAlterSameSize changes one digit of dir/name in place, so the file keeps its size and only
// its SHA-256 tells it from the one the manifest lists.
func shpAlterSameSize(t *testing.T, dir, name string) {
	t.Helper()
	path := filepath.Join(dir, name)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.IndexAny(b, "0123456789")
	if i < 0 {
		t.Fatalf("%s holds no digit to alter", name)
	}
	b[i] = '0' + (b[i]-'0'+1)%10
	if err := os.WriteFile(path, b, 0o644); err != nil {
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
			b, err := os.ReadFile(filepath.Join(dir, UnitsDir, unitFile(3)))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, UnitsDir, unitFile(1)), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}, "unit 1 (point 0: rate=1/s, replication 1) (units/00000001.gob) changed after the shard finished"},
		{"unit 3 rewritten with another summary of the same size", func(t *testing.T, dir string) {
			var b bytes.Buffer
			info := shpInfo(1, 2, 4)
			if err := gob.NewEncoder(&b).Encode(unitRecord{Key: info.unitsKey(), Index: 3, Summary: shpUnit(40)}); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, UnitsDir, unitFile(3)), b.Bytes(), 0o644); err != nil {
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
			fi, err := os.Stat(filepath.Join(dir, UnitsDir, unitFile(u)))
			if err != nil {
				t.Fatal(err)
			}
			before[unitFile(u)] = fi.Size()
		}
		c.alter(t, dir)
		for name, size := range before {
			if fi, err := os.Stat(filepath.Join(dir, UnitsDir, name)); err != nil || fi.Size() != size {
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
func shpIssued(units map[int]Summary) string {
	var parts []string
	for _, u := range slices.Sorted(maps.Keys(units)) {
		parts = append(parts, fmt.Sprintf("%d:%d", u, units[u].Total.Issued))
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// TestReadManifestChecksDigests pins that a result's files are checked by SHA-256, not only by
// size (package doc, # Files: the manifest lists "every file with its size and SHA-256" and "a
// folder that was interrupted, killed, edited or mixed is refused, never read"; ReadManifest:
// "whole and unchanged (size and SHA-256)"). Every file of a run and of a sweep is edited in
// place without changing its size.
func TestReadManifestChecksDigests(t *testing.T) {
	write := map[string]func(dir string) error{
		KindRun: func(dir string) error { return WriteRunDir(dir, NewRun(fixtureHeader(), fixtureSeries())) },
		KindSweep: func(dir string) error {
			return WriteSweepDir(dir, fixtureHeader(), Aggregate(fixturePoints()), "", nil)
		},
	}
	for _, c := range []struct{ kind, file string }{
		{KindRun, RunFile},
		{KindRun, TimeseriesFile},
		{KindRun, SummaryFile},
		{KindSweep, PointsFile},
		{KindSweep, SweepFile},
	} {
		dir := t.TempDir()
		if err := write[c.kind](dir); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadManifest(dir); err != nil {
			t.Fatalf("%s: ReadManifest of the folder as written: %v", c.kind, err)
		}
		shpAlterSameSize(t, dir, c.file)
		_, err := ReadManifest(dir)
		if !errors.Is(err, ErrNoResult) || !strings.Contains(err.Error(), c.file+" changed after the result was written") {
			t.Errorf("ReadManifest(%s with %s edited, same size) = %v; want ErrNoResult saying %s changed", c.kind, c.file, err, c.file)
		}
	}
}

// TestManifestWithoutDigestRefused pins that a manifest naming no scenario digest is refused
// (package doc, # Files: the manifest holds "the SHA-256 digest of the scenario's canonical
// form"; Manifest.Digest: "two results with equal digests come from the same scenario"). A
// result without one could not be told apart from any other scenario's. Decided here: the rule
// holds for both readers of a folder, ReadManifest (every result) and ReadShard (merge reads
// shards through it, not through ReadManifest), and for a shard the digest must be its
// shard.json scenario's, so an empty one, or another scenario's, is refused.
func TestManifestWithoutDigestRefused(t *testing.T) {
	for _, c := range []struct {
		gloss string
		edit  func(*Manifest)
		want  string
	}{
		{"no digest", func(m *Manifest) { m.Digest = "" }, "names no kind or scenario digest"},
		{"no kind", func(m *Manifest) { m.Kind = "" }, "names no kind or scenario digest"},
	} {
		dir := t.TempDir()
		if err := WriteRunDir(dir, NewRun(fixtureHeader(), fixtureSeries())); err != nil {
			t.Fatal(err)
		}
		shpEditManifest(t, dir, c.edit)
		m, err := ReadManifest(dir)
		if !errors.Is(err, ErrNoResult) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: ReadManifest = kind %q digest %q, error %v; want ErrNoResult saying %q", c.gloss, m.Kind, m.Digest, err, c.want)
		}
	}

	for _, c := range []struct {
		gloss  string
		digest string
	}{
		{"no digest", ""},
		{"another scenario's digest", ScenarioDigest("name: other\n")},
	} {
		dir := t.TempDir()
		shpFinishShard(t, dir, shpInfo(0, 1, 4))
		shpEditManifest(t, dir, func(m *Manifest) { m.Digest = c.digest })
		r, err := ReadShard(dir)
		if want := "its manifest.json is not this shard's"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: ReadShard = %d units, error %v; want it refused saying %q", c.gloss, len(r.Units), err, want)
		}
	}
}

// TestClaimKeepsNestedFiles pins that claiming a folder for a new result removes only the
// top-level files the old manifest lists, never a nested path it lists, nor anything outside the
// folder (package doc, # Files: a new result "removes … the old result's files (those the
// manifest lists …)"; claimDir: "Other files are left alone"; README, "Resuming": a shard "run
// … again into the same folder … runs only the units it lacks"). A finished shard's manifest
// lists units/…: run again, the shard must find them all kept.
func TestClaimKeepsNestedFiles(t *testing.T) {
	t.Run("shard run again", func(t *testing.T) {
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
			if _, err := os.Stat(filepath.Join(dir, UnitsDir, unitFile(u))); err != nil {
				t.Errorf("after OpenShard again: %v; want unit %d's file kept", err, u)
			}
		}
	})

	for _, c := range []struct {
		gloss   string
		listed  []string // what the old manifest lists
		removed []string // listed top-level files, removed
		kept    []string // listed paths, kept
	}{
		{"a nested file", []string{"top.txt", "sub/keep.txt"}, []string{"top.txt"}, []string{"sub/keep.txt"}},
		{"a nested file two deep", []string{"a/b/keep.txt"}, nil, []string{"a/b/keep.txt"}},
		{"the parent folder", []string{"top.txt", ".."}, []string{"top.txt"}, nil},
	} {
		t.Run(c.gloss, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			for _, name := range append(slices.Clone(c.removed), c.kept...) {
				path := filepath.Join(dir, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(name), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			m := newManifest(KindRun, fixtureHeader())
			for _, name := range c.listed {
				m.Files = append(m.Files, FileDigest{Name: name})
			}
			if err := WriteFileAtomic(filepath.Join(dir, ManifestFile), func(w io.Writer) error { return writeJSON(w, m) }); err != nil {
				t.Fatal(err)
			}
			if err := WriteRunDir(dir, NewRun(fixtureHeader(), fixtureSeries())); err != nil {
				t.Fatalf("WriteRunDir over a manifest listing %q: %v; want the folder claimed", c.listed, err)
			}
			for _, name := range c.removed {
				if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(name))); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("WriteRunDir over a manifest listing %q: %s stat %v; want it removed (a top-level file the old result listed)", c.listed, name, err)
				}
			}
			for _, name := range c.kept {
				if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(name))); err != nil {
					t.Errorf("WriteRunDir over a manifest listing %q: %s stat %v; want it kept (a nested path)", c.listed, name, err)
				}
			}
			if _, err := ReadManifestOf(dir, KindRun); err != nil {
				t.Errorf("after the claim: %v", err)
			}
		})
	}
}
