package mongos

import (
	"time"

	"github.com/overloadsim/overloadsim/server"
	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
)

// Event kinds of a command.
const (
	evReply     = iota + 1 // the member answered the attempt
	evRetarget             // targeting found no eligible member: look again
	evBackoff              // the backoff sleep is over: target and send the retry
	evDeadline             // maxTimeMS passed while waiting for a connection
	evInterrupt            // maxTimeMS passed during the backoff sleep
)

// retargetEvery is how often targeting looks again for an eligible member while none is (a
// model choice: the server waits on its replica set monitor's topology changes, which the model
// does not signal).
const retargetEvery = 500 * time.Millisecond

// command is one routed command: the state of Shard::RetryStrategy (an AdaptiveRetryStrategy
// around a DefaultRetryStrategy) and of its current attempt. Records are pooled by the router.
type command struct {
	r    *Router
	back server.RouteToken
	s    *shard

	// what the driver sent
	cmd      wire.Command
	write    bool
	secOK    bool
	readPref wire.ReadMode
	giveUpAt sim.Time // the driver's, for the members' wasted-work accounting only
	deadline sim.Time // maxTimeMS deadline, sim.Never without one

	// retry strategy state
	retries        int // retryAttemptCount: retries decided so far
	overloads      int // BackoffWithJitter's attempt counter: overload failures retried
	baseBackoffMS  int64
	prevOverloaded bool      // the previous attempt failed with SystemOverloadedError
	deprio         []*member // TargetingMetadata.deprioritizedServers
	overloadRetry  bool      // the next attempt is a retry after an overload error

	// the current attempt
	findStart sim.Time  // when the current targeting began
	target    *member   // the member of the attempt on the wire, or of the last one
	conn      *pconn    // the connection in use or being established
	timer     sim.Timer // targeting's next look, the backoff, or the deadline while connecting
	req       wire.Request
}

func (c *command) start(now sim.Time, s *shard, req *wire.Request, back server.RouteToken) {
	c.back, c.s = back, s
	c.cmd, c.write, c.readPref, c.giveUpAt = req.Cmd, req.Write, req.ReadPref, req.GiveUpAt
	// A mongos sets secondaryOk on what it sends when the read preference allows secondaries.
	c.secOK = req.SecondaryOK || (!req.Write && req.ReadPref != wire.ReadPrimary)
	c.deadline = sim.Never
	if req.MaxTime > 0 {
		c.deadline = now.Add(req.MaxTime)
	}
	s.stats.NumOperationsAttempted++
	c.findStart = now
	c.targetAndSend(now)
}

// HandleEvent implements sim.Handler.
func (c *command) HandleEvent(now sim.Time, kind int, _ any) {
	c.timer = sim.Timer{}
	switch kind {
	case evReply:
		c.replied(now)
	case evRetarget:
		c.targetAndSend(now)
	case evBackoff:
		c.findStart = now
		c.targetAndSend(now)
	case evDeadline:
		// maxTimeMS ran out while the attempt waited for its connection, which goes to the
		// pool once established. The attempt fails with MaxTimeMSExpired, which is not retried.
		c.conn.owner = nil
		c.conn = nil
		c.failed(now, wire.Reply{Code: wire.MaxTimeMSExpired})
	case evInterrupt:
		// The backoff sleep was interrupted: the error comes from the sleep, not an attempt.
		c.answer(now, wire.Reply{Code: wire.MaxTimeMSExpired})
	}
}

// targetAndSend targets a member and sends the attempt, or waits for an eligible member.
func (c *command) targetAndSend(now sim.Time) {
	r := c.r
	if now >= c.deadline {
		c.failed(now, wire.Reply{Code: wire.MaxTimeMSExpired})
		return
	}
	m := r.pick(c.s, c.write, c.readPref, c.deprio)
	if m == nil {
		giveUp := c.findStart.Add(r.cfg.FindHostTimeout)
		if end := min(giveUp, c.deadline); now >= end {
			code := wire.FailedToSatisfyReadPreference
			if c.deadline <= giveUp {
				code = wire.MaxTimeMSExpired
			}
			// A targeting failure reaches the retry strategy as an error without labels.
			c.failed(now, wire.Reply{Code: code})
			return
		}
		c.timer = r.loop.At(min(now.Add(retargetEvery), giveUp, c.deadline), c, evRetarget, nil)
		return
	}
	c.target = m
	if c.overloadRetry {
		c.overloadRetry = false
		if r.cfg.OverloadAwareServerSelection && !contains(c.deprio, m) {
			c.s.stats.NumRetriesRetargetedDueToOverload++
		}
	}
	if pc := m.takeIdle(); pc != nil {
		c.send(now, pc)
		return
	}
	c.conn = m.open(now, c)
	if c.deadline != sim.Never {
		c.timer = r.loop.At(c.deadline, c, evDeadline, nil)
	}
}

// connected is called by the connection c waited for once it is established.
func (c *command) connected(now sim.Time, pc *pconn) {
	c.r.loop.Cancel(c.timer)
	c.timer = sim.Timer{}
	c.send(now, pc)
}

// connectFailed is called by the connection c waited for when the member refused or reset it:
// the attempt fails with HostUnreachable, a retryable network error that is not an overload.
func (c *command) connectFailed(now sim.Time) {
	c.r.loop.Cancel(c.timer)
	c.timer = sim.Timer{}
	c.conn = nil
	c.failed(now, wire.Reply{Code: wire.HostUnreachable})
}

// send puts the attempt on the wire over pc.
func (c *command) send(now sim.Time, pc *pconn) {
	r := c.r
	c.conn = pc
	r.nextID++
	c.req = wire.Request{
		ID: r.nextID, Cmd: c.cmd, Conn: &pc.conn, Write: c.write, SecondaryOK: c.secOK,
		ReadPref: c.readPref, GiveUpAt: c.giveUpAt, ReplyTo: c, ReplyKind: evReply, SentAt: now,
	}
	if c.deadline != sim.Never {
		c.req.MaxTime = c.deadline.Sub(now) // > 0: targeting fails at the deadline
	}
	r.loop.At(now.Add(pc.conn.Link.Delay()), c.target.node, wire.EvRequest, &c.req)
}

// replied handles the member's answer to the attempt.
func (c *command) replied(now sim.Time) {
	pc, reply := c.conn, c.req.Reply
	c.conn = nil
	if reply.NetErr {
		// The member closed the connection (or is down): drop it, and fail the attempt with
		// HostUnreachable.
		c.failed(now, wire.Reply{Code: wire.HostUnreachable})
		return
	}
	c.target.release(pc)
	if reply.OK() {
		c.succeeded(now)
		return
	}
	c.failed(now, reply)
}

// succeeded is recordSuccess: AdaptiveRetryStrategy returns tokens, Shard::RetryStrategy counts.
func (c *command) succeeded(now sim.Time) {
	s := c.s
	if s.budget != nil {
		s.budget.RecordNotOverloaded(c.prevOverloaded)
	}
	if c.prevOverloaded {
		s.stats.NumOperationsRetriedAtLeastOnceDueToOverloadAndSucceeded++
	}
	c.answer(now, wire.Reply{Code: wire.OK})
}

// failed is recordFailureAndEvaluateShouldRetry (Shard::RetryStrategy around
// AdaptiveRetryStrategy around DefaultRetryStrategy), then the backoff and the retry.
func (c *command) failed(now sim.Time, reply wire.Reply) {
	r, s := c.r, c.s
	overloaded := reply.Labels.Has(wire.SystemOverloadedError)

	// AdaptiveRetryStrategy: the budget decides first.
	retry := true
	if s.budget != nil {
		if overloaded {
			retry = s.budget.TryAcquireToken()
		} else {
			s.budget.RecordNotOverloaded(c.prevOverloaded)
		}
	}
	// DefaultRetryStrategy with the Shard::RetryPolicy criteria.
	retry = retry && c.retries < r.cfg.MaxRetryAttempts && retriable(reply, c.write)
	if retry {
		if overloaded {
			if c.target != nil && !contains(c.deprio, c.target) {
				c.deprio = append(c.deprio, c.target)
			}
			c.overloads++
			c.baseBackoffMS = reply.BaseBackoffMS
		}
		c.retries++
	}

	// Shard::RetryStrategy's statistics.
	if overloaded {
		s.stats.NumOverloadErrorsReceived++
		if retry {
			s.stats.NumRetriesDueToOverloadAttempted++
		}
		if !c.prevOverloaded {
			s.stats.NumOperationsRetriedAtLeastOnceDueToOverload++
		}
		c.prevOverloaded = true
	} else if c.prevOverloaded {
		s.stats.NumOperationsRetriedAtLeastOnceDueToOverloadAndSucceeded++
		c.prevOverloaded = false
	}

	if !retry {
		if overloaded {
			reply.Labels = r.cfg.ExhaustedLabels
		}
		c.answer(now, wire.Reply{Code: reply.Code, Labels: reply.Labels})
		return
	}

	c.overloadRetry = overloaded
	c.target = nil
	delay := r.backoff(c.overloads, c.baseBackoffMS)
	if c.deadline != sim.Never && now.Add(delay) >= c.deadline {
		// The interruptible sleep is interrupted when maxTimeMS passes. An attempt's reply can
		// come back after the deadline (the model does not interrupt the wait for it): then the
		// sleep is interrupted as it begins, as OperationContext::sleepFor checks for
		// interruption first, and the command fails now, having slept for nothing.
		at := max(c.deadline, now)
		s.stats.TotalBackoffTime += at.Sub(now)
		c.timer = r.loop.At(at, c, evInterrupt, nil)
		return
	}
	s.stats.TotalBackoffTime += delay
	if delay == 0 {
		c.findStart = now
		c.targetAndSend(now)
		return
	}
	c.timer = r.loop.At(now.Add(delay), c, evBackoff, nil)
}

// answer ends the command with reply and frees its record.
func (c *command) answer(now sim.Time, reply wire.Reply) {
	back, r := c.back, c.r
	r.freeCommand(c)
	back.Done(now, reply)
}

// retriable is the retry criteria of Shard::RetryPolicy: for reads (kIdempotent) an error in
// the RetriableError category or labelled RetryableError or RetryableWriteError; for writes
// (kNotIdempotent) only the NotPrimary errors, or the RetryableError label, which an overload
// rejection carries together with NoWritesPerformed: the write did not happen.
func retriable(reply wire.Reply, write bool) bool {
	if write {
		return isNotPrimary(reply.Code) || reply.Labels.Has(wire.RetryableError)
	}
	return isRetriableCategory(reply.Code) ||
		reply.Labels.Has(wire.RetryableError) || reply.Labels.Has(wire.RetryableWriteError)
}

// isRetriableCategory reports whether code is in the server's RetriableError category
// (error_codes.yml), as far as wire names the codes.
func isRetriableCategory(code wire.Code) bool {
	switch code {
	case wire.HostUnreachable, wire.HostNotFound, wire.NetworkTimeout, wire.ShutdownInProgress,
		wire.PrimarySteppedDown, wire.ExceededTimeLimit, wire.SocketException,
		wire.NotWritablePrimary, wire.InterruptedAtShutdown, wire.InterruptedDueToReplStateChange,
		wire.NotPrimaryNoSecondaryOk, wire.NotPrimaryOrSecondary,
		wire.IngressRequestRateLimitExceeded:
		return true
	}
	return false
}

// isNotPrimary reports whether code is one of the errors kNotIdempotent retries: the NotPrimary
// errors and the shutdown and stepdown interruptions.
func isNotPrimary(code wire.Code) bool {
	switch code {
	case wire.NotWritablePrimary, wire.NotPrimaryNoSecondaryOk, wire.NotPrimaryOrSecondary,
		wire.InterruptedDueToReplStateChange, wire.PrimarySteppedDown, wire.ShutdownInProgress,
		wire.InterruptedAtShutdown:
		return true
	}
	return false
}
