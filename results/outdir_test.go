package results

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// plantFiles writes each name (slash-separated, parents created) with its text under dir.
func plantFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// checkFiles fails unless every file holds its text still.
func checkFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil || string(b) != text {
			t.Errorf("the user's %s: %q, %v; want it untouched (%q)", name, b, err, text)
		}
	}
}

// TestForeignFolderRefused pins that a result removes or overwrites only what a manifest (or the
// claim record of an unfinished write of ours) lists (package doc, # Files; docs/conventions.md
// §15): a folder of the user's own files is refused, naming them, and left as it was; so is a
// file of the user's under a result's name beside a result. An empty or missing folder, and
// folders a killed write left, are written.
func TestForeignFolderRefused(t *testing.T) {
	user := map[string]string{"units/notes.txt": "my notes", SummaryFile: "my summary", PointsFile: "my points"}
	for _, c := range []struct {
		gloss string
		write func(dir string) error
	}{
		{"run", func(dir string) error { return WriteRunDir(dir, NewRun(fixtureHeader(), fixtureSeries())) }},
		{"sweep", func(dir string) error {
			return writeSweepFixture(dir)
		}},
	} {
		t.Run(c.gloss, func(t *testing.T) {
			dir := t.TempDir()
			plantFiles(t, dir, user)
			err := c.write(dir)
			if !errors.Is(err, ErrForeign) || !strings.Contains(err.Error(), dir) ||
				!strings.Contains(err.Error(), "points.csv") || !strings.Contains(err.Error(), "units") {
				t.Errorf("%s into a folder of the user's files: %v; want ErrForeign naming the folder and its files", c.gloss, err)
			}
			checkFiles(t, dir, user)
			if _, err := os.Stat(filepath.Join(dir, ManifestFile)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a refused folder got a manifest: %v", err)
			}
		})
	}

	t.Run("a user's file under a result's name beside a result", func(t *testing.T) {
		dir := t.TempDir()
		if err := WriteRunDir(dir, NewRun(fixtureHeader(), fixtureSeries())); err != nil {
			t.Fatal(err)
		}
		mine := map[string]string{PointsFile: "my points", "notes.txt": "kept beside the result"}
		plantFiles(t, dir, mine)
		if err := CheckOutDir(dir); !errors.Is(err, ErrForeign) || !strings.Contains(err.Error(), PointsFile) || strings.Contains(err.Error(), "notes.txt") {
			t.Errorf("CheckOutDir(a run with the user's points.csv and notes.txt) = %v; want ErrForeign naming points.csv only", err)
		}
		err := writeSweepFixture(dir)
		if !errors.Is(err, ErrForeign) || !strings.Contains(err.Error(), PointsFile) {
			t.Errorf("a sweep over the user's points.csv: %v; want ErrForeign naming it", err)
		}
		checkFiles(t, dir, mine)
		delete(mine, PointsFile)
		os.Remove(filepath.Join(dir, PointsFile))
		if err := writeSweepFixture(dir); err != nil {
			t.Fatalf("a sweep over a run, with the user's notes beside it: %v", err)
		}
		checkFiles(t, dir, mine)
	})

	t.Run("empty, missing, or left by a killed write", func(t *testing.T) {
		run := NewRun(fixtureHeader(), fixtureSeries())
		if err := WriteRunDir(t.TempDir(), run); err != nil {
			t.Errorf("an empty folder: %v", err)
		}
		if err := WriteRunDir(filepath.Join(t.TempDir(), "new"), run); err != nil {
			t.Errorf("a missing folder: %v", err)
		}
		// A write killed after its claim: no manifest, some result files and a temporary.
		dir := t.TempDir()
		if err := WriteRunDir(dir, run); err != nil {
			t.Fatal(err)
		}
		if err := ClaimDir(dir, false, RunFile, TimeseriesFile, SummaryFile, ManifestFile); err != nil {
			t.Fatal(err)
		}
		plantFiles(t, dir, map[string]string{RunFile: "{", "." + SummaryFile + ".tmp": "half"})
		if err := WriteRunDir(dir, run); err != nil {
			t.Errorf("a folder a killed run left: %v", err)
		}
		if _, err := os.Stat(filepath.Join(dir, ClaimFile)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the claim record outlived the manifest: %v", err)
		}
		// An interrupted sweep: only its units, under its key.
		dir = t.TempDir()
		plantFiles(t, dir, map[string]string{filepath.Join(UnitsDir, UnitsKeyFile): ScenarioDigest("a sweep"), filepath.Join(UnitsDir, "00000001.gob"): "unit"})
		if err := CheckOutDir(dir); err != nil {
			t.Errorf("the units of an interrupted sweep: %v", err)
		}
		plantFiles(t, dir, map[string]string{"units/notes.txt": "mine"})
		if err := CheckOutDir(dir); !errors.Is(err, ErrForeign) {
			t.Errorf("units holding a file of the user's: %v; want ErrForeign", err)
		}
	})
}

// TestWriteNeverFollowsLinks pins that WriteFileAtomic creates its temporary exclusively and
// never writes through a symbolic link (package doc, # Files): a temporary left as a link to a
// file outside the folder, and a final name that is a link, replace the link, never its target.
func TestWriteNeverFollowsLinks(t *testing.T) {
	base := t.TempDir()
	victim := filepath.Join(base, "victim.txt")
	dir := filepath.Join(base, "out")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	write := func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }
	for _, c := range []struct{ gloss, link string }{
		{"a stale temporary", "." + SummaryFile + ".tmp"},
		{"the final name", SummaryFile},
	} {
		link := filepath.Join(dir, c.link)
		os.Remove(link)
		if err := os.Symlink(filepath.Join("..", "victim.txt"), link); err != nil {
			t.Skip("no symbolic links here:", err)
		}
		if err := WriteFileAtomic(filepath.Join(dir, SummaryFile), write); err != nil {
			t.Fatalf("%s a link: %v", c.gloss, err)
		}
		if b, _ := os.ReadFile(victim); string(b) != "precious" {
			t.Errorf("%s a link to a file outside: the file now holds %q", c.gloss, b)
		}
		st, err := os.Lstat(filepath.Join(dir, SummaryFile))
		if err != nil || !st.Mode().IsRegular() {
			t.Errorf("%s a link: %s is %v, %v; want a regular file", c.gloss, SummaryFile, st, err)
		}
		os.Remove(filepath.Join(dir, SummaryFile))
	}
	// And through a whole result: the run's summary is written, the victim untouched.
	if err := os.Symlink(filepath.Join("..", "victim.txt"), filepath.Join(dir, "."+SummaryFile+".tmp")); err != nil {
		t.Fatal(err)
	}
	if err := WriteRunDir(dir, NewRun(fixtureHeader(), fixtureSeries())); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Errorf("WriteRunDir wrote through a linked temporary: the file outside holds %q", b)
	}
}

// TestLockDir pins one writer per folder (package doc, # Files): a held lock refuses a second
// writer, naming the holder; released, or left by a holder that is gone, it is taken.
func TestLockDir(t *testing.T) {
	dir := t.TempDir()
	a, err := LockDir(dir, "pid 1, simulate run x, since then")
	if err != nil {
		t.Fatal(err)
	}
	_, err = LockDir(dir, "pid 2")
	if !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), "pid 1, simulate run x, since then") || !strings.Contains(err.Error(), dir) {
		t.Errorf("a second writer: %v; want ErrInUse naming the folder and the holder", err)
	}
	if err := a.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, LockFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a released lock left its file: %v", err)
	}
	b, err := LockDir(dir, "pid 3")
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	b.Release()
	// A lock file whose holder is gone (killed: it holds no lock on it any more).
	plantFiles(t, dir, map[string]string{LockFile: "pid 99999999, simulate sweep, since long ago"})
	c, err := LockDir(dir, "pid 4")
	if err != nil {
		t.Fatalf("a lock file left by a killed writer: %v; want it taken over", err)
	}
	c.Release()
}

// TestResolvePath: a link to a folder, and a path below it that does not exist yet, resolve to
// the folder's own path.
func TestResolvePath(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	real := filepath.Join(base, "real")
	if err := os.MkdirAll(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(base, "lnk")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	for in, want := range map[string]string{"lnk": real, "lnk/new/x": filepath.Join(real, "new", "x")} {
		if got, err := ResolvePath(filepath.Join(base, in)); err != nil || got != want {
			t.Errorf("ResolvePath(%s) = %q, %v; want %q", in, got, err, want)
		}
	}
}
