package results

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

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

// TestReadManifestChecksDigests pins that a result's files are checked by SHA-256, not only by
// size (package doc, # Files: the manifest lists "every file with its size and SHA-256" and "a
// folder that was interrupted, killed, edited or mixed is refused, never read"; ReadManifest:
// "whole and unchanged (size and SHA-256)"). Every file of a run and of a sweep is edited in
// place without changing its size.
func TestReadManifestChecksDigests(t *testing.T) {
	write := map[string]func(dir string) error{
		KindRun: func(dir string) error { return WriteRunDir(dir, NewRun(fixtureHeader(), fixtureSeries())) },
		KindSweep: func(dir string) error {
			return writeSweepFixture(dir)
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
// result without one could not be told apart from any other scenario's. The rule holds for
// both readers of a folder: ReadManifest (every result), pinned here, and experiment.ReadShard
// (TestShardManifestDigestRefused).
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

}

// TestClaimKeepsNestedFiles pins that claiming a folder for a new result removes only the
// top-level files the old manifest lists, never a nested path it lists, nor anything outside the
// folder (package doc, # Files: a new result "removes … the old result's files (those the
// manifest lists …)"; ClaimDir: "Other files are left alone"; for a shard run again, see
// experiment.TestShardRunAgainKeepsUnits).
func TestClaimKeepsNestedFiles(t *testing.T) {
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
			m := NewManifest(KindRun, fixtureHeader())
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
