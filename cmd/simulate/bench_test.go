package main

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/overloadsim/overloadsim/bench"
	"github.com/overloadsim/overloadsim/experiment"
	mapexp "github.com/overloadsim/overloadsim/experiment/phasemap"
	"github.com/overloadsim/overloadsim/record"
	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/scenarios"
	"github.com/overloadsim/overloadsim/sim"
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
				fired, _, err := experiment.RunIndexed(context.Background(), len(points)*reps, workers, func(j int) (uint64, error) {
					p := points[j/reps]
					loop := sim.NewLoop()
					rec := record.New(loop, p.Scenario.Interval)
					if _, err := bench.Build(p.Scenario, bench.ReplicationSeed(sc.Seed, j%reps), loop, rec); err != nil {
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

// BenchmarkMap runs the metastability map the speed target is set for: a 10×10 grid of CPU-cut
// depth (speed 0.3–0.75) × length (1–10 s), 5 replications per cell, of a 120 s scenario at 2000
// operations/s (testdata/map-bench.yaml), on 2 workers. It reports the wall time per map, the
// share of runs that stuck, and model events per second. Run it with -benchtime 1x:
//
//	go test -run '^$' -bench BenchmarkMap -benchtime 1x ./cmd/simulate
func BenchmarkMap(b *testing.B) {
	sc, err := loadScenario("testdata/map-bench.yaml", nil)
	if err != nil {
		b.Fatal(err)
	}
	axes, err := mapAxes(sc, []string{"faults[0].speed=0.3:0.75:0.05", "faults[0].for=1s:10s:1s"})
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		m, err := mapexp.Run(context.Background(), mapexp.Options{Scenario: sc, Axes: axes, Trigger: "cpu-cut", Seed: sc.Seed, Replications: 5, Workers: 2, Run: runOptions()})
		if err != nil {
			b.Fatal(err)
		}
		stuck, runs := 0, 0
		for _, c := range m.Cells {
			stuck += c.Stuck
			runs += c.Replications
		}
		b.ReportMetric(float64(stuck)/float64(runs), "stuck-share")
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "sec/map")
}

// BenchmarkStuckRun runs the map benchmark's scenario twice, with a 1 s cut that it recovers from
// (the healthy floor) and a 12 s cut that leaves a retry storm with a backlog of some 230 000
// abandoned requests, and reports for each the model events per second, the events per run,
// and the heap per request left queued at the end (bytes/queued; the healthy run queues next
// to nothing, so its figure is per client instead), and the CPU per event of every thread (the
// collector's included). Stuck runs should cost no more per event than healthy ones.
//
//	go test -run '^$' -bench BenchmarkStuckRun -benchtime 3x ./cmd/simulate
func BenchmarkStuckRun(b *testing.B) {
	sc, err := loadScenario("testdata/map-bench.yaml", nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct{ name, cut string }{{"healthy", "1s"}, {"stuck", "12s"}} {
		c, err := sc.With("faults[0].for", tc.cut)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(tc.name, func(b *testing.B) {
			var events uint64
			var heap, queued float64
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				s, fired, h := runMeasured(b, c, i == 0)
				events += fired
				if i == 0 {
					heap = h
					last := s.Servers[len(s.Servers)-1]
					queued = last.QueueArea / last.Seconds()
				}
			}
			b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
			b.ReportMetric(float64(events)/float64(b.N), "events/run")
			if cpu := cpuTime() - cpu0; cpu > 0 {
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(events), "cpu-ns/event")
			}
			if queued >= 1000 {
				b.ReportMetric(heap/queued, "bytes/queued")
			} else {
				b.ReportMetric(heap/float64(c.Clients[0].Count), "bytes/client")
			}
		})
	}
}

// BenchmarkScale runs testdata/scale.yaml (a sharded cluster of 10 nodes, 11 000 reads/s) for
// one simulated minute with 1 000, 10 000, 100 000 and 1 000 000 MongoClients, each with its
// own pool, monitor and retry state, and reports wall and CPU nanoseconds per model event (the
// CPU of every thread, the collector's included), CPU seconds per run, and heap bytes per client
// at the end of the run. The work per operation does not depend on how many clients share the
// load, so the figures per event should stay flat as clients grow. The million takes about a
// minute and some 8 GB:
//
//	go test -run '^$' -bench BenchmarkScale -benchtime 1x ./cmd/simulate
//	go test -run '^$' -bench 'BenchmarkScale/clients=1000$' -benchtime 1x ./cmd/simulate
func BenchmarkScale(b *testing.B) {
	sc, err := loadScenario("testdata/scale.yaml", nil)
	if err != nil {
		b.Fatal(err)
	}
	if sc, err = sc.With("duration", "60s"); err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{1000, 10000, 100000, 1000000} {
		c, err := sc.With("clients[0].count", fmt.Sprint(n))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("clients=%d", n), func(b *testing.B) {
			var events uint64
			var heap float64
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				_, fired, h := runMeasured(b, c, i == 0)
				events += fired
				if i == 0 {
					heap = h
				}
			}
			cpu := cpuTime() - cpu0 // the measuring collections included: a few per cent at most
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
			if cpu > 0 {
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(events), "cpu-ns/event")
				b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/run")
			}
			b.ReportMetric(float64(events)/float64(b.N), "events/run")
			b.ReportMetric(heap/float64(n), "bytes/client")
		})
	}
}

// runMeasured builds and runs c once with its own seed, and returns its series, the events it
// fired and, when measure is set, the heap in use at its end with the world still alive (after
// a collection, so that only live memory counts).
func runMeasured(b *testing.B, c *scenarios.Scenario, measure bool) (*results.Series, uint64, float64) {
	loop := sim.NewLoop()
	rec := record.New(loop, c.Interval)
	w, err := bench.Build(c, c.Seed, loop, rec)
	if err != nil {
		b.Fatal(err)
	}
	rec.Start()
	loop.RunUntil(sim.Time(c.Duration))
	s := rec.Finish(loop.Now())
	var heap float64
	if measure {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		heap = float64(ms.HeapAlloc)
	}
	runtime.KeepAlive(w)
	return s, loop.Fired(), heap
}
