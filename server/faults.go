package server

import (
	"fmt"
	"math"
	"time"

	"overloadsim/ratelimiter"
	"overloadsim/server/failpoint"
	"overloadsim/sim"
	"overloadsim/wire"
)

var inf = math.Inf(1)

// SetFailPoint arms p (nil disarms), as configureFailPoint does.
func (s *Server) SetFailPoint(now sim.Time, p *failpoint.Point) { s.fp = p }

// SetRequestLimiter changes the ingress request limiter's parameters at now, as setParameter
// does at run time. A bucket already in use is reset the way the server's folly bucket resets:
// it keeps the tokens it holds (capped at the new capacity; none while tokens are owed) and
// refills at the new rate, and requests already waiting keep their reservations. Enabling a
// disabled limiter starts a new, full bucket.
func (s *Server) SetRequestLimiter(now sim.Time, c RequestLimiterConfig) error {
	probe := s.cfg
	probe.RequestLimiter = c
	if err := probe.Validate(); err != nil {
		return err
	}
	tb, err := s.retune(now, s.reqTB, c.Enabled, ratelimiter.Config{
		RatePerSec: c.AdmissionRatePerSec, BurstCapacitySecs: c.AdmissionBurstCapacitySecs,
		MaxQueueDepth: c.AdmissionMaxQueueDepth,
	})
	if err != nil {
		return fmt.Errorf("server %q: ingress request limiter: %w", s.cfg.Address, err)
	}
	s.cfg.RequestLimiter, s.exempt, s.reqTB = c, c.ApplicationExemptions, tb
	return nil
}

// SetConnLimiter changes the connection-establishment limiter's parameters at now, with the
// same reset rule as SetRequestLimiter.
func (s *Server) SetConnLimiter(now sim.Time, c ConnLimiterConfig) error {
	probe := s.cfg
	probe.ConnLimiter = c
	if err := probe.Validate(); err != nil {
		return err
	}
	tb, err := s.retune(now, s.connTB, c.Enabled, ratelimiter.Config{
		RatePerSec: c.RatePerSec, BurstCapacitySecs: c.BurstCapacitySecs, MaxQueueDepth: c.MaxQueueDepth,
	})
	if err != nil {
		return fmt.Errorf("server %q: connection limiter: %w", s.cfg.Address, err)
	}
	s.cfg.ConnLimiter, s.connTB = c, tb
	return nil
}

// retune returns the bucket to use after a parameter change: none when disabled, a new full one
// when there was none, otherwise tb itself with its rate, burst and queue depth reset.
func (s *Server) retune(now sim.Time, tb *ratelimiter.TokenBucket, enabled bool, c ratelimiter.Config) (*ratelimiter.TokenBucket, error) {
	switch {
	case !enabled:
		return nil, nil
	case tb == nil:
		return ratelimiter.NewTokenBucket(c, now)
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if err := tb.SetRate(now, c.RatePerSec, c.BurstCapacitySecs); err != nil {
		return nil, err
	}
	if err := tb.SetMaxQueueDepth(c.MaxQueueDepth); err != nil {
		return nil, err
	}
	return tb, nil
}

// SetWorkers changes the number of workers at now. Commands already executing finish; with more
// workers, waiting commands start at once.
func (s *Server) SetWorkers(now sim.Time, n int) error {
	if n < 1 {
		return fmt.Errorf("server %q: workers: %d: must be ≥ 1", s.cfg.Address, n)
	}
	s.integrate(now)
	s.workers = n
	s.startWork(now)
	return nil
}

// Workers returns the current worker count.
func (s *Server) Workers() int { return s.workers }

// SetSpeed sets the service-speed factor at now (1 = nominal, 0.5 = a CPU cut to half). Work in
// progress speeds up or slows down from now on: its remaining time is rescaled.
func (s *Server) SetSpeed(now sim.Time, f float64) error {
	if !(f > 0) || math.IsInf(f, 0) {
		return fmt.Errorf("server %q: speed: %v: must be a finite number > 0", s.cfg.Address, f)
	}
	old := s.speed
	s.speed = f
	for j := s.live.next; j != &s.live; j = j.next {
		if j.state != jsRunning || j.reject {
			continue
		}
		s.loop.Cancel(j.timer)
		rest := float64(j.natural.Sub(now)) * old / f
		j.natural = now.Add(time.Duration(rest))
		s.scheduleFinish(j)
	}
	return nil
}

// Speed returns the service-speed factor.
func (s *Server) Speed() float64 { return s.speed }

// SetNetworkDelay adds extra to every one-way delay on the links of the node's connections.
func (s *Server) SetNetworkDelay(extra time.Duration) {
	for _, c := range s.conns {
		if c.Link != nil {
			c.Link.SetExtra(extra)
		}
	}
}

// SetRebalancing starts (true) or ends a Couchbase rebalance on the node: while it lasts the
// node's vbuckets are moving, and KV requests are answered NotMyVbucket (0x07) before any work,
// which the SDK retries without limit (an always-retry reason).
func (s *Server) SetRebalancing(on bool) { s.rebalancing = on }

// setRole changes the node's role (replica-set elections).
func (s *Server) setRole(r wire.Role) { s.role = r }

// StepDown makes a primary a secondary at now. Writes executing on it fail with
// InterruptedDueToReplStateChange (11602), as a stepdown kills operations holding write locks;
// reads carry on. Writes still waiting fail with NotWritablePrimary when they reach a worker.
func (s *Server) StepDown(now sim.Time) {
	if s.role != wire.Primary {
		return
	}
	s.role = wire.Secondary
	for j := s.live.next; j != &s.live; {
		next := j.next
		if j.state == jsRunning && !j.reject && j.req.Write {
			s.loop.Cancel(j.timer)
			s.releaseWorker(now, j)
			s.stats.InterruptedByStepDown++
			s.reply(now, j, wire.InterruptedDueToReplStateChange, s.labelsFor(j, wire.InterruptedDueToReplStateChange))
		}
		j = next
	}
	s.startWork(now)
}

// GoDown takes the node down at now: every connection is reset, so every request it holds is
// answered with a network error, and until Up it refuses new connections and requests.
func (s *Server) GoDown(now sim.Time) {
	if s.down {
		return
	}
	s.integrate(now)
	for j := s.live.next; j != &s.live; {
		next := j.next
		s.loop.Cancel(j.timer)
		switch j.state {
		case jsRunning:
			s.releaseWorker(now, j)
		case jsQueued:
			if !j.reject {
				s.stats.QueueWait += now.Sub(j.enqueued)
			}
		case jsConnQueued:
			s.stats.ConnQueueWait += now.Sub(j.resv.Start)
		case jsLimiterQueued:
			s.stats.ReqQueueWait += now.Sub(j.resv.Start)
		}
		switch {
		case j.state == jsConnQueued && now > connGiveUp(j.req):
			s.freeJob(j)
		default:
			s.replyNetErr(now, j)
		}
		j = next
	}
	s.rejects, s.work = fifo{}, fifo{}
	s.connQueued, s.reqQueued = 0, 0
	for _, c := range s.conns {
		c.Closed = true
	}
	clear(s.connIdx)
	clear(s.conns)
	s.conns = s.conns[:0]
	s.down = true
}

// Up brings the node back at now with role r: a fresh process, so its limiters start full.
func (s *Server) Up(now sim.Time, r wire.Role) {
	if !s.down {
		return
	}
	s.integrate(now)
	s.down, s.role = false, r
	// A restarted process has new, full buckets. Errors are impossible: the parameters were
	// validated when first set.
	s.reqTB, s.connTB = nil, nil
	_ = s.SetRequestLimiter(now, s.cfg.RequestLimiter)
	_ = s.SetConnLimiter(now, s.cfg.ConnLimiter)
}
