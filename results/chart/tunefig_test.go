package chart

import (
	"math"
	"slices"
	"testing"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/tune"
)

// smallTuning is a tuning of retries 0…3 for total goodput with total amplification ≤ 1.2,
// decided by hand: retries 0, 1 and 2 are feasible and on the Pareto front, 2 is recommended
// and 1 its runner-up (goodput 110 ± 2 against 112 ± 2); retries 3 breaks the constraint far
// off (goodput 400, amplification 3), so the feasible candidates crowd a corner. With wide,
// the infeasible candidate is nearer (goodput 150, amplification 1.4) and a bound of goodput
// ≥ 90 lies left of every candidate: the feasible candidates' area, with both bounds, covers
// about a sixth of the panel, not crowded enough for a close-up.
func smallTuning(t *testing.T, wide bool) *tune.Tuning {
	t.Helper()
	p, err := results.ParseTuneParam("clients[0].driver.maxAdaptiveRetries=0:3:4")
	if err != nil {
		t.Fatal(err)
	}
	p.Integer = true
	bounds := []string{"total.amplification<=1.2"}
	far := [4]float64{400, 4, 3, 0.02}
	if wide {
		bounds = append(bounds, "total.goodput>=90")
		far = [4]float64{150, 2, 1.4, 0.01}
	}
	var ks []results.TuneConstraint
	for _, b := range bounds {
		k, err := results.ParseTuneConstraint(b, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		ks = append(ks, k)
	}
	tu := tune.New(results.Header{Scenario: "spike"}, []results.TuneParam{p},
		results.TuneObjective{Metric: "total.goodput", Sense: "maximize"}, ks, 3, 0)
	for i, m := range [][4]float64{{100, 2, 1, 0.01}, {110, 2, 1.1, 0.01}, {112, 2, 1.15, 0.01}, far} {
		tu.AddCandidate(tune.Candidate{Values: []float64{float64(i)}, Replications: 3, Feasible: i < 3,
			Params: []results.Param{{Path: p.Path, Value: p.Text(float64(i))}},
			Metrics: []results.MetricStats{
				{Name: tu.ParetoX, Mean: m[0], CI95: m[1], N: 3},
				{Name: tu.ParetoY, Mean: m[2], CI95: m[3], N: 3},
			}})
	}
	tu.Recommendation = &tune.Pick{Candidate: 2}
	tu.RunnersUp = []tune.Pick{{Candidate: 1}}
	tu.Pareto = []int{0, 1, 2}
	return tu
}

// near reports whether a and b agree to 1e-9 of their size.
func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func nearRange(t *testing.T, what string, got *Range, want Range) {
	t.Helper()
	if got == nil || !near(got.Min, want.Min) || !near(got.Max, want.Max) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

// TestTuneFigure checks the tuning figure as data on a small tuning: the full panel's extents
// (the data padded), the close-up's area (the feasible candidates, their intervals and the
// bound, with a margin), the Pareto front's steps, the recommendation ringed and labelled, and
// the one legend beside the close-up.
func TestTuneFigure(t *testing.T) {
	f, err := TuneFigure(smallTuning(t, false))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Panels) != 2 || !slices.Equal(f.Rows, []int{2}) {
		t.Fatalf("%d panels in rows %v, want the full panel and the close-up side by side", len(f.Panels), f.Rows)
	}
	full, zoom := &f.Panels[0], &f.Panels[1]

	// The data: x 98…404 (goodput with its intervals), y 0.99…3.02; padded by 6 % of the
	// range either side in x, below in y.
	nearRange(t, "the full panel's x", full.X.Range, Range{98 - 0.06*306, 404 + 0.06*306})
	nearRange(t, "the full panel's y", full.Y.Range, Range{0.99 - 0.06*2.03, 3.02})

	// The close-up: x 98…114, y 0.99…1.2 (the bound above the feasible points), 12 % more
	// either side.
	box := Range{98 - 0.12*16, 114 + 0.12*16}
	boy := Range{0.99 - 0.12*0.21, 1.2 + 0.12*0.21}
	nearRange(t, "the close-up's x", zoom.X.Range, box)
	nearRange(t, "the close-up's y", zoom.Y.Range, boy)
	if o := full.Outline; o == nil {
		t.Error("the full panel does not outline the close-up's area")
	} else {
		nearRange(t, "the outline's x", &o.X, box)
		nearRange(t, "the outline's y", &o.Y, boy)
	}
	if zoom.Outline != nil {
		t.Error("the close-up outlines itself")
	}

	// The front of a maximised x: rise at the previous x, then run to the next point.
	for _, pn := range []*Panel{full, zoom} {
		if len(pn.Series) != 1 {
			t.Fatalf("%s: %d series, want the front alone", pn.Title, len(pn.Series))
		}
		if s := pn.Series[0]; !slices.Equal(s.X, []float64{100, 100, 110, 110, 112}) || !slices.Equal(s.Y, []float64{1, 1.1, 1.1, 1.15, 1.15}) {
			t.Errorf("%s: front x %v y %v, want steps up through (100, 1), (110, 1.1), (112, 1.15)", pn.Title, s.X, s.Y)
		}
		if len(pn.Rings) != 2 || !slices.Equal(pn.Rings[0].Points, []Point{{110, 1.1}}) || !slices.Equal(pn.Rings[1].Points, []Point{{112, 1.15}}) ||
			pn.Rings[1].Colour != Total {
			t.Errorf("%s: rings %v, want the runner-up's at (110, 1.1), then the recommendation's at (112, 1.15)", pn.Title, pn.Rings)
		}
		if len(pn.Bounds) != 1 || pn.Bounds[0] != (Bound{At: 1.2, Label: "constraint ≤ 1.2", Style: Style{Colour: FaultEdge, Width: Thin, Dash: Dashed}}) {
			t.Errorf("%s: bounds %v, want the constraint's, horizontal at 1.2", pn.Title, pn.Bounds)
		}
		var feasible []Estimate
		if len(pn.Crosses) == 2 {
			feasible = pn.Crosses[1].Points
		}
		if !slices.Equal(feasible, []Estimate{{100, 2, 1, 0.01}, {110, 2, 1.1, 0.01}, {112, 2, 1.15, 0.01}}) {
			t.Errorf("%s: crosses %v, want the infeasible, then the three feasible with their half-widths", pn.Title, pn.Crosses)
		}
	}

	// The labels: the close-up names the recommendation with its value and every other point;
	// the full panel leaves the points inside the close-up to it.
	labels := func(pn *Panel) []PointLabel { return pn.Labels }
	if got, want := labels(zoom), []PointLabel{{Point{100, 1}, "0", false}, {Point{110, 1.1}, "1", false},
		{Point{112, 1.15}, "recommended: maxAdaptiveRetries=2", true}, {Point{400, 3}, "3", false}}; !slices.Equal(got, want) {
		t.Errorf("close-up labels %v, want %v", got, want)
	}
	if got, want := labels(full), []PointLabel{{Point{100, 1}, "", false}, {Point{110, 1.1}, "", false},
		{Point{112, 1.15}, "recommended", true}, {Point{400, 3}, "3", false}}; !slices.Equal(got, want) {
		t.Errorf("full panel labels %v, want %v", got, want)
	}

	var keys []string
	for _, k := range zoom.Keys {
		keys = append(keys, k.Label)
	}
	if want := []string{"Pareto front (feasible)", "feasible", "infeasible (breaks a constraint)", "constraint bound",
		"runner-up: intervals overlap", "recommended", "the close-up's area", "labels: maxAdaptiveRetries"}; !slices.Equal(keys, want) {
		t.Errorf("keys %q, want %q", keys, want)
	}
	if len(full.Keys) != 0 {
		t.Errorf("the full panel has keys %v, want one legend, beside the close-up", full.Keys)
	}
}

// TestTuneFigureNoCloseUp: when the feasible candidates, with the bounds, cover a tenth of the
// panel or more, there is one panel, over the data and the bounds padded, without an outline.
func TestTuneFigureNoCloseUp(t *testing.T) {
	f, err := TuneFigure(smallTuning(t, true))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Panels) != 1 || f.Rows != nil || f.Panels[0].Outline != nil {
		t.Fatalf("%d panels in rows %v, want one without an outline", len(f.Panels), f.Rows)
	}
	pn := &f.Panels[0]
	// x from the bound at 90 to the far candidate's 150 + 2, y 0.99…1.41.
	nearRange(t, "x", pn.X.Range, Range{90 - 0.06*62, 152 + 0.06*62})
	nearRange(t, "y", pn.Y.Range, Range{0.99 - 0.06*0.42, 1.41})
	if want := []Bound{{At: 1.2, Label: "constraint ≤ 1.2", Style: Style{Colour: FaultEdge, Width: Thin, Dash: Dashed}},
		{Vertical: true, At: 90, Label: "constraint ≥ 90/s", Style: Style{Colour: FaultEdge, Width: Thin, Dash: Dashed}}}; !slices.Equal(pn.Bounds, want) {
		t.Errorf("bounds %v, want %v", pn.Bounds, want)
	}
	if n := len(pn.Keys); n == 0 || pn.Keys[n-1] != (Key{Label: "labels: maxAdaptiveRetries", Kind: KeyText}) {
		t.Errorf("keys %v, want the labels' note last", pn.Keys)
	}
}

// TestTuneFigureNoCandidates: a tuning without candidates has no figure.
func TestTuneFigureNoCandidates(t *testing.T) {
	tu := tune.New(results.Header{Scenario: "spike"}, nil, results.TuneObjective{Metric: "total.goodput", Sense: "maximize"}, nil, 1, 0)
	if _, err := TuneFigure(tu); err == nil {
		t.Error("TuneFigure drew a tuning without candidates")
	}
}
