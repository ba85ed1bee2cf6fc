package tune

import (
	"slices"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/results"
)

// TestNewTuningMeasures: the measures are the objective, the constraints' and the Pareto
// figure's, each once; the figure's y is an amplification and its x the objective unless that
// is the amplification.
func TestNewTuningMeasures(t *testing.T) {
	hdr := results.Header{Canonical: "x"}
	p, _ := results.ParseTuneParam("x=0:1")
	c1, _ := results.ParseTuneConstraint("group.a.amplification<=1.5", 0, 0)
	c2, _ := results.ParseTuneConstraint("total.latency_ok_p99<=200ms", 0, 0)
	tests := []struct {
		gloss    string
		obj      results.TuneObjective
		cons     []results.TuneConstraint
		measures []string
		x, y     string
	}{
		{"goodput with a group's amplification", results.TuneObjective{Metric: "group.a.goodput", Sense: "maximize"}, []results.TuneConstraint{c1},
			[]string{"group.a.goodput", "group.a.amplification"}, "group.a.goodput", "group.a.amplification"},
		{"a group's objective, no amplification named", results.TuneObjective{Metric: "group.a.goodput", Sense: "maximize"}, []results.TuneConstraint{c2},
			[]string{"group.a.goodput", "total.latency_ok_p99", "group.a.amplification"}, "group.a.goodput", "group.a.amplification"},
		{"a windowed objective", results.TuneObjective{Metric: "total.goodput", From: time.Second, To: 2 * time.Second, Sense: "maximize"}, nil,
			[]string{"total.goodput@1s:2s", "total.amplification@1s:2s"}, "total.goodput@1s:2s", "total.amplification@1s:2s"},
		{"minimise amplification: x is the first constraint", results.TuneObjective{Metric: "total.amplification", Sense: "minimize"}, []results.TuneConstraint{c2},
			[]string{"total.amplification", "total.latency_ok_p99"}, "total.latency_ok_p99", "total.amplification"},
		{"minimise amplification alone: x is goodput", results.TuneObjective{Metric: "total.amplification", Sense: "minimize"}, nil,
			[]string{"total.amplification", "total.goodput"}, "total.goodput", "total.amplification"},
	}
	for _, tc := range tests {
		tu := New(hdr, []results.TuneParam{p}, tc.obj, tc.cons, 2, 0)
		var names []string
		for _, m := range tu.Measures {
			names = append(names, m.Name())
		}
		if !slices.Equal(names, tc.measures) || tu.ParetoX != tc.x || tu.ParetoY != tc.y {
			t.Errorf("%s: measures %q, x %q, y %q; want %q, %q, %q", tc.gloss, names, tu.ParetoX, tu.ParetoY, tc.measures, tc.x, tc.y)
		}
	}
}
