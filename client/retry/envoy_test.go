package retry

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
)

// withEnvoy returns the default Options with the envoy block mod makes from its defaults.
func withEnvoy(mod func(*EnvoyOptions)) Options {
	o := DefaultOptions()
	var e EnvoyOptions
	e.SetDefaults()
	if mod != nil {
		mod(&e)
	}
	o.Block = &e
	return o
}

// withBudget gives e a retry budget of pct percent with floor min.
func withBudget(pct float64, min int) func(*EnvoyOptions) {
	return func(e *EnvoyOptions) { e.RetryBudget = &EnvoyRetryBudget{BudgetPercent: pct, MinRetryConcurrency: min} }
}

// TestEnvoyValidate checks the route retry policy's and the circuit breaker's rules, each
// reported with its path, value and rule.
func TestEnvoyValidate(t *testing.T) {
	const tail = " (retryPolicy envoy)"
	tests := []struct {
		gloss string
		mod   func(*EnvoyOptions)
		want  []string
	}{
		// Happy paths.
		{"defaults", nil, nil},
		{"no retries, no concurrent retries", func(e *EnvoyOptions) { e.NumRetries, e.MaxRetries = 0, 0 }, nil},
		{"max interval equal to base", func(e *EnvoyOptions) { e.BaseInterval, e.MaxInterval = time.Second, time.Second }, nil},
		{"retry budget", withBudget(20, 3), nil},
		{"retry budget 0 % with no floor", withBudget(0, 0), nil},
		{"budget interval 10ms", func(e *EnvoyOptions) { withBudget(20, 3)(e); e.RetryBudget.BudgetInterval = 10 * time.Millisecond }, nil},
		// Sad paths.
		{"negative retries", func(e *EnvoyOptions) { e.NumRetries, e.MaxRetries = -1, -2 }, []string{
			"retry: envoy.numRetries: -1: must be ≥ 0" + tail,
			"retry: envoy.maxRetries: -2: must be ≥ 0" + tail,
		}},
		{"base below 1 ms", func(e *EnvoyOptions) { e.BaseInterval = 500 * time.Microsecond },
			[]string{"retry: envoy.baseInterval: 500µs: must be ≥ 1ms" + tail}},
		{"base in fractions of a millisecond", func(e *EnvoyOptions) { e.BaseInterval = 2500 * time.Microsecond },
			[]string{"retry: envoy.baseInterval: 2.5ms: must be a whole number of milliseconds (Envoy's backoff counts milliseconds)" + tail}},
		{"max below base", func(e *EnvoyOptions) { e.MaxInterval = 20 * time.Millisecond },
			[]string{"retry: envoy.maxInterval: 20ms: must be ≥ baseInterval (25ms), or 0 for 10 × baseInterval" + tail}},
		{"max in fractions of a millisecond", func(e *EnvoyOptions) { e.MaxInterval = 30500 * time.Microsecond },
			[]string{"retry: envoy.maxInterval: 30.5ms: must be a whole number of milliseconds (Envoy's backoff counts milliseconds)" + tail}},
		{"maxRetries set beside a retry budget", func(e *EnvoyOptions) { withBudget(20, 3)(e); e.MaxRetries = 10 },
			[]string{"retry: envoy.maxRetries: 10: has no effect with retryBudget, which replaces it; leave it at 3" + tail}},
		{"budget interval below 10ms", func(e *EnvoyOptions) { withBudget(20, 3)(e); e.RetryBudget.BudgetInterval = 9 * time.Millisecond },
			[]string{"retry: envoy.retryBudget.budgetInterval: 9ms: must be 0 or ≥ 10ms (Envoy's window moves every interval/10 in whole milliseconds, never below 10ms)" + tail}},
		{"budget interval in fractions of a millisecond", func(e *EnvoyOptions) { withBudget(20, 3)(e); e.RetryBudget.BudgetInterval = 10500 * time.Microsecond },
			[]string{"retry: envoy.retryBudget.budgetInterval: 10.5ms: must be a whole number of milliseconds (Envoy counts the interval in milliseconds)" + tail}},
		{"budget above 100 %, negative floor", withBudget(120, -1), []string{
			"retry: envoy.retryBudget.budgetPercent: 120: must be in [0, 100] (a percentage)" + tail,
			"retry: envoy.retryBudget.minRetryConcurrency: -1: must be ≥ 0" + tail,
		}},
	}
	for _, tc := range tests {
		wantErrors(t, tc.gloss, NameEnvoy, withEnvoy(tc.mod), tc.want...)
	}
}

// TestEnvoyBackoff checks JitteredExponentialBackOffStrategy as Envoy's backoff_strategy.cc has
// it: retry n waits random % c_n ms, c_1 = base, doubling while below max/2, then max. With the
// defaults (25 ms, max 250 ms) a draw near 1 gives 24, 49, 99, 199, then 249 ms; the router
// documentation's older ranges (0–24, 0–74, 0–174 ms: (2^N − 1)·base) are not what the code does.
func TestEnvoyBackoff(t *testing.T) {
	tests := []struct {
		gloss  string
		mod    func(*EnvoyOptions)
		jitter float64
		want   []time.Duration
	}{
		{"defaults, draw near 1", nil, float64(nearOne), ms(24, 49, 99, 199, 249, 249)},
		{"defaults, draw 1 (random % c stays below c)", nil, 1, ms(24, 49, 99, 199, 249, 249)},
		{"defaults, draw 0.5", nil, 0.5, ms(12, 25, 50, 100, 125, 125)},
		{"defaults, draw 0", nil, 0, ms(0, 0, 0)},
		{"base 100 ms, max 250 ms: 100, 200, then 250", func(e *EnvoyOptions) { e.BaseInterval, e.MaxInterval = 100*time.Millisecond, 250*time.Millisecond },
			1, ms(99, 199, 249, 249)},
		{"base 10 ms, max 10 × base: 10, 20, 40, 80, then 100", func(e *EnvoyOptions) { e.BaseInterval = 10 * time.Millisecond },
			1, ms(9, 19, 39, 79, 99, 99)},
		{"base equal to max", func(e *EnvoyOptions) { e.BaseInterval, e.MaxInterval = 40*time.Millisecond, 40*time.Millisecond },
			1, ms(39, 39, 39)},
	}
	for _, tc := range tests {
		p := mustNew(t, NameEnvoy, withEnvoy(func(e *EnvoyOptions) {
			if tc.mod != nil {
				tc.mod(e)
			}
			e.NumRetries = len(tc.want)
		}))
		tr := run(t, p, find, alwaysOn(rejected), env{jitter: constJitter(tc.jitter)})
		if !slices.Equal(tr.backoffs, tc.want) || tr.why != MaxRetries {
			t.Errorf("%s: backoffs %v (%v), want %v (MaxRetries)", tc.gloss, tr.backoffs, tr.why, tc.want)
		}
	}
}

// TestEnvoyErrorMapping checks retry_on 5xx as the router applies it: a 5xx reply (an overload
// reply is a 503), a reset (network error) and a connect failure (dispatch) are retried; an
// overflow of the client's own circuit breaker is never retried; other replies (4xx and
// application errors) and local rejections are not.
func TestEnvoyErrorMapping(t *testing.T) {
	tests := []struct {
		gloss   string
		f       Failure
		retried bool
	}{
		{"overload reply (503)", rejected, true},
		{"reset: network error", netErr, true},
		{"connect failure: no connection", Failure{Dispatch: true}, true},
		{"connect failure: pool cleared", cleared, true},
		{"connect failure: no usable node", Failure{Dispatch: true, NoNode: true}, true},
		{"overflow: endpoint breaker open", Failure{Dispatch: true, CircuitOpen: true}, false},
		{"server error reply", code(wire.BadValue, 0), false},
		{"local rejection", localReject, false},
	}
	for _, tc := range tests {
		p := mustNew(t, NameEnvoy, DefaultOptions())
		tr := run(t, p, find, times(1, tc.f), env{})
		if tr.ok != tc.retried || (!tc.retried && (tr.why != NotRetryable || tr.err != tc.f)) {
			t.Errorf("%s: ok=%v (%v %v), want retried=%v, else NotRetryable with the failure", tc.gloss, tr.ok, tr.why, tr.err, tc.retried)
		}
	}
}

// TestEnvoyNumRetries checks num_retries: at most that many retries per operation
// (NoRetryLimitExceeded: MaxRetries), 1 by default.
func TestEnvoyNumRetries(t *testing.T) {
	for _, tc := range []struct{ retries, attempts int }{{-1, 2}, {0, 1}, {1, 2}, {3, 4}} {
		o := DefaultOptions()
		if tc.retries >= 0 {
			o = withEnvoy(func(e *EnvoyOptions) { e.NumRetries = tc.retries })
		}
		if tr := run(t, mustNew(t, NameEnvoy, o), find, alwaysOn(netErr), env{}); tr.attempts != tc.attempts || tr.why != MaxRetries {
			t.Errorf("numRetries %d: %d attempts (%v), want %d (MaxRetries)", tc.retries, tr.attempts, tr.why, tc.attempts)
		}
	}
}

// envoyState reports the policy's active operations and retries.
func envoyState(t *testing.T, p Policy) (ops, retries int) {
	t.Helper()
	ops, retries, ok := EnvoyActive(p)
	if !ok {
		t.Fatalf("EnvoyActive(%s): not an envoy policy", p.Name())
	}
	return ops, retries
}

// TestEnvoyActiveRetries checks how long a retry counts against the circuit breaker
// (RetryStateImpl's resetRetry): from its grant until the operation's next Failed, Succeeded
// or Ended; an operation counts as active from Begin to Ended, and a second Ended changes
// nothing.
func TestEnvoyActiveRetries(t *testing.T) {
	p := mustNew(t, NameEnvoy, withEnvoy(func(e *EnvoyOptions) { e.NumRetries = 5 }))
	ender := p.(Ender)
	var a, b State
	steps := []struct {
		gloss         string
		do            func()
		ops, retrying int
	}{
		{"a begins", func() { p.Begin(&a, find, 0, sim.Never) }, 1, 0},
		{"b begins", func() { p.Begin(&b, find, 0, sim.Never) }, 2, 0},
		{"a fails: retry granted", func() { p.Failed(&a, netErr, 0, constJitter(0)) }, 2, 1},
		{"a's retry fails: that retry ends, another is granted", func() { p.Failed(&a, netErr, 0, constJitter(0)) }, 2, 1},
		{"b fails: retry granted", func() { p.Failed(&b, netErr, 0, constJitter(0)) }, 2, 2},
		{"b's retry succeeds", func() { p.Succeeded(&b, 0) }, 2, 1},
		{"b ends", func() { ender.Ended(&b, 0) }, 1, 1},
		{"b ends again: nothing", func() { ender.Ended(&b, 0) }, 1, 1},
		{"a's retry fails with an error not retried: it ends, none granted", func() { p.Failed(&a, code(wire.BadValue, 0), 0, nil) }, 1, 0},
		{"a ends", func() { ender.Ended(&a, 0) }, 0, 0},
		{"a begins again", func() { p.Begin(&a, find, 0, sim.Never) }, 1, 0},
		{"a fails: retry granted", func() { p.Failed(&a, netErr, 0, constJitter(0)) }, 1, 1},
		{"a times out in its backoff: Ended ends the retry too", func() { ender.Ended(&a, 0) }, 0, 0},
	}
	for _, s := range steps {
		s.do()
		if ops, retrying := envoyState(t, p); ops != s.ops || retrying != s.retrying {
			t.Errorf("%s: %d operations, %d retries active; want %d, %d", s.gloss, ops, retrying, s.ops, s.retrying)
		}
	}
}

// TestEnvoyRetryLimit checks the retry circuit breaker's limit at the moment of the decision:
// max_retries 3 by default; with a retry budget, max(floor(budget_percent × R),
// min_retry_concurrency), R the upstream requests active and pending (envoyproxy/envoy,
// source/common/upstream/resource_manager_impl.h, RetryBudgetImpl::max: requests_.count() +
// pending_requests_.count()). Each row begins n operations and sends their first attempts, then
// fails them in turn: each failed attempt leaves R after its own decision, and each retry granted
// sleeps its backoff, counted against the limit but not in R, so the limit shrinks as retries
// pile up. Six in-flight failures at 100 %, floor 0, get 3 retries, where counting operations
// gave 6.
func TestEnvoyRetryLimit(t *testing.T) {
	tests := []struct {
		gloss   string
		mod     func(*EnvoyOptions)
		ops     int
		granted int
	}{
		{"max_retries 3", nil, 10, 3},
		{"max_retries 1", func(e *EnvoyOptions) { e.MaxRetries = 1 }, 10, 1},
		{"max_retries 0: no retry ever", func(e *EnvoyOptions) { e.MaxRetries = 0 }, 10, 0},
		{"budget 20 % of 10: the floor, 3", withBudget(20, 3), 10, 3},
		{"six in flight at 100 %, floor 0: R = 6, 5, 4, 3 against 0, 1, 2, 3 retrying", withBudget(100, 0), 6, 3},
		{"budget 100 % of 7, floor 0", withBudget(100, 0), 7, 4},
		{"budget 20 % of 50: floor(0.2 × (50 − i)) against i retrying", withBudget(20, 3), 50, 8},
		{"budget 20 % of 55", withBudget(20, 3), 55, 9},
		{"budget 0 %, floor 2", withBudget(0, 2), 20, 2},
	}
	for _, tc := range tests {
		p := mustNew(t, NameEnvoy, withEnvoy(tc.mod))
		sts := make([]State, tc.ops)
		for i := range sts {
			p.Begin(&sts[i], find, 0, sim.Never)
			p.(Gate).Admit(&sts[i], 0, nil)
		}
		granted, refused := 0, 0
		for i := range sts {
			d := p.Failed(&sts[i], rejected, 0, constJitter(0))
			switch {
			case d.Retry:
				granted++
			case d.Why == Budget:
				refused++
			default:
				t.Errorf("%s: operation %d: %v", tc.gloss, i, d.Why)
			}
		}
		if granted != tc.granted || refused != tc.ops-tc.granted {
			t.Errorf("%s: %d granted, %d refused; want %d and %d", tc.gloss, granted, refused, tc.granted, tc.ops-tc.granted)
		}
	}
}

// TestEnvoyBudgetUpstreamRequests replays the example of retry_budget.budget_percent in
// envoyproxy/envoy api/envoy/config/cluster/v3/circuit_breaker.proto ("100 active requests and
// the budget_percent is set to 25, there may be 25 active retries") on RetryBudgetImpl::max in
// resource_manager_impl.h: the limit is a share of the upstream requests active or pending, not
// of the operations. Operations that have not sent their attempt, or whose attempt completed,
// are not upstream requests.
func TestEnvoyBudgetUpstreamRequests(t *testing.T) {
	p := mustNew(t, NameEnvoy, withEnvoy(withBudget(25, 3))).(*envoy)
	sts := make([]State, 120)
	for i := range sts {
		p.Begin(&sts[i], find, 0, sim.Never)
	}
	if got := p.retryLimit(0); got != 3 {
		t.Errorf("retryLimit(0) with 120 operations begun, none sent = %d, want 3 (the floor)", got)
	}
	for i := range 110 {
		p.Admit(&sts[i], 0, nil)
	}
	for i := range 10 {
		p.Succeeded(&sts[i], 0)
	}
	if got := p.retryLimit(0); got != 25 {
		t.Errorf("retryLimit(0) with 100 upstream requests at 25 %% = %d, want 25", got)
	}
}

// TestEnvoyBudgetInterval checks retry_budget.budget_interval (envoyproxy/envoy#44147, Envoy
// 2026-05; RetryBudgetImpl in source/common/upstream/resource_manager_impl.h): with an interval
// the share is of the upstream requests started within it, counted as each is sent, in slices of
// interval/10 from the client's start; a request of slice k leaves at (k+1)·slice + interval.
// With 1 s (slices of 100 ms) and 20 %, floor 0: 50 requests sent at 50 ms allow 10 retries, and
// still do at 1099 ms, after they completed; at 1100 ms they have left.
func TestEnvoyBudgetInterval(t *testing.T) {
	p := mustNew(t, NameEnvoy, withEnvoy(func(e *EnvoyOptions) {
		e.RetryBudget = &EnvoyRetryBudget{BudgetPercent: 20, BudgetInterval: time.Second}
	})).(*envoy)
	sts := make([]State, 50)
	at := sim.Time(50 * time.Millisecond)
	for i := range sts {
		p.Begin(&sts[i], find, at, sim.Never)
		p.Admit(&sts[i], at, nil)
		p.Succeeded(&sts[i], at)
		p.Ended(&sts[i], at)
	}
	for _, tc := range []struct {
		now  time.Duration
		want int
	}{{50 * time.Millisecond, 10}, {1099 * time.Millisecond, 10}, {1100 * time.Millisecond, 0}} {
		if got := p.retryLimit(sim.Time(tc.now)); got != tc.want {
			t.Errorf("retryLimit(%v) = %d, want %d", tc.now, got, tc.want)
		}
	}
}

// envoyRun drives an envoy policy on a virtual clock with concurrent operations: arrivals at a
// fixed rate, attempts that take a fixed time and fail with probability pf (overload), retries
// after their backoff, Ended when an operation is over. After every grant it checks the circuit
// breaker's bound: the retries active, this one included, within the limit the options give for
// the operations active at that moment.
type envoyRun struct {
	t        *testing.T
	l        *sim.Loop
	p        Policy
	o        EnvoyOptions
	rng      *rand.Rand
	pf       float64
	latency  time.Duration
	done     sim.HandlerFunc
	send     sim.HandlerFunc
	maxSeen  int // most retries active at once
	granted  int
	refused  int // Budget
	finished int
}

type envoyOp struct{ st State }

func newEnvoyRun(t *testing.T, o Options, pf float64, latency time.Duration) *envoyRun {
	r := &envoyRun{t: t, l: sim.NewLoop(), p: mustNew(t, NameEnvoy, o), o: *o.Block.(*EnvoyOptions),
		rng: sim.NewStream(9, "envoy"), pf: pf, latency: latency}
	r.done, r.send = r.attemptDone, r.sendAttempt
	return r
}

func (r *envoyRun) limit(active int) int {
	if b := r.o.RetryBudget; b != nil {
		return max(int(b.BudgetPercent/100*float64(active)), b.MinRetryConcurrency)
	}
	return r.o.MaxRetries
}

func (r *envoyRun) attemptDone(now sim.Time, _ int, arg any) {
	op := arg.(*envoyOp)
	if r.rng.Float64() >= r.pf {
		r.p.Succeeded(&op.st, now)
		r.end(op, now)
		return
	}
	active := r.p.(*envoy).upstream
	d := r.p.Failed(&op.st, rejected, now, r.rng)
	if !d.Retry {
		if d.Why == Budget {
			r.refused++
		}
		r.end(op, now)
		return
	}
	r.granted++
	_, retrying := envoyState(r.t, r.p)
	if lim := r.limit(active); retrying > lim {
		r.t.Errorf("at %v: %d retries active after a grant, limit %d for %d upstream requests", now, retrying, lim, active)
	}
	r.maxSeen = max(r.maxSeen, retrying)
	r.l.After(d.Backoff, r.send, 0, op)
}

// sendNow sends the operation's attempt at once.
func (r *envoyRun) sendNow(now sim.Time, op *envoyOp) { r.sendAttempt(now, 0, op) }

// sendAttempt sends the operation's next attempt: the Gate first, as the driver asks it.
func (r *envoyRun) sendAttempt(now sim.Time, _ int, arg any) {
	op := arg.(*envoyOp)
	r.p.(Gate).Admit(&op.st, now, nil)
	r.l.After(r.latency, r.done, 0, op)
}

func (r *envoyRun) end(op *envoyOp, now sim.Time) {
	r.p.(Ender).Ended(&op.st, now)
	r.finished++
}

// run starts an operation every gap until horizon, then lets every operation finish.
func (r *envoyRun) run(gap time.Duration, horizon sim.Time) {
	var arrive sim.HandlerFunc
	arrive = func(now sim.Time, _ int, _ any) {
		op := &envoyOp{}
		r.p.Begin(&op.st, find, now, sim.Never)
		r.sendNow(now, op)
		if next := now.Add(gap); next < horizon {
			r.l.At(next, arrive, 0, nil)
		}
	}
	r.l.At(0, arrive, 0, nil)
	r.l.Run()
}

// TestEnvoyConcurrencyBound checks the circuit breaker under concurrent load: 1000 operations a
// second for 10 s, attempts of 20 ms failing with overload at p = 0.5, 3 retries each. At every
// grant the retries active stay within max_retries (3) or, with a retry budget of 20 % and floor
// 3, within max(floor(0.2 × active operations), 3); the bound binds (refusals for Budget, and
// the maximum reached); and once every operation has ended nothing is left counted.
func TestEnvoyConcurrencyBound(t *testing.T) {
	tests := []struct {
		gloss   string
		mod     func(*EnvoyOptions)
		wantMax int // the most retries active at once
	}{
		{"max_retries 3", nil, 3},
		{"retry budget 20 %, floor 3", withBudget(20, 3), 0}, // 0: above the floor, checked below
	}
	for _, tc := range tests {
		r := newEnvoyRun(t, withEnvoy(func(e *EnvoyOptions) {
			e.NumRetries = 3
			if tc.mod != nil {
				tc.mod(e)
			}
		}), 0.5, 20*time.Millisecond)
		r.run(time.Millisecond, sim.Time(10*time.Second))
		ops, retrying := envoyState(t, r.p)
		switch {
		case r.finished != 10_000 || ops != 0 || retrying != 0:
			t.Errorf("%s: %d operations finished, %d and %d retries still counted; want 10000, 0, 0", tc.gloss, r.finished, ops, retrying)
		case r.refused == 0:
			t.Errorf("%s: no retry refused for Budget: the bound never bound", tc.gloss)
		case tc.wantMax > 0 && r.maxSeen != tc.wantMax:
			t.Errorf("%s: at most %d retries active, want %d", tc.gloss, r.maxSeen, tc.wantMax)
		case tc.wantMax == 0 && r.maxSeen <= 3:
			t.Errorf("%s: at most %d retries active, want more than the floor with ~20+ operations active", tc.gloss, r.maxSeen)
		}
		t.Logf("%s: %d retries granted, %d refused, at most %d active", tc.gloss, r.granted, r.refused, r.maxSeen)
	}
}

// TestEnvoyDeadline checks the route timeout, which includes every retry: no retry once it has
// passed, nor one whose backoff would end past it, and such a refusal takes no retry slot.
func TestEnvoyDeadline(t *testing.T) {
	p := mustNew(t, NameEnvoy, withEnvoy(func(e *EnvoyOptions) { e.NumRetries = 5 }))
	tr := run(t, p, find, alwaysOn(netErr), env{deadline: sim.Time(100 * time.Millisecond), attempt: 30 * time.Millisecond, jitter: constJitter(0.5)})
	// Attempts end at 30, 72 (30+12+30), 127 ms: past the deadline.
	if tr.attempts != 3 || tr.why != Deadline {
		t.Errorf("deadline 100 ms: %d attempts (%v) backoffs %v, want 3 (Deadline)", tr.attempts, tr.why, tr.backoffs)
	}
	tr = run(t, p, find, alwaysOn(netErr), env{deadline: sim.Time(40 * time.Millisecond), attempt: 30 * time.Millisecond, jitter: constJitter(1)})
	if tr.attempts != 1 || tr.why != Deadline {
		t.Errorf("backoff past the deadline: %d attempts (%v), want 1 (Deadline: 30 + 24 ms > 40 ms)", tr.attempts, tr.why)
	}
	if _, retrying := envoyState(t, p); retrying != 0 {
		t.Errorf("%d retries active after refusals for time, want 0", retrying)
	}
}
