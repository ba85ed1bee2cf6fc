package chart

import (
	"slices"
	"testing"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/sweep"
)

// decisionPoints is a policy sweep of clients[0]'s retry policy, with a load axis when loads is
// not empty.
func decisionPoints(loads ...string) []sweep.PointStats {
	var out []sweep.PointStats
	for i, pol := range []string{"mongodb-legacy", "mongodb-2026-07"} {
		for _, l := range append(loads, "")[:max(len(loads), 1)] {
			ps := []results.Param{{Path: "clients[0].driver.retryPolicy", Value: pol}}
			if l != "" {
				ps = append(ps, results.Param{Path: "load", Value: l})
			}
			p := sweep.PointStats{Params: ps, Replications: 3}
			for _, sc := range []string{"total.", "group.web."} {
				for name, v := range map[string]float64{"offered": 100, "goodput": 90 - 40*float64(1-i), "failures": 10 + 40*float64(1-i),
					"amplification": 1 + float64(i), "latency_ok_p99": 0.1, "latency_all_p99": 0.2} {
					p.Metrics = append(p.Metrics, results.MetricStats{Name: sc + name, Mean: v, CI95: 0.01 * v, N: 3})
				}
			}
			out = append(out, p)
		}
	}
	return out
}

// TestDecisionFigure: the decision figure draws failures beside goodput, then amplification and
// the p99 of all operations, one line per policy named by its value (not the YAML path), over
// the decision's loads or, without a load axis, a category per policy.
func TestDecisionFigure(t *testing.T) {
	for _, tc := range []struct {
		name        string
		loads       []string
		categorical bool
	}{{"load axis", []string{"1", "1.5", "2"}, false}, {"no load axis", nil, true}} {
		t.Run(tc.name, func(t *testing.T) {
			d := sweep.Decide(decisionPoints(tc.loads...), sweep.LoadContext{Today: 100}, []string{"web"})
			if d == nil {
				t.Fatal("no decision")
			}
			f := DecisionFigure(d)
			var titles []string
			for _, pn := range f.Panels {
				titles = append(titles, pn.Title)
			}
			if want := []string{"Failed operations", "Goodput", "Retry amplification", "p99 latency of all operations"}; !slices.Equal(titles, want) {
				t.Fatalf("panels %q, want %q", titles, want)
			}
			if f.Name != SweepDecision || !slices.Equal(f.Rows, []int{2, 2}) {
				t.Errorf("figure %q rows %v", f.Name, f.Rows)
			}
			if got := keyLabels(&f.Panels[1]); !slices.Equal(got, []string{"mongodb-legacy", "mongodb-2026-07"}) {
				t.Errorf("legend %q, want the policies by name", got)
			}
			failed := f.Panels[0]
			if failed.X.Categorical != tc.categorical || len(failed.Layers) != 2 {
				t.Fatalf("failures panel: categorical %v, %d layers", failed.X.Categorical, len(failed.Layers))
			}
			legacy := failed.Layers[0].(Interval)
			if legacy.Y[0] != 50 { // (10 + 40) ÷ 100 offered, in per cent
				t.Errorf("legacy's failure share %v %%, want 50", legacy.Y[0])
			}
			if !tc.categorical && !slices.Equal(legacy.X, []float64{1, 1.5, 2}) {
				t.Errorf("x %v, want the loads × today", legacy.X)
			}
		})
	}
}
