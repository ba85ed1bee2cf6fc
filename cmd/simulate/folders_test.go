package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/experiment"
	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/sweep"
)

// TestMain lets a test run the command in a child process (runChild): the kill and interrupt
// tests need a process to signal.
func TestMain(m *testing.M) {
	if args := os.Getenv("SIMULATE_CHILD_ARGS"); args != "" {
		var argv []string
		if err := json.Unmarshal([]byte(args), &argv); err != nil {
			panic(err)
		}
		os.Exit(run(argv, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// child returns a command that runs simulate args in a child process.
func child(t *testing.T, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	b, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "SIMULATE_CHILD_ARGS="+string(b))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	return cmd, &stderr
}

func runStatus(args ...string) (status int, stdout, stderr string) {
	var out, errb bytes.Buffer
	s := run(args, &out, &errb)
	return s, out.String(), errb.String()
}

// TestReusedFolder is the sequence that used to give a "healthy" report with another run's
// figures: a run with figures, another scenario's run into the same folder, then report. The
// second run replaces the first whole, and the report draws its own figures.
func TestReusedFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "st")
	runOK(t, "run", "sharded-layered-retries", "--set", "warmup=1s", "--set", "duration=4s", "--out", dir, "--plot")
	runOK(t, "run", "healthy", "--set", "duration=4s", "--set", "warmup=1s", "--out", dir)
	for _, stale := range []string{"shards.csv", "timeseries.svg", "servers.png"} {
		if _, err := os.Stat(filepath.Join(dir, stale)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s of the first run survived the second: %v", stale, err)
		}
	}
	runOK(t, "report", dir)
	m, err := results.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.Scenario != "healthy" || !m.Has("timeseries.svg") || !m.Has("report.html") {
		t.Errorf("manifest after report: scenario %q, files %v", m.Scenario, m.Files)
	}
	page, _ := os.ReadFile(filepath.Join(dir, "report.html"))
	if strings.Contains(string(page), "sharded-layered-retries") || strings.Contains(string(page), "mongos") {
		t.Error("the healthy report mentions the first run")
	}

	// A sweep, then a run into the same folder: check reads the run, not the sweep's leftovers.
	sw := filepath.Join(t.TempDir(), "x")
	runOK(t, "sweep", "healthy", "--set", "duration=3s", "--set", "warmup=1s", "--vary", "clients[0].workload.rate=100/s,200/s", "--replications", "1", "--out", sw)
	runOK(t, "run", "healthy", "--set", "duration=3s", "--set", "warmup=1s", "--out", sw)
	for _, stale := range []string{"sweep.json", "points.csv", results.UnitsDir} {
		if _, err := os.Stat(filepath.Join(sw, stale)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the sweep's %s survived the run into its folder: %v", stale, err)
		}
	}
	if _, _, pts, err := readResult(sw); err != nil || len(pts) != 1 || len(pts[0].Params) != 0 {
		t.Errorf("readResult after the run = %d points, %v; want the run's single point", len(pts), err)
	}
}

// TestCheckRefuses: the gate refuses what would compare nothing or the wrong thing, and says why.
func TestCheckRefuses(t *testing.T) {
	tmp := t.TempDir()
	good := filepath.Join(tmp, "good")
	runOK(t, "run", "healthy", "--set", "duration=4s", "--set", "warmup=1s", "--out", good)
	other := filepath.Join(tmp, "other")
	runOK(t, "run", "spike", "--set", "duration=4s", "--set", "warmup=1s", "--out", other)
	base := filepath.Join(tmp, "new", "parents", "healthy.json") // parents created
	runOK(t, "check", "--write-baseline", base, good)
	write := func(name, text string) string {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	noMetric := write("nometric.json", `{"header":{"tool":"overloadsim","scenario":"healthy"},"points":[{"params":[],"replications":1,"metrics":[{"name":"total.offered","mean":1,"ci95":null,"n":1}]}]}`)
	partial := write("partial.json", `{"header":{"tool":"overloadsim","scenario":"healthy"},"partial":"interrupted","points":[{"params":[],"replications":1,"metrics":[{"name":"total.goodput","mean":1,"ci95":null,"n":1}]}]}`)
	for _, c := range []struct {
		gloss  string
		args   []string
		status int
		want   string
	}{
		{"empty baseline", []string{"--baseline", write("empty.json", "{}"), good}, exitFailure, "not a baseline"},
		{"no points", []string{"--baseline", write("nopoints.json", `{"header":{"tool":"overloadsim","scenario":"healthy"},"points":[]}`), good}, exitFailure, "no points"},
		{"summary.json as baseline", []string{"--baseline", filepath.Join(good, "summary.json"), good}, exitFailure, "not a baseline"},
		{"no checked metric", []string{"--baseline", noMetric, good}, exitFailure, "point the run has no goodput, amplification, p99, failure_share, stuck or recovery_time metric with a value: it would compare nothing"},
		{"partial baseline", []string{"--baseline", partial, good}, exitFailure, "partial sweep is no baseline"},
		{"another scenario", []string{"--baseline", base, other}, exitFailure, `baseline is of scenario "healthy", the result of "spike"`},
		{"NaN tolerance", []string{"--baseline", base, "--tolerance", "goodput=NaN", good}, exitUsage, "finite number"},
		{"Inf tolerance", []string{"--baseline", base, "--tolerance", "p99=+Inf", good}, exitUsage, "finite number"},
		{"not a result", []string{"--baseline", base, tmp}, exitFailure, "no finished result"},
	} {
		s, out, errb := runStatus(append([]string{"check"}, c.args...)...)
		if s != c.status || !strings.Contains(errb, c.want) || strings.Contains(out, "ok:") {
			t.Errorf("%s: exit %d (want %d), stdout %q, stderr %q; want it to say %q", c.gloss, s, c.status, out, errb, c.want)
		}
	}
	// The same scenario name with another configuration is compared, with a note saying so.
	changed := filepath.Join(tmp, "changed")
	runOK(t, "run", "healthy", "--set", "duration=4s", "--set", "warmup=1s", "--set", "seed=2", "--out", changed)
	if out := runOK(t, "check", "--baseline", base, changed, "--tolerance", "goodput=1,amplification=1,p99=10"); !strings.Contains(out, "note: the result's configuration differs") {
		t.Errorf("check of a changed configuration lacks the note:\n%s", out)
	}
}

// sweepArgs is a small sweep of 3 points × 2 replications.
func sweepArgs(dir string) []string {
	return []string{"sweep", "healthy", "--set", "duration=3s", "--set", "warmup=1s",
		"--vary", "clients[0].workload.rate=200/s,400/s,600/s", "--replications", "2", "--workers", "1", "--out", dir}
}

// waitForUnits waits until dir's units folder holds at least n finished units.
func waitForUnits(t *testing.T, dir string, n int) {
	t.Helper()
	for range 3000 {
		entries, _ := os.ReadDir(filepath.Join(dir, results.UnitsDir))
		got := 0
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".gob") {
				got++
			}
		}
		if got >= n {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("no %d units in %s", n, dir)
}

// signalAfterUnits runs simulate args in a child process, sends it sig once dir's units folder
// holds n finished units, and returns its exit status (-1 when killed) and what it said.
func signalAfterUnits(t *testing.T, dir string, n int, sig syscall.Signal, args ...string) (int, string) {
	t.Helper()
	cmd, stderr := child(t, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitForUnits(t, dir, n)
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), stderr.String()
}

// TestSweepInterruptResume: SIGINT (or SIGTERM) stops a sweep after the runs in progress, with
// the finished points marked partial everywhere; the same command then resumes, runs only what
// is missing and writes the same bytes as a sweep that never stopped.
func TestSweepInterruptResume(t *testing.T) {
	whole := filepath.Join(t.TempDir(), "whole")
	runOK(t, sweepArgs(whole)...)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "cut")
			status, stderr := signalAfterUnits(t, dir, 2, sig, sweepArgs(dir)...)
			if status != exitInterrupted {
				t.Fatalf("interrupted sweep: exit %d, want %d\n%s", status, exitInterrupted, stderr)
			}
			if !strings.Contains(stderr, "waiting for") || !strings.Contains(stderr, "partial") {
				t.Errorf("stderr does not say what it waits for and that the sweep is partial:\n%s", stderr)
			}
			m, err := results.ReadManifest(dir)
			if err != nil || m.Partial == "" {
				t.Fatalf("manifest of the interrupted sweep: %+v, %v; want it marked partial", m, err)
			}
			pts, _ := os.ReadFile(filepath.Join(dir, results.PointsFile))
			sw, _ := os.ReadFile(filepath.Join(dir, results.SweepFile))
			if !strings.HasPrefix(string(pts), "# partial: interrupted") || !strings.Contains(string(sw), `"partial": "interrupted`) {
				t.Errorf("points.csv or sweep.json not marked partial:\n%s\n%s", pts, sw)
			}
			if s, _, errb := runStatus("check", "--write-baseline", filepath.Join(dir, "b.json"), dir); s == exitOK || !strings.Contains(errb, "partial") {
				t.Errorf("a partial sweep became a baseline: exit %d %s", s, errb)
			}
			runOK(t, "report", dir)
			if page, _ := os.ReadFile(filepath.Join(dir, "report.html")); !strings.Contains(string(page), "Partial result") {
				t.Error("the report of a partial sweep does not say so")
			}

			var out, errb bytes.Buffer
			if s := run(sweepArgs(dir), &out, &errb); s != exitOK {
				t.Fatalf("resumed sweep: exit %d\n%s", s, errb.String())
			}
			if !strings.Contains(errb.String(), "resuming: ") {
				t.Errorf("the resumed sweep does not say it resumes:\n%s", errb.String())
			}
			for _, f := range []string{results.PointsFile, results.SweepFile, results.ManifestFile} {
				a, _ := os.ReadFile(filepath.Join(whole, f))
				b, _ := os.ReadFile(filepath.Join(dir, f))
				if f == results.ManifestFile {
					// The resumed folder's manifest also lists the report's figures, drawn above
					// from the partial sweep and removed by the new result.
					var ma, mb results.Manifest
					_ = json.Unmarshal(a, &ma)
					_ = json.Unmarshal(b, &mb)
					a, _ = json.Marshal(ma.Files)
					b, _ = json.Marshal(mb.Files)
				}
				if !bytes.Equal(a, b) {
					t.Errorf("%s of the resumed sweep differs from the whole sweep's", f)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, results.UnitsDir)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the finished sweep kept its units: %v", err)
			}
		})
	}
}

// TestSweepResumeSkipsKept: kept units are used, not run again, and units of another sweep
// (another seed) are discarded, never mixed in.
func TestSweepResumeSkipsKept(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s")
	sc, err := loadScenario("healthy", []string{"duration=3s", "warmup=1s"})
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Vary("clients[0].workload.rate", "200/s,400/s,600/s"); err != nil {
		t.Fatal(err)
	}
	if err := sc.Set("sweep.replications", "2"); err != nil {
		t.Fatal(err)
	}
	plant := func(seed uint64) {
		u, _, err := experiment.OpenUnits(dir, experiment.UnitsKey(experiment.Header(sc, seed, label()), 2))
		if err != nil {
			t.Fatal(err)
		}
		var fake results.Summary
		fake.Total.Goodput, fake.Total.Issued, fake.Total.Succeeded = 12345, 1, 1
		if err := u.Put(0, fake); err != nil {
			t.Fatal(err)
		}
	}
	firstGoodput := func() float64 {
		_, pts, err := sweep.ReadSweep(dir)
		if err != nil {
			t.Fatal(err)
		}
		m, _ := pts[0].Metric("total.goodput")
		return m.Mean
	}
	plant(sc.Seed)
	runOK(t, sweepArgs(dir)...)
	if g := firstGoodput(); g < 5000 { // (12345 + about 200) / 2
		t.Errorf("first point's goodput %g: the kept unit was not used", g)
	}
	plant(sc.Seed + 1)
	runOK(t, sweepArgs(dir)...)
	if g := firstGoodput(); g > 1000 {
		t.Errorf("first point's goodput %g: a unit of another sweep (another seed) was used", g)
	}
}

// TestSecondSignalStopsAtOnce: a second SIGINT does not wait for the runs in progress; the
// folder is then unfinished (no manifest: every reader refuses it) and its units are kept.
func TestSecondSignalStopsAtOnce(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cut")
	args := sweepArgs(dir)
	args[slices.Index(args, "duration=3s")] = "duration=200s"
	args[slices.Index(args, "clients[0].workload.rate=200/s,400/s,600/s")] = "clients[0].workload.rate=1000/s,1100/s"
	cmd, stderr := child(t, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitForUnits(t, dir, 1)
	_ = cmd.Process.Signal(syscall.SIGINT)
	time.Sleep(20 * time.Millisecond)
	_ = cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted || !strings.Contains(stderr.String(), "stopped at once") {
		t.Fatalf("twice-interrupted sweep: %v\n%s", err, stderr)
	}
	if _, err := results.ReadManifest(dir); !errors.Is(err, results.ErrNoResult) {
		t.Errorf("ReadManifest after a hard stop = %v, want ErrNoResult", err)
	}
	if s, _, errb := runStatus("report", dir); s == exitOK || !strings.Contains(errb, "no finished result") {
		t.Errorf("report of an unfinished folder: exit %d %s", s, errb)
	}
}

// TestKillDuringRewrite kills `simulate run` at random moments while it replaces the result a
// folder holds. Afterwards the folder is the old result whole, the new one whole, or unfinished
// (no manifest, which every reader refuses): never a mix. With a manifest, every file it lists
// is intact and no result file lies outside it.
func TestKillDuringRewrite(t *testing.T) {
	if testing.Short() {
		t.Skip("kills child processes")
	}
	dir, old := filepath.Join(t.TempDir(), "d"), filepath.Join(t.TempDir(), "old")
	runOK(t, "run", "sharded-layered-retries", "--set", "warmup=1s", "--set", "duration=4s", "--out", old, "--plot")
	runOK(t, "report", old)
	// Short intervals make the files large, so that many kills land while they are written.
	newArgs := []string{"run", "spike", "--set", "duration=12s", "--set", "interval=5ms", "--out", dir}
	copyDir(t, old, dir)
	// Time one whole replacement, then kill at random moments over it, most near the end,
	// where the files are written.
	cmd, stderr := child(t, newArgs...)
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	whole := time.Since(start)
	rng := rand.New(rand.NewPCG(1, 2))
	seen := map[string]int{}
	for i := range 16 {
		copyDir(t, old, dir)
		cmd, _ := child(t, newArgs...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		f := rng.Float64()
		if i%4 != 0 {
			f = 0.3 + f
		}
		time.Sleep(time.Duration(f * float64(whole)))
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		m, err := results.ReadManifest(dir)
		switch {
		case errors.Is(err, results.ErrNoResult):
			seen["unfinished"]++
			if s, _, _ := runStatus("check", "--write-baseline", filepath.Join(t.TempDir(), "b.json"), dir); s == exitOK {
				t.Errorf("kill %d: check accepted an unfinished folder", i)
			}
			continue
		case err != nil:
			t.Fatalf("kill %d: %v", i, err)
		}
		seen[m.Scenario]++
		for _, name := range []string{"run.json", "timeseries.csv", "summary.json", "shards.csv", "timeseries.svg", "servers.png", "report.html"} {
			if _, err := os.Stat(filepath.Join(dir, name)); err == nil && !m.Has(name) {
				t.Errorf("kill %d: %s lies in a folder of %s but is not in its manifest", i, name, m.Scenario)
			}
		}
		hdr, err := results.ReadHeader(dir)
		if err != nil || hdr.Scenario != m.Scenario {
			t.Errorf("kill %d: manifest of %s over run.json of %s (%v)", i, m.Scenario, hdr.Scenario, err)
		}
	}
	t.Logf("one replacement took %s; after each kill the folder held: %v", whole, seen)
}

// copyDir replaces dst with a copy of the flat folder src.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.RemoveAll(dst); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
}

// TestRareInterrupted: a command that stops on SIGINT exits with exitInterrupted whatever error
// its work returns when cancelled, and writes no result that could pass for a finished one.
func TestRareInterrupted(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r")
	cmd, stderr := child(t, "rare", tinyCut, "--set", "faults[0].for=400ms", "--score", "backlog", "--levels", "5,40",
		"--n", "2000", "--repetitions", "20", "--workers", "1", "--out", dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	_ = cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted {
		t.Fatalf("interrupted rare: %v, want exit %d\n%s", err, exitInterrupted, stderr)
	}
	if m, err := results.ReadManifest(dir); err == nil && m.Partial == "" {
		t.Errorf("an interrupted estimate left a whole-looking result: %+v", m)
	}
}

// TestForeignFigureRedrawn: another run's figure put in a folder under the right name, and even
// listed in its manifest, carries that run's result mark; report draws the folder's own figures
// again and the report, and every figure, carries this folder's result digest.
func TestForeignFigureRedrawn(t *testing.T) {
	base := t.TempDir()
	spike, healthy := filepath.Join(base, "spike"), filepath.Join(base, "healthy")
	runOK(t, "run", "spike", "--set", "duration=4s", "--set", "warmup=1s", "--out", spike, "--plot")
	runOK(t, "run", "healthy", "--set", "duration=4s", "--set", "warmup=1s", "--out", healthy)
	for _, f := range []string{"timeseries.svg", "timeseries.png"} {
		b, err := os.ReadFile(filepath.Join(spike, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(healthy, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := results.AddFiles(healthy, "timeseries.svg", "timeseries.png"); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if s := run([]string{"report", healthy}, &out, &errb); s != exitOK {
		t.Fatalf("report: exit %d %s", s, errb.String())
	}
	if !strings.Contains(errb.String(), "drawing again timeseries.svg, timeseries.png, not drawn from this result") {
		t.Errorf("report did not say it draws the foreign figures again:\n%s", errb.String())
	}
	m, err := results.ReadManifest(healthy)
	if err != nil {
		t.Fatal(err)
	}
	want := m.ResultDigest()
	for _, f := range []string{"timeseries.svg", "timeseries.png", "servers.svg", "report.html"} {
		b, err := os.ReadFile(filepath.Join(healthy, f))
		if err != nil {
			t.Fatal(err)
		}
		if got := results.MarkedResult(b); got != want {
			t.Errorf("%s carries result %q, want healthy's %s", f, got, want)
		}
	}
	if stale, err := results.StaleFigures(healthy, &m); err != nil || len(stale) > 0 {
		t.Errorf("stale figures after the report: %v %v", stale, err)
	}
}
