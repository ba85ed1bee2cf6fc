package retry

import (
	"time"

	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
)

// Couchbase SDK3 defaults (RFC 0049 and the JVM core's TimeoutConfig and BestEffortRetryStrategy,
// docs/model.md §9.9).
const (
	// DefaultKVTimeout is the KV request timeout (kvTimeout).
	DefaultKVTimeout = 2500 * time.Millisecond
	// DefaultQueryTimeout is the query request timeout (queryTimeout); search and views default
	// to the same 75 s.
	DefaultQueryTimeout = 75 * time.Second
	// BestEffortMaxDelay is the upper bound of the reference exponential backoff: "Boundaries
	// between 1ms and 500ms".
	BestEffortMaxDelay = 500 * time.Millisecond
)

// controlledLadder is the orchestrator's "Controlled Backoff for Always Retry": 1, 10, 50, 100,
// 500 ms for retry attempts 0–4, then 1000 ms.
var controlledLadder = [...]time.Duration{
	time.Millisecond, 10 * time.Millisecond, 50 * time.Millisecond, 100 * time.Millisecond, 500 * time.Millisecond,
}

// ControlledBackoff returns the orchestrator's delay for an always-retry reason, given the
// retries the request has had so far (the switch on retryAttempt in RFC 0049).
func ControlledBackoff(retryAttempts int) time.Duration {
	if retryAttempts >= 0 && retryAttempts < len(controlledLadder) {
		return controlledLadder[retryAttempts]
	}
	return time.Second
}

// BestEffortBackoff is the reference backoff calculator of the BestEffort strategy, the JVM
// core's Backoff.exponential(1 ms, 500 ms, factor 2, basedOnPreviousValue false), which RFC 0049
// ("Best Effort") links as its reference. For the retry that follows retryAttempts = n retries,
// given the delay the previous retry was dispatched after (RequestContext.lastRetryDuration; 0
// before the first retry):
//
//	if the previous delay ≥ 500 ms:  500 ms
//	else:                            1 ms × (long)2^(n−1)
//
// Nothing else bounds it: the strategy takes BackoffDelay.delay() as computed, without the
// min/max sanitising of the reactor retry loop. So the integer truncation makes the first retry
// (n = 0, 2^−1 = 0.5) immediate; then 1, 2, 4, … 256 ms; the retry after 10 retries gets 2^9 =
// 512 ms, and every later one 500 ms, because the one before it was at least 500 ms. No jitter.
// A previous delay under 500 ms after ten retries cannot happen (docs/model.md §9.9); such a call
// is held at 2^40 ms, which any request deadline caps, rather than overflow.
func BestEffortBackoff(retryAttempts int, lastRetryDuration time.Duration) time.Duration {
	const maxShift = 40
	switch {
	case lastRetryDuration >= BestEffortMaxDelay:
		return BestEffortMaxDelay
	case retryAttempts <= 0:
		return 0
	}
	return time.Millisecond << min(retryAttempts-1, maxShift)
}

// strategy is a Couchbase RetryStrategy: retryAfter answers a delay, or ok = false for
// RetryAction.noRetry(). last is the request's lastRetryDuration (0 before the first retry).
type strategy interface {
	retryAfter(st *State, r Reason, last time.Duration) (d time.Duration, ok bool)
}

// bestEffort is the BestEffort strategy: retry if the request is idempotent or the reason
// allows non-idempotent retry, after the reference backoff.
type bestEffort struct{}

func (bestEffort) retryAfter(st *State, r Reason, last time.Duration) (time.Duration, bool) {
	if st.class.Idempotent || r.AllowsNonIdempotentRetry() {
		return BestEffortBackoff(st.retries, last), true
	}
	return 0, false
}

// failFast is the user-written FailFast strategy the RFC shows: never retry. The orchestrator
// still retries always-retry reasons.
type failFast struct{}

func (failFast) retryAfter(*State, Reason, time.Duration) (time.Duration, bool) { return 0, false }

// couchbase is a Couchbase SDK3 client's retry handling: the RetryOrchestrator with a
// RetryStrategy. Per request it keeps the RFC's annotation in State: idempotent (Class), retry
// attempts (State.Retries), the retry reasons so far (State.Reasons) and the request's
// deadline, from the per-service timeout (RequestTimeout).
type couchbase struct {
	name     string
	opts     Options
	strategy strategy
	refused  GiveUp // why the strategy's noRetry gives up: NotRetryable, or Disabled for fail-fast
}

func newCouchbaseBestEffort(o Options) Policy {
	return &couchbase{name: NameCouchbaseBestEffort, opts: o, strategy: bestEffort{}, refused: NotRetryable}
}

func newCouchbaseFailFast(o Options) Policy {
	return &couchbase{name: NameCouchbaseFailFast, opts: o, strategy: failFast{}, refused: Disabled}
}

func (p *couchbase) Name() string { return p.name }

// Begin starts a request with its deadline (now + RequestTimeout, which the client computes).
func (p *couchbase) Begin(st *State, c Class, _, deadline sim.Time) {
	st.begin(c, deadline, false)
}

// Succeeded does nothing: Couchbase retry handling keeps no state across requests.
func (p *couchbase) Succeeded(*State, sim.Time) {}

// RequestTimeout is the per-request timeout of a request of class c: kvTimeout for the data
// service, queryTimeout for query, searchTimeout for search, 75 s for views.
func (p *couchbase) RequestTimeout(c Class) time.Duration {
	return p.opts.requestTimeout(c)
}

// Failed hands a failed attempt to the RFC's RetryOrchestrator.maybeRetry, line by line:
//
//	if reason.alwaysRetry(): dispatch after controlledBackoff(retryAttempts);
//	    incrementRetryAttempts; log; return
//	action = strategy.retryAfter(request, reason)
//	if action has a duration: incrementRetryAttempts; log;
//	    dispatch after potentiallyCapDuration(duration)
//	else: logNotRetried; fail the request
//
// Only a failure with one of the RFC's retry reasons gets there. An UNKNOWN one (a response the
// "Response Code Retry List" does not name, or KV Locked on unlock) fails the request at once,
// whatever the strategy and the request's idempotency: "once a complete, known response is
// received it should not be retried, unless specifically outlined in this list", and "All
// unexpected/unknown retry errors must not be retried" (RFC 0049, "Response Code Retry List" and
// "RetryReason"); KV Locked on unlock "the retry handler should never see".
//
// "Log" is Decision.Reason, which the client counts per reason, retried or not; a request failed
// for UNKNOWN is counted as not retried for UNKNOWN. The pseudocode caps only the strategy's
// delay; the JVM core caps the controlled backoff the same way, and so does this: either way the
// request ends at its deadline, never later. A capped delay is the time left to the deadline, and
// such a retry is cancelled when it fires (Decision.Cancel). f is what the application receives
// if the request fails now: the latest error.
func (p *couchbase) Failed(st *State, f Failure, now sim.Time, _ Jitter) Decision {
	st.kept, st.hasKept = f, true
	reason := ReasonOf(f, st.class)
	if reason == ReasonUnknown {
		dec := st.stop(NotRetryable)
		dec.Reason = reason
		return dec
	}
	var d time.Duration
	if reason.AlwaysRetry() {
		d = ControlledBackoff(st.retries)
	} else {
		var ok bool
		if d, ok = p.strategy.retryAfter(st, reason, st.last); !ok {
			dec := st.stop(p.refused)
			dec.Reason = reason
			return dec
		}
	}
	st.attempt++
	st.reasons |= 1 << reason
	st.last = d
	dec := Decision{Backoff: d, Reason: reason}
	if st.deadline != sim.Never && now.Add(d) >= st.deadline {
		// Capping the Retry Duration: "it must be capped to that limit", and when it fires the
		// request has timed out, so it is cancelled instead of being sent again.
		dec.Backoff, dec.Cancel = max(st.deadline.Sub(now), 0), true
	}
	return st.grant(dec)
}

// requestTimeout returns the timeout for a request of class c, from the options or defaults.
func (o *Options) requestTimeout(c Class) time.Duration {
	pick := func(v, def time.Duration) time.Duration {
		if v > 0 {
			return v
		}
		return def
	}
	switch c.Service {
	case wire.ServiceKV:
		return pick(o.KVTimeout, DefaultKVTimeout)
	case wire.ServiceQuery:
		return pick(o.QueryTimeout, DefaultQueryTimeout)
	case wire.ServiceSearch:
		return pick(o.SearchTimeout, DefaultQueryTimeout)
	}
	return DefaultQueryTimeout // views, and anything else
}

// RequestTimeout returns the per-request timeout policy p gives a request of class c, and
// whether p has one (the Couchbase policies; MongoDB's use timeoutMS instead).
func RequestTimeout(p Policy, c Class) (time.Duration, bool) {
	if t, ok := p.(interface{ RequestTimeout(Class) time.Duration }); ok {
		return t.RequestTimeout(c), true
	}
	return 0, false
}
