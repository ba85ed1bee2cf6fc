package retry

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/overloadsim/overloadsim/sim"
)

// The custom policy is a kit: an attempt limit, a set of error kinds to retry, a backoff, and
// optionally a client-wide retry token bucket and a retry-suppressing circuit breaker, each
// configured in its own block. After a failed attempt it decides, in this order:
//
//  1. the attempt's outcome goes to the breaker, if any (see CustomBreaker);
//  2. an error whose Kind is not in RetryOn is not retried (NotRetryable);
//  3. a retry past MaxAttempts is refused (MaxRetries);
//  4. under a deadline, an operation whose deadline has passed is not retried (Deadline);
//  5. an open breaker, or a half-open one whose probes are all out, refuses the retry (Breaker);
//  6. the backoff is drawn; a backoff that would end past the deadline refuses it (Deadline);
//  7. the bucket must hold Cost tokens, which the retry spends (Budget otherwise).
//
// So a retry refused for time or by the breaker never spends a token. First attempts are never
// held back: the breaker suppresses retries only, the variant Marc Brooker's "Fixing retries with
// token buckets and circuit breakers" (https://brooker.co.za/blog/2022/02/28/retries.html)
// compares with the token bucket. When it gives up, the application receives the latest failure
// as it came.

// Defaults of the custom policy's blocks.
const (
	// CustomDefaultMaxAttempts is the kit's attempt limit, the first attempt included: the
	// common "three attempts" of resilience4j's Retry (maxAttempts 3) and the AWS SDKs.
	CustomDefaultMaxAttempts = 3
	// CustomDefaultConsecutiveFailures is the kit's own default for trip consecutiveFailures
	// (Polly v8 has no such breaker; this is a round number, not a library's).
	CustomDefaultConsecutiveFailures = 5
)

// CustomOptions compose the custom policy from parts. SetDefaults gives 3 attempts, retrying
// overload replies, network errors and dispatch failures, with exponential backoff from 100 ms
// doubling to a 10 s cap under full jitter, and no bucket and no breaker.
type CustomOptions struct {
	// MaxAttempts is the most attempts per operation, the first included: ≥ 1 (1 never
	// retries). Default 3.
	MaxAttempts int `yaml:"maxAttempts"`
	// RetryOn lists the error kinds retried (Kind): overload, network, dispatch and server, each
	// at most once. throttled is not allowed: the kit has no throttle. An empty list retries
	// nothing. Default overload, network, dispatch.
	RetryOn []string `yaml:"retryOn"`
	// Backoff is the delay before each retry.
	Backoff CustomBackoff `yaml:"backoff"`
	// Bucket, when given, is a client-wide retry token bucket that every retry pays from.
	Bucket *CustomBucket `yaml:"bucket"`
	// Breaker, when given, is a client-wide circuit breaker that suppresses retries while open.
	Breaker *CustomBreaker `yaml:"breaker"`
}

// CustomBackoff is the custom policy's backoff. For retry n (n = 1 for the first retry) the
// exponential ceiling is c = min(Cap, Base × Multiplier^(n−1)); the constant one is c = Base. The
// jitter then gives the delay, x drawn uniformly from [0, 1] (AWS Architecture Blog, "Exponential
// Backoff And Jitter", https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/):
//
//	none          c
//	full          x·c
//	equal         c/2 + x·c/2
//	decorrelated  min(Cap, Base + x·(3·prev − Base)), prev the previous delay (Base before the
//	              first retry): the blog's min(cap, random_between(base, sleep × 3))
//
// Decorrelated jitter grows the delay itself, from the previous one: it needs Kind exponential
// and ignores Multiplier. Fields the chosen kind does not use must keep their defaults.
type CustomBackoff struct {
	// Kind is none (retry at once), constant or exponential. Default exponential.
	Kind string `yaml:"kind"`
	// Base is the constant delay, or the exponential one's first ceiling: > 0 for constant and
	// exponential. Default 100 ms.
	Base time.Duration `yaml:"base"`
	// Cap bounds the exponential ceiling (and the decorrelated delay): ≥ Base. Exponential only.
	// Default 10 s.
	Cap time.Duration `yaml:"cap"`
	// Multiplier is the exponential growth per retry: a finite number ≥ 1. Exponential only,
	// and not with decorrelated jitter. Default 2.
	Multiplier float64 `yaml:"multiplier"`
	// Jitter is none, full, equal or decorrelated (see the type). Not with kind none. Default
	// full.
	Jitter string `yaml:"jitter"`
}

// CustomBucket is the custom policy's retry token bucket, one per client: it starts full,
// every retry needs and spends Cost tokens (Budget when it holds fewer), and it is refilled by
// Deposit per operation started or per operation that succeeds (DepositOn) and by RefillPerSec
// continuously, never above Capacity. Depositing r per operation and charging 1 per retry caps
// the long-run retries per operation near r, so amplification near 1 + r (the "adaptive" retry
// token bucket of Brooker's post, cited at the top of this file; the Client Backpressure token
// bucket). SetDefaults gives the numbers of the Client Backpressure 2026-03 bucket (capacity
// 1000, 0.1 per success, cost 1), without its refunds.
type CustomBucket struct {
	// Capacity is the most tokens the bucket holds, and its initial balance: a finite
	// number > 0. Default 1000.
	Capacity float64 `yaml:"capacity"`
	// Deposit is what each operation adds, at its start or its success: a finite number ≥ 0.
	// Default 0.1.
	Deposit float64 `yaml:"deposit"`
	// DepositOn is when Deposit is added: start (when an operation begins) or success (when it
	// succeeds). Default success.
	DepositOn string `yaml:"depositOn"`
	// Cost is what each retry spends: a finite number > 0, at most Capacity. Default 1.
	Cost float64 `yaml:"cost"`
	// RefillPerSec is the tokens added per second of virtual time, continuously: a finite
	// number ≥ 0. Default 0.
	RefillPerSec float64 `yaml:"refillPerSec"`
}

// CustomBreaker is the custom policy's retry-suppressing circuit breaker, one per client, with
// the states of Polly v8's circuit breaker (App-vNext/Polly:
// src/Polly.Core/CircuitBreaker/Controller/AdvancedCircuitBehavior.cs) and its defaults
// (…/CircuitBreakerConstants.cs: failure ratio 0.1, minimum throughput 100, sampling duration
// 30 s, break duration 5 s):
//
//	closed ──trip──▶ open ──OpenFor──▶ half-open ──HalfOpenProbes successes──▶ closed
//	                  ▲                    │
//	                  └──a probe fails─────┘
//
// An attempt counts as a failure when it fails with a kind in RetryOn, and as a success
// otherwise (it succeeded, or failed with an error the policy does not retry: Polly's
// ShouldHandle). Closed, it trips on FailureRatio (failures / attempts ≥ FailureRatio over the
// last Window, once at least MinCalls attempts were counted there) or on ConsecutiveFailures.
// Open, every retry is refused (Breaker); first attempts still go, and no outcome is counted.
// After OpenFor it is half-open: the next HalfOpenProbes retries go through as probes, the
// others are refused; the probes' successes close it (counts start afresh) and a probe's
// failure reopens it, as does a probe whose operation ends without an outcome (a timeout).
// Outcomes of other attempts are not counted while half-open. Fields of the trip not chosen
// must keep their defaults.
type CustomBreaker struct {
	// Trip is failureRatio or consecutiveFailures. Default failureRatio.
	Trip string `yaml:"trip"`
	// FailureRatio opens the breaker when failures / attempts over Window reach it: in (0, 1].
	// Default 0.1.
	FailureRatio float64 `yaml:"failureRatio"`
	// Window is the sliding window FailureRatio is measured over (10 slices, as Polly's rolling
	// health metrics): > 0. Default 30 s.
	Window time.Duration `yaml:"window"`
	// MinCalls is the fewest attempts in Window before FailureRatio can trip: ≥ 1. Default
	// 100.
	MinCalls int `yaml:"minCalls"`
	// ConsecutiveFailures opens the breaker after that many failed attempts in a row: ≥ 1.
	// Default 5.
	ConsecutiveFailures int `yaml:"consecutiveFailures"`
	// OpenFor is how long the breaker stays open before it lets probes through: > 0. Default
	// 5 s.
	OpenFor time.Duration `yaml:"openFor"`
	// HalfOpenProbes is the number of retries let through half-open, all of which must succeed
	// to close it: ≥ 1. Default 1 (Polly lets one execution through).
	HalfOpenProbes int `yaml:"halfOpenProbes"`
}

// Spellings of the custom policy's choices.
const (
	backoffNone, backoffConstant, backoffExponential  = "none", "constant", "exponential"
	jitterNone, jitterFull, jitterEqual, jitterDecorr = "none", "full", "equal", "decorrelated"
	depositStart, depositSuccess                      = "start", "success"
	tripRatio, tripConsecutive                        = "failureRatio", "consecutiveFailures"
)

var (
	backoffKinds = []string{backoffNone, backoffConstant, backoffExponential}
	jitterKinds  = []string{jitterNone, jitterFull, jitterEqual, jitterDecorr}
	depositWhens = []string{depositStart, depositSuccess}
	tripKinds    = []string{tripRatio, tripConsecutive}
)

// SetDefaults sets the kit's defaults (see the type).
func (c *CustomOptions) SetDefaults() {
	*c = CustomOptions{MaxAttempts: CustomDefaultMaxAttempts, RetryOn: []string{"overload", "network", "dispatch"}}
	c.Backoff.SetDefaults()
}

// SetDefaults sets exponential backoff from 100 ms, doubling, capped at 10 s, full jitter.
func (b *CustomBackoff) SetDefaults() {
	*b = CustomBackoff{Kind: backoffExponential, Base: 100 * time.Millisecond, Cap: 10 * time.Second,
		Multiplier: 2, Jitter: jitterFull}
}

// SetDefaults sets capacity 1000, deposit 0.1 on success, cost 1, no refill.
func (b *CustomBucket) SetDefaults() {
	*b = CustomBucket{Capacity: 1000, Deposit: 0.1, DepositOn: depositSuccess, Cost: 1}
}

// SetDefaults sets Polly v8's breaker defaults: ratio 0.1 over 30 s with at least 100
// attempts, open for 5 s, one probe; 5 consecutive failures for that trip.
func (b *CustomBreaker) SetDefaults() {
	*b = CustomBreaker{Trip: tripRatio, FailureRatio: 0.1, Window: 30 * time.Second, MinCalls: 100,
		ConsecutiveFailures: CustomDefaultConsecutiveFailures, OpenFor: 5 * time.Second, HalfOpenProbes: 1}
}

// oneOf is the rule for a value outside a list.
func oneOf(list []string) string { return "must be one of " + strings.Join(list, ", ") }

// finite reports whether v is a number, neither NaN nor ±Inf.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func (c *CustomOptions) validate(_ string, bad func(name, value, rule string)) {
	if c.MaxAttempts < 1 {
		bad("maxAttempts", strconv.Itoa(c.MaxAttempts), "must be ≥ 1 (the first attempt included)")
	}
	parseRetryOn(c.RetryOn, func(v, r string) { bad("retryOn", strconv.Quote(v), r) })
	c.Backoff.validate(func(n, v, r string) { bad("backoff."+n, v, r) })
	if c.Bucket != nil {
		c.Bucket.validate(func(n, v, r string) { bad("bucket."+n, v, r) })
	}
	if c.Breaker != nil {
		c.Breaker.validate(func(n, v, r string) { bad("breaker."+n, v, r) })
	}
}

// parseRetryOn returns the set of kinds names lists, a bit 1<<kind each, reporting each bad
// entry to bad (when not nil).
func parseRetryOn(names []string, bad func(value, rule string)) uint8 {
	if bad == nil {
		bad = func(string, string) {}
	}
	var set uint8
	for _, n := range names {
		k, ok := ParseErrKind(n)
		switch {
		case !ok:
			bad(n, "unknown error kind; kinds: "+errKindList())
		case k == KindThrottled:
			bad(n, "the custom policy has no throttle: use overload, network, dispatch or server")
		case set&(1<<k) != 0:
			bad(n, "listed twice")
		default:
			set |= 1 << k
		}
	}
	return set
}

// unusedDuration and unusedFloat report whether a field the chosen kind does not use was set:
// it holds neither its zero value nor its default, so a file must have given it.
func unusedDuration(v, def time.Duration) bool { return v != 0 && v != def }
func unusedFloat(v, def float64) bool          { return v != 0 && v != def }

func (b *CustomBackoff) validate(bad func(name, value, rule string)) {
	var def CustomBackoff
	def.SetDefaults()
	if !slices.Contains(backoffKinds, b.Kind) {
		bad("kind", strconv.Quote(b.Kind), oneOf(backoffKinds))
		return
	}
	if b.Kind != backoffNone && !slices.Contains(jitterKinds, b.Jitter) {
		bad("jitter", strconv.Quote(b.Jitter), oneOf(jitterKinds))
		return
	}
	only := func(name, value, kinds string) { bad(name, value, "applies only to "+kinds+" (kind is "+b.Kind+")") }
	switch b.Kind {
	case backoffNone:
		if unusedDuration(b.Base, def.Base) {
			only("base", b.Base.String(), "kinds constant and exponential")
		}
		if unusedDuration(b.Cap, def.Cap) {
			only("cap", b.Cap.String(), "kind exponential")
		}
		if unusedFloat(b.Multiplier, def.Multiplier) {
			only("multiplier", formatFloat(b.Multiplier), "kind exponential")
		}
		if b.Jitter != "" && b.Jitter != jitterNone && b.Jitter != def.Jitter {
			only("jitter", strconv.Quote(b.Jitter), "kinds constant and exponential")
		}
		return
	case backoffConstant:
		if unusedDuration(b.Cap, def.Cap) {
			only("cap", b.Cap.String(), "kind exponential")
		}
		if unusedFloat(b.Multiplier, def.Multiplier) {
			only("multiplier", formatFloat(b.Multiplier), "kind exponential")
		}
		if b.Jitter == jitterDecorr {
			bad("jitter", strconv.Quote(b.Jitter), "applies only to kind exponential (kind is constant): decorrelated jitter grows the delay from the previous one")
		}
	case backoffExponential:
		if b.Cap < b.Base {
			bad("cap", b.Cap.String(), "must be ≥ base ("+b.Base.String()+")")
		}
		if b.Jitter == jitterDecorr {
			if unusedFloat(b.Multiplier, def.Multiplier) {
				bad("multiplier", formatFloat(b.Multiplier), "unused with decorrelated jitter, which grows the delay ×3 from the previous one")
			}
		} else if !(b.Multiplier >= 1) || !finite(b.Multiplier) {
			bad("multiplier", formatFloat(b.Multiplier), "must be a finite number ≥ 1")
		}
	}
	if b.Base <= 0 {
		bad("base", b.Base.String(), "must be > 0 (kind none retries at once)")
	}
}

func (b *CustomBucket) validate(bad func(name, value, rule string)) {
	if !(b.Capacity > 0) || !finite(b.Capacity) {
		bad("capacity", formatFloat(b.Capacity), "must be a finite number > 0")
	}
	if !(b.Deposit >= 0) || !finite(b.Deposit) {
		bad("deposit", formatFloat(b.Deposit), "must be a finite number ≥ 0")
	}
	if !slices.Contains(depositWhens, b.DepositOn) {
		bad("depositOn", strconv.Quote(b.DepositOn), oneOf(depositWhens))
	}
	switch {
	case !(b.Cost > 0) || !finite(b.Cost):
		bad("cost", formatFloat(b.Cost), "must be a finite number > 0")
	case b.Cost > b.Capacity && b.Capacity > 0:
		bad("cost", formatFloat(b.Cost), "must be ≤ capacity ("+formatFloat(b.Capacity)+"): no retry could ever be paid for")
	}
	if !(b.RefillPerSec >= 0) || !finite(b.RefillPerSec) {
		bad("refillPerSec", formatFloat(b.RefillPerSec), "must be a finite number ≥ 0")
	}
}

func (b *CustomBreaker) validate(bad func(name, value, rule string)) {
	var def CustomBreaker
	def.SetDefaults()
	if !slices.Contains(tripKinds, b.Trip) {
		bad("trip", strconv.Quote(b.Trip), oneOf(tripKinds))
	}
	only := func(name, value, trip string) { bad(name, value, "applies only to trip "+trip+" (trip is "+b.Trip+")") }
	switch b.Trip {
	case tripRatio:
		if !(b.FailureRatio > 0 && b.FailureRatio <= 1) {
			bad("failureRatio", formatFloat(b.FailureRatio), "must be in (0, 1]")
		}
		if b.Window <= 0 {
			bad("window", b.Window.String(), "must be > 0")
		}
		if b.MinCalls < 1 {
			bad("minCalls", strconv.Itoa(b.MinCalls), "must be ≥ 1")
		}
		if b.ConsecutiveFailures != 0 && b.ConsecutiveFailures != def.ConsecutiveFailures {
			only("consecutiveFailures", strconv.Itoa(b.ConsecutiveFailures), tripConsecutive)
		}
	case tripConsecutive:
		if b.ConsecutiveFailures < 1 {
			bad("consecutiveFailures", strconv.Itoa(b.ConsecutiveFailures), "must be ≥ 1")
		}
		if unusedFloat(b.FailureRatio, def.FailureRatio) {
			only("failureRatio", formatFloat(b.FailureRatio), tripRatio)
		}
		if unusedDuration(b.Window, def.Window) {
			only("window", b.Window.String(), tripRatio)
		}
		if b.MinCalls != 0 && b.MinCalls != def.MinCalls {
			only("minCalls", strconv.Itoa(b.MinCalls), tripRatio)
		}
	}
	if b.OpenFor <= 0 {
		bad("openFor", b.OpenFor.String(), "must be > 0")
	}
	if b.HalfOpenProbes < 1 {
		bad("halfOpenProbes", strconv.Itoa(b.HalfOpenProbes), "must be ≥ 1")
	}
}

// custom is the kit (see CustomOptions and the comment at the top of this file). Per-client
// state: the bucket and the breaker. Per operation: State's retries, attempt (retries asked
// for), last (the previous delay, for decorrelated jitter) and the probe flag.
type custom struct {
	o       CustomOptions
	retryOn uint8 // a bit 1<<ErrKind per kind retried
	bucket  *customBucket
	breaker *customBreaker
	seen    sim.Time // the latest time the policy was told, for clientState
}

func newCustom(o Options) Policy {
	c := own[CustomOptions](o)
	p := &custom{o: c}
	p.retryOn = parseRetryOn(c.RetryOn, nil) // validated
	if c.Bucket != nil {
		p.bucket = &customBucket{cfg: *c.Bucket, tokens: c.Bucket.Capacity}
	}
	if c.Breaker != nil {
		p.breaker = newCustomBreaker(*c.Breaker)
	}
	return p
}

func (p *custom) Name() string { return NameCustom }

// Begin starts an operation, depositing in the bucket if it deposits on start.
func (p *custom) Begin(st *State, c Class, now, deadline sim.Time) {
	p.seen = max(p.seen, now)
	st.beginOther(c, deadline, p.o.MaxAttempts-1)
	if b := p.bucket; b != nil && b.cfg.DepositOn == depositStart {
		b.deposit(now, b.cfg.Deposit)
	}
}

// Succeeded reports the success to the breaker and deposits in the bucket if it deposits on
// success.
func (p *custom) Succeeded(st *State, now sim.Time) {
	p.seen = max(p.seen, now)
	p.outcome(st, now, false)
	if b := p.bucket; b != nil && b.cfg.DepositOn == depositSuccess {
		b.deposit(now, b.cfg.Deposit)
	}
}

// Ended counts a half-open probe whose operation ended without an outcome (it timed out, or
// found no server) as a failed probe.
func (p *custom) Ended(st *State, now sim.Time) {
	p.seen = max(p.seen, now)
	if st.hasFlag(flagProbe) {
		st.clearFlag(flagProbe)
		p.breaker.probeDone(now, true)
	}
}

// Failed decides in the order given at the top of this file.
func (p *custom) Failed(st *State, f Failure, now sim.Time, j Jitter) Decision {
	p.seen = max(p.seen, now)
	st.keepLatest(f)
	k := Kind(f)
	if k == KindOverload {
		st.overload = true
	}
	retryable := p.retryOn&(1<<k) != 0
	p.outcome(st, now, retryable)
	if !retryable {
		return st.stop(NotRetryable)
	}
	if why := st.countRetry(now); why != Continue {
		return st.stop(why)
	}
	probe := false
	if b := p.breaker; b != nil {
		var ok bool
		if ok, probe = b.allow(now); !ok {
			return st.stop(Breaker)
		}
	}
	d := p.backoff(st, j)
	if st.pastDeadline(now, d) {
		return st.stop(Deadline)
	}
	if b := p.bucket; b != nil && !b.spend(now) {
		return st.stop(Budget)
	}
	if probe {
		p.breaker.probes++
		st.setFlag(flagProbe)
	}
	st.last = d
	return st.grant(Decision{Backoff: d})
}

// outcome reports the attempt that just ended to the breaker: a probe's outcome decides the
// half-open breaker, any other counts while it is closed.
func (p *custom) outcome(st *State, now sim.Time, failed bool) {
	b := p.breaker
	if b == nil {
		return
	}
	if st.hasFlag(flagProbe) {
		st.clearFlag(flagProbe)
		b.probeDone(now, failed)
		return
	}
	b.record(now, failed)
}

// backoff is the delay before retry st.retries+1 (see CustomBackoff).
func (p *custom) backoff(st *State, j Jitter) time.Duration {
	b := &p.o.Backoff
	var c time.Duration
	switch b.Kind {
	case backoffNone:
		return 0
	case backoffConstant:
		c = b.Base
	case backoffExponential:
		if b.Jitter == jitterDecorr {
			prev := st.last
			if prev == 0 {
				prev = b.Base
			}
			d := float64(b.Base) + float64(drawJitter(j)*(float64(3*float64(prev))-float64(b.Base)))
			return time.Duration(min(d, float64(b.Cap)))
		}
		f := float64(b.Base) * math.Pow(b.Multiplier, float64(st.retries))
		c = time.Duration(min(f, float64(b.Cap)))
	}
	switch b.Jitter {
	case jitterFull:
		return time.Duration(drawJitter(j) * float64(c))
	case jitterEqual:
		return c/2 + time.Duration(drawJitter(j)*float64(c/2))
	}
	return c
}

// customBucket is the custom policy's token bucket (CustomBucket), refilled lazily.
type customBucket struct {
	cfg    CustomBucket
	tokens float64
	at     sim.Time // when RefillPerSec was last applied
}

// refill adds RefillPerSec for the time since the last refill.
func (b *customBucket) refill(now sim.Time) {
	if now <= b.at {
		return
	}
	if b.cfg.RefillPerSec > 0 {
		b.tokens = min(b.cfg.Capacity, b.tokens+float64(b.cfg.RefillPerSec*now.Sub(b.at).Seconds()))
	}
	b.at = now
}

func (b *customBucket) deposit(now sim.Time, n float64) {
	b.refill(now)
	b.tokens = min(b.cfg.Capacity, b.tokens+n)
}

// spend takes Cost tokens if the bucket holds them.
func (b *customBucket) spend(now sim.Time) bool {
	b.refill(now)
	if b.tokens < b.cfg.Cost {
		return false
	}
	b.tokens -= b.cfg.Cost
	return true
}

// breakerState is a circuit breaker's state.
type breakerState uint8

const (
	breakerClosed breakerState = iota
	breakerOpen
	breakerHalfOpen
)

var breakerStateNames = [...]string{"closed", "open", "half-open"}

func (s breakerState) String() string { return breakerStateNames[s] }

// Counters of the breaker's window.
const (
	breakerCalls = iota
	breakerFailures
)

// breakerSlices is the number of slices of the failure-ratio window (Polly's rolling health
// metrics use ten).
const breakerSlices = 10

// customBreaker is the custom policy's circuit breaker (CustomBreaker).
type customBreaker struct {
	cfg         CustomBreaker
	state       breakerState
	openedAt    sim.Time
	consecutive int           // failures in a row, closed
	window      slidingCounts // attempts and failures, closed, trip failureRatio
	probes      int           // probes granted since half-open
	probesOK    int           // probes that succeeded since half-open
}

func newCustomBreaker(cfg CustomBreaker) *customBreaker {
	b := &customBreaker{cfg: cfg}
	if cfg.Trip == tripRatio {
		b.window = newSlidingCounts(cfg.Window, breakerSlices)
	}
	return b
}

// at moves an open breaker whose OpenFor has passed to half-open and returns the state.
func (b *customBreaker) at(now sim.Time) breakerState {
	if b.state == breakerOpen && now.Sub(b.openedAt) >= b.cfg.OpenFor {
		b.state, b.probes, b.probesOK = breakerHalfOpen, 0, 0
	}
	return b.state
}

func (b *customBreaker) open(now sim.Time) { b.state, b.openedAt = breakerOpen, now }

func (b *customBreaker) close() {
	b.state, b.consecutive = breakerClosed, 0
	if b.cfg.Trip == tripRatio {
		b.window.reset()
	}
}

// record counts an attempt's outcome while closed and trips the breaker on it.
func (b *customBreaker) record(now sim.Time, failed bool) {
	if b.at(now) != breakerClosed {
		return
	}
	switch b.cfg.Trip {
	case tripConsecutive:
		if !failed {
			b.consecutive = 0
			return
		}
		if b.consecutive++; b.consecutive >= b.cfg.ConsecutiveFailures {
			b.open(now)
		}
	case tripRatio:
		b.window.add(now, breakerCalls, 1)
		if !failed {
			return
		}
		b.window.add(now, breakerFailures, 1)
		calls, fails := b.window.total[breakerCalls], b.window.total[breakerFailures]
		if calls >= int64(b.cfg.MinCalls) && float64(fails) >= b.cfg.FailureRatio*float64(calls) {
			b.open(now)
		}
	}
}

// probeDone decides a half-open breaker on a probe's outcome. A probe that comes back after
// another probe reopened the breaker changes nothing.
func (b *customBreaker) probeDone(now sim.Time, failed bool) {
	if b.at(now) != breakerHalfOpen {
		return
	}
	if failed {
		b.open(now)
		return
	}
	if b.probesOK++; b.probesOK >= b.cfg.HalfOpenProbes {
		b.close()
	}
}

// allow says whether a retry may go now, and whether it goes as a half-open probe.
func (b *customBreaker) allow(now sim.Time) (ok, probe bool) {
	switch b.at(now) {
	case breakerClosed:
		return true, false
	case breakerHalfOpen:
		return b.probes < b.cfg.HalfOpenProbes, true
	}
	return false, false
}

// failureClass names f's kind and whether the policy retries it, for transcripts.
func (p *custom) failureClass(f Failure) string {
	k := Kind(f)
	if p.retryOn&(1<<k) != 0 {
		return k.String() + ": in retryOn"
	}
	return k.String() + ": not in retryOn"
}

// clientState describes the bucket and the breaker at the latest time the policy was told, for
// transcripts.
func (p *custom) clientState() string {
	var parts []string
	if b := p.bucket; b != nil {
		b.refill(p.seen)
		parts = append(parts, "tokens="+formatFloat(math.Round(b.tokens*1e9)/1e9))
	}
	if b := p.breaker; b != nil {
		s := "breaker=" + b.at(p.seen).String()
		switch b.state {
		case breakerClosed:
			if b.cfg.Trip == tripRatio {
				s += " (" + strconv.FormatInt(b.window.sum(p.seen, breakerFailures), 10) + " failed of " +
					strconv.FormatInt(b.window.sum(p.seen, breakerCalls), 10) + ")"
			} else {
				s += " (" + strconv.Itoa(b.consecutive) + " failed in a row)"
			}
		case breakerOpen:
			s += " until " + b.openedAt.Add(b.cfg.OpenFor).String()
		case breakerHalfOpen:
			s += " (probes: " + strconv.Itoa(b.probes) + " sent, " + strconv.Itoa(b.probesOK) + " succeeded)"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

// CustomBreakerState returns the state of the custom policy's circuit breaker at now ("closed",
// "open" or "half-open"); ok is false when p is not a custom policy with a breaker.
func CustomBreakerState(p Policy, now sim.Time) (state string, ok bool) {
	c, isCustom := p.(*custom)
	if !isCustom || c.breaker == nil {
		return "", false
	}
	return c.breaker.at(now).String(), true
}

// CustomTokens returns the balance of the custom policy's token bucket at now; ok is false when
// p is not a custom policy with a bucket.
func CustomTokens(p Policy, now sim.Time) (tokens float64, ok bool) {
	c, isCustom := p.(*custom)
	if !isCustom || c.bucket == nil {
		return 0, false
	}
	c.bucket.refill(now)
	return c.bucket.tokens, true
}

// Helpers shared by the policies of other stacks (finagle, envoy, sre-throttle, custom).

// drawJitter draws one value from j, which must be in [0, 1].
func drawJitter(j Jitter) float64 {
	x := j.Float64()
	if !(x >= 0 && x <= 1) {
		panic(fmt.Sprintf(panicJitter, x))
	}
	return x
}

// beginOther resets s for an operation of a policy of another stack, allowing it that many
// retries. A deadline other than sim.Never bounds the retries as CSOT does the MongoDB ones: no
// retry once it has passed, nor one whose backoff would end past it.
func (s *State) beginOther(c Class, deadline sim.Time, allowed int) {
	s.begin(c, deadline, deadline != sim.Never)
	s.allowed = allowed
}

// keepLatest records f as the error the application receives if the operation ends now: the
// policies of other stacks return the latest failure as it came, with none of the MongoDB
// propagation rules.
func (s *State) keepLatest(f Failure) { s.kept, s.hasKept = f, true }

// opFlag is a per-operation flag of the envoy, custom and release policies (State.flags).
type opFlag uint8

const (
	// flagRetryActive (envoy): a retry was granted and its attempt has not completed.
	flagRetryActive opFlag = 1 << iota
	// flagEnded (envoy): Ended was called for the operation.
	flagEnded
	// flagProbe (custom): the retry granted is a half-open probe of the breaker.
	flagProbe
	// flagIndefinite (Go release presets): State.indefinite holds prevIndefiniteErr.
	flagIndefinite
	// flagPrevOverload (Go release presets): the previous decision was an overload error's,
	// so this one's budget is maxAdaptiveRetries too.
	flagPrevOverload
)

func (s *State) hasFlag(f opFlag) bool { return s.flags&f != 0 }
func (s *State) setFlag(f opFlag)      { s.flags |= f }
func (s *State) clearFlag(f opFlag)    { s.flags &^= f }
