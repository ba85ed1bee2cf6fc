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
//     active in this client; with one, fewer than max(floor(BudgetPercent % × active
//     operations), MinRetryConcurrency);
//  4. the backoff is drawn (JitteredExponentialBackOffStrategy, in whole milliseconds): retry n
//     waits a draw from [0, c_n) ms, c_1 = BaseInterval, c_{n+1} = 2·c_n while c_n <
//     MaxInterval/2, else MaxInterval; that is c_n = min(BaseInterval·2^(n−1), MaxInterval):
//     0–24, 0–49, 0–99, 0–199, then 0–249 ms by default.
//
// An active retry counts from its grant until the operation's next Failed, Succeeded or Ended
// (its attempt completed, or the operation ended without it); active operations are those begun
// and not yet Ended (the policy is an Ender). Under a deadline (the route timeout, which includes
// every retry) no retry is granted once it has passed, nor one whose backoff would end past it.
// When it gives up, the application receives the latest failure as it came.
//
// Departures and divergences. The backoff follows the code, not the router documentation, which
// still gives [0, (2^N − 1)·base) (0–24, 0–74, 0–174 ms): Envoy's strategy has doubled from the
// base since it replaced that formula. Envoy's retry budget counts active and pending upstream
// requests (attempts on the wire or waiting for a connection); the policy counts operations from
// Begin to Ended, so an operation sleeping its backoff still counts. The retry budget's floor
// applies per client here, per cluster and priority in Envoy; x-envoy-max-retries and the other
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

func (e *EnvoyOptions) validate(bad func(name, value, rule string)) {
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
	}
}

// envoy is the envoy policy (see the comment at the top of this file). Per-client state: the
// active operations and retries. Per operation: State's retries, attempt (retries asked for
// within NumRetries), and the flags flagRetryActive and flagEnded.
type envoy struct {
	o               EnvoyOptions
	baseMS, maxMS   int64
	active, retries int // operations begun and not ended; granted retries not yet completed
}

func newEnvoy(o Options) Policy {
	e := orDefault(o.Envoy)
	return &envoy{o: e, baseMS: e.BaseInterval.Milliseconds(), maxMS: e.maxInterval().Milliseconds()}
}

func (p *envoy) Name() string { return NameEnvoy }

// Begin starts an operation, which is active until Ended.
func (p *envoy) Begin(st *State, c Class, _, deadline sim.Time) {
	st.beginOther(c, deadline, p.o.NumRetries)
	p.active++
}

// settle ends the operation's active retry, if it has one.
func (p *envoy) settle(st *State) {
	if st.hasFlag(flagRetryActive) {
		st.clearFlag(flagRetryActive)
		p.retries--
	}
}

// Succeeded ends the operation's active retry.
func (p *envoy) Succeeded(st *State, _ sim.Time) { p.settle(st) }

// Ended ends the operation's active retry and the operation itself; a second call does nothing.
func (p *envoy) Ended(st *State, _ sim.Time) {
	p.settle(st)
	if !st.hasFlag(flagEnded) {
		st.setFlag(flagEnded)
		p.active--
	}
}

// Failed follows RetryStateImpl::shouldRetry (see the comment at the top of this file).
func (p *envoy) Failed(st *State, f Failure, now sim.Time, j Jitter) Decision {
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
	if p.retries >= p.retryLimit() {
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

// retryLimit is the retry circuit breaker's limit on concurrent retries now.
func (p *envoy) retryLimit() int {
	b := p.o.RetryBudget
	if b == nil {
		return p.o.MaxRetries
	}
	return max(int(math.Floor(b.BudgetPercent/100*float64(p.active))), b.MinRetryConcurrency)
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

// clientState describes the circuit breaker, for transcripts.
func (p *envoy) clientState() string {
	return "active=" + strconv.Itoa(p.active) + " retrying=" + strconv.Itoa(p.retries) + "/" + strconv.Itoa(p.retryLimit())
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
