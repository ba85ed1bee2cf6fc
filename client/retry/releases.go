package retry

import (
	"strings"
	"time"

	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
)

// rules are how a shipped driver release line runs the overload retry loop, where it departs
// from the spec texts. Each field is a rule the conformance lab measured on the real releases
// (lab/, docs/drivers.md); the zero value of every field is the 2026-07 text's rule.
type rules struct {
	// goBudget selects the Go driver's loop (failedGo). Its budget: maxAdaptiveRetries covers
	// the decision after an overload error and the one after the attempt that follows it; every
	// other decision uses the operation's default budget (one retry, or unlimited once a
	// deadline is set), where the spec keeps MAX_RETRIES for the rest of the operation once an
	// overload error is seen. Its error propagation: the latest error, unless it carries
	// NoWritesPerformed; then the first retried error (replaced by any later retried server
	// error without the label), which is judged again by the retry rules once.
	goBudget bool
	// overloadExponent says the backoff's exponent counts overload retries only (Go); the spec
	// counts every retry.
	overloadExponent bool
	// shift is added to the exponent: -1 makes the first retry's ceiling BASE (Go before 2.9,
	// Node 7.2–7.5); 0 makes it 2×BASE, as in the 2026-07 text.
	shift int
	// ignoreServerBase says a reply's baseBackoffMS is ignored (Go before 2.9, Node before 7.6).
	ignoreServerBase bool
	// jitterSteps, when > 0, draws the jitter on the grid k/jitterSteps, k < jitterSteps (Go
	// 2.6.0: 512 steps); 0 draws it as the spec does.
	jitterSteps int
	// handshakeNotRetried says a failed connection establishment ends the operation with the
	// previous attempt's error, or with its own when there was none (Go).
	handshakeNotRetried bool
	// nwpSuccess is the bug of Go 2.6.0–2.8.0 and 2.9.0–2.9.1: a write whose first attempt's
	// error carries NoWritesPerformed and is not retried reports success to the application (a
	// read fails to decode the error reply instead, which the model reports as the error).
	nwpSuccess bool
	// nwpAllOps says the NoWritesPerformed propagation rule applies to reads too (Node).
	nwpAllOps bool
	// cursorNoCut says an operation that opens a cursor never has its backoff cut at the CSOT
	// deadline: it sleeps and then times out (Node 7.2–7.7).
	cursorNoCut bool
	// timeoutIgnored says the driver ignores timeoutMS (Node 7.8 and later): a scenario that
	// sets it is refused for the preset (IgnoresTimeoutMS).
	timeoutIgnored bool
}

// Release rule sets, one per behaviour class (docs/drivers.md §1 lists the releases in each and
// the lab experiments that tell them apart).
var (
	goV26  = rules{goBudget: true, overloadExponent: true, shift: -1, ignoreServerBase: true, jitterSteps: 512, handshakeNotRetried: true, nwpSuccess: true}
	goV27  = rules{goBudget: true, overloadExponent: true, shift: -1, ignoreServerBase: true, handshakeNotRetried: true, nwpSuccess: true}
	goV281 = rules{goBudget: true, overloadExponent: true, shift: -1, ignoreServerBase: true, handshakeNotRetried: true}
	goV29  = rules{goBudget: true, overloadExponent: true, handshakeNotRetried: true, nwpSuccess: true}
	goV292 = rules{goBudget: true, overloadExponent: true, handshakeNotRetried: true}
	nodeV2 = rules{shift: -1, ignoreServerBase: true, nwpAllOps: true, cursorNoCut: true}
	nodeV6 = rules{nwpAllOps: true, cursorNoCut: true}
	nodeV8 = rules{nwpAllOps: true, timeoutIgnored: true}
)

// releases maps each release a preset covers to its rule set, in registry order.
var releases = []struct {
	name  string
	rules *rules
}{
	{"go-2.6.0", &goV26},
	{"go-2.7.0", &goV27}, {"go-2.8.0", &goV27},
	{"go-2.8.1", &goV281}, {"go-2.8.2", &goV281},
	{"go-2.9.0", &goV29}, {"go-2.9.1", &goV29},
	{"go-2.9.2", &goV292}, {"go-2.9.3", &goV292}, {"go-2.10.0", &goV292},
	{"node-7.2.0", &nodeV2}, {"node-7.3.0", &nodeV2}, {"node-7.4.0", &nodeV2}, {"node-7.5.0", &nodeV2},
	{"node-7.6.0", &nodeV6}, {"node-7.7.0", &nodeV6},
	{"node-7.8.0", &nodeV8}, {"node-7.9.0", &nodeV8},
}

// Release reports whether the policy called name is a driver release preset ("go-2.10.0",
// "node-7.9.0"): the retry loop as that release ships it, measured by the conformance lab.
func Release(name string) bool { return releaseRules(name) != nil }

// IgnoresTimeoutMS reports whether the release preset called name ignores the timeoutMS option
// (the Node driver from 7.8.0, where it is deprecated): a scenario must not set it there.
func IgnoresTimeoutMS(name string) bool {
	r := releaseRules(name)
	return r != nil && r.timeoutIgnored
}

func releaseRules(name string) *rules {
	for _, r := range releases {
		if r.name == name {
			return r.rules
		}
	}
	return nil
}

// releaseEntries returns the registry entries of the release presets.
func releaseEntries() []entry {
	var out []entry
	for _, r := range releases {
		name, rs := r.name, r.rules
		out = append(out, entry{name, optMaxAdaptive | optRetargeting, nil, func(o Options) Policy {
			return &release{name: name, r: rs, opts: o}
		}})
	}
	return out
}

// release is a driver release's retry loop: the 2026-07 text's shape (maxAdaptiveRetries,
// overload retargeting, no token bucket) with the release's departures; with none it is the
// mongodb-2026-07 policy.
type release struct {
	name string
	r    *rules
	opts Options
}

func (p *release) Name() string { return p.name }

func (p *release) Begin(st *State, c Class, _, deadline sim.Time) {
	st.begin(c, deadline, p.opts.CSOT && !p.r.timeoutIgnored)
	if p.r.goBudget {
		// The Go driver's default budget: one retry when ordinary retries are on for the
		// operation, unlimited under a deadline; overload retries bring their own budget.
		st.allowed = 1
		if st.csot {
			st.allowed = unlimited
		}
	}
}

// Succeeded does nothing: no release carries a token bucket.
func (p *release) Succeeded(*State, sim.Time) {}

// Failed decides as the release does.
func (p *release) Failed(st *State, f Failure, now sim.Time, j Jitter) Decision {
	if p.r.goBudget {
		return p.failedGo(st, f, now, j)
	}
	return p.failedNode(st, f, now, j)
}

// failedNode is the 2026-07 text's order: eligibility, the attempt count and MAX_RETRIES (kept
// once an overload error is seen), the deadline, then the backoff after an overload error, with
// the release's exponent, base, propagation and deadline rules. With no departures it is the
// text's loop (mongodb-2026-07).
func (p *release) failedNode(st *State, f Failure, now sim.Time, j Jitter) Decision {
	p.keep(st, f)
	retryable, why := p.opts.eligible(st.class, f, true)
	overload := f.Overloaded()
	if !retryable {
		return st.stop(why)
	}
	st.attempt++
	if overload {
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
		d.Backoff = p.backoff(j, f, st.attempt)
		if !(p.r.cursorNoCut && st.class.Cursor) && st.pastDeadline(now, d.Backoff) {
			return st.stop(Deadline)
		}
	}
	return st.grant(d)
}

// keep records f for propagation: the spec's rule, or for nwpAllOps the writes' rule for
// every operation.
func (p *release) keep(st *State, f Failure) {
	if !p.r.nwpAllOps || st.class.writeLike() {
		st.keep(f)
		return
	}
	c := st.class
	st.class.Write = true // the writes' rule, for this one decision
	st.keep(f)
	st.class = c
}

// failedGo is the Go driver's loop. The State holds its variables: attempt (retries so far),
// allowed (the default budget), overloadRetries (the backoff's exponent), kept (the previous
// error, prevErr), indefinite (prevIndefiniteErr) and flagPrevOverload.
func (p *release) failedGo(st *State, f Failure, now sim.Time, j Jitter) Decision {
	if f.Handshake && p.r.handshakeNotRetried {
		// The checkout's error is not one the loop retries: the previous error, if any.
		if st.hasKept {
			return st.stop(NotRetryable)
		}
		st.kept, st.hasKept = f, true
		return st.stop(NotRetryable)
	}
	prevOverload := st.hasFlag(flagPrevOverload)
	reEvaluated := false
	for {
		overload := f.Overloaded()
		maxAdaptive := 0
		if p.opts.overloadAllowed(st.class) {
			maxAdaptive = p.opts.MaxAdaptiveRetries
		}
		budget := st.allowed
		if (overload || prevOverload) && maxAdaptive != 0 {
			budget = maxAdaptive
		}
		ordinary, _ := p.opts.eligible(st.class, f, false)
		need := ordinary || (maxAdaptive != 0 && f.RetryableOverload())
		if need && st.attempt < budget {
			return p.retryGo(st, f, overload && maxAdaptive != 0, overload, now, j)
		}
		if f.Labels.Has(wire.NoWritesPerformed) && !reEvaluated {
			if st.hasFlag(flagIndefinite) {
				// The first retried error (or a later retried server error without the label)
				// is judged again, with this decision's budget.
				f, reEvaluated = st.indefinite, true
				prevOverload = prevOverload || overload
				continue
			}
			if p.r.nwpSuccess && st.class.writeLike() {
				return Decision{Why: NotRetryable, Succeed: true}
			}
		}
		st.kept, st.hasKept = f, true
		why := NotRetryable
		if need {
			why = MaxRetries
		}
		return st.stop(why)
	}
}

// retryGo grants a Go retry of f: records it as the previous (and maybe indefinite) error, then
// backs off after an overload error, returning f itself when the backoff would pass the deadline.
func (p *release) retryGo(st *State, f Failure, budgeted, overload bool, now sim.Time, j Jitter) Decision {
	st.attempt++
	st.kept, st.hasKept = f, true
	if !st.hasFlag(flagIndefinite) || !f.Labels.Has(wire.NoWritesPerformed) && f.Code != 0 && !f.Network {
		st.indefinite = f
		st.setFlag(flagIndefinite)
	}
	st.clearFlag(flagPrevOverload)
	if budgeted { // the next decision's budget is maxAdaptiveRetries too
		st.setFlag(flagPrevOverload)
	}
	st.overload = st.overload || overload
	d := Decision{Deprioritize: p.opts.Sharded || (overload && p.opts.EnableOverloadRetargeting)}
	if overload {
		st.overloadRetries++
		n := st.attempt // the spec's exponent: every retry so far
		if p.r.overloadExponent {
			n = st.overloadRetries
		}
		d.Backoff = p.backoff(j, f, n)
		if st.csot && now.Add(d.Backoff) > st.deadline {
			return st.stop(Deadline)
		}
	}
	return st.grant(d)
}

// backoff draws the release's backoff before retry n (the exponent's count, from 1).
func (p *release) backoff(j Jitter, f Failure, n int) time.Duration {
	base := BaseBackoff
	if !p.r.ignoreServerBase {
		base = baseOf(f)
	}
	return backoffSteps(j, base, n+p.r.shift, p.r.jitterSteps)
}

// releaseNames lists the release presets' names, for documentation.
func releaseNames() string {
	var names []string
	for _, r := range releases {
		names = append(names, r.name)
	}
	return strings.Join(names, ", ")
}
