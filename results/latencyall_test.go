package results

import (
	"math"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/sim"
)

// TestLatencyAllP99MergesHistograms checks docs/metrics.md §8.1: latency_all_p99 is the p99 of
// the successes' and failures' histograms merged, exactly the p99 of one histogram of every
// operation — not a mix of the two p99s — and the failures' p99 when every operation failed.
func TestLatencyAllP99MergesHistograms(t *testing.T) {
	fast, slow := latencies(1, 990), latencies(2, 400)
	for i := range slow {
		slow[i] += 2 * time.Second // the failures are the slow ones, as a timeout's are
	}
	cases := []struct {
		name         string
		succ, fail   []time.Duration
		wantFailures bool // the answer is the failures' p99
	}{
		{"successes and failures", fast, slow, false},
		{"all failures", nil, slow, true},
		{"all successes", fast, nil, false},
		{"none", nil, nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := GroupInterval{Start: 0, End: sim.Time(time.Second), Name: "app", TokensMin: math.NaN()}
			var one Histogram
			for _, d := range c.succ {
				g.Success.Record(d)
				one.Record(d)
			}
			for _, d := range c.fail {
				g.Failure.Record(d)
				one.Record(d)
			}
			g.Issued = uint64(len(c.succ) + len(c.fail))
			g.Succeeded, g.Failed = uint64(len(c.succ)), uint64(len(c.fail))
			s := Summarize(&Series{Interval: time.Second, Groups: []GroupInterval{g}}, 0)
			got, want := s.Total.AllP99, one.Quantile(0.99)
			if c.wantFailures {
				want = s.Total.Failure.P99
			}
			if !(got == want || math.IsNaN(got) && math.IsNaN(want)) {
				t.Fatalf("latency_all_p99 = %v, want %v (one histogram of every operation)", got, want)
			}
			var m float64 = math.Inf(1)
			for _, x := range s.Metrics() {
				if x.Name == "total.latency_all_p99" {
					m = x.Value
				}
			}
			if !(m == got || math.IsNaN(m) && math.IsNaN(got)) {
				t.Fatalf("Metrics total.latency_all_p99 = %v, summary's %v", m, got)
			}
			if c.name == "successes and failures" && (got == s.Total.Success.P99 || got == s.Total.Failure.P99) {
				t.Fatalf("latency_all_p99 %v equals one side's p99 (successes %v, failures %v): the fixture does not test the merge", got, s.Total.Success.P99, s.Total.Failure.P99)
			}
		})
	}
}
