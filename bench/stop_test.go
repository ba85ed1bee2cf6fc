package bench

import (
	"bytes"
	"errors"
	"github.com/overloadsim/overloadsim/scenarios"
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/results"
)

// TestRunStops: a run whose RunOptions.Stop says stop ends where it stands, with the run so far
// marked partial and ErrStopped; a run asked between slices that never stops gives, byte for
// byte, the run made in one go (the slices handle the same events in the same order).
func TestRunStops(t *testing.T) {
	sc, err := scenarios.Lookup("spike")
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Set("duration", "12s"); err != nil {
		t.Fatal(err)
	}
	whole, err := Run(sc, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	asks := 0
	sliced, err := RunWith(sc, 1, 0, RunOptions{Stop: func() bool { asks++; return false }})
	if err != nil {
		t.Fatal(err)
	}
	if asks < 10 {
		t.Errorf("Stop asked %d times in 12 s of spike, want it asked every slice", asks)
	}
	var a, b bytes.Buffer
	if err := results.WriteTimeseries(&a, whole.Series); err != nil {
		t.Fatal(err)
	}
	if err := results.WriteTimeseries(&b, sliced.Series); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() || sliced.Partial != "" {
		t.Errorf("a run asked between slices differs from the run in one go (partial %q)", sliced.Partial)
	}

	asks = 0
	stopped, err := RunWith(sc, 1, 0, RunOptions{Stop: func() bool { asks++; return asks > 8 }})
	if !errors.Is(err, ErrStopped) || stopped == nil {
		t.Fatalf("stopped run: %v, %v; want the run so far and ErrStopped", stopped, err)
	}
	if !strings.HasPrefix(stopped.Partial, "stopped at ") || !strings.HasSuffix(stopped.Partial, " of 12s") {
		t.Errorf("Partial = %q, want \"stopped at T of 12s\"", stopped.Partial)
	}
	if n := len(stopped.Series.Groups); n == 0 || n >= len(whole.Series.Groups) {
		t.Errorf("the stopped run has %d intervals, want some, fewer than the whole run's %d", n, len(whole.Series.Groups))
	}
}

// TestCostLoadFaults: a load fault multiplies its group's offered load for its duration, and the
// estimate counts it: a ×1000 surge for 10 s of a 45 s spike costs about 1000 × 10 s of the
// base rate more.
func TestCostLoadFaults(t *testing.T) {
	sc, err := scenarios.Lookup("spike")
	if err != nil {
		t.Fatal(err)
	}
	before := Estimate(sc).Events
	if err := sc.Set("faults", "[{kind: load, at: 35s, for: 10s, factor: 1000}]"); err != nil {
		t.Fatal(err)
	}
	after := Estimate(sc).Events
	// Both groups run at 250/s from 30 s: 2 × 250/s × 10 s × 999 more operations.
	want := before + 2*250*10*999*EventsPerOperation
	if after < 0.99*want || after > 1.01*want {
		t.Errorf("Events with a ×1000 load fault = %.3g, want %.3g (%.3g without it)", after, want, before)
	}
	if got := sc.OfferedOperations(); got > 1.01*before/EventsPerOperation {
		t.Errorf("OfferedOperations = %.3g counts the load fault; it is the configured load", got)
	}
}

// TestCostStep: a rare-event trajectory is recorded at its Step, a row and a sampling event per
// checkpoint: --step 1ms over 45 s is 45 000 intervals.
func TestCostStep(t *testing.T) {
	sc, err := scenarios.Lookup("spike")
	if err != nil {
		t.Fatal(err)
	}
	m := &SplitModel{Scenario: sc, Step: time.Millisecond}
	c, plain := m.Cost(), Estimate(sc)
	if c.Intervals != 45000 || plain.Intervals != 45 {
		t.Errorf("Intervals at --step 1ms = %d, at the interval %d; want 45000 and 45", c.Intervals, plain.Intervals)
	}
	if c.Bytes < 1000*plain.Bytes/2 || c.Events < plain.Events+44955 {
		t.Errorf("Cost at --step 1ms = %s, want about a thousand times the rows of %s", c, plain)
	}
}
