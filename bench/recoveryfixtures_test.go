package bench

import (
	"slices"
	"testing"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/phasemap"
	"github.com/overloadsim/overloadsim/scenarios"
)

// The recovery fixtures run the verdict's rules of docs/metrics.md §13 end to end on simulated
// runs, where results' own tests give them synthetic goodput series: scenarios/testdata's
// relapse.yaml (§13.9) and driver-backlog.yaml (§13.6 item 3).

// runFixture runs scenarios/testdata/name at its own seed, with the fields set by set
// (path=value, as --set) applied first.
func runFixture(t *testing.T, name string, set ...string) *results.Run {
	t.Helper()
	sc, err := scenarios.Parse(name, []byte(readFixture(name)))
	if err != nil {
		t.Fatalf("scenarios.Parse(%s): %v", name, err)
	}
	if err := sc.SetAll(set...); err != nil {
		t.Fatalf("%s: --set %v: %v", name, set, err)
	}
	run, err := Run(sc, sc.Seed, 0)
	if err != nil {
		t.Fatalf("%s: Run: %v", name, err)
	}
	return run
}

// metricValue returns the summary's metric name (Summary.Metrics).
func metricValue(t *testing.T, s *results.Summary, name string) float64 {
	t.Helper()
	for _, m := range s.Metrics() {
		if m.Name == name {
			return m.Value
		}
	}
	t.Fatalf("no metric %s in the summary", name)
	return 0
}

// TestRelapseFixture: relapse.yaml at its seed, 14, recovers from its surge at once, holds in
// the band for 11 s, and then falls into a retry storm that lasts to the end of the run (goodput
// 0, every operation tried three times). By docs/metrics.md §13.9 that is relapsed, not
// recovered: recoveredSeconds 0, relapseSeconds 11 (the start of the last run below the band),
// and the stuck state of §13.8, sustained by retries. A relapse counts as stuck wherever stuck
// runs are counted: the run's fault.surge.stuck metric is 1 and a map cell of such runs has
// P(stuck) 1. Under the old rule, a hold of five intervals and nothing after it, the run was
// "recovered in 0 s" (the mutant recovery-relapse-holds-to-the-end).
func TestRelapseFixture(t *testing.T) {
	run := runFixture(t, "relapse.yaml")
	rec := recovery(t, &run.Summary, "surge")
	if rec.Outcome != results.Relapsed {
		t.Fatalf("outcome %s (%s), want relapsed", rec.Outcome, rec.Describe())
	}
	if !rec.Outcome.Stuck() {
		t.Errorf("RecoveryOutcome(%s).Stuck() = false, want true", rec.Outcome)
	}
	if rec.RecoveredSeconds != 0 {
		t.Errorf("recoveredSeconds = %g, want 0 (goodput in the band from the surge's end)", rec.RecoveredSeconds)
	}
	// The hold needs 5 intervals, and the stuck window 10 before the run's end at 24 s after
	// the surge: the relapse starts in between. It is at 11 s in this run.
	if rec.RelapseSeconds < 5 || rec.RelapseSeconds > 14 || rec.RelapseSeconds != 11 {
		t.Errorf("relapseSeconds = %g, want 11 (within [5, 14])", rec.RelapseSeconds)
	}
	if !(rec.Stuck.GoodputShare < 0.05) {
		t.Errorf("stuck at %g of the pre-trigger goodput, want < 0.05", rec.Stuck.GoodputShare)
	}
	if !slices.Contains(rec.Stuck.SustainedBy, "retries") || !(rec.Stuck.Amplification > 2.5) {
		t.Errorf("sustained by %v at amplification %g, want retries at about 3", rec.Stuck.SustainedBy, rec.Stuck.Amplification)
	}
	if !(rec.Seconds != rec.Seconds) { // NaN: not a recovery
		t.Errorf("seconds = %g, want none (NaN): a relapse is not a recovery", rec.Seconds)
	}
	for name, want := range map[string]float64{"fault.surge.stuck": 1, "fault.surge.relapsed": 1, "fault.surge.recovered": 0} {
		if got := metricValue(t, &run.Summary, name); got != want {
			t.Errorf("%s = %g, want %g", name, got, want)
		}
	}
	cell := phasemap.NewCell(nil, []results.RecoveryOutcome{rec.Outcome}, []float64{rec.Seconds})
	if cell.Stuck != 1 || cell.PStuck != 1 {
		t.Errorf("a map cell of this run: %d stuck, P(stuck) %g; want 1 and 1", cell.Stuck, cell.PStuck)
	}
}

// TestDriverBacklogFixture: driver-backlog.yaml holds the backlog of a 10 s CPU cut in the
// drivers' connection-pool wait queues (docs/metrics.md §7 driver_queue): the server's
// worker queue never holds more than the pools' twenty connections, while thousands of
// operations wait in the drivers and drain after the cut. Judged at the fixture's 40 s, 20 s
// after the cut, the backlog is still draining and goodput runs above the band (the spare
// capacity, all of it useful work), so the run is undecided with an estimate of the time
// needed (§13.7), not stuck and not yet recovered (the band is two-sided, §13.3). The same
// seed run to 80 s recovers, its hold starting within the short run's end plus that estimate
// and a hold.
func TestDriverBacklogFixture(t *testing.T) {
	short := runFixture(t, "driver-backlog.yaml")
	rec := recovery(t, &short.Summary, "cpu-cut")
	if rec.Outcome != results.Undecided || !(rec.MoreSeconds > 0) {
		t.Fatalf("40 s: %s, want undecided with an estimate of the time needed", rec.Describe())
	}
	// Where the backlog waits: the drivers, not the server.
	s := short.Series
	var maxQueue float64
	for _, v := range s.Servers {
		if v.Start >= rec.End {
			maxQueue = max(maxQueue, v.QueueArea/v.End.Sub(v.Start).Seconds())
		}
	}
	var driver []int // driver_queue at each whole interval's end after the cut
	for _, g := range s.Groups {
		if g.Start >= rec.End && g.End.Sub(g.Start) == s.Interval {
			driver = append(driver, g.DriverQueue)
		}
	}
	if maxQueue > 20 {
		t.Errorf("the server's worker queue averaged up to %.1f after the cut, want at most the pools' 20 connections", maxQueue)
	}
	if len(driver) < 10 || driver[0] < 5000 || driver[len(driver)-1] < 1000 || !(driver[len(driver)-1] < driver[0]-2000) {
		t.Errorf("driver_queue after the cut %v, want thousands of operations draining by more than 2000", driver)
	}

	long := runFixture(t, "driver-backlog.yaml", "duration=80s")
	lrec := recovery(t, &long.Summary, "cpu-cut")
	if lrec.Outcome != results.Recovered {
		t.Fatalf("80 s: %s, want recovered", lrec.Describe())
	}
	// The short run ends 20 s after the cut; the long run's hold starts after that, and no later
	// than the estimate and a hold (5 s) beyond it.
	if lrec.Seconds < 20 || lrec.Seconds > 20+rec.MoreSeconds+5 {
		t.Errorf("80 s: recovered %g s after the cut, want within [20, %g] (the short run's end, plus its estimate %g s and a hold)",
			lrec.Seconds, 20+rec.MoreSeconds+5, rec.MoreSeconds)
	}
}
