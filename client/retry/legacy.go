package retry

import "github.com/overloadsim/overloadsim/sim"

// legacy is a driver from before Client Backpressure: Retryable Reads and Writes only. The
// RetryableError and SystemOverloadedError labels mean nothing to it, so an overload error is
// retried only if it is retryable on other grounds (a network error, a retryable read code, the
// RetryableWriteError label); 462 is none of these.
type legacy struct {
	opts Options
}

func newLegacy(o Options) Policy { return &legacy{opts: o} }

func (p *legacy) Name() string { return NameLegacy }

func (p *legacy) Begin(st *State, c Class, _, deadline sim.Time) {
	st.begin(c, deadline, p.opts.CSOT)
}

// Succeeded does nothing.
func (p *legacy) Succeeded(*State, sim.Time) {}

// Failed retries a retryable error at once: once without CSOT, until the deadline with it;
// sharded clusters deprioritize the failed mongos.
func (p *legacy) Failed(st *State, f Failure, now sim.Time, _ Jitter) Decision {
	st.keep(f)
	if retryable, why := p.opts.eligible(st.class, f, false); !retryable {
		return st.stop(why)
	}
	if why := st.countRetry(now); why != Continue {
		return st.stop(why)
	}
	return st.grant(Decision{Deprioritize: p.opts.Sharded})
}
