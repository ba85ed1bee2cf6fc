package client

import (
	"time"

	"github.com/overloadsim/overloadsim/client/retry"
	"github.com/overloadsim/overloadsim/client/selection"
	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
)

// Event kinds handled by an op.
const (
	evReply = iota + 1
	evBackoffDone
	evSelectTimeout
	evCheckoutTimeout
	evDeadline
	evAdmitted // a Gate's delay ended: the attempt goes to server selection
	evHedge    // a hedging policy's delay ended: the next copy may go
	// evHedgePushback is a server pushback's delay ending: the copy the policy granted goes.
	evHedgePushback
	// evCancelArrives is a cancelled copy's cancellation reaching its node, a link delay
	// after the client sent it (an attempt's event).
	evCancelArrives
)

type phase uint8

const (
	phIdle      phase = iota
	phSelecting       // waiting for a suitable server
	phCheckout        // waiting for a connection (in the pool's queue, or for one being opened)
	phInFlight        // the command is on the wire
	phBackoff         // sleeping before a retry
	phAdmit           // held back by the policy's client-side rate limiter (Gate)
	phHedging         // a hedged operation: its copies (kids) run the attempts
)

// op is one operation's state machine. Records are pooled by the client; the wire request is
// embedded, so an attempt allocates nothing. The retry decisions belong to the policy; op only
// carries them out, in the order the spec's pseudocode gives: select, check out, send, check the
// connection back in, then decide, deprioritise, back off, and select again.
type op struct {
	c    *Client
	id   uint64 // the operation's number within its client (Stats.OpsIssued when it was issued)
	kind OpKind
	done Completion

	issued   sim.Time
	deadline sim.Time // CSOT deadline (timeoutMS), sim.Never when off
	giveUp   sim.Time // when the operation ends regardless: CSOT or the application's deadline

	st     retry.State
	deprio []string // deprioritised server addresses for the next selection

	server   *serverView
	lastAddr string // the server of the last failed attempt, for deprioritisation
	// pinned is the server a getMore's cursor lives on (the server of its first attempt):
	// every retry goes back there, whatever deprioritisation or the read preference say.
	pinned *serverView
	conn   *pconn
	att    *attempt // the attempt on the wire, if any

	phase         phase
	since         sim.Time      // when the current checkout, attempt or backoff began (for the tracer)
	backoff       time.Duration // the current backoff's planned sleep (for the tracer)
	timer         sim.Timer     // selection wait, checkout wait or backoff
	deadlineTimer sim.Timer
	tracked       bool // the current attempt passed its endpoint's circuit breaker

	result Result

	// Hedging: a hedged operation sends copies, each an op of its own with parent set, and
	// keeps the ones outstanding in kids; copies counts those sent.
	parent *op
	kids   []*op
	copies int

	prev, next *op     // intrusive list links (selection waiters, pool wait queue)
	in         *opList // the list o is in, nil if none
}

// attempt is a command on the wire: the request a node holds until it replies. It is a record
// of its own because it can outlive its operation: an operation that gives up while its request
// still waits at the node (a timeout) lets go of the attempt and is reused at once, and only the
// attempt, far smaller, stays with the node until the reply that nobody reads. A retry storm
// can leave hundreds of thousands of them queued.
type attempt struct {
	req wire.Request
	c   *Client
	op  *op // nil once the operation gave up on it
	// conn and sv, for a cancelled hedged copy, are the connection it still holds and its
	// server: the stream is reset but the connection is busy until the reply, then checked in.
	conn *pconn
	sv   *serverView
	// pending counts the events a cancelled copy's record still waits for (its reply and the
	// cancellation's arrival at the node) before it can be reused.
	pending uint8
}

// HandleEvent implements sim.Handler: the reply, or a hedged copy's cancellation reaching the
// node.
func (a *attempt) HandleEvent(now sim.Time, kind int, _ any) {
	if kind == evCancelArrives {
		a.req.Cancelled = true
		if a.pending--; a.pending == 0 {
			a.c.freeAttempt(a)
		}
		return
	}
	if o := a.op; o != nil {
		o.reply(now)
		return
	}
	if a.pending > 0 { // the cancellation is still on its way: the record waits for it
		if a.pending--; a.pending > 0 {
			a.checkin(now)
			return
		}
	}
	a.checkin(now)
	a.c.freeAttempt(a)
}

// checkin returns a cancelled copy's connection to its pool once its reply is in.
func (a *attempt) checkin(now sim.Time) {
	if pc := a.conn; pc != nil {
		c := a.c
		c.stats.CheckedIn++
		c.total.CheckedIn++
		if a.req.Reply.NetErr {
			a.sv.pool.discard(now, pc)
		} else {
			a.sv.pool.checkin(now, pc)
		}
		a.conn, a.sv = nil, nil
	}
}

// HandleEvent implements sim.Handler.
func (o *op) HandleEvent(now sim.Time, kind int, _ any) {
	switch kind {
	case evBackoffDone:
		o.timer = sim.Timer{}
		if t := o.c.tracer; t != nil {
			t.BackoffEnded(now, o.traceOp(), o.result.Retries, o.since, o.backoff)
		}
		o.nextAttempt(now)
	case evAdmitted:
		o.timer = sim.Timer{}
		if o.c.recheck { // a wait on the gate's condition ended: ask again
			o.c.admitWaiters.remove(o)
			o.c.stats.AdmitDelay += now.Sub(o.since)
			o.c.total.AdmitDelay += now.Sub(o.since)
			o.nextAttempt(now)
			return
		}
		o.selectServer(now)
	case evHedge:
		o.timer = sim.Timer{}
		o.hedge(now)
	case evHedgePushback:
		o.timer = sim.Timer{}
		o.hedgePushback(now)
	case evSelectTimeout:
		o.timer = sim.Timer{}
		o.c.selWaiters.remove(o)
		// Retryable Reads 3a: no server for the retry: raise the previous error (as the
		// policy's propagation rules keep it).
		if f, ok := o.st.Err(); ok {
			o.finish(now, f, classify(f))
			return
		}
		o.finish(now, retry.Failure{}, ErrServerSelection)
	case evCheckoutTimeout:
		o.timer = sim.Timer{}
		o.server.pool.waiters.remove(o)
		if t := o.c.tracer; t != nil {
			t.CheckoutEnded(now, o.traceOp(), o.server.node.Address, o.since, TraceOutcome{TimedOut: true})
		}
		o.leaveServer()
		o.c.stats.CheckoutFailed++
		o.c.total.CheckoutFailed++
		o.finish(now, retry.Failure{}, ErrTimeout) // WaitQueueTimeoutError is not retryable
	case evDeadline:
		o.deadlineTimer = sim.Timer{}
		o.timeout(now)
	}
}

// nextAttempt starts the operation's next attempt: through the policy's Gate, if it has one, then to
// server selection.
func (o *op) nextAttempt(now sim.Time) {
	c := o.c
	if c.gate != nil {
		a := c.gate.Admit(&o.st, now, c.jitter)
		switch {
		case a.Reject:
			c.stats.LocallyRejected++
			c.total.LocallyRejected++
			o.lastAddr = ""
			o.failed(now, retry.Failure{Dispatch: true, Throttled: true})
			return
		case a.Delay > 0 && c.recheck:
			// A wait the gate re-checks: counted when it ends, as long as it lasted.
			o.phase, o.since = phAdmit, now
			o.timer = c.loop.After(a.Delay, o, evAdmitted, nil)
			c.admitWaiters.push(o)
			return
		case a.Delay > 0:
			c.stats.AdmitDelay += a.Delay
			c.total.AdmitDelay += a.Delay
			o.phase = phAdmit
			o.timer = c.loop.After(a.Delay, o, evAdmitted, nil)
			return
		}
	}
	o.selectServer(now)
}

func (o *op) selectServer(now sim.Time) {
	if sv := o.c.pick(o); sv != nil {
		o.useServer(now, sv)
		return
	}
	if o.kind.Couchbase() {
		// A Couchbase SDK does not wait for a server: the request goes to the orchestrator as
		// NODE_NOT_AVAILABLE and is retried after its backoff, or fails (RFC 0049).
		o.c.requestChecks(now)
		o.lastAddr = ""
		o.failed(now, retry.Failure{Dispatch: true, NoNode: true})
		return
	}
	o.phase = phSelecting
	o.c.selWaiters.push(o)
	o.timer = o.c.loop.At(now.Add(o.c.opts.ServerSelectionTimeout), o, evSelectTimeout, nil)
	o.c.requestChecks(now)
}

func (o *op) useServer(now sim.Time, sv *serverView) {
	if o.kind == GetMore && o.pinned == nil {
		o.pinned = sv
	}
	o.server = sv
	sv.inFlight++
	o.phase = phCheckout
	o.since = now
	if t := o.c.tracer; t != nil {
		t.CheckoutStarted(now, o.traceOp(), sv.node.Address)
	}
	sv.pool.checkout(now, o)
}

// leaveServer ends the operation's use of its server (operationCount).
func (o *op) leaveServer() {
	if o.server != nil {
		o.server.inFlight--
		o.server = nil
	}
}

// gotConn is the pool handing o a connection: the attempt goes on the wire.
func (o *op) gotConn(now sim.Time, pc *pconn) {
	c := o.c
	if b := o.server.breaker; b != nil {
		// The endpoint's circuit breaker sits where the request is written to the socket.
		if !b.allows(now) {
			// Open (or half-open with its canary out): the request goes back to the
			// orchestrator as CIRCUIT_BREAKER_OPEN without being sent (client dispatch).
			o.conn = nil
			o.server.pool.checkin(now, pc)
			o.checkoutFailed(now, retry.Failure{CircuitOpen: true})
			return
		}
		b.track()
		o.tracked = true
	}
	c.stats.CheckedOut++
	c.total.CheckedOut++
	o.conn = pc
	o.phase = phInFlight
	o.result.Attempts++
	if p := o.parent; p != nil {
		p.result.Attempts++
	}
	c.stats.AttemptsStarted++
	c.total.AttemptsStarted++
	if t := c.tracer; t != nil {
		addr := o.server.node.Address
		t.CheckoutEnded(now, o.traceOp(), addr, o.since, TraceOutcome{OK: true})
		t.AttemptSent(now, o.traceOp(), addr, o.result.Attempts)
	}
	o.since = now
	a := c.newAttempt()
	a.op, o.att = o, a
	a.req = wire.Request{
		ID: c.stats.AttemptsStarted, Op: o.id, Cmd: o.kind.Command(), Conn: pc.conn,
		Write:       o.kind.IsWrite(),
		SecondaryOK: c.opts.ReadPreference.Mode != selection.Primary,
		ReadPref:    readModes[c.opts.ReadPreference.Mode], // forwarded to a mongos
		GiveUpAt:    o.giveUp, ReplyTo: a, ReplyKind: evReply, SentAt: now,
	}
	if o.deadline != sim.Never && o.kind.Class().Service != wire.ServiceKV {
		// CSOT sends the remaining time as maxTimeMS; a Couchbase SDK sends its query and search
		// timeouts to the service too, but nothing with a KV request.
		a.req.MaxTime = o.deadline.Sub(now)
	}
	c.loop.At(now.Add(pc.conn.Link.Delay()), o.server.node.Handler, wire.EvRequest, &a.req)
}

// checkoutFailed is the pool failing o's checkout: no command was sent, but for the retry policy
// it is an attempt (Retryable Reads: PoolClearedError; CMAP: establishment errors).
func (o *op) checkoutFailed(now sim.Time, f retry.Failure) {
	f.Dispatch = true // nothing was sent: Couchbase's client-dispatch stage
	o.tracked = false
	o.conn = nil
	o.c.stats.CheckoutFailed++
	o.c.total.CheckoutFailed++
	o.lastAddr = o.server.node.Address
	if t := o.c.tracer; t != nil {
		t.CheckoutEnded(now, o.traceOp(), o.lastAddr, o.since, TraceOutcome{Failure: f})
	}
	o.leaveServer()
	o.failed(now, f)
}

func (o *op) reply(now sim.Time) {
	c, pc, sv := o.c, o.conn, o.server
	r, sent := o.att.req.Reply, o.att.req.SentAt
	c.freeAttempt(o.att)
	o.conn, o.att = nil, nil
	if c.attemptObs != nil {
		c.attemptObs.AttemptDone(now, c, sent, r.OK())
	}
	var f retry.Failure
	if !r.OK() {
		f = retry.Failure{Code: r.Code, Labels: r.Labels, Network: r.NetErr, BaseBackoffMS: r.BaseBackoffMS,
			Pushback: r.Pushback, PushbackMS: r.PushbackMS}
		if r.NetErr && o.kind.Class().RetryableWrite && c.opts.Retry.RetryWrites {
			// Retryable Writes: drivers add RetryableWriteError to network errors of retryable
			// writes.
			f.Labels |= wire.RetryableWriteError
		}
	}
	if t := c.tracer; t != nil {
		t.AttemptEnded(now, o.traceOp(), sv.node.Address, o.result.Attempts, o.since, TraceOutcome{OK: r.OK(), Failure: f})
	}
	if !r.OK() {
		// SDAM handles the error before the connection goes back: a clear it causes makes
		// this connection stale, so the check-in closes it instead of handing it to a waiter
		// (Retryable Reads prose test 1).
		sv.handleError(now, f)
	}
	// The connection goes back to the pool before any backoff sleep (Client Backpressure,
	// backpressure-connection-checkin test).
	c.stats.CheckedIn++
	c.total.CheckedIn++
	if r.NetErr {
		sv.pool.discard(now, pc)
	} else {
		sv.pool.checkin(now, pc)
	}
	o.lastAddr = sv.node.Address
	if o.tracked && sv.breaker != nil {
		sv.breaker.markSuccess(now) // a response, whatever it says (the default completion callback)
	}
	o.tracked = false
	o.leaveServer()
	if r.OK() {
		c.stats.AttemptsSucceeded++
		c.total.AttemptsSucceeded++
		if p := o.parent; p != nil {
			p.copyDone(now, o, true, retry.Failure{})
			return
		}
		c.policy.Succeeded(&o.st, now)
		o.finish(now, retry.Failure{}, ErrNone)
		return
	}
	c.stats.AttemptsFailed++
	c.total.AttemptsFailed++
	if classify(f) == ErrOverload {
		c.stats.OverloadReplies++
		c.total.OverloadReplies++
	}
	o.failed(now, f)
}

// failed asks the policy what to do after a failed attempt and does it.
func (o *op) failed(now sim.Time, f retry.Failure) {
	c := o.c
	if p := o.parent; p != nil {
		p.copyDone(now, o, false, f)
		return
	}
	d := c.policy.Failed(&o.st, f, now, c.jitter)
	if d.Reason != retry.ReasonNone { // Couchbase: every retry and non-retry is logged by reason
		if d.Retry {
			c.stats.RetriedByReason[d.Reason]++
			c.total.RetriedByReason[d.Reason]++
		} else {
			c.stats.NotRetriedByReason[d.Reason]++
			c.total.NotRetriedByReason[d.Reason]++
		}
	}
	if d.Succeed {
		// A release's bug: the application is told the write succeeded although the server
		// performed nothing.
		c.stats.WritesLost++
		c.total.WritesLost++
		o.finish(now, retry.Failure{}, ErrNone)
		return
	}
	if !d.Retry {
		if d.Why.Refused() {
			c.stats.RetriesRefusedNoToken++
			c.total.RetriesRefusedNoToken++
		}
		o.finish(now, d.Err, classify(d.Err))
		return
	}
	o.result.Retries++
	c.stats.Retries++
	c.total.Retries++
	if d.Deprioritize && o.lastAddr != "" && !contains(o.deprio, o.lastAddr) {
		o.deprio = append(o.deprio, o.lastAddr)
	}
	if d.Backoff > 0 || d.Cancel {
		c.stats.BackoffTotal += d.Backoff
		c.total.BackoffTotal += d.Backoff
		o.phase = phBackoff
		o.since, o.backoff = now, d.Backoff
		if t := c.tracer; t != nil {
			t.BackoffStarted(now, o.traceOp(), o.result.Retries, d.Backoff)
		}
		if d.Cancel {
			// The delay was capped to the deadline: the deadline timer, scheduled when the
			// operation was issued and so first among events at that instant, cancels it.
			c.stats.RetriesCancelled++
			c.total.RetriesCancelled++
			return
		}
		o.timer = c.loop.After(d.Backoff, o, evBackoffDone, nil)
		return
	}
	o.nextAttempt(now)
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

// timeout ends the operation at its deadline, wherever it is.
func (o *op) timeout(now sim.Time) {
	c := o.c
	switch o.phase {
	case phSelecting:
		c.selWaiters.remove(o)
		c.loop.Cancel(o.timer)
	case phAdmit:
		c.loop.Cancel(o.timer)
		if c.recheck {
			c.admitWaiters.remove(o)
			c.stats.AdmitDelay += now.Sub(o.since)
			c.total.AdmitDelay += now.Sub(o.since)
		}
		if c.withdraw != nil {
			c.withdraw.Withdraw(&o.st, now)
		}
	case phHedging:
		// The deadline cancels every copy still out (gRPC: DEADLINE_EXCEEDED resets the
		// streams); the servers drop the ones they have not started.
		c.loop.Cancel(o.timer)
		o.cancelCopies(now)
	case phBackoff:
		c.loop.Cancel(o.timer)
		if t := c.tracer; t != nil {
			t.BackoffEnded(now, o.traceOp(), o.result.Retries, o.since, o.backoff)
		}
	case phCheckout:
		c.loop.Cancel(o.timer)
		if t := c.tracer; t != nil {
			t.CheckoutEnded(now, o.traceOp(), o.server.node.Address, o.since, TraceOutcome{TimedOut: true})
		}
		o.abandonCheckout()
	case phInFlight:
		// The command failed for the application; the driver closes the connection (CSOT), and
		// the server, which does not know, may go on working.
		o.abandonAttempt(now, TraceOutcome{TimedOut: true})
		c.stats.CheckedIn++
		c.total.CheckedIn++
		o.server.pool.discard(now, o.conn)
		if b := o.server.breaker; b != nil && o.tracked {
			b.markFailure(now) // the request timed out: the one failure the breaker counts
		}
		o.conn = nil
		o.leaveServer()
		o.att.op, o.att = nil, nil // the attempt waits for the reply alone; o is free to go
	}
	o.timer = sim.Timer{}
	f, _ := o.st.Err() // the timeout carries the last error kept, if any
	o.finish(now, f, ErrTimeout)
}

// abandonCheckout takes o out of its checkout: out of the pool's wait queue, or away from the
// connection being opened for it, which the pool keeps.
func (o *op) abandonCheckout() {
	if o.conn != nil {
		o.conn.owner = nil
		o.conn = nil
	} else {
		o.server.pool.waiters.remove(o)
	}
	o.leaveServer()
}

// abandonAttempt ends o's attempt on the wire for the client before its reply (a deadline, or a
// hedged copy's cancellation): command monitoring's failed event, per-attempt latency, the trace.
func (o *op) abandonAttempt(now sim.Time, out TraceOutcome) {
	c := o.c
	c.stats.AttemptsFailed++
	c.total.AttemptsFailed++
	if c.attemptObs != nil {
		c.attemptObs.AttemptDone(now, c, o.att.req.SentAt, false)
	}
	if t := c.tracer; t != nil {
		t.AttemptEnded(now, o.traceOp(), o.server.node.Address, o.result.Attempts, o.since, out)
	}
}

// finish reports the result and retires the record.
func (o *op) finish(now sim.Time, f retry.Failure, class ErrClass) {
	c := o.c
	if p := o.parent; p != nil {
		// A copy that found no server or connection in time: a failure that never left the
		// client, for its operation to weigh.
		if f == (retry.Failure{}) {
			f = retry.Failure{Dispatch: true, NoNode: class == ErrServerSelection}
		}
		p.copyDone(now, o, false, f)
		return
	}
	c.loop.Cancel(o.deadlineTimer)
	if c.ender != nil {
		c.ender.Ended(&o.st, now)
	}
	o.phase = phIdle
	r := &o.result
	r.Kind, r.Issued, r.Done, r.OK, r.Class, r.Err = o.kind, o.issued, now, class == ErrNone, class, f
	if r.OK {
		c.stats.OpsSucceeded++
		c.total.OpsSucceeded++
	} else {
		c.stats.OpsFailed++
		c.total.OpsFailed++
		c.stats.FailedByClass[class]++
		c.total.FailedByClass[class]++
	}
	if t := c.tracer; t != nil {
		t.OpDone(now, o.traceOp(), r)
	}
	if o.done != nil {
		o.done.OperationDone(now, r)
	}
	c.freeOp(o)
}

// readModes maps a read preference mode to the mode a request carries to a mongos.
var readModes = [...]wire.ReadMode{
	selection.Primary: wire.ReadPrimary, selection.PrimaryPreferred: wire.ReadPrimaryPreferred,
	selection.Secondary: wire.ReadSecondary, selection.SecondaryPreferred: wire.ReadSecondaryPreferred,
	selection.Nearest: wire.ReadNearest,
}

// classify returns the class of an error the application receives.
func classify(f retry.Failure) ErrClass {
	switch {
	case f.Labels.Has(wire.SystemOverloadedError), f.Code.CouchbaseOverload():
		return ErrOverload
	case f.Throttled:
		return ErrOverload // the client's own throttle said the service is overloaded
	case f.PoolCleared:
		return ErrPoolCleared
	case f.Network:
		return ErrNetwork
	}
	return ErrServer
}

// wakeAdmit is the client's wake for a gate whose waits are re-checked (retry.Notifier): the
// operation whose current wait began first stops waiting and asks the gate again, in an event
// of its own at the same instant (the notified thread takes the lock after the notifier).
func (c *Client) wakeAdmit() {
	o := c.admitWaiters.pop()
	if o == nil {
		return
	}
	c.loop.Cancel(o.timer)
	o.timer = c.loop.After(0, o, evAdmitted, nil)
}

// opList is an intrusive FIFO of ops with O(1) removal (ops leave queues when they time out). It
// holds two pointers: every client has one and every pool another, so a sentinel op in each would
// cost more than the rest of an idle client. The zero opList is empty.
type opList struct{ first, last *op }

func (l *opList) empty() bool { return l.first == nil }
func (l *opList) head() *op   { return l.first }

// next returns the op after o in the list, nil at the end.
func (l *opList) next(o *op) *op { return o.next }

// push appends o to l. Every opList is one of the driver's wait queues, so push and remove count
// the operations that wait in the driver (Stats.WaitsBegun, WaitsEnded).
func (l *opList) push(o *op) {
	o.c.stats.WaitsBegun++
	o.c.total.WaitsBegun++
	o.prev, o.next, o.in = l.last, nil, l
	if l.last != nil {
		l.last.next = o
	} else {
		l.first = o
	}
	l.last = o
}

// remove takes o out of l; it does nothing if o is not in l.
func (l *opList) remove(o *op) {
	if o.in != l {
		return
	}
	o.c.stats.WaitsEnded++
	o.c.total.WaitsEnded++
	if o.prev != nil {
		o.prev.next = o.next
	} else {
		l.first = o.next
	}
	if o.next != nil {
		o.next.prev = o.prev
	} else {
		l.last = o.prev
	}
	o.prev, o.next, o.in = nil, nil, nil
}

func (l *opList) pop() *op {
	o := l.first
	if o != nil {
		l.remove(o)
	}
	return o
}
