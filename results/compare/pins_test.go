package compare

import (
	"math"
	"strings"
	"testing"

	"github.com/overloadsim/overloadsim/internal/stats"
	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/sweep"
)

// Tests that pin rules of the comparison, each failing when its rule is broken
// (internal/mutate/mutants/answers.txt lists the mutants they kill).

// ansCompareRow compares two results of one point with one metric each and returns the second's
// value in the row.
func ansCompareRow(t *testing.T, ref, other results.MetricStats) Value {
	t.Helper()
	in := func(label string, m results.MetricStats) Input {
		m.Name = "total.goodput"
		return Input{Label: label, Kind: results.KindRun, Points: []sweep.PointStats{{Replications: m.N, Metrics: []results.MetricStats{m}}}}
	}
	c := Compare([]Input{in("ref", ref), in("other", other)})
	for _, r := range c.Rows {
		if r.Metric == "total.goodput" {
			return r.Values[1]
		}
	}
	t.Fatalf("Compare has no total.goodput row: %+v", c.Rows)
	return Value{}
}

// TestCompareDeltaRelSign pins that a relative delta is the difference ÷ |reference|: it has the
// sign of the difference, not of the reference (Value: "its difference from the
// reference's mean, absolute and relative"). Every metric the tool compares is ≥ 0 (rates,
// amplification, latencies, shares, a recovery time clamped at 0), where |reference| is the
// reference; Compare takes any values, and a negative reference must not flip the sign.
func TestCompareDeltaRelSign(t *testing.T) {
	for _, tc := range []struct {
		ref, other float64
		delta, rel float64
	}{
		{200, 210, 10, 0.05},
		{200, 190, -10, -0.05},
		{-200, -150, 50, 0.25},   // up from a negative reference: positive
		{-200, -250, -50, -0.25}, // down from it: negative
		{-100, 100, 200, 2},
	} {
		v := ansCompareRow(t, results.MetricStats{Mean: tc.ref, CI95: 1, N: 5}, results.MetricStats{Mean: tc.other, CI95: 1, N: 5})
		if v.Delta != tc.delta || v.DeltaRel != tc.rel {
			t.Errorf("Compare(%v vs reference %v) delta = %v, relative %v; want %v, %v (the sign of the difference)",
				tc.other, tc.ref, v.Delta, v.DeltaRel, tc.delta, tc.rel)
		}
	}
}

// TestCompareWelchOwnReplications pins that Welch's test takes each result's own replication
// count (Value.P: "Welch's t-test on the two means"; stats.WelchP recovers each side's
// standard deviation from its half-width and its own n). The fixture's counts differ (2 and
// 30), so giving either side the other's count changes the p-value, and here its significance.
func TestCompareWelchOwnReplications(t *testing.T) {
	for _, tc := range []struct {
		ref, other  results.MetricStats
		significant bool
	}{
		{results.MetricStats{Mean: 100, CI95: 40, N: 2}, results.MetricStats{Mean: 120, CI95: 4, N: 30}, true}, // p ≈ 0.036
		{results.MetricStats{Mean: 120, CI95: 4, N: 30}, results.MetricStats{Mean: 100, CI95: 40, N: 2}, true},
		{results.MetricStats{Mean: 100, CI95: 4, N: 30}, results.MetricStats{Mean: 112, CI95: 60, N: 2}, false}, // p ≈ 0.2
	} {
		want := stats.WelchP(tc.ref.Mean, tc.ref.CI95, tc.ref.N, tc.other.Mean, tc.other.CI95, tc.other.N, results.ConfidenceLevel)
		// The fixture must tell the counts apart: either side given the other's count moves p.
		for _, swapped := range []float64{
			stats.WelchP(tc.ref.Mean, tc.ref.CI95, tc.ref.N, tc.other.Mean, tc.other.CI95, tc.ref.N, results.ConfidenceLevel),
			stats.WelchP(tc.ref.Mean, tc.ref.CI95, tc.other.N, tc.other.Mean, tc.other.CI95, tc.other.N, results.ConfidenceLevel),
		} {
			if !(math.Abs(swapped-want) > 0.01) {
				t.Fatalf("fixture %+v vs %+v: p %v with the counts swapped, %v without: too close to tell", tc.ref, tc.other, swapped, want)
			}
		}
		v := ansCompareRow(t, tc.ref, tc.other)
		if math.Abs(v.P-want) > 1e-12 || v.Significant != tc.significant {
			t.Errorf("Compare(%+v vs reference %+v) p = %v (significant %v), want %v (%v) with each side's own n",
				tc.other, tc.ref, v.P, v.Significant, want, tc.significant)
		}
	}
}

// TestResultLabelEveryDifference pins that a compared result is named by every difference of
// its scenario from the reference's, in order, not by the first alone nor by its folder
// (ResultLabel; issue 28 item 8), that the reference is named as such, that a result with
// none is named by its folder, and that two results with the same differences are told apart.
func TestResultLabelEveryDifference(t *testing.T) {
	two := []string{"clients[1].driver.retryPolicy=mongodb-2026-07", "load=1.5"}
	in := func(folder string, diffs []string) Input {
		return Input{Label: folder, Kind: results.KindRun, Differences: diffs,
			Points: []sweep.PointStats{{Replications: 1, Metrics: []results.MetricStats{{Name: "total.goodput", Mean: 1, N: 1}}}}}
	}
	c := Compare([]Input{in("out/a", nil), in("out/b", two), in("out/c", nil), in("out/d", two)})
	for i, want := range []string{
		"reference (out/a)",
		"clients[1].driver.retryPolicy=mongodb-2026-07, load=1.5",
		"out/c (same scenario)",
		"clients[1].driver.retryPolicy=mongodb-2026-07, load=1.5 (out/d)",
	} {
		if got := c.Results[i].Label; got != want {
			t.Errorf("result %d is labelled %q, want %q", i, got, want)
		}
	}
	if got := c.Results[1].Differences; len(got) != 2 || c.Results[1].Folder != "out/b" {
		t.Errorf("result 1 records differences %q, folder %q", got, c.Results[1].Folder)
	}
}

// TestJudge pins the verdict on a difference (Judge): better or worse by the catalogue's
// direction (goodput and a share recovered up, failures, latency, amplification, a share stuck
// and a recovery time down) when p < 0.05, not significant at p ≥ 0.05 (0.05 itself included)
// and for no difference, untested without a p-value, neither for the offered load.
func TestJudge(t *testing.T) {
	for _, tc := range []struct {
		metric   string
		delta, p float64
		want     Verdict
	}{
		{"total.goodput", 10, 0.01, Better},
		{"total.goodput", -10, 0.01, Worse},
		{"total.failures", 10, 0.01, Worse},
		{"total.failures", -10, 0.01, Better},
		{"total.latency_ok_p99", -0.5, 0.001, Better},
		{"total.amplification", 0.2, 0.001, Worse},
		{"fault.cut.stuck", 0.25, 0.01, Worse},
		{"fault.cut.recovery_time", -3, 0.01, Better},
		{"total.goodput", 10, 0.049, Better},
		{"total.goodput", 10, 0.05, NotSignificant}, // the threshold: p < 0.05, not ≤
		{"total.failures", 10, 0.2, NotSignificant},
		{"total.goodput", 0, 0, NotSignificant},
		{"total.goodput", 10, math.NaN(), Untested},
		{"total.offered", 10, 0.01, Neutral},
		{"total.goodput", math.NaN(), math.NaN(), NoVerdict},
	} {
		if got := Judge(tc.metric, tc.delta, tc.p); got != tc.want {
			t.Errorf("Judge(%s, %+v, p %v) = %q, want %q", tc.metric, tc.delta, tc.p, got, tc.want)
		}
	}
	// Compare judges every row: a significant rise in failures is worse.
	v := ansCompareRow(t, results.MetricStats{Mean: 100, CI95: 1, N: 5}, results.MetricStats{Mean: 90, CI95: 1, N: 5})
	if v.Verdict != Worse {
		t.Errorf("goodput 100 ± 1 → 90 ± 1 over 5 replications: verdict %q, want worse", v.Verdict)
	}
}

// TestDeltaCI95 pins the difference's 95 % interval (Value.DeltaCI95) to Welch's test: a
// difference as large as the half-width has a p-value of exactly 0.05 (stats.WelchP), for
// equal and unequal replication counts; with one replication there is none.
func TestDeltaCI95(t *testing.T) {
	for _, tc := range []struct {
		h1, h2 float64
		n1, n2 int
	}{{4, 4, 5, 5}, {40, 4, 2, 30}, {1, 3, 10, 3}} {
		h := deltaCI95(tc.h1, tc.n1, tc.h2, tc.n2)
		p := stats.WelchP(100, tc.h1, tc.n1, 100+h, tc.h2, tc.n2, results.ConfidenceLevel)
		if math.Abs(p-0.05) > 1e-6 {
			t.Errorf("half-widths %v (n %d), %v (n %d): difference interval ±%v, whose end has p %v, want 0.05", tc.h1, tc.n1, tc.h2, tc.n2, h, p)
		}
	}
	if h := deltaCI95(1, 1, 1, 5); !math.IsNaN(h) {
		t.Errorf("one replication: interval %v, want none", h)
	}
}

// TestHeadline pins what the comparison says first of a result: each difference in its unit
// with its verdict for one point; counts of better and worse points over several.
func TestHeadline(t *testing.T) {
	pt := func(v string, goodput float64) sweep.PointStats {
		return sweep.PointStats{Params: []results.Param{{Path: "load", Value: v}}, Replications: 5,
			Metrics: []results.MetricStats{{Name: "total.goodput", Mean: goodput, CI95: 1, N: 5}}}
	}
	one := Compare([]Input{{Label: "a", Points: []sweep.PointStats{pt("1", 200)}}, {Label: "b", Points: []sweep.PointStats{pt("1", 210)}}})
	text := func(items []HeadlineItem) string {
		var parts []string
		for _, it := range items {
			parts = append(parts, it.Text+" ["+string(it.Verdict)+"]")
		}
		return strings.Join(parts, "; ")
	}
	if got := text(Headline(one, 1)); got != "goodput +10/s (+5.0 %): better [better]" {
		t.Errorf("one point: %q", got)
	}
	two := Compare([]Input{{Label: "a", Points: []sweep.PointStats{pt("1", 200), pt("2", 300)}}, {Label: "b", Points: []sweep.PointStats{pt("1", 210), pt("2", 300.5)}}})
	if got := text(Headline(two, 1)); got != "goodput better at 1 of 2 points, worse at none [better]" {
		t.Errorf("two points: %q", got)
	}
}
