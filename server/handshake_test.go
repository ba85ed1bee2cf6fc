package server

import (
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/dist"
	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
)

// TestHandshakeWork: a new connection's handshake takes HandshakeWork of a worker (TLS and
// authentication are CPU work), ahead of queued commands, then HandshakeCost more before the
// connection is usable; with none (the default) it is a pure delay. One worker busy with a
// 10 ms find, a second find queued, a connection at 1 ms: its 3 ms of work runs from 10 to 13 ms,
// ahead of the queued find, and it is usable 2 ms later; the queued find starts at 13 ms.
func TestHandshakeWork(t *testing.T) {
	for _, c := range []struct {
		work                 time.Duration
		connected, secondEnd time.Duration
		busy                 time.Duration
	}{
		{3 * time.Millisecond, 15 * time.Millisecond, 23 * time.Millisecond, 23 * time.Millisecond},
		{0, 3 * time.Millisecond, 20 * time.Millisecond, 20 * time.Millisecond},
	} {
		loop := sim.NewLoop()
		s, err := New(loop, Config{Address: "n", Workers: 1, Service: dist.Const(10 * time.Millisecond),
			HandshakeCost: 2 * time.Millisecond, HandshakeWork: c.work}, 1)
		if err != nil {
			t.Fatal(err)
		}
		p := newProbe(loop, s, true)
		p.Send(0, wire.Find, nil)
		p.Send(0, wire.Find, nil)
		conn := &wire.Conn{Authenticated: true, Link: wire.NewLink(nil, nil)}
		p.Send(sim.Time(time.Millisecond), wire.Connect, func(r *wire.Request) { r.Conn = conn })
		loop.Run()
		got := map[uint64]sim.Time{}
		for _, r := range p.Replies {
			got[r.ID] = r.Got
		}
		if got[3] != sim.Time(c.connected) || got[2] != sim.Time(c.secondEnd) {
			t.Errorf("handshakeWork %v: connected at %v, second find done at %v; want %v and %v\n%s",
				c.work, got[3], got[2], c.connected, c.secondEnd, p.Transcript())
		}
		if st := s.Snapshot(loop.Now()); st.BusyTime != c.busy || st.ConnCreated != 1 {
			t.Errorf("handshakeWork %v: busy %v, %d connections; want %v and 1", c.work, st.BusyTime, st.ConnCreated, c.busy)
		}
	}
}
