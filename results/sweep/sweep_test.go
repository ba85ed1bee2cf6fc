package sweep

import (
	"math"
	"testing"

	"github.com/overloadsim/overloadsim/internal/stats"
	"github.com/overloadsim/overloadsim/results"
)

// TestAggregateMatchesMeanCI: a point's mean and 95 % half-width of every metric are
// internal/stats.MeanCI of the replications' values; metrics without a value in some
// replications are aggregated over the others.
func TestAggregateMatchesMeanCI(t *testing.T) {
	goodputs := [][]uint64{{100, 100, 100}, {90, 95, 100}, {120, 110, 100}, {80, 100, 101}, {99, 98, 97}}
	pt := PointResult{Params: []results.Param{{Path: "clients[0].count", Value: "4"}}}
	var want []float64
	for _, g := range goodputs {
		s := goodputSeries(g)
		sum := results.Summarize(s, 0)
		want = append(want, sum.Total.Goodput)
		pt.Replications = append(pt.Replications, sum)
	}
	// The second replication has retry tokens; the others have none (NaN).
	s := goodputSeries(goodputs[1])
	for i := range s.Groups {
		s.Groups[i].TokensMin, s.Groups[i].TokensSum, s.Groups[i].TokensN = 500, 1000, 2
	}
	pt.Replications[1] = results.Summarize(s, 0)

	got := Aggregate([]PointResult{pt})
	if len(got) != 1 || got[0].Replications != len(goodputs) || got[0].Key() != "clients[0].count=4" {
		t.Fatalf("Aggregate = %d points, %d replications, key %q", len(got), got[0].Replications, got[0].Key())
	}
	m, ok := got[0].Metric("total.goodput")
	wantMean, wantHalf := stats.MeanCI(want, 0.95)
	if !ok || m.Mean != wantMean || m.CI95 != wantHalf || m.N != len(want) {
		t.Errorf("total.goodput = %+v, want mean %v ± %v over %d", m, wantMean, wantHalf, len(want))
	}
	if !(wantHalf > 0) {
		t.Errorf("the fixture's goodputs should differ (half-width %v)", wantHalf)
	}
	tok, _ := got[0].Metric("total.retry_tokens_mean")
	if tok.N != 1 || tok.Mean != 500 || !math.IsNaN(tok.CI95) {
		t.Errorf("total.retry_tokens_mean = %+v, want mean 500 over 1 replication, no CI", tok)
	}
	if single := SinglePoint(pt.Replications[0]); len(single) != 1 || single[0].Key() != "" || single[0].Replications != 1 {
		t.Errorf("SinglePoint = %+v", single)
	}
}

// TestPointOutcomes: a sweep point says, per trigger, how many replications recovered, stuck
// and were undecided, and the mean recovery time over the recovered ones only.
func TestPointOutcomes(t *testing.T) {
	mk := func(o results.RecoveryOutcome, secs float64) results.Summary {
		return results.Summary{Recoveries: []results.Recovery{{Fault: "cut", Outcome: o, Seconds: secs, Stuck: noStuck()}}}
	}
	pts := Aggregate([]PointResult{{Replications: []results.Summary{
		mk(results.Recovered, 2), mk(results.Recovered, 4), mk(results.Stuck, math.NaN()), mk(results.Undecided, math.NaN()), mk(results.NoBaseline, math.NaN()),
	}}})
	got := pts[0].Outcomes()
	if len(got) != 1 {
		t.Fatalf("%d triggers, want 1", len(got))
	}
	o := got[0]
	if o.Trigger != "cut" || o.N != 4 || o.Recovered != 2 || o.Stuck != 1 || o.Undecided != 1 || o.RecoveryMean != 3 {
		t.Errorf("outcomes %+v, want 4 with a baseline: 2 recovered (mean 3 s), 1 stuck, 1 undecided", o)
	}
	if want := "after cut: recovered 2/4 (in 3.0 s ± 13), stuck 1/4, undecided 1/4"; o.String() != want {
		t.Errorf("String() = %q, want %q", o.String(), want)
	}
}
