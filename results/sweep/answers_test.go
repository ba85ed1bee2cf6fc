package sweep

import (
	"math"
	"strings"
	"testing"

	"github.com/overloadsim/overloadsim/results"
)

// loadPoint is a sweep point with the metrics the answers read.
func loadPoint(offered, goodput, p99 float64) *PointStats {
	return &PointStats{Replications: 3, Metrics: []results.MetricStats{
		{Name: "total.offered", Mean: offered, N: 3},
		{Name: "total.goodput", Mean: goodput, N: 3},
		{Name: "total.latency_ok_p99", Mean: p99, N: 3},
	}}
}

func TestAnswerLoad(t *testing.T) {
	// 500…1200/s against a 1000/s ceiling: served in full to 1000/s (goodput 96 % of 1000 is
	// within the 5 % rule), short from 1100/s; p99 doubles (25 → 60 ms) first at 1000/s.
	pts := []*PointStats{
		loadPoint(1200, 1000, 0.5), loadPoint(500, 500, 0.025), loadPoint(1000, 960, 0.06),
		loadPoint(1100, 1000, 0.4), loadPoint(800, 800, 0.03),
	}
	for _, tc := range []struct {
		name string
		ctx  LoadContext
		want LoadAnswers
	}{
		{"default latency rule", LoadContext{Today: 400},
			LoadAnswers{LastServed: 1000, Knee: 1100, KneeFound: true, LatencyKnee: 1000, LatencyFound: true,
				LatencyRule: "p99 latency above 2 × its 25ms at the lowest load", Headroom: 1100.0 / 400, LatencyHeadroom: 1000.0 / 400}},
		{"an SLO", LoadContext{Today: 400, SLO: 0.2},
			LoadAnswers{LastServed: 1000, Knee: 1100, KneeFound: true, LatencyKnee: 1100, LatencyFound: true,
				LatencyRule: "p99 latency above the 200ms SLO", Headroom: 1100.0 / 400, LatencyHeadroom: 1100.0 / 400}},
		{"no today", LoadContext{SLO: 1},
			LoadAnswers{LastServed: 1000, Knee: 1100, KneeFound: true, LatencyRule: "p99 latency above the 1s SLO"}},
	} {
		got := AnswerLoad(pts, "total.", tc.ctx)
		if got != tc.want {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.name, got, tc.want)
		}
	}

	// Exactly 95 % of offered is served in full; just under is the knee.
	edge := []*PointStats{loadPoint(100, 100, 0.01), loadPoint(200, 190, 0.01), loadPoint(300, 284.9, 0.01)}
	if a := AnswerLoad(edge, "total.", LoadContext{}); a.Knee != 300 || a.LastServed != 200 {
		t.Errorf("the 5 %% rule: knee %v after %v, want 300 after 200", a.Knee, a.LastServed)
	}
	none := AnswerLoad([]*PointStats{loadPoint(100, 100, 0.01), loadPoint(200, 200, 0.01)}, "total.", LoadContext{Today: 100})
	if none.KneeFound || none.Headroom != 0 || none.LatencyFound || !strings.Contains(strings.Join(none.Sentences(), " "), "beyond the sweep") {
		t.Errorf("no knee: %+v %q", none, none.Sentences())
	}
	low := AnswerLoad([]*PointStats{loadPoint(100, 50, math.NaN()), loadPoint(200, 60, 0.01)}, "total.", LoadContext{})
	if !low.KneeFound || low.LastServed != 0 || !strings.Contains(low.Sentences()[0], "below the sweep") {
		t.Errorf("knee at the lowest load: %+v %q", low, low.Sentences())
	}
}

// TestSweepAnswers: answers only for a sweep of a workload's rate, one per value of the other
// parameter, in order.
func TestSweepAnswers(t *testing.T) {
	var pts []PointStats
	for _, policy := range []string{"none", "mongodb-2026-03"} {
		for _, rate := range []string{"500/s", "1000/s", "1500/s"} {
			p := loadPoint(map[string]float64{"500/s": 500, "1000/s": 1000, "1500/s": 1500}[rate], math.Min(1000, map[string]float64{"500/s": 500, "1000/s": 1000, "1500/s": 1500}[rate]), 0.02)
			p.Params = []results.Param{{Path: "clients[0].driver.retryPolicy", Value: policy}, {Path: "clients[0].workload.rate", Value: rate}}
			pts = append(pts, *p)
		}
	}
	as := SweepAnswers(pts, LoadContext{Today: 500})
	if len(as) != 2 || as[0].Line != "none" || as[1].Line != "mongodb-2026-03" || as[0].Knee != 1500 || as[0].Headroom != 3 {
		t.Errorf("policy × load: %+v", as)
	}
	for i := range pts {
		pts[i].Params = pts[i].Params[:1]
	}
	if as := SweepAnswers(pts, LoadContext{Today: 500}); as != nil {
		t.Errorf("a sweep of policies alone has load answers: %+v", as)
	}
}
