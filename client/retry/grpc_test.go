package retry

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
)

// grpcOpts returns DefaultOptions with the grpc block's defaults changed by mod.
func grpcOpts(mod func(*GRPCOptions)) Options {
	o := DefaultOptions()
	g := new(GRPCOptions)
	g.SetDefaults()
	if mod != nil {
		mod(g)
	}
	o.Block = g
	return o
}

func newGRPCPolicy(t *testing.T, mod func(*GRPCOptions)) *grpcPolicy {
	t.Helper()
	return mustNew(t, NameGRPC, grpcOpts(mod)).(*grpcPolicy)
}

// throttled sets A6's retryThrottling.
func throttled(maxTokens, ratio float64) func(*GRPCOptions) {
	return func(g *GRPCOptions) { g.RetryThrottling = &GRPCThrottling{MaxTokens: maxTokens, TokenRatio: ratio} }
}

// hedged sets a hedging policy of n copies, delay apart, with the given non-fatal codes.
func hedged(n int, delay time.Duration, nonFatal ...string) func(*GRPCOptions) {
	return func(g *GRPCOptions) {
		g.HedgingPolicy = &GRPCHedging{MaxAttempts: n, HedgingDelay: delay, NonFatalStatusCodes: nonFatal}
	}
}

// jitter168 selects the 2017 jitter rule, full jitter, that grpc-go draws up to v1.68.
func jitter168(g *GRPCOptions) { g.BackoffJitter = GRPCJitterGRPCGo168 }

// noDraw is a Jitter that fails the test if drawn: decisions that must not draw one (a pushback
// delay, a hedge) use it.
type noDraw struct{ t *testing.T }

func (n noDraw) Float64() float64 { n.t.Helper(); n.t.Error("jitter drawn"); return 0 }

// TestGRPCDefaults checks the defaults against A6's examples: the retry policy of "Retry Policy
// Capabilities" (maxAttempts 4, initialBackoff .1s, maxBackoff 1s, backoffMultiplier 2), the
// hedging policy of "Hedging Policy" (4 copies, .5s, UNAVAILABLE, INTERNAL, ABORTED) and the
// throttling of "Throttling Retry Attempts and Hedged RPCs" (maxTokens 10, tokenRatio 0.1); and
// the client-side cap of 5 attempts ("Limits on Retries and Hedges").
func TestGRPCDefaults(t *testing.T) {
	var g GRPCOptions
	g.SetDefaults()
	want := GRPCOptions{MaxAttempts: 4, InitialBackoff: 100 * time.Millisecond, MaxBackoff: time.Second,
		BackoffMultiplier: 2, RetryableStatusCodes: []string{"UNAVAILABLE", "RESOURCE_EXHAUSTED"},
		BackoffJitter: GRPCJitterGRPCGo169}
	if !reflect.DeepEqual(g, want) {
		t.Errorf("GRPCOptions defaults = %+v, want %+v", g, want)
	}
	var h GRPCHedging
	h.SetDefaults()
	if want := (GRPCHedging{MaxAttempts: 4, HedgingDelay: 500 * time.Millisecond,
		NonFatalStatusCodes: []string{"UNAVAILABLE", "INTERNAL", "ABORTED"}}); !reflect.DeepEqual(h, want) {
		t.Errorf("GRPCHedging defaults = %+v, want %+v", h, want)
	}
	var th GRPCThrottling
	th.SetDefaults()
	if th != (GRPCThrottling{MaxTokens: 10, TokenRatio: 0.1}) {
		t.Errorf("GRPCThrottling defaults = %+v", th)
	}
	if grpcMaxAttemptsLimit != 5 || grpcMaxTokensLimit != 1000 {
		t.Errorf("limits %d, %d; want 5 and 1000", grpcMaxAttemptsLimit, grpcMaxTokensLimit)
	}
	// A nil block is the defaults.
	p := mustNew(t, NameGRPC, DefaultOptions()).(*grpcPolicy)
	if p.maxAttempts != 4 || p.initial != 100*time.Millisecond || p.maxBackoff != time.Second || p.multiplier != 2 ||
		p.hedging || p.maxMilli != 0 || !p.codes.has(grpcUnavailable) || !p.codes.has(grpcResourceExhausted) || p.codes.has(grpcInternal) {
		t.Errorf("grpc with no block: %+v", p)
	}
}

// TestGRPCStatusMapping checks the error mapping of the package documentation, failure by
// failure, and the 17 status code names of grpc/grpc doc/statuscodes.md.
func TestGRPCStatusMapping(t *testing.T) {
	tests := []struct {
		gloss string
		f     Failure
		want  string
	}{
		{"an overload reply (a rate limiter's rejection, HTTP 429's code)", rejected, "RESOURCE_EXHAUSTED"},
		{"the spec tests' overload failpoint", specOverload, "RESOURCE_EXHAUSTED"},
		{"a Couchbase overload status", Failure{Code: wire.HTTPStatus(429)}, "RESOURCE_EXHAUSTED"},
		{"a network error", netErr, "UNAVAILABLE"},
		{"a request never sent: no connection", Failure{Dispatch: true}, "UNAVAILABLE"},
		{"a request never sent: pool cleared", cleared, "UNAVAILABLE"},
		{"a request never sent: no node", Failure{NoNode: true, Dispatch: true}, "UNAVAILABLE"},
		{"a transient server error: shutting down", code(wire.ShutdownInProgress, 0), "UNAVAILABLE"},
		{"a transient server error: not primary", code(wire.NotWritablePrimary, 0), "UNAVAILABLE"},
		{"another error reply", code(wire.BadValue, 0), "INTERNAL"},
		{"462 without its labels is just an error reply", code(wire.IngressRequestRateLimitExceeded, 0), "INTERNAL"},
		{"the client's own throttle: no status", Failure{Throttled: true, Dispatch: true}, ""},
	}
	for _, tc := range tests {
		if got := GRPCStatus(tc.f); got != tc.want {
			t.Errorf("%s: GRPCStatus(%v) = %q, want %q", tc.gloss, tc.f, got, tc.want)
		}
	}
	want := "OK CANCELLED UNKNOWN INVALID_ARGUMENT DEADLINE_EXCEEDED NOT_FOUND ALREADY_EXISTS PERMISSION_DENIED " +
		"RESOURCE_EXHAUSTED FAILED_PRECONDITION ABORTED OUT_OF_RANGE UNIMPLEMENTED INTERNAL UNAVAILABLE DATA_LOSS UNAUTHENTICATED"
	if got := strings.Join(grpcCodeNames[:], " "); got != want {
		t.Errorf("code names %s", got)
	}
	for i, n := range grpcCodeNames {
		if c, ok := grpcParseCode(n); !ok || int(c) != i {
			t.Errorf("grpcParseCode(%q) = %d, %v; want %d", n, c, ok, i)
		}
	}
	if _, ok := grpcParseCode("unavailable"); ok {
		t.Error("status code names are upper case")
	}
}

// TestGRPCBackoffCeilings checks A6 "Exponential Backoff" (revised 2024-08-23): the n-th
// retry occurs after min(initialBackoff*backoffMultiplier**(n-1), maxBackoff) * random(0.8,
// 1.2), with the jitter pinned at 0.5 (factor 1: the base itself), 0 (0.8 × the base) and 1
// (1.2 × the base, beyond maxBackoff as A6 notes), and maxAttempts clamped to 5; and the 2017
// rule, random(0, base), under backoffJitter grpc-go-1.68.
func TestGRPCBackoffCeilings(t *testing.T) {
	tests := []struct {
		gloss   string
		mod     func(*GRPCOptions)
		jitter  float64
		backoff []time.Duration
	}{
		{"A6's example: .1s doubling, 4 attempts", nil, 0.5, ms(100, 200, 400)},
		{"jitter 0: 0.8 × the base", nil, 0, ms(80, 160, 320)},
		{"jitter 1: 1.2 × the base", nil, 1, ms(120, 240, 480)},
		{"maxBackoff caps the base", func(g *GRPCOptions) { g.MaxAttempts, g.InitialBackoff = 5, 300*time.Millisecond }, 0.5,
			ms(300, 600, 1000, 1000)},
		{"the jitter may exceed maxBackoff", func(g *GRPCOptions) { g.MaxAttempts, g.InitialBackoff = 5, 300*time.Millisecond }, 1,
			ms(360, 720, 1200, 1200)},
		{"multiplier 1.6", func(g *GRPCOptions) { g.MaxAttempts, g.BackoffMultiplier = 5, 1.6 }, 0.5,
			[]time.Duration{100 * time.Millisecond, 160 * time.Millisecond, 256 * time.Millisecond, 409600 * time.Microsecond}},
		{"multiplier below 1 shrinks the base", func(g *GRPCOptions) { g.BackoffMultiplier = 0.5 }, 0.5, ms(100, 50, 25)},
		{"initialBackoff above maxBackoff: maxBackoff", func(g *GRPCOptions) { g.InitialBackoff = 2 * time.Second }, 0.5, ms(1000, 1000, 1000)},
		{"maxAttempts 100 is treated as 5", func(g *GRPCOptions) { g.MaxAttempts = 100 }, 0.5, ms(100, 200, 400, 800)},
		{"maxAttempts 2: one retry", func(g *GRPCOptions) { g.MaxAttempts = 2 }, 0.5, ms(100)},
		{"grpc-go-1.68, jitter 1: the ceiling", jitter168, 1, ms(100, 200, 400)},
		{"grpc-go-1.68, jitter 0: every retry at once", jitter168, 0, ms(0, 0, 0)},
		{"grpc-go-1.68, jitter 0.5: half the ceiling", jitter168, 0.5, ms(50, 100, 200)},
	}
	for _, tc := range tests {
		p := newGRPCPolicy(t, tc.mod)
		tr := run(t, p, Class{}, alwaysOn(netErr), env{jitter: constJitter(tc.jitter)})
		if !reflect.DeepEqual(tr.backoffs, tc.backoff) || tr.why != MaxRetries || tr.attempts != len(tc.backoff)+1 {
			t.Errorf("%s: backoffs %v, %d attempts, %v; want %v, %d attempts, MaxRetries",
				tc.gloss, tr.backoffs, tr.attempts, tr.why, tc.backoff, len(tc.backoff)+1)
		}
		for _, d := range tr.deprio {
			if d {
				t.Errorf("%s: a retry deprioritized the server (only hedges do)", tc.gloss)
			}
		}
	}
}

// TestGRPCMaxAttemptsClamp checks A6 "Limits on Retries and Hedges": maxAttempts of both
// policies above 5 is treated as 5.
func TestGRPCMaxAttemptsClamp(t *testing.T) {
	for _, tc := range []struct{ given, want int }{{2, 2}, {4, 4}, {5, 5}, {6, 5}, {1000, 5}} {
		p := newGRPCPolicy(t, func(g *GRPCOptions) { g.MaxAttempts = tc.given })
		if tr := run(t, p, Class{}, alwaysOn(netErr), env{}); tr.attempts != tc.want {
			t.Errorf("retryPolicy.maxAttempts %d: %d attempts, want %d", tc.given, tr.attempts, tc.want)
		}
		h := newGRPCPolicy(t, hedged(tc.given, time.Second, "UNAVAILABLE"))
		if _, n, ok := h.Hedging(); !ok || n != tc.want {
			t.Errorf("hedgingPolicy.maxAttempts %d: Hedging() = %d, %v; want %d", tc.given, n, ok, tc.want)
		}
	}
}

// TestGRPCRetryableCodes checks A6 "Retryable Status Codes": a status in retryableStatusCodes is
// retried, any other is returned at once.
func TestGRPCRetryableCodes(t *testing.T) {
	tests := []struct {
		codes []string
		f     Failure
		retry bool
	}{
		{[]string{"UNAVAILABLE"}, netErr, true},
		{[]string{"UNAVAILABLE"}, rejected, false},
		{[]string{"RESOURCE_EXHAUSTED"}, rejected, true},
		{[]string{"RESOURCE_EXHAUSTED"}, netErr, false},
		{[]string{"INTERNAL"}, code(wire.BadValue, 0), true},
		{[]string{"UNAVAILABLE", "RESOURCE_EXHAUSTED"}, code(wire.BadValue, 0), false},
		{[]string{"UNAVAILABLE", "RESOURCE_EXHAUSTED", "INTERNAL"}, Failure{Throttled: true, Dispatch: true}, false},
	}
	for _, tc := range tests {
		p := newGRPCPolicy(t, func(g *GRPCOptions) { g.RetryableStatusCodes = tc.codes })
		var st State
		p.Begin(&st, Class{}, 0, sim.Never)
		d := p.Failed(&st, tc.f, 0, constJitter(1))
		if d.Retry != tc.retry || (!d.Retry && d.Why != NotRetryable) {
			t.Errorf("codes %v, %v (%s): %+v, want retry %v", tc.codes, tc.f, GRPCStatus(tc.f), d, tc.retry)
		}
		if !d.Retry && d.Err != tc.f {
			t.Errorf("codes %v: the application gets %v, want the latest error %v", tc.codes, d.Err, tc.f)
		}
	}
}

// TestGRPCThrottlingArithmetic checks A6 "Throttling Retry Attempts and Hedged RPCs" step by
// step: token_count starts at maxTokens; every failed RPC with a retryable code (or pushback not
// to retry) takes 1, every success adds tokenRatio; it stays in [0, maxTokens]; retries are
// allowed only while token_count > maxTokens/2, judged after the failure's decrement, and a
// throttled retry is returned at once (Budget, no backoff).
func TestGRPCThrottlingArithmetic(t *testing.T) {
	type step struct {
		f      *Failure // nil: success
		retry  bool     // after a failure: retried
		why    GiveUp
		tokens float64 // after the step
	}
	fail := func(f Failure, retry bool, why GiveUp, tokens float64) step { return step{&f, retry, why, tokens} }
	ok := func(tokens float64) step { return step{tokens: tokens} }
	pushStop := Failure{Network: true, Pushback: true, PushbackMS: -1}
	tests := []struct {
		gloss       string
		max, ratio  float64
		maxAttempts int
		steps       []step // each starts a new operation unless the previous was retried
	}{
		{"A6: a success at maxTokens stays at maxTokens", 10, 0.1, 4, []step{ok(10)}},
		{"A6: failures take 1 each; the first failure leaving 5 = maxTokens/2 is not retried", 10, 0.1, 5, []step{
			fail(netErr, true, 0, 9), fail(netErr, true, 0, 8), fail(netErr, true, 0, 7), fail(netErr, true, 0, 6),
			fail(netErr, false, MaxRetries, 5), fail(netErr, false, Budget, 4)}},
		{"A6: retries resume only when a failure leaves more than maxTokens/2", 10, 0.1, 4, []step{
			fail(netErr, true, 0, 9), fail(netErr, true, 0, 8), fail(netErr, true, 0, 7), fail(netErr, false, MaxRetries, 6),
			fail(netErr, false, Budget, 5), ok(5.1), ok(5.2), ok(5.3), ok(5.4), ok(5.5), ok(5.6), ok(5.7), ok(5.8), ok(5.9),
			ok(6), fail(netErr, false, Budget, 5), ok(5.1), ok(5.2), ok(5.3), ok(5.4), ok(5.5), ok(5.6), ok(5.7), ok(5.8),
			ok(5.9), ok(6), ok(6.1), fail(netErr, true, 0, 5.1), fail(netErr, false, Budget, 4.1)}},
		{"A6: a non-retryable code is not counted", 10, 0.1, 4, []step{
			fail(code(wire.BadValue, 0), false, NotRetryable, 10), fail(rejected, true, 0, 9)}},
		{"A6: pushback not to retry is counted, whatever the code", 4, 0.5, 4, []step{
			fail(pushStop, false, PushbackStop, 3), fail(Failure{Code: wire.BadValue, Pushback: true, PushbackMS: -7}, false, PushbackStop, 2)}},
		{"the count never goes below 0", 2, 0.5, 4, []step{
			fail(netErr, false, Budget, 1), fail(netErr, false, Budget, 0), fail(netErr, false, Budget, 0), ok(0.5)}},
		{"nor above maxTokens", 2.5, 0.75, 4, []step{fail(netErr, true, 0, 1.5), ok(2.25), ok(2.5), ok(2.5)}},
		{"3-decimal ratios add exactly", 1, 0.001, 2, []step{
			fail(netErr, false, Budget, 0), ok(0.001), ok(0.002), ok(0.003)}},
		{"an odd maxTokens: 3 tokens, threshold 1.5", 3, 0.25, 4, []step{
			fail(netErr, true, 0, 2), fail(netErr, false, Budget, 1), ok(1.25), ok(1.5), fail(netErr, false, Budget, 0.5),
			ok(0.75), ok(1), ok(1.25), ok(1.5), ok(1.75), fail(netErr, false, Budget, 0.75)}},
	}
	for _, tc := range tests {
		p := newGRPCPolicy(t, func(g *GRPCOptions) {
			throttled(tc.max, tc.ratio)(g)
			g.MaxAttempts = tc.maxAttempts
		})
		var st State
		inOp := false
		for i, s := range tc.steps {
			if !inOp {
				p.Begin(&st, Class{}, 0, sim.Never)
			}
			if s.f == nil {
				p.Succeeded(&st, 0)
				inOp = false
			} else {
				d := p.Failed(&st, *s.f, 0, constJitter(1))
				if d.Retry != s.retry || d.Why != s.why {
					t.Errorf("%s: step %d: %+v, want retry %v why %v", tc.gloss, i, d, s.retry, s.why)
				}
				if d.Why == Budget && d.Backoff != 0 {
					t.Errorf("%s: step %d: a throttled retry waits %v (A6: it does not block)", tc.gloss, i, d.Backoff)
				}
				inOp = d.Retry
			}
			if got := p.tokens(); got != s.tokens {
				t.Errorf("%s: step %d: token_count %v, want %v", tc.gloss, i, got, s.tokens)
			}
		}
	}
}

// TestGRPCThrottlingDrift checks the closed form of docs/policies.md §2.7 in a pure loop: with
// tokenRatio r the expected token drift per RPC without retries is r(1 − p) − p, so retries shut
// off for a failure probability p above r/(1 + r) ≈ 0.0909 (r = 0.1): at p = 0.2 the
// steady-state retry fraction is about 0 (unthrottled, 4 attempts, it would be p + p² + p³ ≈
// 0.25), at p = 0.05 it stays about p.
func TestGRPCThrottlingDrift(t *testing.T) {
	const r = 0.1
	drift := func(p float64) float64 { return r*(1-p) - p }
	if th := r / (1 + r); math.Abs(th-0.0909) > 1e-4 || drift(th-0.001) <= 0 || drift(th+0.001) >= 0 {
		t.Errorf("threshold r/(1+r) = %v: drift %v below, %v above", th, drift(th-0.001), drift(th+0.001))
	}
	const ops = 200_000
	for _, tc := range []struct {
		p        float64
		min, max float64 // steady-state retries per operation
	}{
		{0.2, 0, 0.001},
		{0.05, 0.045, 0.06},
	} {
		p := newGRPCPolicy(t, throttled(10, r))
		rng := rand.New(rand.NewPCG(1, uint64(tc.p*1000)))
		var st State
		retries := 0
		for op := range ops {
			p.Begin(&st, Class{}, 0, sim.Never)
			for {
				if rng.Float64() >= tc.p {
					p.Succeeded(&st, 0)
					break
				}
				if d := p.Failed(&st, netErr, 0, constJitter(0)); !d.Retry {
					break
				}
			}
			if op >= ops/2 {
				retries += st.Retries()
			}
		}
		frac := float64(retries) / (ops / 2)
		t.Logf("p = %v: steady-state retries per operation %.4f", tc.p, frac)
		if frac < tc.min || frac > tc.max {
			t.Errorf("p = %v: steady-state retry fraction %.4f, want in [%v, %v] (drift r(1−p)−p = %.3f); tokens at the end %v",
				tc.p, frac, tc.min, tc.max, drift(tc.p), p.tokens())
		}
	}
}

// TestGRPCPushback checks A6 "Pushback" and "Summary of Retry and Hedging Logic" for the retry
// policy: N ≥ 0 ms is the delay, exactly (no jitter drawn), and the backoff after it restarts
// from initialBackoff; N < 0 means do not retry; pushback makes no code retryable and no
// attempt beyond maxAttempts.
func TestGRPCPushback(t *testing.T) {
	push := func(f Failure, n int64) Failure { f.Pushback, f.PushbackMS = true, n; return f }
	p := newGRPCPolicy(t, func(g *GRPCOptions) { g.MaxAttempts = 5 })
	var st State
	p.Begin(&st, Class{}, 0, sim.Never)
	steps := []struct {
		f     Failure
		j     Jitter
		retry bool
		why   GiveUp
		wait  time.Duration
	}{
		{netErr, constJitter(0.5), true, Continue, 100 * time.Millisecond},
		{netErr, constJitter(0.5), true, Continue, 200 * time.Millisecond},
		{push(netErr, 1500), noDraw{t}, true, Continue, 1500 * time.Millisecond}, // exactly, no jitter
		{netErr, constJitter(0.5), true, Continue, 100 * time.Millisecond},       // restarted
		{push(netErr, 0), noDraw{t}, false, MaxRetries, 0},                       // attempts exhausted
	}
	for i, s := range steps {
		d := p.Failed(&st, s.f, 0, s.j)
		if d.Retry != s.retry || d.Why != s.why || d.Backoff != s.wait {
			t.Errorf("step %d (%v): %+v, want retry %v why %v after %v", i, s.f, d, s.retry, s.why, s.wait)
		}
	}
	for _, tc := range []struct {
		f   Failure
		why GiveUp
	}{
		{push(netErr, -1), PushbackStop},
		{push(rejected, math.MinInt64), PushbackStop},
		{push(code(wire.BadValue, 0), 100), NotRetryable},
	} {
		p.Begin(&st, Class{}, 0, sim.Never)
		if d := p.Failed(&st, tc.f, 0, noDraw{t}); d.Retry || d.Why != tc.why {
			t.Errorf("%v: %+v, want %v", tc.f, d, tc.why)
		}
	}
	// A pushback too large for int32 is capped there (grpc-retry-pushback-ms is an int32).
	p.Begin(&st, Class{}, 0, sim.Never)
	if d := p.Failed(&st, push(netErr, math.MaxInt64), 0, noDraw{t}); d.Backoff != math.MaxInt32*time.Millisecond {
		t.Errorf("huge pushback: %v", d.Backoff)
	}
}

// TestGRPCDeadline checks A6 "Maximum Number of Retries": the call's deadline applies across all
// attempts; a retry whose delay would end after it is not made, nor one after it passed.
func TestGRPCDeadline(t *testing.T) {
	p := newGRPCPolicy(t, nil)
	tr := run(t, p, Class{}, alwaysOn(netErr), env{deadline: sim.Time(250 * time.Millisecond), jitter: constJitter(0.5)})
	if tr.why != Deadline || !reflect.DeepEqual(tr.backoffs, ms(100)) {
		t.Errorf("deadline 250ms: %v after %v, want Deadline after [100ms]", tr.why, tr.backoffs)
	}
	// A retry may start at the deadline exactly; the failure then finds the deadline passed.
	tr = run(t, p, Class{}, alwaysOn(netErr), env{deadline: sim.Time(300 * time.Millisecond), jitter: constJitter(0.5)})
	if tr.why != Deadline || !reflect.DeepEqual(tr.backoffs, ms(100, 200)) {
		t.Errorf("deadline 300ms: %v after %v, want Deadline after [100ms 200ms]", tr.why, tr.backoffs)
	}
	var st State
	p.Begin(&st, Class{}, 0, sim.Time(time.Second))
	if d := p.Failed(&st, netErr, sim.Time(time.Second), constJitter(0)); d.Why != Deadline {
		t.Errorf("a failure at the deadline: %+v, want Deadline", d)
	}
	// CSOT is not needed: the deadline given is the call's.
	o := grpcOpts(nil)
	o.CSOT = false
	p2 := mustNew(t, NameGRPC, o)
	p2.Begin(&st, Class{}, 0, sim.Time(50*time.Millisecond))
	if d := p2.Failed(&st, netErr, 0, constJitter(1)); d.Why != Deadline {
		t.Errorf("without CSOT: %+v, want Deadline", d)
	}
}

// TestGRPCHedging checks A6 "Hedging Policy" and "Summary of Retry and Hedging Logic": copies go
// every hedgingDelay up to maxAttempts; a non-fatal code sends the next copy at once (to a
// backend not yet used); a fatal code cancels everything (NotRetryable); pushback not to retry
// stops further copies; pushback N ≥ 0 sends the next after N ms; throttling applies to hedges.
func TestGRPCHedging(t *testing.T) {
	p := newGRPCPolicy(t, hedged(3, 200*time.Millisecond, "UNAVAILABLE", "ABORTED"))
	if delay, n, ok := p.Hedging(); !ok || delay != 200*time.Millisecond || n != 3 {
		t.Errorf("Hedging() = %v, %d, %v", delay, n, ok)
	}
	var st State
	p.Begin(&st, Class{}, 0, sim.Never)
	if !p.Hedge(&st, sim.Time(200*time.Millisecond)) || st.Retries() != 1 {
		t.Fatalf("the second copy was refused")
	}
	// Non-fatal: the third copy at once, deprioritizing the servers tried; no jitter drawn.
	if d := p.Failed(&st, netErr, sim.Time(300*time.Millisecond), noDraw{t}); !d.Retry || d.Backoff != 0 || !d.Deprioritize {
		t.Errorf("non-fatal failure: %+v, want the next copy at once", d)
	}
	if p.Hedge(&st, sim.Time(500*time.Millisecond)) {
		t.Error("a fourth copy with maxAttempts 3")
	}
	if d := p.Failed(&st, netErr, 0, noDraw{t}); d.Retry || d.Why != MaxRetries {
		t.Errorf("non-fatal failure with every copy sent: %+v, want MaxRetries", d)
	}

	// Fatal: RESOURCE_EXHAUSTED is not in the list.
	p.Begin(&st, Class{}, 0, sim.Never)
	if d := p.Failed(&st, rejected, 0, noDraw{t}); d.Retry || d.Why != NotRetryable || d.Err != rejected {
		t.Errorf("fatal failure: %+v, want NotRetryable", d)
	}

	// Pushback: after N ms; not to retry: no further copies, by Hedge or Failed.
	p.Begin(&st, Class{}, 0, sim.Never)
	if d := p.Failed(&st, Failure{Network: true, Pushback: true, PushbackMS: 700}, 0, noDraw{t}); !d.Retry || d.Backoff != 700*time.Millisecond {
		t.Errorf("pushback 700: %+v", d)
	}
	p.Begin(&st, Class{}, 0, sim.Never)
	if d := p.Failed(&st, Failure{Network: true, Pushback: true, PushbackMS: -1}, 0, noDraw{t}); d.Retry || d.Why != PushbackStop {
		t.Errorf("pushback -1: %+v", d)
	}
	if p.Hedge(&st, sim.Time(time.Second)) {
		t.Error("a hedge after pushback not to retry")
	}
	if d := p.Failed(&st, netErr, 0, noDraw{t}); d.Retry {
		t.Errorf("a copy after pushback not to retry: %+v", d)
	}

	// Throttling: "subsequent hedged RPCs will only be sent if token_count is greater than the
	// threshold"; the first is always sent.
	p = newGRPCPolicy(t, func(g *GRPCOptions) {
		hedged(4, 0, "UNAVAILABLE")(g)
		throttled(2, 0.5)(g)
	})
	p.Begin(&st, Class{}, 0, sim.Never)
	if !p.Hedge(&st, 0) {
		t.Fatal("a hedge with a full token count was refused")
	}
	if d := p.Failed(&st, netErr, 0, noDraw{t}); d.Retry || d.Why != Budget || p.tokens() != 1 {
		t.Errorf("non-fatal failure leaving 1 of 2 tokens: %+v, %v tokens; want Budget", d, p.tokens())
	}
	if p.Hedge(&st, 0) {
		t.Error("a hedge at the threshold")
	}
	// A fatal failure is not counted.
	p.Begin(&st, Class{}, 0, sim.Never)
	p.Failed(&st, rejected, 0, noDraw{t})
	if p.tokens() != 1 {
		t.Errorf("a fatal code was counted: %v tokens", p.tokens())
	}
	// The deadline: no copy after it.
	p = newGRPCPolicy(t, hedged(4, 0, "UNAVAILABLE"))
	p.Begin(&st, Class{}, 0, sim.Time(time.Second))
	if p.Hedge(&st, sim.Time(time.Second)) {
		t.Error("a hedge at the deadline")
	}
	// The retry policy does not hedge.
	r := newGRPCPolicy(t, nil)
	r.Begin(&st, Class{}, 0, sim.Never)
	if _, _, ok := r.Hedging(); ok || r.Hedge(&st, 0) {
		t.Error("a retry policy hedges")
	}
}

// TestGRPCValidate checks every rule of GRPCOptions, each reported with the value and the rule.
func TestGRPCValidate(t *testing.T) {
	const suffix = " (retryPolicy grpc)"
	tests := []struct {
		gloss string
		mod   func(*GRPCOptions)
		want  []string
	}{
		{"defaults", nil, nil},
		{"A6's example throttling and hedging", func(g *GRPCOptions) {
			g.RetryThrottling, g.HedgingPolicy = new(GRPCThrottling), new(GRPCHedging)
			g.RetryThrottling.SetDefaults()
			g.HedgingPolicy.SetDefaults()
		}, nil},
		{"maxAttempts above 5 is valid (clamped)", func(g *GRPCOptions) { g.MaxAttempts = 9 }, nil},
		{"maxAttempts 1", func(g *GRPCOptions) { g.MaxAttempts = 1 },
			[]string{"grpc.maxAttempts: 1: must be ≥ 2, the first attempt included (A6); values above 5 are treated as 5"}},
		{"backoffs and multiplier", func(g *GRPCOptions) {
			g.InitialBackoff, g.MaxBackoff, g.BackoffMultiplier = 0, -time.Second, math.Inf(1)
		},
			[]string{"grpc.initialBackoff: 0s: must be > 0 (A6)", "grpc.maxBackoff: -1s: must be > 0 (A6)",
				"grpc.backoffMultiplier: +Inf: must be a finite number > 0 (A6)"}},
		{"NaN multiplier", func(g *GRPCOptions) { g.BackoffMultiplier = math.NaN() },
			[]string{"grpc.backoffMultiplier: NaN: must be a finite number > 0 (A6)"}},
		{"no codes", func(g *GRPCOptions) { g.RetryableStatusCodes = nil },
			[]string{"grpc.retryableStatusCodes: []: must name at least one status code (A6: required and non-empty)"}},
		{"unknown code and OK", func(g *GRPCOptions) { g.RetryableStatusCodes = []string{"Unavailable", "OK"} },
			[]string{`grpc.retryableStatusCodes: "Unavailable": not a gRPC status code; known: CANCELLED, UNKNOWN, INVALID_ARGUMENT, DEADLINE_EXCEEDED, NOT_FOUND, ALREADY_EXISTS, PERMISSION_DENIED, RESOURCE_EXHAUSTED, FAILED_PRECONDITION, ABORTED, OUT_OF_RANGE, UNIMPLEMENTED, INTERNAL, UNAVAILABLE, DATA_LOSS, UNAUTHENTICATED`,
				`grpc.retryableStatusCodes: "OK": OK is a success, not a failure to retry`}},
		{"throttling out of range", func(g *GRPCOptions) { g.RetryThrottling = &GRPCThrottling{MaxTokens: 1001, TokenRatio: 0} },
			[]string{"grpc.retryThrottling.maxTokens: 1001: must be in (0, 1000] (A6; grpc-go's range)",
				"grpc.retryThrottling.tokenRatio: 0: must be a finite number > 0 (A6)"}},
		{"throttling: more than 3 decimals", func(g *GRPCOptions) { g.RetryThrottling = &GRPCThrottling{MaxTokens: 10.0005, TokenRatio: 0.0001} },
			[]string{"grpc.retryThrottling.maxTokens: 10.0005: at most 3 decimals (token counts are kept in thousandths)",
				`grpc.retryThrottling.tokenRatio: 0.0001: at most 3 decimals (A6: "Up to 3 decimal places are supported")`}},
		{"throttling: 999.9995 has 4 decimals", func(g *GRPCOptions) { g.RetryThrottling = &GRPCThrottling{MaxTokens: 999.9995, TokenRatio: 0.1} },
			[]string{"grpc.retryThrottling.maxTokens: 999.9995: at most 3 decimals (token counts are kept in thousandths)"}},
		{"throttling: 1000 and 0.001 are fine", func(g *GRPCOptions) { g.RetryThrottling = &GRPCThrottling{MaxTokens: 1000, TokenRatio: 0.001} }, nil},
		{"hedging rules", func(g *GRPCOptions) {
			g.HedgingPolicy = &GRPCHedging{MaxAttempts: 1, HedgingDelay: -1, NonFatalStatusCodes: []string{"NOPE"}}
		},
			[]string{"grpc.hedgingPolicy.maxAttempts: 1: must be ≥ 2, the first copy included (A6); values above 5 are treated as 5",
				"grpc.hedgingPolicy.hedgingDelay: -1ns: must be ≥ 0 (0 sends every copy at once)",
				`grpc.hedgingPolicy.nonFatalStatusCodes: "NOPE": not a gRPC status code; known: CANCELLED, UNKNOWN, INVALID_ARGUMENT, DEADLINE_EXCEEDED, NOT_FOUND, ALREADY_EXISTS, PERMISSION_DENIED, RESOURCE_EXHAUSTED, FAILED_PRECONDITION, ABORTED, OUT_OF_RANGE, UNIMPLEMENTED, INTERNAL, UNAVAILABLE, DATA_LOSS, UNAUTHENTICATED`}},
		{"backoffJitter: the 2017 rule by its release", jitter168, nil},
		{"backoffJitter: unknown", func(g *GRPCOptions) { g.BackoffJitter = "a6-2017" },
			[]string{`grpc.backoffJitter: "a6-2017": must be grpc-go-1.69 (A6 as revised 2024-08-23: base × U(0.8, 1.2)) or grpc-go-1.68 (A6 of 2017: U[0, base])`}},
		{"backoffJitter with hedging", func(g *GRPCOptions) { hedged(3, 0, "UNAVAILABLE")(g); jitter168(g) },
			[]string{"grpc.backoffJitter: \"grpc-go-1.68\": a retryPolicy field, which hedgingPolicy replaces (A6: a method has one or the other); leave it at its default grpc-go-1.69"}},
		{"hedging with a changed retry policy", func(g *GRPCOptions) {
			hedged(3, 0, "UNAVAILABLE")(g)
			g.MaxAttempts, g.RetryableStatusCodes = 3, []string{"UNAVAILABLE"}
		}, []string{"grpc.maxAttempts: 3: a retryPolicy field, which hedgingPolicy replaces (A6: a method has one or the other); leave it at its default 4 and set hedgingPolicy.maxAttempts",
			"grpc.retryableStatusCodes: UNAVAILABLE: a retryPolicy field, which hedgingPolicy replaces (A6: a method has one or the other); leave it at its default UNAVAILABLE,RESOURCE_EXHAUSTED and set hedgingPolicy.nonFatalStatusCodes"}},
	}
	for _, tc := range tests {
		err := grpcOpts(tc.mod).Validate(NameGRPC)
		var got []string
		if err != nil {
			for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
				got = append(got, strings.TrimSuffix(strings.TrimPrefix(e.Error(), "retry: "), suffix))
			}
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n got %q\nwant %q", tc.gloss, got, tc.want)
		}
	}
	// The block belongs to grpc alone.
	o := grpcOpts(nil)
	if err := o.Validate(NameAWSStandard); err == nil || !strings.Contains(err.Error(), "grpc: given: options of grpc, not of this policy") {
		t.Errorf("a grpc block with aws-standard: %v", err)
	}
	if err := o.Validate(NameGRPC); err != nil || errors.Is(err, ErrUnknownPolicy) {
		t.Errorf("defaults: %v", err)
	}
}

// TestGRPCZeroAllocs checks that the grpc policy allocates nothing per attempt: retries with
// throttling and pushback, and hedging.
func TestGRPCZeroAllocs(t *testing.T) {
	var j Jitter = sim.NewStream(1, "allocs")
	for _, mod := range []func(*GRPCOptions){throttled(10, 0.1), func(g *GRPCOptions) {
		hedged(4, time.Millisecond, "UNAVAILABLE")(g)
		throttled(10, 0.1)(g)
	}} {
		p := newGRPCPolicy(t, mod)
		var st State
		allocs := testing.AllocsPerRun(100, func() {
			p.Begin(&st, Class{}, 0, sim.Never)
			p.Hedge(&st, 0)
			p.Failed(&st, netErr, 0, j)
			p.Failed(&st, Failure{Code: wire.ShutdownInProgress, Pushback: true, PushbackMS: 5}, 0, j)
			p.Succeeded(&st, 0)
		})
		if allocs != 0 {
			t.Errorf("%v allocations per operation, want 0", allocs)
		}
	}
}

// ExampleGRPCStatus shows how the grpc policy sees the simulator's failures.
func ExampleGRPCStatus() {
	for _, f := range []Failure{
		{Code: wire.IngressRequestRateLimitExceeded, Labels: wire.SystemOverloadedError | wire.RetryableError},
		{Network: true},
		{Dispatch: true},
		{Code: wire.NotWritablePrimary},
		{Code: wire.BadValue},
	} {
		fmt.Printf("%v → %s\n", f, GRPCStatus(f))
	}
	// Output:
	// IngressRequestRateLimitExceeded(462) [SystemOverloadedError,RetryableError] → RESOURCE_EXHAUSTED
	// network error → UNAVAILABLE
	// no connection available (not sent) → UNAVAILABLE
	// NotWritablePrimary(10107) → UNAVAILABLE
	// BadValue(2) → INTERNAL
}

// TestGRPCJitterBounds checks the constants of A6 "Exponential Backoff" as revised on 2024-08-23
// (grpc/proposal commit dc9fd4f) and of grpc-go since v1.69.0 (stream.go, shouldRetry: "a
// random factor between 0.8 and 1.2", grpc/grpc-go#7869): over many draws from a seeded stream
// every delay lies in [0.8, 1.2] × the base, some on either side of it, and they average the
// base; the ends of the jitter give exactly 0.8 and 1.2 × the base. Under backoffJitter
// grpc-go-1.68 the 2017 rule, U[0, base] (grpc-go v1.68.x: rand.Int63n of the base), is kept:
// delays in [0, base], averaging half of it. grpc-go's change came without a test of its own.
func TestGRPCJitterBounds(t *testing.T) {
	const base = 400 * time.Millisecond
	tests := []struct {
		rule          string
		full          bool
		lo, hi, mean  float64 // × base
		atZero, atOne time.Duration
	}{
		{GRPCJitterGRPCGo169, false, 0.8, 1.2, 1, 320 * time.Millisecond, 480 * time.Millisecond},
		{GRPCJitterGRPCGo168, true, 0, 1, 0.5, 0, base},
	}
	for _, tc := range tests {
		if got := grpcDelay(base, 0, tc.full); got != tc.atZero {
			t.Errorf("%s: grpcDelay(%v, 0) = %v, want %v", tc.rule, base, got, tc.atZero)
		}
		if got := grpcDelay(base, 1, tc.full); got != tc.atOne {
			t.Errorf("%s: grpcDelay(%v, 1) = %v, want %v", tc.rule, base, got, tc.atOne)
		}
		p := newGRPCPolicy(t, func(g *GRPCOptions) { g.BackoffJitter, g.InitialBackoff, g.MaxBackoff = tc.rule, base, base })
		j := sim.NewStream(7, "grpc-jitter")
		const n = 100000
		var st State
		var sum float64
		minD, maxD := time.Duration(math.MaxInt64), time.Duration(0)
		below, above := 0, 0
		for range n {
			p.Begin(&st, Class{}, 0, sim.Never)
			d := p.Failed(&st, netErr, 0, j)
			if !d.Retry {
				t.Fatalf("%s: Failed(network error) = %+v, want a retry", tc.rule, d)
			}
			minD, maxD = min(minD, d.Backoff), max(maxD, d.Backoff)
			sum += float64(d.Backoff)
			switch {
			case d.Backoff < base:
				below++
			case d.Backoff > base:
				above++
			}
		}
		if lo := time.Duration(tc.lo * float64(base)); minD < lo {
			t.Errorf("%s: smallest delay %v, want ≥ %v", tc.rule, minD, lo)
		}
		if hi := time.Duration(tc.hi * float64(base)); maxD > hi {
			t.Errorf("%s: largest delay %v, want ≤ %v", tc.rule, maxD, hi)
		}
		// The draws reach close to both ends.
		if span := float64(maxD-minD) / float64(base); span < 0.99*(tc.hi-tc.lo) {
			t.Errorf("%s: delays span %v × the base (%v to %v), want about %v", tc.rule, span, minD, maxD, tc.hi-tc.lo)
		}
		if mean := sum / n / float64(base); math.Abs(mean-tc.mean) > 0.005 {
			t.Errorf("%s: mean delay %v × the base, want %v ± 0.005", tc.rule, mean, tc.mean)
		}
		if !tc.full && (below == 0 || above == 0) {
			t.Errorf("%s: %d delays below the base and %d above, want some of each", tc.rule, below, above)
		}
	}
}

// TestGRPCTransparentRetry checks A6 "Transparent Retries", second case ("load balancing
// succeeds but the RPC never leaves the client"): such a request is retried at once, whatever
// the retry policy, not counted as an attempt nor by the throttle, for as long as it happens
// until the deadline. The first row replays gRPC core's end-to-end test RetryTests
// RetryTransparentNotSentOnWire (grpc/grpc test/core/end2end/tests/retry_transparent_not_sent_on_wire.cc):
// the first ten attempts fail before being sent on the wire and the call then succeeds, with no
// grpc-previous-rpc-attempts on the request that got through. The others follow grpc-go's
// stream.go (csAttempt.shouldRetry: a NewStream error with AllowTransparentRetry is retried
// before the throttle, the pushback, the codes and maxAttempts are looked at, on any attempt).
// A connection that could not be established is A6's first case (a pick in
// TRANSIENT_FAILURE): the retry policy decides.
func TestGRPCTransparentRetry(t *testing.T) {
	establish := Failure{Dispatch: true, Network: true, Labels: wire.SystemOverloadedError | wire.RetryableError}
	seq := func(fs ...Failure) script {
		return func(i int) (Failure, bool) {
			if i < len(fs) {
				return fs[i], false
			}
			return Failure{}, true
		}
	}
	ten := make([]Failure, 10)
	for i := range ten {
		ten[i] = cleared
	}
	tests := []struct {
		gloss    string
		mod      func(*GRPCOptions)
		s        script
		deadline sim.Time
		attempts int
		ok       bool
		why      GiveUp
		tokens   float64 // with throttling (maxTokens 10), after the call
		attempt  int     // State.Attempt after the call: the attempts the policy counted
		backoffs []time.Duration
	}{
		{"core RetryTransparentNotSentOnWire: 10 not sent, then success, UNAVAILABLE not retryable",
			func(g *GRPCOptions) { g.RetryableStatusCodes = []string{"RESOURCE_EXHAUSTED"} }, seq(ten...), 0, 11, true, Continue, 10, 0, make([]time.Duration, 10)},
		{"maxAttempts 2 does not limit them", func(g *GRPCOptions) { g.MaxAttempts = 2 }, seq(ten...), 0, 11, true, Continue, 10, 0,
			make([]time.Duration, 10)},
		{"after a counted retry too (grpc-go: any attempt); maxAttempts counts only the others",
			func(g *GRPCOptions) { g.MaxAttempts = 2 }, seq(netErr, cleared, cleared, cleared, netErr), 0, 5, false, MaxRetries, 8, 2,
			ms(100, 0, 0, 0)},
		{"until the deadline", nil, alwaysOn(cleared), sim.Time(5 * time.Millisecond), 5, false, Deadline, 10, 0, ms(0, 0, 0, 0)},
		{"a failed establishment is a pick in TRANSIENT_FAILURE: counted, throttled, retried by the policy",
			nil, alwaysOn(establish), 0, 4, false, MaxRetries, 6, 4, ms(100, 200, 400)},
		{"a failed establishment with UNAVAILABLE not retryable is not retried",
			func(g *GRPCOptions) { g.RetryableStatusCodes = []string{"RESOURCE_EXHAUSTED"} }, alwaysOn(establish), 0, 1, false, NotRetryable, 10, 0, nil},
	}
	for _, tc := range tests {
		p := newGRPCPolicy(t, func(g *GRPCOptions) {
			if tc.mod != nil {
				tc.mod(g)
			}
			throttled(10, 0.1)(g)
		})
		var j Jitter = noDraw{t}
		if tc.attempt > 0 {
			j = constJitter(0.5)
		}
		e := env{jitter: j, deadline: tc.deadline}
		if tc.deadline != 0 {
			e.attempt = time.Millisecond
		}
		var st State
		tr := runState(t, p, &st, tc.s, e)
		if tr.attempts != tc.attempts || tr.ok != tc.ok || tr.why != tc.why {
			t.Errorf("%s: %d attempts, ok %v, %v; want %d, %v, %v", tc.gloss, tr.attempts, tr.ok, tr.why, tc.attempts, tc.ok, tc.why)
		}
		if got := p.tokens(); got != tc.tokens {
			t.Errorf("%s: token_count %v, want %v", tc.gloss, got, tc.tokens)
		}
		if got := st.Attempt(); got != tc.attempt {
			t.Errorf("%s: Attempt() = %d, want %d", tc.gloss, got, tc.attempt)
		}
		if len(tr.backoffs)+len(tc.backoffs) > 0 && !reflect.DeepEqual(tr.backoffs, tc.backoffs) {
			t.Errorf("%s: retries after %v, want %v", tc.gloss, tr.backoffs, tc.backoffs)
		}
	}
}

// runState is run with the operation's State kept in st, for the checks that read it.
func runState(t *testing.T, p Policy, st *State, s script, e env) transcript {
	t.Helper()
	if e.deadline == 0 {
		e.deadline = sim.Never
	}
	var tr transcript
	p.Begin(st, Class{}, 0, e.deadline)
	now := sim.Time(0)
	for i := 0; ; i++ {
		if i == 1000 {
			t.Fatalf("%s: no end after 1000 attempts", p.Name())
		}
		tr.attempts++
		now = now.Add(e.attempt)
		f, ok := s(i)
		if ok {
			p.Succeeded(st, now)
			tr.ok = true
			return tr
		}
		d := p.Failed(st, f, now, e.jitter)
		if !d.Retry {
			tr.why = d.Why
			return tr
		}
		tr.backoffs = append(tr.backoffs, d.Backoff)
		now = now.Add(d.Backoff)
	}
}
