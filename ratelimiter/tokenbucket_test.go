package ratelimiter

import (
	"math"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/sim"
)

func mustBucket(t testing.TB, cfg Config, now sim.Time) *TokenBucket {
	t.Helper()
	b, err := NewTokenBucket(cfg, now)
	if err != nil {
		t.Fatalf("NewTokenBucket(%v): %v", cfg, err)
	}
	return b
}

func at(d time.Duration) sim.Time { return sim.Time(d) }

// exactBalance returns the balance in units of 1e-18 token, with no rounding.
func exactBalance(b *TokenBucket) *big.Int {
	v := new(big.Int).Mul(big.NewInt(b.bal), big.NewInt(subPerNano))
	return v.Add(v, new(big.Int).SetUint64(b.rem))
}

// checkAccounting asserts the counter identity of the Stats documentation.
func checkAccounting(t *testing.T, s Stats) {
	t.Helper()
	if sum := s.SuccessfulAdmissions + s.RejectedAdmissions + s.InterruptedInQueue + s.Queued; s.AttemptedAdmissions != sum {
		t.Errorf("attempted %d != successful %d + rejected %d + interrupted %d + queued %d",
			s.AttemptedAdmissions, s.SuccessfulAdmissions, s.RejectedAdmissions, s.InterruptedInQueue, s.Queued)
	}
}

// Rule (docs/model.md §4.1, rate_limiter.cpp: zero time = now − burst/rate): the bucket starts
// with one full burst, so exactly ⌊R·B⌋ requests are admitted at the first instant.
func TestTokenBucketStartsFull(t *testing.T) {
	cases := []struct {
		name      string
		cfg       Config
		wantBurst int
	}{
		{"10/s for 1s", Config{RatePerSec: 10, BurstCapacitySecs: 1}, 10},
		{"1000/s for 5ms", Config{RatePerSec: 1000, BurstCapacitySecs: 0.005}, 5},
		{"fractional rate 2.5/s for 2s", Config{RatePerSec: 2.5, BurstCapacitySecs: 2}, 5},
		{"capacity 1.5 holds one whole token", Config{RatePerSec: 1, BurstCapacitySecs: 1.5}, 1},
	}
	t0 := at(3 * time.Second)
	for _, tc := range cases {
		b := mustBucket(t, tc.cfg, t0)
		got := 0
		for b.TryAcquire(t0) {
			got++
		}
		if got != tc.wantBurst {
			t.Errorf("%s: admitted %d at t0, want %d", tc.name, got, tc.wantBurst)
		}
	}
}

// Rule (docs/model.md §4.1, folly TokenBucket): tokens accrue fractionally and lazily from
// elapsed time, a whole token is needed to admit, and accrual stops at the capacity.
func TestTokenBucketRefill(t *testing.T) {
	b := mustBucket(t, Config{RatePerSec: 10, BurstCapacitySecs: 0.1}, 0) // one token per 100 ms, C = 1
	t0 := at(time.Second)
	steps := []struct {
		now        sim.Time
		op         string // "try" or "tokens"
		wantOK     bool
		wantTokens float64
	}{
		{t0, "try", true, 0},
		{t0 + at(50*time.Millisecond), "tokens", false, 0.5},
		{t0 + at(50*time.Millisecond), "try", false, 0.5},
		{t0 + at(100*time.Millisecond) - 1, "try", false, 0.99999999},
		{t0 + at(100*time.Millisecond), "try", true, 0},
		{t0 + at(time.Hour), "tokens", false, 1}, // an hour idle still holds only C
		{t0 + at(time.Hour), "try", true, 0},
		{t0 + at(time.Hour), "try", false, 0},
	}
	for i, s := range steps {
		switch s.op {
		case "try":
			if ok := b.TryAcquire(s.now); ok != s.wantOK {
				t.Fatalf("step %d: TryAcquire(%v) = %v, want %v", i, s.now, ok, s.wantOK)
			}
		}
		if got := b.Tokens(s.now); got != s.wantTokens {
			t.Fatalf("step %d: Tokens(%v) = %v, want %v", i, s.now, got, s.wantTokens)
		}
	}
}

// Rule (folly balance = min(C, ...)): a refill that lands within a nano-token above the
// capacity is held at exactly C. R = 1.5/s accrues 1.5 nano-tokens per ns, so 666666667 ns after
// an empty bucket the refill is 1.0000000005 tokens against C = 1.
func TestTokenBucketRefillClampsExactly(t *testing.T) {
	b := mustBucket(t, Config{RatePerSec: 1.5, BurstCapacitySecs: 1 / 1.5}, 0)
	if b.Capacity() != 1 || !b.TryAcquire(0) {
		t.Fatalf("Capacity = %v; want 1 and one admission at 0", b.Capacity())
	}
	if got := b.Tokens(666666667); got != 1 {
		t.Errorf("Tokens(666666667 ns) = %v, want exactly 1", got)
	}
}

// Rule (folly returnTokens + balance = min(C, ...); docs/model.md §4.1, interrupted waiters return
// their token): a waiter queued behind others that already gave up can outlast the debt; when it
// gives up too, its token returns to a full bucket and is lost, not banked above C.
func TestTokenBucketCancelReturnsTokenHeldAtCapacity(t *testing.T) {
	t0 := at(time.Second)
	b := mustBucket(t, Config{RatePerSec: 10, BurstCapacitySecs: 0.1, MaxQueueDepth: 5}, 0)
	b.Acquire(t0)
	var held []Reservation
	for range 3 {
		r, _ := b.Acquire(t0) // queued until t0+100, 200, 300 ms
		held = append(held, r)
	}
	b.CancelWait(t0, held[0])
	b.CancelWait(t0, held[1]) // the debt is now one token, repaid at t0+100ms
	t1 := t0 + at(250*time.Millisecond)
	if got := b.Tokens(t1); got != 1 {
		t.Fatalf("Tokens(t0+250ms) = %v, want 1 (full while a waiter still sleeps)", got)
	}
	if !b.CancelWait(t1, held[2]) {
		t.Fatalf("CancelWait(%v, %+v) = false, want true", t1, held[2])
	}
	if got := b.Tokens(t1); got != 1 {
		t.Errorf("Tokens after the last waiter gave up = %v, want the capacity 1", got)
	}
}

// Rule (docs/model.md §4.1; the server jstest with rate=1/s, burst=0.001 s): a capacity below one token
// never admits anything, in either mode, however long the bucket rests.
func TestTokenBucketCapacityBelowOneNeverAdmits(t *testing.T) {
	cfgs := []Config{
		{RatePerSec: 1, BurstCapacitySecs: 0.001, MaxQueueDepth: 10},
		{RatePerSec: 3, BurstCapacitySecs: 0.3, MaxQueueDepth: 10}, // 0.9 token
	}
	for _, cfg := range cfgs {
		b := mustBucket(t, cfg, 0)
		end := at(10 * time.Second)
		for now := sim.Time(0); now <= end; now += at(time.Millisecond) {
			if b.TryAcquire(now) {
				t.Fatalf("%v: TryAcquire(%v) admitted", cfg, now)
			}
			if r, ok := b.Acquire(now); ok {
				t.Fatalf("%v: Acquire(%v) admitted with %+v", cfg, now, r)
			}
		}
		s := b.Stats(end)
		if s.AttemptedAdmissions != s.RejectedAdmissions || s.SuccessfulAdmissions != 0 {
			t.Errorf("%v: stats %+v, want every attempt rejected", cfg, s)
		}
	}
}

// Rule (docs/model.md §4.1, acquireToken): queued callers are admitted in reservation order at
// exactly the refill rate once the burst is spent, whatever the arrival pattern: the k-th
// borrowed token beyond the burst is valid at ⌈k/R⌉, to the nanosecond. (Every capacity here is
// at least 1 + R·1 ns; TestTokenBucketQueuedAdmissionKeepsWindowBound covers smaller ones.)
func TestTokenBucketQueueServesAtRate(t *testing.T) {
	t0 := at(time.Second)
	cases := []struct {
		name     string
		cfg      Config
		arrivals func(i int) sim.Time
		n        int
		burst    int // admitted at once
	}{
		{"1000/s, C=5, all at t0", Config{RatePerSec: 1000, BurstCapacitySecs: 0.005, MaxQueueDepth: 1000},
			func(int) sim.Time { return t0 }, 50, 5},
		{"1000/s, C=1, one every 100µs", Config{RatePerSec: 1000, BurstCapacitySecs: 0.001, MaxQueueDepth: 1000},
			func(i int) sim.Time { return t0 + sim.Time(i)*at(100*time.Microsecond) }, 100, 1},
		{"3/s (period not whole ns), C=3, all at t0", Config{RatePerSec: 3, BurstCapacitySecs: 1, MaxQueueDepth: 1000},
			func(int) sim.Time { return t0 }, 40, 3},
	}
	for _, tc := range cases {
		b := mustBucket(t, tc.cfg, 0)
		var queued time.Duration
		for i := 0; i < tc.n; i++ {
			now := tc.arrivals(i)
			r, ok := b.Acquire(now)
			if !ok {
				t.Fatalf("%s: Acquire #%d at %v rejected", tc.name, i, now)
			}
			want := now
			if k := int64(i - tc.burst + 1); k > 0 {
				// ⌈k·1e9/R⌉ ns after t0, computed in exact integers.
				num := new(big.Int).Mul(big.NewInt(k), big.NewInt(1e9*1e9))
				den := big.NewInt(int64(tc.cfg.RatePerSec * 1e9))
				q, m := new(big.Int).QuoRem(num, den, new(big.Int))
				if m.Sign() != 0 {
					q.Add(q, big.NewInt(1))
				}
				want = t0 + sim.Time(q.Int64())
			}
			if r.At != want || r.Start != now {
				t.Fatalf("%s: Acquire #%d at %v = %+v, want At %v", tc.name, i, now, r, want)
			}
			queued += r.Wait()
		}
		s := b.Stats(at(time.Hour))
		if wantQ := int64(tc.n - tc.burst); s.AddedToQueue != wantQ || s.SuccessfulAdmissions != int64(tc.n) || s.TotalQueuedTime != queued {
			t.Errorf("%s: stats %+v, want AddedToQueue %d, SuccessfulAdmissions %d, TotalQueuedTime %v", tc.name, s, wantQ, tc.n, queued)
		}
		checkAccounting(t, s)
	}
}

// Rule (docs/model.md §4.2, exact arithmetic; the folly closed form balance = min(C, (t − z)·R)):
// offered far more than R for 10 simulated hours from a full start, a bucket admits exactly
// ⌊C + R·T⌋ requests (C + ⌊R·T⌋ for a whole-token capacity), with no drift, and its balance at
// the end is exactly C + R·T − admitted.
func TestTokenBucketNoDriftOverTenHours(t *testing.T) {
	horizon := 10 * time.Hour
	if testing.Short() {
		horizon = time.Hour
	}
	cases := []struct {
		cfg    Config
		period time.Duration // arrival spacing, well under 1/R
		rateN  int64         // R in nano-tokens/s, stated independently of the code
		capN   int64         // C in nano-tokens
	}{
		{Config{RatePerSec: 200, BurstCapacitySecs: 1}, time.Millisecond, 200e9, 200e9},
		{Config{RatePerSec: 3, BurstCapacitySecs: 2}, 100 * time.Millisecond, 3e9, 6e9},
		{Config{RatePerSec: 0.7, BurstCapacitySecs: 10}, 500 * time.Millisecond, 0.7e9, 7e9},
		{Config{RatePerSec: 123.456, BurstCapacitySecs: 0.5}, 2 * time.Millisecond, 123456e6, 61728e6},
	}
	for _, tc := range cases {
		b := mustBucket(t, tc.cfg, 0)
		if b.rateN != uint64(tc.rateN) || b.capN != tc.capN {
			t.Fatalf("%v: quantized rate %d, capacity %d; want %d, %d", tc.cfg, b.rateN, b.capN, tc.rateN, tc.capN)
		}
		var admitted int64
		end := at(horizon)
		for now := sim.Time(0); now <= end; now += at(tc.period) {
			if b.TryAcquire(now) {
				admitted++
			}
		}
		// ⌊(C·1e9 + T·R_n) / 1e18⌋ in exact integers (units of 1e-18 token).
		total := new(big.Int).Mul(big.NewInt(tc.capN), big.NewInt(subPerNano))
		total.Add(total, new(big.Int).Mul(big.NewInt(int64(end)), big.NewInt(tc.rateN)))
		want := new(big.Int).Quo(total, big.NewInt(nanoPerToken*subPerNano))
		if admitted != want.Int64() {
			t.Errorf("%v over %v: admitted %d, want ⌊C + R·T⌋ = %d", tc.cfg, horizon, admitted, want)
		}
		wantBal := new(big.Int).Sub(total, new(big.Int).Mul(big.NewInt(admitted), big.NewInt(nanoPerToken*subPerNano)))
		if got := exactBalance(b); got.Cmp(wantBal) != 0 {
			t.Errorf("%v over %v: balance %v e-18, want C + R·T − admitted = %v e-18", tc.cfg, horizon, got, wantBal)
		}
	}
}

// Rule (docs/model.md §13, docs/conventions.md §11: a token bucket's long-run admitted rate is
// min(λ, R)). Poisson arrivals at λ from a seeded PCG stream for T = 2000 s against
// R = 100/s, C = 100. Tolerance: the admitted count of an unsaturated bucket is a Poisson count
// (sd √(λT)); a saturated one admits R·T up to the burst C; 4 sd plus C/(rate·T) covers both
// with a false-failure probability below 1e-4 (and the seed is fixed anyway).
func TestTokenBucketLongRunRate(t *testing.T) {
	const (
		rate = 100.0
		T    = 2000 * time.Second
	)
	for _, lambda := range []float64{25, 50, 90, 150, 300, 1000} {
		b := mustBucket(t, Config{RatePerSec: rate, BurstCapacitySecs: 1}, 0)
		rng := sim.NewStream(1, "ratelimiter/test/poisson")
		var admitted int64
		for now := sim.Time(0); ; {
			now = now.Add(time.Duration(rng.ExpFloat64() / lambda * 1e9))
			if now > at(T) {
				break
			}
			if b.TryAcquire(now) {
				admitted++
			}
		}
		want := min(lambda, rate)
		got := float64(admitted) / T.Seconds()
		tol := 4*math.Sqrt(want*T.Seconds())/T.Seconds() + b.Capacity()/T.Seconds()
		if math.Abs(got-want) > tol {
			t.Errorf("λ=%v R=%v: admitted rate %.3f/s, want min(λ,R) = %v ± %.3f", lambda, rate, got, want, tol)
		}
	}
}

// Rule (docs/model.md §4.1 acquireToken, docs/model.md §5.2 MaxQueueDepth): with depth Q at most Q callers
// wait; the (Q+1)-th is rejected and its borrowed token given back; a waiter that gives up
// gives its token back, so the next reservation moves one period earlier.
func TestTokenBucketMaxQueueDepth(t *testing.T) {
	const period = 100 * time.Millisecond // R = 10/s; C = 1
	t0 := at(time.Second)
	for _, depth := range []int64{0, 1, 3} {
		b := mustBucket(t, Config{RatePerSec: 10, BurstCapacitySecs: 0.1, MaxQueueDepth: depth}, 0)
		if r, ok := b.Acquire(t0); !ok || r.At != t0 {
			t.Fatalf("Q=%d: first Acquire = %+v, %v; want admitted at once", depth, r, ok)
		}
		var held []Reservation
		for k := int64(1); k <= depth; k++ {
			r, ok := b.Acquire(t0)
			if want := t0 + sim.Time(k)*at(period); !ok || r.At != want {
				t.Fatalf("Q=%d: Acquire #%d = %+v, %v; want queued until %v", depth, k, r, ok, want)
			}
			held = append(held, r)
		}
		before := b.Tokens(t0)
		if r, ok := b.Acquire(t0); ok {
			t.Fatalf("Q=%d: Acquire beyond the depth = %+v, want rejected", depth, r)
		}
		if after := b.Tokens(t0); after != before || after != -float64(depth) {
			t.Errorf("Q=%d: Tokens after the rejection = %v, want %v (token given back)", depth, after, before)
		}
		if got := b.Queued(t0); got != depth {
			t.Errorf("Q=%d: Queued = %d, want %d", depth, got, depth)
		}
		if depth < 3 {
			continue
		}
		// The middle waiter gives up 10 ms in; its token comes back.
		t1 := t0 + at(10*time.Millisecond)
		if !b.CancelWait(t1, held[1]) {
			t.Fatalf("CancelWait(%v, %+v) = false, want true", t1, held[1])
		}
		if got, want := b.Tokens(t1), -float64(depth)+1+0.1; math.Abs(got-want) > 1e-12 {
			t.Errorf("Tokens after CancelWait = %v, want %v", got, want)
		}
		// The next caller is promised 300 ms, not 400 ms.
		r, ok := b.Acquire(t1)
		if want := t0 + 3*at(period); !ok || r.At != want {
			t.Errorf("Acquire after CancelWait = %+v, %v; want queued until %v", r, ok, want)
		}
		// The first waiter leaves the queue exactly at its time and cannot be cancelled then.
		if got := b.Queued(held[0].At); got != 2 {
			t.Errorf("Queued(%v) = %d, want 2", held[0].At, got)
		}
		if b.CancelWait(held[0].At, held[0]) {
			t.Errorf("CancelWait at the reservation time = true, want false (already admitted)")
		}
		s := b.Stats(t0 + at(time.Second))
		want := Stats{AttemptedAdmissions: 6, SuccessfulAdmissions: 4, RejectedAdmissions: 1, AddedToQueue: 4,
			RemovedFromQueue: 4, InterruptedInQueue: 1, TotalQueuedTime: 100e6 + 300e6 + 290e6,
			AverageTimeQueuedMicros: s.AverageTimeQueuedMicros, TotalAvailableTokens: 1}
		if s != want {
			t.Errorf("Stats = %+v\nwant    %+v", s, want)
		}
		checkAccounting(t, s)
	}
}

// Rule (rate_limiter.h Stats: averageTimeQueuedMicros is MovingAverage{0.2} over every
// successful acquireToken, zero waits included; exemptions take no token).
func TestTokenBucketStats(t *testing.T) {
	b := mustBucket(t, Config{RatePerSec: 1000, BurstCapacitySecs: 0.001, MaxQueueDepth: 5}, 0)
	t0 := at(time.Second)
	b.Acquire(t0) // admitted at once: sample 0 µs
	b.Acquire(t0) // queued 1 ms: sample 1000 µs at t0+1ms
	b.Acquire(t0) // queued 2 ms: sample 2000 µs at t0+2ms
	b.RecordExemption()
	if s := b.Stats(t0); s.AverageTimeQueuedMicros != 0 || s.Queued != 2 || s.TotalAvailableTokens != 0 || s.ExemptedAdmissions != 1 {
		t.Errorf("Stats(t0) = %+v", s)
	}
	s := b.Stats(t0 + at(2*time.Millisecond))
	want := 0.2*2000 + 0.8*(0.2*1000+0.8*0)
	if math.Abs(s.AverageTimeQueuedMicros-want) > 1e-9 || s.TotalQueuedTime != 3*time.Millisecond || s.Queued != 0 {
		t.Errorf("Stats(t0+2ms) = %+v, want average %v µs, total 3ms", s, want)
	}
	checkAccounting(t, s)
}

// Rule (docs/model.md §4.1: rate/burst changes reset the bucket with folly's
// TokenBucket::reset(rate, burst), which keeps the tokens available now — the balance, or zero
// if tokens are owed — at the new capacity and refills at the new rate).
func TestTokenBucketSetRate(t *testing.T) {
	t0 := at(time.Second)

	t.Run("keeps available tokens, does not refill", func(t *testing.T) {
		b := mustBucket(t, Config{RatePerSec: 10, BurstCapacitySecs: 1}, 0)
		for range 4 {
			b.TryAcquire(t0)
		}
		if err := b.SetRate(t0, 100, 1); err != nil {
			t.Fatal(err)
		}
		if got := b.Tokens(t0); got != 6 {
			t.Errorf("Tokens after SetRate = %v, want 6", got)
		}
		if got := b.Tokens(t0 + at(500*time.Millisecond)); got != 56 {
			t.Errorf("Tokens 0.5 s later at the new rate = %v, want 56", got)
		}
		if b.Capacity() != 100 || b.Config().RatePerSec != 100 {
			t.Errorf("Capacity = %v, Config = %v; want 100 and the new rate", b.Capacity(), b.Config())
		}
	})

	t.Run("clamps to a smaller capacity", func(t *testing.T) {
		b := mustBucket(t, Config{RatePerSec: 10, BurstCapacitySecs: 1}, 0)
		if err := b.SetRate(t0, 2, 1); err != nil {
			t.Fatal(err)
		}
		if got := b.Tokens(t0); got != 2 {
			t.Errorf("Tokens = %v, want the new capacity 2", got)
		}
	})

	t.Run("forgives debt; waiters keep their times", func(t *testing.T) {
		b := mustBucket(t, Config{RatePerSec: 10, BurstCapacitySecs: 0.1, MaxQueueDepth: 5}, 0)
		b.Acquire(t0)
		var last Reservation
		for range 3 {
			last, _ = b.Acquire(t0) // queued until t0+100, 200, 300 ms
		}
		t1 := t0 + at(50*time.Millisecond)
		if err := b.SetRate(t1, 10, 0.1); err != nil {
			t.Fatal(err)
		}
		if got := b.Tokens(t1); got != 0 {
			t.Errorf("Tokens = %v, want 0 (debt of 2.5 forgiven)", got)
		}
		if got := b.Queued(t1); got != 3 {
			t.Errorf("Queued = %d, want 3", got)
		}
		r, ok := b.Acquire(t1)
		if want := t1 + at(100*time.Millisecond); !ok || r.At != want || r.At >= last.At {
			t.Errorf("Acquire after SetRate = %+v, %v; want queued until %v", r, ok, want)
		}
	})

	t.Run("invalid values change nothing", func(t *testing.T) {
		cfg := Config{RatePerSec: 10, BurstCapacitySecs: 1}
		b := mustBucket(t, cfg, 0)
		b.TryAcquire(t0)
		err := b.SetRate(t0, math.NaN(), 0)
		want := []string{"ratelimiter: RatePerSec: NaN: must be a finite number > 0", "ratelimiter: BurstCapacitySecs: 0: must be a finite number > 0"}
		if got := fieldErrors(t, err); len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
			t.Errorf("SetRate(NaN, 0) errors = %q, want %q", got, want)
		}
		if b.Config() != cfg || b.Tokens(t0) != 9 {
			t.Errorf("after a failed SetRate: Config %v, Tokens %v; want %v, 9", b.Config(), b.Tokens(t0), cfg)
		}
		if err := b.SetMaxQueueDepth(-1); err == nil || b.Config().MaxQueueDepth != 0 {
			t.Errorf("SetMaxQueueDepth(-1) = %v, depth %d; want an error and no change", err, b.Config().MaxQueueDepth)
		}
	})
}

// Rule (rate_limiter.cpp setMaxQueueDepth): a new depth applies to later callers; callers
// already queued stay.
func TestTokenBucketSetMaxQueueDepth(t *testing.T) {
	t0 := at(time.Second)
	b := mustBucket(t, Config{RatePerSec: 10, BurstCapacitySecs: 0.1, MaxQueueDepth: 3}, 0)
	for range 4 {
		b.Acquire(t0)
	}
	if err := b.SetMaxQueueDepth(1); err != nil {
		t.Fatal(err)
	}
	if got := b.Queued(t0); got != 3 {
		t.Errorf("Queued = %d, want 3", got)
	}
	if _, ok := b.Acquire(t0); ok {
		t.Error("Acquire with 3 waiting and depth 1 admitted, want rejected")
	}
}

// Rule (package doc, limits): extreme but valid parameters neither overflow nor lose tokens.
func TestTokenBucketExtremeParameters(t *testing.T) {
	// MongoDB's defaults: effectively unlimited.
	b := mustBucket(t, Config{RatePerSec: math.MaxInt32, BurstCapacitySecs: math.MaxFloat64}, 0)
	for i := range 1000 {
		if !b.TryAcquire(0) {
			t.Fatalf("MongoDB defaults: TryAcquire #%d rejected", i)
		}
	}
	if got := b.Tokens(at(10 * time.Hour)); got != MaxCapacity {
		t.Errorf("MongoDB defaults: Tokens after 10 h = %v, want %v", got, MaxCapacity)
	}
	// The largest rate over a long idle: the refill overflows 64 bits and saturates at C.
	b = mustBucket(t, Config{RatePerSec: MaxRatePerSec, BurstCapacitySecs: 1e-9}, 0)
	b.TryAcquire(0)
	b.TryAcquire(0)
	if got := b.Tokens(at(1000 * time.Hour)); got != 10 {
		t.Errorf("largest rate: Tokens = %v, want 10", got)
	}
	// The smallest rate: a borrowed token is valid 1e9 s (≈ 31.7 years) later.
	b = mustBucket(t, Config{RatePerSec: MinRatePerSec, BurstCapacitySecs: 1e9, MaxQueueDepth: 1}, 0)
	b.Acquire(0)
	r, ok := b.Acquire(0)
	if want := at(1e9 * time.Second); !ok || r.At != want {
		t.Errorf("smallest rate: Acquire = %+v, %v; want queued until %v", r, ok, want)
	}
}

// Rule (package doc: now must not decrease; docs/conventions.md §7: broken invariants panic with a
// package-prefixed message).
func TestTokenBucketPanicsWhenTimeGoesBackwards(t *testing.T) {
	calls := map[string]func(b *TokenBucket, now sim.Time){
		"TryAcquire": func(b *TokenBucket, now sim.Time) { b.TryAcquire(now) },
		"Acquire":    func(b *TokenBucket, now sim.Time) { b.Acquire(now) },
		"CancelWait": func(b *TokenBucket, now sim.Time) { b.CancelWait(now, Reservation{}) },
		"Tokens":     func(b *TokenBucket, now sim.Time) { b.Tokens(now) },
		"Queued":     func(b *TokenBucket, now sim.Time) { b.Queued(now) },
		"Stats":      func(b *TokenBucket, now sim.Time) { b.Stats(now) },
		"SetRate":    func(b *TokenBucket, now sim.Time) { _ = b.SetRate(now, 1, 1) },
	}
	for name, call := range calls {
		b := mustBucket(t, Config{RatePerSec: 1, BurstCapacitySecs: 1}, at(time.Second))
		func() {
			defer func() {
				msg, _ := recover().(string)
				if !strings.HasPrefix(msg, "ratelimiter: time went backwards") {
					t.Errorf("%s at an earlier time: panic %q, want a ratelimiter time panic", name, msg)
				}
			}()
			call(b, at(time.Second)-1)
		}()
	}
}

// Rule (CancelWait doc): cancelling a reservation that is not queued is a model bug.
func TestTokenBucketCancelUnknownReservationPanics(t *testing.T) {
	b := mustBucket(t, Config{RatePerSec: 1, BurstCapacitySecs: 1, MaxQueueDepth: 1}, 0)
	defer func() {
		if msg, _ := recover().(string); !strings.HasPrefix(msg, "ratelimiter: CancelWait") {
			t.Errorf("panic %q, want a ratelimiter CancelWait panic", msg)
		}
	}()
	b.CancelWait(0, Reservation{Start: 0, At: at(time.Second)})
}
