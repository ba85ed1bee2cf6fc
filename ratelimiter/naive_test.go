package ratelimiter

import (
	"math/big"
	"math/bits"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/sim"
)

// naiveBucket is TokenBucket's dumb twin (docs/conventions.md §12). It keeps the balance in an int64
// count of 1e-18 token and walks virtual time one nanosecond at a time, adding R·1 ns and
// clamping at C on every step; a borrowed token's wait is found by stepping a copy of the
// balance forward until it is no longer negative; waiters are an unordered slice. Only small
// capacities fit (C and the debt must stay below 9 tokens).
type naiveBucket struct {
	perNs, capV int64 // refill per nanosecond and capacity, in 1e-18 token
	v           int64 // balance in 1e-18 token
	t           sim.Time
	depth       int64
	waiters     []Reservation
	st          Stats
}

const unitV = nanoPerToken * subPerNano // one token in 1e-18 token

func newNaive(cfg Config, now sim.Time) *naiveBucket {
	rateN, capN := cfg.quantize() // the config's rounding rule is shared; the algorithm is not
	return &naiveBucket{perNs: int64(rateN), capV: capN * subPerNano, v: capN * subPerNano, t: now, depth: cfg.MaxQueueDepth}
}

func (n *naiveBucket) stepTo(now sim.Time) {
	for n.t < now {
		n.t++
		n.v = min(n.capV, n.v+n.perNs)
	}
	kept := n.waiters[:0]
	for _, w := range n.waiters {
		if w.At <= now {
			n.st.RemovedFromQueue++
			n.st.SuccessfulAdmissions++
			n.st.TotalQueuedTime += w.Wait()
		} else {
			kept = append(kept, w)
		}
	}
	n.waiters = kept
}

func (n *naiveBucket) try(now sim.Time) bool {
	n.stepTo(now)
	n.st.AttemptedAdmissions++
	if n.v >= unitV {
		n.v -= unitV
		n.st.SuccessfulAdmissions++
		return true
	}
	n.st.RejectedAdmissions++
	return false
}

func (n *naiveBucket) acquire(now sim.Time) (Reservation, bool) {
	n.stepTo(now)
	n.st.AttemptedAdmissions++
	if n.capV < unitV {
		n.st.RejectedAdmissions++
		return Reservation{}, false
	}
	n.v -= unitV
	var wait int64
	x := n.v
	for ; x < 0; x += n.perNs {
		wait++
	}
	if wait == 0 {
		n.st.SuccessfulAdmissions++
		return Reservation{Start: now, At: now}, true
	}
	if int64(len(n.waiters)) >= n.depth {
		n.v = min(n.capV, n.v+unitV)
		n.st.RejectedAdmissions++
		return Reservation{}, false
	}
	// At its reservation time the bucket holds the waiter's token and x ≥ 0 more: at most C in all.
	n.v -= max(0, x-(n.capV-unitV))
	r := Reservation{Start: now, At: now + sim.Time(wait)}
	n.waiters = append(n.waiters, r)
	n.st.AddedToQueue++
	return r, true
}

func (n *naiveBucket) cancel(now sim.Time, r Reservation) bool {
	n.stepTo(now)
	if r.At <= now {
		return false
	}
	i := slices.Index(n.waiters, r)
	n.waiters = slices.Delete(n.waiters, i, i+1)
	n.st.RemovedFromQueue++
	n.st.InterruptedInQueue++
	n.v = min(n.capV, n.v+unitV)
	return true
}

func (n *naiveBucket) setRate(now sim.Time, cfg Config) {
	n.stepTo(now)
	n.v = max(0, n.v)
	rateN, capN := cfg.quantize()
	n.perNs, n.capV = int64(rateN), capN*subPerNano
	n.v = min(n.v, n.capV)
}

// naiveScript decodes fuzz bytes into a bucket configuration and a list of operations, three
// bytes each: kind, gap (squared, in ns, so that both same-instant bursts and long idles
// occur) and an argument. Rates are 1e4..1e7 tokens/s (a token every 100 µs down to every
// 100 ns) and capacities 0.25..4.25 tokens, so the per-nanosecond walk stays short.
type naiveScript struct {
	cfg Config
	ops []byte
}

func decodeScript(rate, capMilli uint16, depth uint8, ops []byte) naiveScript {
	r := 1e4 + float64(rate)*150
	c := 0.25 + float64(capMilli%4000)/1000
	const maxOps = 48
	if len(ops) > 3*maxOps {
		ops = ops[:3*maxOps]
	}
	return naiveScript{cfg: Config{RatePerSec: r, BurstCapacitySecs: c / r, MaxQueueDepth: int64(depth % 6)}, ops: ops}
}

// Which optional operations a script may perform.
const (
	allowCancel = 1 << iota
	allowSetRate
)

// runAgainstNaive drives a TokenBucket and a naiveBucket with the same script and fails on
// the first difference in any result, the exact balance or any counter. It returns the
// admission times (TryAcquire: the call; Acquire: the reservation time, unless cancelled) and
// the number of waiters cancelled before their time.
func runAgainstNaive(t *testing.T, s naiveScript, allow int) (admitted []sim.Time, cancelled int) {
	t.Helper()
	t0 := sim.Time(1000)
	b := mustBucket(t, s.cfg, t0)
	n := newNaive(s.cfg, t0)
	now := t0
	var held []Reservation
	for i := 0; i+2 < len(s.ops); i += 3 {
		kind, gap, arg := s.ops[i]%6, sim.Time(s.ops[i+1])*sim.Time(s.ops[i+1]), s.ops[i+2]
		now += gap
		step := i / 3
		switch kind {
		case 0, 1:
			got, want := b.TryAcquire(now), n.try(now)
			if got != want {
				t.Fatalf("cfg %v step %d: TryAcquire(%v) = %v, naive %v", s.cfg, step, now, got, want)
			}
			if got {
				admitted = append(admitted, now)
			}
		case 2, 3:
			gr, gok := b.Acquire(now)
			wr, wok := n.acquire(now)
			if gr != wr || gok != wok {
				t.Fatalf("cfg %v step %d: Acquire(%v) = %+v, %v; naive %+v, %v", s.cfg, step, now, gr, gok, wr, wok)
			}
			if gok && gr.At > now {
				held = append(held, gr)
			} else if gok {
				admitted = append(admitted, now)
			}
		case 4:
			if allow&allowCancel == 0 || len(held) == 0 {
				continue
			}
			k := int(arg) % len(held)
			r := held[k]
			held = slices.Delete(held, k, k+1)
			got, want := b.CancelWait(now, r), n.cancel(now, r)
			if got != want {
				t.Fatalf("cfg %v step %d: CancelWait(%v, %+v) = %v, naive %v", s.cfg, step, now, r, got, want)
			}
			if got {
				cancelled++
			} else {
				admitted = append(admitted, r.At)
			}
		case 5:
			if allow&allowSetRate == 0 {
				continue
			}
			r := 1e4 + float64(arg)*3e4
			cfg := Config{RatePerSec: r, BurstCapacitySecs: (0.25 + float64(arg%16)/4) / r, MaxQueueDepth: s.cfg.MaxQueueDepth}
			if err := b.SetRate(now, cfg.RatePerSec, cfg.BurstCapacitySecs); err != nil {
				t.Fatalf("step %d: SetRate(%v): %v", step, cfg, err)
			}
			n.setRate(now, cfg)
		}
		if got := exactBalance(b); got.Cmp(big.NewInt(n.v)) != 0 {
			t.Fatalf("cfg %v step %d at %v: balance %v e-18, naive %v e-18", s.cfg, step, now, got, n.v)
		}
		gs := b.Stats(now)
		n.stepTo(now)
		ws := n.st
		ws.Queued = int64(len(n.waiters))
		gs.AverageTimeQueuedMicros, gs.TotalAvailableTokens = 0, 0 // not modelled by the twin
		if gs != ws {
			t.Fatalf("cfg %v step %d at %v: stats %+v\nnaive %+v", s.cfg, step, now, gs, ws)
		}
		checkAccounting(t, gs)
		if bal := exactBalance(b); bal.Cmp(big.NewInt(b.capN*subPerNano)) > 0 {
			t.Fatalf("cfg %v step %d: balance %v above capacity", s.cfg, step, bal)
		}
	}
	for _, r := range held {
		admitted = append(admitted, r.At) // still queued: admitted at their time
	}
	slices.Sort(admitted)
	return admitted, cancelled
}

// Rule (docs/conventions.md §12): TokenBucket and its per-nanosecond twin agree exactly on every
// result, balance and counter, over seeded random scripts that mix both modes, cancellations
// and rate changes.
func TestTokenBucketMatchesNaive(t *testing.T) {
	rng := sim.NewStream(7, "ratelimiter/test/naive")
	cases := 300
	if testing.Short() {
		cases = 50
	}
	for range cases {
		ops := make([]byte, 3*48)
		for i := range ops {
			ops[i] = byte(rng.Uint32())
		}
		s := decodeScript(uint16(rng.Uint32()), uint16(rng.Uint32()), uint8(rng.Uint32()), ops)
		runAgainstNaive(t, s, allowCancel|allowSetRate)
	}
}

func FuzzTokenBucketMatchesNaive(f *testing.F) {
	f.Add(uint16(0), uint16(0), uint8(0), []byte{0, 0, 0, 2, 0, 0, 2, 0, 0})
	f.Add(uint16(600), uint16(2500), uint8(3), []byte{2, 0, 0, 2, 0, 0, 2, 0, 0, 2, 0, 0, 4, 10, 1, 2, 3, 0, 5, 200, 9, 2, 0, 0})
	f.Add(uint16(65535), uint16(3999), uint8(5), []byte{1, 255, 0, 3, 0, 0, 3, 0, 0, 3, 1, 0, 4, 7, 0, 0, 90, 0})
	f.Fuzz(func(t *testing.T, rate, capMilli uint16, depth uint8, ops []byte) {
		runAgainstNaive(t, decodeScript(rate, capMilli, depth, ops), allowCancel|allowSetRate)
	})
}

// windowBoundHolds reports whether k admissions within d ns respect k ≤ C + R·d + slack,
// exactly: k·1e18 ≤ capN·1e9 + d·rateN + slack·1e18 in 128-bit integers (units of 1e-18 token).
func windowBoundHolds(k int, d time.Duration, rateN uint64, capN int64, slack int) bool {
	if k <= slack {
		return true
	}
	lh, ll := bits.Mul64(uint64(k-slack), unitV)
	ch, cl := bits.Mul64(uint64(capN), subPerNano)
	dh, dl := bits.Mul64(uint64(d), rateN)
	sl, carry := bits.Add64(cl, dl, 0)
	sh := ch + dh + carry
	return lh < sh || (lh == sh && ll <= sl)
}

// checkWindows fails if any window [admitted[i], admitted[j]] holds more than C + R·T + slack
// admissions, T being its length.
func checkWindows(t *testing.T, cfg Config, admitted []sim.Time, slack int) {
	t.Helper()
	if !sort.SliceIsSorted(admitted, func(i, j int) bool { return admitted[i] < admitted[j] }) {
		t.Fatal("admission times not sorted")
	}
	rateN, capN := cfg.quantize()
	for i := range admitted {
		for j := i; j < len(admitted); j++ {
			if d := admitted[j].Sub(admitted[i]); !windowBoundHolds(j-i+1, d, rateN, capN, slack) {
				t.Fatalf("cfg %v: %d admissions in [%v, %v], more than C + R·T + %d = %v + %v·%v + %d",
					cfg, j-i+1, admitted[i], admitted[j], slack, float64(capN)/nanoPerToken, cfg.RatePerSec, d, slack)
			}
		}
	}
}

// Rule (token-bucket envelope; package doc invariants): over any window [t, t+T] a bucket
// admits at most C + R·T requests, in either mode. R and C are the bucket's quantized values,
// so the check is exact. A waiter that gives up returns its token but, as in the server, those
// already queued behind it keep their times, so later callers can be admitted alongside them:
// each cancellation may add one admission to a window, and no more. Rate changes are
// excluded: they forgive debts by design.
func TestTokenBucketWindowBound(t *testing.T) {
	rng := sim.NewStream(11, "ratelimiter/test/window")
	for i := range 400 {
		ops := make([]byte, 3*48)
		for i := range ops {
			ops[i] = byte(rng.Uint32())
		}
		s := decodeScript(uint16(rng.Uint32()), uint16(rng.Uint32()), uint8(rng.Uint32()), ops)
		allow := 0
		if i%2 == 1 {
			allow = allowCancel
		}
		admitted, cancelled := runAgainstNaive(t, s, allow)
		checkWindows(t, s.cfg, admitted, cancelled)
	}
}

// Rule (token-bucket envelope; package doc invariants): a bucket of rate R and capacity C admits
// at most C + R·T requests in any window of length T, a queued caller counting at its
// reservation time. That time is the first whole nanosecond at or after the exact instant its
// borrowed token is valid; the refill accrued in between must not let the next token be ready
// early. With C = 1, the next admission after a queued one comes no sooner than 1/R later.
// Regression for FuzzTokenBucketWindowBound (testdata/fuzz/FuzzTokenBucketWindowBound/
// rate18850-waiter-then-try and fd106a28a3bc36d6): at 18850/s (1/R = 53 050.398 ns) a TryAcquire
// 53 050 ns after a waiter's admission was admitted 0.398 ns early, and at 13750/s
// (1/R = 72 727.27 ns) two waiters queued together were admitted 72 727 ns apart.
func TestTokenBucketQueuedAdmissionKeepsWindowBound(t *testing.T) {
	const ns = sim.Time(1)
	t.Run("18850/s, C=1: try after a waiter", func(t *testing.T) {
		b := mustBucket(t, Config{RatePerSec: 18850, BurstCapacitySecs: 1.0 / 18850, MaxQueueDepth: 2}, 0)
		if r, ok := b.Acquire(0); !ok || r.At != 0 {
			t.Fatalf("first Acquire = %+v, %v; want admitted at once", r, ok)
		}
		r, ok := b.Acquire(0)
		if !ok || r.At != 53051*ns { // ⌈53 050.398⌉
			t.Fatalf("second Acquire = %+v, %v; want queued until 53051ns", r, ok)
		}
		if b.TryAcquire(r.At + 53050*ns) { // 1/R after r.At is r.At + 53 050.398 ns
			t.Fatalf("TryAcquire at %v admitted: 2 admissions in 53050ns > C + R·T = 1 + 18850/s·53050ns", r.At+53050*ns)
		}
		if !b.TryAcquire(r.At + 53051*ns) {
			t.Fatalf("TryAcquire at %v rejected, 1/R after the waiter's admission", r.At+53051*ns)
		}
	})
	t.Run("7082200/s, C=1.001: try after a waiter", func(t *testing.T) {
		// 1/R = 141.199 ns; R·1 ns = 0.00708 token > C − 1, so C − 1 of the surplus is kept.
		b := mustBucket(t, Config{RatePerSec: 7082200, BurstCapacitySecs: 1.001 / 7082200, MaxQueueDepth: 1}, 0)
		b.Acquire(0)
		r, _ := b.Acquire(0) // owes 0.999 token: valid at 141.058 ns
		if r.At != 142*ns {
			t.Fatalf("waiter at %v, want 142ns", r.At)
		}
		if b.TryAcquire(r.At + 141*ns) { // C + R·T < 2 for T < 0.999/R = 141.058 ns
			t.Fatalf("TryAcquire at %v admitted: 2 admissions in 141ns > C + R·T", r.At+141*ns)
		}
		if !b.TryAcquire(r.At + 142*ns) {
			t.Fatalf("TryAcquire at %v rejected", r.At+142*ns)
		}
	})
	t.Run("13750/s, C=1: two waiters", func(t *testing.T) {
		b := mustBucket(t, Config{RatePerSec: 13750, BurstCapacitySecs: 1.0 / 13750, MaxQueueDepth: 2}, 0)
		b.Acquire(0)
		r1, _ := b.Acquire(0)
		r2, _ := b.Acquire(0)
		if r1.At != 72728*ns || r2.At != 2*72728*ns { // each ⌈72 727.27⌉ after the previous, not ⌈2/R⌉ = 145 455
			t.Fatalf("waiters at %v and %v; want 72728ns and 145456ns", r1.At, r2.At)
		}
	})
	// The fuzz inputs themselves, against the per-nanosecond twin and the window check.
	scripts := []struct {
		name           string
		rate, capMilli uint16
		depth          uint8
		ops            []byte
	}{
		{"rate18850-waiter-then-try", 59, 750, 2, []byte{2, 0, 0, 2, 0, 0, 5, 254, 0, 5, 188, 0, 5, 79, 0, 0, 0, 0}},
		{"fd106a28a3bc36d6", 25, 750, 226, []byte("000200200")},
	}
	for _, sc := range scripts {
		t.Run(sc.name, func(t *testing.T) {
			s := decodeScript(sc.rate, sc.capMilli, sc.depth, sc.ops)
			admitted, cancelled := runAgainstNaive(t, s, 0)
			checkWindows(t, s.cfg, admitted, cancelled)
		})
	}
}

func FuzzTokenBucketWindowBound(f *testing.F) {
	f.Add(uint16(10), uint16(999), uint8(2), false, []byte{2, 0, 0, 2, 0, 0, 2, 0, 0, 4, 3, 0, 2, 0, 0, 0, 100, 0})
	f.Add(uint16(3000), uint16(0), uint8(5), true, []byte{0, 0, 0, 0, 0, 0, 3, 30, 0, 3, 0, 0, 4, 0, 1, 3, 0, 0})
	f.Fuzz(func(t *testing.T, rate, capMilli uint16, depth uint8, noCancel bool, ops []byte) {
		allow := allowCancel
		if noCancel {
			allow = 0
		}
		s := decodeScript(rate, capMilli, depth, ops)
		admitted, cancelled := runAgainstNaive(t, s, allow)
		checkWindows(t, s.cfg, admitted, cancelled)
	})
}
