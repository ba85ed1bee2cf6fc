package client

import (
	"time"

	"github.com/overloadsim/overloadsim/client/retry"
	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
)

// Tracer follows a client's operations step by step, for a timeline of them (record/trace writes
// one that Perfetto opens). The client calls it from the event loop, at the virtual time now of
// each step, in the order the steps happen. One operation's steps never overlap:
//
//	OpIssued ─▶ (select) ─▶ CheckoutStarted ─▶ CheckoutEnded ─ok─▶ AttemptSent ─▶ AttemptEnded
//	                ▲                                │ failed                           │ failed
//	                │                                ▼                                  │
//	                ├─ the policy retries at once ───┴──────────────────────────────────┤
//	                └─ BackoffEnded ◀── BackoffStarted ◀── or after a backoff ──────────┘
//
//	OpDone after the last step: success, the policy giving up, or the deadline
//
// Waiting for a suitable server (select) has no hooks: it is the gap before CheckoutStarted. The
// deadline can end a checkout, an attempt on the wire or a backoff early: the end hook comes with
// TimedOut set (or, for a backoff, before its planned duration), then OpDone. Every end hook
// carries its step's start, so a tracer needs no per-operation state for its durations.
//
// A tracer must not call back into the client nor schedule events; it only records. With no
// tracer set (the default) the hooks cost a nil check.
type Tracer interface {
	// OpIssued: Execute started the operation.
	OpIssued(now sim.Time, op TraceOp)
	// CheckoutStarted: the operation selected server and asks its pool for a connection.
	CheckoutStarted(now sim.Time, op TraceOp, server string)
	// CheckoutEnded: the checkout that started at start ended. The wait includes establishing a
	// connection for it. On OK the attempt is sent at once (AttemptSent at the same now).
	CheckoutEnded(now sim.Time, op TraceOp, server string, start sim.Time, out TraceOutcome)
	// AttemptSent: the operation's attempt-th command (1 for the first) went on the wire to
	// server.
	AttemptSent(now sim.Time, op TraceOp, server string, attempt int)
	// AttemptEnded: the attempt sent at start got its reply, or the deadline passed while it was
	// on the wire (out.TimedOut; the driver closes the connection).
	AttemptEnded(now sim.Time, op TraceOp, server string, attempt int, start sim.Time, out TraceOutcome)
	// BackoffStarted: the policy allowed the operation's retry-th retry (1 for the first) after
	// a sleep of d.
	BackoffStarted(now sim.Time, op TraceOp, retry int, d time.Duration)
	// BackoffEnded: the sleep that started at start, planned to last d, ended: at start+d, or
	// earlier when the deadline cut it short.
	BackoffEnded(now sim.Time, op TraceOp, retry int, start sim.Time, d time.Duration)
	// OpDone: the operation finished with r (valid only during the call). It comes before the
	// application hears of it, so an operation the application issues in response comes after.
	OpDone(now sim.Time, op TraceOp, r *Result)
}

// SetTracer makes t hear of every step of the operations the client issues from now on (nil:
// none). Set it before the loop runs: operations already in progress are not announced.
func (c *Client) SetTracer(t Tracer) { c.tracer = t }

// TraceOp identifies an operation to a Tracer. Operation records are pooled; ID is not reused.
type TraceOp struct {
	Client *Client
	ID     uint64 // the operation's number within its client: 1, 2, … in Execute order
	Kind   OpKind
	Issued sim.Time
}

// TraceOutcome is how a checkout or an attempt ended.
type TraceOutcome struct {
	// OK: the checkout got a connection, or the command succeeded.
	OK bool
	// TimedOut: the operation's deadline passed first (for a checkout, also waitQueueTimeoutMS).
	TimedOut bool
	// Cancelled: a hedged copy the operation cancelled (another copy won, or a fatal error or
	// the deadline ended the operation).
	Cancelled bool
	// Failure, when none of these: the error as the retry policy sees it, with the labels the driver
	// adds. A failed checkout has PoolCleared set, or is a connection establishment failure
	// (Network with SystemOverloadedError and RetryableError, as CMAP labels it).
	Failure retry.Failure
}

// Overload reports whether the outcome is an overload error: it carries SystemOverloadedError.
func (t TraceOutcome) Overload() bool {
	return !t.OK && !t.TimedOut && !t.Cancelled && t.Failure.Labels.Has(wire.SystemOverloadedError)
}

// traceOp is o as a Tracer sees it. Call it only when c.tracer is set.
func (o *op) traceOp() TraceOp {
	return TraceOp{Client: o.c, ID: o.id, Kind: o.kind, Issued: o.issued}
}
