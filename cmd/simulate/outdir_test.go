package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/overloadsim/overloadsim/experiment"
	"github.com/overloadsim/overloadsim/results"
)

// runArgs is a short run into dir.
func runArgs(dir string) []string {
	return []string{"run", "healthy", "--set", "duration=3s", "--set", "warmup=1s", "--out", dir}
}

// TestOutRefusesForeignFolder: run and sweep --out a folder of the user's own files (no
// manifest) refuse it up front, naming the folder and the files, and delete or overwrite
// nothing (docs/conventions.md §15: only what a manifest lists is ever removed).
func TestOutRefusesForeignFolder(t *testing.T) {
	user := map[string]string{"units/notes.txt": "my notes", "summary.json": "my summary", "points.csv": "my points"}
	for _, args := range [][]string{runArgs("."), sweepArgs(".")} {
		t.Run(args[0], func(t *testing.T) {
			dir := t.TempDir()
			for name, text := range user {
				p := filepath.Join(dir, filepath.FromSlash(name))
				_ = os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			args[len(args)-1] = dir
			s, _, errb := runStatus(args...)
			if s != exitUsage || !strings.Contains(errb, dir) || !strings.Contains(errb, "points.csv") ||
				!strings.Contains(errb, "no overloadsim result lists") || strings.Contains(errb, "wrote "+dir) {
				t.Errorf("%s --out a folder of the user's files: exit %d, stderr %q; want it refused (exit %d), naming the folder and files", args[0], s, errb, exitUsage)
			}
			for name, text := range user {
				if b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name))); err != nil || string(b) != text {
					t.Errorf("the user's %s: %q, %v; want it untouched", name, b, err)
				}
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != len([]string{"units", "summary.json", "points.csv"}) {
				t.Errorf("the refused folder holds %d entries, want the user's 3", len(entries))
			}
		})
	}
}

// TestOutLinkedTemporary: a temporary left as a symbolic link to a file outside the folder is
// replaced, never written through (docs/conventions.md §15).
func TestOutLinkedTemporary(t *testing.T) {
	base := t.TempDir()
	dir, victim := filepath.Join(base, "r"), filepath.Join(base, "victim.txt")
	runOK(t, runArgs(dir)...)
	if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../victim.txt", filepath.Join(dir, ".summary.json.tmp")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	runOK(t, runArgs(dir)...)
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Errorf("run wrote through a linked temporary: the file outside now holds %q", b)
	}
	if _, err := results.ReadManifestOf(dir, results.KindRun); err != nil {
		t.Error(err)
	}
}

// TestMergeOutThroughLink: merge --out a symbolic link to one of its shards' folders is that
// shard's folder, refused before anything is written: the shard keeps its shard.json.
func TestMergeOutThroughLink(t *testing.T) {
	base := t.TempDir()
	dirs := runShards(t, shardSweepArgs, base, 2, 1)
	lnk := filepath.Join(base, "lnk")
	if err := os.Symlink(dirs[0], lnk); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	s, _, errb := runStatus("merge", dirs[0], dirs[1], "--out", lnk)
	if s != exitUsage || !strings.Contains(errb, "inside shard 0/2") {
		t.Errorf("merge --out a link to shard 0's folder: exit %d, %q; want it refused as inside the shard", s, errb)
	}
	if _, err := experiment.ReadShard(dirs[0]); err != nil {
		t.Errorf("shard 0 after the refused merge: %v", err)
	}
}

// TestOutInUse: a folder another simulate is writing is refused, naming the holder; the lock
// goes with its holder, on every exit: a finished command leaves none, nor does a killed one
// block the next (docs/conventions.md §15: one writer at a time).
func TestOutInUse(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cc")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	l, err := results.LockDir(dir, "pid 4242, simulate sweep healthy, since 2026-01-02T03:04:05Z")
	if err != nil {
		t.Fatal(err)
	}
	s, _, errb := runStatus(runArgs(dir)...)
	if s != exitUsage || !strings.Contains(errb, "in use") || !strings.Contains(errb, "pid 4242, simulate sweep healthy, since 2026-01-02T03:04:05Z") ||
		strings.Contains(errb, "wrote "+dir) {
		t.Errorf("run into a folder in use: exit %d, %q; want it refused, naming the holder", s, errb)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	runOK(t, runArgs(dir)...)
	if _, err := os.Stat(filepath.Join(dir, results.LockFile)); !os.IsNotExist(err) {
		t.Errorf("a finished run left its lock: %v", err)
	}
	// plot and report draw into a result folder: not while another simulate holds it.
	if l, err = results.LockDir(dir, "pid 4343, simulate run healthy, since 2026-01-02T03:04:05Z"); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"plot", "report"} {
		if s, _, errb := runStatus(cmd, dir); s != exitUsage || !strings.Contains(errb, "pid 4343") {
			t.Errorf("%s a folder in use: exit %d, %q; want it refused, naming the holder", cmd, s, errb)
		}
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	runOK(t, "plot", dir)
	if _, err := os.Stat(filepath.Join(dir, results.LockFile)); !os.IsNotExist(err) {
		t.Errorf("a finished plot left its lock: %v", err)
	}

	// A sweep killed outright leaves its lock file, held by no one: the same sweep resumes.
	sw := filepath.Join(t.TempDir(), "sw")
	if status, stderr := signalAfterUnits(t, sw, 1, syscall.SIGKILL, sweepArgs(sw)...); status != -1 {
		t.Fatalf("killed sweep: exit %d\n%s", status, stderr)
	}
	if _, err := os.Stat(filepath.Join(sw, results.LockFile)); err != nil {
		t.Logf("the killed sweep left no lock file: %v", err)
	}
	s, _, errb = runStatus(sweepArgs(sw)...)
	if s != exitOK || !strings.Contains(errb, "resuming") {
		t.Errorf("the sweep after a kill: exit %d, %q; want it resumed", s, errb)
	}
}

// TestDrawnRefusesForeignFile: plot and report draw only over their own files. Beside a finished
// run, a file of the user's under a figure's or the report's name, not listed by the manifest
// and carrying no overloadsim mark, is refused and left as it was; a figure drawn earlier (ours,
// marked) is drawn again (docs/conventions.md §15: nothing the manifest does not list is
// overwritten).
func TestDrawnRefusesForeignFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r")
	runOK(t, runArgs(dir)...)
	for _, tc := range []struct{ cmd, file string }{
		{"plot", "timeseries.svg"},
		{"plot", "timeseries.png"},
		{"report", "report.html"},
	} {
		mine := filepath.Join(dir, tc.file)
		if err := os.WriteFile(mine, []byte("my own notes\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		status, _, stderr := runStatus(tc.cmd, dir)
		if status == exitOK || !strings.Contains(stderr, tc.file) || !strings.Contains(stderr, "refusing to overwrite") {
			t.Errorf("%s %s beside the user's %s: exit %d\n%s; want it refused naming the file", tc.cmd, dir, tc.file, status, stderr)
		}
		if b, err := os.ReadFile(mine); err != nil || string(b) != "my own notes\n" {
			t.Errorf("%s %s: the user's %s is now %q (%v); want it untouched", tc.cmd, dir, tc.file, b, err)
		}
		if err := os.Remove(mine); err != nil {
			t.Fatal(err)
		}
	}
	// Ours: drawn, then drawn again over the marked files.
	runOK(t, "plot", dir)
	runOK(t, "plot", dir)
	runOK(t, "report", dir)
	runOK(t, "report", dir)
	// A figure of ours that the manifest does not list (drawn by a plot killed before it listed
	// it, here another result's): marked, so drawn over.
	other := filepath.Join(t.TempDir(), "other")
	runOK(t, "run", "healthy", "--set", "duration=2s", "--set", "warmup=1s", "--out", other)
	runOK(t, "plot", other)
	fresh := filepath.Join(t.TempDir(), "fresh")
	runOK(t, runArgs(fresh)...)
	b, err := os.ReadFile(filepath.Join(other, "timeseries.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(fresh, "timeseries.svg"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	runOK(t, "plot", fresh)
}
