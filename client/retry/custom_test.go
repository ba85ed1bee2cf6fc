package retry

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
)

// Helpers for the policies of other stacks (finagle, envoy, sre-throttle, custom).

// Failures of each kind, as Kind sees them.
var (
	kindFailures = []struct {
		kind ErrKind
		f    Failure
	}{
		{KindOverload, rejected},
		{KindNetwork, netErr},
		{KindDispatch, Failure{Dispatch: true}},
		{KindThrottled, Failure{Dispatch: true, Throttled: true}},
		{KindServer, code(wire.BadValue, 0)},
	}
	localReject = Failure{Dispatch: true, Throttled: true}
)

// withCustom returns the default Options with the custom block mod makes from the kit's
// defaults.
func withCustom(mod func(*CustomOptions)) Options {
	o := DefaultOptions()
	var c CustomOptions
	c.SetDefaults()
	if mod != nil {
		mod(&c)
	}
	o.Block = &c
	return o
}

// loopStats is what a closed-form loop counted.
type loopStats struct {
	ops, attempts, succeeded int
	sent, rejected           int // attempts sent, attempts a Gate rejected
	why                      [numGiveUps]int
}

func (s loopStats) amplification() float64 { return float64(s.attempts) / float64(s.ops) }
func (s loopStats) success() float64       { return float64(s.succeeded) / float64(s.ops) }

// closedLoop runs ops operations through p, one every gap of virtual time from t = 0 (see
// closedLoopFrom).
func closedLoop(t *testing.T, p Policy, ops int, gap time.Duration, seed uint64, send func(now sim.Time) (Failure, bool)) loopStats {
	t.Helper()
	return closedLoopFrom(t, p, 0, ops, gap, seed, send)
}

// closedLoopFrom runs ops operations through p, one every gap of virtual time from start, as a
// driver would: a Gate's Admit before each attempt (a rejected attempt fails with Throttled),
// then send decides the attempt's outcome; retries run at the operation's instant, the backoff
// not slept (the closed forms checked with it do not depend on backoff); Ended closes every
// operation. Jitter comes from a stream seeded with seed.
func closedLoopFrom(t *testing.T, p Policy, start sim.Time, ops int, gap time.Duration, seed uint64, send func(now sim.Time) (Failure, bool)) loopStats {
	t.Helper()
	j := sim.NewStream(seed, "jitter")
	gate, _ := p.(Gate)
	ender, _ := p.(Ender)
	var st State
	var s loopStats
	for i := range ops {
		now := start.Add(time.Duration(i) * gap)
		p.Begin(&st, find, now, sim.Never)
		s.ops++
		for a := 0; ; a++ {
			if a == 1000 {
				t.Fatalf("%s: operation %d did not end after 1000 attempts", p.Name(), i)
			}
			s.attempts++
			var f Failure
			failed := true
			if gate != nil && gate.Admit(&st, now, j).Reject {
				f = localReject
				s.rejected++
			} else {
				s.sent++
				f, failed = send(now)
			}
			if !failed {
				p.Succeeded(&st, now)
				s.succeeded++
				break
			}
			d := p.Failed(&st, f, now, j)
			if !d.Retry {
				s.why[d.Why]++
				break
			}
		}
		if ender != nil {
			ender.Ended(&st, now)
		}
	}
	return s
}

// failWith returns a send that fails with f with probability pf, from its own stream.
func failWith(seed uint64, pf float64, f Failure) func(sim.Time) (Failure, bool) {
	rng := sim.NewStream(seed, "failures")
	return func(sim.Time) (Failure, bool) { return f, rng.Float64() < pf }
}

// msf returns durations of v milliseconds, fractions included.
func msf(v ...float64) []time.Duration {
	out := make([]time.Duration, len(v))
	for i, x := range v {
		out[i] = time.Duration(x * float64(time.Millisecond))
	}
	return out
}

// geometric is Σ_{k=0..n} p^k.
func geometric(p float64, n int) float64 {
	s, x := 0.0, 1.0
	for range n + 1 {
		s += x
		x *= p
	}
	return s
}

// wantErrors checks that validating o for policy name gives exactly the messages want, in
// order ("" each: valid).
func wantErrors(t *testing.T, gloss, name string, o Options, want ...string) {
	t.Helper()
	err := o.Validate(name)
	var got []string
	if err != nil {
		got = strings.Split(err.Error(), "\n")
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s: Validate(%s) =\n  %s\nwant\n  %s", gloss, name, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// TestCustomValidate checks that every bad value of the kit is reported with its block path,
// its value and the rule, and that fields the chosen kind does not use are refused when they
// were visibly set (not zero, not the default).
func TestCustomValidate(t *testing.T) {
	bucket := func(mod func(*CustomBucket)) func(*CustomOptions) {
		return func(c *CustomOptions) {
			c.Bucket = &CustomBucket{}
			c.Bucket.SetDefaults()
			mod(c.Bucket)
		}
	}
	breaker := func(mod func(*CustomBreaker)) func(*CustomOptions) {
		return func(c *CustomOptions) {
			c.Breaker = &CustomBreaker{}
			c.Breaker.SetDefaults()
			mod(c.Breaker)
		}
	}
	const tail = " (retryPolicy custom)"
	tests := []struct {
		gloss string
		mod   func(*CustomOptions)
		want  []string
	}{
		// Happy paths.
		{"defaults", nil, nil},
		{"one attempt, nothing retried", func(c *CustomOptions) { c.MaxAttempts, c.RetryOn = 1, nil }, nil},
		{"every retryable kind", func(c *CustomOptions) { c.RetryOn = []string{"server", "dispatch", "network", "overload"} }, nil},
		{"no backoff: the exponential defaults stay", func(c *CustomOptions) { c.Backoff.Kind = "none" }, nil},
		{"no backoff, jitter none", func(c *CustomOptions) { c.Backoff.Kind, c.Backoff.Jitter = "none", "none" }, nil},
		{"constant, equal jitter", func(c *CustomOptions) { c.Backoff.Kind, c.Backoff.Jitter = "constant", "equal" }, nil},
		{"decorrelated", func(c *CustomOptions) { c.Backoff.Jitter = "decorrelated" }, nil},
		{"cap equal to base", func(c *CustomOptions) { c.Backoff.Cap = c.Backoff.Base }, nil},
		{"multiplier 1", func(c *CustomOptions) { c.Backoff.Multiplier = 1 }, nil},
		{"bucket defaults", bucket(func(*CustomBucket) {}), nil},
		{"bucket: cost equal to capacity, no deposit, refill", bucket(func(b *CustomBucket) { b.Capacity, b.Cost, b.Deposit, b.RefillPerSec = 5, 5, 0, 2 }), nil},
		{"breaker defaults", breaker(func(*CustomBreaker) {}), nil},
		{"breaker: ratio 1", breaker(func(b *CustomBreaker) { b.FailureRatio = 1 }), nil},
		{"breaker: consecutive failures", breaker(func(b *CustomBreaker) { b.Trip, b.ConsecutiveFailures = "consecutiveFailures", 3 }), nil},
		// Sad paths.
		{"zero attempts", func(c *CustomOptions) { c.MaxAttempts = 0 },
			[]string{"retry: custom.maxAttempts: 0: must be ≥ 1 (the first attempt included)" + tail}},
		{"unknown kind in retryOn", func(c *CustomOptions) { c.RetryOn = []string{"overload", "timeout"} },
			[]string{`retry: custom.retryOn: "timeout": unknown error kind; kinds: overload, network, dispatch, throttled, server` + tail}},
		{"throttled in retryOn", func(c *CustomOptions) { c.RetryOn = []string{"throttled"} },
			[]string{`retry: custom.retryOn: "throttled": the custom policy has no throttle: use overload, network, dispatch or server` + tail}},
		{"a kind twice", func(c *CustomOptions) { c.RetryOn = []string{"network", "network"} },
			[]string{`retry: custom.retryOn: "network": listed twice` + tail}},
		{"every bad entry reported", func(c *CustomOptions) { c.RetryOn = []string{"Overload", "server", "server", "throttled"} },
			[]string{
				`retry: custom.retryOn: "Overload": unknown error kind; kinds: overload, network, dispatch, throttled, server` + tail,
				`retry: custom.retryOn: "server": listed twice` + tail,
				`retry: custom.retryOn: "throttled": the custom policy has no throttle: use overload, network, dispatch or server` + tail,
			}},
		{"unknown backoff kind", func(c *CustomOptions) { c.Backoff.Kind = "linear" },
			[]string{`retry: custom.backoff.kind: "linear": must be one of none, constant, exponential` + tail}},
		{"unknown jitter", func(c *CustomOptions) { c.Backoff.Jitter = "half" },
			[]string{`retry: custom.backoff.jitter: "half": must be one of none, full, equal, decorrelated` + tail}},
		{"exponential, base 0", func(c *CustomOptions) { c.Backoff.Base = 0 },
			[]string{"retry: custom.backoff.base: 0s: must be > 0 (kind none retries at once)" + tail}},
		{"constant, negative base", func(c *CustomOptions) { c.Backoff.Kind, c.Backoff.Base = "constant", -time.Second },
			[]string{"retry: custom.backoff.base: -1s: must be > 0 (kind none retries at once)" + tail}},
		{"cap below base", func(c *CustomOptions) { c.Backoff.Cap = 50 * time.Millisecond },
			[]string{"retry: custom.backoff.cap: 50ms: must be ≥ base (100ms)" + tail}},
		{"multiplier below 1", func(c *CustomOptions) { c.Backoff.Multiplier = 0.5 },
			[]string{"retry: custom.backoff.multiplier: 0.5: must be a finite number ≥ 1" + tail}},
		{"infinite multiplier", func(c *CustomOptions) { c.Backoff.Multiplier = math.Inf(1) },
			[]string{"retry: custom.backoff.multiplier: +Inf: must be a finite number ≥ 1" + tail}},
		{"multiplier with constant backoff", func(c *CustomOptions) { c.Backoff.Kind, c.Backoff.Multiplier = "constant", 3 },
			[]string{"retry: custom.backoff.multiplier: 3: applies only to kind exponential (kind is constant)" + tail}},
		{"cap with constant backoff", func(c *CustomOptions) { c.Backoff.Kind, c.Backoff.Cap = "constant", time.Second },
			[]string{"retry: custom.backoff.cap: 1s: applies only to kind exponential (kind is constant)" + tail}},
		{"decorrelated with constant backoff", func(c *CustomOptions) { c.Backoff.Kind, c.Backoff.Jitter = "constant", "decorrelated" },
			[]string{`retry: custom.backoff.jitter: "decorrelated": applies only to kind exponential (kind is constant): decorrelated jitter grows the delay from the previous one` + tail}},
		{"multiplier with decorrelated jitter", func(c *CustomOptions) { c.Backoff.Jitter, c.Backoff.Multiplier = "decorrelated", 3 },
			[]string{"retry: custom.backoff.multiplier: 3: unused with decorrelated jitter, which grows the delay ×3 from the previous one" + tail}},
		{"kind none with a base, a cap, a multiplier and a jitter", func(c *CustomOptions) {
			c.Backoff = CustomBackoff{Kind: "none", Base: time.Second, Cap: time.Minute, Multiplier: 3, Jitter: "equal"}
		}, []string{
			"retry: custom.backoff.base: 1s: applies only to kinds constant and exponential (kind is none)" + tail,
			"retry: custom.backoff.cap: 1m0s: applies only to kind exponential (kind is none)" + tail,
			"retry: custom.backoff.multiplier: 3: applies only to kind exponential (kind is none)" + tail,
			`retry: custom.backoff.jitter: "equal": applies only to kinds constant and exponential (kind is none)` + tail,
		}},
		{"bucket: capacity 0", bucket(func(b *CustomBucket) { b.Capacity = 0 }),
			[]string{"retry: custom.bucket.capacity: 0: must be a finite number > 0" + tail}},
		{"bucket: NaN capacity", bucket(func(b *CustomBucket) { b.Capacity = math.NaN() }),
			[]string{"retry: custom.bucket.capacity: NaN: must be a finite number > 0" + tail}},
		{"bucket: negative deposit, cost and refill, unknown depositOn", bucket(func(b *CustomBucket) {
			b.Deposit, b.Cost, b.RefillPerSec, b.DepositOn = -0.1, -1, -2, "end"
		}), []string{
			"retry: custom.bucket.deposit: -0.1: must be a finite number ≥ 0" + tail,
			`retry: custom.bucket.depositOn: "end": must be one of start, success` + tail,
			"retry: custom.bucket.cost: -1: must be a finite number > 0" + tail,
			"retry: custom.bucket.refillPerSec: -2: must be a finite number ≥ 0" + tail,
		}},
		{"bucket: cost above capacity", bucket(func(b *CustomBucket) { b.Capacity, b.Cost = 5, 6 }),
			[]string{"retry: custom.bucket.cost: 6: must be ≤ capacity (5): no retry could ever be paid for" + tail}},
		{"breaker: unknown trip", breaker(func(b *CustomBreaker) { b.Trip = "slowCalls" }),
			[]string{`retry: custom.breaker.trip: "slowCalls": must be one of failureRatio, consecutiveFailures` + tail}},
		{"breaker: ratio 0, window 0, minCalls 0", breaker(func(b *CustomBreaker) { b.FailureRatio, b.Window, b.MinCalls = 0, 0, 0 }),
			[]string{
				"retry: custom.breaker.failureRatio: 0: must be in (0, 1]" + tail,
				"retry: custom.breaker.window: 0s: must be > 0" + tail,
				"retry: custom.breaker.minCalls: 0: must be ≥ 1" + tail,
			}},
		{"breaker: ratio above 1", breaker(func(b *CustomBreaker) { b.FailureRatio = 1.5 }),
			[]string{"retry: custom.breaker.failureRatio: 1.5: must be in (0, 1]" + tail}},
		{"breaker: consecutiveFailures with the ratio trip", breaker(func(b *CustomBreaker) { b.ConsecutiveFailures = 3 }),
			[]string{"retry: custom.breaker.consecutiveFailures: 3: applies only to trip consecutiveFailures (trip is failureRatio)" + tail}},
		{"breaker: ratio fields with the consecutive trip", breaker(func(b *CustomBreaker) {
			b.Trip, b.FailureRatio, b.Window, b.MinCalls = "consecutiveFailures", 0.5, time.Minute, 20
		}), []string{
			"retry: custom.breaker.failureRatio: 0.5: applies only to trip failureRatio (trip is consecutiveFailures)" + tail,
			"retry: custom.breaker.window: 1m0s: applies only to trip failureRatio (trip is consecutiveFailures)" + tail,
			"retry: custom.breaker.minCalls: 20: applies only to trip failureRatio (trip is consecutiveFailures)" + tail,
		}},
		{"breaker: zero consecutive failures, openFor and probes", breaker(func(b *CustomBreaker) {
			b.Trip, b.ConsecutiveFailures, b.OpenFor, b.HalfOpenProbes = "consecutiveFailures", 0, 0, 0
		}), []string{
			"retry: custom.breaker.consecutiveFailures: 0: must be ≥ 1" + tail,
			"retry: custom.breaker.openFor: 0s: must be > 0" + tail,
			"retry: custom.breaker.halfOpenProbes: 0: must be ≥ 1" + tail,
		}},
	}
	for _, tc := range tests {
		var want []string
		want = append(want, tc.want...)
		wantErrors(t, tc.gloss, NameCustom, withCustom(tc.mod), want...)
	}
	// A custom block given to another policy.
	wantErrors(t, "custom block with none", NameNone, withCustom(nil),
		"retry: custom: given: options of custom, not of this policy (retryPolicy none)")
}

// TestCustomRetryOn checks the error mapping: a failure is retried exactly when its kind is in
// retryOn, and a throttled one never (the kit has no throttle, so none is expected).
func TestCustomRetryOn(t *testing.T) {
	tests := []struct {
		gloss   string
		retryOn []string
		retried []ErrKind
	}{
		{"default: overload, network, dispatch", nil, []ErrKind{KindOverload, KindNetwork, KindDispatch}},
		{"server errors only", []string{"server"}, []ErrKind{KindServer}},
		{"nothing", []string{}, nil},
	}
	for _, tc := range tests {
		p := mustNew(t, NameCustom, withCustom(func(c *CustomOptions) {
			if tc.retryOn != nil {
				c.RetryOn = tc.retryOn
			}
		}))
		for _, kf := range kindFailures {
			tr := run(t, p, find, times(1, kf.f), env{})
			want := slices.Contains(tc.retried, kf.kind)
			if tr.ok != want || (!want && (tr.why != NotRetryable || tr.err != kf.f)) {
				t.Errorf("%s: %v (%v): ok=%v %v %v; want retried=%v, else NotRetryable with the failure", tc.gloss, kf.f, kf.kind, tr.ok, tr.why, tr.err, want)
			}
		}
	}
}

// TestCustomMaxAttempts checks maxAttempts: the first attempt included, then MaxRetries, and
// the application gets the latest failure as it came (no MongoDB propagation rules: a later
// failure replaces one without NoWritesPerformed).
func TestCustomMaxAttempts(t *testing.T) {
	for _, n := range []int{1, 2, 3, 7} {
		p := mustNew(t, NameCustom, withCustom(func(c *CustomOptions) { c.MaxAttempts = n }))
		if tr := run(t, p, insert, alwaysOn(rejected), env{}); tr.attempts != n || tr.why != MaxRetries || tr.err != rejected {
			t.Errorf("maxAttempts %d: %d attempts (%v, %v), want %d (MaxRetries, %v)", n, tr.attempts, tr.why, tr.err, n, rejected)
		}
	}
	p := mustNew(t, NameCustom, DefaultOptions()) // nil block: the defaults
	first := code(wire.HostUnreachable, wire.SystemOverloadedError)
	if tr := run(t, p, insert, then(first, rejected), env{}); tr.attempts != 3 || tr.err != rejected {
		t.Errorf("defaults: %d attempts, error %v; want 3 and the latest failure %v", tr.attempts, tr.err, rejected)
	}
}

// TestCustomBackoff checks each backoff kind and jitter against the formulas of CustomBackoff
// (the AWS Architecture Blog's full, equal and decorrelated jitter), retry by retry.
func TestCustomBackoff(t *testing.T) {
	tests := []struct {
		gloss   string
		backoff CustomBackoff
		jitter  float64
		want    []time.Duration
	}{
		{"none", CustomBackoff{Kind: "none"}, 1, msf(0, 0, 0)},
		{"constant, no jitter", CustomBackoff{Kind: "constant", Base: 50 * time.Millisecond, Jitter: "none"}, 0.3, msf(50, 50, 50)},
		{"constant, full jitter", CustomBackoff{Kind: "constant", Base: 50 * time.Millisecond, Jitter: "full"}, 0.5, msf(25, 25, 25)},
		{"constant, equal jitter at 0", CustomBackoff{Kind: "constant", Base: 50 * time.Millisecond, Jitter: "equal"}, 0, msf(25, 25, 25)},
		{"exponential ×2 from 100 ms, cap 1 s, no jitter", CustomBackoff{Kind: "exponential", Base: 100 * time.Millisecond,
			Cap: time.Second, Multiplier: 2, Jitter: "none"}, 0.5, msf(100, 200, 400, 800, 1000, 1000)},
		{"exponential ×3, full jitter at 1", CustomBackoff{Kind: "exponential", Base: 10 * time.Millisecond,
			Cap: time.Second, Multiplier: 3, Jitter: "full"}, 1, msf(10, 30, 90, 270, 810, 1000)},
		{"exponential ×2, full jitter at 0.25", CustomBackoff{Kind: "exponential", Base: 100 * time.Millisecond,
			Cap: 10 * time.Second, Multiplier: 2, Jitter: "full"}, 0.25, msf(25, 50, 100)},
		{"exponential ×2, equal jitter at 1: the ceiling", CustomBackoff{Kind: "exponential", Base: 100 * time.Millisecond,
			Cap: 10 * time.Second, Multiplier: 2, Jitter: "equal"}, 1, msf(100, 200, 400)},
		{"exponential ×2, equal jitter at 0: half the ceiling", CustomBackoff{Kind: "exponential", Base: 100 * time.Millisecond,
			Cap: 10 * time.Second, Multiplier: 2, Jitter: "equal"}, 0, msf(50, 100, 200)},
		{"multiplier 1.5", CustomBackoff{Kind: "exponential", Base: 100 * time.Millisecond,
			Cap: 10 * time.Second, Multiplier: 1.5, Jitter: "none"}, 0, msf(100, 150, 225)},
		{"decorrelated at 0: base every time", CustomBackoff{Kind: "exponential", Base: 100 * time.Millisecond,
			Cap: 10 * time.Second, Multiplier: 2, Jitter: "decorrelated"}, 0, msf(100, 100, 100)},
		{"decorrelated at 1: ×3 from base to the cap", CustomBackoff{Kind: "exponential", Base: 100 * time.Millisecond,
			Cap: 10 * time.Second, Multiplier: 2, Jitter: "decorrelated"}, 1, msf(300, 900, 2700, 8100, 10000, 10000)},
		{"decorrelated at 0.5: base + (3·prev − base)/2", CustomBackoff{Kind: "exponential", Base: 100 * time.Millisecond,
			Cap: 10 * time.Second, Multiplier: 2, Jitter: "decorrelated"}, 0.5, msf(200, 350, 575)},
	}
	for _, tc := range tests {
		p := mustNew(t, NameCustom, withCustom(func(c *CustomOptions) {
			c.MaxAttempts, c.Backoff = len(tc.want)+1, tc.backoff
		}))
		tr := run(t, p, find, alwaysOn(rejected), env{jitter: constJitter(tc.jitter)})
		if !slices.Equal(tr.backoffs, tc.want) {
			t.Errorf("%s: backoffs %v, want %v", tc.gloss, tr.backoffs, tc.want)
		}
	}
}

// TestCustomBucket checks the token bucket: it starts full; each retry needs and spends cost
// (Budget when short, spending nothing); deposits come per operation start or per success and
// stop at capacity; refillPerSec adds continuously.
func TestCustomBucket(t *testing.T) {
	newP := func(b CustomBucket) Policy {
		return mustNew(t, NameCustom, withCustom(func(c *CustomOptions) {
			c.MaxAttempts, c.Backoff.Kind, c.Bucket = 10, "none", &b
		}))
	}
	tokens := func(p Policy, now sim.Time) float64 {
		v, _ := CustomTokens(p, now)
		return v
	}
	// Capacity 3, cost 1, no deposits: three retries, then Budget, four attempts in all.
	p := newP(CustomBucket{Capacity: 3, Cost: 1, DepositOn: "success"})
	if got := tokens(p, 0); got != 3 {
		t.Fatalf("a new bucket holds %v, want 3 (full)", got)
	}
	if tr := run(t, p, find, alwaysOn(rejected), env{}); tr.attempts != 4 || tr.why != Budget || tokens(p, 0) != 0 {
		t.Errorf("capacity 3, cost 1: %d attempts (%v), %v left; want 4 (Budget), 0", tr.attempts, tr.why, tokens(p, 0))
	}
	// Cost 2 with 1.5 tokens: refused, nothing spent.
	p = newP(CustomBucket{Capacity: 1.5, Cost: 1.5, DepositOn: "success"})
	run(t, p, find, times(1, rejected), env{}) // spends 1.5
	if tr := run(t, p, find, alwaysOn(rejected), env{}); tr.attempts != 1 || tr.why != Budget || tokens(p, 0) != 0 {
		t.Errorf("empty bucket: %d attempts (%v), %v left; want 1 (Budget), 0", tr.attempts, tr.why, tokens(p, 0))
	}
	// Deposits: on start every operation, on success only successes; capped.
	steps := []struct {
		gloss    string
		b        CustomBucket
		s        script
		want     float64
		start, n int // tokens set before, operations run
	}{
		{"on start: an operation that fails at once deposits", CustomBucket{Capacity: 10, Deposit: 0.5, DepositOn: "start", Cost: 1},
			alwaysOn(code(wire.BadValue, 0)), 5.5, 5, 1},
		{"on success: an operation that fails at once deposits nothing", CustomBucket{Capacity: 10, Deposit: 0.5, DepositOn: "success", Cost: 1},
			alwaysOn(code(wire.BadValue, 0)), 5, 5, 1},
		{"on success: one retry then success: −1 +0.5", CustomBucket{Capacity: 10, Deposit: 0.5, DepositOn: "success", Cost: 1},
			times(1, rejected), 4.5, 5, 1},
		{"on start: one retry then success: +0.5 −1", CustomBucket{Capacity: 10, Deposit: 0.5, DepositOn: "start", Cost: 1},
			times(1, rejected), 4.5, 5, 1},
		{"deposits stop at capacity", CustomBucket{Capacity: 10, Deposit: 0.5, DepositOn: "success", Cost: 1},
			times(0, Failure{}), 10, 9, 4},
	}
	for _, tc := range steps {
		p := newP(tc.b)
		c := p.(*custom)
		c.bucket.tokens = float64(tc.start)
		for range tc.n {
			run(t, p, find, tc.s, env{})
		}
		if got := tokens(p, 0); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: %v tokens, want %v", tc.gloss, got, tc.want)
		}
	}
	// Refill: 2 tokens/s from empty, capped at 3.
	p = newP(CustomBucket{Capacity: 3, Cost: 1, DepositOn: "success", RefillPerSec: 2})
	p.(*custom).bucket.tokens = 0
	for _, tc := range []struct {
		at   time.Duration
		want float64
	}{{0, 0}, {250 * time.Millisecond, 0.5}, {time.Second, 2}, {10 * time.Second, 3}} {
		if got := tokens(p, sim.Time(tc.at)); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("refill 2/s from 0: %v tokens at %v, want %v", got, tc.at, tc.want)
		}
	}
}

// TestCustomBreakerStates walks the breaker through its states with trip consecutiveFailures 3,
// openFor 5 s and 2 probes: three failed attempts open it; open, retries are refused with
// Breaker while first attempts still go and are not counted; after 5 s two retries go as
// probes and a third is refused; two successful probes close it; a failed probe reopens it; a
// probe whose operation ends without an outcome reopens it too.
func TestCustomBreakerStates(t *testing.T) {
	p := mustNew(t, NameCustom, withCustom(func(c *CustomOptions) {
		c.MaxAttempts, c.Backoff.Kind = 10, "none"
		c.Breaker = &CustomBreaker{Trip: "consecutiveFailures", ConsecutiveFailures: 3, OpenFor: 5 * time.Second, HalfOpenProbes: 2}
	}))
	c := p.(*custom)
	state := func(now sim.Time) string { s, _ := CustomBreakerState(p, now); return s }
	step := func(gloss string, st *State, now sim.Time, fail bool, wantRetry bool, wantWhy GiveUp, wantState string) {
		t.Helper()
		if !fail {
			p.Succeeded(st, now)
		} else if d := p.Failed(st, rejected, now, constJitter(0)); d.Retry != wantRetry || d.Why != wantWhy {
			t.Errorf("%s: retry=%v why=%v, want %v %v", gloss, d.Retry, d.Why, wantRetry, wantWhy)
		}
		if got := state(now); got != wantState {
			t.Errorf("%s: breaker %s, want %s", gloss, got, wantState)
		}
	}
	var a, b, x State
	t0 := sim.Time(0)
	p.Begin(&a, find, t0, sim.Never)
	step("a fails once", &a, t0, true, true, Continue, "closed")
	step("a fails twice", &a, t0, true, true, Continue, "closed")
	step("a fails a third time: the breaker opens and refuses the retry", &a, t0, true, false, Breaker, "open")
	p.Begin(&b, find, t0, sim.Never)
	step("b's first attempt went; its retry is refused", &b, t0, true, false, Breaker, "open")
	t1 := t0.Add(4999 * time.Millisecond)
	p.Begin(&b, find, t1, sim.Never)
	step("just before openFor ends: still refused", &b, t1, true, false, Breaker, "open")
	t2 := t0.Add(5 * time.Second)
	if got := state(t2); got != "half-open" {
		t.Fatalf("after openFor: %s, want half-open", got)
	}
	p.Begin(&a, find, t2, sim.Never)
	p.Begin(&b, find, t2, sim.Never)
	p.Begin(&x, find, t2, sim.Never)
	step("a's retry goes as probe 1", &a, t2, true, true, Continue, "half-open")
	step("b's retry goes as probe 2", &b, t2, true, true, Continue, "half-open")
	step("x's retry: no probe left", &x, t2, true, false, Breaker, "half-open")
	step("probe 1 succeeds", &a, t2, false, false, Continue, "half-open")
	step("probe 2 succeeds: closed", &b, t2, false, false, Continue, "closed")
	if c.breaker.consecutive != 0 {
		t.Errorf("closing left %d consecutive failures, want 0", c.breaker.consecutive)
	}
	// Reopen by a failed probe.
	p.Begin(&a, find, t2, sim.Never)
	step("", &a, t2, true, true, Continue, "closed")
	step("", &a, t2, true, true, Continue, "closed")
	step("opens again", &a, t2, true, false, Breaker, "open")
	t3 := t2.Add(5 * time.Second)
	p.Begin(&a, find, t3, sim.Never)
	step("probe", &a, t3, true, true, Continue, "half-open")
	step("the probe fails: open again, and its own retry refused", &a, t3, true, false, Breaker, "open")
	// Reopen by a probe that ends without an outcome.
	t4 := t3.Add(5 * time.Second)
	p.Begin(&a, find, t4, sim.Never)
	step("probe", &a, t4, true, true, Continue, "half-open")
	p.(Ender).Ended(&a, t4)
	if got := state(t4); got != "open" {
		t.Errorf("a probe ended without outcome: breaker %s, want open", got)
	}
}

// TestCustomBreakerRatio checks the failure-ratio trip: nothing before minCalls attempts were
// counted in the window, then open once failures / attempts ≥ failureRatio; outcomes older than
// the window no longer count.
func TestCustomBreakerRatio(t *testing.T) {
	newP := func() Policy {
		return mustNew(t, NameCustom, withCustom(func(c *CustomOptions) {
			c.MaxAttempts, c.Backoff.Kind = 1, "none" // no retries: each operation is one attempt
			c.Breaker = &CustomBreaker{}
			c.Breaker.SetDefaults()
			c.Breaker.MinCalls, c.Breaker.FailureRatio = 10, 0.5
		}))
	}
	state := func(p Policy, now sim.Time) string { s, _ := CustomBreakerState(p, now); return s }
	one := func(p Policy, now sim.Time, fail bool) {
		var st State
		p.Begin(&st, find, now, sim.Never)
		if fail {
			p.Failed(&st, rejected, now, nil)
		} else {
			p.Succeeded(&st, now)
		}
	}
	// Nine failures: below minCalls, closed; the tenth attempt opens it.
	p := newP()
	for range 9 {
		one(p, 0, true)
	}
	if got := state(p, 0); got != "closed" {
		t.Errorf("9 failures < minCalls 10: %s, want closed", got)
	}
	one(p, 0, true)
	if got := state(p, 0); got != "open" {
		t.Errorf("10 failures: %s, want open", got)
	}
	// 6 successes then 4 failures: 4/10 < 0.5, closed; one more failure: 5/11 < 0.5; then 6/12.
	p = newP()
	for range 6 {
		one(p, 0, false)
	}
	for range 5 {
		one(p, 0, true)
	}
	if got := state(p, 0); got != "closed" {
		t.Errorf("5 failures in 11: %s, want closed", got)
	}
	one(p, 0, true)
	if got := state(p, 0); got != "open" {
		t.Errorf("6 failures in 12: %s, want open (ratio 0.5 reached)", got)
	}
	// Ten successes, then the window (30 s) passes: ten failures alone open it.
	p = newP()
	for range 10 {
		one(p, 0, false)
	}
	for range 10 {
		one(p, sim.Time(31*time.Second), true)
	}
	if got := state(p, sim.Time(31*time.Second)); got != "open" {
		t.Errorf("old successes out of the window: %s, want open", got)
	}
}

// TestCustomDeadline checks the deadline rule shared by the policies of other stacks: no retry
// once the deadline has passed, nor one whose backoff would end past it; none refused for time
// spends a token.
func TestCustomDeadline(t *testing.T) {
	p := mustNew(t, NameCustom, withCustom(func(c *CustomOptions) {
		c.MaxAttempts = 10
		c.Backoff = CustomBackoff{Kind: "constant", Base: 100 * time.Millisecond, Jitter: "none"}
		c.Bucket = &CustomBucket{Capacity: 100, DepositOn: "success", Cost: 1}
	}))
	tr := run(t, p, find, alwaysOn(rejected), env{deadline: sim.Time(350 * time.Millisecond), attempt: 10 * time.Millisecond})
	// Attempts end at 10, 120, 230, 340 ms; the retry after 340 would start at 440 > 350.
	if tr.attempts != 4 || tr.why != Deadline {
		t.Errorf("deadline 350 ms: %d attempts (%v), want 4 (Deadline)", tr.attempts, tr.why)
	}
	if v, _ := CustomTokens(p, 0); v != 97 {
		t.Errorf("%v tokens left, want 97: the refused retry spends none", v)
	}
	tr = run(t, p, find, alwaysOn(rejected), env{deadline: sim.Time(5 * time.Millisecond), attempt: 10 * time.Millisecond})
	if tr.attempts != 1 || tr.why != Deadline {
		t.Errorf("deadline passed during the first attempt: %d attempts (%v), want 1 (Deadline)", tr.attempts, tr.why)
	}
}

// TestCustomClosedFormRetries checks the closed form for N retries at independent failure
// probability p: amplification Σ_{k=0..N} p^k attempts per operation and success 1 − p^(N+1)
// (custom with maxAttempts N+1, no bucket, no breaker). Tolerance: 200 000 operations put the
// standard error of the amplification below 0.005 and of the success rate below 0.0012; the
// bounds are 4 standard errors.
func TestCustomClosedFormRetries(t *testing.T) {
	const ops = 200_000
	for _, n := range []int{1, 3} {
		for _, pf := range []float64{0.1, 0.3, 0.5, 0.9} {
			p := mustNew(t, NameCustom, withCustom(func(c *CustomOptions) { c.MaxAttempts, c.Backoff.Kind = n+1, "none" }))
			s := closedLoop(t, p, ops, time.Millisecond, 1, failWith(2, pf, rejected))
			wantA, wantS := geometric(pf, n), 1-math.Pow(pf, float64(n+1))
			if math.Abs(s.amplification()-wantA) > 0.02 || math.Abs(s.success()-wantS) > 0.005 {
				t.Errorf("N=%d p=%v: amplification %.4f success %.4f; want %.4f and %.4f", n, pf, s.amplification(), s.success(), wantA, wantS)
			}
			t.Logf("N=%d p=%v: amplification %.4f (closed form %.4f), success %.4f (%.4f)", n, pf, s.amplification(), wantA, s.success(), wantS)
		}
	}
}

// TestCustomBucketAmplification checks the deposit-r token bucket's bound: depositing r = 0.1
// per operation start and charging 1 per retry caps long-run retries per operation at r, so at
// p = 0.5, where the three attempts would give 1.75, amplification is 1.1 and success
// (1 − p)(1 + r) = 0.55 (capacity 5). Over 200 000 operations the bucket's start-up capacity
// moves the amplification by 5/200 000; the tolerance, 0.005, allows for that and for the
// success rate's standard error (0.0011).
func TestCustomBucketAmplification(t *testing.T) {
	for _, attempts := range []int{3, 4} {
		p := mustNew(t, NameCustom, withCustom(func(c *CustomOptions) {
			c.MaxAttempts, c.Backoff.Kind = attempts, "none"
			c.Bucket = &CustomBucket{Capacity: 5, Deposit: 0.1, DepositOn: "start", Cost: 1}
		}))
		s := closedLoop(t, p, 200_000, time.Millisecond, 3, failWith(4, 0.5, rejected))
		if math.Abs(s.amplification()-1.1) > 0.005 || math.Abs(s.success()-0.55) > 0.005 || s.why[Budget] == 0 {
			t.Errorf("maxAttempts %d, p=0.5: amplification %.4f success %.4f (%d refused for Budget); want 1.1, 0.55 and refusals",
				attempts, s.amplification(), s.success(), s.why[Budget])
		}
		t.Logf("maxAttempts %d, p=0.5: amplification %.4f, success %.4f", attempts, s.amplification(), s.success())
	}
}

// TestCustomBreakerAmplification checks the 10 % breaker (Polly's defaults: ratio 0.1 over 30 s,
// at least 100 attempts, open 5 s, one probe) with 3 retries and 1000 operations a second for
// 200 s: above a 10 % failure ratio (p = 0.3) it keeps retries off nearly all the time, so
// amplification is near 1 (each closed spell lasts about the 100 attempts it takes to trip,
// against 5 s = 5000 operations open: 1 + 0.42·70/5000 ≈ 1.006; bound 1.02); below it (p = 0.02)
// it never trips and amplification is 1 + p + p² + p³ = 1.0204 (standard error 0.0003; bound
// 0.002).
func TestCustomBreakerAmplification(t *testing.T) {
	newP := func() Policy {
		return mustNew(t, NameCustom, withCustom(func(c *CustomOptions) {
			c.MaxAttempts, c.Backoff.Kind = 4, "none"
			c.Breaker = &CustomBreaker{}
			c.Breaker.SetDefaults()
		}))
	}
	s := closedLoop(t, newP(), 200_000, time.Millisecond, 5, failWith(6, 0.3, rejected))
	if a := s.amplification(); a < 1 || a > 1.02 || s.why[Breaker] == 0 {
		t.Errorf("p=0.3: amplification %.4f (%d refused by the breaker), want in [1, 1.02] with refusals", a, s.why[Breaker])
	}
	t.Logf("p=0.3: amplification %.4f", s.amplification())
	s = closedLoop(t, newP(), 200_000, time.Millisecond, 7, failWith(8, 0.02, rejected))
	if a, want := s.amplification(), geometric(0.02, 3); math.Abs(a-want) > 0.002 || s.why[Breaker] != 0 {
		t.Errorf("p=0.02: amplification %.4f (%d refused by the breaker), want %.4f and none", a, s.why[Breaker], want)
	}
	t.Logf("p=0.02: amplification %.4f (closed form %.4f)", s.amplification(), geometric(0.02, 3))
}

// TestOtherStacksZeroAllocs checks that the policies of other stacks allocate nothing per
// operation with every part configured: Admit, Failed, Succeeded and Ended included.
func TestOtherStacksZeroAllocs(t *testing.T) {
	full := withCustom(func(c *CustomOptions) {
		c.Bucket, c.Breaker = &CustomBucket{}, &CustomBreaker{}
		c.Bucket.SetDefaults()
		c.Breaker.SetDefaults()
		c.Backoff.Jitter = "decorrelated"
	})
	budget := DefaultOptions()
	var e EnvoyOptions
	e.SetDefaults()
	e.RetryBudget = &EnvoyRetryBudget{}
	e.RetryBudget.SetDefaults()
	budget.Block = &e
	j := sim.NewStream(1, "allocs")
	for _, tc := range []struct {
		name string
		o    Options
	}{{NameCustom, full}, {NameEnvoy, budget}, {NameEnvoy, DefaultOptions()}, {NameSRE, DefaultOptions()}, {NameFinagle, DefaultOptions()}} {
		p := mustNew(t, tc.name, tc.o)
		gate, _ := p.(Gate)
		ender, _ := p.(Ender)
		var st State
		now := sim.Time(0)
		allocs := testing.AllocsPerRun(1000, func() {
			now = now.Add(10 * time.Millisecond)
			p.Begin(&st, insert, now, sim.Never)
			for _, f := range []Failure{rejected, netErr} {
				if gate != nil {
					gate.Admit(&st, now, j)
				}
				p.Failed(&st, f, now, j)
			}
			p.Succeeded(&st, now)
			if ender != nil {
				ender.Ended(&st, now)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per operation, want 0", tc.name, allocs)
		}
	}
}

// playOutcomes runs one single-attempt operation per letter of seq through p at time 0: S
// succeeds, O fails with an overload reply, N with a network error, X with a server error reply
// (KindServer) and T is a local rejection (KindThrottled).
func playOutcomes(t *testing.T, p Policy, seq string) {
	t.Helper()
	for i, c := range seq {
		var st State
		p.Begin(&st, find, 0, sim.Never)
		var f Failure
		switch c {
		case 'S':
			p.Succeeded(&st, 0)
			continue
		case 'O':
			f = rejected
		case 'N':
			f = netErr
		case 'X':
			f = code(wire.BadValue, 0)
		case 'T':
			f = localReject
		default:
			t.Fatalf("playOutcomes(%q): bad outcome %q at %d", seq, c, i)
		}
		p.Failed(&st, f, 0, constJitter(0))
	}
}

// consecutiveBreaker is the custom policy with one attempt per operation and a breaker that
// trips on 3 consecutive failures, retryOn as given (nil: the default overload, network,
// dispatch).
func consecutiveBreaker(t *testing.T, retryOn []string) *custom {
	t.Helper()
	return mustNew(t, NameCustom, withCustom(func(c *CustomOptions) {
		c.MaxAttempts, c.Backoff.Kind = 1, "none"
		if retryOn != nil {
			c.RetryOn = retryOn
		}
		c.Breaker = &CustomBreaker{}
		c.Breaker.SetDefaults()
		c.Breaker.Trip, c.Breaker.ConsecutiveFailures = "consecutiveFailures", 3
	})).(*custom)
}

// TestCustomBreakerSuccessResets pins the consecutive-failures trip counting failures in a row:
// a success sets the count back to 0, so only an unbroken run of consecutiveFailures failures
// opens the breaker (docs/policies.md §7, "Breaker": it trips "on consecutiveFailures", failed
// attempts in a row; CustomBreaker.ConsecutiveFailures).
func TestCustomBreakerSuccessResets(t *testing.T) {
	tests := []struct {
		seq         string
		state       string
		consecutive int // the count while closed
	}{
		{"OO", "closed", 2},
		{"OOS", "closed", 0},
		{"OOSOO", "closed", 2},
		{"OOSOOO", "open", 3},
		{"ONSNO", "closed", 2},
		{"OSOSOSOS", "closed", 0},
		{"OOO", "open", 3},
	}
	for _, tc := range tests {
		p := consecutiveBreaker(t, nil)
		playOutcomes(t, p, tc.seq)
		if got, _ := CustomBreakerState(p, 0); got != tc.state || p.breaker.consecutive != tc.consecutive {
			t.Errorf("CustomBreakerState after %s = %s with %d failed in a row, want %s with %d (a success resets the count)",
				tc.seq, got, p.breaker.consecutive, tc.state, tc.consecutive)
		}
	}
}

// TestCustomBreakerCountsRetryOnOnly pins what the breaker counts as a failure: an attempt that
// fails with a kind in retryOn; one that fails with any other kind counts as a success
// (docs/policies.md §7, "Breaker": "as a success otherwise (it succeeded, or failed with an error
// the policy does not retry: Polly's ShouldHandle semantics)"; in Polly v8
// CircuitBreakerResilienceStrategy.ExecuteCore sends an outcome ShouldHandle accepts to
// CircuitStateController.OnHandledOutcomeAsync, a failure, and any other to
// OnUnhandledOutcomeAsync, which records a success). Both trips: 3 consecutive failures, and a
// ratio of 0.6 over at least 4 attempts.
func TestCustomBreakerCountsRetryOnOnly(t *testing.T) {
	ratio := func(retryOn []string) Policy {
		return mustNew(t, NameCustom, withCustom(func(c *CustomOptions) {
			c.MaxAttempts, c.Backoff.Kind = 1, "none"
			if retryOn != nil {
				c.RetryOn = retryOn
			}
			c.Breaker = &CustomBreaker{}
			c.Breaker.SetDefaults()
			c.Breaker.MinCalls, c.Breaker.FailureRatio = 4, 0.6
		}))
	}
	consecutive := func(retryOn []string) Policy { return consecutiveBreaker(t, retryOn) }
	tests := []struct {
		gloss   string
		breaker func([]string) Policy
		retryOn []string
		seq     string
		state   string
	}{
		{"consecutive: server errors are not retried, so they reset the run", consecutive, nil, "OOXO", "closed"},
		{"consecutive: three server errors are three successes", consecutive, nil, "XXX", "closed"},
		{"consecutive: local rejections never count", consecutive, nil, "TTT", "closed"},
		{"consecutive: three overload errors open it", consecutive, nil, "OOO", "open"},
		{"consecutive, retryOn server: three server errors open it", consecutive, []string{"server"}, "XXX", "open"},
		{"consecutive, retryOn server: overload errors are successes", consecutive, []string{"server"}, "XXOX", "closed"},
		{"ratio: 2 counted failures of 4 attempts < 0.6", ratio, nil, "XXOO", "closed"},
		{"ratio: 3 of 4 ≥ 0.6", ratio, nil, "OXOO", "open"},
		{"ratio, retryOn network: 1 of 4", ratio, []string{"network"}, "OOON", "closed"},
	}
	for _, tc := range tests {
		p := tc.breaker(tc.retryOn)
		playOutcomes(t, p, tc.seq)
		if got, _ := CustomBreakerState(p, 0); got != tc.state {
			t.Errorf("%s: CustomBreakerState after %s = %s, want %s", tc.gloss, tc.seq, got, tc.state)
		}
	}
}
