package retry

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
)

// withFinagle returns the default Options with the finagle block mod makes from its defaults.
func withFinagle(mod func(*FinagleOptions)) Options {
	o := DefaultOptions()
	var f FinagleOptions
	f.SetDefaults()
	if mod != nil {
		mod(&f)
	}
	o.Block = &f
	return o
}

// retryingNetwork sets MethodBuilder's configuration with a classifier that retries network
// errors (ResponseClassifier.RetryOnTimeout orElse RetryOnChannelClosed).
func retryingNetwork(f *FinagleOptions) {
	f.Stack, f.Classifier = FinagleStackMethodBuilder, FinagleClassifierNetwork
}

// withNetwork returns the Options of withFinagle(mod) in MethodBuilder's configuration with a
// classifier that retries network errors, mod applied after.
func withNetwork(mod func(*FinagleOptions)) Options {
	return withFinagle(func(f *FinagleOptions) {
		retryingNetwork(f)
		if mod != nil {
			mod(f)
		}
	})
}

// TestFinagleValidate checks RetryBudget.apply's requirements (ttl in [1 s, 60 s],
// minRetriesPerSec ≥ 0, percentCanRetry in [0, 1000]) and those of RetryPolicy.tries and
// Backoff.decorrelatedJittered, each reported with its path, value and rule.
func TestFinagleValidate(t *testing.T) {
	const tail = " (retryPolicy finagle)"
	tests := []struct {
		gloss string
		mod   func(*FinagleOptions)
		want  []string
	}{
		// Happy paths.
		{"defaults", nil, nil},
		{"bounds of ttl and percentCanRetry", func(f *FinagleOptions) { f.TTL, f.PercentCanRetry = time.Minute, 1000 }, nil},
		{"ttl 1 s, no reserve", func(f *FinagleOptions) { f.TTL, f.MinRetriesPerSec = time.Second, 0 }, nil},
		{"both zero: never retries", func(f *FinagleOptions) { f.MinRetriesPerSec, f.PercentCanRetry = 0, 0 }, nil},
		{"one try, start equal to max", func(f *FinagleOptions) { retryingNetwork(f); f.Tries, f.BackoffStart = 1, f.BackoffMax }, nil},
		{"MethodBuilder, default classifier", func(f *FinagleOptions) { f.Stack = FinagleStackMethodBuilder }, nil},
		// Sad paths.
		{"ttl below 1 s", func(f *FinagleOptions) { f.TTL = 999 * time.Millisecond },
			[]string{"retry: finagle.ttl: 999ms: must be in [1s, 60s] (RetryBudget's bounds)" + tail}},
		{"ttl above 60 s", func(f *FinagleOptions) { f.TTL = 61 * time.Second },
			[]string{"retry: finagle.ttl: 1m1s: must be in [1s, 60s] (RetryBudget's bounds)" + tail}},
		{"negative minimum, percentage above 1000", func(f *FinagleOptions) { f.MinRetriesPerSec, f.PercentCanRetry = -1, 1000.5 },
			[]string{
				"retry: finagle.minRetriesPerSec: -1: must be ≥ 0" + tail,
				"retry: finagle.percentCanRetry: 1000.5: must be in [0, 1000]" + tail,
			}},
		{"NaN percentage", func(f *FinagleOptions) { f.PercentCanRetry = math.NaN() },
			[]string{"retry: finagle.percentCanRetry: NaN: must be in [0, 1000]" + tail}},
		{"zero tries, zero backoffs", func(f *FinagleOptions) { retryingNetwork(f); f.Tries, f.BackoffStart, f.BackoffMax = 0, 0, 0 },
			[]string{
				"retry: finagle.tries: 0: must be ≥ 1 (the first attempt included)" + tail,
				"retry: finagle.backoffStart: 0s: must be > 0" + tail,
				"retry: finagle.backoffMax: 0s: must be > 0" + tail,
			}},
		{"max below start", func(f *FinagleOptions) { retryingNetwork(f); f.BackoffMax = time.Millisecond },
			[]string{"retry: finagle.backoffMax: 1ms: must be ≥ backoffStart (5ms)" + tail}},
		{"unknown stack and classifier", func(f *FinagleOptions) { f.Stack, f.Classifier = "stack", "" }, []string{
			`retry: finagle.stack: "stack": must be client (the stock client) or methodBuilder` + tail,
			`retry: finagle.classifier: "": must be default or retryOnTimeoutAndChannelClosed` + tail,
		}},
		{"a network classifier on the stock client", func(f *FinagleOptions) { f.Classifier = FinagleClassifierNetwork },
			[]string{"retry: finagle.classifier: retryOnTimeoutAndChannelClosed: applies only with stack methodBuilder (the stock client has no retry filter)" + tail}},
		{"tries and backoffs where nothing reaches the retry policy", func(f *FinagleOptions) {
			f.Stack, f.Tries, f.BackoffStart, f.BackoffMax = FinagleStackMethodBuilder, 4, time.Millisecond, time.Second
		}, []string{
			"retry: finagle.tries: 4: applies only with stack methodBuilder and classifier retryOnTimeoutAndChannelClosed (nothing else reaches the retry policy); leave it at 3" + tail,
			"retry: finagle.backoffStart: 1ms: applies only with stack methodBuilder and classifier retryOnTimeoutAndChannelClosed (nothing else reaches the retry policy); leave it at 5ms" + tail,
			"retry: finagle.backoffMax: 1s: applies only with stack methodBuilder and classifier retryOnTimeoutAndChannelClosed (nothing else reaches the retry policy); leave it at 200ms" + tail,
		}},
	}
	for _, tc := range tests {
		wantErrors(t, tc.gloss, NameFinagle, withFinagle(tc.mod), tc.want...)
	}
}

// TestFinagleBudgetSetup checks RetryBudget.apply's arithmetic: 1000 tokens deposited per
// request (0 at percentCanRetry 0), floor(1000 / percentCanRetry) withdrawn per retry (1 at 0),
// a reserve of minRetriesPerSec × ttl in whole seconds × the withdrawal, Empty when both are 0;
// and the balance a new budget gives: (deposit + reserve) / withdrawal retries after the first
// request's deposit (the stock client's, when it succeeds).
func TestFinagleBudgetSetup(t *testing.T) {
	tests := []struct {
		gloss                      string
		mod                        func(*FinagleOptions)
		empty                      bool
		deposit, withdraw, reserve int64
		balance                    int64 // after one deposit
	}{
		{"defaults: 20 % on top of 10/s over 10 s", nil, false, 1000, 5000, 500_000, 100},
		{"10 % and 5/s (the user guide's example)", func(f *FinagleOptions) { f.MinRetriesPerSec, f.PercentCanRetry = 5, 0.1 },
			false, 1000, 10_000, 500_000, 50},
		{"two retries per request", func(f *FinagleOptions) { f.PercentCanRetry, f.MinRetriesPerSec = 2, 0 }, false, 1000, 500, 0, 2},
		{"percentCanRetry 0.3: the withdrawal truncates", func(f *FinagleOptions) { f.PercentCanRetry, f.MinRetriesPerSec = 0.3, 0 },
			false, 1000, 3333, 0, 0},
		{"only the minimum: all credit from the reserve", func(f *FinagleOptions) { f.PercentCanRetry = 0 }, false, 0, 1, 100, 100},
		{"ttl 1.9 s counts 1 s in the reserve", func(f *FinagleOptions) { f.TTL = 1900 * time.Millisecond }, false, 1000, 5000, 50_000, 10},
		{"both zero: Empty", func(f *FinagleOptions) { f.MinRetriesPerSec, f.PercentCanRetry = 0, 0 }, true, 0, 0, 0, 0},
	}
	for _, tc := range tests {
		p := mustNew(t, NameFinagle, withFinagle(tc.mod)).(*finagle)
		b := p.budget
		if b.empty != tc.empty || b.deposit != tc.deposit || b.withdraw != tc.withdraw || b.reserve != tc.reserve {
			t.Errorf("%s: empty %v deposit %d withdraw %d reserve %d; want %v %d %d %d",
				tc.gloss, b.empty, b.deposit, b.withdraw, b.reserve, tc.empty, tc.deposit, tc.withdraw, tc.reserve)
		}
		var st State
		p.Begin(&st, find, 0, sim.Never)
		p.Succeeded(&st, 0)
		if got, _ := FinagleBalance(p, 0); got != tc.balance {
			t.Errorf("%s: balance after one request %d, want %d", tc.gloss, got, tc.balance)
		}
	}
}

// TestFinagleBudgetExpiry checks the leaky bucket (TokenBucket.newLeakyBucket over a
// WindowedAdder of 10 slices): with activity every 10 ms, a deposit made at 0.5 s and one made
// at 0.95 s both leave at 10 s (after 0.95 and 0.905 of the TTL), and a withdrawal of the
// reserve comes back as its slice expires.
func TestFinagleBudgetExpiry(t *testing.T) {
	// percentCanRetry 1, no reserve: one deposit is one retry.
	p := mustNew(t, NameFinagle, withFinagle(func(f *FinagleOptions) { f.MinRetriesPerSec, f.PercentCanRetry = 0, 1 })).(*finagle)
	step := 10 * time.Millisecond
	var gone []sim.Time
	want := 0
	for now := sim.Time(0); now < sim.Time(12*time.Second); now = now.Add(step) {
		if now == sim.Time(500*time.Millisecond) || now == sim.Time(950*time.Millisecond) {
			p.budget.depositAt(now)
			want++
		}
		if b := p.budget.balance(now); b < int64(want) {
			gone = append(gone, now)
			want = int(b)
		}
	}
	if want := []sim.Time{sim.Time(10 * time.Second)}; !slices.Equal(gone, want) {
		t.Errorf("deposits at 0.5 s and 0.95 s left at %v, want both at %v", gone, want)
	}
	// Reserve only: 2 retries/s over 5 s, withdrawal 1: 10 retries, which come back after the TTL.
	p = mustNew(t, NameFinagle, withFinagle(func(f *FinagleOptions) {
		f.TTL, f.MinRetriesPerSec, f.PercentCanRetry = 5*time.Second, 2, 0
	})).(*finagle)
	n := 0
	for p.budget.tryWithdraw(0) {
		n++
	}
	if n != 10 || p.budget.tryWithdraw(sim.Time(4*time.Second)) || !p.budget.tryWithdraw(sim.Time(5*time.Second)) {
		t.Errorf("reserve of 10: %d withdrawals at t=0; want 10, none more before 5 s, and one at 5 s", n)
	}
}

// TestFinagleErrorMapping checks what each kind of failure gets in each configuration: an
// overload reply (a NACK) and a dispatch failure are requeued at once (RequeueFilter); a network
// error is retried after the retry policy's first backoff, 5 ms, only by MethodBuilder's retry
// filter with a classifier that retries timeouts and closed channels: the stock client has no
// retry filter, and MethodBuilder's default classifier, ResponseClassifier.Default, calls them
// NonRetryableFailure (twitter/finagle, finagle-core/src/main/scala/com/twitter/finagle/service/
// ResponseClassifier.scala, Default). A dispatch failure for want of any usable node (the stack
// is not Open), a server error reply and a local rejection are not retried.
func TestFinagleErrorMapping(t *testing.T) {
	configs := []struct {
		name string
		o    Options
	}{
		{"stock client", DefaultOptions()},
		{"MethodBuilder, ResponseClassifier.Default", withFinagle(func(f *FinagleOptions) { f.Stack = FinagleStackMethodBuilder })},
		{"MethodBuilder, RetryOnTimeout orElse RetryOnChannelClosed", withNetwork(nil)},
	}
	tests := []struct {
		gloss   string
		f       Failure
		retried [3]bool // per config
		backoff time.Duration
	}{
		{"overload reply: requeued", rejected, [3]bool{true, true, true}, 0},
		{"overload labels on another code: requeued", code(wire.HostUnreachable, wire.SystemOverloadedError), [3]bool{true, true, true}, 0},
		{"no connection: requeued", Failure{Dispatch: true}, [3]bool{true, true, true}, 0},
		{"pool cleared: requeued", cleared, [3]bool{true, true, true}, 0},
		{"endpoint breaker open: requeued", Failure{Dispatch: true, CircuitOpen: true}, [3]bool{true, true, true}, 0},
		{"network error: retry policy only", netErr, [3]bool{false, false, true}, 5 * time.Millisecond},
		{"no usable node: not requeued", Failure{Dispatch: true, NoNode: true}, [3]bool{}, 0},
		{"server error reply", code(wire.BadValue, 0), [3]bool{}, 0},
		{"local rejection", localReject, [3]bool{}, 0},
	}
	for _, tc := range tests {
		for i, c := range configs {
			p := mustNew(t, NameFinagle, c.o)
			tr := run(t, p, find, times(1, tc.f), env{jitter: constJitter(0.5)})
			want := tc.retried[i]
			if tr.ok != want || (want && tr.backoffs[0] != tc.backoff) || (!want && (tr.why != NotRetryable || tr.err != tc.f)) {
				t.Errorf("%s, %s: ok=%v backoffs %v %v; want retried=%v after %v, else NotRetryable with the failure",
					c.name, tc.gloss, tr.ok, tr.backoffs, tr.why, want, tc.backoff)
			}
		}
	}
}

// TestFinagleDeposits checks when each configuration credits the budget, replaying twitter/finagle
// finagle-core/src/test/scala/com/twitter/finagle/client/MethodBuilderRetryTest.scala (at 4feb34cb,
// 2024-10), "MethodBuilder withRetry.disabled should allow RequeueFilter to deposit RetryBudget"
// and "retries and requeues do not double deposit RetryBudget": with RetryBudget(10 s, 10, 0.1)
// the balance is 100 retries, and ten successful requests raise it to 101 in both
// configurations, never to 102. Then ten requests that fail with a server error reply: the stock
// client's RequeueFilter deposits only after a response its classifier calls successful (Finagle
// "Retry budgets: only deposit on success", f3a7326e, 2020-08), so the balance stays where it
// was; MethodBuilder's RetryFilter deposits as each request begins, so it rises by one again.
func TestFinagleDeposits(t *testing.T) {
	tests := []struct {
		gloss                  string
		stack                  string
		afterOK, afterFailures int64
	}{
		{"stock client: RequeueFilter deposits on success", FinagleStackClient, 101, 101},
		{"MethodBuilder: RetryFilter deposits at the start, the stack's filter only withdraws", FinagleStackMethodBuilder, 101, 102},
	}
	for _, tc := range tests {
		p := mustNew(t, NameFinagle, withFinagle(func(f *FinagleOptions) {
			f.Stack, f.TTL, f.MinRetriesPerSec, f.PercentCanRetry = tc.stack, 10*time.Second, 10, 0.1
		}))
		if got, _ := FinagleBalance(p, 0); got != 100 {
			t.Errorf("%s: FinagleBalance(new, 0) = %d, want 100", tc.gloss, got)
		}
		for range 10 {
			run(t, p, find, times(0, netErr), env{})
		}
		if got, _ := FinagleBalance(p, 0); got != tc.afterOK {
			t.Errorf("%s: FinagleBalance(after 10 successes, 0) = %d, want %d", tc.gloss, got, tc.afterOK)
		}
		for range 10 {
			run(t, p, find, alwaysOn(code(wire.BadValue, 0)), env{})
		}
		if got, _ := FinagleBalance(p, 0); got != tc.afterFailures {
			t.Errorf("%s: FinagleBalance(after 10 failures more, 0) = %d, want %d", tc.gloss, got, tc.afterFailures)
		}
	}
}

// TestFinagleStockRetryRate checks the stock client's budget when the server NACKs every attempt:
// no request succeeds, so nothing is deposited and requeues come from the reserve alone,
// minRetriesPerSec = 10 a second whatever the request rate, where a budget credited as requests
// begin would allow 0.2 × the request rate + 10 (TestFinagleRetryRate).
func TestFinagleStockRetryRate(t *testing.T) {
	const dur = 600 * time.Second
	for _, lambda := range []float64{100, 1000} {
		p := mustNew(t, NameFinagle, DefaultOptions())
		gap := time.Duration(float64(time.Second) / lambda)
		s := closedLoop(t, p, int(dur/gap), gap, 1, func(sim.Time) (Failure, bool) { return rejected, true })
		if rate := float64(s.attempts-s.ops) / dur.Seconds(); rate > 10 || rate < 9.5 {
			t.Errorf("λ=%v/s: %.3f retries/s, want within [9.5, 10] (the reserve alone)", lambda, rate)
		}
	}
}

// TestFinagleRequeueLimit checks RequeueFilter's per-request limit, ceil(0.2 × balance) as the
// attempt enters it: with the default budget the first request sees a balance of 100 and may
// requeue 20 times; those withdrawals leave 80 for the next (16), then 64 (13).
func TestFinagleRequeueLimit(t *testing.T) {
	p := mustNew(t, NameFinagle, DefaultOptions())
	for i, want := range []int{21, 17, 14} {
		if tr := run(t, p, find, alwaysOn(rejected), env{}); tr.attempts != want || tr.why != MaxRetries {
			t.Errorf("request %d: %d attempts (%v), want %d (MaxRetries)", i+1, tr.attempts, tr.why, want)
		}
	}
}

// TestFinagleTries checks RetryPolicy.tries(3): network errors are retried twice, then
// MaxRetries; requeues do not count against the tries (MethodBuilder filters requeueable
// failures out of the retry policy), and each retry policy attempt gets a fresh requeue limit.
func TestFinagleTries(t *testing.T) {
	p := mustNew(t, NameFinagle, withNetwork(nil))
	if tr := run(t, p, find, alwaysOn(netErr), env{jitter: constJitter(0)}); tr.attempts != 3 || tr.why != MaxRetries ||
		!slices.Equal(tr.backoffs, ms(5, 5)) {
		t.Errorf("network errors: %d attempts (%v) backoffs %v, want 3 (MaxRetries) after 5 ms, 5 ms", tr.attempts, tr.why, tr.backoffs)
	}
	seq := []Failure{rejected, netErr, rejected, rejected, netErr, rejected, netErr}
	s := func(i int) (Failure, bool) { return seq[min(i, len(seq)-1)], false }
	tr := run(t, mustNew(t, NameFinagle, withNetwork(nil)), find, s, env{})
	if tr.attempts != 7 || tr.why != MaxRetries || tr.err != netErr {
		t.Errorf("requeues between network errors: %d attempts (%v, %v), want 7 (MaxRetries, network error)", tr.attempts, tr.why, tr.err)
	}
	if tr := run(t, mustNew(t, NameFinagle, withNetwork(func(f *FinagleOptions) { f.Tries = 1 })), find, alwaysOn(netErr), env{}); tr.attempts != 1 {
		t.Errorf("tries 1: %d attempts, want 1", tr.attempts)
	}
}

// TestFinagleBackoff checks Backoff.decorrelatedJittered(5 ms, 200 ms), the backoff of
// RetryPolicy.tries: the first retry waits 5 ms exactly, each later one prev + a draw from
// [0, min(3·prev, 200 ms) − prev).
func TestFinagleBackoff(t *testing.T) {
	tests := []struct {
		jitter float64
		want   []time.Duration
	}{
		{0, ms(5, 5, 5, 5)},
		{0.5, ms(5, 10, 20, 40, 80, 140, 170, 185)},
		{0.25, msf(5, 7.5, 11.25)},
	}
	for _, tc := range tests {
		p := mustNew(t, NameFinagle, withNetwork(func(f *FinagleOptions) { f.Tries = len(tc.want) + 1 }))
		tr := run(t, p, find, alwaysOn(netErr), env{jitter: constJitter(tc.jitter)})
		if !slices.Equal(tr.backoffs, tc.want) {
			t.Errorf("jitter %v: backoffs %v, want %v", tc.jitter, tr.backoffs, tc.want)
		}
	}
	// A draw of 1 stays below the range's end, as nextLong(range) does.
	p := mustNew(t, NameFinagle, withNetwork(nil)).(*finagle)
	if got := p.backoff(5*time.Millisecond, constJitter(1)); got != 15*time.Millisecond-1 {
		t.Errorf("jitter 1 after 5 ms: %v, want 15ms − 1ns", got)
	}
	if got := p.backoff(200*time.Millisecond, constJitter(1)); got != 200*time.Millisecond {
		t.Errorf("jitter 1 at the maximum: %v, want 200ms", got)
	}
}

// TestFinagleEmptyBudget checks RetryBudget.Empty: with minRetriesPerSec and percentCanRetry
// both 0 nothing is retried, requeue or retry policy alike.
func TestFinagleEmptyBudget(t *testing.T) {
	p := mustNew(t, NameFinagle, withFinagle(func(f *FinagleOptions) { f.MinRetriesPerSec, f.PercentCanRetry = 0, 0 }))
	for _, f := range []Failure{rejected, netErr} {
		if tr := run(t, p, find, alwaysOn(f), env{}); tr.attempts != 1 {
			t.Errorf("%v: %d attempts (%v), want 1", f, tr.attempts, tr.why)
		}
	}
}

// TestFinagleDeadline checks that a deadline stops retries before they withdraw: once it has
// passed, and when the backoff would end past it.
func TestFinagleDeadline(t *testing.T) {
	p := mustNew(t, NameFinagle, withNetwork(nil))
	before, _ := FinagleBalance(p, 0)
	tr := run(t, p, find, alwaysOn(netErr), env{deadline: sim.Time(12 * time.Millisecond), attempt: 5 * time.Millisecond})
	// Attempt 1 ends at 5 ms, the retry waits 5 ms and ends at 15 ms > 12 ms.
	if tr.attempts != 2 || tr.why != Deadline {
		t.Errorf("deadline 12 ms: %d attempts (%v), want 2 (Deadline)", tr.attempts, tr.why)
	}
	tr = run(t, p, find, alwaysOn(netErr), env{deadline: sim.Time(8 * time.Millisecond), attempt: 5 * time.Millisecond, jitter: constJitter(0)})
	if tr.attempts != 1 || tr.why != Deadline {
		t.Errorf("deadline 8 ms: %d attempts (%v), want 1 (Deadline: 5 ms + 5 ms backoff > 8 ms)", tr.attempts, tr.why)
	}
	tr = run(t, p, find, alwaysOn(rejected), env{deadline: sim.Time(3 * time.Millisecond), attempt: 5 * time.Millisecond})
	if tr.attempts != 1 || tr.why != Deadline {
		t.Errorf("requeue past the deadline: %d attempts (%v), want 1 (Deadline)", tr.attempts, tr.why)
	}
	// Three requests deposited 3 (scaled: 3000 / 5000 = 0.6 retries) and one retry withdrew one.
	if after, _ := FinagleBalance(p, 0); after != before-1 {
		t.Errorf("balance %d after, %d before; want one withdrawal only", after, before)
	}
}

// TestFinagleRetryRate checks the budget's steady state under MethodBuilder, whose retry filter
// deposits as each request begins (Finagle's user guide: "about 20% of the total requests … on
// top of 10 retries per second"): when every attempt is NACKed, retries
// per second come to 0.2 × the request rate + 10. With requests spaced evenly the bucket's
// slices move exactly once per slice width and the rate is the bound; with Poisson arrivals a
// withdrawal may leave the window up to a tenth of the TTL early, hence the 2 % allowance above
// it; at low rates the per-request requeue limit keeps the rate below the bound.
func TestFinagleRetryRate(t *testing.T) {
	const dur = 600 * time.Second
	for _, lambda := range []float64{10, 100, 1000} {
		bound := 0.2*lambda + 10
		// Evenly spaced.
		p := mustNew(t, NameFinagle, withFinagle(func(f *FinagleOptions) { f.Stack = FinagleStackMethodBuilder }))
		gap := time.Duration(float64(time.Second) / lambda)
		s := closedLoop(t, p, int(dur/gap), gap, 1, func(sim.Time) (Failure, bool) { return rejected, true })
		rate := float64(s.attempts-s.ops) / dur.Seconds()
		if rate > bound || rate < 0.97*bound {
			t.Errorf("λ=%v/s evenly spaced: %.3f retries/s, want within [0.97, 1] × %.1f", lambda, rate, bound)
		}
		// Poisson arrivals.
		p = mustNew(t, NameFinagle, withFinagle(func(f *FinagleOptions) { f.Stack = FinagleStackMethodBuilder }))
		rng := sim.NewStream(2, "arrivals")
		var st State
		retries := 0
		for now := sim.Time(0); now < sim.Time(dur); {
			now = now.Add(time.Duration(rng.ExpFloat64() / lambda * float64(time.Second)))
			p.Begin(&st, find, now, sim.Never)
			for p.Failed(&st, rejected, now, rng).Retry {
				retries++
			}
		}
		lo := 0.97
		if lambda < 50 {
			lo = 0.9
		}
		prate := float64(retries) / dur.Seconds()
		if prate > 1.02*bound || prate < lo*bound {
			t.Errorf("λ=%v/s Poisson: %.3f retries/s, want within [%v, 1.02] × %.1f", lambda, prate, lo, bound)
		}
		t.Logf("λ=%v/s: %.3f retries/s evenly spaced, %.3f Poisson; 0.2λ + 10 = %.1f", lambda, rate, prate, bound)
	}
}

// TestFinagleRetryFreshRequeueLimit pins that a retry policy retry gets a fresh requeue limit,
// computed from the budget's balance as the retried attempt enters the RequeueFilter
// (docs/policies.md §4: "each retried attempt gets a fresh requeue limit"; Finagle's
// RequeueFilter.apply computes ceil(maxRetriesPerReq × balance) each time a request passes
// through it, and the RetryFilter above it sends every retry through it again). A reserve of
// 20 retries and no deposits make the balance the reserve less the withdrawals: the first
// attempt may requeue ceil(0.2 × 20) = 4 times (balance 16); the network error's retry
// withdraws one (15), so its attempt may requeue ceil(0.2 × 15) = 3 times (12); a second
// retry leaves 11, and ceil(0.2 × 11) = 3 again.
func TestFinagleRetryFreshRequeueLimit(t *testing.T) {
	const R, N = 'R', 'N' // a NACK (requeued) and a network error (the retry policy's)
	tests := []struct {
		gloss    string
		fails    string // the attempts' failures in order, then success
		attempts int
		why      GiveUp // Continue: the operation succeeded
	}{
		{"4 requeues, a retry, its 3 requeues: success", "RRRRNRRR", 9, Continue},
		{"a 4th requeue after the retry exceeds its limit of 3", "RRRRNRRRR", 9, MaxRetries},
		{"the limit is fresh, not what the first attempt left (0)", "RRRRNR", 7, Continue},
		{"a second retry gets ceil(0.2 × 11) = 3 more", "RRRRNRRRNRRR", 13, Continue},
		{"and no 4th", "RRRRNRRRNRRRR", 13, MaxRetries},
	}
	for _, tc := range tests {
		// MethodBuilder with a classifier that retries network errors: the one configuration
		// in which the retry policy retries at all (docs/policies.md §4).
		p := mustNew(t, NameFinagle, withNetwork(func(f *FinagleOptions) {
			f.TTL, f.MinRetriesPerSec, f.PercentCanRetry = time.Second, 20, 0
		}))
		s := func(i int) (Failure, bool) {
			if i >= len(tc.fails) {
				return Failure{}, true
			}
			switch tc.fails[i] {
			case R:
				return rejected, false
			case N:
				return netErr, false
			}
			t.Fatalf("%s: bad failure %q", tc.gloss, tc.fails[i])
			return Failure{}, false
		}
		tr := run(t, p, find, s, env{jitter: constJitter(0)})
		if tr.attempts != tc.attempts || tr.why != tc.why || tr.ok != (tc.why == Continue) {
			t.Errorf("%s: run(%s then success) = %d attempts (ok %v, %v), want %d (%v)", tc.gloss, tc.fails, tr.attempts, tr.ok, tr.why, tc.attempts, tc.why)
		}
	}
}
