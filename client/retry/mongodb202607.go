package retry

import (
	"time"

	"github.com/overloadsim/overloadsim/sim"
)

// mongodb202607 is the later Client Backpressure text: MAX_RETRIES = maxAdaptiveRetries,
// backoff jitter × min(10 s, BASE × 2^attempt) with the server's baseBackoffMS as BASE when
// positive, overload retargeting as an option, no token bucket.
type mongodb202607 struct {
	opts Options
}

func newMongoDB202607(o Options) Policy { return &mongodb202607{opts: o} }

func (p *mongodb202607) Name() string { return NameMongoDB202607 }

func (p *mongodb202607) Begin(st *State, c Class, _, deadline sim.Time) {
	st.begin(c, deadline, p.opts.CSOT)
}

// Succeeded does nothing: there is no token bucket.
func (p *mongodb202607) Succeeded(*State, sim.Time) {}

// Failed is the 2026-03 order without the bucket steps, with the 2026-07 exponent and base and
// deprioritization gated on enableOverloadRetargeting outside sharded clusters.
func (p *mongodb202607) Failed(st *State, f Failure, now sim.Time, j Jitter) Decision {
	st.keep(f)
	retryable, why := p.opts.eligible(st.class, f, true)
	overload := f.Overloaded()
	if !retryable {
		return st.stop(why)
	}
	st.attempt++
	if overload {
		// Once any overload error is seen, MAX_RETRIES caps every retry, overload or not.
		st.allowed, st.overload = p.opts.MaxAdaptiveRetries, true
	}
	if st.attempt > st.allowed {
		return st.stop(MaxRetries)
	}
	if st.expired(now) {
		return st.stop(Deadline)
	}
	d := Decision{Deprioritize: p.opts.Sharded || (overload && p.opts.EnableOverloadRetargeting)}
	if overload {
		d.Backoff = backoff(j, baseOf(f), st.attempt)
		if st.pastDeadline(now, d.Backoff) {
			return st.stop(Deadline)
		}
	}
	return st.grant(d)
}

// baseOf returns BASE for f: its baseBackoffMS when positive, else BaseBackoff.
func baseOf(f Failure) time.Duration {
	const maxMS = int64(MaxBackoff / time.Millisecond)
	if f.BaseBackoffMS > 0 {
		return time.Duration(min(f.BaseBackoffMS, maxMS)) * time.Millisecond
	}
	return BaseBackoff
}
