package server

import (
	"fmt"
	"math"
	"time"

	"github.com/overloadsim/overloadsim/field"
	"github.com/overloadsim/overloadsim/ratelimiter"
	"github.com/overloadsim/overloadsim/server/failpoint"
	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
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
		return s.cfg.context(field.New("workers", n, "must be ≥ 1"))
	}
	s.integrate(now)
	if s.shared() { // more or fewer cores: every running command's share changes
		s.advanceShared(now)
		s.workers = n
		s.busy = min(len(s.cpu.jobs), n)
		s.rescheduleShared(now)
		return nil
	}
	s.workers = n
	s.startWork(now)
	return nil
}

// Workers returns the current worker count.
func (s *Server) Workers() int { return s.workers }

// SetSpeed sets the service-speed factor at now (1 = nominal, 0.5 = a CPU cut to half). Work in
// progress speeds up or slows down from now on: its remaining time is rescaled. During a pause
// the remaining time is the time left when the pause began, and work stays frozen.
func (s *Server) SetSpeed(now sim.Time, f float64) error {
	if !(f > 0) || math.IsInf(f, 0) {
		return s.cfg.context(field.New("speed", f, "must be a finite number > 0"))
	}
	if s.shared() { // the shared clock runs at the new speed from now on
		s.advanceShared(now)
		s.speed = f
		s.rescheduleShared(now)
		return nil
	}
	old := s.speed
	s.speed = f
	from := now
	if s.paused {
		from = s.pauseStart // frozen work has not progressed since
	}
	for j := s.live.next; j != &s.live; j = j.next {
		if j.state != jsRunning || j.reject {
			continue
		}
		rest := float64(j.natural.Sub(from)) * old / f
		j.natural = from.Add(time.Duration(rest))
		if !s.paused {
			s.loop.Cancel(j.timer)
			s.scheduleFinish(now, j)
		}
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
	if s.paused {
		// A paused node learns of the new term only when it runs again: its writes are
		// interrupted at resume (their replies cannot leave a paused node anyway).
		s.stepDownDue = true
		return
	}
	s.interruptWrites(now)
	s.startWork(now)
}

// interruptWrites fails every write executing on the node with InterruptedDueToReplStateChange.
func (s *Server) interruptWrites(now sim.Time) {
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
}

// GoDown takes the node down at now: every connection is reset, so every request it holds is
// answered with a network error, and until Up it refuses new connections and requests. Going
// down ends a pause: the process is gone, so the messages held for it get network errors and
// its held timers are dropped with the jobs they belonged to.
func (s *Server) GoDown(now sim.Time) {
	if s.down {
		return
	}
	paused := s.paused
	if paused {
		s.unpause(now)
		s.stepDownDue = false
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
		c.Closed, c.Slot = true, 0
	}
	clear(s.conns)
	s.conns = s.conns[:0]
	s.down = true
	if paused {
		held := s.held
		s.held = nil
		for i, h := range held {
			held[i] = heldEvent{}
			if h.kind == wire.EvRequest {
				s.arrive(now, h.arg.(*wire.Request)) // refused: the node is down
			}
		}
		s.held = held[:0]
	}
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

// Pause stops the node for d from now: a stop-the-world pause of the whole process (a long GC,
// a VM or container freeze). While paused the node does nothing and says nothing:
//
//   - commands on a worker freeze and, at resume, run for the time they had left, so each ends
//     exactly the pause's length later (a maxTimeMS deadline is wall-clock time: one that
//     passed meanwhile aborts the command at resume);
//   - every message that reaches it (requests, connects, hellos, disconnects) and every timer
//     of its own that falls due (a limiter queue's admission, a handshake's end, a failpoint's
//     block, a connect's timeout) is held, and at resume all of them go through the node's
//     normal path at that instant, in the order they arrived or fell due — so the limiters,
//     failpoint and roles they meet are the ones in force at resume;
//   - connections stay open and nothing is sent: clients see only silence, and time out by
//     their own rules;
//   - paused time counts as neither busy nor capacity (see integrate).
//
// Pauses of one node may overlap: a pause that starts while the node is paused extends it to
// the later of the two ends, so overlapping pauses act as their union. A node that is down
// has nothing to pause; GoDown ends a pause. Faults applied meanwhile change the node's state
// at once (limiters, failpoint, workers, speed, role) but act only at resume: a stepdown's
// interrupted writes are answered then. A mongos's router is not paused; its answers wait.
func (s *Server) Pause(now sim.Time, d time.Duration) error {
	if d <= 0 {
		return s.cfg.context(field.New("pause", d, "must be > 0"))
	}
	if s.down {
		return nil
	}
	until := now.Add(d)
	if s.paused {
		if until > s.pauseUntil {
			s.loop.Cancel(s.resumeTimer)
			s.pauseUntil = until
			s.resumeTimer = s.loop.At(until, s, evResume, nil)
		}
		return nil
	}
	s.integrate(now) // close the integrals before paused time stops counting
	if s.shared() {
		s.advanceShared(now) // work done up to the pause
	}
	s.paused, s.pauseStart, s.pauseUntil = true, now, until
	for j := s.live.next; j != &s.live; j = j.next {
		if j.state == jsRunning {
			// Its end is unknown until the pause's is; its work so far is busy time.
			s.loop.Cancel(j.timer)
			j.timer = sim.Timer{}
			s.accountBusy(now, j)
		}
	}
	s.rescheduleShared(now) // paused: no command ends until the resume
	s.resumeTimer = s.loop.At(until, s, evResume, nil)
	return nil
}

// hold keeps an event that reached the paused node for its resume, or resumes it.
func (s *Server) hold(now sim.Time, kind int, arg any) {
	switch kind {
	case evResume:
		s.resume(now)
		return
	case wire.EvRequest:
		s.stats.HeldMessages++
	case evSharedDone: // cancelled at the pause; the resume sets it again
		return
	default:
		arg.(*job).timer = sim.Timer{} // it fired; the job waits in held instead
	}
	s.held = append(s.held, heldEvent{kind, arg})
}

// resume ends the pause at now: frozen work carries on for the time it had left, a stepdown
// that came meanwhile interrupts its writes, then everything held is handled in order.
func (s *Server) resume(now sim.Time) {
	s.unpause(now)
	for j := s.live.next; j != &s.live; j = j.next {
		if j.state == jsRunning {
			s.scheduleFinish(now, j)
		}
	}
	s.rescheduleShared(now)
	if s.stepDownDue {
		s.stepDownDue = false
		s.interruptWrites(now)
	}
	held := s.held
	s.held = nil // nothing can be held while draining; keep the backing array for the next pause
	for i, h := range held {
		held[i] = heldEvent{}
		s.HandleEvent(now, h.kind, h.arg)
	}
	s.held = held[:0]
	s.startWork(now) // workers added during the pause
}

// unpause clears the paused state at now and moves frozen work past the pause: its natural end
// by the pause's length, its busy time to start again at now.
func (s *Server) unpause(now sim.Time) {
	s.integrate(now)
	s.loop.Cancel(s.resumeTimer)
	s.resumeTimer = sim.Timer{}
	s.paused = false
	length := now.Sub(s.pauseStart)
	s.stats.PausedTime += length
	s.cpu.last = now // shared cores ran nothing while paused
	for j := s.live.next; j != &s.live; j = j.next {
		if j.state == jsRunning {
			if !s.shared() {
				j.natural = j.natural.Add(length)
			}
			j.start = now
		}
	}
}
