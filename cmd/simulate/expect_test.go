package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/overloadsim/overloadsim/results"
)

// expectScenario is a step from 500/s to 2000/s against a 1000/s limiter, with claims that hold
// (before the step nothing is retried; the limiter holds goodput) and one that fails (the
// 2026-03 loop without adaptive retries retries far more than 1.5 attempts per operation).
const expectScenario = `
name: claims
duration: 20s
warmup: 2s
topology:
  nodes:
    - {name: db, service: exp(5ms), ingressRequestRateLimiterEnabled: true, ingressRequestAdmissionRatePerSec: 1000/s, ingressRequestAdmissionBurstCapacitySecs: 0.1}
clients:
  - {name: app, count: 10, driver: {retryPolicy: mongodb-2026-03}, workload: {rate: {kind: step, before: 500/s, after: 2000/s, at: 10s}}}
expect:
  - {metric: total.amplification, from: 2s, to: 10s, atMost: 1}
  - {metric: total.goodput, from: 12s, to: 20s, within: 0.05, of: 1000}
`

// TestExpectations: run and sweep check the scenario's expect: block, print PASS or FAIL with the
// value, write the verdicts, and exit 3 when one fails, with the results written all the same.
func TestExpectations(t *testing.T) {
	base := t.TempDir()
	holds := filepath.Join(base, "holds.yaml")
	fails := filepath.Join(base, "fails.yaml")
	if err := os.WriteFile(holds, []byte(expectScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	failing := expectScenario + "  - {metric: group.app.amplification, from: 10s, to: 20s, below: 1.5}\n"
	if err := os.WriteFile(fails, []byte(failing), 0o644); err != nil {
		t.Fatal(err)
	}
	out := runOK(t, "run", holds, "--out", filepath.Join(base, "h"))
	for _, want := range []string{"PASS total.amplification over 2s–10s ≤ 1: 1", "PASS total.goodput over 12s–20s within 5 % of 1000: "} {
		if !strings.Contains(out, want) {
			t.Errorf("run does not print %q:\n%s", want, out)
		}
	}

	dir := filepath.Join(base, "f")
	s, stdout, errb := runStatus("run", fails, "--out", dir)
	if s != exitExpectation || !strings.Contains(stdout, "FAIL group.app.amplification over 10s–20s < 1.5: 4.") ||
		!strings.Contains(errb, "1 of 3 expectations failed (the results are written)") {
		t.Errorf("run with a failing claim: exit %d, want %d\n%s\n%s", s, exitExpectation, stdout, errb)
	}
	sum, err := results.ReadSummary(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Verdicts) != 3 || sum.Verdicts[2].Pass || !sum.Verdicts[0].Pass {
		t.Errorf("summary.json verdicts: %+v", sum.Verdicts)
	}
	runOK(t, "report", dir)
	page, _ := os.ReadFile(filepath.Join(dir, "report.html"))
	if !strings.Contains(string(page), "The claim does not hold: 1 of 3 expectations fail.") {
		t.Error("the report does not open with the verdict")
	}

	// Changed by --set, the scenario's claim is not judged: it is about the scenario as written.
	s, stdout, errb = runStatus("run", fails, "--set", "clients[0].count=5", "--out", filepath.Join(base, "changed"))
	if s != exitOK || strings.Contains(stdout, "FAIL") || !strings.Contains(errb, "its expect: block (3 claims about the scenario as written) is not judged") {
		t.Errorf("run with --set: exit %d\n%s\n%s", s, stdout, errb)
	}

	swept := filepath.Join(base, "swept.yaml")
	if err := os.WriteFile(swept, []byte(failing+"sweep: {parameters: {\"clients[0].count\": [5, 10]}, replications: 2}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sweep := filepath.Join(base, "s")
	s, stdout, _ = runStatus("sweep", swept, "--out", sweep)
	if s != exitExpectation || strings.Count(stdout, "FAIL group.app.amplification") != 2 || !strings.Contains(stdout, "at clients[0].count=5: ") {
		t.Errorf("sweep with a failing claim: exit %d\n%s", s, stdout)
	}
	if _, err := os.Stat(filepath.Join(sweep, results.UnitsDir)); !os.IsNotExist(err) {
		t.Errorf("a whole sweep whose claim fails kept its units: %v", err)
	}
	b, _ := os.ReadFile(filepath.Join(sweep, results.SweepFile))
	if strings.Count(string(b), `"expectation": `) != 6 {
		t.Errorf("sweep.json does not hold the 6 verdicts (3 per point)")
	}

	// Sharded, the same claims are judged when the shards are merged, to the same bytes.
	var shards []string
	for i := range 2 {
		dir := filepath.Join(base, "shard", string(rune('0'+i)))
		runOK(t, "sweep", swept, "--shard", string(rune('0'+i))+"/2", "--out", dir)
		shards = append(shards, dir)
	}
	merged := filepath.Join(base, "merged")
	s, stdout2, _ := runStatus(append([]string{"merge", "--out", merged}, shards...)...)
	if s != exitExpectation || stdout2 != stdout {
		t.Errorf("merge of the shards: exit %d, want %d, printing what the sweep printed\n%s", s, exitExpectation, stdout2)
	}
	sameFolders(t, sweep, merged)
}
