package server

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
	"github.com/overloadsim/overloadsim/wire/wiretest"
)

// newProbe returns a test client of node on loop: it sends requests on one connection
// (authenticated or not, appName "probe", zero-delay link) and records every reply. It talks to
// the node only through events, as real clients do.
func newProbe(loop *sim.Loop, node sim.Handler, authenticated bool) *wiretest.Client {
	p := wiretest.NewClient(loop, node)
	p.Conn = wiretest.NewConn("probe", authenticated)
	return p
}

// poisson sends requests from p at exponential intervals with the given rate until stop.
type poisson struct {
	p    *wiretest.Client
	rng  *rand.Rand
	rate float64
	cmd  wire.Command
	stop sim.Time
	mod  func(*wire.Request)
}

func startPoisson(p *wiretest.Client, rate float64, cmd wire.Command, stop sim.Time, seed uint64) *poisson {
	s := &poisson{p: p, rng: sim.NewStream(seed, "test/arrivals"), rate: rate, cmd: cmd, stop: stop}
	p.Loop().At(s.next(p.Loop().Now()), s, 0, nil)
	return s
}

func (s *poisson) next(now sim.Time) sim.Time {
	return now.Add(time.Duration(s.rng.ExpFloat64() / s.rate * 1e9))
}

func (s *poisson) HandleEvent(now sim.Time, _ int, _ any) {
	s.p.Send(now, s.cmd, s.mod)
	if at := s.next(now); at < s.stop {
		s.p.Loop().At(at, s, 0, nil)
	}
}

// diff returns b − a for the counters and integrals the tests read.
func diff(a, b Stats) Stats {
	return Stats{
		AttemptedAdmissions:  b.AttemptedAdmissions - a.AttemptedAdmissions,
		SuccessfulAdmissions: b.SuccessfulAdmissions - a.SuccessfulAdmissions,
		RejectedAdmissions:   b.RejectedAdmissions - a.RejectedAdmissions,
		Enqueued:             b.Enqueued - a.Enqueued,
		Dequeued:             b.Dequeued - a.Dequeued,
		QueueWait:            b.QueueWait - a.QueueWait,
		Completed:            b.Completed - a.Completed,
		BusyArea:             b.BusyArea - a.BusyArea,
		CapacityArea:         b.CapacityArea - a.CapacityArea,
		QueueArea:            b.QueueArea - a.QueueArea,
		BusyTime:             b.BusyTime - a.BusyTime,
	}
}

// checkQueues asserts Little's law in its sample-path form on every queue of the node: over a
// run that starts and ends with the queue empty, ∫ length dt equals the sum of the waits
// exactly (Little 1961; Stidham, Operations Research 22(2), 1974, gives the sample-path proof).
func checkQueues(t *testing.T, s *Server) {
	t.Helper()
	st := s.Snapshot(s.loop.Now())
	for _, q := range []struct {
		name   string
		n      int
		area   float64
		waited time.Duration
	}{
		{"worker queue", st.Queued, st.QueueArea, st.QueueWait},
		{"request-limiter queue", st.RequestLimiterQueued, st.ReqQueueArea, st.ReqQueueWait},
		{"connection queue", st.ConnectionsQueued, st.ConnQueueArea, st.ConnQueueWait},
	} {
		if q.n != 0 {
			t.Errorf("%s: %d still waiting at the end; the exact check needs an empty queue", q.name, q.n)
			continue
		}
		if w := q.waited.Seconds(); math.Abs(q.area-w) > 1e-9*math.Max(1, w) {
			t.Errorf("%s: ∫L dt = %.9f s, Σ waits = %.9f s", q.name, q.area, w)
		}
	}
}
