package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/overloadsim/overloadsim/experiment"
	"github.com/overloadsim/overloadsim/results"
)

// shardSweepArgs is a small sweep of 3 points × 2 replications = 6 units.
func shardSweepArgs(dir string, extra ...string) []string {
	return append([]string{"sweep", "healthy", "--set", "duration=3s", "--set", "warmup=1s",
		"--vary", "clients[0].workload.rate=200/s,400/s,600/s", "--replications", "2", "--out", dir}, extra...)
}

// shardMapArgs is a small map of 4 cells × 3 replications = 12 units.
func shardMapArgs(dir string, extra ...string) []string {
	return append([]string{"map", tinyCut, "--vary", "faults[0].speed=0.3,0.6", "--vary", "faults[0].for=200ms,2s",
		"--replications", "3", "--out", dir}, extra...)
}

// shardTuneArgs is a small tuning's coarse grid of 3 candidates × 2 replications = 6 units.
func shardTuneArgs(dir string, extra ...string) []string {
	return append([]string{"tune", "healthy", "--set", "duration=3s", "--set", "warmup=1s",
		"--tune", "clients[0].workload.rate=200/s:600/s:3", "--maximize", "total.goodput",
		"--subject-to", "total.amplification<=1.5", "--replications", "2", "--refine", "0", "--out", dir}, extra...)
}

// shardTuneFreeArgs is shardTuneArgs without a constraint (no --subject-to).
func shardTuneFreeArgs(dir string, extra ...string) []string {
	args := shardTuneArgs(dir, extra...)
	i := slices.Index(args, "--subject-to")
	return slices.Delete(args, i, i+2)
}

// sameFolders fails unless folders a and b hold the same files with the same bytes.
func sameFolders(t *testing.T, a, b string) {
	t.Helper()
	list := func(dir string) []string {
		var names []string
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			names = append(names, e.Name())
		}
		return names
	}
	na, nb := list(a), list(b)
	if !slices.Equal(na, nb) {
		t.Fatalf("%s holds %v, %s holds %v", a, na, b, nb)
	}
	for _, n := range na {
		x, _ := os.ReadFile(filepath.Join(a, n))
		y, _ := os.ReadFile(filepath.Join(b, n))
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs between %s and %s", n, a, b)
		}
	}
}

// runShards runs shard i/n of args for every i, each into base/<i>, and returns the folders.
func runShards(t *testing.T, args func(dir string, extra ...string) []string, base string, n, workers int) []string {
	t.Helper()
	var dirs []string
	for i := range n {
		dir := filepath.Join(base, fmt.Sprint(i))
		runOK(t, args(dir, "--shard", fmt.Sprintf("%d/%d", i, n), "--workers", fmt.Sprint(workers))...)
		dirs = append(dirs, dir)
	}
	return dirs
}

// TestMergeEqualsOneMachine: merging the n shards of a sweep, a map or a tuning's coarse grid
// writes the same bytes, and prints the same table, as the command run on one machine, for any n (more shards than units
// included) and any worker count, whatever order the shard folders are given in.
func TestMergeEqualsOneMachine(t *testing.T) {
	for _, tc := range []struct {
		name string
		args func(dir string, extra ...string) []string
	}{{"sweep", shardSweepArgs}, {"map", shardMapArgs}, {"tune", shardTuneArgs}} {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			direct := filepath.Join(base, "direct")
			want := runOK(t, tc.args(direct, "--workers", "2")...)
			for _, n := range []int{1, 2, 3, 5, 13} {
				for _, workers := range []int{1, 2} {
					dirs := runShards(t, tc.args, filepath.Join(base, fmt.Sprintf("n%d-w%d", n, workers)), n, workers)
					slices.Reverse(dirs)
					merged := filepath.Join(base, fmt.Sprintf("merged-n%d-w%d", n, workers))
					got := runOK(t, append(append([]string{"merge"}, dirs...), "--out", merged)...)
					sameFolders(t, direct, merged)
					if got != want {
						t.Errorf("n %d, workers %d: merge printed\n%s\nwant\n%s", n, workers, got, want)
					}
				}
			}
		})
	}
}

// TestMergeTuneWithoutConstraints: a tuning sharded without --subject-to merges into what it
// writes on one machine (its shards once kept their units under a key the merge did not find).
func TestMergeTuneWithoutConstraints(t *testing.T) {
	base := t.TempDir()
	direct := filepath.Join(base, "direct")
	want := runOK(t, shardTuneFreeArgs(direct)...)
	dirs := runShards(t, shardTuneFreeArgs, base, 2, 1)
	merged := filepath.Join(base, "merged")
	if got := runOK(t, append(append([]string{"merge"}, dirs...), "--out", merged)...); got != want {
		t.Errorf("merge printed\n%s\nwant\n%s", got, want)
	}
	sameFolders(t, direct, merged)
}

// TestShardAssignment: shard i of n runs exactly the units u with u mod n = i, the rule the
// merge relies on and the docs state.
func TestShardAssignment(t *testing.T) {
	base := t.TempDir()
	dirs := runShards(t, shardSweepArgs, base, 4, 1)
	for i, dir := range dirs {
		m, err := results.ReadManifestOf(dir, results.KindShard)
		if err != nil {
			t.Fatal(err)
		}
		if m.Shard != fmt.Sprintf("%d/4", i) {
			t.Errorf("the manifest of shard %d/4 says shard %q", i, m.Shard)
		}
		var units []string
		for _, f := range m.Files {
			if strings.HasSuffix(f.Name, ".gob") {
				units = append(units, f.Name)
			}
		}
		var want []string
		for u := i; u < 6; u += 4 {
			want = append(want, fmt.Sprintf("units/%08d.gob", u))
		}
		if !slices.Equal(units, want) {
			t.Errorf("shard %d/4 holds %v, want %v", i, units, want)
		}
	}
}

// TestShardIsNoResult: report, plot and check refuse a shard folder and say to merge it first.
func TestShardIsNoResult(t *testing.T) {
	dir := runShards(t, shardSweepArgs, t.TempDir(), 2, 1)[0]
	for _, args := range [][]string{{"report", dir}, {"plot", dir}, {"check", "--baseline", "x.json", dir}} {
		s, _, errb := runStatus(args...)
		if s == exitOK || !strings.Contains(errb, "holds a shard") || !strings.Contains(errb, "simulate merge") {
			t.Errorf("simulate %s: exit %d, %s; want a refusal that says to merge the shards", strings.Join(args, " "), s, errb)
		}
	}
}

// TestShardResume: a shard stopped by a signal, or killed outright, leaves an unfinished folder
// that merge refuses; the same command then runs only the units it lacks, and the merged result
// is the same bytes as one from shards that never stopped.
func TestShardResume(t *testing.T) {
	// Longer runs than the other tests', so that a shard is still running when it is stopped.
	args := func(dir string, extra ...string) []string {
		return append([]string{"sweep", "healthy", "--set", "duration=20s", "--set", "warmup=1s",
			"--vary", "clients[0].workload.rate=200/s,400/s,600/s", "--replications", "4", "--out", dir}, extra...)
	}
	base := t.TempDir()
	direct := filepath.Join(base, "direct")
	runOK(t, args(direct)...)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			dirs := runShards(t, args, t.TempDir(), 2, 1)
			cut := dirs[0]
			if err := os.RemoveAll(cut); err != nil {
				t.Fatal(err)
			}
			status, stderr := signalAfterUnits(t, cut, 1, sig, args(cut, "--shard", "0/2", "--workers", "1")...)
			if status == exitOK {
				t.Fatalf("stopped shard: exit 0, want it to have been stopped before it finished\n%s", stderr)
			}
			if sig == syscall.SIGTERM && (status != exitInterrupted || !strings.Contains(stderr, "unfinished")) {
				t.Fatalf("shard stopped by SIGTERM: exit %d, want %d saying it is unfinished\n%s", status, exitInterrupted, stderr)
			}
			merged := filepath.Join(t.TempDir(), "merged")
			s, _, errb := runStatus(append([]string{"merge", "--out", merged}, dirs...)...)
			if s == exitOK || !strings.Contains(errb, "shard 0/2") || !strings.Contains(errb, "has not finished") {
				t.Errorf("merge of an unfinished shard: exit %d, %s", s, errb)
			}
			if _, err := os.Stat(merged); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a refused merge wrote %s", merged)
			}
			var out, errb2 bytes.Buffer
			if s := run(args(cut, "--shard", "0/2", "--workers", "1"), &out, &errb2); s != exitOK {
				t.Fatalf("resumed shard: exit %d\n%s", s, errb2.String())
			}
			if !strings.Contains(errb2.String(), "resuming shard 0/2") {
				t.Errorf("the resumed shard does not say it resumes:\n%s", errb2.String())
			}
			runOK(t, append([]string{"merge", "--out", merged}, dirs...)...)
			sameFolders(t, direct, merged)
		})
	}
}

// TestMergeRefuses: every bad input names the shard (and the unit where there is one), exits
// non-zero and writes nothing.
func TestMergeRefuses(t *testing.T) {
	base := t.TempDir()
	dirs := runShards(t, shardSweepArgs, filepath.Join(base, "good"), 3, 1)
	other := runShards(t, func(dir string, extra ...string) []string {
		return shardSweepArgs(dir, append(extra, "--seed", "99")...)
	}, filepath.Join(base, "other"), 3, 1)
	four := runShards(t, shardSweepArgs, filepath.Join(base, "four"), 4, 1)
	mapDirs := runShards(t, shardMapArgs, filepath.Join(base, "map"), 3, 1)

	// copyShard copies a shard folder so that it can be damaged without touching the others.
	copyShard := func(src string) string {
		dst := filepath.Join(t.TempDir(), filepath.Base(src))
		if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
			t.Fatal(err)
		}
		return dst
	}
	truncated := copyShard(dirs[1])
	if err := os.Truncate(filepath.Join(truncated, "units", "00000004.gob"), 10); err != nil {
		t.Fatal(err)
	}
	badInfo := copyShard(dirs[1])
	if err := os.Truncate(filepath.Join(badInfo, results.ShardFile), 100); err != nil {
		t.Fatal(err)
	}
	missingUnit := copyShard(dirs[1])
	if err := os.Remove(filepath.Join(missingUnit, "units", "00000001.gob")); err != nil {
		t.Fatal(err)
	}
	unfinished := copyShard(dirs[2])
	if err := os.Remove(filepath.Join(unfinished, results.ManifestFile)); err != nil {
		t.Fatal(err)
	}
	// A shard whose manifest lists a unit of another shard: that unit would be counted twice.
	doubled := copyShard(dirs[0])
	src, _ := os.ReadFile(filepath.Join(dirs[1], "units", "00000001.gob"))
	if err := os.WriteFile(filepath.Join(doubled, "units", "00000001.gob"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	var hdr experiment.ShardInfo
	if b, err := os.ReadFile(filepath.Join(doubled, results.ShardFile)); err != nil || json.Unmarshal(b, &hdr) != nil {
		t.Fatal(err)
	}
	if err := results.Stamp(doubled, results.KindShard, hdr.Header, results.ShardFile, "units/KEY", "units/00000000.gob", "units/00000001.gob", "units/00000003.gob"); err != nil {
		t.Fatal(err)
	}
	notShard := filepath.Join(base, "direct")
	runOK(t, shardSweepArgs(notShard)...)

	for _, tc := range []struct {
		name string
		args []string
		want []string // every one must be in the error
	}{
		{"no folders", nil, []string{"give the shard folders"}},
		{"missing shard", []string{dirs[0], dirs[2]}, []string{"1 of 3 shards missing", "shard 1/3", "unit 1 (point 0: clients[0].workload.rate=200/s, replication 1)", "unit 4 (point 2"}},
		{"shard twice", []string{dirs[0], dirs[1], dirs[1], dirs[2]}, []string{"shard 1/3 is given twice"}},
		{"another seed", []string{dirs[0], other[1], dirs[2]}, []string{"shard 0/3", "shard 1/3", "different work: seed"}},
		{"another shard count", []string{dirs[0], four[1], dirs[2]}, []string{"different work: shard count 3 vs 4"}},
		{"another work", []string{dirs[0], mapDirs[1], dirs[2]}, []string{"different work"}},
		{"truncated unit", []string{dirs[0], truncated, dirs[2]}, []string{"shard 1/3", "unit 4 (point 2", "changed after the shard finished"}},
		{"truncated shard.json", []string{dirs[0], badInfo, dirs[2]}, []string{"shard 1/3", "shard.json cannot be read"}},
		{"missing unit", []string{dirs[0], missingUnit, dirs[2]}, []string{"shard 1/3", "unit 1 (point 0", "cannot be read"}},
		{"doubled unit", []string{doubled, dirs[1], dirs[2]}, []string{"shard 0/3", "unit 1 (point 0: clients[0].workload.rate=200/s, replication 1)", "belongs to shard 1/3", "counted twice"}},
		{"unfinished shard", []string{dirs[0], dirs[1], unfinished}, []string{"shard 2/3", "has not finished: 2 of its 2 units are done"}},
		{"not a shard", []string{dirs[0], notShard}, []string{notShard, "is not a shard folder"}},
		{"output inside a shard", []string{dirs[0], dirs[1], dirs[2], "--out", filepath.Join(dirs[1], "merged")}, []string{"inside shard 1/3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "merged")
			args := append([]string{"merge"}, tc.args...)
			if !slices.Contains(tc.args, "--out") {
				args = append(args, "--out", out)
			}
			s, stdout, errb := runStatus(args...)
			if s == exitOK {
				t.Fatalf("merge accepted it:\n%s", stdout)
			}
			for _, w := range tc.want {
				if !strings.Contains(errb, w) {
					t.Errorf("the error does not say %q:\n%s", w, errb)
				}
			}
			if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a refused merge wrote %s", out)
			}
		})
	}
}

// TestShardFlagRefuses: a --shard that names no shard is a usage error naming the rule, and
// nothing is written.
func TestShardFlagRefuses(t *testing.T) {
	for _, tc := range []struct{ shard, want string }{
		{"3/3", "index 3 is out of range: the shards of 3 are numbered 0 to 2"},
		{"-1/2", "index -1 is out of range"},
		{"0/0", "n is 0: there must be at least 1 shard"},
		{"1", "want i/n"},
		{"a/b", "want i/n"},
	} {
		for _, cmd := range []string{"sweep", "map"} {
			dir := filepath.Join(t.TempDir(), "out")
			args := shardSweepArgs(dir, "--shard", tc.shard)
			if cmd == "map" {
				args = shardMapArgs(dir, "--shard", tc.shard)
			}
			var errb bytes.Buffer
			if s := run(args, io.Discard, &errb); s != exitUsage || !strings.Contains(errb.String(), tc.want) {
				t.Errorf("%s --shard %s: exit %d, %s; want exit %d saying %q", cmd, tc.shard, s, errb.String(), exitUsage, tc.want)
			}
			if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s --shard %s wrote %s", cmd, tc.shard, dir)
			}
		}
	}
	var errb bytes.Buffer
	if s := run(shardSweepArgs(t.TempDir(), "--shard", "0/2", "--plot"), io.Discard, &errb); s != exitUsage || !strings.Contains(errb.String(), "a shard has no figures") {
		t.Errorf("--plot with --shard: exit %d, %s", s, errb.String())
	}
	// A refinement round needs the whole grid's results: a sharded tuning is its coarse grid.
	errb.Reset()
	dir := filepath.Join(t.TempDir(), "out")
	if s := run(shardTuneArgs(dir, "--shard", "0/2", "--refine", "2"), io.Discard, &errb); s != exitUsage || !strings.Contains(errb.String(), "--refine 2 with --shard") {
		t.Errorf("tune --shard --refine 2: exit %d, %s", s, errb.String())
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("tune --shard --refine 2 wrote %s", dir)
	}
}

// TestMergeRefusesOtherTunings: the shards of two tunings of one scenario with other objectives
// are different work, whose units measure different things.
func TestMergeRefusesOtherTunings(t *testing.T) {
	base := t.TempDir()
	a := filepath.Join(base, "a")
	b := filepath.Join(base, "b")
	runOK(t, shardTuneArgs(a, "--shard", "0/2")...)
	args := shardTuneArgs(b, "--shard", "1/2")
	for i, x := range args {
		if x == "total.goodput" {
			args[i] = "total.attempts"
		}
	}
	runOK(t, args...)
	var errb bytes.Buffer
	out := filepath.Join(base, "merged")
	if s := run([]string{"merge", a, b, "--out", out}, io.Discard, &errb); s == exitOK || !strings.Contains(errb.String(), "tuning (its parameters, objective or constraints)") {
		t.Errorf("merging two tunings' shards: exit %d, %s", s, errb.String())
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused merge wrote %s", out)
	}
}
