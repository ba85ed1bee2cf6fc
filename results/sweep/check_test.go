package sweep

import (
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/results"
)

// checkPoint builds a point with the given metric means and half-widths.
func checkPoint(key string, ms ...results.MetricStats) PointStats {
	p := PointStats{Replications: 5, Metrics: ms}
	if key != "" {
		path, value, _ := strings.Cut(key, "=")
		p.Params = []results.Param{{Path: path, Value: value}}
	}
	return p
}

func ms(name string, mean, half float64) results.MetricStats {
	return results.MetricStats{Name: name, Mean: mean, CI95: half, N: 5}
}

// TestCheck: goodput below the baseline band (less tolerance), amplification or success p99
// above it, and missing points are regressions; an equal result and moves in the good
// direction are not.
func TestCheck(t *testing.T) {
	tol := Tolerance{"goodput": 0.05, "amplification": 0.05, "latency_ok_p99": 0.10}
	base := NewBaseline(results.Header{Scenario: "s"}, []PointStats{
		checkPoint("rate=300",
			ms("total.goodput", 1000, 50), ms("group.app.goodput", 1000, 50),
			ms("total.amplification", 1.2, 0.1), ms("total.latency_ok_p99", 0.1, 0.01),
			ms("total.failures", 10, 1)),
	})
	// Limits: goodput (1000 − 50)·0.95 = 902.5; amplification (1.2 + 0.1)·1.05 = 1.365;
	// p99 (0.1 + 0.01)·1.1 = 0.121.
	tests := []struct {
		name string
		got  []PointStats
		want []string // "metric" of each regression, in order
	}{
		{"equal to the baseline passes",
			base.Points, nil},
		{"inside the tolerance passes",
			[]PointStats{checkPoint("rate=300", ms("total.goodput", 903, 0), ms("group.app.goodput", 903, 0),
				ms("total.amplification", 1.36, 0), ms("total.latency_ok_p99", 0.12, 0), ms("total.failures", 99, 0))}, nil},
		{"better in every direction passes",
			[]PointStats{checkPoint("rate=300", ms("total.goodput", 2000, 0), ms("group.app.goodput", 2000, 0),
				ms("total.amplification", 1, 0), ms("total.latency_ok_p99", 0.01, 0), ms("total.failures", 0, 0))}, nil},
		{"goodput drop below the band",
			[]PointStats{checkPoint("rate=300", ms("total.goodput", 900, 0), ms("group.app.goodput", 1000, 0),
				ms("total.amplification", 1.2, 0), ms("total.latency_ok_p99", 0.1, 0))}, []string{"total.goodput"}},
		{"amplification and p99 rise",
			[]PointStats{checkPoint("rate=300", ms("total.goodput", 1000, 0), ms("group.app.goodput", 1000, 0),
				ms("total.amplification", 1.4, 0), ms("total.latency_ok_p99", 0.13, 0))}, []string{"total.amplification", "total.latency_ok_p99"}},
		{"a missing goodput metric",
			[]PointStats{checkPoint("rate=300", ms("total.goodput", 1000, 0),
				ms("total.amplification", 1.2, 0), ms("total.latency_ok_p99", 0.1, 0))}, []string{"group.app.goodput"}},
		{"a missing point",
			[]PointStats{checkPoint("rate=600", ms("total.goodput", 1000, 0))}, []string{""}},
	}
	for _, tc := range tests {
		var got []string
		for _, r := range Check(base, tc.got, tol) {
			got = append(got, r.Metric)
			if r.String() == "" {
				t.Errorf("%s: empty description", tc.name)
			}
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: Check reported %q, want %q", tc.name, got, tc.want)
		}
	}
	r := Check(base, tests[3].got, tol)[0]
	if r.Point != "rate=300" || r.Baseline != 1000 || r.Got != 900 || math.Abs(r.Limit-902.5) > 1e-9 {
		t.Errorf("goodput regression = %+v, want point rate=300, baseline 1000, got 900, limit 902.5", r)
	}
	if want := "rate=300: total.goodput = 900/s, below the limit 902.5/s (baseline 1000/s, -10 %)"; r.String() != want {
		t.Errorf("String() = %q, want %q", r.String(), want)
	}
}

// TestCheckSingleRun: a run is a sweep of one point with one replication; with a baseline of
// one replication the band is the baseline value itself, widened by the tolerance.
func TestCheckSingleRun(t *testing.T) {
	sum := results.Summarize(goodputSeries(repeat(100, 20)), 0)
	base := NewBaseline(results.Header{}, SinglePoint(sum))
	if regs := Check(base, SinglePoint(sum), DefaultTolerance()); len(regs) != 0 {
		t.Errorf("an identical run regressed: %v", regs)
	}
	worse := results.Summarize(goodputSeries(repeat(90, 20)), 0)
	regs := Check(base, SinglePoint(worse), DefaultTolerance())
	if len(regs) != 2 || regs[0].Metric != "total.goodput" || regs[1].Metric != "group.app.goodput" || regs[0].Point != "" {
		t.Errorf("10 %% less goodput: Check = %v, want total.goodput and group.app.goodput", regs)
	}
}

// TestBaselineFile: a baseline written and loaded compares equal to itself; a sweep.json loads
// as a baseline.
func TestBaselineFile(t *testing.T) {
	dir := t.TempDir()
	pts := Aggregate(fixturePoints())
	path := filepath.Join(dir, "baseline.json")
	if err := WriteBaseline(path, NewBaseline(fixtureHeader(), pts)); err != nil {
		t.Fatal(err)
	}
	b, err := LoadBaseline(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Points) != 2 || b.Header.Seed != 7 {
		t.Fatalf("LoadBaseline: %d points, seed %d", len(b.Points), b.Header.Seed)
	}
	if regs := Check(b, pts, Tolerance{}); len(regs) != 0 {
		t.Errorf("a baseline regressed against its own points: %v", regs)
	}
	// Into a folder of its own: one holding the baseline, which no result lists, is refused.
	sweep := filepath.Join(dir, "sweep")
	if err := WriteSweepDir(sweep, fixtureHeader(), pts, "", nil); err != nil {
		t.Fatal(err)
	}
	read, err := ReadPoints(sweep)
	if err != nil {
		t.Fatal(err)
	}
	if regs := Check(b, read, Tolerance{}); len(regs) != 0 {
		t.Errorf("the sweep folder regressed against its baseline: %v", regs)
	}
}

// TestRegressionWords pins a regression's line as CI shows it: the value, the limit and the
// baseline in the metric's unit (seconds as milliseconds for a sub-second baseline), and the
// change from the baseline.
func TestRegressionWords(t *testing.T) {
	for _, tc := range []struct {
		r    Regression
		want string
	}{
		{Regression{Metric: "total.latency_ok_p99", Baseline: 0.0112, Got: 0.0216, Limit: 0.01232},
			"run: total.latency_ok_p99 = 21.6 ms, above the limit 12.32 ms (baseline 11.2 ms, +93 %)"},
		{Regression{Point: "rate=300/s", Metric: "group.app.amplification", Baseline: 1, Got: 1.04, Limit: 1.03},
			"rate=300/s: group.app.amplification = 1.04, above the limit 1.03 (baseline 1, +4 %)"},
		{Regression{Metric: "total.latency_ok_p99", Baseline: 2.5, Got: 3, Limit: 2.75},
			"run: total.latency_ok_p99 = 3 s, above the limit 2.75 s (baseline 2.5 s, +20 %)"},
		{Regression{Metric: "total.goodput", Baseline: 1000, Got: math.NaN(), Limit: 950, Missing: true}, "run: total.goodput missing (baseline 1000/s)"},
		{Regression{Metric: "fault.cut.recovery_time", Baseline: 2, Got: math.NaN(), Limit: 3.2}, "run: fault.cut.recovery_time has no value (baseline 2 s)"},
		{Regression{Metric: "fault.cut.recovery_time", Baseline: 0, Got: 2, Limit: 1}, "run: fault.cut.recovery_time = 2 s, above the limit 1 s (baseline 0 s)"},
		{Regression{Metric: "total.failure_share", Baseline: 0.0071, Band: 0, Got: 0.035, Limit: 0.0121},
			"run: total.failure_share = 3.5 %, above the limit 1.21 % (baseline 0.71 %, +2.8 points)"},
		{Regression{Point: "rate=300/s", Metric: "fault.cut.stuck", Baseline: 0, Got: 0.2, Limit: 0, N: 10, BaselineN: 10},
			"rate=300/s: fault.cut.stuck: 2 of 10 runs stuck, where the baseline had none (0 of 10)"},
		{Regression{Point: "rate=300/s", Metric: "fault.cut.stuck", Baseline: 0.1, Got: 0.6, Limit: 0.404, N: 10, BaselineN: 10},
			"rate=300/s: fault.cut.stuck: 6 of 10 runs stuck (60 %), above the limit 40.4 %, the top of the baseline's 95 % interval (baseline 1 of 10, 10 %)"},
		{Regression{Point: "rate=300/s", Baseline: math.NaN(), Got: math.NaN(), Limit: math.NaN()}, "rate=300/s: point missing"},
	} {
		if got := tc.r.String(); got != tc.want {
			t.Errorf("%+v:\n got %q\nwant %q", tc.r, got, tc.want)
		}
	}
}

// TestCheckGates: each gate rule of the catalogue (results.Gate, docs/metrics.md §16) flags what
// it must and lets pass what it must, from values that the band gates alone let through:
//
//   - share: failures ÷ offered, per group and in total, above the baseline's share at the top
//     of its band plus the absolute allowance, while goodput stays within its band;
//   - no-new-stuck: a stuck run where the baseline had none; for a sweep, a share above the
//     upper end of the baseline's 95 % Wilson interval;
//   - recovery time: above (mean + ci95)·(1 + tol) + one interval; no recovery where the
//     baseline recovered.
func TestCheckGates(t *testing.T) {
	tol := DefaultTolerance()
	// The band gates' metrics, equal on both sides, so that only the gate under test can flag.
	steady := []results.MetricStats{ms("total.goodput", 1000, 0), ms("total.amplification", 1.1, 0), ms("total.latency_ok_p99", 0.1, 0)}
	point := func(n int, extra ...results.MetricStats) []PointStats {
		p := checkPoint("", append(slices.Clone(steady), extra...)...)
		p.Replications = n
		for i := range p.Metrics {
			p.Metrics[i].N = n
		}
		return []PointStats{p}
	}
	base := func(n int, extra ...results.MetricStats) Baseline {
		b := NewBaseline(results.Header{Scenario: "s", Interval: time.Second}, point(n, extra...))
		return b
	}
	tests := []struct {
		name string
		base Baseline
		got  []PointStats
		want []string // the gated values that regressed, in order
	}{
		// Failure share: baseline 10 failed of 1000 offered = 1 %, limit 1 % + 0.5 points.
		{"failure share 1.6 %, goodput within its band",
			base(1, ms("total.offered", 1000, 0), ms("total.failures", 10, 0)),
			point(1, ms("total.offered", 1000, 0), ms("total.failures", 16, 0)), []string{"total.failure_share"}},
		{"failure share 1.5 %, at the allowance",
			base(1, ms("total.offered", 1000, 0), ms("total.failures", 10, 0)),
			point(1, ms("total.offered", 1000, 0), ms("total.failures", 15, 0)), nil},
		{"more failures at a higher load, the same share",
			base(1, ms("total.offered", 1000, 0), ms("total.failures", 10, 0)),
			point(1, ms("total.offered", 2000, 0), ms("total.failures", 20, 0)), nil},
		{"a band on the failures widens the limit: (10 + 5) ÷ 1000 + 0.5 points",
			base(5, ms("total.offered", 1000, 0), ms("total.failures", 10, 5)),
			point(5, ms("total.offered", 1000, 0), ms("total.failures", 19, 0)), nil},
		{"a group's share, with the total's within",
			base(1, ms("total.offered", 1000, 0), ms("total.failures", 10, 0), ms("group.web.offered", 100, 0), ms("group.web.failures", 0, 0)),
			point(1, ms("total.offered", 1000, 0), ms("total.failures", 12, 0), ms("group.web.offered", 100, 0), ms("group.web.failures", 2, 0)),
			[]string{"group.web.failure_share"}},
		{"a baseline that offered nothing has no share",
			base(1, ms("total.offered", 0, 0), ms("total.failures", 0, 0)),
			point(1, ms("total.offered", 10, 0), ms("total.failures", 10, 0)), nil},
		{"failures without offered load in the result",
			base(1, ms("total.offered", 1000, 0), ms("total.failures", 10, 0)),
			point(1, ms("total.failures", 10, 0)), []string{"total.failure_share"}},
		// No new stuck.
		{"a stuck run where the baseline's was not",
			base(1, ms("fault.cut.stuck", 0, 0)), point(1, ms("fault.cut.stuck", 1, 0)), []string{"fault.cut.stuck"}},
		{"stuck as the baseline was",
			base(1, ms("fault.cut.stuck", 1, 0)), point(1, ms("fault.cut.stuck", 1, 0)), nil},
		{"one stuck run of ten where the baseline had none of ten",
			base(10, ms("fault.cut.stuck", 0, 0)), point(10, ms("fault.cut.stuck", 0.1, 0)), []string{"fault.cut.stuck"}},
		{"four of ten within the Wilson interval of one of ten (upper end 40.4 %)",
			base(10, ms("fault.cut.stuck", 0.1, 0)), point(10, ms("fault.cut.stuck", 0.4, 0)), nil},
		{"five of ten above it",
			base(10, ms("fault.cut.stuck", 0.1, 0)), point(10, ms("fault.cut.stuck", 0.5, 0)), []string{"fault.cut.stuck"}},
		{"no stuck verdict where the baseline had one",
			base(1, ms("fault.cut.stuck", 0, 0)), point(1, ms("fault.cut.stuck", math.NaN(), 0)), []string{"fault.cut.stuck"}},
		// Recovery time: baseline 2 s, limit 2·1.1 + 1 = 3.2 s.
		{"recovery in 4 s against 2 s",
			base(1, ms("fault.cut.recovery_time", 2, 0)), point(1, ms("fault.cut.recovery_time", 4, 0)), []string{"fault.cut.recovery_time"}},
		{"recovery in 3 s, one interval later",
			base(1, ms("fault.cut.recovery_time", 2, 0)), point(1, ms("fault.cut.recovery_time", 3, 0)), nil},
		{"recovery in 1 s against 0 s",
			base(1, ms("fault.cut.recovery_time", 0, 0)), point(1, ms("fault.cut.recovery_time", 1, 0)), nil},
		{"recovery in 2 s against 0 s",
			base(1, ms("fault.cut.recovery_time", 0, 0)), point(1, ms("fault.cut.recovery_time", 2, 0)), []string{"fault.cut.recovery_time"}},
		{"no recovery where the baseline recovered",
			base(1, ms("fault.cut.recovery_time", 2, 0)), point(1, ms("fault.cut.recovery_time", math.NaN(), 0)), []string{"fault.cut.recovery_time"}},
		{"no recovery in the baseline either: not gated",
			base(1, ms("fault.cut.recovery_time", math.NaN(), 0)), point(1, ms("fault.cut.recovery_time", math.NaN(), 0)), nil},
	}
	for _, tc := range tests {
		var got []string
		for _, r := range Check(tc.base, tc.got, tol) {
			got = append(got, r.Metric)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: Check reported %q, want %q", tc.name, got, tc.want)
		}
		if regs := Check(tc.base, tc.base.Points, tol); len(regs) != 0 {
			t.Errorf("%s: the baseline regressed against itself: %v", tc.name, regs)
		}
	}
	// The failure share's numbers, as check says them.
	r := Check(tests[0].base, tests[0].got, tol)[0]
	if r.Baseline != 0.01 || r.Got != 0.016 || math.Abs(r.Limit-0.015) > 1e-12 {
		t.Errorf("failure share regression %+v, want baseline 0.01, got 0.016, limit 0.015", r)
	}
	if want := "run: total.failure_share = 1.6 %, above the limit 1.5 % (baseline 1 %, +0.6 points)"; r.String() != want {
		t.Errorf("String() = %q, want %q", r.String(), want)
	}
}

// TestUngated: a baseline written before the failure-share, stuck and recovery-time gates (no
// offered load or failures, no fault metrics) still checks what it has; the values it cannot
// gate are listed once, each by its full name.
func TestUngated(t *testing.T) {
	old := NewBaseline(results.Header{Scenario: "s"}, []PointStats{
		checkPoint("rate=1", ms("total.goodput", 1000, 0), ms("total.latency_ok_p99", 0.1, 0)),
		checkPoint("rate=2", ms("total.goodput", 1000, 0), ms("total.latency_ok_p99", 0.1, 0)),
	})
	now := func(key string) PointStats {
		return checkPoint(key, ms("total.goodput", 1000, 0), ms("total.latency_ok_p99", 0.1, 0), ms("total.offered", 1000, 0),
			ms("total.failures", 500, 0), ms("fault.cut.stuck", 1, 0), ms("fault.cut.recovery_time", math.NaN(), 0), ms("fault.cut.recovered", 0, 0))
	}
	got := []PointStats{now("rate=1"), now("rate=2"), now("rate=3")}
	if regs := Check(old, got, DefaultTolerance()); len(regs) != 0 {
		t.Errorf("an old baseline flagged what it has no value of: %v", regs)
	}
	if u, want := Ungated(old, got), []string{"total.failure_share", "fault.cut.stuck"}; !reflect.DeepEqual(u, want) {
		t.Errorf("Ungated = %q, want %q (once each; a value without a value is no gate's)", u, want)
	}
	if u := Ungated(NewBaseline(results.Header{}, got), got); u != nil {
		t.Errorf("Ungated of a baseline with every gated value = %q, want none", u)
	}
	notes := UngatedNote(Ungated(old, got))
	if len(notes) != 1 || !strings.Contains(notes[0].String(), "not gated") || !strings.HasSuffix(notes[0].Text, "total.failure_share, fault.cut.stuck") {
		t.Errorf("UngatedNote = %+v", notes)
	}
}
