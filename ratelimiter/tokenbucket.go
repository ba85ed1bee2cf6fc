package ratelimiter

import (
	"fmt"
	"math"
	"math/bits"
	"time"

	"github.com/overloadsim/overloadsim/sim"
)

// averageAlpha is the smoothing factor of the server's averageTimeQueuedMicros
// (MovingAverage{0.2} in rate_limiter.h).
const averageAlpha = 0.2

// TokenBucket is MongoDB's admission::RateLimiter on a virtual clock: a lazy token bucket with
// refill rate R, capacity C = R×B, one token per admission, a try-acquire mode and a
// borrow-and-queue mode. See the package documentation for the model and its exact arithmetic.
//
// Every method that takes now requires now to be at least the now of the previous call.
// A TokenBucket is not safe for concurrent use; a simulation run is single-threaded.
type TokenBucket struct {
	cfg   Config
	rateN uint64 // refill rate: nano-tokens per second = 1e-18 token per nanosecond
	capN  int64  // capacity in nano-tokens

	// The balance is bal nano-tokens plus rem×1e-18 token, 0 <= rem < 1e9. It never exceeds
	// capN, and bal == capN implies rem == 0. It is negative while borrowed tokens are owed.
	bal  int64
	rem  uint64
	last sim.Time // the time the balance is valid at

	// waiters holds the outstanding reservations of queued callers as a min-heap ordered by
	// (At, Start). It is not FIFO by arrival: a waiter that gives up returns its token, so a
	// later caller can be promised an earlier time than some who already wait, as in the server.
	waiters []Reservation

	stats      Stats // counters only; Queued and TotalAvailableTokens are filled in by Stats
	averageSet bool  // whether stats.AverageTimeQueuedMicros holds a sample yet
}

// Reservation is a token borrowed by Acquire: its holder may proceed at At.
type Reservation struct {
	Start sim.Time // when Acquire was called
	At    sim.Time // when the borrowed token becomes valid; At == Start means admitted at once
}

// Wait returns how long the holder of r waits for admission.
func (r Reservation) Wait() time.Duration { return r.At.Sub(r.Start) }

// Stats are a TokenBucket's counters, named after the serverStatus fields of the server's
// rate limiters. Every call to TryAcquire or Acquire is one attempted admission, and
//
//	AttemptedAdmissions = SuccessfulAdmissions + RejectedAdmissions + InterruptedInQueue + Queued
type Stats struct {
	AttemptedAdmissions  int64 // calls to TryAcquire and Acquire
	SuccessfulAdmissions int64 // admissions; a queued caller counts once its reservation time is reached
	RejectedAdmissions   int64 // no token (TryAcquire), queue full or capacity below one token (Acquire)
	ExemptedAdmissions   int64 // calls to RecordExemption
	AddedToQueue         int64 // Acquire calls that had to wait
	RemovedFromQueue     int64 // waiters that left the queue: admitted or interrupted
	InterruptedInQueue   int64 // waiters that gave up (CancelWait) before their reservation time

	// TotalQueuedTime is the sum of the waits of queued callers that were admitted;
	// TotalQueuedTime / (RemovedFromQueue − InterruptedInQueue) is their mean wait.
	TotalQueuedTime time.Duration
	// AverageTimeQueuedMicros is the server's averageTimeQueuedMicros: an exponential moving
	// average (α = 0.2) of the wait in microseconds of every admission made by Acquire, waits
	// of zero included, in admission order. It is 0 until the first such admission (the server
	// omits the field then).
	AverageTimeQueuedMicros float64

	Queued               int64   // callers waiting at the time of the Stats call
	TotalAvailableTokens float64 // available tokens at that time: the balance, or 0 if it is negative
}

// Panic messages: each marks a bug in the calling model, never bad user input.
const (
	panicTimeBackwards = "ratelimiter: time went backwards: now %v is before the previous call at %v"
	panicNoWaiter      = "ratelimiter: CancelWait at %v: no queued reservation %+v"
)

// NewTokenBucket returns a full bucket configured by cfg, valid from now on. It returns the
// errors of cfg.Validate, and never panics, on an invalid cfg.
func NewTokenBucket(cfg Config, now sim.Time) (*TokenBucket, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	b := &TokenBucket{cfg: cfg, last: now}
	b.rateN, b.capN = cfg.quantize()
	// The server starts the bucket with one full burst (zero time = now − burst/rate).
	b.bal = b.capN
	return b, nil
}

// Config returns the bucket's current configuration.
func (b *TokenBucket) Config() Config { return b.cfg }

// Capacity returns the capacity in tokens: RatePerSec×BurstCapacitySecs, rounded to 1e-9 token
// and held at MaxCapacity.
func (b *TokenBucket) Capacity() float64 { return float64(b.capN) / nanoPerToken }

// Tokens returns the balance at now in tokens. It is negative while queued callers are owed
// tokens, and never above Capacity.
func (b *TokenBucket) Tokens(now sim.Time) float64 {
	b.advance(now)
	return b.tokens()
}

func (b *TokenBucket) tokens() float64 {
	return float64(b.bal)/nanoPerToken + float64(b.rem)/(nanoPerToken*subPerNano)
}

// TryAcquire is the server's tryAcquireToken: if at least one token is available at now it
// takes one and admits; otherwise it rejects at once, taking nothing.
func (b *TokenBucket) TryAcquire(now sim.Time) bool {
	b.advance(now)
	b.stats.AttemptedAdmissions++
	if b.bal < nanoPerToken { // balance < 1 token; rem cannot make up a whole nano-token
		b.stats.RejectedAdmissions++
		return false
	}
	b.bal -= nanoPerToken
	b.stats.SuccessfulAdmissions++
	return true
}

// Acquire is the server's acquireToken. It borrows one token, letting the balance go negative,
// and computes when the borrow becomes valid:
//
//   - valid now: the caller is admitted at once (r.At == now);
//   - valid later, and fewer than MaxQueueDepth callers wait at now: the caller is queued and
//     admitted at r.At, the first nanosecond at which the balance is back to zero;
//   - valid later, and MaxQueueDepth callers already wait: the token is given back and the
//     caller is rejected (ok false).
//
// A bucket whose capacity is below one token rejects every caller. A queued caller that gives
// up before r.At must call CancelWait. Queued callers are admitted in reservation order, exactly
// 1/R apart once the burst is spent (each at the first whole nanosecond at or after its token is
// valid; with a capacity C below 1 + R·1 ns, at least (2 − C)/R apart, see below); the bucket
// counts a queued caller as admitted (and no longer queued) from r.At on, without the caller
// telling it.
func (b *TokenBucket) Acquire(now sim.Time) (r Reservation, ok bool) {
	b.advance(now)
	b.stats.AttemptedAdmissions++
	if b.capN < nanoPerToken {
		b.stats.RejectedAdmissions++
		return Reservation{}, false
	}
	b.bal -= nanoPerToken
	wait, surplus := b.debtWait()
	if wait == 0 {
		b.stats.SuccessfulAdmissions++
		b.addQueuedSample(0)
		return Reservation{Start: now, At: now}, true
	}
	if int64(len(b.waiters)) >= b.cfg.MaxQueueDepth {
		b.returnToken()
		b.stats.RejectedAdmissions++
		return Reservation{}, false
	}
	// Round the admission, not the token: the borrowed token is valid at an exact instant that
	// is rarely a whole nanosecond, and the caller is admitted at the next one, r.At, by which
	// time the balance has refilled past zero by surplus (< R·1 ns). At r.At the bucket holds
	// the caller's token plus the surplus, and like any balance that is held at C: only C − 1
	// tokens of surplus are kept. Kept whole, the next token would be ready less than 1/R after
	// r.At when C = 1, and a window starting at r.At would hold more than C + R·T admissions
	// (the envelope in the package doc). Nothing is dropped unless C < 1 + R·1 ns.
	if keepN := uint64(b.capN - nanoPerToken); keepN <= surplus/subPerNano { // capN ≥ 1 token here
		if keep := keepN * subPerNano; surplus > keep { // keepN < 1e10: no overflow
			b.debit(surplus - keep)
		}
	}
	r = Reservation{Start: now, At: now.Add(wait)}
	b.push(r)
	b.stats.AddedToQueue++
	return r, true
}

// CancelWait withdraws a queued caller that gives up at now, before its reservation time (the
// server's interrupted sleep: the token is given back and interruptedInQueue counts it). The
// next caller's reservation moves earlier by one token's worth; callers already queued keep
// their times. CancelWait returns false, changing nothing, if r.At <= now: the caller has
// already been admitted. Cancelling a reservation that is not queued panics.
func (b *TokenBucket) CancelWait(now sim.Time, r Reservation) bool {
	b.advance(now)
	if r.At <= now {
		return false
	}
	i := b.find(r)
	if i < 0 {
		panic(fmt.Sprintf(panicNoWaiter, now, r))
	}
	b.remove(i)
	b.stats.RemovedFromQueue++
	b.stats.InterruptedInQueue++
	b.returnToken()
	return true
}

// Queued returns the number of callers waiting at now: those whose reservation time is later
// than now.
func (b *TokenBucket) Queued(now sim.Time) int64 {
	b.advance(now)
	return int64(len(b.waiters))
}

// RecordExemption counts an admission granted without asking the bucket (an exempt client);
// it takes no token.
func (b *TokenBucket) RecordExemption() { b.stats.ExemptedAdmissions++ }

// Stats returns the counters as of now.
func (b *TokenBucket) Stats(now sim.Time) Stats {
	b.advance(now)
	s := b.stats
	s.Queued = int64(len(b.waiters))
	s.TotalAvailableTokens = max(0, b.tokens())
	return s
}

// SetRate changes the rate and burst at now, as the server's updateRateParameters does through
// folly's TokenBucket::reset: the tokens available at now (the balance, or zero if tokens are
// owed) carry over, held at the new capacity, and refill continues at the new rate. The bucket
// is not refilled. Debts are forgiven, but queued callers keep their reservation times and still
// count against MaxQueueDepth until those times. On invalid values SetRate returns the
// validation errors and changes nothing.
func (b *TokenBucket) SetRate(now sim.Time, ratePerSec, burstCapacitySecs float64) error {
	b.advance(now)
	cfg := b.cfg
	cfg.RatePerSec, cfg.BurstCapacitySecs = ratePerSec, burstCapacitySecs
	if err := cfg.Validate(); err != nil {
		return err
	}
	if b.bal < 0 {
		b.bal, b.rem = 0, 0
	}
	b.cfg = cfg
	b.rateN, b.capN = cfg.quantize()
	if b.bal >= b.capN {
		b.bal, b.rem = b.capN, 0
	}
	return nil
}

// SetMaxQueueDepth changes MaxQueueDepth for later calls to Acquire, as the server's
// setMaxQueueDepth does; callers already queued stay queued. A negative depth is an error.
func (b *TokenBucket) SetMaxQueueDepth(depth int64) error {
	cfg := b.cfg
	cfg.MaxQueueDepth = depth
	if err := cfg.Validate(); err != nil {
		return err
	}
	b.cfg = cfg
	return nil
}

// advance brings the balance and the queue to now: it admits the waiters whose time has come
// and adds the refill since the previous call, clamped at the capacity.
func (b *TokenBucket) advance(now sim.Time) {
	if now < b.last {
		panic(fmt.Sprintf(panicTimeBackwards, now, b.last))
	}
	for len(b.waiters) > 0 && b.waiters[0].At <= now {
		b.admitWaiter(b.pop())
	}
	d := uint64(now - b.last)
	b.last = now
	if d == 0 || b.bal >= b.capN {
		return
	}
	// Refill over d ns is d·rateN units of 1e-18 token; add the carried remainder and split
	// into whole nano-tokens and a new remainder. Exact: 128-bit product, integer division.
	hi, lo := bits.Mul64(d, b.rateN)
	var carry uint64
	lo, carry = bits.Add64(lo, b.rem, 0)
	hi += carry
	if hi >= subPerNano { // the quotient would not fit in 64 bits: far more than the capacity
		b.bal, b.rem = b.capN, 0
		return
	}
	q, r := bits.Div64(hi, lo, subPerNano)
	if room := uint64(b.capN - b.bal); q >= room {
		b.bal, b.rem = b.capN, 0
		return
	}
	b.bal += int64(q)
	b.rem = r
}

// debtWait returns the time until a negative balance is back to zero: the smallest d with
// balance + d·R >= 0, in nanoseconds (0 if the balance is not negative), and the surplus
// balance + d·R at that time, in 1e-18 token (0 ≤ surplus < R·1 ns; 0 if d saturates).
func (b *TokenBucket) debtWait() (wait time.Duration, surplus uint64) {
	if b.bal >= 0 {
		return 0, 0
	}
	// Owed amount in 1e-18 token: (−bal)·1e9 − rem > 0.
	hi, lo := bits.Mul64(uint64(-b.bal), subPerNano)
	var borrow uint64
	lo, borrow = bits.Sub64(lo, b.rem, 0)
	hi -= borrow
	if hi >= b.rateN { // more than 2^64 ns away
		return math.MaxInt64, 0
	}
	q, r := bits.Div64(hi, lo, b.rateN)
	if q >= math.MaxInt64 {
		return math.MaxInt64, 0
	}
	if r != 0 {
		q++
		surplus = b.rateN - r
	}
	return time.Duration(q), surplus
}

// debit takes x×1e-18 token from the balance, x < 2^64.
func (b *TokenBucket) debit(x uint64) {
	b.bal -= int64(x / subPerNano)
	if frac := x % subPerNano; frac <= b.rem {
		b.rem -= frac
	} else {
		b.bal--
		b.rem += subPerNano - frac
	}
}

// returnToken gives one token back, held at the capacity.
func (b *TokenBucket) returnToken() {
	b.bal += nanoPerToken
	if b.bal >= b.capN {
		b.bal, b.rem = b.capN, 0
	}
}

func (b *TokenBucket) admitWaiter(r Reservation) {
	b.stats.RemovedFromQueue++
	b.stats.SuccessfulAdmissions++
	b.stats.TotalQueuedTime += r.Wait()
	b.addQueuedSample(r.Wait())
}

// addQueuedSample feeds the server's moving average of queued time in microseconds.
func (b *TokenBucket) addQueuedSample(wait time.Duration) {
	sample := float64(wait) / 1e3
	if !b.averageSet {
		b.stats.AverageTimeQueuedMicros, b.averageSet = sample, true
		return
	}
	// Explicit conversions keep the products unfused, so every platform rounds alike.
	b.stats.AverageTimeQueuedMicros = float64(averageAlpha*sample) + float64((1-averageAlpha)*b.stats.AverageTimeQueuedMicros)
}

// The waiter heap. Hand-written rather than container/heap so that pushing a value does not
// allocate; the slice is reused, so a bucket in steady state allocates nothing.

func waiterLess(a, b Reservation) bool {
	return a.At < b.At || (a.At == b.At && a.Start < b.Start)
}

func (b *TokenBucket) push(r Reservation) {
	b.waiters = append(b.waiters, r)
	b.up(len(b.waiters) - 1)
}

func (b *TokenBucket) pop() Reservation {
	h := b.waiters
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	b.waiters = h[:n]
	b.down(0)
	return top
}

func (b *TokenBucket) remove(i int) {
	h := b.waiters
	n := len(h) - 1
	if i != n {
		h[i] = h[n]
	}
	b.waiters = h[:n]
	if i != n {
		b.down(i)
		b.up(i)
	}
}

func (b *TokenBucket) find(r Reservation) int {
	for i, w := range b.waiters {
		if w == r {
			return i
		}
	}
	return -1
}

func (b *TokenBucket) up(i int) {
	h := b.waiters
	for i > 0 {
		p := (i - 1) / 2
		if !waiterLess(h[i], h[p]) {
			return
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (b *TokenBucket) down(i int) {
	h := b.waiters
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && waiterLess(h[r], h[l]) {
			m = r
		}
		if !waiterLess(h[m], h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
