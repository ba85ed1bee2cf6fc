package chart

import (
	"math"
	"slices"
	"testing"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/compare"
	"github.com/overloadsim/overloadsim/results/sweep"
)

// TestRunDifference pins the runs' difference series (RunDifference): the other run minus the
// reference, interval by interval, matched by the intervals' ends; no value where either has
// none or the reference has no such interval.
func TestRunDifference(t *testing.T) {
	ref := &Run{Ends: []float64{1, 2, 3}}
	other := &Run{Ends: []float64{1, 2, 3, 4}}
	got := RunDifference(ref, other, []float64{500, 510, math.NaN()}, []float64{520, 480, 300, 700})
	want := []float64{20, -30, math.NaN(), math.NaN()}
	for i := range want {
		if !(got[i] == want[i] || math.IsNaN(got[i]) && math.IsNaN(want[i])) {
			t.Errorf("difference %v, want %v", got, want)
			break
		}
	}
}

// fixtureComparison compares two sweeps of goodput at points (load values, in that order): the
// reference's 200/s and 300/s, the other's 10/s and 0.5/s more (significant, and not).
func fixtureComparison(points ...string) compare.Comparison {
	in := func(label string, goodput ...float64) compare.Input {
		var pts []sweep.PointStats
		for i, v := range points {
			var params []results.Param
			if v != "" {
				params = []results.Param{{Path: "load", Value: v}}
			}
			pts = append(pts, sweep.PointStats{Params: params, Replications: 5,
				Metrics: []results.MetricStats{{Name: "total.goodput", Mean: goodput[i], CI95: 1, N: 5}}})
		}
		return compare.Input{Label: label, Kind: results.KindSweep, Points: pts}
	}
	return compare.Compare([]compare.Input{in("a", 200, 300), in("b", 210, 300.5)})
}

// TestSweepDifferences pins a sweep comparison's difference panels' values: at each point of
// the reference, the difference, its 95 % interval (compare.Value.DeltaCI95) and its verdict,
// in x order, whichever order the rows list the points in.
func TestSweepDifferences(t *testing.T) {
	c := fixtureComparison("2", "1")
	s0 := &Sweep{X: NewXAxis("load", []string{"2", "1"})}
	d := sweepDifferences(c, "total.goodput", s0)[1]
	if !slices.Equal(d.x, []float64{1, 2}) || !slices.Equal(d.delta, []float64{300.5 - 300, 10}) {
		t.Fatalf("x %v, differences %v; want x 1, 2 and differences 0.5, 10", d.x, d.delta)
	}
	h := math.NaN() // the same at both points: the same half-widths and counts
	for _, row := range c.Rows {
		if row.Metric == "total.goodput" {
			h = row.Values[1].DeltaCI95
		}
	}
	if !(h > 0) || !slices.Equal(d.lo, []float64{0.5 - h, 10 - h}) || !slices.Equal(d.hi, []float64{0.5 + h, 10 + h}) {
		t.Errorf("interval lo %v hi %v, want each difference ± its DeltaCI95 %v", d.lo, d.hi, h)
	}
	if !slices.Equal(d.verdict, []compare.Verdict{compare.NotSignificant, compare.Better}) {
		t.Errorf("verdicts %v, want not significant at load 1, better at load 2", d.verdict)
	}
}

// TestOnePointValues pins a comparison of single points as drawn: each result's mean with its
// 95 % interval, the reference black, the others green when better, red when worse, grey when
// not significant, and the difference written beside the point.
func TestOnePointValues(t *testing.T) {
	for _, tc := range []struct {
		other float64
		want  [2]any
	}{
		{210, [2]any{BetterColour, "+10/s (+5.0 %)"}},
		{190, [2]any{WorseColour, "-10/s (-5.0 %)"}},
		{200.6, [2]any{UnjudgedColour, "+0.6/s (+0.3 %)"}},
	} {
		in := func(label string, g float64) compare.Input {
			return compare.Input{Label: label, Kind: results.KindSweep, Points: []sweep.PointStats{{Replications: 5,
				Metrics: []results.MetricStats{{Name: "total.goodput", Mean: g, CI95: 1, N: 5}}}}}
		}
		vs := OnePointValues(compare.Compare([]compare.Input{in("a", 200), in("b", tc.other)}), "total.goodput")
		if vs[0].Colour != Total || vs[0].Lo != 199 || vs[0].Hi != 201 || vs[0].Delta != "" {
			t.Errorf("reference %+v: want black, 199–201, no difference", vs[0])
		}
		if vs[1].Colour != tc.want[0] || vs[1].Delta != tc.want[1] || vs[1].Mean != tc.other {
			t.Errorf("goodput %v against 200: %+v, want colour %v and %q", tc.other, vs[1], tc.want[0], tc.want[1])
		}
	}
}
