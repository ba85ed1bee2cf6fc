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
}
