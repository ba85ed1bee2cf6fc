package compare

import (
	"math"
	"strings"
	"testing"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/sweep"
)

func TestCompare(t *testing.T) {
	point := func(value string, goodput, ci float64, n int) sweep.PointStats {
		return sweep.PointStats{Params: []results.Param{{Path: "rate", Value: value}}, Replications: n,
			Metrics: []results.MetricStats{{Name: "total.goodput", Mean: goodput, CI95: ci, N: n}, {Name: "fault.cut.stuck", Mean: 0.5, CI95: 0.2, N: n}}}
	}
	a := Input{Label: "a", Kind: results.KindSweep, Points: []sweep.PointStats{point("1/s", 100, 1, 5), point("2/s", 200, 1, 5)}}
	b := Input{Label: "b", Kind: results.KindSweep, Points: []sweep.PointStats{point("2/s", 210, 1, 5), point("3/s", 250, 1, 5)}}
	c := Compare([]Input{a, b})
	if len(c.Results) != 2 || c.Results[1].Label != "b (same scenario)" || c.Results[1].Folder != "b" || c.Results[0].Label != "reference (a)" {
		t.Fatalf("results %+v", c.Results)
	}
	// Three points (1/s, 2/s from a; 3/s from b) × (5 metrics + the trigger's share stuck).
	if len(c.Rows) != 3*6 {
		t.Fatalf("%d rows, want 18", len(c.Rows))
	}
	find := func(point, metric string) Row {
		for _, r := range c.Rows {
			if r.Point == point && r.Metric == metric {
				return r
			}
		}
		t.Fatalf("no row %s %s", point, metric)
		return Row{}
	}
	r := find("rate=2/s", "total.goodput")
	if v := r.Values[1]; v.Delta != 10 || v.DeltaRel != 0.05 || !(v.P < 0.001) || !v.Significant {
		t.Errorf("200 ± 1 vs 210 ± 1 over 5 replications: %+v, want +10, +5 %%, significant", v)
	}
	if v := r.Values[0]; !math.IsNaN(v.Delta) || !math.IsNaN(v.P) {
		t.Errorf("the reference has a difference from itself: %+v", v)
	}
	if v := find("rate=1/s", "total.goodput").Values[1]; !math.IsNaN(v.Mean) || !math.IsNaN(v.Delta) {
		t.Errorf("a point b lacks: %+v", v)
	}
	if v := find("rate=2/s", "fault.cut.stuck").Values[1]; v.Delta != 0 || v.Significant {
		t.Errorf("equal shares stuck: %+v", v)
	}
	if v := find("rate=3/s", "total.offered").Values[1]; !math.IsNaN(v.Mean) {
		t.Errorf("a metric neither has: %+v", v)
	}
	var b2 strings.Builder
	if err := WriteCSV(&b2, c); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b2.String(), "point,metric,unit,reference (a)_mean,reference (a)_ci95,reference (a)_n,b (same scenario)_mean,b (same scenario)_ci95,b (same scenario)_n,b (same scenario)_delta,b (same scenario)_delta_rel,b (same scenario)_delta_ci95,b (same scenario)_p,b (same scenario)_verdict\n") {
		t.Errorf("compare.csv header: %s", strings.SplitN(b2.String(), "\n", 2)[0])
	}
}
