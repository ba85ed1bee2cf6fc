package results_test

import (
	"fmt"
	"time"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/sweep"
	"github.com/overloadsim/overloadsim/sim"
)

// A histogram of 1000 latencies, 1 ms to 1 s: quantiles within 1/256 of the exact ones, exact
// mean.
func ExampleHistogram() {
	var h results.Histogram
	for i := 1; i <= 1000; i++ {
		h.Record(time.Duration(i) * time.Millisecond)
	}
	fmt.Printf("n=%d p50=%.4fs p99=%.4fs mean=%.4fs\n", h.Count(), h.Quantile(0.5), h.Quantile(0.99), h.Mean())
	// Output:
	// n=1000 p50=0.5002s p99=0.9920s mean=0.5005s
}

// series returns one group's goodput per one-second interval.
func series(goodput ...uint64) *results.Series {
	s := &results.Series{Interval: time.Second}
	for i, g := range goodput {
		start := sim.Time(time.Duration(i) * time.Second)
		s.Groups = append(s.Groups, results.GroupInterval{Start: start, End: start.Add(time.Second), Name: "app",
			Issued: 100, Succeeded: g, Attempts: 100 + 100 - g})
	}
	return s
}

// A run checked against its baseline: a goodput drop and the retries behind it are reported;
// the recovery after a trigger is part of the summary. Two intervals of 100/s give a band of
// 100 ± 3·√100 (the Poisson floor), so 70/s is back within it, and a hold of two intervals is
// enough here.
func ExampleCheck() {
	base := sweep.NewBaseline(results.Header{Scenario: "example"},
		sweep.SinglePoint(results.Summarize(series(100, 100, 100, 100, 100, 100), 0)))

	s := series(100, 100, 40, 70, 99, 100)
	s.Faults = []results.FaultWindow{{Name: "spike", Start: sim.Time(2 * time.Second), End: sim.Time(3 * time.Second)}}
	s.Recovery = results.RecoveryRule{Hold: 2 * time.Second}
	sum := results.Summarize(s, 0)
	r := sum.Recoveries[0]
	fmt.Printf("%s: %s\n", r.Fault, r.Describe())
	for _, reg := range sweep.Check(base, sweep.SinglePoint(sum), sweep.DefaultTolerance()) {
		fmt.Println(reg)
	}
	// Output:
	// spike: recovered 0 s after it ended (band 100.0 ± 30.0/s)
	// run: total.amplification = 1.15167, above the limit 1.05 (baseline 1, +15 %)
	// run: total.goodput = 84.8333/s, below the limit 95/s (baseline 100/s, -15 %)
	// run: group.app.amplification = 1.15167, above the limit 1.05 (baseline 1, +15 %)
	// run: group.app.goodput = 84.8333/s, below the limit 95/s (baseline 100/s, -15 %)
}
