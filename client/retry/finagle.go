package retry

import (
	"math"
	"strconv"
	"time"

	"github.com/overloadsim/overloadsim/sim"
)

// The finagle policy is a Finagle client's Retries module (twitter/finagle at 4feb34cb, 2024-10,
// finagle-core/src/main/scala/com/twitter/finagle/: service/Retries.scala,
// service/RequeueFilter.scala, service/RetryFilter.scala, service/RetryPolicy.scala,
// service/ResponseClassifier.scala, client/MethodBuilder.scala, client/MethodBuilderRetry.scala)
// in one of two configurations (FinagleOptions.Stack), each with one RetryBudget per client
// (service/RetryBudget.scala):
//
//   - client (the default: what StackClient ships, Retries.moduleRequeueable): a RequeueFilter
//     alone. It deposits in the budget only when a request ends with a response the classifier
//     calls successful (RequeueFilter.apply's respond, since "Retry budgets: only deposit on
//     success", f3a7326e, 2020-08), and retries nothing but requeues.
//   - methodBuilder (MethodBuilder with its retries on): a RetryFilter above the stack's
//     RequeueFilter. The RetryFilter deposits when each request begins (RetryFilter.apply), and
//     the stack's filter only withdraws (MethodBuilder.materialize wraps the budget in a
//     WithdrawOnlyRetryBudget, "Deposit budget once in MethodBuilder", 82e2b839, 2023-11). The
//     retry policy is RetryPolicy.tries(maxRetries + 1) over the method's ResponseClassifier:
//     ResponseClassifier.Default (FinagleOptions.Classifier "default") calls a timeout or a
//     closed channel a NonRetryableFailure, so it retries nothing the RequeueFilter does not;
//     "retryOnTimeoutAndChannelClosed" (ResponseClassifier.RetryOnTimeout orElse
//     RetryOnChannelClosed) retries network errors.
//
// The budget (RetryBudget.apply, on twitter/util's TokenBucket.newLeakyBucket and
// WindowedAdder, util-core/src/main/scala/com/twitter/util/{TokenBucket,WindowedAdder}.scala)
// is an integer token bucket scaled by 1000. Each deposit is 1000 tokens (0 when
// PercentCanRetry is 0): one per successful operation when it ends (client), one per operation
// when it begins (methodBuilder); each retry withdraws
// floor(1000 / PercentCanRetry) tokens (1 when PercentCanRetry is 0) if the balance holds them.
// Deposits and withdrawals go into a windowed adder over TTL kept in 10 slices (the current one
// and 9 past ones of TTL/10), so they expire after between 0.9 and 1.0 × TTL; the balance is the
// adder's sum plus a reserve of MinRetriesPerSec × TTL in whole seconds × the withdrawal. With
// the defaults (TTL 10 s, 10 retries/s, 20 %) a retry costs 5000 tokens and the reserve is
// 500 000: retries over any window ≤ 0.2 × requests + 100, i.e. about 0.2 × the request rate +
// 10 per second. With both MinRetriesPerSec and PercentCanRetry 0 the budget is
// RetryBudget.Empty: nothing is ever retried.
//
// What is retried:
//
//   - Requeues (RequeueFilter): a failure Finagle knows to be safe to retry because the request
//     was never processed, that is a dispatch failure (never written: Finagle's
//     WriteException) or an overload reply (the server's NACK, a Retryable Failure). Requeued at
//     once (the default requeue backoff, Retries.Budget's, is zero), each paying the budget,
//     and at most ceil(0.2 × balance in retries) times per application attempt (the filter's
//     MaxRequeuesPerReq, computed when the attempt enters it). A dispatch failure for want of
//     any usable node (Failure.NoNode) is not requeued: the filter requeues only while the
//     client stack's status is Open.
//   - Application retries (RetryFilter with RetryPolicy.tries(Tries, …)): a network error (the
//     connection closed or timed out with the request written: TimeoutAndWriteExceptionsOnly,
//     ChannelClosedExceptionsOnly), up to Tries − 1 times per operation, each paying the
//     budget, after the retry policy's backoff: Backoff.decorrelatedJittered(BackoffStart,
//     BackoffMax) (finagle-core/src/main/scala/com/twitter/finagle/Backoff.scala): the first
//     retry waits BackoffStart, each later one a draw from [prev, min(3·prev, BackoffMax)).
//     MethodBuilder's default is 2 retries (DefaultMaxRetries), so Tries defaults to 3, with
//     RetryPolicy.tries' 5 ms and 200 ms. Requeueable failures never reach the retry policy
//     (MethodBuilder filters them out), so requeues do not count against Tries.
//   - Nothing else: other server error replies are application failures the default response
//     classifier does not retry, and are not successes, so they deposit nothing.
//
// A refusal for the requeue limit or Tries gives up with MaxRetries, one for want of tokens
// with Budget. Under a deadline (Finagle's total timeout) a retry is refused once the deadline
// has passed, or when its backoff would end past it, before it pays the budget. The application
// receives the latest failure as it came.
//
// In State, Attempt() counts the application retries (RetryPolicy's), Retries() every retry,
// and the allowed_retries field the requeues left to the current application attempt.
//
// Departures. The model's server error reply is taken to be a failed response (a Throw, as Mux's
// ServerApplicationError is): under ResponseClassifier.Default a protocol whose error replies are
// values (an HTTP 500, a Thrift exception) would call them successful and deposit. The requeue
// limit of a retried attempt is computed when the retry is granted, not when its backoff ends. Time is virtual nanoseconds, so the adder's slices are TTL/10 exactly
// rather than whole milliseconds. The reserve is computed in 64 bits where Finagle's Int product
// could overflow for extreme settings. The backoff is the current Backoff class's
// DecorrelatedJittered, whose draws never fall below the previous delay ([prev, 3·prev)); the
// older Stream-based Backoff.decorrelatedJittered drew from [start, 3·prev), as the AWS
// Architecture Blog's decorrelated jitter does.

// Constants of Finagle's budget and filters.
const (
	// finagleScale is TokenRetryBudget.ScaleFactor: tokens per request deposited.
	finagleScale = 1000
	// finagleSlices is the slices of the leaky bucket's WindowedAdder.
	finagleSlices = 10
	// finagleMaxRequeuesPerReq is Retries.MaxRequeuesPerReq: the share of the budget's balance
	// one request may requeue.
	finagleMaxRequeuesPerReq = 0.2
)

// The configurations of FinagleOptions.Stack and the classifiers of FinagleOptions.Classifier.
const (
	// FinagleStackClient is StackClient's stack as it ships: Retries.moduleRequeueable.
	FinagleStackClient = "client"
	// FinagleStackMethodBuilder is MethodBuilder with retries: a RetryFilter above the stack.
	FinagleStackMethodBuilder = "methodBuilder"
	// FinagleClassifierDefault is ResponseClassifier.Default, MethodBuilder's default.
	FinagleClassifierDefault = "default"
	// FinagleClassifierNetwork is ResponseClassifier.RetryOnTimeout orElse RetryOnChannelClosed.
	FinagleClassifierNetwork = "retryOnTimeoutAndChannelClosed"
)

// FinagleOptions are the finagle policy's options: the client's configuration, the RetryBudget,
// and the retry filter's classifier, tries and backoff. SetDefaults gives the stock client,
// RetryBudget(), and MethodBuilder's retry policy.
type FinagleOptions struct {
	// Stack is the client's configuration: FinagleStackClient ("client", the default: the stock
	// client, which deposits on success and only requeues) or FinagleStackMethodBuilder
	// ("methodBuilder": a retry filter, which deposits as each request begins).
	Stack string `yaml:"stack"`
	// Classifier is the methodBuilder retry filter's ResponseClassifier: "default"
	// (ResponseClassifier.Default, which retries no network error) or
	// "retryOnTimeoutAndChannelClosed". It must stay "default" with the client stack.
	Classifier string `yaml:"classifier"`
	// TTL is how long deposits and withdrawals stay in the budget: in [1 s, 60 s] (RetryBudget's
	// bounds). The reserve counts it in whole seconds, as Finagle's Duration.inSeconds does.
	// Default 10 s.
	TTL time.Duration `yaml:"ttl"`
	// MinRetriesPerSec is the retries per second the reserve always allows: ≥ 0. Default 10.
	MinRetriesPerSec int `yaml:"minRetriesPerSec"`
	// PercentCanRetry is the retries allowed per request, as a fraction (0.2 is one retry per
	// five requests; 2 is two per request): in [0, 1000]. Default 0.2.
	PercentCanRetry float64 `yaml:"percentCanRetry"`
	// Tries is RetryPolicy.tries' numTries: the most attempts the retry filter makes for network
	// errors, the first included; ≥ 1. Default 3 (MethodBuilder's 2 retries). Tries and the
	// backoffs apply only when the classifier retries network errors.
	Tries int `yaml:"tries"`
	// BackoffStart is the retry filter's first backoff and the decorrelated jitter's lower
	// bound: > 0. Default 5 ms (RetryPolicy.tries).
	BackoffStart time.Duration `yaml:"backoffStart"`
	// BackoffMax caps the retry filter's backoff: ≥ BackoffStart. Default 200 ms
	// (RetryPolicy.tries).
	BackoffMax time.Duration `yaml:"backoffMax"`
}

// SetDefaults sets the stock client, RetryBudget()'s defaults and MethodBuilder's retry policy:
// stack client, classifier default, TTL 10 s, 10 retries/s, 20 %, 3 tries with backoff from 5 ms
// to 200 ms.
func (f *FinagleOptions) SetDefaults() {
	*f = FinagleOptions{Stack: FinagleStackClient, Classifier: FinagleClassifierDefault,
		TTL: 10 * time.Second, MinRetriesPerSec: 10, PercentCanRetry: 0.2,
		Tries: 3, BackoffStart: 5 * time.Millisecond, BackoffMax: 200 * time.Millisecond}
}

// methodBuilder reports whether the options are MethodBuilder's configuration.
func (f *FinagleOptions) methodBuilder() bool { return f.Stack == FinagleStackMethodBuilder }

// retriesNetwork reports whether the retry filter retries network errors.
func (f *FinagleOptions) retriesNetwork() bool {
	return f.methodBuilder() && f.Classifier == FinagleClassifierNetwork
}

func (f *FinagleOptions) validate(_ string, bad func(name, value, rule string)) {
	switch f.Stack {
	case FinagleStackClient, FinagleStackMethodBuilder:
	default:
		bad("stack", strconv.Quote(f.Stack), "must be "+FinagleStackClient+" (the stock client) or "+FinagleStackMethodBuilder)
	}
	switch f.Classifier {
	case FinagleClassifierDefault:
	case FinagleClassifierNetwork:
		if f.Stack == FinagleStackClient {
			bad("classifier", f.Classifier, "applies only with stack "+FinagleStackMethodBuilder+" (the stock client has no retry filter)")
		}
	default:
		bad("classifier", strconv.Quote(f.Classifier), "must be "+FinagleClassifierDefault+" or "+FinagleClassifierNetwork)
	}
	if f.TTL < time.Second || f.TTL > time.Minute {
		bad("ttl", f.TTL.String(), "must be in [1s, 60s] (RetryBudget's bounds)")
	}
	if f.MinRetriesPerSec < 0 {
		bad("minRetriesPerSec", strconv.Itoa(f.MinRetriesPerSec), "must be ≥ 0")
	}
	if !(f.PercentCanRetry >= 0 && f.PercentCanRetry <= finagleScale) {
		bad("percentCanRetry", formatFloat(f.PercentCanRetry), "must be in [0, 1000]")
	}
	if !f.retriesNetwork() {
		var d FinagleOptions
		d.SetDefaults()
		for _, o := range []struct {
			name   string
			v, def string
		}{
			{"tries", strconv.Itoa(f.Tries), strconv.Itoa(d.Tries)},
			{"backoffStart", f.BackoffStart.String(), d.BackoffStart.String()},
			{"backoffMax", f.BackoffMax.String(), d.BackoffMax.String()},
		} {
			if o.v != o.def {
				bad(o.name, o.v, "applies only with stack "+FinagleStackMethodBuilder+" and classifier "+
					FinagleClassifierNetwork+" (nothing else reaches the retry policy); leave it at "+o.def)
			}
		}
		return
	}
	if f.Tries < 1 {
		bad("tries", strconv.Itoa(f.Tries), "must be ≥ 1 (the first attempt included)")
	}
	if f.BackoffStart <= 0 {
		bad("backoffStart", f.BackoffStart.String(), "must be > 0")
	}
	switch {
	case f.BackoffMax <= 0:
		bad("backoffMax", f.BackoffMax.String(), "must be > 0")
	case f.BackoffMax < f.BackoffStart:
		bad("backoffMax", f.BackoffMax.String(), "must be ≥ backoffStart ("+f.BackoffStart.String()+")")
	}
}

// finagleBudget is RetryBudget(ttl, minRetriesPerSec, percentCanRetry) on virtual time: a
// TokenRetryBudget over a leaky TokenBucket over a WindowedAdder.
type finagleBudget struct {
	empty    bool  // RetryBudget.Empty: never allows a retry
	deposit  int64 // tokens per request
	withdraw int64 // tokens per retry
	reserve  int64 // tokens always available on top of the adder's sum

	// The WindowedAdder: writer collects the current slice, buf the past ones, i is the slice
	// the next expiry writes, old when the slices last moved.
	window time.Duration
	writer int64
	buf    [finagleSlices - 1]int64
	i      int
	old    sim.Time
}

func newFinagleBudget(o FinagleOptions) finagleBudget {
	if o.MinRetriesPerSec == 0 && o.PercentCanRetry == 0 {
		return finagleBudget{empty: true}
	}
	b := finagleBudget{deposit: finagleScale, withdraw: 1, window: o.TTL / finagleSlices}
	if o.PercentCanRetry == 0 {
		b.deposit = 0 // all credit comes from the reserve
	} else {
		// Scala's Double.toInt truncates and saturates at Int.MaxValue.
		b.withdraw = int64(min(math.Floor(finagleScale/o.PercentCanRetry), math.MaxInt32))
	}
	b.reserve = int64(o.MinRetriesPerSec) * int64(o.TTL/time.Second) * b.withdraw
	return b
}

// expire moves the adder's slices on to now: the current slice becomes a past one, and slices
// skipped while nothing happened are cleared (WindowedAdder.expired).
func (b *finagleBudget) expire(now sim.Time) {
	n := len(b.buf)
	b.buf[b.i] = b.writer
	b.writer = 0
	b.i = (b.i + 1) % n
	if skip := min(int64(now.Sub(b.old)/b.window)-1, int64(n)); skip > 0 {
		for k := range int(skip) {
			b.buf[(b.i+k)%n] = 0
		}
		b.i = (b.i + int(skip)) % n
	}
	b.old = now
}

// add adds x tokens at now (WindowedAdder.add).
func (b *finagleBudget) add(now sim.Time, x int64) {
	if now.Sub(b.old) >= b.window {
		b.expire(now)
	}
	b.writer += x
}

// count is the tokens available at now: the adder's sum plus the reserve.
func (b *finagleBudget) count(now sim.Time) int64 {
	if now.Sub(b.old) >= b.window {
		b.expire(now)
	}
	s := b.writer + b.reserve
	for _, v := range b.buf {
		s += v
	}
	return s
}

// depositAt is RetryBudget.deposit.
func (b *finagleBudget) depositAt(now sim.Time) {
	if !b.empty {
		b.add(now, b.deposit)
	}
}

// tryWithdraw is RetryBudget.tryWithdraw: it takes a retry's tokens if the count holds them.
func (b *finagleBudget) tryWithdraw(now sim.Time) bool {
	if b.empty || b.count(now) < b.withdraw {
		return false
	}
	b.add(now, -b.withdraw)
	return true
}

// balance is RetryBudget.balance: the retries the count allows now.
func (b *finagleBudget) balance(now sim.Time) int64 {
	if b.empty {
		return 0
	}
	return b.count(now) / b.withdraw
}

// finagle is the finagle policy (see the comment at the top of this file).
type finagle struct {
	o      FinagleOptions
	budget finagleBudget
	seen   sim.Time // the latest time the policy was told, for clientState
}

func newFinagle(o Options) Policy {
	f := own[FinagleOptions](o)
	return &finagle{o: f, budget: newFinagleBudget(f)}
}

func (p *finagle) Name() string { return NameFinagle }

// Begin gives the operation's first attempt its requeue limit; under MethodBuilder the retry
// filter first deposits the operation's tokens.
func (p *finagle) Begin(st *State, c Class, now, deadline sim.Time) {
	p.seen = max(p.seen, now)
	st.beginOther(c, deadline, 0)
	if p.o.methodBuilder() {
		p.budget.depositAt(now)
	}
	st.allowed = p.requeueLimit(now)
}

// requeueLimit is RequeueFilter's maxRetries for an attempt entering it at now:
// ceil(MaxRequeuesPerReq × balance), never below 0.
func (p *finagle) requeueLimit(now sim.Time) int {
	return max(0, int(math.Ceil(finagleMaxRequeuesPerReq*float64(p.budget.balance(now)))))
}

// Succeeded credits the budget in the stock client, whose RequeueFilter deposits only after a
// successful response; under MethodBuilder the operation's deposit was made when it began.
func (p *finagle) Succeeded(_ *State, now sim.Time) {
	p.seen = max(p.seen, now)
	if !p.o.methodBuilder() {
		p.budget.depositAt(now)
	}
}

// Failed requeues a never-processed failure, retries a network error under the retry policy,
// and gives up on anything else.
func (p *finagle) Failed(st *State, f Failure, now sim.Time, j Jitter) Decision {
	p.seen = max(p.seen, now)
	st.keepLatest(f)
	switch Kind(f) {
	case KindOverload:
		st.overload = true
		return p.requeue(st, now)
	case KindDispatch:
		if f.NoNode {
			return st.stop(NotRetryable)
		}
		return p.requeue(st, now)
	case KindNetwork:
		if p.o.retriesNetwork() {
			return p.retry(st, now, j)
		}
	}
	return st.stop(NotRetryable)
}

// requeue is RequeueFilter's decision: within the attempt's requeue limit, with the budget's
// tokens, at once.
func (p *finagle) requeue(st *State, now sim.Time) Decision {
	if st.allowed <= 0 {
		return st.stop(MaxRetries)
	}
	if st.expired(now) {
		return st.stop(Deadline)
	}
	if !p.budget.tryWithdraw(now) {
		return st.stop(Budget)
	}
	st.allowed--
	return st.grant(Decision{})
}

// retry is RetryFilter's decision under RetryPolicy.tries: within Tries, after the decorrelated
// backoff, with the budget's tokens. The retried attempt gets a fresh requeue limit.
func (p *finagle) retry(st *State, now sim.Time, j Jitter) Decision {
	if st.attempt >= p.o.Tries-1 {
		return st.stop(MaxRetries)
	}
	if st.expired(now) {
		return st.stop(Deadline)
	}
	d := p.backoff(st.last, j)
	if st.pastDeadline(now, d) {
		return st.stop(Deadline)
	}
	if !p.budget.tryWithdraw(now) {
		return st.stop(Budget)
	}
	st.attempt++
	st.last = d
	st.allowed = p.requeueLimit(now)
	return st.grant(Decision{Backoff: d})
}

// backoff is Backoff.decorrelatedJittered(BackoffStart, BackoffMax) after the retry policy's
// previous backoff prev (0 before its first retry): BackoffStart first, drawing nothing; then
// prev + a draw from [0, upper − prev), upper = min(3·prev, BackoffMax), or prev when that range
// is empty.
func (p *finagle) backoff(prev time.Duration, j Jitter) time.Duration {
	if prev == 0 {
		return p.o.BackoffStart
	}
	upper := p.o.BackoffMax
	if prev < p.o.BackoffMax/3 {
		upper = 3 * prev
	}
	span := upper - prev
	if span <= 0 {
		return prev
	}
	return prev + min(time.Duration(drawJitter(j)*float64(span)), span-1)
}

// failureClass names what Finagle makes of f, for transcripts.
func (p *finagle) failureClass(f Failure) string {
	switch Kind(f) {
	case KindOverload:
		return "NACK: requeueable"
	case KindDispatch:
		if f.NoNode {
			return "no usable node: not requeueable"
		}
		return "never written: requeueable"
	case KindNetwork:
		switch {
		case p.o.retriesNetwork():
			return "written, no reply: retry policy"
		case p.o.methodBuilder():
			return "written, no reply: ResponseClassifier.Default does not retry it"
		}
		return "written, no reply: the stock client does not retry it"
	}
	return "not retried"
}

// clientState describes the budget at the latest time the policy was told, for transcripts.
func (p *finagle) clientState() string {
	if p.budget.empty {
		return "budget=empty"
	}
	return "budget=" + strconv.FormatInt(p.budget.balance(p.seen), 10) + " retries (" +
		strconv.FormatInt(p.budget.count(p.seen), 10) + " tokens, " + strconv.FormatInt(p.budget.withdraw, 10) + " per retry)"
}

// FinagleBalance returns the finagle policy's retry budget balance at now: the retries it
// would allow (RetryBudget.balance); ok is false when p is not that policy.
func FinagleBalance(p Policy, now sim.Time) (retries int64, ok bool) {
	f, isFinagle := p.(*finagle)
	if !isFinagle {
		return 0, false
	}
	return f.budget.balance(now), true
}
