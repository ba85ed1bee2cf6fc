package client

import (
	"slices"

	"github.com/overloadsim/overloadsim/client/retry"
	"github.com/overloadsim/overloadsim/sim"
)

// Hedging (a policy that implements retry.Hedger and says it hedges): the operation runs no
// attempt itself. Each copy is an op of its own (parent set) that selects a server, checks out
// a connection and sends, as any attempt does; the operation keeps the copies outstanding in
// kids and decides, through the policy, what each outcome means (retry.Hedger's contract):
//
//   - the first success wins: the operation succeeds and every other copy is cancelled;
//   - a failure the policy retries sends the next copy at once, or after the server's
//     pushback, without waiting for the hedging delay;
//   - a fatal failure (NotRetryable) cancels the copies and fails the operation;
//   - any other refusal sends no new copy, and the operation fails when none is left.
//
// A cancelled copy that is on the wire stays at its server: the cancellation reaches the node a
// link delay later, and a node that has not started the copy by then drops it
// (wire.Request.Cancelled); one running it finishes the work, which is the cost of hedging. Its connection is busy until the reply, then goes back to the pool, as an HTTP/2
// stream's slot would. The copy counts as a failed attempt (command monitoring's failed event)
// and in AttemptsCancelled.

// startHedging sends the operation's first copy and arms the hedging delay.
func (o *op) startHedging(now sim.Time) {
	o.phase = phHedging
	o.sendCopy(now)
	if o.phase == phHedging { // the copy may have ended the operation at once
		o.armHedge(now)
	}
}

// armHedge schedules the next copy a hedging delay from now, or sends the copies at once when
// the delay is 0, while the policy allows.
func (o *op) armHedge(now sim.Time) {
	c := o.c
	c.loop.Cancel(o.timer)
	o.timer = sim.Timer{}
	if o.copies >= c.hedgeMax {
		return
	}
	if c.hedgeDelay > 0 {
		o.timer = c.loop.After(c.hedgeDelay, o, evHedge, nil)
		return
	}
	for o.copies < c.hedgeMax && o.phase == phHedging && c.policy.(retry.Hedger).Hedge(&o.st, now) {
		o.sendCopy(now)
	}
}

// hedgePushback is a server pushback's delay ending: the copy the policy granted in Failed
// goes, and the hedging delay starts again.
func (o *op) hedgePushback(now sim.Time) {
	o.sendCopy(now)
	if o.phase == phHedging {
		o.armHedge(now)
	}
}

// hedge is the hedging delay ending: the next copy goes if the policy allows.
func (o *op) hedge(now sim.Time) {
	c := o.c
	if o.copies < c.hedgeMax && c.policy.(retry.Hedger).Hedge(&o.st, now) {
		o.sendCopy(now)
		if o.phase == phHedging {
			o.armHedge(now)
		}
		return
	}
	if len(o.kids) == 0 { // nothing left to wait for
		f, _ := o.st.Err()
		o.finish(now, f, classify(f))
	}
}

// sendCopy sends one more copy of the operation. A copy can end at once (its checkout fails
// without waiting), and with it the operation, whose record is then retired: callers check
// that the operation is still hedging before they touch it again.
func (o *op) sendCopy(now sim.Time) {
	c := o.c
	k := c.newOp()
	k.id, k.kind, k.issued, k.deadline, k.giveUp = o.id, o.kind, o.issued, o.deadline, o.giveUp
	k.parent = o
	o.kids = append(o.kids, k)
	if o.copies > 0 {
		c.stats.HedgedCopies++
		c.total.HedgedCopies++
	}
	o.copies++
	k.selectServer(now)
}

// copyDone is copy k ending: with a success, or with failure f.
func (o *op) copyDone(now sim.Time, k *op, ok bool, f retry.Failure) {
	c := o.c
	if i := slices.Index(o.kids, k); i >= 0 {
		o.kids = slices.Delete(o.kids, i, i+1)
	}
	c.freeOp(k)
	if o.phase != phHedging {
		return // the operation already ended (its deadline), and k was a straggler
	}
	if ok {
		c.policy.Succeeded(&o.st, now)
		c.loop.Cancel(o.timer)
		o.timer = sim.Timer{}
		o.cancelCopies(now)
		o.finish(now, retry.Failure{}, ErrNone)
		return
	}
	d := c.policy.Failed(&o.st, f, now, c.jitter)
	switch {
	case d.Retry:
		o.result.Retries++
		c.stats.Retries++
		c.total.Retries++
		if d.Backoff > 0 { // the server's pushback delays the next copy, already counted
			c.loop.Cancel(o.timer)
			o.timer = c.loop.After(d.Backoff, o, evHedgePushback, nil)
			return
		}
		o.sendCopy(now)
		if o.phase == phHedging {
			o.armHedge(now)
		}
	case d.Why == retry.NotRetryable:
		c.loop.Cancel(o.timer)
		o.timer = sim.Timer{}
		o.cancelCopies(now)
		o.finish(now, d.Err, classify(d.Err))
	default:
		if d.Why.Refused() {
			c.stats.RetriesRefusedNoToken++
			c.total.RetriesRefusedNoToken++
		}
		c.loop.Cancel(o.timer) // no new copy: wait for those outstanding
		o.timer = sim.Timer{}
		if len(o.kids) == 0 {
			o.finish(now, d.Err, classify(d.Err))
		}
	}
}

// cancelCopies cancels every copy still outstanding.
func (o *op) cancelCopies(now sim.Time) {
	for _, k := range o.kids {
		o.c.cancelCopy(now, k)
	}
	o.kids = o.kids[:0]
}

// cancelCopy cancels copy k wherever it is and retires its record.
func (c *Client) cancelCopy(now sim.Time, k *op) {
	switch k.phase {
	case phSelecting:
		c.selWaiters.remove(k)
		c.loop.Cancel(k.timer)
	case phCheckout:
		c.loop.Cancel(k.timer)
		k.abandonCheckout()
	case phInFlight:
		c.stats.AttemptsCancelled++
		c.total.AttemptsCancelled++
		k.abandonAttempt(now, TraceOutcome{Cancelled: true})
		// The cancellation travels to the node like any message; until it arrives the node
		// may still start the copy.
		a := k.att
		a.op, a.conn, a.sv, a.pending = nil, k.conn, k.server, 2
		c.loop.At(now.Add(k.conn.conn.Link.Delay()), a, evCancelArrives, nil)
		k.conn, k.att = nil, nil
		k.leaveServer()
	}
	c.freeOp(k)
}
