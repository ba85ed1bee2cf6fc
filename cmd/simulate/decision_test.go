package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/sweep"
)

// TestPrintAnswersMerged checks that the sweep's answers print one block naming every line whose
// answers coincide (sweep.MergeAnswers, docs/metrics.md §17), its sentences once.
func TestPrintAnswersMerged(t *testing.T) {
	pt := func(offered, goodput float64) *sweep.PointStats {
		return &sweep.PointStats{Replications: 3, Metrics: []results.MetricStats{
			{Name: "total.offered", Mean: offered, N: 3}, {Name: "total.goodput", Mean: goodput, N: 3},
			{Name: "total.failures", Mean: 0, N: 3}, {Name: "total.latency_ok_p99", Mean: 0.01, N: 3}}}
	}
	ctx := sweep.LoadContext{Today: 500}
	var answers []sweep.LoadAnswers
	for _, name := range []string{"mongodb-2026-03", "mongodb-2026-07"} {
		a := sweep.AnswerLoad([]*sweep.PointStats{pt(500, 500), pt(1000, 1000), pt(1500, 1000)}, "total.", "", ctx)
		a.Line = name
		answers = append(answers, a)
	}
	var b bytes.Buffer
	printAnswers(&b, answers, ctx)
	out := b.String()
	if !strings.Contains(out, "mongodb-2026-03 and mongodb-2026-07 (the same answer):\n") {
		t.Errorf("no merged block naming both lines:\n%s", out)
	}
	for _, s := range answers[0].Sentences() {
		if n := strings.Count(out, s); n != 1 {
			t.Errorf("sentence %q printed %d times, want once:\n%s", s, n, out)
		}
	}
	// Lines whose values are YAML maps are named by what differs between them, as the figures
	// name them (chart.ValueNames), not by the maps.
	answers[0].Line, answers[1].Line = "{retryPolicy: mongodb-2026-03, adaptiveRetries: true}", "{retryPolicy: mongodb-2026-07, adaptiveRetries: true}"
	b.Reset()
	printAnswers(&b, answers, ctx)
	if out := b.String(); !strings.Contains(out, "mongodb-2026-03 and mongodb-2026-07 (the same answer):\n") || strings.Contains(out, "{") {
		t.Errorf("lines of YAML maps not named by what differs:\n%s", out)
	}
}

// TestWriteDecision checks that a policy decision prints what varies, its table with the failure
// share and the p99 of all operations, and its sentences.
func TestWriteDecision(t *testing.T) {
	var pts []sweep.PointStats
	for i, pol := range []string{"mongodb-legacy", "mongodb-2026-07"} {
		p := sweep.PointStats{Params: []results.Param{{Path: "clients[0].driver.retryPolicy", Value: pol}}, Replications: 3}
		for name, v := range map[string]float64{"offered": 100, "goodput": 50 + 40*float64(i), "failures": 50 - 40*float64(i),
			"amplification": 1 + float64(i), "latency_ok_p99": 0.1, "latency_all_p99": 0.2} {
			p.Metrics = append(p.Metrics, results.MetricStats{Name: "total." + name, Mean: v, CI95: 0.01 * v, N: 3},
				results.MetricStats{Name: "group.web." + name, Mean: v, CI95: 0.01 * v, N: 3})
		}
		pts = append(pts, p)
	}
	var b bytes.Buffer
	printDecision(&b, pts, &sweep.LoadContext{Today: 100, Groups: []string{"web"}})
	out := b.String()
	for _, want := range []string{"Policy decision: clients[0].driver.retryPolicy varies (client group web",
		"p99 all", "50.0 ± 0.5 %", "mongodb-2026-07 fails 10 % of web's operations against 50 % for mongodb-legacy"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
