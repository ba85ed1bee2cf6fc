package sweep

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/overloadsim/overloadsim/results"
)

// loadPoint is a sweep point with the metrics the answers read, nothing failed.
func loadPoint(offered, goodput, p99 float64) *PointStats {
	return failPoint(offered, goodput, 0, p99)
}

// failPoint is a sweep point whose operations fail at the rate failures.
func failPoint(offered, goodput, failures, p99 float64) *PointStats {
	return &PointStats{Replications: 3, Metrics: []results.MetricStats{
		{Name: "total.offered", Mean: offered, N: 3},
		{Name: "total.goodput", Mean: goodput, N: 3},
		{Name: "total.failures", Mean: failures, N: 3},
		{Name: "total.latency_ok_p99", Mean: p99, N: 3},
	}}
}

// TestAnswerLoad pins the answers' rules (docs/metrics.md §17): a point is served in full when
// goodput is within KneeShortfall of offered and at most FailureAllowance failed; the knee is
// the first point not served in full; the latency knee the first whose p99 breaks the rule; the
// safe load the last point before either; headroom the safe load ÷ today; the brackets the
// points either side of each knee ÷ today.
func TestAnswerLoad(t *testing.T) {
	// 500…1200/s against a 1000/s ceiling: served in full to 1000/s (goodput 96 % of 1000 is
	// within the 5 % rule), short from 1100/s; p99 doubles (25 → 60 ms) first at 1000/s.
	pts := []*PointStats{
		loadPoint(1200, 1000, 0.5), loadPoint(500, 500, 0.025), loadPoint(1000, 960, 0.06),
		loadPoint(1100, 1000, 0.4), loadPoint(800, 800, 0.03),
	}
	p := func(offered, goodput, p99 float64) LoadPoint { return LoadPoint{offered, goodput, 0, p99} }
	for _, tc := range []struct {
		name string
		ctx  LoadContext
		want LoadAnswers
	}{
		{"default latency rule: latency gives out first", LoadContext{Today: 400},
			LoadAnswers{LastServed: 1000, Knee: 1100, KneeFound: true, LatencyKnee: 1000, LatencyFound: true,
				LatencyRule: "p99 latency above 2 × its 25ms at the lowest load",
				Safe:        p(800, 800, 0.03), Beyond: p(1000, 960, 0.06), Headroom: 800.0 / 400,
				KneeBracket: [2]float64{1000.0 / 400, 1100.0 / 400}, LatencyBracket: [2]float64{800.0 / 400, 1000.0 / 400},
				Refine: ""}},
		{"an SLO: goodput gives out first", LoadContext{Today: 400, SLO: 0.2},
			LoadAnswers{LastServed: 1000, Knee: 1100, KneeFound: true, LatencyKnee: 1100, LatencyFound: true,
				LatencyRule: "p99 latency above the 200ms SLO",
				Safe:        p(1000, 960, 0.06), Beyond: p(1100, 1000, 0.4), Headroom: 1000.0 / 400,
				KneeBracket: [2]float64{1000.0 / 400, 1100.0 / 400}, LatencyBracket: [2]float64{1000.0 / 400, 1100.0 / 400}}},
		{"no today", LoadContext{SLO: 1},
			LoadAnswers{LastServed: 1000, Knee: 1100, KneeFound: true, LatencyRule: "p99 latency above the 1s SLO",
				Safe: p(1000, 960, 0.06), Beyond: p(1100, 1000, 0.4)}},
	} {
		got := AnswerLoad(pts, "total.", "", tc.ctx)
		if got != tc.want {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.name, got, tc.want)
		}
	}

	// Exactly 95 % of offered is served in full; just under is the knee.
	edge := []*PointStats{loadPoint(100, 100, 0.01), loadPoint(200, 190, 0.01), loadPoint(300, 284.9, 0.01)}
	if a := AnswerLoad(edge, "total.", "", LoadContext{}); a.Knee != 300 || a.LastServed != 200 {
		t.Errorf("the 5 %% rule: knee %v after %v, want 300 after 200", a.Knee, a.LastServed)
	}
	// Exactly 1 % failed is served in full; more is the knee, though goodput is within 5 %.
	fails := []*PointStats{failPoint(100, 100, 0, 0.01), failPoint(200, 198, 2, 0.01), failPoint(300, 289.5, 10.5, 0.01)}
	if a := AnswerLoad(fails, "total.", "", LoadContext{}); a.Knee != 300 || a.LastServed != 200 || a.Safe.Offered != 200 {
		t.Errorf("the 1 %% failure rule: knee %v after %v, safe %v; want 300 after 200, safe 200", a.Knee, a.LastServed, a.Safe.Offered)
	}
	none := AnswerLoad([]*PointStats{loadPoint(100, 100, 0.01), loadPoint(200, 200, 0.01)}, "total.", "", LoadContext{Today: 100})
	if none.KneeFound || none.Headroom != 2 || none.LatencyFound || !strings.Contains(strings.Join(none.Sentences(), " "), "Safe to at least 2.00× today's load (200/s)") {
		t.Errorf("no knee: %+v %q", none, none.Sentences())
	}
	low := AnswerLoad([]*PointStats{loadPoint(100, 50, math.NaN()), loadPoint(200, 60, 0.01)}, "total.", "", LoadContext{})
	if !low.KneeFound || low.LastServed != 0 || !strings.Contains(low.Sentences()[0], "No load swept is safe") {
		t.Errorf("knee at the lowest load: %+v %q", low, low.Sentences())
	}
}

// TestAnswerSentences pins the answers in words on the sweep the README quotes (healthy, the
// rate 500…3000/s against a 1000/s limiter, today 500/s): the safe load leads, with what breaks
// past it, then the two brackets and the sweep that narrows the wide one.
func TestAnswerSentences(t *testing.T) {
	var pts []*PointStats
	for _, r := range []struct {
		rate                          string
		offered, goodput, failed, p99 float64
	}{
		{"500/s", 500, 502, 0, 0.0242}, {"1000/s", 1001, 1001, 0, 0.0246}, {"1500/s", 1499, 1002, 497, 1.949},
		{"2000/s", 2000, 1000, 1000, 1.868},
	} {
		p := failPoint(r.offered, r.goodput, r.failed, r.p99)
		p.Params = []results.Param{{Path: "clients[0].workload.rate", Value: r.rate}}
		pts = append(pts, p)
	}
	a := AnswerLoad(pts, "total.", "clients[0].workload.rate", LoadContext{Today: 500})
	want := []string{
		"Safe to 2.00× today's load (1001/s): beyond it, at 1499/s, p99 jumps from 24.6ms to 1.95s, goodput falls 33 % short of offered and failures begin (33 % of operations).",
		"The knee is between 1001/s (2.00×, served in full: goodput within 5 % of offered, at most 1 % failed) and 1499/s (3.00×, not served in full).",
		"Latency gives out at 1499/s (3.00×, p99 latency above 2 × its 24.2ms at the lowest load).",
		"To narrow the knee, sweep --vary 'clients[0].workload.rate=1000/s:1500/s:50/s'.",
	}
	if got := a.Sentences(); !slices.Equal(got, want) {
		t.Errorf("sentences:\n got %q\nwant %q", got, want)
	}
	// A bracket within RefineWidth is answer enough: no narrowing sweep.
	pts[2].Metrics[0].Mean, pts[2].Params[0].Value = 1050, "1050/s"
	if a := AnswerLoad(pts, "total.", "clients[0].workload.rate", LoadContext{Today: 500}); a.Refine != "" {
		t.Errorf("bracket 1001…1050/s (4.9 %%): refine %q, want none", a.Refine)
	}
}

// TestRefineStep pins the narrowing sweep's step: the bracket in RefineSteps steps, rounded down
// to 1, 2 or 5 times a power of ten.
func TestRefineStep(t *testing.T) {
	for _, tc := range []struct{ lo, hi, want string }{
		{"1000/s", "1500/s", "r=1000/s:1500/s:50/s"},
		{"1000/s", "1250/s", "r=1000/s:1250/s:20/s"},
		{"4000/s", "4300/s", "r=4000/s:4300/s:20/s"},
		{"100/s", "200/s", "r=100/s:200/s:10/s"},
		{"2000/s", "3000/s", "r=2000/s:3000/s:100/s"},
		{"1/s", "1.5/s", "r=1/s:1.5/s:0.05/s"},
		{"fast", "1500/s", ""},
		{"1500/s", "1000/s", ""},
	} {
		if got := refine("r", tc.lo, tc.hi); got != tc.want {
			t.Errorf("refine(%s, %s) = %q, want %q", tc.lo, tc.hi, got, tc.want)
		}
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
	if len(as) != 2 || as[0].Line != "none" || as[1].Line != "mongodb-2026-03" || as[0].Knee != 1500 || as[0].Headroom != 2 {
		t.Errorf("policy × load: %+v", as)
	}
	for i := range pts {
		pts[i].Params = pts[i].Params[:1]
	}
	if as := SweepAnswers(pts, LoadContext{Today: 500}); as != nil {
		t.Errorf("a sweep of policies alone has load answers: %+v", as)
	}
}
