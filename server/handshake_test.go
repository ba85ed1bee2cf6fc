package server

import (
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/dist"
	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
	"github.com/overloadsim/overloadsim/wire/wiretest"
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

// Rule (answeredBeforeWork's doc: "Rejections and handshake work always start"; docs/model.md
// §5.1: the role check is a step of a command's path, not of connection establishment): a
// connection's handshake work takes its worker or share of the cores without the checks a
// command gets before its work. A secondary accepts connections, a connection's work is not
// dropped as cancelled, and a maxTimeMS is no deadline for it, whatever the Connect request
// carries. Drivers send neither flag on a Connect; the cases show the checks are not applied,
// since each would answer in the handshake's place. 3 ms of work, then 2 ms of handshake cost.
func TestHandshakeWorkSkipsPreWorkChecks(t *testing.T) {
	connect := func(mod func(*wire.Request)) wiretest.Step {
		return wiretest.Step{Cmd: wire.Connect, Mod: func(r *wire.Request) {
			r.Conn = &wire.Conn{Authenticated: true, Link: wire.NewLink(nil, nil)}
			if mod != nil {
				mod(r)
			}
		}}
	}
	tests := []struct {
		name  string
		cfg   Config
		steps []wiretest.Step
		want  []outcome
	}{
		{"a secondary: no role check, though a Connect is no secondary-ok read",
			Config{Role: wire.Secondary}, []wiretest.Step{connect(nil)},
			[]outcome{{wire.OK, ms(5)}}},
		{"no cancellation check",
			Config{}, []wiretest.Step{connect(func(r *wire.Request) { r.Cancelled = true })},
			[]outcome{{wire.OK, ms(5)}}},
		{"no maxTimeMS check, though the deadline passed in the connection queue",
			// One token at a time, one every 10 ms: the second connect waits in the connection
			// limiter's queue until 10 ms, past its 1 ms maxTimeMS, then does its work.
			Config{ConnLimiter: ConnLimiterConfig{Enabled: true, RatePerSec: 100, BurstCapacitySecs: 0.01, MaxQueueDepth: 1}},
			[]wiretest.Step{connect(nil), connect(func(r *wire.Request) { r.MaxTime = time.Millisecond })},
			[]outcome{{wire.OK, ms(5)}, {wire.OK, ms(15)}}},
	}
	for _, exec := range []Execution{ExecTickets, ExecShared} {
		for _, tc := range tests {
			t.Run(exec.String()+"/"+tc.name, func(t *testing.T) {
				cfg := tc.cfg
				cfg.Workers, cfg.Execution = 1, exec
				cfg.HandshakeWork, cfg.HandshakeCost = 3*time.Millisecond, 2*time.Millisecond
				got, s, p := playNode(t, cfg, nil, tc.steps...)
				checkOutcomes(t, got, tc.want, p)
				st := s.Snapshot(s.loop.Now())
				if n := uint64(len(tc.want)); st.ConnCreated != n || st.BusyTime != time.Duration(n)*3*time.Millisecond {
					t.Errorf("%d connections made, busy %v; want %d and %v: each handshake does its work",
						st.ConnCreated, st.BusyTime, n, time.Duration(n)*3*time.Millisecond)
				}
			})
		}
	}
}
