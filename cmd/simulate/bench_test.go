package main

import (
	"context"
	"fmt"
	"testing"

	"overloadsim/results"
	"overloadsim/scenarios"
	"overloadsim/sim"
)

// BenchmarkSweep runs the sweep — 20 points × 10 replications of the default scenario,
// the request limiter's rate from 500/s to 2400/s — through the CLI's worker pool at 1 and 2
// workers, and reports the wall time per sweep and the model events per second end to end.
// On a 2-core machine the speed-up is the ratio of the two sec/sweep figures.
//
//	go test -run '^$' -bench BenchmarkSweep -benchtime 1x ./cmd/simulate
func BenchmarkSweep(b *testing.B) {
	sc, err := scenarios.Lookup(scenarios.Default())
	if err != nil {
		b.Fatal(err)
	}
	if err := sc.Vary("topology.nodes[0].ingressRequestAdmissionRatePerSec", "500:2400:100"); err != nil {
		b.Fatal(err)
	}
	if err := sc.Set("sweep.replications", "10"); err != nil {
		b.Fatal(err)
	}
	points, err := sc.Points()
	if err != nil {
		b.Fatal(err)
	}
	if len(points) != 20 {
		b.Fatalf("%d points, want 20", len(points))
	}
	const reps = 10
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			var events uint64
			for i := 0; i < b.N; i++ {
				fired, _, err := runParallel(context.Background(), len(points)*reps, workers, func(j int) (uint64, error) {
					p := points[j/reps]
					loop := sim.NewLoop()
					rec := results.NewRecorder(loop, p.Scenario.Interval)
					if _, err := scenarios.Build(p.Scenario, scenarios.ReplicationSeed(sc.Seed, j%reps), loop, rec); err != nil {
						return 0, err
					}
					rec.Start()
					loop.RunUntil(sim.Time(p.Scenario.Duration))
					rec.Finish(loop.Now())
					return loop.Fired(), nil
				}, nil)
				if err != nil {
					b.Fatal(err)
				}
				for _, f := range fired {
					events += f
				}
			}
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "sec/sweep")
			b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
		})
	}
}
