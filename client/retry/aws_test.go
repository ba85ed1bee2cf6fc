package retry

import (
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

// awsOpts returns DefaultOptions with the aws block's defaults changed by mod.
func awsOpts(mod func(*AWSOptions)) Options {
	o := DefaultOptions()
	a := new(AWSOptions)
	a.SetDefaults()
	if mod != nil {
		mod(a)
	}
	o.Block = a
	return o
}

func awsLegacy(a *AWSOptions) { a.Behavior = AWSBehaviorLegacy }

func newAWS(t *testing.T, name string, mod func(*AWSOptions)) Policy {
	t.Helper()
	return mustNew(t, name, awsOpts(mod))
}

// standardOf returns the standard-mode part of an aws-* policy.
func standardOf(p Policy) *awsStandard {
	switch p := p.(type) {
	case *awsStandard:
		return p
	case *awsAdaptive:
		return &p.awsStandard
	}
	return nil
}

// TestAWSDefaults checks the constants against botocore (standard.py: DEFAULT_MAX_ATTEMPTS 3,
// _MAX_BACKOFF 20, _THROTTLING_BASE_SCALE 1, _NON_THROTTLING_BASE_SCALE 0.05,
// _RETRY_AFTER_MAX_ADDITIONAL 5, _RETRY_COST 5, _RETRY_COST_V2 14, _THROTTLING_RETRY_COST 5,
// _TIMEOUT_RETRY_REQUEST 10, _NO_RETRY_INCREMENT 1; quota.py INITIAL_CAPACITY 500; adaptive.py
// smoothing 0.8, buckets of 0.5 s, _MAX_RATE_ADJUST_SCALE 2; bucket.py _MIN_RATE 0.5;
// throttling.py C 0.4, β 0.7) and the defaults, which are the 2026 behaviour.
func TestAWSDefaults(t *testing.T) {
	var a AWSOptions
	a.SetDefaults()
	if a != (AWSOptions{Behavior: "2026", MaxAttempts: 0, RetryQuota: 500, AdaptiveWait: "reserve"}) || a.attempts() != 3 {
		t.Errorf("defaults %+v", a)
	}
	got := []float64{awsDefaultMaxAttempts, awsDefaultQuota, awsMaxBackoff.Seconds(), awsLegacyBase.Seconds(),
		awsThrottlingBase.Seconds(), awsTransientBase.Seconds(), awsRetryAfterMaxExtra.Seconds(), awsLegacyCost,
		awsLegacyTimeoutCost, awsCost2026, awsThrottlingCost2026, awsNoRetryIncrement, awsClockerSmoothing,
		1.0 / awsClockerBucketsPerSec, awsMaxRateAdjustScale, awsMinFillRate, awsCubicC, awsCubicBeta}
	want := []float64{3, 500, 20, 1, 1, 0.05, 5, 5, 10, 14, 5, 1, 0.8, 0.5, 2, 0.5, 0.4, 0.7}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("constants %v, want %v", got, want)
	}
	for _, name := range []string{NameAWSStandard, NameAWSAdaptive} {
		p := standardOf(mustNew(t, name, DefaultOptions()))
		if p.legacy || p.attempts != 3 || p.quota != 500 || p.capacity != 500 || p.name != name {
			t.Errorf("%s with no block: %+v", name, p)
		}
	}
	// Only adaptive mode has a Gate; neither hedges nor counts operations in progress.
	std, adp := mustNew(t, NameAWSStandard, DefaultOptions()), mustNew(t, NameAWSAdaptive, DefaultOptions())
	if _, ok := std.(Gate); ok {
		t.Error("aws-standard is a Gate")
	}
	if _, ok := adp.(Gate); !ok {
		t.Error("aws-adaptive is not a Gate")
	}
	for _, p := range []Policy{std, adp} {
		if _, ok := p.(Hedger); ok {
			t.Errorf("%s hedges", p.Name())
		}
		if _, ok := p.(Ender); ok {
			t.Errorf("%s is an Ender", p.Name())
		}
	}
}

// TestAWSErrorCategories checks the error mapping: throttling errors are overload replies;
// transient errors are network errors, requests never sent and error replies with a transient
// code; everything else is not retried. And the costs: legacy 5, a closed connection included
// (botocore's 10 is for timeouts only, see TestAWSTimeoutCost); 2026 14, 5 after a throttling
// error.
func TestAWSErrorCategories(t *testing.T) {
	tests := []struct {
		gloss                string
		f                    Failure
		retryable, throttles bool
		legacyCost, cost2026 int
	}{
		{"an overload reply", rejected, true, true, 5, 5},
		{"a Couchbase overload status", Failure{Code: wire.HTTPStatus(429)}, true, true, 5, 5},
		{"a network error (a connection closed)", netErr, true, false, 5, 14},
		{"no connection", Failure{Dispatch: true}, true, false, 5, 14},
		{"pool cleared", cleared, true, false, 5, 14},
		{"a transient code", code(wire.PrimarySteppedDown, 0), true, false, 5, 14},
		{"another error reply", code(wire.BadValue, 0), false, false, 5, 14},
		{"the client's own throttle", Failure{Throttled: true, Dispatch: true}, false, false, 5, 14},
	}
	l := standardOf(newAWS(t, NameAWSStandard, awsLegacy))
	n := standardOf(newAWS(t, NameAWSStandard, nil))
	for _, tc := range tests {
		r, th := awsRetryable(tc.f)
		if r != tc.retryable || th != tc.throttles || l.cost(tc.f) != tc.legacyCost || n.cost(tc.f) != tc.cost2026 {
			t.Errorf("%s: retryable %v throttling %v costs %d/%d; want %v %v %d/%d", tc.gloss, r, th, l.cost(tc.f), n.cost(tc.f),
				tc.retryable, tc.throttles, tc.legacyCost, tc.cost2026)
		}
		var st State
		n.Begin(&st, Class{}, 0, sim.Never)
		if d := n.Failed(&st, tc.f, 0, constJitter(1)); d.Retry != tc.retryable || !d.Retry && (d.Why != NotRetryable || d.Err != tc.f) {
			t.Errorf("%s: %+v", tc.gloss, d)
		}
	}
}

// TestAWSBackoff checks ExponentialBackoff.delay_amount: rand × min(base × 2^(attempt−1), 20 s)
// with the cap applied before the jitter; base 1 s in legacy, and in 2026 1 s for throttling
// errors and 50 ms for other transient ones.
func TestAWSBackoff(t *testing.T) {
	sec := func(v ...float64) []time.Duration {
		out := make([]time.Duration, len(v))
		for i, x := range v {
			out[i] = time.Duration(x * float64(time.Second))
		}
		return out
	}
	tests := []struct {
		gloss    string
		mod      func(*AWSOptions)
		f        Failure
		jitter   float64
		backoffs []time.Duration
	}{
		{"legacy, throttling: 1 s doubling, capped at 20 s", func(a *AWSOptions) { awsLegacy(a); a.MaxAttempts = 8 }, rejected, 1,
			sec(1, 2, 4, 8, 16, 20, 20)},
		{"legacy, transient: the same", func(a *AWSOptions) { awsLegacy(a); a.MaxAttempts = 4 }, netErr, 1, sec(1, 2, 4)},
		{"2026, throttling: 1 s", func(a *AWSOptions) { a.MaxAttempts = 8 }, rejected, 1, sec(1, 2, 4, 8, 16, 20, 20)},
		{"2026, transient: 50 ms, capped at 20 s after ten attempts", func(a *AWSOptions) { a.MaxAttempts = 11 }, netErr, 1,
			sec(0.05, 0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 6.4, 12.8, 20)},
		{"jitter 0", nil, rejected, 0, sec(0, 0)},
		{"jitter 0.25 × the capped ceiling", func(a *AWSOptions) { a.MaxAttempts = 7 }, rejected, 0.25, sec(0.25, 0.5, 1, 2, 4, 5)},
		{"the default 3 attempts", nil, code(wire.ShutdownInProgress, 0), 1, sec(0.05, 0.1)},
		{"one attempt: no retry", func(a *AWSOptions) { a.MaxAttempts = 1 }, rejected, 1, sec()},
	}
	for _, tc := range tests {
		for _, name := range []string{NameAWSStandard, NameAWSAdaptive} {
			p := newAWS(t, name, tc.mod)
			tr := run(t, p, Class{}, alwaysOn(tc.f), env{jitter: constJitter(tc.jitter)})
			if len(tr.backoffs)+len(tc.backoffs) > 0 && !reflect.DeepEqual(tr.backoffs, tc.backoffs) || tr.why != MaxRetries {
				t.Errorf("%s %s: %v then %v, want %v then MaxRetries", name, tc.gloss, tr.backoffs, tr.why, tc.backoffs)
			}
		}
	}
}

// TestAWSRetryAfter checks the 2026 x-amz-retry-after rule: the delay is the header's value
// clamped to [t, t + 5 s], t the computed (jittered) delay (standard.py: max(t_i, min(retry_after,
// 5 + t_i))); a negative value changes nothing; legacy ignores the header.
func TestAWSRetryAfter(t *testing.T) {
	pb := func(f Failure, n int64) Failure { f.Pushback, f.PushbackMS = true, n; return f }
	tests := []struct {
		gloss  string
		mod    func(*AWSOptions)
		f      Failure
		jitter float64
		want   time.Duration
	}{
		{"above t: the header", nil, pb(netErr, 3000), 1, 3 * time.Second},
		{"above t + 5 s: t + 5 s", nil, pb(rejected, 10000), 1, 6 * time.Second},
		{"below t: t", nil, pb(rejected, 500), 1, time.Second},
		{"0: t", nil, pb(rejected, 0), 1, time.Second},
		{"negative: ignored", nil, pb(rejected, -1), 1, time.Second},
		{"jitter 0, 8 s: 5 s", nil, pb(rejected, 8000), 0, 5 * time.Second},
		{"jitter 0, 2 s: 2 s", nil, pb(netErr, 2000), 0, 2 * time.Second},
		{"legacy: ignored", awsLegacy, pb(netErr, 3000), 1, time.Second},
		{"huge: t + 5 s", nil, pb(netErr, math.MaxInt64), 1, 5050 * time.Millisecond},
	}
	for _, tc := range tests {
		p := newAWS(t, NameAWSStandard, tc.mod)
		var st State
		p.Begin(&st, Class{}, 0, sim.Never)
		if d := p.Failed(&st, tc.f, 0, constJitter(tc.jitter)); !d.Retry || d.Backoff != tc.want {
			t.Errorf("%s: %+v, want a retry after %v", tc.gloss, d, tc.want)
		}
	}
}

// TestAWSQuota checks the retry quota (quota.py and RetryQuotaChecker): it starts full; each
// retry acquires its cost (legacy 5, 10 after a timeout; 2026 14, 5 after a throttling error),
// and without it the error is returned at once (Budget); a success releases 1 when the
// operation was never retried, else what its last retry acquired; nothing above the capacity.
func TestAWSQuota(t *testing.T) {
	type op struct {
		fails []Failure // then a success, unless gaveUp
		why   GiveUp    // Continue: succeeded
		quota int       // after the operation
	}
	tests := []struct {
		gloss string
		mod   func(*AWSOptions)
		ops   []op
	}{
		{"legacy: a first-try success at capacity stays at capacity", awsLegacy, []op{{nil, Continue, 500}}},
		{"legacy: a closed connection costs 5, refunded", awsLegacy, []op{{[]Failure{netErr}, Continue, 500}}},
		{"legacy: refund of the last retry's cost (5 then 5: 5 back)", awsLegacy, []op{
			{[]Failure{code(wire.ShutdownInProgress, 0), netErr}, Continue, 495}, {nil, Continue, 496}}},
		{"legacy: a failed operation keeps what it took", awsLegacy, []op{
			{[]Failure{netErr, netErr, netErr}, MaxRetries, 490}, {[]Failure{code(wire.BadValue, 0)}, NotRetryable, 490}}},
		{"2026: a throttling retry costs 5, a transient one 14", nil, []op{
			{[]Failure{rejected, rejected, rejected}, MaxRetries, 490}, {[]Failure{netErr, netErr, netErr}, MaxRetries, 462}}},
		{"2026: refund of the last retry's cost (14 then 5: 5 back)", nil, []op{
			{[]Failure{netErr, rejected}, Continue, 486}}},
		{"2026: refund of the last retry's cost (5 then 14: 14 back)", nil, []op{
			{[]Failure{rejected, netErr}, Continue, 495}, {nil, Continue, 496}}},
		{"2026: +1 per first-try success up to the capacity", func(a *AWSOptions) { a.RetryQuota = 20 }, []op{
			{[]Failure{rejected, netErr, netErr}, MaxRetries, 1}, {nil, Continue, 2}, {nil, Continue, 3}}},
		{"2026: without the cost the error is returned at once", func(a *AWSOptions) { a.RetryQuota = 20 }, []op{
			{[]Failure{netErr, netErr}, Budget, 6}, {[]Failure{rejected}, Continue, 6}, {[]Failure{rejected, rejected}, Budget, 1},
			{[]Failure{rejected}, Budget, 1}}},
		{"a quota of 0: no retries", func(a *AWSOptions) { a.RetryQuota = 0 }, []op{{[]Failure{rejected}, Budget, 0}, {nil, Continue, 0}}},
	}
	for _, tc := range tests {
		for _, name := range []string{NameAWSStandard, NameAWSAdaptive} {
			p := newAWS(t, name, tc.mod)
			s := standardOf(p)
			var st State
			for i, o := range tc.ops {
				p.Begin(&st, Class{}, 0, sim.Never)
				why := Continue
				for _, f := range o.fails {
					d := p.Failed(&st, f, 0, constJitter(0))
					if !d.Retry {
						why = d.Why
						if d.Err != f {
							t.Errorf("%s %s: op %d: the application gets %v, want the latest error %v", name, tc.gloss, i, d.Err, f)
						}
						break
					}
				}
				if why == Continue {
					p.Succeeded(&st, 0)
				}
				if why != o.why || s.quota != o.quota {
					t.Errorf("%s %s: op %d: %v, quota %d; want %v, %d", name, tc.gloss, i, why, s.quota, o.why, o.quota)
				}
			}
		}
	}
}

// TestAWSQuotaExactCost pins the boundary of the quota check: a retry is admitted when the
// quota holds exactly its cost, leaving it empty, and refused (Budget) one token short, costing
// nothing (botocore retries/quota.py RetryQuota.acquire: "if capacity_amount >
// self._available_capacity: return False"; docs/policies.md §3.4: no retry only "if the quota
// holds less than the cost"). The quota starts full, so RetryQuota is the
// balance the first retry meets; the last two cases meet the boundary after an earlier retry
// drew the quota down.
func TestAWSQuotaExactCost(t *testing.T) {
	tests := []struct {
		gloss     string
		mod       func(*AWSOptions)
		fails     []Failure // the operation's failures, the last one's retry at the boundary
		retry     bool      // the last failure is retried
		quotaLeft int
	}{
		{"2026 transient, quota 14 = cost 14: admitted", func(a *AWSOptions) { a.RetryQuota = 14 }, []Failure{netErr}, true, 0},
		{"2026 transient, quota 13 < cost 14: Budget", func(a *AWSOptions) { a.RetryQuota = 13 }, []Failure{netErr}, false, 13},
		{"2026 throttling, quota 5 = cost 5: admitted", func(a *AWSOptions) { a.RetryQuota = 5 }, []Failure{rejected}, true, 0},
		{"2026 throttling, quota 4 < cost 5: Budget", func(a *AWSOptions) { a.RetryQuota = 4 }, []Failure{rejected}, false, 4},
		{"legacy closed connection, quota 5 = cost 5: admitted", func(a *AWSOptions) { awsLegacy(a); a.RetryQuota = 5 }, []Failure{netErr}, true, 0},
		{"legacy closed connection, quota 4 < cost 5: Budget", func(a *AWSOptions) { awsLegacy(a); a.RetryQuota = 4 }, []Failure{netErr}, false, 4},
		{"legacy transient, quota 5 = cost 5: admitted", func(a *AWSOptions) { awsLegacy(a); a.RetryQuota = 5 },
			[]Failure{code(wire.ShutdownInProgress, 0)}, true, 0},
		{"2026, 19 − 14 leaves 5 = the throttling cost: admitted", func(a *AWSOptions) { a.RetryQuota, a.MaxAttempts = 19, 5 },
			[]Failure{netErr, rejected}, true, 0},
		{"2026, 18 − 14 leaves 4 < the throttling cost: Budget", func(a *AWSOptions) { a.RetryQuota, a.MaxAttempts = 18, 5 },
			[]Failure{netErr, rejected}, false, 4},
	}
	for _, tc := range tests {
		for _, name := range []string{NameAWSStandard, NameAWSAdaptive} {
			p := newAWS(t, name, tc.mod)
			var st State
			p.Begin(&st, Class{}, 0, sim.Never)
			var d Decision
			for i, f := range tc.fails {
				d = p.Failed(&st, f, 0, constJitter(0))
				if !d.Retry && i < len(tc.fails)-1 {
					t.Fatalf("%s %s: Failed(%v) before the boundary = %+v, want a retry", name, tc.gloss, f, d)
				}
			}
			wantWhy := Continue
			if !tc.retry {
				wantWhy = Budget
			}
			if q := standardOf(p).quota; d.Retry != tc.retry || d.Why != wantWhy || q != tc.quotaLeft {
				t.Errorf("%s %s: Failed(%v) = retry %v (%v), quota %d; want retry %v (%v), quota %d",
					name, tc.gloss, tc.fails[len(tc.fails)-1], d.Retry, d.Why, q, tc.retry, wantWhy, tc.quotaLeft)
			}
		}
	}
}

// TestAWSQuotaDrain checks the closed form of docs/policies.md §3.7 in a pure loop: with 3 attempts,
// retry cost c and the refund-last rule, the expected quota change per operation is
// (1 − p) − c p²(1 − p) − 2c p³, so the quota drains for p above 0.321 (c = 5, awsLegacy) or 0.215
// (c = 14, 2026 non-throttling errors). Somewhat above the threshold the quota empties; below
// it, it stays near full.
func TestAWSQuotaDrain(t *testing.T) {
	drift := func(p, c float64) float64 { return (1 - p) - c*p*p*(1-p) - 2*c*p*p*p }
	for _, th := range []struct{ c, p float64 }{{5, 0.321}, {14, 0.215}} {
		if drift(th.p-0.01, th.c) <= 0 || drift(th.p+0.01, th.c) >= 0 {
			t.Errorf("c = %v: the drift does not change sign at p = %v", th.c, th.p)
		}
	}
	tests := []struct {
		gloss   string
		mod     func(*AWSOptions)
		f       Failure
		c, p    float64
		drained bool
	}{
		{"legacy, cost 5, p = 0.36 > 0.321", awsLegacy, code(wire.ShutdownInProgress, 0), 5, 0.36, true},
		{"legacy, cost 5, p = 0.28 < 0.321", awsLegacy, code(wire.ShutdownInProgress, 0), 5, 0.28, false},
		{"2026, cost 14, p = 0.25 > 0.215", nil, netErr, 14, 0.25, true},
		{"2026, cost 14, p = 0.18 < 0.215", nil, netErr, 14, 0.18, false},
		{"2026 throttling errors, cost 5, p = 0.36", nil, rejected, 5, 0.36, true},
		{"2026 throttling errors, cost 5, p = 0.28", nil, rejected, 5, 0.28, false},
	}
	const ops = 100_000
	for _, tc := range tests {
		p := newAWS(t, NameAWSStandard, tc.mod)
		s := standardOf(p)
		rng := rand.New(rand.NewPCG(2, uint64(tc.p*1000)))
		var st State
		sum := 0
		for op := range ops {
			p.Begin(&st, Class{}, 0, sim.Never)
			for {
				if rng.Float64() >= tc.p {
					p.Succeeded(&st, 0)
					break
				}
				if d := p.Failed(&st, tc.f, 0, constJitter(0)); !d.Retry {
					break
				}
			}
			if op >= ops/2 {
				sum += s.quota
			}
		}
		mean := float64(sum) / (ops / 2)
		t.Logf("%s: mean quota %.1f (drift per operation %.3f)", tc.gloss, mean, drift(tc.p, tc.c))
		if tc.drained && mean > 50 || !tc.drained && mean < 450 {
			t.Errorf("%s: mean quota in the second half %.1f of 500; want drained %v (drift %.3f)", tc.gloss, mean, tc.drained, drift(tc.p, tc.c))
		}
	}
}

// TestAWSDeadline checks that an operation's deadline stops retries, and that a retry refused
// for it costs nothing.
func TestAWSDeadline(t *testing.T) {
	p := newAWS(t, NameAWSStandard, nil)
	tr := run(t, p, Class{}, alwaysOn(rejected), env{deadline: sim.Time(1500 * time.Millisecond)})
	if tr.why != Deadline || !reflect.DeepEqual(tr.backoffs, ms(1000)) || standardOf(p).quota != 495 {
		t.Errorf("%v after %v, quota %d; want Deadline after [1s], 495", tr.why, tr.backoffs, standardOf(p).quota)
	}
}

// TestAWSCubic checks CubicCalculator (throttling.py) on hand-computed numbers: on a throttle at
// t = 5 s with rate 10, W_max = 10, K = cbrt(10 × 0.3 / 0.4) = cbrt(7.5) = 1.9574, the new rate
// 0.7 × 10 = 7; afterwards the rate is 0.4 (t − 5 − K)³ + 10: 7 at t = 5 (β W_max), 9.6489 at
// 6 s, W_max at 5 + K, 10.4533 at 8 s. Before any throttle W_max = K = 0 and the start time is
// 0: 0.4 t³.
func TestAWSCubic(t *testing.T) {
	l := newAWSLimiter()
	near := func(gloss string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-4 {
			t.Errorf("%s = %.6f, want %.4f", gloss, got, want)
		}
	}
	near("rate at 2 s before any throttle", l.cubicSuccess(2), 3.2)
	near("new rate after a throttle at rate 10", l.cubicThrottle(10, 5), 7)
	near("W_max", l.wMax, 10)
	near("K", l.k, 1.957434)
	near("K³ = W_max (1 − β) / C", l.k*l.k*l.k, 7.5)
	near("last_fail", l.lastFail, 5)
	near("rate at the throttle", l.cubicSuccess(5), 7)
	near("rate at 6 s", l.cubicSuccess(6), 9.648936)
	near("rate at 5 s + K", l.cubicSuccess(5+l.k), 10)
	near("rate at 8 s", l.cubicSuccess(8), 10.453292)
}

// TestAWSRateClocker checks RateClocker.record (adaptive.py): responses count in 0.5 s buckets;
// when one falls in a later bucket than the last update, the rate is the count (that response
// included) over the distance between the buckets, smoothed 0.8 new and 0.2 old.
func TestAWSRateClocker(t *testing.T) {
	l := newAWSLimiter()
	for _, s := range []struct {
		t, measured float64
	}{
		{0.1, 0}, {0.2, 0}, {0.3, 0}, // bucket 0, the start's: no update
		{0.6, 6.4},  // bucket 0.5: 4 / 0.5 = 8, × 0.8
		{0.7, 6.4},  // same bucket
		{1.7, 2.88}, // bucket 1.5: 2 / 1 = 2; 0.8 × 2 + 0.2 × 6.4
		{1.99, 2.88},
		{2.0, 3.776}, // bucket 2: 2 / 0.5 = 4; 0.8 × 4 + 0.2 × 2.88
	} {
		if got := l.record(s.t); math.Abs(got-s.measured) > 1e-9 {
			t.Errorf("record(%v) = %v, want %v", s.t, got, s.measured)
		}
	}
}

// TestAWSAdmit checks the send token bucket (bucket.py) as the Gate sees it: nothing while the
// limiter is off; once on, each attempt takes a token and, when there is none, waits for the
// deficit at the fill rate, the reservations queueing in order; the fill rate is at least
// 0.5/s and the capacity at least 1.
func TestAWSAdmit(t *testing.T) {
	sec := func(s float64) sim.Time { return sim.Time(s * float64(time.Second)) }
	l := newAWSLimiter()
	if d := l.acquire(sec(5)); d != 0 || l.tokens != 0 {
		t.Errorf("off: waits %v, tokens %v", d, l.tokens)
	}
	l.enabled = true
	l.setRate(2, 0) // fill 2/s, capacity 2, no tokens at 0 (the bucket starts empty)
	for _, s := range []struct {
		at   float64
		wait time.Duration
	}{
		{0, 500 * time.Millisecond},  // deficit 1 at 2/s
		{0, time.Second},             // behind the first: deficit 2
		{1, 500 * time.Millisecond},  // 2 refilled by 1 s, both paid: deficit 1 again
		{10, 0},                      // refilled to the capacity, 2: one left
		{10, 0},                      // the last one
		{10, 500 * time.Millisecond}, // empty again
	} {
		if d := l.acquire(sec(s.at)); d != s.wait {
			t.Errorf("acquire at %vs: waits %v, want %v (tokens %v)", s.at, d, s.wait, l.tokens)
		}
	}
	l.setRate(0.1, 10) // below the minimum: fill 0.5/s, capacity 1
	if l.fill != 0.5 || l.capacity != 1 {
		t.Errorf("rate 0.1: fill %v capacity %v, want 0.5 and 1", l.fill, l.capacity)
	}
	if d := l.acquire(sec(10)); d != 4*time.Second { // deficit 1 + 1, at 0.5/s
		t.Errorf("at 0.5/s: waits %v, want 4s", d)
	}
	l.setRate(3, 100) // the refill before the change is at the old rate, up to the old capacity
	if l.tokens != 1 || l.capacity != 3 {
		t.Errorf("after 90 s: tokens %v capacity %v, want 1 and 3", l.tokens, l.capacity)
	}
	l.setRate(3, 101) // then the new rate fills the new capacity
	if l.tokens != 3 {
		t.Errorf("1 s later at 3/s: tokens %v, want 3", l.tokens)
	}
	l.setRate(1.5, 101) // scaling down cuts them to the capacity
	if l.tokens != 1.5 {
		t.Errorf("scaled down: tokens %v, want 1.5", l.tokens)
	}
}

// TestAWSAdaptiveLimiter checks ClientRateLimiter.on_receiving_response through the policy: the
// first throttling response enables the limiter with W_max the measured rate; once enabled a
// throttle takes the smaller of the measured rate and the bucket's rate; the bucket's rate is
// capped at twice the measured rate; requests never sent are not responses.
func TestAWSAdaptiveLimiter(t *testing.T) {
	sec := func(s float64) sim.Time { return sim.Time(s * float64(time.Second)) }
	p := newAWS(t, NameAWSAdaptive, nil).(*awsAdaptive)
	l := &p.lim
	var st State
	ok := func(at float64) { p.Begin(&st, Class{}, sec(at), sim.Never); p.Succeeded(&st, sec(at)) }
	fail := func(at float64, f Failure) Decision {
		p.Begin(&st, Class{}, sec(at), sim.Never)
		return p.Failed(&st, f, sec(at), constJitter(0))
	}
	for _, at := range []float64{0.1, 0.2, 0.3, 0.6} { // measured 0.8 × 4 / 0.5 = 6.4
		ok(at)
	}
	if l.enabled || math.Abs(l.measured-6.4) > 1e-9 {
		t.Fatalf("after 4 successes: enabled %v, measured %v", l.enabled, l.measured)
	}
	// Success rates are the CUBIC curve from 0 (0.4 t³), capped at twice the measured rate.
	if want := 0.4 * 0.6 * 0.6 * 0.6; math.Abs(l.fill-max(want, 0.5)) > 1e-9 {
		t.Errorf("fill %v, want max(0.4 × 0.6³, 0.5)", l.fill)
	}
	ok(3.0) // bucket 3: 1 / 2.5 = 0.4 → 0.8 × 0.4 + 0.2 × 6.4 = 1.6; CUBIC 0.4 × 27 = 10.8, cap 3.2
	if math.Abs(l.measured-1.6) > 1e-9 || math.Abs(l.fill-3.2) > 1e-9 {
		t.Errorf("measured %v fill %v, want 1.6 and 3.2 (twice the measured rate)", l.measured, l.fill)
	}
	// Requests never sent are not responses; a network error is.
	fail(3.1, Failure{Dispatch: true})
	if l.count != 0 {
		t.Errorf("a dispatch failure was counted: %v", l.count)
	}
	fail(3.1, netErr)
	if l.count != 1 || l.enabled {
		t.Errorf("a network error: count %v enabled %v, want 1 and false", l.count, l.enabled)
	}
	// The first throttle: W_max = the measured rate (1.6), the new rate 0.7 × 1.6.
	fail(3.2, rejected)
	if !l.enabled || math.Abs(l.wMax-1.6) > 1e-9 || math.Abs(l.fill-1.12) > 1e-9 || l.lastFail != 3.2 {
		t.Errorf("first throttle: enabled %v W_max %v fill %v last_fail %v; want true 1.6 1.12 3.2", l.enabled, l.wMax, l.fill, l.lastFail)
	}
	// Once enabled: W_max = min(measured, the bucket's rate) = min(1.6, 1.12).
	fail(3.3, rejected)
	if math.Abs(l.wMax-1.12) > 1e-9 || math.Abs(l.fill-0.784) > 1e-9 {
		t.Errorf("second throttle: W_max %v fill %v, want 1.12 and 0.784", l.wMax, l.fill)
	}
	// Once enabled, attempts wait for their tokens: the deficit at the fill rate.
	if a := p.Admit(&st, sec(3.3), noDraw{t}); a.Reject || a.Delay != 0 || l.tokens != 0 {
		t.Errorf("Admit with one token: %+v, tokens %v; want at once, 0 left", a, l.tokens)
	}
	a := p.Admit(&st, sec(3.3), noDraw{t})
	if want := time.Duration(math.Ceil(1 / l.fill * 1e9)); l.tokens != -1 || a.Reject || a.Delay != want {
		t.Errorf("Admit: %+v with tokens %v, want a delay of %v", a, l.tokens, want)
	}
}

// TestAWSAdaptiveWithdraw pins Withdraw: an attempt held back in Admit whose operation ends
// before its turn gives its send token back, so the reservations queued behind it move up and
// the next attempt waits as long as the withdrawn one would have (docs/policies.md §3.8,
// "Withdrawn reservations": the token returns to the bucket as a cancelled call's would; the
// driver calls Withdraw from op.timeout in phase phAdmit). While the limiter is off Admit took
// nothing, and Withdraw gives nothing back.
func TestAWSAdaptiveWithdraw(t *testing.T) {
	type step struct {
		withdraw bool          // Withdraw, else Admit
		wait     time.Duration // Admit's delay
		tokens   float64       // the bucket's balance after the step
	}
	tests := []struct {
		gloss    string
		throttle bool // a throttling response at 0 enables the limiter: fill 0.5/s, no tokens
		steps    []step
	}{
		{"the last reservation withdrawn: the next attempt takes its place", true, []step{
			{false, 2 * time.Second, -1}, {false, 4 * time.Second, -2},
			{true, 0, -1}, {false, 4 * time.Second, -2}}},
		{"two withdrawn: the bucket is back where it started", true, []step{
			{false, 2 * time.Second, -1}, {false, 4 * time.Second, -2},
			{true, 0, -1}, {true, 0, 0}, {false, 2 * time.Second, -1}}},
		{"limiter off: Admit takes nothing, Withdraw gives nothing", false, []step{
			{false, 0, 0}, {true, 0, 0}, {false, 0, 0}}},
	}
	for _, tc := range tests {
		p := newAWS(t, NameAWSAdaptive, nil).(*awsAdaptive)
		var st State
		p.Begin(&st, Class{}, 0, sim.Never)
		if tc.throttle {
			p.Failed(&st, rejected, 0, constJitter(0))
			if !p.lim.enabled || p.lim.fill != awsMinFillRate || p.lim.tokens != 0 {
				t.Fatalf("%s: after a throttle at 0: %s; want on, fill 0.5/s, no tokens", tc.gloss, p.lim.String())
			}
		}
		for i, s := range tc.steps {
			if s.withdraw {
				p.Withdraw(&st, 0)
				if p.lim.tokens != s.tokens {
					t.Errorf("%s: step %d: Withdraw() leaves %v tokens, want %v (the reservation returned)", tc.gloss, i, p.lim.tokens, s.tokens)
				}
				continue
			}
			if a := p.Admit(&st, 0, noDraw{t}); a.Reject || a.Delay != s.wait || p.lim.tokens != s.tokens {
				t.Errorf("%s: step %d: Admit(0) = %+v with %v tokens left, want a wait of %v with %v", tc.gloss, i, a, p.lim.tokens, s.wait, s.tokens)
			}
		}
	}
}

// TestAWSValidate checks every rule of AWSOptions.
func TestAWSValidate(t *testing.T) {
	tests := []struct {
		gloss string
		mod   func(*AWSOptions)
		want  string
	}{
		{"defaults", nil, ""},
		{"legacy, 1 attempt, quota 0", func(a *AWSOptions) { a.Behavior, a.MaxAttempts, a.RetryQuota = "legacy", 1, 0 }, ""},
		{"everything wrong", func(a *AWSOptions) {
			a.Behavior, a.MaxAttempts, a.RetryQuota, a.Preset, a.Service = "2025", -1, -1, "boto3", "s3"
		},
			`retry: aws.behavior: "2025": must be "2026" or "legacy" (retryPolicy aws-standard)` + "\n" +
				"retry: aws.maxAttempts: -1: must be ≥ 0, the first attempt included (0 = the SDK's default, 1 = no retries) (retryPolicy aws-standard)\n" +
				"retry: aws.retryQuota: -1: must be ≥ 0 (0 = no retries) (retryPolicy aws-standard)\n" +
				`retry: aws.preset: "boto3": must be "", "botocore-legacy", "cpp-default", "java-v2-legacy" or "js-v3" (retryPolicy aws-standard)` + "\n" +
				`retry: aws.behavior: "2025": a standard-mode rule: preset boto3 fixes the rules; leave it at 2026 (retryPolicy aws-standard)` + "\n" +
				`retry: aws.retryQuota: -1: preset boto3 has no retry quota; leave it at 500 (retryPolicy aws-standard)` + "\n" +
				`retry: aws.service: "s3": must be "" or "dynamodb" (retryPolicy aws-standard)`},
		{"the zero block", func(a *AWSOptions) { *a = AWSOptions{} },
			`retry: aws.behavior: "": must be "2026" or "legacy" (retryPolicy aws-standard)` + "\n" +
				`retry: aws.adaptiveWait: "": must be "reserve" or "recheck" (retryPolicy aws-standard)`},
		{"presets, DynamoDB", func(a *AWSOptions) { a.Preset, a.Service, a.MaxAttempts = AWSPresetBotocoreLegacy, "dynamodb", 2 }, ""},
		{"a preset with a standard-mode rule", func(a *AWSOptions) { a.Preset, a.Behavior, a.RetryQuota = AWSPresetCPPDefault, "legacy", 0 },
			`retry: aws.behavior: "legacy": a standard-mode rule: preset cpp-default fixes the rules; leave it at 2026 (retryPolicy aws-standard)` + "\n" +
				`retry: aws.retryQuota: 0: preset cpp-default has no retry quota; leave it at 500 (retryPolicy aws-standard)`},
		{"DynamoDB under cpp-default", func(a *AWSOptions) { a.Preset, a.Service = AWSPresetCPPDefault, "dynamodb" },
			`retry: aws.service: "dynamodb": aws-sdk-cpp's DefaultRetryStrategy has no service defaults (retryPolicy aws-standard)`},
		{"DynamoDB in the legacy standard mode", func(a *AWSOptions) { a.Behavior, a.Service = "legacy", "dynamodb" },
			`retry: aws.service: "dynamodb": the standard mode before 2026 has no service defaults (retryPolicy aws-standard)`},
		{"DynamoDB under js-v3", func(a *AWSOptions) { a.Preset, a.Service = AWSPresetJSV3, "dynamodb" },
			`retry: aws.service: "dynamodb": aws-sdk-js-v3's StandardRetryStrategy has no service defaults (retryPolicy aws-standard)`},
		{"DynamoDB under java-v2-legacy", func(a *AWSOptions) { a.Preset, a.Service = AWSPresetJavaV2Legacy, "dynamodb" }, ""},
		{"the quota of the presets that have one", func(a *AWSOptions) { a.Preset, a.RetryQuota = AWSPresetJSV3, 100 }, ""},
		{"the quota of java-v2-legacy", func(a *AWSOptions) { a.Preset, a.RetryQuota = AWSPresetJavaV2Legacy, 0 }, ""},
		{"botocore-legacy has no quota", func(a *AWSOptions) { a.Preset, a.RetryQuota = AWSPresetBotocoreLegacy, 100 },
			`retry: aws.retryQuota: 100: preset botocore-legacy has no retry quota; leave it at 500 (retryPolicy aws-standard)`},
	}
	for _, tc := range tests {
		got := ""
		if err := awsOpts(tc.mod).Validate(NameAWSStandard); err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.gloss, got, tc.want)
		}
	}
	err := awsOpts(func(a *AWSOptions) { a.Preset = AWSPresetBotocoreLegacy }).Validate(NameAWSAdaptive)
	if want := `retry: aws.preset: "botocore-legacy": applies only to aws-standard: a preset is not the adaptive mode (retryPolicy aws-adaptive)`; err == nil || err.Error() != want {
		t.Errorf("a preset with aws-adaptive: %v, want %s", err, want)
	}
	if err := awsOpts(nil).Validate(NameGRPC); err == nil || !strings.Contains(err.Error(), "aws: given: options of aws-standard, aws-adaptive, not of this policy") {
		t.Errorf("an aws block with grpc: %v", err)
	}
}

// TestAWSZeroAllocs checks that neither AWS policy allocates per attempt, Admit included.
func TestAWSZeroAllocs(t *testing.T) {
	var j Jitter = sim.NewStream(1, "allocs")
	for _, name := range []string{NameAWSStandard, NameAWSAdaptive} {
		p := newAWS(t, name, nil)
		g, _ := p.(Gate)
		var st State
		now := sim.Time(0)
		allocs := testing.AllocsPerRun(100, func() {
			now = now.Add(100 * time.Millisecond)
			p.Begin(&st, Class{}, now, sim.Never)
			if g != nil {
				g.Admit(&st, now, j)
			}
			p.Failed(&st, rejected, now, j)
			p.Failed(&st, Failure{Network: true, Pushback: true, PushbackMS: 20}, now, j)
			p.Succeeded(&st, now)
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per operation, want 0", name, allocs)
		}
	}
}

// Example_awsStandard prints the delays of the AWS standard mode's two behaviours for an
// operation that keeps failing, with jitter 1 (every delay its ceiling), and what the retries
// took from the client's quota of 500.
func Example_awsStandard() {
	for _, behavior := range []string{AWSBehaviorLegacy, AWSBehavior2026} {
		for _, f := range []Failure{
			{Code: wire.IngressRequestRateLimitExceeded, Labels: wire.SystemOverloadedError | wire.RetryableError},
			{Network: true},
		} {
			o := DefaultOptions()
			o.Block = &AWSOptions{Behavior: behavior, MaxAttempts: 3, RetryQuota: 500, AdaptiveWait: AWSWaitReserve}
			p, _ := New(NameAWSStandard, o)
			var st State
			p.Begin(&st, Class{}, 0, sim.Never)
			var delays []time.Duration
			for {
				d := p.Failed(&st, f, 0, constJitter(1))
				if !d.Retry {
					break
				}
				delays = append(delays, d.Backoff)
			}
			fmt.Printf("%-6s %-50v %v quota %d\n", behavior, f, delays, p.(*awsStandard).quota)
		}
	}
	// Output:
	// legacy IngressRequestRateLimitExceeded(462) [SystemOverloadedError,RetryableError] [1s 2s] quota 490
	// legacy network error                                      [1s 2s] quota 490
	// 2026   IngressRequestRateLimitExceeded(462) [SystemOverloadedError,RetryableError] [1s 2s] quota 490
	// 2026   network error                                      [50ms 100ms] quota 472
}
