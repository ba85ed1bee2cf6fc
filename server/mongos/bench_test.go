package mongos

import (
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
)

// BenchmarkRoute measures routed commands per second through one mongos to a 3-member shard in
// steady state: nearest reads arriving every 100µs, each taking 1ms on a member over 1ms links,
// so about 30 are in flight. It counts every loop event of the run (client → mongos, mongos →
// member, the member's work, the replies back), not only the router's.
//
//	go test -run '^$' -bench BenchmarkRoute -benchmem ./server/mongos
func BenchmarkRoute(b *testing.B) {
	w := newWorld(b, DefaultConfig(), 1, rs(3))
	w.drv.Keep = false // count only: the client then reuses its request records
	nearest := read(wire.ReadNearest)
	const gap = 100 * time.Microsecond
	var tick sim.HandlerFunc
	tick = func(now sim.Time, _ int, _ any) {
		w.drv.Send(now, wire.Find, nearest)
		w.loop.At(now.Add(gap), tick, 0, nil)
	}
	w.loop.At(0, tick, 0, nil)
	for w.drv.Count < 100000 { // warm the pools
		w.loop.Step()
	}
	start := w.drv.Count
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		w.loop.Step()
	}
	secs := b.Elapsed().Seconds()
	b.ReportMetric(float64(w.drv.Count-start)/secs, "commands/s")
}
