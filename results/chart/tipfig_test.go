package chart

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/tip"
)

// tipFixture is a search of a cut's length in the README's shape: 2 s recovered in every run,
// 16 s and 9 s stuck in every run, 5.5 s recovered in every run, 7.25 s mostly stuck, and the
// search stopped at a tie at 6.375 s with one run undecided. Lo95 and Hi95 are
// analysis/tipping.Interval's at 95 % for those tallies.
func tipFixture() *tip.Result {
	p := func(value string, x float64, stuck, recovered, undecided int, lo, hi float64) tip.Probe {
		return tip.Probe{Value: value, X: x, Replications: stuck + recovered + undecided, Stuck: stuck, Recovered: recovered,
			Undecided: undecided, Lo95: lo, Hi95: hi}
	}
	return &tip.Result{Header: results.Header{Scenario: "cpu-cut-storm", Seed: 1}, Trigger: "cpu-cut", Param: "faults[0].for",
		Name: "cut length", Unit: "s", Sticks: "above", Boundary: 6.375, Lo: 5.5, Hi: 7.25, Confidence: 0.95, Replications: 119,
		FitX50: 6.6, FitLo: 6.1, FitHi: 7.1,
		Probes: []tip.Probe{
			p("2s", 2, 0, 12, 0, 0, 0.2646), p("16s", 16, 12, 0, 0, 0.7354, 1), p("9s", 9, 12, 0, 0, 0.7354, 1),
			p("5.5s", 5.5, 0, 12, 0, 0, 0.2646), p("7.25s", 7.25, 26, 6, 0, 0.6356, 0.9279), p("6.375s", 6.375, 19, 19, 1, 0.3338, 0.6662),
		}}
}

// TestTipFigure pins the data of the tipping-point figure (TipFigure): every value tested at
// the share of its decided runs that stuck with whiskers over its exact 95 % interval and a
// k/n label (with its undecided runs); the ½ line; the estimate's line over its interval's
// band and the fit's crossing; the conservative bound — the last value up to which every run
// recovered (green) and the first with a run stuck (red); P(stuck) drawn from 0 to 1.
func TestTipFigure(t *testing.T) {
	f, err := TipFigure(tipFixture())
	if err != nil {
		t.Fatal(err)
	}
	if f.Name != Tip || len(f.Panels) != 1 {
		t.Fatalf("figure %q with %d panels, want %q with one", f.Name, len(f.Panels), Tip)
	}
	if want := "cpu-cut-storm — Where cpu-cut tips: P(stuck) against cut length"; f.Title != want {
		t.Errorf("title %q, want %q", f.Title, want)
	}
	if !strings.HasPrefix(f.Subtitle, "after cpu-cut, cut length up to 5.5 s: recovered in every run (12 of 12, P(stuck) ≤ 27 % at 95 %); at 6.375 s, 19 of 39 runs stuck") {
		t.Errorf("subtitle %q does not lead with the conservative bound", f.Subtitle)
	}
	pn := f.Panels[0]
	if pn.X.Label != "cut length, faults[0].for (s)" || pn.Y.Range == nil || pn.Y.Range.Min > 0 || pn.Y.Range.Max < 1 || pn.Y.Range.Max > 1.2 {
		t.Errorf("axes: x %q, y range %+v; want the unit on x and P(stuck) from 0 to 1", pn.X.Label, pn.Y.Range)
	}
	var iv *Interval
	var marks VMarks
	var half bool
	for _, l := range pn.Layers {
		switch l := l.(type) {
		case Interval:
			iv = &l
		case VMarks:
			marks = l
		case Ref:
			half = half || l.Y == 0.5
		}
	}
	if !half {
		t.Error("no line at P(stuck) = ½")
	}
	if iv == nil || !iv.Whiskers {
		t.Fatalf("no whiskers: %+v", iv)
	}
	wantY := []float64{0, 1, 1, 0, 26.0 / 32, 0.5}
	if !slices.Equal(iv.X, []float64{2, 16, 9, 5.5, 7.25, 6.375}) || !slices.Equal(iv.Y, wantY) ||
		!slices.Equal(iv.Hi, []float64{0.2646, 1, 1, 0.2646, 0.9279, 0.6662}) || iv.Lo[4] != 0.6356 {
		t.Errorf("whiskers X %v Y %v Lo %v Hi %v; want each probe's share and exact interval", iv.X, iv.Y, iv.Lo, iv.Hi)
	}
	var labels []string
	for _, l := range pn.Labels {
		labels = append(labels, l.Text)
	}
	if !slices.Equal(labels, []string{"0/12", "12/12", "12/12", "0/12", "26/32", "19/38 (1 undecided)"}) {
		t.Errorf("point labels %q, want k/n of every probe", labels)
	}
	at := func(x float64) *VMark {
		for i := range marks {
			if marks[i].X == x {
				return &marks[i]
			}
		}
		return nil
	}
	if m := at(6.375); m == nil || m.Label != "tipping point 6.38 s" || m.Colour != tipEstimate {
		t.Errorf("tipping point mark %+v", m)
	}
	if m := at(5.5); m == nil || m.Label != "all recovered up to 5.5 s" || m.Colour != tipSafe {
		t.Errorf("conservative bound %+v, want a green mark at 5.5 s", m)
	}
	if m := at(6.6); m == nil || m.Dash != Dotted {
		t.Errorf("fit's mark %+v, want a dotted line at 6.6", m)
	}
	if n := len(marks); n != 4 { // estimate, fit, bound, first stuck (at the estimate here)
		t.Errorf("%d vertical marks, want 4", n)
	}
	if len(pn.Windows) != 1 || pn.Windows[0].Start != 5.5 || pn.Windows[0].End != 7.25 {
		t.Errorf("band %+v, want the estimate's interval 5.5 to 7.25", pn.Windows)
	}
	var keys []string
	for _, k := range pn.Keys {
		keys = append(keys, k.Label)
	}
	for _, want := range []string{"P(stuck) = ½", "its 95 % interval", "tipping point 6.38 s", "all 12 runs recovered", "first stuck: 19 of 39", "tested: k/n stuck, 95 % interval"} {
		if !slices.Contains(keys, want) {
			t.Errorf("legend %q lacks %q", keys, want)
		}
	}
}

// TestTipFigureNoFlip: a range without a flip has no estimate to draw: no band, no tipping
// point, and the bound up to its end.
func TestTipFigureNoFlip(t *testing.T) {
	r := tipFixture()
	nan := math.NaN()
	r.Boundary, r.Lo, r.Hi, r.FitX50 = nan, nan, nan, nan
	r.Probes = r.Probes[3:4]
	r.NoFlip = &tip.NoFlip{Side: "recovered", Value: "5.5s", X: 5.5, Runs: 12, PHi: 0.2646, Level: 0.95}
	f, err := TipFigure(r)
	if err != nil {
		t.Fatal(err)
	}
	pn := f.Panels[0]
	if len(pn.Windows) != 0 {
		t.Errorf("a band without an estimate: %+v", pn.Windows)
	}
	for _, l := range pn.Layers {
		if m, ok := l.(VMarks); ok && (len(m) != 1 || m[0].X != 5.5) {
			t.Errorf("marks %+v, want the bound at 5.5 only", m)
		}
	}
	if _, err := TipFigure(&tip.Result{}); err == nil {
		t.Error("a search without probes drew a figure")
	}
}
