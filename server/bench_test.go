package server

import (
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"overloadsim/dist"
	"overloadsim/sim"
	"overloadsim/wire"
)

// BenchmarkMMc runs an M/M/c queue through the full request path of a node (built in code, no
// scenario): Poisson arrivals at ρ = 0.9 on 8 workers, exponential service, replies over a
// zero-delay link. Model events are counted as the benchmark defines them, arrival + departure = 2
// per customer; loop events/s (which also counts each reply's delivery and each next-arrival
// timer) is reported alongside. Each iteration also runs the floor, the least a simulator can
// do for the same queue (mmcFloor), for as many model events, and the benchmark reports the
// node's speed as a share of the floor's: the ratio holds on a noisy machine, where the two
// speeds alone do not.
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
	floor := newMMcFloor(8, 7200, 1000)
	floor.run(200000) // warm its heap
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
	floor.run(int(2 * customers))
	bare := time.Since(t0)
	b.ReportMetric(2*customers/secs, "model-events/s")
	b.ReportMetric(float64(loop.Fired()-fired)/secs, "loop-events/s")
	b.ReportMetric(2*customers/bare.Seconds(), "floor-model-events/s")
	b.ReportMetric(bare.Seconds()/secs, "share-of-floor")
}

// mmcFloor is the least a simulator can do for M/M/c: a 4-ary heap of (time, seq, kind) events,
// a count of customers waiting, c servers, and exponential draws from two streams. Each step
// is one model event, an arrival or a departure.
type mmcFloor struct {
	heap          []floorEvent
	seq           uint64
	c, busy, wait int
	arrive, serve *rand.Rand
	lambda, mu    float64
}

type floorEvent struct {
	at        sim.Time
	seq       uint64
	departure bool
}

func newMMcFloor(c int, lambda, mu float64) *mmcFloor {
	f := &mmcFloor{c: c, lambda: lambda, mu: mu,
		arrive: sim.NewStream(1, "floor/arrivals"), serve: sim.NewStream(1, "floor/service")}
	f.push(floorEvent{at: f.draw(f.arrive, lambda)})
	return f
}

func (f *mmcFloor) draw(r *rand.Rand, rate float64) sim.Time {
	return sim.Time(r.ExpFloat64() / rate * 1e9)
}

// run handles n model events.
func (f *mmcFloor) run(n int) {
	for range n {
		e := f.pop()
		if !e.departure {
			f.push(floorEvent{at: e.at + f.draw(f.arrive, f.lambda)})
			if f.busy < f.c {
				f.busy++
				f.push(floorEvent{at: e.at + f.draw(f.serve, f.mu), departure: true})
			} else {
				f.wait++
			}
			continue
		}
		if f.wait > 0 {
			f.wait--
			f.push(floorEvent{at: e.at + f.draw(f.serve, f.mu), departure: true})
		} else {
			f.busy--
		}
	}
}

func (f *mmcFloor) less(i, j int) bool {
	a, b := &f.heap[i], &f.heap[j]
	return a.at < b.at || (a.at == b.at && a.seq < b.seq)
}

func (f *mmcFloor) push(e floorEvent) {
	f.seq++
	e.seq = f.seq
	f.heap = append(f.heap, e)
	for i := len(f.heap) - 1; i > 0; {
		p := (i - 1) / 4
		if !f.less(i, p) {
			break
		}
		f.heap[i], f.heap[p] = f.heap[p], f.heap[i]
		i = p
	}
}

func (f *mmcFloor) pop() floorEvent {
	top := f.heap[0]
	n := len(f.heap) - 1
	f.heap[0] = f.heap[n]
	f.heap = f.heap[:n]
	for i := 0; ; {
		m := i
		for c := 4*i + 1; c <= 4*i+4 && c < n; c++ {
			if f.less(c, m) {
				m = c
			}
		}
		if m == i {
			break
		}
		f.heap[i], f.heap[m] = f.heap[m], f.heap[i]
		i = m
	}
	return top
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
