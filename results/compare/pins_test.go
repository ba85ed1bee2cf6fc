package compare

import (
	"math"
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
