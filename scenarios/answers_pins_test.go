package scenarios

import (
	"fmt"
	"math"
	"slices"
	"testing"
)

// Tests that pin rules of a scenario's cost and load context, each failing when its rule is
// broken (internal/mutate/mutants/answers.txt lists the mutants they kill).

// ansParse parses a scenario from its YAML, failing the test on an error.
func ansParse(t *testing.T, name, src string) *Scenario {
	t.Helper()
	sc, err := Parse(name+".yaml", []byte(src))
	if err != nil {
		t.Fatalf("Parse(%s): %v", name, err)
	}
	return sc
}

// TestPacedClosedLoopOffered pins that a paced closed loop's offered load includes the pace: a
// paced thread starts its next operation at max(previous start + pace, previous end + think)
// (package doc, workload; client.Workload.Pace), so each thread offers one operation per
// max(pace, think + the millisecond of service OfferedOperations assumes). Today's load
// (docs/metrics.md §17) and the cost estimate (bench.Estimate, bench.EstimatedEvents) both follow
// from it.
func TestPacedClosedLoopOffered(t *testing.T) {
	const threads = 10 * 4 // count × threads
	for _, tc := range []struct {
		gloss, workload string
		today           float64 // operations/s
	}{
		{"no pace: one per think + 1 ms", "{threads: 4, think: 9ms}", threads / 0.010},
		{"a pace longer than the cycle: one per pace", "{threads: 4, pace: 20ms}", threads / 0.020},
		{"a pace longer than think + 1 ms", "{threads: 4, think: 9ms, pace: 25ms}", threads / 0.025},
		{"a pace shorter than the cycle: the cycle", "{threads: 4, think: 9ms, pace: 4ms}", threads / 0.010},
	} {
		sc := ansParse(t, "paced", "duration: 10s\nclients: [{name: a, count: 10, workload: "+tc.workload+"}]\n")
		if got := sc.LoadContext(0).Today; math.Abs(got-tc.today) > 1e-9*tc.today {
			t.Errorf("%s: LoadContext(0).Today with workload %s = %v, want %v operations/s", tc.gloss, tc.workload, got, tc.today)
		}
		if got, want := sc.OfferedOperations(), tc.today*10; math.Abs(got-want) > 1e-9*want {
			t.Errorf("%s: OfferedOperations() with workload %s = %v, want %v over 10 s", tc.gloss, tc.workload, got, want)
		}
	}
}

// TestDisabledLimiterCeiling pins that an ingress request limiter's rate caps a node's
// configured ceiling only when the limiter is enabled (docs/metrics.md §17, "Configured
// ceiling": "the lesser of its ingress request limiter's rate, when enabled, and its workers ÷
// mean service time"; Scenario.LoadContext). A sweep of a disabled limiter's rate so records no
// per-point ceilings: the ceiling does not vary.
func TestDisabledLimiterCeiling(t *testing.T) {
	const base = "name: lim\ntopology: {nodes: [{name: db, workers: 1, service: const(1ms)%s}]}\nclients: [{name: c, count: 1, workload: {rate: 100/s}}]\n"
	for _, tc := range []struct {
		gloss, limiter string
		ceiling        float64
		source         string
	}{
		{"disabled, rate set below the workers", ", ingressRequestRateLimiterEnabled: false, ingressRequestAdmissionRatePerSec: 250/s",
			1000, "1 workers at 1ms mean service on db"},
		{"rate set, enabled left at its default (off)", ", ingressRequestAdmissionRatePerSec: 250/s",
			1000, "1 workers at 1ms mean service on db"},
		{"enabled: the limiter's rate", ", ingressRequestRateLimiterEnabled: true, ingressRequestAdmissionRatePerSec: 250/s",
			250, "ingress request limiter 250/s on db"},
	} {
		sc := ansParse(t, "lim", fmt.Sprintf(base, tc.limiter))
		ctx := sc.LoadContext(0)
		if ctx.Ceiling != tc.ceiling || ctx.CeilingSource != tc.source {
			t.Errorf("%s: LoadContext(0) ceiling = %v (%s), want %v (%s)", tc.gloss, ctx.Ceiling, ctx.CeilingSource, tc.ceiling, tc.source)
		}
	}

	sc := ansParse(t, "lim", fmt.Sprintf(base, ", ingressRequestAdmissionRatePerSec: 250/s")+
		"sweep:\n  replications: 1\n  parameters:\n    topology.nodes[0].ingressRequestAdmissionRatePerSec: [100/s, 500/s, 5000/s]\n")
	points, err := sc.Points()
	if err != nil {
		t.Fatal(err)
	}
	if ctx := sc.SweepLoadContext(points, 0); ctx.Ceiling != 1000 || ctx.Ceilings != nil {
		t.Errorf("SweepLoadContext over a disabled limiter's rate = ceiling %v, per point %v; want 1000 and none", ctx.Ceiling, ctx.Ceilings)
	}
}

// TestSweepThreeParameters shows that a sweep of three parameters, and so a load sweep with two
// others (sweep.SweepAnswers splits it by the last of them), is reachable although the CLI's
// --vary takes at most two: a scenario's sweep block takes any number, and Vary (--vary) adds
// its parameter after the block's (package doc, sweep).
func TestSweepThreeParameters(t *testing.T) {
	sc := ansParse(t, "three", `name: three
duration: 2s
topology: {nodes: [{name: db}]}
clients: [{name: c, count: 1, workload: {rate: 100/s}}]
sweep:
  replications: 1
  parameters:
    clients[0].driver.retryPolicy: [none, mongodb-2026-03]
    topology.nodes[0].workers: [1, 2]
`)
	if err := sc.Vary("clients[0].workload.rate", "100/s,200/s"); err != nil {
		t.Fatal(err)
	}
	points, err := sc.Points()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"clients[0].driver.retryPolicy", "topology.nodes[0].workers", "clients[0].workload.rate"}
	if len(points) != 8 {
		t.Fatalf("Points() = %d points, want 2 × 2 × 2", len(points))
	}
	for _, p := range points {
		var paths []string
		for _, pr := range p.Params {
			paths = append(paths, pr.Path)
		}
		if !slices.Equal(paths, want) {
			t.Errorf("Points() params %v, want the paths %v", paths, want)
		}
	}
}
