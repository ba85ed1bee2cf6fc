package results

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestParseTuneParam(t *testing.T) {
	good := []struct {
		gloss, spec string
		want        TuneParam
		grid        []float64
	}{
		{"plain, default levels", "clients[0].driver.maxAdaptiveRetries=0:4",
			TuneParam{Path: "clients[0].driver.maxAdaptiveRetries", Range: "0:4", Lo: 0, Hi: 4, Levels: 5},
			[]float64{0, 1, 2, 3, 4}},
		{"steps", "faults[0].speed=0:1:3", TuneParam{Path: "faults[0].speed", Range: "0:1:3", Lo: 0, Hi: 1, Levels: 3},
			[]float64{0, 0.5, 1}},
		{"log", "clients[0].driver.retryTokenCapacity=1:10000:log",
			TuneParam{Path: "clients[0].driver.retryTokenCapacity", Range: "1:10000:log", Lo: 1, Hi: 10000, Levels: 5, Log: true},
			[]float64{1, 10, 100, 1000, 10000}},
		{"steps and log", "x=1:100:3:log", TuneParam{Path: "x", Range: "1:100:3:log", Lo: 1, Hi: 100, Levels: 3, Log: true},
			[]float64{1, 10, 100}},
		{"durations, in seconds", "faults[0].for=1s:3s:3", TuneParam{Path: "faults[0].for", Range: "1s:3s:3", Unit: "s", Lo: 1, Hi: 3, Levels: 3},
			[]float64{1, 2, 3}},
		{"rates", "clients[0].workload.rate=500/s:1500/s:3", TuneParam{Path: "clients[0].workload.rate", Range: "500/s:1500/s:3", Unit: "/s", Lo: 500, Hi: 1500, Levels: 3},
			[]float64{500, 1000, 1500}},
		{"spaces trimmed", " x = 0 : 1 : 2 ", TuneParam{Path: "x", Range: "0 : 1 : 2", Lo: 0, Hi: 1, Levels: 2}, []float64{0, 1}},
		{"four significant digits", "x=0:1:4", TuneParam{Path: "x", Range: "0:1:4", Lo: 0, Hi: 1, Levels: 4}, []float64{0, 0.3333, 0.6667, 1}},
	}
	for _, tc := range good {
		got, err := ParseTuneParam(tc.spec)
		if err != nil {
			t.Errorf("%s: ParseTuneParam(%q) = %v, want no error", tc.gloss, tc.spec, err)
			continue
		}
		if got != tc.want {
			t.Errorf("%s: ParseTuneParam(%q) = %+v, want %+v", tc.gloss, tc.spec, got, tc.want)
		}
	}
	bad := []struct{ gloss, spec, want string }{
		{"no =", "clients[0].driver.maxAdaptiveRetries", "want PATH=LO:HI[:STEPS|log]"},
		{"no path", "=0:4", "want PATH=LO:HI"},
		{"one end", "x=4", "want PATH=LO:HI"},
		{"too many parts", "x=0:1:2:log:3", "want PATH=LO:HI"},
		{"LO above HI", "x=4:0", "LO 4 is not below HI 0: want LO < HI"},
		{"LO equal to HI", "x=2:2", "want LO < HI"},
		{"LO not a number", "x=a:4", `LO "a" is not a number`},
		{"HI not a number", "x=0:many", `HI "many" is not a number`},
		{"NaN", "x=NaN:4", `LO "NaN" is not a number`},
		{"kinds differ", "x=1s:4", "of different kinds"},
		{"one step", "x=0:4:1", `STEPS "1": want a whole number ≥ 2`},
		{"steps not whole", "x=0:4:2.5", `STEPS "2.5"`},
		{"log from zero", "x=0:4:log", "log spacing needs LO > 0, got LO 0"},
		{"log from below zero", "x=-1:4:3:log", "log spacing needs LO > 0"},
	}
	for _, tc := range bad {
		_, err := ParseTuneParam(tc.spec)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: ParseTuneParam(%q) = %v, want an error containing %q", tc.gloss, tc.spec, err, tc.want)
		}
	}
}

func TestTuneParamText(t *testing.T) {
	tests := []struct {
		gloss string
		p     TuneParam
		x     float64
		want  string
	}{
		{"an integer field rounds", TuneParam{Integer: true}, 2.5, "3"},
		{"a plain number", TuneParam{}, 0.3333, "0.3333"},
		{"a large number, no exponent", TuneParam{}, 1e6, "1000000"},
		{"a duration", TuneParam{Unit: "s"}, 0.25, "250ms"},
		{"a rate", TuneParam{Unit: "/s"}, 1500, "1500/s"},
	}
	for _, tc := range tests {
		if got := tc.p.Text(tc.x); got != tc.want {
			t.Errorf("%s: Text(%v) = %q, want %q", tc.gloss, tc.x, got, tc.want)
		}
	}
}

func TestParseTuneConstraint(t *testing.T) {
	w0, w1 := 5*time.Second, 25*time.Second
	good := []struct {
		gloss, s string
		want     TuneConstraint
		text     string // String()
	}{
		{"at most", "total.amplification<=1.05", TuneConstraint{Metric: "total.amplification", From: w0, To: w1, Op: "<=", Bound: 1.05},
			"total.amplification over 5s–25s ≤ 1.05"},
		{"at least a rate", "total.goodput >= 900/s", TuneConstraint{Metric: "total.goodput", From: w0, To: w1, Op: ">=", Bound: 900},
			"total.goodput over 5s–25s ≥ 900/s"},
		{"below a duration", "group.a.latency_ok_p99<200ms", TuneConstraint{Metric: "group.a.latency_ok_p99", From: w0, To: w1, Op: "<", Bound: 0.2},
			"group.a.latency_ok_p99 over 5s–25s < 200ms"},
		{"above, plain seconds", "group.a.latency_ok_p50>0.001", TuneConstraint{Metric: "group.a.latency_ok_p50", From: w0, To: w1, Op: ">", Bound: 0.001},
			"group.a.latency_ok_p50 over 5s–25s > 1ms"},
		{"a window of its own", "group.a.amplification@10s:30s<=1.5", TuneConstraint{Metric: "group.a.amplification", From: 10 * time.Second, To: 30 * time.Second, Op: "<=", Bound: 1.5},
			"group.a.amplification over 10s–30s ≤ 1.5"},
		{"a trigger's outcome, never windowed", "fault.cut.stuck<=0.1", TuneConstraint{Metric: "fault.cut.stuck", Op: "<=", Bound: 0.1},
			"fault.cut.stuck ≤ 0.1"},
	}
	for _, tc := range good {
		got, err := ParseTuneConstraint(tc.s, w0, w1)
		if err != nil {
			t.Errorf("%s: ParseTuneConstraint(%q) = %v", tc.gloss, tc.s, err)
			continue
		}
		tc.want.Text = strings.TrimSpace(tc.s)
		if got != tc.want {
			t.Errorf("%s: ParseTuneConstraint(%q) = %+v, want %+v", tc.gloss, tc.s, got, tc.want)
		}
		if got.String() != tc.text {
			t.Errorf("%s: String() = %q, want %q", tc.gloss, got.String(), tc.text)
		}
	}
	bad := []struct{ gloss, s, want string }{
		{"no comparison", "total.goodput", "no comparison"},
		{"equality", "total.goodput==3", `comparison "=="`},
		{"two comparisons", "1<total.goodput<3", "more than one comparison"},
		{"no bound", "total.goodput>=", "no bound"},
		{"no metric", "<=3", "no metric"},
		{"a bound that is not a number", "total.goodput>=lots", `bound "lots" is not a number`},
		{"a duration on a rate", "total.goodput>=200ms", `bound "200ms" is a duration, but total.goodput is not a latency`},
		{"a rate on a latency", "total.latency_ok_p99<=900/s", "is a rate, but total.latency_ok_p99 is not a rate"},
		{"a bad window", "total.goodput@30s:10s>=1", "want 0s ≤ FROM < TO"},
		{"a window on a trigger", "fault.cut.stuck@1s:2s<=0.5", "a trigger's outcome has no window"},
	}
	for _, tc := range bad {
		_, err := ParseTuneConstraint(tc.s, 0, 0)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: ParseTuneConstraint(%q) = %v, want an error containing %q", tc.gloss, tc.s, err, tc.want)
		}
	}
}

func TestConstraintHolds(t *testing.T) {
	tests := []struct {
		op   string
		x    float64
		want bool
	}{
		{"<=", 1, true}, {"<=", 1.0001, false},
		{"<", 1, false}, {"<", 0.999, true},
		{">=", 1, true}, {">=", 0.999, false},
		{">", 1, false}, {">", 1.001, true},
		{"<=", math.NaN(), false}, {">=", math.NaN(), false},
	}
	for _, tc := range tests {
		c := TuneConstraint{Metric: "total.amplification", Op: tc.op, Bound: 1}
		if got := c.Holds(tc.x); got != tc.want {
			t.Errorf("%s 1 Holds(%v) = %v, want %v", tc.op, tc.x, got, tc.want)
		}
	}
}

func TestParseTuneWindow(t *testing.T) {
	if f, to, err := ParseTuneWindow("10s:30s"); err != nil || f != 10*time.Second || to != 30*time.Second {
		t.Errorf("ParseTuneWindow(10s:30s) = %v, %v, %v", f, to, err)
	}
	for _, s := range []string{"10s", "30s:10s", "10s:10s", "-1s:2s", "a:b"} {
		if _, _, err := ParseTuneWindow(s); err == nil {
			t.Errorf("ParseTuneWindow(%q) = nil, want an error", s)
		}
	}
}

func TestFormatMetric(t *testing.T) {
	tests := []struct {
		metric string
		x      float64
		want   string
	}{
		{"total.latency_ok_p99", 0.21341, "213.4ms"},
		{"fault.cut.recovery_time", 12.3456, "12.35s"},
		{"total.goodput", 998.25, "998.2/s"},
		{"total.amplification", 1.20512, "1.205"},
		{"total.amplification", math.NaN(), "no value"},
	}
	for _, tc := range tests {
		if got := FormatMetric(tc.metric, tc.x); got != tc.want {
			t.Errorf("FormatMetric(%s, %v) = %q, want %q", tc.metric, tc.x, got, tc.want)
		}
	}
	if got := FormatMetricCI("total.goodput", MetricStats{Mean: 998.25, CI95: 3.14159}); got != "998.2/s ± 3.1/s" {
		t.Errorf("FormatMetricCI = %q", got)
	}
}
