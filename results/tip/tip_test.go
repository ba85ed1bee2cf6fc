package tip

import (
	"math"
	"strings"
	"testing"
)

// TestDescribeNoFlip pins the words of a range without a flip: the side, the end nearest the
// other side with its tally, and the bound on P(stuck) rounded away from the interval's inside
// (an upper bound up, a lower bound down), so that the sentence never claims more than the
// interval (Result.NoFlip).
func TestDescribeNoFlip(t *testing.T) {
	nan := math.NaN()
	r := Result{Trigger: "cut", Param: "faults[0].for", Unit: "s", Sticks: "above", Boundary: nan, Lo: nan, Hi: nan, FitX50: nan,
		NoFlip: &NoFlip{Side: "recovered", Value: "20ms", X: 0.02, Stuck: 0, Runs: 12, PLo: 0, PHi: 0.2646, Level: 0.95}}
	want := "after cut, never stuck in the range: up to faults[0].for = 20ms, 0 of 12 runs stuck, P(stuck) ≤ 27 % (95 % interval); no flip in the range, the boundary, if any, lies above it"
	if got := r.Describe(); got != want {
		t.Errorf("never stuck:\n got %q\nwant %q", got, want)
	}
	r.NoFlip = &NoFlip{Side: "stuck", Value: "2s", X: 2, Stuck: 12, Runs: 12, PLo: 0.7354, PHi: 1, Level: 0.95}
	if got := r.Describe(); !strings.Contains(got, "stuck throughout the range: even at faults[0].for = 2s, 12 of 12 runs stuck, P(stuck) ≥ 73 % (95 % interval)") ||
		!strings.HasSuffix(got, "lies below it") {
		t.Errorf("stuck throughout: %q", got)
	}
	r.Sticks = "below"
	if got := r.Describe(); !strings.HasSuffix(got, "lies above it") {
		t.Errorf("stuck throughout, sticking below: %q, want the boundary above the range", got)
	}
	// A parameter with a name in words is quoted by it, as the lead names it.
	r.Name = "cut length"
	if got := r.Describe(); !strings.Contains(got, "even at cut length = 2s,") {
		t.Errorf("a named parameter: %q, want it quoted as cut length", got)
	}
}

// probe is a fixture probe at x seconds with its tally; Lo95 and Hi95 are the exact intervals
// analysis/tipping.Interval gives for those tallies at 95 %.
func probe(x float64, stuck, recovered, undecided int, hi95 float64) Probe {
	return Probe{Value: "", X: x, Replications: stuck + recovered + undecided, Stuck: stuck, Recovered: recovered,
		Undecided: undecided, Hi95: hi95}
}

// TestLead pins the conservative bound a search leads with (Result.Bound, Result.Lead): the
// value up to which every probe, from the recovering end, recovered in every run (none stuck,
// none undecided), with its runs and the upper 95 % bound on P(stuck) there rounded up; then the
// first value, from the same end, where a run stuck, with k of n. A probe with an undecided run
// ends the stretch of all-recovered values even when a later one recovered in every run.
func TestLead(t *testing.T) {
	base := Result{Trigger: "cpu-cut", Param: "faults[0].for", Name: "cut length", Unit: "s", Sticks: "above",
		Boundary: 6.4, Lo: 5.5, Hi: 7.25, Confidence: 0.95, FitX50: math.NaN()}
	tests := []struct {
		name   string
		sticks string
		probes []Probe
		want   string
	}{
		{"the README's cut", "above", []Probe{probe(2, 0, 12, 0, 0.2646), probe(16, 12, 0, 0, 1), probe(9, 12, 0, 0, 1),
			probe(5.5, 0, 12, 0, 0.2646), probe(7.25, 26, 6, 0, 0.95), probe(6.375, 20, 20, 0, 0.66)},
			"after cpu-cut, cut length up to 5.5 s: recovered in every run (12 of 12, P(stuck) ≤ 27 % at 95 %); at 6.375 s, 20 of 40 runs stuck"},
		{"an undecided run ends the stretch", "above", []Probe{probe(2, 0, 12, 0, 0.2646), probe(4, 0, 11, 1, 0.285),
			probe(5, 0, 12, 0, 0.2646), probe(7, 3, 9, 0, 0.57)},
			"after cpu-cut, cut length up to 2 s: recovered in every run (12 of 12, P(stuck) ≤ 27 % at 95 %); at 7 s, 3 of 12 runs stuck"},
		{"sticking below", "below", []Probe{probe(1, 8, 4, 0, 0.9), probe(3, 0, 12, 0, 0.2646), probe(2, 1, 10, 1, 0.41)},
			"after cpu-cut, cut length down to 3 s: recovered in every run (12 of 12, P(stuck) ≤ 27 % at 95 %); at 2 s, 1 of 12 runs stuck (1 undecided)"},
		{"stuck from the start", "above", []Probe{probe(2, 2, 10, 0, 0.48), probe(8, 12, 0, 0, 1)},
			"after cpu-cut, cut length: no value tested recovered in every run; even at 2 s, 2 of 12 runs stuck"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := base
			r.Sticks, r.Probes = tc.sticks, tc.probes
			if got := r.Lead(); got != tc.want {
				t.Errorf("Lead:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
	r := base
	r.Name, r.Unit, r.Param = "", "/s", "clients[0].workload.rate"
	r.Probes = []Probe{probe(600, 0, 8, 0, 0.37), probe(1400, 8, 0, 0, 1)}
	if got, want := r.Lead(), "after cpu-cut, clients[0].workload.rate up to 600/s: recovered in every run (8 of 8, P(stuck) ≤ 37 % at 95 %); at 1400/s, 8 of 8 runs stuck"; got != want {
		t.Errorf("a rate without a name:\n got %q\nwant %q", got, want)
	}
	if got, want := r.Estimate(), "tipping point 6.4/s (95 % interval 5.5/s to 7.25/s)"; got != want {
		t.Errorf("Estimate = %q, want %q", got, want)
	}
}

// TestWriteLead: tip.json carries the lead sentence, so that a reader of the file quotes the
// same words as the command.
func TestWriteLead(t *testing.T) {
	dir := t.TempDir()
	r := Result{Trigger: "cut", Param: "faults[0].for", Unit: "s", Sticks: "above", Boundary: 1, Lo: 0.5, Hi: 1.5, Confidence: 0.95,
		FitX50: math.NaN(), FitLo: math.NaN(), FitHi: math.NaN(), Probes: []Probe{probe(0.5, 0, 4, 0, 0.6), probe(1.5, 4, 0, 0, 1)}}
	if err := Write(dir, r); err != nil {
		t.Fatal(err)
	}
	got, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.LeadText == "" || got.LeadText != r.Lead() {
		t.Errorf("tip.json lead %q, want %q", got.LeadText, r.Lead())
	}
}

// TestTested: a value tested is quoted as it ran, every digit kept, a duration in its own unit.
func TestTested(t *testing.T) {
	for _, c := range []struct {
		unit string
		x    float64
		want string
	}{
		{"s", 6.375, "6.375 s"}, {"s", 0.02, "20 ms"}, {"s", 0.4625, "462.5 ms"}, {"s", 90, "1m30s"},
		{"/s", 1237.5, "1237.5/s"}, {"", 3, "3"},
	} {
		r := Result{Unit: c.unit}
		if got := r.Tested(c.x); got != c.want {
			t.Errorf("Tested(%v %s) = %q, want %q", c.x, c.unit, got, c.want)
		}
	}
}
