package main

import (
	"bytes"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/chart"
	"github.com/overloadsim/overloadsim/results/tune"
)

// tuneRetries is a tuning of the 2026-07 tier's overload retries in policy-comparison: each
// retry buys the tier goodput from the others at the price of amplification, and the bound of
// 1.8 attempts per operation allows one retry. The grid of 0, 2 and 4 retries leaves 1 to the
// refinement round.
var tuneRetries = []string{"tune", "policy-comparison", "--tune", "clients[4].driver.maxAdaptiveRetries=0:4:3",
	"--maximize", "group.v2026-07.goodput", "--subject-to", "group.v2026-07.amplification<=1.8", "--replications", "3"}

// TestTuneEndToEnd: the tuning recommends one retry, found by the refinement round, with its
// evidence; tune.json and candidates.csv are byte-identical for any number of workers; the
// folder's manifest holds them, and --plot adds the Pareto figure.
func TestTuneEndToEnd(t *testing.T) {
	base := t.TempDir()
	for _, w := range []string{"1", "2"} {
		var stdout, stderr bytes.Buffer
		args := append(append([]string{}, tuneRetries...), "--workers", w, "--out", filepath.Join(base, w), "--plot")
		if s := run(args, &stdout, &stderr); s != exitOK {
			t.Fatalf("workers %s: status %d: %s", w, s, stderr.String())
		}
		for _, want := range []string{
			"recommended: clients[4].driver.maxAdaptiveRetries=1",
			"group.v2026-07.amplification ≤ 1.8 excluded 2 of 4 candidates",
			"maximize group.v2026-07.goodput subject to group.v2026-07.amplification ≤ 1.8",
			"4 candidates (1 refinement round) × 3 replications with common random numbers from seed 1",
		} {
			if !strings.Contains(stdout.String(), want) {
				t.Errorf("workers %s: stdout lacks %q:\n%s", w, want, stdout.String())
			}
		}
	}
	for _, f := range []string{results.TuneFile, results.TuneCandidatesFile} {
		a, _ := os.ReadFile(filepath.Join(base, "1", f))
		b, _ := os.ReadFile(filepath.Join(base, "2", f))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s differs between 1 and 2 workers (or is empty)", f)
		}
	}
	dir := filepath.Join(base, "1")
	m, err := results.ReadManifestOf(dir, results.KindTune)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{results.TuneFile, results.TuneCandidatesFile, chart.TunePareto + ".svg", chart.TunePareto + ".png"} {
		if !m.Has(f) {
			t.Errorf("the manifest does not list %s", f)
		}
	}
	tu, err := tune.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	var values []string
	for _, c := range tu.Candidates {
		values = append(values, c.Params[0].Value)
	}
	if strings.Join(values, ",") != "0,2,4,1" || tu.Candidates[3].Round != 1 {
		t.Errorf("candidates %v (the last from round %d), want 0,2,4 on the grid, then 1 from round 1", values, tu.Candidates[3].Round)
	}
	for _, c := range tu.Candidates {
		amp := c.Metric("group.v2026-07.amplification")
		if c.Feasible != (amp.Mean <= 1.8) {
			t.Errorf("%s: feasible %v with amplification %v (bound 1.8)", c.Label(), c.Feasible, amp.Mean)
		}
	}
	if tu.Recommendation == nil || tu.Recommendation.Candidate != 3 || tu.Seed != 1 || tu.Replications != 3 {
		t.Errorf("recommendation %+v, seed %d, replications %d", tu.Recommendation, tu.Seed, tu.Replications)
	}
}

// TestTuneCommonRandomNumbers: replication r of every candidate runs with the same seed. The
// tuned field here (the recovery rule's K) changes only how a trigger is judged, not the run, so
// with common random numbers every candidate measures exactly the same goodput, and the tie
// goes to the smallest value.
func TestTuneCommonRandomNumbers(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	args := []string{"tune", tinyCut, "--tune", "recovery.k=2:4:3", "--maximize", "total.goodput", "--replications", "3",
		"--refine", "0", "--out", dir, "--workers", "2"}
	if s := run(args, &stdout, &stderr); s != exitOK {
		t.Fatalf("status %d: %s", s, stderr.String())
	}
	tu, err := tune.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	first := tu.Candidates[0].Metric("total.goodput")
	if !(first.CI95 > 0) {
		t.Fatalf("goodput %+v: the replications should differ from one another", first)
	}
	for _, c := range tu.Candidates[1:] {
		if g := c.Metric("total.goodput"); g.Mean != first.Mean || g.CI95 != first.CI95 {
			t.Errorf("%s: goodput %v ± %v, want %v ± %v as at %s (the same seeds)", c.Label(), g.Mean, g.CI95, first.Mean, first.CI95, tu.Candidates[0].Label())
		}
	}
	if tu.Recommendation == nil || tu.Recommendation.Candidate != 0 || len(tu.RunnersUp) != 2 {
		t.Errorf("recommendation %+v with %d runners-up; want the smallest K, the others runners-up", tu.Recommendation, len(tu.RunnersUp))
	}
}

// TestTuneInfeasible: when no candidate meets a constraint, the command says which constraint
// excluded everything and the closest any candidate came, exits 1 and writes nothing.
func TestTuneInfeasible(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	args := []string{"tune", "policy-comparison", "--tune", "clients[4].driver.maxAdaptiveRetries=0:2:2",
		"--maximize", "group.v2026-07.goodput", "--subject-to", "group.v2026-07.amplification<0.9", "--replications", "2", "--out", dir}
	if s := run(args, &stdout, &stderr); s != exitFailure {
		t.Errorf("status %d, want %d; stderr: %s", s, exitFailure, stderr.String())
	}
	want := "no candidate met group.v2026-07.amplification < 0.9: the least was 1 at clients[4].driver.maxAdaptiveRetries=0"
	if !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
	}
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("an infeasible tuning left %s behind", dir)
	}
}

// TestTuneBadInput: every flag that cannot be honoured is refused before anything runs, with a
// message naming the flag, the value and the rule, exit status 2, and nothing written.
func TestTuneBadInput(t *testing.T) {
	tune := []string{"--tune", "clients[4].driver.maxAdaptiveRetries=0:4"}
	goal := []string{"--maximize", "group.v2026-07.goodput"}
	with := func(parts ...[]string) []string {
		var out []string
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	tests := []struct {
		name   string
		args   []string
		stderr []string
	}{
		{"no --tune", goal, []string{"--tune: none given"}},
		{"no objective", tune, []string{"--maximize or --minimize: neither given"}},
		{"two objectives", with(tune, goal, []string{"--minimize", "total.amplification"}), []string{"give one objective"}},
		{"an unknown metric", with(tune, []string{"--maximize", "total.goodputt"}),
			[]string{`--maximize "total.goodputt"`, `"goodputt" is not a group metric: one of offered, attempts, amplification, goodput`,
				"the metrics are total.METRIC, group.NAME.METRIC (NAME: none, legacy, v2026-03, v2026-03-adaptive, v2026-07), server.NAME.METRIC (NAME: db)"}},
		{"an unknown group", with(tune, []string{"--maximize", "group.v2026-08.goodput"}),
			[]string{`group "v2026-08" is not one of the scenario's: none, legacy, v2026-03, v2026-03-adaptive, v2026-07`}},
		{"a metric of no kind", with(tune, []string{"--minimize", "goodput"}), []string{"must start total., group.NAME., server.NAME. or fault.NAME."}},
		{"a trigger the scenario lacks", with(tune, goal, []string{"--subject-to", "fault.spike.stuck<=0"}),
			[]string{`--subject-to "fault.spike.stuck<=0"`, "the scenario has no trigger to measure"}},
		{"a path that does not exist", with(goal, []string{"--tune", "clients[4].driver.maxRetries=0:4"}),
			[]string{`--tune "clients[4].driver.maxRetries=0:4"`, "maxRetries: unknown field"}},
		{"an index out of range", with(goal, []string{"--tune", "clients[9].driver.maxAdaptiveRetries=0:4"}),
			[]string{`--tune "clients[9].driver.maxAdaptiveRetries=0:4"`, "index 9 is out of range"}},
		{"a value the field refuses", with(goal, []string{"--tune", "clients[4].driver.maxAdaptiveRetries=-2:4"}),
			[]string{`--tune "clients[4].driver.maxAdaptiveRetries=-2:4"`, "clients[4].driver.maxAdaptiveRetries: -2"}},
		{"LO above HI", with(goal, []string{"--tune", "clients[4].driver.maxAdaptiveRetries=4:0"}),
			[]string{`--tune "clients[4].driver.maxAdaptiveRetries=4:0": LO 4 is not below HI 0: want LO < HI`}},
		{"not numeric", with(goal, []string{"--tune", "clients[4].driver.maxAdaptiveRetries=few:4"}), []string{`LO "few" is not a number`}},
		{"log from zero", with(goal, []string{"--tune", "clients[4].driver.maxAdaptiveRetries=0:4:log"}), []string{"log spacing needs LO > 0, got LO 0"}},
		{"one step", with(goal, []string{"--tune", "clients[4].driver.maxAdaptiveRetries=0:4:1"}), []string{`STEPS "1": want a whole number ≥ 2`}},
		{"a path twice", with(goal, tune, tune), []string{"is already tuned by"}},
		{"tuning the seed", with(goal, []string{"--tune", "seed=1:4"}), []string{"tuning seed would change nothing"}},
		{"a constraint without a comparison", with(tune, goal, []string{"--subject-to", "total.amplification"}), []string{`--subject-to "total.amplification": no comparison`}},
		{"a duration bound on a rate", with(tune, goal, []string{"--subject-to", "total.goodput>=200ms"}), []string{"is a duration, but total.goodput is not a latency"}},
		{"a window past the run", with(tune, goal, []string{"--window", "10s:60s"}), []string{`--window "10s:60s": the window ends after the run (duration 30s)`}},
		{"a reversed window", with(tune, goal, []string{"--window", "20s:10s"}), []string{"want 0s ≤ FROM < TO"}},
		{"a constraint's window past the run", with(tune, goal, []string{"--subject-to", "total.amplification@0s:40s<=2"}),
			[]string{"the window 0s–40s ends after the run (duration 30s)"}},
		{"no replications", with(tune, goal, []string{"--replications", "0"}), []string{"--replications 0: must be ≥ 1"}},
		{"negative refinement", with(tune, goal, []string{"--refine", "-1"}), []string{"--refine -1: must be ≥ 0"}},
		{"a grid too large", with(goal, []string{"--tune", "topology.nodes[0].ingressRequestAdmissionRatePerSec=100:2000:40",
			"--tune", "topology.nodes[0].workers=1:16:16"}, []string{"--max-candidates", "100"}),
			[]string{"a coarse grid of 640 candidates (40 × 16 levels) × 10 replications = 6400 runs, about", "more than --max-candidates 100"}},
		{"too many runs", with(tune, goal, []string{"--replications", "5000"}), []string{"more than --max-runs 20000"}},
		{"a bad format", with(tune, goal, []string{"--format", "yaml"}), []string{`--format "yaml": want text or json`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			var stdout, stderr bytes.Buffer
			args := append(append([]string{"tune", "policy-comparison"}, tc.args...), "--out", dir)
			if s := run(args, &stdout, &stderr); s != exitUsage {
				t.Errorf("status %d, want %d; stderr: %s", s, exitUsage, stderr.String())
			}
			for _, want := range tc.stderr {
				if !strings.Contains(stderr.String(), want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
				}
			}
			if _, err := os.Stat(dir); err == nil {
				t.Errorf("a refused tuning left %s behind", dir)
			}
		})
	}
}

// TestTuneJSON: --format json prints tune.json as written.
func TestTuneJSON(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	args := []string{"tune", tinyCut, "--tune", "clients[0].appRetry.attempts=1:3:2", "--maximize", "total.goodput",
		"--replications", "2", "--refine", "0", "--format", "json", "--out", dir}
	if s := run(args, &stdout, &stderr); s != exitOK {
		t.Fatalf("status %d: %s", s, stderr.String())
	}
	b, _ := os.ReadFile(filepath.Join(dir, results.TuneFile))
	if !bytes.Equal(stdout.Bytes(), b) {
		t.Errorf("stdout is not tune.json:\n%s", stdout.String())
	}
	tu, err := tune.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !tu.Params[0].Integer || len(tu.Candidates) != 2 || math.IsNaN(tu.Candidates[0].Metric("total.goodput").Mean) {
		t.Errorf("params %+v, %d candidates", tu.Params, len(tu.Candidates))
	}
}

// TestTuneInterrupted: a tuning stopped by SIGINT exits with exitInterrupted and leaves no
// result that could pass for a finished one: either nothing, or the candidates that finished,
// marked partial in the manifest and in tune.json.
func TestTuneInterrupted(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "t")
	cmd, stderr := child(t, "tune", tinyCut, "--tune", "faults[0].for=100ms:3s", "--maximize", "total.goodput",
		"--replications", "60", "--workers", "1", "--out", dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	_ = cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted {
		t.Fatalf("interrupted tune: %v, want exit %d\n%s", err, exitInterrupted, stderr)
	}
	m, err := results.ReadManifest(dir)
	if err != nil {
		return // nothing finished, nothing written
	}
	tu, terr := tune.Read(dir)
	if m.Partial == "" || terr != nil || tu.Partial == "" || len(tu.Candidates) == 0 {
		t.Errorf("an interrupted tuning left manifest %+v, tune.json partial %q with %d candidates (%v)", m, tu.Partial, len(tu.Candidates), terr)
	}
}
