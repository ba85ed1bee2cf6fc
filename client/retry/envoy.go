package retry

import (
	"math"
	"strconv"
	"time"

	"github.com/overloadsim/overloadsim/sim"
)

// The envoy policy is Envoy's router retries (envoyproxy/envoy:
// source/common/router/retry_state_impl.cc, and the router filter's documentation,
// https://www.envoyproxy.io/docs/envoy/latest/configuration/http/http_filters/router_filter)
// with a route retry policy of retry_on "5xx", and the cluster's retry circuit breaker
// (api/envoy/config/cluster/v3/circuit_breaker.proto; source/common/upstream/resource_manager_impl.h).
//
// What is retried: retry_on 5xx retries a 5xx reply and an upstream reset (disconnect, reset,
// read timeout, connect failure). So an overload reply (taken to be a 503), a network error and
// a dispatch failure (a connect failure) are retried, except a dispatch refused by the client's
// own circuit breaker (Failure.CircuitOpen): that is Envoy's overflow reset, which the router
// never retries. Other server error replies are taken to be 4xx or application errors, which 5xx
// does not retry.
//
// After such a failure (RetryStateImpl::shouldRetry):
//
//  1. the operation's previous retry, if any, is no longer active (resetRetry);
//  2. past NumRetries retries the retry is refused (MaxRetries; retries_remaining_ == 0);
//  3. the retry circuit breaker must allow one more concurrent retry, or the retry is refused
//     (Budget; upstream_rq_retry_overflow): with no RetryBudget, fewer than MaxRetries retries
//     active in this client; with one, fewer than max(floor(BudgetPercent % × R),
//     MinRetryConcurrency) (RetryBudgetImpl::max), where R is the upstream requests active and
//     pending (rq_active + rq_pending_active: attempts sent or waiting for a connection, the
//     failed attempt itself included) or, with a BudgetInterval, the upstream requests started
//     in the last BudgetInterval (see EnvoyRetryBudget.BudgetInterval);
//  4. the backoff is drawn (JitteredExponentialBackOffStrategy, in whole milliseconds): retry n
//     waits a draw from [0, c_n) ms, c_1 = BaseInterval, c_{n+1} = 2·c_n while c_n <
//     MaxInterval/2, else MaxInterval; that is c_n = min(BaseInterval·2^(n−1), MaxInterval):
//     0–24, 0–49, 0–99, 0–199, then 0–249 ms by default.
//
// An active retry counts from its grant until the operation's next Failed, Succeeded or Ended
// (its attempt completed, or the operation ended without it), so a retry sleeping its backoff
// counts against the limit while its operation, having no upstream request, is not in R: during
// a storm the limit shrinks as the retries it allowed pile up. The policy learns when an attempt
// is sent from the driver's Gate.Admit, asked before every attempt: an upstream request counts
// from Admit until its Failed or Succeeded (or the operation's Ended). Active operations (begun,
// not yet Ended: the policy is an Ender) are shown in transcripts only. Under a deadline (the route timeout, which includes
// every retry) no retry is granted once it has passed, nor one whose backoff would end past it.
// When it gives up, the application receives the latest failure as it came.
//
// Departures and divergences. The backoff follows the code, not the router documentation, which
// still gives [0, (2^N − 1)·base) (0–24, 0–74, 0–174 ms): Envoy's strategy has doubled from the
// base since it replaced that formula. The failed attempt is still in R when its own retry is
// decided, as a 5xx reply is decided while its stream is open; after a reset Envoy's pool may
// already have released it, a difference of one. An upstream request counts from the moment the
// attempt is admitted, so server selection counts as pending. The retry budget's floor applies
// per client here, per cluster and priority in Envoy; x-envoy-max-retries and the other
// retry_on conditions are not modelled.

// EnvoyOptions are the envoy policy's options: the route's retry policy and the cluster's
// retry circuit breaker or retry budget. SetDefaults gives Envoy's defaults.
type EnvoyOptions struct {
	// NumRetries is the route retry policy's num_retries: the most retries per operation, ≥ 0.
	// Default 1.
	NumRetries int `yaml:"numRetries"`
	// BaseInterval is retry_back_off.base_interval: ≥ 1 ms, in whole milliseconds. Default 25 ms
	// (upstream.base_retry_backoff_ms).
	BaseInterval time.Duration `yaml:"baseInterval"`
	// MaxInterval is retry_back_off.max_interval: 0 means 10 × BaseInterval (Envoy's default);
	// otherwise ≥ BaseInterval, in whole milliseconds.
	MaxInterval time.Duration `yaml:"maxInterval"`
	// MaxRetries is the circuit breaker's max_retries: the most retries active at once in the
	// client, ≥ 0. Default 3. It must keep its default when RetryBudget is given, which
	// overrides it.
	MaxRetries int `yaml:"maxRetries"`
	// RetryBudget, when given, is the circuit breaker's retry_budget, which replaces MaxRetries.
	RetryBudget *EnvoyRetryBudget `yaml:"retryBudget"`
}

// EnvoyRetryBudget is the circuit breaker's retry_budget: concurrent retries are limited to a
// share of the active operations, never below a floor. It is a concurrency budget, not a rate
// budget.
type EnvoyRetryBudget struct {
	// BudgetPercent is budget_percent: the share of active operations that may be retrying, in
	// percent, in [0, 100]. Default 20.
	BudgetPercent float64 `yaml:"budgetPercent"`
	// MinRetryConcurrency is min_retry_concurrency: the limit's floor, ≥ 0. Default 3.
	MinRetryConcurrency int `yaml:"minRetryConcurrency"`
	// BudgetInterval is budget_interval (Envoy, 2026-05: envoyproxy/envoy#44147): 0, the default,
	// counts the upstream requests active and pending; otherwise the share is of the upstream
	// requests started (rq_active incremented: retries' included) in a window over the interval,
	// kept in slices of interval/10 in whole milliseconds: a request started in slice k (from the
	// client's start at 0) leaves at (k+1)·slice + interval. 0, or ≥ 10ms (below that Envoy
	// never expires the requests it counted), in whole milliseconds.
	BudgetInterval time.Duration `yaml:"budgetInterval"`
}

// Envoy's defaults.
const (
	// EnvoyDefaultBaseInterval is the default retry backoff base interval.
	EnvoyDefaultBaseInterval = 25 * time.Millisecond
	// EnvoyDefaultMaxRetries is the circuit breaker's default max_retries.
	EnvoyDefaultMaxRetries = 3
)

// SetDefaults sets Envoy's defaults: 1 retry, backoff base 25 ms capped at 10 × base, at most
// 3 concurrent retries, no retry budget.
func (e *EnvoyOptions) SetDefaults() {
	*e = EnvoyOptions{NumRetries: 1, BaseInterval: EnvoyDefaultBaseInterval, MaxRetries: EnvoyDefaultMaxRetries}
}

// SetDefaults sets retry_budget's defaults: 20 %, at least 3.
func (b *EnvoyRetryBudget) SetDefaults() {
	*b = EnvoyRetryBudget{BudgetPercent: 20, MinRetryConcurrency: 3}
}

// maxInterval is the effective max_interval.
func (e *EnvoyOptions) maxInterval() time.Duration {
	if e.MaxInterval == 0 {
		return 10 * e.BaseInterval
	}
	return e.MaxInterval
}

func (e *EnvoyOptions) validate(_ string, bad func(name, value, rule string)) {
	if e.NumRetries < 0 {
		bad("numRetries", strconv.Itoa(e.NumRetries), "must be ≥ 0")
	}
	switch {
	case e.BaseInterval < time.Millisecond:
		bad("baseInterval", e.BaseInterval.String(), "must be ≥ 1ms")
	case e.BaseInterval%time.Millisecond != 0:
		bad("baseInterval", e.BaseInterval.String(), "must be a whole number of milliseconds (Envoy's backoff counts milliseconds)")
	}
	switch m := e.MaxInterval; {
	case m == 0:
	case m < e.BaseInterval:
		bad("maxInterval", m.String(), "must be ≥ baseInterval ("+e.BaseInterval.String()+"), or 0 for 10 × baseInterval")
	case m%time.Millisecond != 0:
		bad("maxInterval", m.String(), "must be a whole number of milliseconds (Envoy's backoff counts milliseconds)")
	}
	if e.MaxRetries < 0 {
		bad("maxRetries", strconv.Itoa(e.MaxRetries), "must be ≥ 0")
	}
	if b := e.RetryBudget; b != nil {
		if e.MaxRetries != EnvoyDefaultMaxRetries && e.MaxRetries >= 0 {
			bad("maxRetries", strconv.Itoa(e.MaxRetries), "has no effect with retryBudget, which replaces it; leave it at "+
				strconv.Itoa(EnvoyDefaultMaxRetries))
		}
		if !(b.BudgetPercent >= 0 && b.BudgetPercent <= 100) {
			bad("retryBudget.budgetPercent", formatFloat(b.BudgetPercent), "must be in [0, 100] (a percentage)")
		}
		if b.MinRetryConcurrency < 0 {
			bad("retryBudget.minRetryConcurrency", strconv.Itoa(b.MinRetryConcurrency), "must be ≥ 0")
		}
		switch i := b.BudgetInterval; {
		case i == 0:
		case i < 10*time.Millisecond:
			bad("retryBudget.budgetInterval", i.String(), "must be 0 or ≥ 10ms (Envoy's window moves every interval/10 in whole milliseconds, never below 10ms)")
		case i%time.Millisecond != 0:
			bad("retryBudget.budgetInterval", i.String(), "must be a whole number of milliseconds (Envoy counts the interval in milliseconds)")
		}
	}
}

// flagUpstream (envoy): the operation's current attempt is an upstream request, active or
// pending: admitted, not yet completed.
const flagUpstream = flagProbe << 1

// envoy is the envoy policy (see the comment at the top of this file). Per-client state: the
// active operations, upstream requests and retries, and the budget interval's window. Per
// operation: State's retries, attempt (retries asked for within NumRetries), and the flags
// flagRetryActive, flagUpstream and flagEnded.
type envoy struct {
	o               EnvoyOptions
	baseMS, maxMS   int64
	active, retries int // operations begun and not ended; granted retries not yet completed
	upstream        int // upstream requests active or pending: attempts admitted, not completed
	window          envoyWindow
	seen            sim.Time // the latest time the policy was told, for clientState
}

func newEnvoy(o Options) Policy {
	e := own[EnvoyOptions](o)
	p := &envoy{o: e, baseMS: e.BaseInterval.Milliseconds(), maxMS: e.maxInterval().Milliseconds()}
	if b := e.RetryBudget; b != nil && b.BudgetInterval > 0 {
		p.window = newEnvoyWindow(b.BudgetInterval)
	}
	return p
}

// envoyWindow counts the upstream requests started in the budget interval as Envoy's
// RetryBudgetImpl does: a timer every slice = interval/10 (whole milliseconds) hands the requests
// counted since the previous tick to a timer that removes them interval later.
type envoyWindow struct {
	slice, interval time.Duration
	slots           []envoySlot // ring, indexed by slice number modulo its length
}

// envoySlot is the requests started in slice k.
type envoySlot struct {
	k, n int64
}

func newEnvoyWindow(interval time.Duration) envoyWindow {
	slice := time.Duration(interval.Milliseconds()/10) * time.Millisecond
	w := envoyWindow{slice: slice, interval: interval, slots: make([]envoySlot, int(interval/slice)+3)}
	for i := range w.slots {
		w.slots[i].k = -1
	}
	return w
}

// add counts a request started at now (RetryBudgetImpl::writeRequest).
func (w *envoyWindow) add(now sim.Time) {
	k := int64(time.Duration(now) / w.slice)
	s := &w.slots[k%int64(len(w.slots))]
	if s.k != k {
		*s = envoySlot{k: k}
	}
	s.n++
}

// count is the requests still in the window at now: those of slices k whose removal,
// (k+1)·slice + interval, is after now.
func (w *envoyWindow) count(now sim.Time) int64 {
	var n int64
	for _, s := range w.slots {
		if s.k >= 0 && time.Duration(s.k+1)*w.slice+w.interval > time.Duration(now) {
			n += s.n
		}
	}
	return n
}

func (p *envoy) Name() string { return NameEnvoy }

// Begin starts an operation, which is active until Ended.
func (p *envoy) Begin(st *State, c Class, now, deadline sim.Time) {
	p.seen = max(p.seen, now)
	st.beginOther(c, deadline, p.o.NumRetries)
	p.active++
}

// Admit counts the attempt about to be sent as an upstream request (and, with a budget
// interval, as one started now); it never holds an attempt back.
func (p *envoy) Admit(st *State, now sim.Time, _ Jitter) Admission {
	p.seen = max(p.seen, now)
	if !st.hasFlag(flagUpstream) {
		st.setFlag(flagUpstream)
		p.upstream++
		if p.window.slots != nil {
			p.window.add(now)
		}
	}
	return Admission{}
}

// complete ends the operation's upstream request, if it has one.
func (p *envoy) complete(st *State) {
	if st.hasFlag(flagUpstream) {
		st.clearFlag(flagUpstream)
		p.upstream--
	}
}

// settle ends the operation's active retry, if it has one.
func (p *envoy) settle(st *State) {
	if st.hasFlag(flagRetryActive) {
		st.clearFlag(flagRetryActive)
		p.retries--
	}
}

// Succeeded ends the operation's active retry and its upstream request.
func (p *envoy) Succeeded(st *State, now sim.Time) {
	p.seen = max(p.seen, now)
	p.settle(st)
	p.complete(st)
}

// Ended ends the operation's active retry, its upstream request and the operation itself; a
// second call does nothing.
func (p *envoy) Ended(st *State, now sim.Time) {
	p.seen = max(p.seen, now)
	p.settle(st)
	p.complete(st)
	if !st.hasFlag(flagEnded) {
		st.setFlag(flagEnded)
		p.active--
	}
}

// Failed follows RetryStateImpl::shouldRetry (see the comment at the top of this file). The failed
// attempt's upstream request completes after the decision.
func (p *envoy) Failed(st *State, f Failure, now sim.Time, j Jitter) Decision {
	defer p.complete(st)
	p.seen = max(p.seen, now)
	p.settle(st)
	st.keepLatest(f)
	switch Kind(f) {
	case KindOverload:
		st.overload = true
	case KindNetwork:
	case KindDispatch:
		if f.CircuitOpen {
			return st.stop(NotRetryable)
		}
	default:
		return st.stop(NotRetryable)
	}
	if why := st.countRetry(now); why != Continue {
		return st.stop(why)
	}
	if p.retries >= p.retryLimit(now) {
		return st.stop(Budget)
	}
	d := p.backoff(st.retries+1, j)
	if st.pastDeadline(now, d) {
		return st.stop(Deadline)
	}
	p.retries++
	st.setFlag(flagRetryActive)
	st.last = d
	return st.grant(Decision{Backoff: d})
}

// retryLimit is the retry circuit breaker's limit on concurrent retries now: max_retries, or the
// retry budget's share of the upstream requests active and pending, or of those started in the
// budget interval (RetryBudgetImpl::max).
func (p *envoy) retryLimit(now sim.Time) int {
	b := p.o.RetryBudget
	if b == nil {
		return p.o.MaxRetries
	}
	requests := int64(p.upstream)
	if p.window.slots != nil {
		requests = p.window.count(now)
	}
	return max(int(math.Floor(b.BudgetPercent/100*float64(requests))), b.MinRetryConcurrency)
}

// backoff is the delay before retry n (n ≥ 1): a whole number of milliseconds drawn from
// [0, c_n) (see the comment at the top of this file).
func (p *envoy) backoff(n int, j Jitter) time.Duration {
	c := p.baseMS
	for i := 1; i < n && c < p.maxMS; i++ {
		if c < p.maxMS/2 {
			c *= 2
		} else {
			c = p.maxMS
		}
	}
	ms := min(int64(drawJitter(j)*float64(c)), c-1)
	return time.Duration(ms) * time.Millisecond
}

// failureClass names what the router makes of f, for transcripts.
func (p *envoy) failureClass(f Failure) string {
	switch Kind(f) {
	case KindOverload:
		return "503: retry_on 5xx"
	case KindNetwork:
		return "reset: retry_on 5xx"
	case KindDispatch:
		if f.CircuitOpen {
			return "overflow: never retried"
		}
		return "connect-failure: retry_on 5xx"
	}
	return "not 5xx: not retried"
}

// clientState describes the circuit breaker at the latest time the policy was told, for
// transcripts.
func (p *envoy) clientState() string {
	s := "active=" + strconv.Itoa(p.active) + " upstream=" + strconv.Itoa(p.upstream)
	if p.window.slots != nil {
		s += " inInterval=" + strconv.FormatInt(p.window.count(p.seen), 10)
	}
	return s + " retrying=" + strconv.Itoa(p.retries) + "/" + strconv.Itoa(p.retryLimit(p.seen))
}

// EnvoyActive returns the envoy policy's active operations and active retries; ok is false when
// p is not that policy.
func EnvoyActive(p Policy) (operations, retries int, ok bool) {
	e, isEnvoy := p.(*envoy)
	if !isEnvoy {
		return 0, 0, false
	}
	return e.active, e.retries, true
}
