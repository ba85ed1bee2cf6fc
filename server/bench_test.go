package server

import (
	"runtime"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/dist"
	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/sim/simtest"
	"github.com/overloadsim/overloadsim/wire"
)

// BenchmarkMMc runs an M/M/c queue through the full request path of a node (built in code, no
// scenario): Poisson arrivals at ρ = 0.9 on 8 workers, exponential service, replies over a
// zero-delay link. Model events are counted as the benchmark defines them, arrival + departure = 2
// per customer; loop events/s (which also counts each reply's delivery and each next-arrival
// timer) is reported alongside. The benchmark then runs the floor, the least a simulator can do
// for the same queue (simtest.MMc), for as many model events, and reports the node's speed as a
// share of the floor's: the ratio holds on a noisy machine, where the two speeds alone do not.
//
//	go test -run '^$' -bench BenchmarkMMc -benchmem ./server
func BenchmarkMMc(b *testing.B) {
	exp, _ := dist.Exp(time.Millisecond)
	loop := sim.NewLoop()
	s, err := New(loop, Config{Address: "n", Workers: 8, Service: exp}, 1)
	if err != nil {
		b.Fatal(err)
	}
	p := newProbe(loop, s, true)
	p.Keep = false
	startPoisson(p, 7200, wire.Find, sim.Never, 1) // ρ = 7200 / (8 × 1000) = 0.9
	for p.Count < 100000 {                         // warm the pools
		loop.Step()
	}
	floor := simtest.NewMMc(8, 7200, 1000)
	floor.Run(200000) // warm its heap
	start, fired := p.Count, loop.Fired()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		loop.Step()
	}
	b.StopTimer()
	secs := b.Elapsed().Seconds()
	customers := float64(p.Count - start)
	t0 := time.Now()
	floor.Run(int(2 * customers))
	bare := time.Since(t0)
	b.ReportMetric(2*customers/secs, "model-events/s")
	b.ReportMetric(float64(loop.Fired()-fired)/secs, "loop-events/s")
	b.ReportMetric(2*customers/bare.Seconds(), "floor-model-events/s")
	b.ReportMetric(bare.Seconds()/secs, "share-of-floor")
}

// BenchmarkMemory reports the heap a node needs per idle connection (the connection record
// and the node's registry entry) and per queued request (the request and the node's job record).
// It measures once per sub-benchmark; run it with -benchtime 1x.
func BenchmarkMemory(b *testing.B) {
	for _, what := range []string{"idle-connection", "queued-request"} {
		b.Run(what, func(b *testing.B) {
			const n = 100000
			var before, after runtime.MemStats
			loop := sim.NewLoop()
			s, _ := New(loop, Config{Address: "n", Workers: 1, Service: dist.Const(time.Hour)}, 1)
			p := newProbe(loop, s, true)
			p.Keep = false
			link := wire.NewLink(nil, nil)
			runtime.GC()
			runtime.ReadMemStats(&before)
			for i := 0; i < n; i++ {
				if what == "idle-connection" {
					conn := &wire.Conn{Authenticated: true, Link: link}
					p.Send(0, wire.Connect, func(r *wire.Request) { r.Conn = conn })
				} else {
					p.Send(0, wire.Find, nil)
				}
			}
			loop.RunUntil(sim.Time(time.Second))
			p.DropPool() // connection requests came back: they are not part of an idle connection
			runtime.GC()
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "bytes/"+what)
			runtime.KeepAlive(s)
			runtime.KeepAlive(loop)
		})
	}
}
