package retry

import (
	"math"
	"strconv"
	"time"

	"github.com/overloadsim/overloadsim/sim"
)

// The sre-throttle policy is the client side of Google's "Handling Overload" chapter (Site
// Reliability Engineering, 2016, https://sre.google/sre-book/handling-overload/): adaptive
// throttling and the two retry budgets. Each client counts, over the last Window (2 minutes),
//
//   - requests: every attempt the application layer makes, first or retry, including the ones
//     the throttle rejects locally ("requests attempted by the application layer");
//   - accepts: every attempt the backend accepted, that is a success or a reply that is not an
//     overload rejection (a server error reply: KindServer). An overload reply, a network error
//     (no reply), a dispatch failure and a local rejection (never sent) are not accepts;
//   - retries: the attempts among the requests that were retries.
//
// Before each attempt (Gate.Admit) it rejects locally with probability
//
//	max(0, (requests − K·accepts) / (requests + 1))
//
// computed from the counts before the attempt, drawing j once when the probability is above 0;
// the attempt then counts in requests whether rejected or not. A rejected attempt fails with
// Failure.Throttled, which is never retried. After a failed attempt the policy retries an
// overload reply, a network error or a dispatch failure, at once (the chapter gives no
// backoff), as long as the operation has made fewer than MaxAttempts attempts ("per-request
// retry budget of up to three attempts") and retries / requests over the window is below
// RetryBudget ("per-client retry budget … below 10%"); otherwise it gives up with MaxRetries or
// Budget. Under a deadline it does not retry once the deadline has passed. When it gives up the
// application receives the latest failure as it came (a local rejection included). Requests and
// retries are counted in Admit: the driver must ask the Gate before every attempt, or nothing is
// counted and no retry is ever allowed.
//
// Steady state of the throttle. If the backend can accept at most a fraction a of the client's
// demand (accepts ≈ a·requests once the client sends more than that), the rejection probability
// tends to max(0, 1 − K·a): the client sends K·a of its requests, of which half are accepted at
// K = 2. If instead the backend accepts each attempt it receives with a fixed probability a,
// whatever the load, the throttle feeds on itself: with a fraction q of the R requests of a
// window sent, accepts = a·q·R, and the fixed point of q = 1 − (R − K·a·q·R)/(R + 1) is
//
//	q = 1 / (1 + R·(1 − K·a))  when K·a < 1,  q = 1 when K·a ≥ 1,
//
// so below K·a = 1 the client sends about 1/(1 − K·a) attempts per window and rejects nearly
// everything else: rejected requests count in requests, accepted ones only among those sent.

// SREOptions are the sre-throttle policy's options. SetDefaults gives the chapter's values.
type SREOptions struct {
	// K is the throttle's multiplier: the client sends up to K attempts per accepted one before
	// it throttles. A finite number ≥ 1 (below 1 a client would throttle a backend that accepts
	// everything). Default 2; the chapter suggests 1.1 where rejections cost as much as work.
	K float64 `yaml:"k"`
	// Window is the span over which requests, accepts and retries are counted: > 0. Default
	// 2 min. It is kept as 120 slices of Window/120: an event counts for between 119/120 and all
	// of Window after it happened.
	Window time.Duration `yaml:"window"`
	// MaxAttempts is the per-request retry budget: the most attempts per operation, the first
	// included, ≥ 1. Default 3.
	MaxAttempts int `yaml:"maxAttempts"`
	// RetryBudget is the per-client retry budget: a retry is allowed only while retries /
	// requests over the window is below it. In [0, 1]; 0 never retries. Default 0.1.
	RetryBudget float64 `yaml:"retryBudget"`
}

// SetDefaults sets the chapter's values: K 2, a 2-minute window, 3 attempts, retries below 10 %
// of requests.
func (s *SREOptions) SetDefaults() {
	*s = SREOptions{K: 2, Window: 2 * time.Minute, MaxAttempts: 3, RetryBudget: 0.1}
}

func (s *SREOptions) validate(_ string, bad func(name, value, rule string)) {
	if !(s.K >= 1) || !finite(s.K) {
		bad("k", formatFloat(s.K), "must be a finite number ≥ 1 (below 1 the client throttles a backend that accepts everything)")
	}
	if s.Window <= 0 {
		bad("window", s.Window.String(), "must be > 0")
	}
	if s.MaxAttempts < 1 {
		bad("maxAttempts", strconv.Itoa(s.MaxAttempts), "must be ≥ 1 (the first attempt included)")
	}
	if !(s.RetryBudget >= 0 && s.RetryBudget <= 1) {
		bad("retryBudget", formatFloat(s.RetryBudget), "must be in [0, 1] (a share of requests)")
	}
}

// sreSlices is the number of slices of the throttle's window.
const sreSlices = 120

// Counters of the throttle's window.
const (
	sreRequests = iota
	sreAccepts
	sreRetries
)

// sre is the sre-throttle policy. Per-client state: the window's counts.
type sre struct {
	o      SREOptions
	counts slidingCounts
	seen   sim.Time // the latest time the policy was told, for clientState
}

func newSRE(o Options) Policy {
	s := own[SREOptions](o)
	return &sre{o: s, counts: newSlidingCounts(s.Window, sreSlices)}
}

func (p *sre) Name() string { return NameSRE }

// Begin starts an operation.
func (p *sre) Begin(st *State, c Class, now, deadline sim.Time) {
	p.seen = max(p.seen, now)
	st.beginOther(c, deadline, p.o.MaxAttempts-1)
}

// Admit counts the attempt in requests (and in retries if it is one) and rejects it with the
// throttle's probability.
func (p *sre) Admit(st *State, now sim.Time, j Jitter) Admission {
	p.seen = max(p.seen, now)
	pr := p.rejectProbability(now)
	p.counts.add(now, sreRequests, 1)
	if st.retries > 0 {
		p.counts.add(now, sreRetries, 1)
	}
	if pr > 0 && drawJitter(j) < pr {
		return Admission{Reject: true}
	}
	return Admission{}
}

// rejectProbability is the throttle's rejection probability at now, from the window's counts:
// max(0, (requests − K·accepts) / (requests + 1)).
func (p *sre) rejectProbability(now sim.Time) float64 {
	req := float64(p.counts.sum(now, sreRequests))
	acc := float64(p.counts.sum(now, sreAccepts))
	return math.Max(0, (req-float64(p.o.K*acc))/(req+1))
}

// Succeeded counts an accept.
func (p *sre) Succeeded(_ *State, now sim.Time) {
	p.seen = max(p.seen, now)
	p.counts.add(now, sreAccepts, 1)
}

// Failed counts a server error reply as an accept and decides on a retry (see the comment at the
// top of this file).
func (p *sre) Failed(st *State, f Failure, now sim.Time, _ Jitter) Decision {
	p.seen = max(p.seen, now)
	st.keepLatest(f)
	switch Kind(f) {
	case KindServer:
		p.counts.add(now, sreAccepts, 1)
		return st.stop(NotRetryable)
	case KindThrottled:
		return st.stop(NotRetryable)
	case KindOverload:
		st.overload = true
	}
	if why := st.countRetry(now); why != Continue {
		return st.stop(why)
	}
	req, ret := p.counts.sum(now, sreRequests), p.counts.sum(now, sreRetries)
	if !(float64(ret) < p.o.RetryBudget*float64(req)) {
		return st.stop(Budget)
	}
	return st.grant(Decision{})
}

// failureClass says whether the backend accepted the attempt and whether it is retried, for
// transcripts.
func (p *sre) failureClass(f Failure) string {
	switch Kind(f) {
	case KindServer:
		return "accepted; not retryable"
	case KindThrottled:
		return "not sent; not retryable"
	}
	return "not accepted; retryable"
}

// clientState describes the window's counts at the latest time the policy was told, and the
// probability with which the next attempt would be rejected, for transcripts.
func (p *sre) clientState() string {
	now := p.seen
	return "window: requests=" + strconv.FormatInt(p.counts.sum(now, sreRequests), 10) +
		" accepts=" + strconv.FormatInt(p.counts.sum(now, sreAccepts), 10) +
		" retries=" + strconv.FormatInt(p.counts.sum(now, sreRetries), 10) +
		" reject-next=" + strconv.FormatFloat(p.rejectProbability(now), 'g', 4, 64)
}

// ThrottleCounts returns the sre-throttle policy's counts over its window at now: requests,
// accepts and retries; ok is false when p is not that policy.
func ThrottleCounts(p Policy, now sim.Time) (requests, accepts, retries int64, ok bool) {
	s, isSRE := p.(*sre)
	if !isSRE {
		return 0, 0, 0, false
	}
	return s.counts.sum(now, sreRequests), s.counts.sum(now, sreAccepts), s.counts.sum(now, sreRetries), true
}

// slidingCounts counts events of up to three kinds over a sliding window of virtual time: a
// ring of n slices of width window/n, the window being the current slice and the n−1 before it,
// so an event counts for between (n−1)/n of the window and all of it after it happened. Totals
// are running sums: adding or reading is O(1), and moving on to a later slice clears at most n
// slices (once per slice, so O(1) per event amortized). Nothing allocates after construction.
type slidingCounts struct {
	width  time.Duration
	slices [][3]int64
	cur    int64 // the current slice's number: time / width
	total  [3]int64
}

func newSlidingCounts(window time.Duration, n int) slidingCounts {
	return slidingCounts{width: max(window/time.Duration(n), 1), slices: make([][3]int64, n)}
}

// advance moves the window to now, clearing the slices that left it.
func (w *slidingCounts) advance(now sim.Time) {
	s := int64(now) / int64(w.width)
	if s <= w.cur {
		return
	}
	n := int64(len(w.slices))
	if s-w.cur >= n {
		clear(w.slices)
		w.total = [3]int64{}
	} else {
		for k := w.cur + 1; k <= s; k++ {
			sl := &w.slices[k%n]
			for i := range sl {
				w.total[i] -= sl[i]
			}
			*sl = [3]int64{}
		}
	}
	w.cur = s
}

// add counts v events of kind i at now.
func (w *slidingCounts) add(now sim.Time, i int, v int64) {
	w.advance(now)
	w.slices[w.cur%int64(len(w.slices))][i] += v
	w.total[i] += v
}

// sum returns the events of kind i in the window at now.
func (w *slidingCounts) sum(now sim.Time, i int) int64 {
	w.advance(now)
	return w.total[i]
}

// reset forgets every event.
func (w *slidingCounts) reset() {
	clear(w.slices)
	w.total = [3]int64{}
}
