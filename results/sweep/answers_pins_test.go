package sweep

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/overloadsim/overloadsim/results"
)

// Tests that pin rules of the answers, the expectations and the comparison, each failing when
// its rule is broken (internal/mutate/mutants/answers.txt lists the mutants they kill).

// ansLoadPoint is a load sweep's point at params whose goodput is the offered load capped at
// ceiling.
func ansLoadPoint(offered, ceiling float64, params ...results.Param) PointStats {
	p := loadPoint(offered, math.Min(offered, ceiling), 0.01)
	p.Params = params
	return *p
}

// TestSweepAnswersThreeParameters pins that a load sweep of three parameters answers one line
// per value of the last non-load parameter, in the order the points give their paths (the
// scenario's sweep block, then --vary's: scenarios.Scenario.Points), each line holding every
// point with that value whatever the other parameter's (docs/metrics.md §17: "each value of the
// other is one line"; SweepAnswers). The CLI's --vary takes at most two, but a scenario's sweep
// block takes any number, and --vary adds to it, so three parameters reach SweepAnswers.
//
// The fixture makes the last non-load parameter (workers) set the ceiling, so each of its lines
// has its own knee, and the first (the retry policy) change nothing: split by the policy
// instead, both lines would mix the two ceilings and find the knee of the lower.
func TestSweepAnswersThreeParameters(t *testing.T) {
	const (
		policy  = "clients[0].driver.retryPolicy"
		rate    = "clients[0].workload.rate"
		workers = "topology.nodes[0].workers"
	)
	rates := map[string]float64{"500/s": 500, "1000/s": 1000, "1500/s": 1500, "2500/s": 2500}
	ceilings := map[string]float64{"1": 1200, "2": 2200}
	// points builds the sweep with the paths in the given order, the first varying slowest.
	points := func(order ...string) []PointStats {
		values := map[string][]string{
			policy:  {"none", "mongodb-2026-03"},
			rate:    {"500/s", "1000/s", "1500/s", "2500/s"},
			workers: {"1", "2"},
		}
		var out []PointStats
		for _, a := range values[order[0]] {
			for _, b := range values[order[1]] {
				for _, c := range values[order[2]] {
					ps := []results.Param{{Path: order[0], Value: a}, {Path: order[1], Value: b}, {Path: order[2], Value: c}}
					at := func(path string) string {
						for _, p := range ps {
							if p.Path == path {
								return p.Value
							}
						}
						return ""
					}
					out = append(out, ansLoadPoint(rates[at(rate)], ceilings[at(workers)], ps...))
				}
			}
		}
		return out
	}
	type line struct {
		name             string
		lastServed, knee float64
	}
	byWorkers := []line{{"1", 1000, 1500}, {"2", 1500, 2500}}
	for _, tc := range []struct {
		gloss string
		order []string
		want  []line
	}{
		{"load between the two others", []string{policy, rate, workers}, byWorkers},
		{"load last", []string{policy, workers, rate}, byWorkers},
		{"load first", []string{rate, policy, workers}, byWorkers},
		// The same sweep with the two others swapped: now the policy is the last non-load
		// parameter and is split by, and each of its lines mixes both ceilings.
		{"policy last", []string{workers, rate, policy}, []line{{"none", 1000, 1500}, {"mongodb-2026-03", 1000, 1500}}},
	} {
		got := SweepAnswers(points(tc.order...), LoadContext{Today: 500})
		var lines []line
		for _, a := range got {
			lines = append(lines, line{a.Line, a.LastServed, a.Knee})
		}
		if !slices.Equal(lines, tc.want) {
			t.Errorf("%s: SweepAnswers(%s) lines = %v, want %v (one per value of the last non-load parameter)",
				tc.gloss, strings.Join(tc.order, " × "), lines, tc.want)
		}
	}
}

// TestJudgeUnjudgeableReplication pins that a replication that cannot judge an expectation
// (Measured.Skip: "skipped, not failed"; or measured before the expectation existed) is left
// out of the verdict, and does not drop it: the others judge it (Judge). Only when no
// replication can judge it is there no verdict ("the caller says why").
func TestJudgeUnjudgeableReplication(t *testing.T) {
	m := func(v float64) results.Measured { return results.Measured{Value: v, Of: math.NaN()} }
	skip := results.Measured{Value: math.NaN(), Of: math.NaN(), Skip: "the run ends at 4s, before the window 10s–30s does"}
	below := results.Expectation{Metric: "total.amplification", Below: f64(1.5)}
	mean := results.Expectation{Metric: "total.amplification", Over: "mean", Below: f64(1.5)}
	for _, tc := range []struct {
		gloss string
		e     results.Expectation
		reps  [][]results.Measured
		want  []results.Verdict // Index, Value and Pass compared
	}{
		{"one skipped, the others pass", below, [][]results.Measured{{skip}, {m(1.2)}, {m(1.4)}}, []results.Verdict{{Value: 1.3, Pass: true}}},
		{"one skipped, another fails", below, [][]results.Measured{{m(1.2)}, {skip}, {m(1.7)}}, []results.Verdict{{Value: 1.45, Pass: false}}},
		{"one measured before the expectation existed", below, [][]results.Measured{{}, {m(1.2)}}, []results.Verdict{{Value: 1.2, Pass: true}}},
		{"over the mean, one skipped", mean, [][]results.Measured{{m(1.2)}, {m(1.6)}, {skip}}, []results.Verdict{{Value: 1.4, Pass: true}}},
		{"every replication skipped: no verdict", below, [][]results.Measured{{skip}, {skip}}, nil},
	} {
		got := results.Judge([]results.Expectation{tc.e}, nil, tc.reps)
		if len(got) != len(tc.want) {
			t.Errorf("%s: results.Judge(%s, %d replications) = %d verdicts %v, want %d", tc.gloss, tc.e.String(), len(tc.reps), len(got), got, len(tc.want))
			continue
		}
		for i, w := range tc.want {
			if g := got[i]; g.Index != w.Index || math.Abs(g.Value-w.Value) > 1e-12 || g.Pass != w.Pass {
				t.Errorf("%s: results.Judge(%s) = %v (value %v, pass %v), want value %v, pass %v over the judgeable replications",
					tc.gloss, tc.e.String(), g, g.Value, g.Pass, w.Value, w.Pass)
			}
		}
	}
}

// TestJudgeOverMeanReference pins that an expectation over the mean of a point's replications
// compares the mean value with the mean of the replications' references (Expectation.Over:
// "the mean over the replications must" meet the bound, a relative one included), over the
// same replications (those with a value), not with one replication's reference nor with none.
func TestJudgeOverMeanReference(t *testing.T) {
	m := func(v, of float64) results.Measured { return results.Measured{Value: v, Of: of} }
	within := results.Expectation{Metric: "total.goodput", Over: "mean", Within: f64(0.05), OfMetric: "total.offered"}
	below := results.Expectation{Metric: "total.failures", Over: "mean", Below: f64(0.1), OfMetric: "total.offered"}
	for _, tc := range []struct {
		gloss string
		e     results.Expectation
		reps  [][]results.Measured
		value float64
		pass  bool
	}{
		// 100 within 5 % of the mean reference 100, but 20 % from either replication's.
		{"references either side of the mean", within, [][]results.Measured{{m(100, 80)}, {m(100, 120)}}, 100, true},
		// 100 is its first replication's reference, but 33 % from the mean reference 150.
		{"mean reference far from the first", within, [][]results.Measured{{m(100, 100)}, {m(100, 200)}}, 100, false},
		// A replication without a value leaves its reference out of the mean too (else 400).
		{"a replication without a value", within, [][]results.Measured{{m(100, 80)}, {m(math.NaN(), 1000)}, {m(100, 120)}}, 100, true},
		// A relative bound: 12 < 0.1 × mean(100, 200) = 15, though not below 0.1 × 100.
		{"relative bound", below, [][]results.Measured{{m(14, 100)}, {m(10, 200)}}, 12, true},
		{"relative bound broken", below, [][]results.Measured{{m(20, 100)}, {m(16, 200)}}, 18, false},
	} {
		got := results.Judge([]results.Expectation{tc.e}, nil, tc.reps)
		if len(got) != 1 || got[0].Value != tc.value || got[0].Pass != tc.pass {
			t.Errorf("%s: results.Judge(%s) = %v, want value %v, pass %v against the mean reference", tc.gloss, tc.e.String(), got, tc.value, tc.pass)
		}
	}
}
