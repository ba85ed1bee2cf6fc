package retry

import (
	"github.com/overloadsim/overloadsim/ratelimiter"
	"github.com/overloadsim/overloadsim/sim"
)

// mongodb202603 is Client Backpressure as in its 2026-03 text: MAX_RETRIES 5, backoff
// jitter × min(10 s, 100 ms × 2^(attempt−1)), and the optional adaptiveRetries token bucket.
type mongodb202603 struct {
	opts   Options
	bucket *ratelimiter.RetryTokenBucket // nil unless AdaptiveRetries
}

func newMongoDB202603(o Options) Policy {
	p := &mongodb202603{opts: o}
	if o.AdaptiveRetries {
		// The capacity was validated: NewRetryTokenBucket cannot fail.
		p.bucket, _ = ratelimiter.NewRetryTokenBucket(o.capacity())
	}
	return p
}

func (p *mongodb202603) Name() string { return NameMongoDB202603 }

func (p *mongodb202603) retryTokens() *ratelimiter.RetryTokenBucket { return p.bucket }

func (p *mongodb202603) Begin(st *State, c Class, _, deadline sim.Time) {
	st.begin(c, deadline, p.opts.CSOT)
}

// Succeeded deposits RETRY_TOKEN_RETURN_RATE, plus 1 if the success came on a retry (adaptive
// retry rules 1 and 2).
func (p *mongodb202603) Succeeded(st *State, _ sim.Time) {
	if p.bucket != nil {
		tokens := ratelimiter.RetryTokenReturn
		if st.attempt > 0 {
			tokens += 1
		}
		p.bucket.Deposit(tokens)
	}
}

// Failed follows the except-branch of the spec's execute_command_retryable line by line; the
// only addition is CSOT's isExpired before any retry (see the package doc).
func (p *mongodb202603) Failed(st *State, f Failure, now sim.Time, j Jitter) Decision {
	st.keep(f)
	retryable, why := p.opts.eligible(st.class, f, true)
	overload := f.Overloaded()
	// If a retry fails with an error which is not an overload error, deposit 1 token.
	if p.bucket != nil && st.attempt > 0 && !overload {
		p.bucket.Deposit(ratelimiter.RetryCost)
	}
	if !retryable {
		return st.stop(why)
	}
	st.attempt++
	if overload {
		st.allowed, st.overload = FixedMaxRetries, true
	}
	if st.attempt > st.allowed {
		return st.stop(MaxRetries)
	}
	if st.expired(now) {
		return st.stop(Deadline)
	}
	d := Decision{Deprioritize: p.opts.Sharded || overload}
	if overload {
		d.Backoff = backoff(j, BaseBackoff, st.attempt-1)
		if st.pastDeadline(now, d.Backoff) {
			return st.stop(Deadline)
		}
		if p.bucket != nil && !p.bucket.Consume(ratelimiter.RetryCost) {
			return st.stop(NoToken)
		}
	}
	return st.grant(d)
}
