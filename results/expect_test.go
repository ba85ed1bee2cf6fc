package results

import (
	"math"
	"strings"
	"testing"
	"time"
)

func f64(x float64) *float64 { return &x }

// TestExpectationCheck: each bound, at and around its edge.
func TestExpectationCheck(t *testing.T) {
	for _, tc := range []struct {
		e         Expectation
		value, of float64
		want      bool
	}{
		{Expectation{Below: f64(1.5)}, 1.49, 0, true},
		{Expectation{Below: f64(1.5)}, 1.5, 0, false}, // strict
		{Expectation{AtMost: f64(1.5)}, 1.5, 0, true},
		{Expectation{AtMost: f64(1.5)}, 1.51, 0, false},
		{Expectation{Above: f64(3)}, 3, 0, false}, // strict
		{Expectation{Above: f64(3)}, 3.01, 0, true},
		{Expectation{AtLeast: f64(3)}, 3, 0, true},
		{Expectation{AtLeast: f64(3)}, 2.99, 0, false},
		{Expectation{Between: []float64{0.25, 0.75}}, 0.25, 0, true},
		{Expectation{Between: []float64{0.25, 0.75}}, 0.75, 0, true},
		{Expectation{Between: []float64{0.25, 0.75}}, 0.76, 0, false},
		{Expectation{Within: f64(0.02), Of: f64(1000)}, 1020, 0, true},
		{Expectation{Within: f64(0.02), Of: f64(1000)}, 979, 0, false},
		{Expectation{Within: f64(0.02), OfMetric: "total.offered"}, 990, 1000, true},
		{Expectation{Within: f64(0.02), OfMetric: "total.offered"}, 990, math.NaN(), false},
		{Expectation{AtLeast: f64(0)}, math.NaN(), 0, false},                         // no value meets no bound
		{Expectation{Below: f64(0.005), OfMetric: "total.offered"}, 4.9, 1000, true}, // relative: < 5
		{Expectation{Below: f64(0.005), OfMetric: "total.offered"}, 5, 1000, false},
		{Expectation{Above: f64(3), OfMetric: "group.m.amplification"}, 9.1, 3, true},
		{Expectation{AtMost: f64(2), Of: f64(10)}, 20, 0, true},
	} {
		if got := tc.e.Check(tc.value, tc.of); got != tc.want {
			t.Errorf("%s: Check(%v, %v) = %v, want %v", tc.e.String(), tc.value, tc.of, got, tc.want)
		}
	}
}

// TestMeasureWindow: a windowed expectation measures the metric over the intervals within its
// window, as the summary of that window would; a metric the run lacks measures NaN.
func TestMeasureWindow(t *testing.T) {
	s := fixtureSeries()
	sum := Summarize(s, time.Second)
	exps := []Expectation{
		{Metric: "group.a.goodput", AtLeast: f64(0)},
		{Metric: "group.a.goodput", From: time.Second, To: 2 * time.Second, AtLeast: f64(0)},
		{Metric: "total.amplification", From: 0, To: 3 * time.Second, Within: f64(0.1), OfMetric: "group.b.amplification"},
		{Metric: "group.nobody.goodput", AtLeast: f64(0)},
	}
	got := Measure(exps, &sum, s)
	if got[0].Value != sum.Groups[0].Goodput {
		t.Errorf("the run's window: %v, want the summary's %v", got[0].Value, sum.Groups[0].Goodput)
	}
	// The second interval alone: group a issued 200 and succeeded 180 in it (k = 2).
	if got[1].Value != 180 {
		t.Errorf("over 1s–2s: goodput %v, want 180", got[1].Value)
	}
	if got[2].Value != 1.5 || got[2].Of != 1.5 {
		t.Errorf("over 0s–3s: amplification %v of %v, want 1.5 of 1.5", got[2].Value, got[2].Of)
	}
	if !math.IsNaN(got[3].Value) {
		t.Errorf("a metric the run lacks measured %v", got[3].Value)
	}
}

// TestJudge: each replication must pass unless over is mean; at selects points; a verdict says
// which replications failed.
func TestJudge(t *testing.T) {
	exps := []Expectation{
		{Metric: "fault.surge.stuck", Over: "mean", Between: []float64{0.25, 0.75}},
		{Metric: "total.amplification", Below: f64(1.5)},
		{Metric: "total.amplification", Above: f64(3), At: []Param{{Path: "p", Value: "b"}}},
	}
	m := func(v float64) Measured { return Measured{Value: v, Of: math.NaN()} }
	reps := [][]Measured{{m(1), m(1.2), m(0)}, {m(0), m(1.7), m(0)}}
	vs := Judge(exps, []Param{{Path: "p", Value: "a"}}, reps)
	if len(vs) != 2 {
		t.Fatalf("%d verdicts at p=a, want 2 (the third applies at p=b): %v", len(vs), vs)
	}
	if !vs[0].Pass || vs[0].Value != 0.5 {
		t.Errorf("P(stuck) 1/2 in [0.25, 0.75]: %v", vs[0])
	}
	if vs[1].Pass || vs[1].Index != 1 || !strings.Contains(vs[1].Detail, "1 fail: 1.7") {
		t.Errorf("one replication of two above 1.5: %v", vs[1])
	}
	if got := vs[1].String(); got != "FAIL total.amplification < 1.5 at p=a: 1.45 (mean of 2 replications; 1 fail: 1.7)" {
		t.Errorf("verdict line %q", got)
	}
	if vs := Judge(exps, []Param{{Path: "p", Value: "b"}}, reps); len(vs) != 3 || vs[2].Pass {
		t.Errorf("at p=b: %v", vs)
	}
	if Failed(vs) != 1 {
		t.Errorf("Failed = %d, want 1", Failed(vs))
	}
}
