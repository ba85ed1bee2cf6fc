package retry

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/overloadsim/overloadsim/ratelimiter"
	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
)

// Constants of the Client Backpressure specification.
const (
	// FixedMaxRetries is MAX_RETRIES of the 2026-03 text: "5 and non-configurable".
	FixedMaxRetries = 5
	// DefaultMaxAdaptiveRetries is the default of the 2026-07 maxAdaptiveRetries option, which
	// replaces MAX_RETRIES there.
	DefaultMaxAdaptiveRetries = 2
	// BaseBackoff is BASE_BACKOFF (100 ms). In 2026-07 a positive baseBackoffMS on the error
	// replaces it.
	BaseBackoff = 100 * time.Millisecond
	// MaxBackoff is MAX_BACKOFF (10 000 ms): no single backoff exceeds it.
	MaxBackoff = 10 * time.Second
)

// unlimited is allowed_retries under CSOT before any overload error: math.inf in the pseudocode.
const unlimited = math.MaxInt

// Class says what an operation is, for eligibility. The zero Class is a read that no retryable
// reads rule covers (getMore, or a read command the driver does not retry).
type Class struct {
	// Write says the operation writes: retryWrites governs its overload retries (Client
	// Backpressure rule 2.4) and its errors propagate by the Retryable Writes rules.
	Write bool
	// RunCommand marks the generic runCommand helper: overload retries need both retryReads and
	// retryWrites (rule 2.4); it is never a retryable read or write (Retryable Reads,
	// "Unsupported Read Operations"); for error propagation it is a write (rule 6).
	RunCommand bool
	// RetryableRead says Retryable Reads supports the operation (find, aggregate without a write
	// stage, count, distinct, listCollections, ...). Not getMore, not runCommand. Implies !Write.
	RetryableRead bool
	// RetryableWrite says Retryable Writes supports the operation (insertOne, updateOne,
	// deleteOne, findAndModify, commitTransaction, abortTransaction, ...). Implies Write.
	RetryableWrite bool
	// InTransaction says the operation runs inside a transaction: retryable reads and writes are
	// off there (Retryable Reads 2a; Retryable Writes, "Executing Retryable Write Commands");
	// overload retries are not.
	InTransaction bool
	// Cursor says the operation opens a cursor (find, aggregate): the release presets of the
	// Node driver 7.2–7.7 never cut an overload backoff at the CSOT deadline for these
	// (docs/drivers.md §3).
	Cursor bool

	// Service is the service the request goes to: MongoDB, or one of a Couchbase node's, whose
	// statuses the Couchbase policies map to retry reasons.
	Service wire.Service
	// Idempotent is a Couchbase request's idempotent annotation (RFC 0049, "Idempotent
	// Operation List"): KV get, a read-only query, search. Couchbase policies only.
	Idempotent bool
	// Unlock marks the KV unlock command, whose KV_LOCKED must surface as a CAS mismatch and
	// never be retried.
	Unlock bool
}

// writeLike reports whether errors propagate by the Retryable Writes rules (NoWritesPerformed):
// writes, and runCommand (Client Backpressure rule 6).
func (c Class) writeLike() bool { return c.Write || c.RunCommand }

const panicClass = "retry: Begin: contradictory Class %+v: %s"

// check panics on a Class no operation can have.
func (c Class) check() {
	switch {
	case c.RetryableRead && c.Write:
		panic(fmt.Sprintf(panicClass, c, "a retryable read does not write"))
	case c.RetryableWrite && !c.Write:
		panic(fmt.Sprintf(panicClass, c, "a retryable write must set Write"))
	case c.RunCommand && (c.RetryableRead || c.RetryableWrite):
		panic(fmt.Sprintf(panicClass, c, "runCommand is never a retryable read or write"))
	}
}

// Failure is one failed attempt as the driver saw it.
type Failure struct {
	// Code is the server's error code; unset for network errors and PoolCleared.
	Code wire.Code
	// Labels are the reply's errorLabels plus the labels the driver adds: SystemOverloadedError
	// and RetryableError on a network error or timeout during connection establishment (CMAP,
	// backpressure-enabled), RetryableWriteError on a network error of a retryable write
	// (Retryable Writes).
	Labels wire.Labels
	// Network says the attempt failed with a network error or timeout: there is no reply.
	Network bool
	// PoolCleared says checkout failed with PoolClearedError: nothing was sent, so a retry is
	// always safe; it still counts as an attempt (Retryable Reads pseudocode).
	PoolCleared bool
	// BaseBackoffMS is the reply's baseBackoffMS in milliseconds, 0 when absent. mongodb-2026-07
	// uses it as the backoff base when it is > 0.
	BaseBackoffMS int64
	// Handshake says establishing the attempt's connection failed: its handshake got an error
	// reply or the connection closed or timed out before the handshake finished. The spec texts
	// treat it as the labelled network error it is; a release preset may not (the Go driver
	// never retries it, docs/drivers.md §2).
	Handshake bool
	// HandshakeCode is, for a Handshake failure that got an error reply, the reply's code (0
	// when the connection closed or timed out): the policies decide on the labelled network
	// error, but a driver shows the code inside the error it returns.
	HandshakeCode wire.Code
	// Dispatch says the request never left the client: the checkout failed (no connection could
	// be had, or PoolClearedError). Couchbase's "client dispatch" stage, retryable for every
	// request.
	Dispatch bool
	// CircuitOpen says the endpoint's circuit breaker refused the request (client dispatch).
	CircuitOpen bool
	// NoNode says no node could take the request: server selection found none usable (all down
	// or unknown). Couchbase's NODE_NOT_AVAILABLE, at client dispatch.
	NoNode bool
	// Throttled says the policy's own Gate rejected the attempt before it was sent
	// (client-side throttling); Dispatch is set too.
	Throttled bool
	// Pushback says the reply carried server pushback (gRPC's grpc-retry-pushback-ms, AWS's
	// x-amz-retry-after): retry after PushbackMS milliseconds, or, when PushbackMS < 0, do not
	// retry.
	Pushback   bool
	PushbackMS int64
}

// Overloaded reports whether f is an overload error: it carries SystemOverloadedError.
func (f Failure) Overloaded() bool { return f.Labels.Has(wire.SystemOverloadedError) }

// RetryableOverload reports whether f is a retryable overload error: it carries both
// SystemOverloadedError and RetryableError.
func (f Failure) RetryableOverload() bool {
	return f.Labels.Has(wire.SystemOverloadedError | wire.RetryableError)
}

// retryableRead reports whether f is a retryable error under Retryable Reads: a network error, a
// code in its table, or PoolClearedError.
func (f Failure) retryableRead() bool { return f.Network || f.PoolCleared || f.Code.IsRetryableRead() }

// retryableWrite reports whether f is a retryable error under Retryable Writes: the
// RetryableWriteError label (which drivers add to network errors), a network error, or
// PoolClearedError.
func (f Failure) retryableWrite() bool {
	return f.Network || f.PoolCleared || f.Labels.Has(wire.RetryableWriteError)
}

// String describes f, e.g. "ShutdownInProgress(91) [SystemOverloadedError,RetryableError]".
func (f Failure) String() string {
	var s string
	switch {
	case f.PoolCleared:
		s = "PoolClearedError"
	case f.Throttled:
		s = "throttled by the client (not sent)"
	case f.NoNode:
		s = "no node available (not sent)"
	case f.CircuitOpen:
		s = "circuit breaker open (not sent)"
	case f.Dispatch:
		s = "no connection available (not sent)"
	case f.Network:
		s = "network error"
	case f.Code.Known() || f.Code == wire.OK:
		s = f.Code.String() + "(" + strconv.Itoa(int(f.Code)) + ")"
	default: // a Couchbase status names its number itself
		s = f.Code.String()
	}
	if f.Labels != 0 {
		s += " " + f.Labels.String()
	}
	if f.BaseBackoffMS > 0 {
		s += " baseBackoffMS=" + strconv.FormatInt(f.BaseBackoffMS, 10)
	}
	if f.Pushback {
		s += " pushbackMS=" + strconv.FormatInt(f.PushbackMS, 10)
	}
	return s
}

// Jitter draws the backoff jitter: a number in [0, 1] (the spec allows [0, 1) or [0, 1]). A
// *rand.Rand from sim.NewStream is one; tests pin 0 or a value near 1.
type Jitter interface{ Float64() float64 }

// GiveUp says why a policy stopped retrying.
type GiveUp uint8

// Reasons to give up.
const (
	// Continue is the zero GiveUp: the policy has not given up (Decision.Retry is true).
	Continue GiveUp = iota
	// NotRetryable: the error is retryable under no rule the policy follows for this operation.
	NotRetryable
	// Ineligible: the error would be retryable, but retryReads/retryWrites is off for this
	// operation (or, for retryable reads and writes, it runs in a transaction).
	Ineligible
	// MaxRetries: the retry would exceed allowed_retries (1 without CSOT, MAX_RETRIES once an
	// overload error was seen).
	MaxRetries
	// Deadline: CSOT is on and the deadline has passed, or now + backoff would pass it.
	Deadline
	// NoToken: adaptive retries are on and the retry token bucket holds less than one token.
	NoToken
	// Disabled: the policy never retries.
	Disabled
	// Budget: a retry budget, quota or throttle (not MongoDB's token bucket: NoToken) refused
	// the retry.
	Budget
	// Breaker: the policy's circuit breaker is open and suppresses retries.
	Breaker
	// PushbackStop: the server's pushback said not to retry.
	PushbackStop
	numGiveUps
)

var giveUpNames = [numGiveUps]string{"Continue", "NotRetryable", "Ineligible", "MaxRetries", "Deadline",
	"NoToken", "Disabled", "Budget", "Breaker", "PushbackStop"}

// Refused reports whether g is a retry a budget refused: a token bucket, a budget, a quota, a
// throttle or a circuit breaker (the driver counts these together).
func (g GiveUp) Refused() bool { return g == NoToken || g == Budget || g == Breaker }

// String returns the constant's name.
func (g GiveUp) String() string {
	if g < numGiveUps {
		return giveUpNames[g]
	}
	return "GiveUp(" + strconv.Itoa(int(g)) + ")"
}

// Decision is a policy's answer to a failed attempt.
type Decision struct {
	// Retry says the operation runs another attempt.
	Retry bool
	// Backoff is how long to sleep before the retry's server selection; 0 means at once. The
	// MongoDB policies back off only after an overload error (Client Backpressure, "Interaction
	// with Other Retry Policies").
	Backoff time.Duration
	// Deprioritize says to add the failed server's address to the deprioritized list of the
	// retry's server selection.
	Deprioritize bool
	// Why says why the policy gave up; Continue when Retry is true.
	Why GiveUp
	// Err is, when Retry is false, the error the application receives, chosen by the error
	// propagation rules (see State).
	Err Failure
	// Reason is the Couchbase retry reason the decision was made for, retried or not;
	// ReasonNone from MongoDB policies.
	Reason Reason
	// Succeed says the driver reports success although the attempt failed: the bug of some Go
	// driver releases on a write refused with NoWritesPerformed (docs/drivers.md §2). Retry is
	// false.
	Succeed bool
	// Cancel says the retry's delay was capped to the request's deadline: when it ends the
	// request has timed out, so it is cancelled then instead of being sent again (RFC 0049,
	// "Capping the Retry Duration").
	Cancel bool
}

// State is one operation's retry state: the spec's attempt and allowed_retries, whether an
// overload error was seen, the CSOT deadline, and the error kept for propagation. It is a value
// type that a driver embeds in its operation record; Policy.Begin resets it, so records can be
// pooled and a run allocates nothing per operation.
//
// Error propagation (Client Backpressure rule 6 defers to Retryable Reads and Writes): the error
// returned when a policy gives up is
//
//   - for reads: the most recent error, unless it originated in the driver (PoolClearedError,
//     which does not let the caller infer an attempt was made), in which case the error before
//     it (Retryable Reads 3c);
//   - for writes and runCommand: the most recent error that does not carry NoWritesPerformed; if
//     every server error carried it, the first; a PoolClearedError only when nothing else was
//     seen (Retryable Writes, "Executing Retryable Write Commands"; prose test 6 cases 1–3).
type State struct {
	class    Class
	deadline sim.Time
	csot     bool
	attempt  int  // the spec's attempt: retries so far, counted before the checks that refuse one
	retries  int  // retries granted
	allowed  int  // allowed_retries
	overload bool // an overload error was seen: allowed is MAX_RETRIES for good
	kept     Failure
	hasKept  bool
	reasons  uint32 // Couchbase: the retry reasons seen so far, a set of 1<<Reason
	// last is the policy's previous delay: Couchbase's RequestContext.lastRetryDuration (the
	// delay the latest retry was dispatched after, 0 before any), gRPC's current backoff
	// ceiling, the previous sleep of Finagle's and the custom kit's decorrelated jitter.
	last time.Duration
	// flags are per-operation flags a policy of another stack owns (opFlag); begin clears them.
	flags opFlag
	// overloadRetries counts the overload retries granted (the Go release presets' backoff
	// exponent); indefinite is their error kept for NoWritesPerformed propagation.
	overloadRetries int
	indefinite      Failure
}

// Reasons returns the Couchbase retry reasons the operation was retried for so far (the RFC's
// Request.retryReasons()), in Reason order.
func (s *State) Reasons() []Reason {
	var out []Reason
	for r := range numReasons {
		if s.reasons&(1<<r) != 0 {
			out = append(out, r)
		}
	}
	return out
}

// Attempt returns the spec's attempt: the number of retries so far. Like the pseudocode it is
// incremented before the MAX_RETRIES, deadline and token checks, so after a policy gives up for
// one of those reasons it counts the refused retry too. Retries counts only granted ones.
func (s *State) Attempt() int { return s.attempt }

// Retries returns the number of retries the policy granted; attempts made = Retries() + 1 once
// the operation has ended.
func (s *State) Retries() int { return s.retries }

// OverloadSeen reports whether an attempt of the operation failed with an overload error.
func (s *State) OverloadSeen() bool { return s.overload }

// begin resets s for a new operation: attempt 0 and allowed_retries = 1 without CSOT, unlimited
// with it (pseudocode: allowed_retries = if is_csot then math.inf else 1).
func (s *State) begin(c Class, deadline sim.Time, csot bool) {
	c.check()
	allowed := 1
	if csot {
		allowed = unlimited
	}
	*s = State{class: c, deadline: deadline, csot: csot, allowed: allowed}
}

// keep records f for error propagation (see State).
func (s *State) keep(f Failure) {
	switch {
	case !s.hasKept:
	case f.PoolCleared:
		return
	case s.kept.PoolCleared:
	case s.class.writeLike() && f.Labels.Has(wire.NoWritesPerformed):
		return
	}
	s.kept, s.hasKept = f, true
}

// Err returns the error the application receives if the operation ends now without another
// decision from the policy (no server could be selected for the retry, or a deadline passed):
// the error kept under the propagation rules, NoWritesPerformed included. ok is false before
// the first failure.
func (s *State) Err() (f Failure, ok bool) { return s.kept, s.hasKept }

// stop ends the operation: the kept error propagates.
func (s *State) stop(why GiveUp) Decision { return Decision{Why: why, Err: s.kept} }

// grant counts a granted retry and returns d.
func (s *State) grant(d Decision) Decision {
	s.retries++
	d.Retry = true
	return d
}

// expired reports whether CSOT is on and the deadline has passed (remaining time ≤ 0: the CSOT
// spec's isExpired, which Retryable Reads 3c and Writes check before every retry).
func (s *State) expired(now sim.Time) bool { return s.csot && now >= s.deadline }

// countRetry starts a retry's checks as the policies of other stacks run them: it counts the
// attempt, then refuses a retry past the allowed number (MaxRetries) or the deadline
// (Deadline); Continue when both pass.
func (s *State) countRetry(now sim.Time) GiveUp {
	s.attempt++
	switch {
	case s.attempt > s.allowed:
		return MaxRetries
	case s.expired(now):
		return Deadline
	}
	return Continue
}

// pastDeadline is the backoff check of the pseudocode: CSOT and now + backoff > deadline.
func (s *State) pastDeadline(now sim.Time, backoff time.Duration) bool {
	return s.csot && now.Add(backoff) > s.deadline
}

// Policy is one MongoClient's retry policy: a state machine fed attempt outcomes. Policies never
// schedule anything; the driver carries out their decisions. Per-client state (a retry token
// bucket, a budget, a throttle's counts) lives in the Policy, per-operation state in a State.
type Policy interface {
	// Name returns the name the policy is registered under.
	Name() string
	// Begin starts an operation of class c in st at virtual time now. deadline is the
	// operation's deadline (CSOT, or a policy's own request timeout), sim.Never without one; the
	// MongoDB policies use it only when Options.CSOT is set.
	Begin(st *State, c Class, now, deadline sim.Time)
	// Succeeded ends the operation successfully at now on attempt st.Attempt() (token
	// deposits, budget and throttle counts).
	Succeeded(st *State, now sim.Time)
	// Failed decides what follows a failed attempt at virtual time now. j is drawn once per
	// retry that draws a backoff, and only then (so it may be nil for an operation that
	// cannot draw one); a value outside [0, 1] panics.
	Failed(st *State, f Failure, now sim.Time, j Jitter) Decision
}

// Gate is implemented by a policy that acts before each attempt is sent, first or retry: a
// client-side rate limiter that holds attempts back, or a client-side throttle that rejects
// them. The driver asks Admit before the attempt's server selection.
type Gate interface {
	// Admit decides whether the attempt about to start at now goes ahead: at once, after
	// Admission.Delay, or not at all (Admission.Reject: the driver fails the attempt locally
	// with Failure.Throttled, which the policy then sees in Failed). j is drawn at most once.
	Admit(st *State, now sim.Time, j Jitter) Admission
}

// Withdrawer is implemented by a Gate whose delays are reservations (a rate limiter's tokens):
// when an operation ends while one of its attempts is held back (its deadline passed during the
// Admission's Delay), the driver calls Withdraw so that the reservation is returned.
type Withdrawer interface {
	Withdraw(st *State, now sim.Time)
}

// Notifier is implemented by a Gate whose waits may be re-checked rather than reserved: senders
// that wait on a condition and look at the limiter again when it is notified (botocore's
// blocking TokenBucket.acquire). The driver calls Notify once, with the client's wake. When it
// returns true an Admission's Delay reserves nothing: when it ends the driver asks Admit again,
// and each call of wake ends at once the wait of the held-back attempt whose current wait began
// first (a condition's notify), which then asks Admit again. When it returns false the Delays
// are final and wake is never called.
type Notifier interface {
	Notify(wake func()) bool
}

// Admission is a Gate's answer for one attempt.
type Admission struct {
	// Delay holds the attempt back this long before it is sent.
	Delay time.Duration
	// Reject fails the attempt locally without sending it.
	Reject bool
}

// Ender is implemented by a policy that keeps count of operations in progress (a concurrency
// budget). The driver calls Ended exactly once per operation begun, however it ends: success,
// failure, timeout, or no server to send it to.
type Ender interface {
	Ended(st *State, now sim.Time)
}

// Hedger is implemented by a policy that may hedge: send copies of a request without waiting
// for the earlier ones to fail. When Hedging reports ok, the driver sends the first copy at
// once and, while fewer than maxAttempts copies were sent and the operation is not over, asks
// Hedge every delay for another. The first success wins and the driver cancels the copies
// still outstanding. A copy that fails goes to Failed: Retry there means send the next copy
// now (after Decision.Backoff, a server's pushback), without waiting for the delay; a refusal
// with Why NotRetryable (a fatal error) cancels every outstanding copy and ends the operation;
// any other refusal sends no new copy, and the operation fails once none is outstanding.
type Hedger interface {
	// Hedging returns the delay between copies and the most copies per operation; ok is
	// false when the policy retries instead of hedging.
	Hedging() (delay time.Duration, maxAttempts int, ok bool)
	// Hedge asks at now whether the next copy may go (it counts the copy when it may).
	Hedge(st *State, now sim.Time) bool
}

// TokenBucket returns the client's retry token bucket, or nil when the policy has none
// (mongodb-2026-03 with adaptiveRetries off, and every other policy).
func TokenBucket(p Policy) *ratelimiter.RetryTokenBucket {
	if b, ok := p.(interface {
		retryTokens() *ratelimiter.RetryTokenBucket
	}); ok {
		return b.retryTokens()
	}
	return nil
}

const panicJitter = "retry: Jitter.Float64() = %v: must be in [0, 1]"

// backoff is jitter × min(MaxBackoff, base × 2^exp), drawing one jitter value from j. base must
// be > 0 and exp ≥ 0.
func backoff(j Jitter, base time.Duration, exp int) time.Duration {
	return backoffSteps(j, base, exp, 0)
}

// backoffSteps is backoff with the jitter rounded down to the grid k/steps when steps > 0 (the
// Go driver 2.6.0 draws k in [0, 512) and divides by 512).
func backoffSteps(j Jitter, base time.Duration, exp, steps int) time.Duration {
	ceil := base
	for i := 0; i < exp && ceil < MaxBackoff; i++ {
		ceil *= 2
	}
	ceil = min(ceil, MaxBackoff)
	x := j.Float64()
	if !(x >= 0 && x <= 1) {
		panic(fmt.Sprintf(panicJitter, x))
	}
	if steps > 0 {
		x = float64(min(int(x*float64(steps)), steps-1)) / float64(steps)
	}
	return time.Duration(x * float64(ceil))
}

// eligible decides whether f may be retried for an operation of class c under o, before any
// count, deadline or token check: the pseudocode's is_retryable, with rule 2.4 and the
// transaction rule applied. overloadRetries says the policy implements Client Backpressure
// (a retryable overload error is retryable for every command). When it returns false, why
// tells NotRetryable (no rule covers the error) from Ineligible (an option or a transaction
// forbids a retry some rule allows).
func (o *Options) eligible(c Class, f Failure, overloadRetries bool) (ok bool, why GiveUp) {
	readErr := c.RetryableRead && f.retryableRead()
	writeErr := c.RetryableWrite && f.retryableWrite()
	overloadErr := overloadRetries && f.RetryableOverload()
	if !readErr && !writeErr && !overloadErr {
		return false, NotRetryable
	}
	switch {
	case readErr && o.RetryReads && !c.InTransaction:
		return true, Continue
	case writeErr && o.RetryWrites && !c.InTransaction:
		return true, Continue
	case overloadErr && o.overloadAllowed(c):
		return true, Continue
	}
	return false, Ineligible
}

// overloadAllowed is Client Backpressure rule 2.4: a write needs retryWrites, a read retryReads,
// and runCommand both.
func (o *Options) overloadAllowed(c Class) bool {
	switch {
	case c.RunCommand:
		return o.RetryReads && o.RetryWrites
	case c.Write:
		return o.RetryWrites
	}
	return o.RetryReads
}
