package phasemap

import (
	"bytes"
	"math"
	"testing"

	"github.com/overloadsim/overloadsim/results"
)

// TestWilson: the 95 % Wilson score interval against values computed by hand from
// (p + z²/2n ± z·√(p(1−p)/n + z²/4n²)) / (1 + z²/n), z = 1.95996.
func TestWilson(t *testing.T) {
	for _, tc := range []struct {
		k, n   int
		lo, hi float64
	}{
		{0, 3, 0, 0.561497},
		{3, 3, 0.438503, 1},
		{5, 10, 0.236593, 0.763407},
		{1, 20, 0.008881, 0.236131},
	} {
		lo, hi := Wilson(tc.k, tc.n)
		if math.Abs(lo-tc.lo) > 1e-6 || math.Abs(hi-tc.hi) > 1e-6 {
			t.Errorf("Wilson(%d, %d) = [%.6f, %.6f], want [%.6f, %.6f]", tc.k, tc.n, lo, hi, tc.lo, tc.hi)
		}
	}
	if lo, hi := Wilson(0, 0); !math.IsNaN(lo) || !math.IsNaN(hi) {
		t.Errorf("Wilson(0, 0) = [%v, %v], want NaN", lo, hi)
	}
}

// TestNewCell: outcomes are counted by kind; P(stuck) is over the replications that decided
// (stuck or recovered), as the tipping search tests it; the median recovery time is over the
// recovered ones only.
func TestNewCell(t *testing.T) {
	c := NewCell([]results.Param{{Path: "faults[0].for", Value: "5s"}},
		[]results.RecoveryOutcome{results.Recovered, results.Stuck, results.Recovered, results.Undecided, results.Recovered, results.NoBaseline},
		[]float64{3, math.NaN(), 1, math.NaN(), 8, math.NaN()})
	if c.Replications != 6 || c.Recovered != 3 || c.Stuck != 1 || c.Undecided != 1 || c.NoBaseline != 1 {
		t.Errorf("counts %+v, want 6 replications: 3 recovered, 1 stuck, 1 undecided, 1 without baseline", c)
	}
	if c.PStuck != 1.0/4 || c.RecoveryMedian != 3 {
		t.Errorf("P(stuck) %v, median %v; want 1/4 (1 stuck of 4 decided) and 3 (the median of 1, 3, 8)", c.PStuck, c.RecoveryMedian)
	}
	if lo, hi := Wilson(1, 4); c.PStuckLo != lo || c.PStuckHi != hi {
		t.Errorf("interval [%v, %v], want Wilson(1, 4)", c.PStuckLo, c.PStuckHi)
	}
	if u := NewCell(nil, []results.RecoveryOutcome{results.Undecided, results.Undecided}, []float64{0, 0}); !math.IsNaN(u.PStuck) {
		t.Errorf("a cell of undecided runs: P(stuck) %v, want NaN (no verdict)", u.PStuck)
	}
	// A relapse (recovered, then stuck to the end of the run) is stuck, not recovered, and its
	// time is no recovery time (docs/metrics.md §13.9, §15).
	r := NewCell(nil, []results.RecoveryOutcome{results.Relapsed, results.Recovered, results.Relapsed, results.Stuck}, []float64{math.NaN(), 4, math.NaN(), math.NaN()})
	if r.Stuck != 3 || r.Recovered != 1 || r.NoBaseline != 0 || r.PStuck != 3.0/4 || r.RecoveryMedian != 4 {
		t.Errorf("a cell with relapses: %+v; want 3 stuck (2 relapsed), 1 recovered, P(stuck) 3/4, median 4", r)
	}
	empty := NewCell(nil, nil, nil)
	if !math.IsNaN(empty.PStuck) || !math.IsNaN(empty.RecoveryMedian) {
		t.Errorf("a cell that did not run: P(stuck) %v, median %v; want NaN", empty.PStuck, empty.RecoveryMedian)
	}
}

// TestFilesRoundTrip: map.json reads back as written, and map.csv has a row per cell in grid
// order with empty fields for missing values.
func TestFilesRoundTrip(t *testing.T) {
	m := Map{Header: results.Header{Scenario: "x", Seed: 3}, Trigger: "cut",
		Axes: []results.Axis{{Path: "a", Values: []string{"1", "2"}}, {Path: "b", Values: []string{"1s"}}}}
	m.Cells = append(m.Cells,
		NewCell([]results.Param{{Path: "a", Value: "1"}, {Path: "b", Value: "1s"}}, []results.RecoveryOutcome{results.Recovered, results.Recovered}, []float64{2, 4}),
		NewCell([]results.Param{{Path: "a", Value: "2"}, {Path: "b", Value: "1s"}}, []results.RecoveryOutcome{results.Stuck, results.Stuck}, []float64{math.NaN(), math.NaN()}))
	dir := t.TempDir()
	if err := Write(dir, m); err != nil {
		t.Fatal(err)
	}
	got, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Cells) != 2 || got.Cells[1].Stuck != 2 || got.Cells[0].RecoveryMedian != 3 || !math.IsNaN(got.Cells[1].RecoveryMedian) || got.Trigger != "cut" {
		t.Errorf("read back %+v", got)
	}
	var b bytes.Buffer
	if err := WriteCells(&b, m); err != nil {
		t.Fatal(err)
	}
	want := "a,b,replications,recovered,stuck,undecided,no_baseline,p_stuck,p_stuck_lo,p_stuck_hi,recovery_median_s\n" +
		"1,1s,2,2,0,0,0,0,0,0.65762,3\n" +
		"2,1s,2,0,2,0,0,1,0.34238,1,\n"
	if b.String() != want {
		t.Errorf("map.csv:\n%s\nwant:\n%s", b.String(), want)
	}
}
