package mongos

import (
	"testing"
	"time"

	"overloadsim/sim"
	"overloadsim/wire"
)

// BenchmarkRoute measures routed commands per second through one mongos to a 3-member shard in
// steady state: nearest reads arriving every 100µs, each taking 1ms on a member over 1ms links,
// so about 30 are in flight. It counts every loop event of the run (driver → mongos, mongos →
// member, the member's work, the replies back), not only the router's.
//
//	go test -run '^$' -bench BenchmarkRoute -benchmem ./server/mongos
func BenchmarkRoute(b *testing.B) {
	w := newWorld(b, DefaultConfig(), 1, rs(3))
	src := &steady{w: w, gap: 100 * time.Microsecond}
	w.loop.At(0, src, 0, nil)
	for src.answered < 100000 { // warm the pools
		w.loop.Step()
	}
	start := src.answered
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		w.loop.Step()
	}
	secs := b.Elapsed().Seconds()
	b.ReportMetric(float64(src.answered-start)/secs, "commands/s")
}

// steady sends a nearest read every gap, reusing its request records.
type steady struct {
	w        *world
	gap      time.Duration
	free     []*wire.Request
	answered int
}

const evAnswer = 1

func (s *steady) HandleEvent(now sim.Time, kind int, arg any) {
	if kind == evAnswer {
		s.answered++
		s.free = append(s.free, arg.(*wire.Request))
		return
	}
	var r *wire.Request
	if n := len(s.free); n > 0 {
		r, s.free = s.free[n-1], s.free[:n-1]
	} else {
		r = &wire.Request{}
	}
	*r = wire.Request{Cmd: wire.Find, Conn: s.w.drv.conn, ReadPref: wire.ReadNearest, SecondaryOK: true,
		GiveUpAt: sim.Never, ReplyTo: s, ReplyKind: evAnswer, SentAt: now}
	s.w.loop.At(now, s.w.mongos, wire.EvRequest, r)
	s.w.loop.At(now.Add(s.gap), s, 0, nil)
}
