package retry

import (
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
)

// constJitter is a Jitter that always returns the same value: 0 (no backoff) or near 1 (the full
// backoff), as the spec's prose tests pin it.
type constJitter float64

func (c constJitter) Float64() float64 { return float64(c) }

// nearOne is "jitter as close as possible to 1" (prose test 1; the spec allows [0, 1)).
const nearOne = constJitter(1 - 1.0/(1<<53))

// Operation classes of the model, as the specs classify them.
var (
	find         = Class{RetryableRead: true, Cursor: true}
	insert       = Class{Write: true, RetryableWrite: true}
	getMore      = Class{}
	runCommand   = Class{RunCommand: true}
	updateMany   = Class{Write: true}
	aggregateOut = Class{Write: true, Cursor: true}
	txnInsert    = Class{Write: true, RetryableWrite: true, InTransaction: true}
	txnFind      = Class{RetryableRead: true, InTransaction: true}
)

// Labels the failpoints of the spec tests attach.
const (
	overloadLabels = wire.SystemOverloadedError | wire.RetryableError
	// rejectLabels are the ingress request rate limiter's (docs/model.md §5.4).
	rejectLabels = overloadLabels | wire.NoWritesPerformed
)

// Failures the spec tests inject.
var (
	// specOverload is the backpressure tests' failpoint: errorCode 2 with both labels.
	specOverload = Failure{Code: wire.BadValue, Labels: overloadLabels}
	// rejected is a request rate limiter rejection: 462 with its three labels.
	rejected = Failure{Code: wire.IngressRequestRateLimitExceeded, Labels: rejectLabels}
	netErr   = Failure{Network: true}
	cleared  = Failure{PoolCleared: true}
)

func code(c wire.Code, l wire.Labels) Failure { return Failure{Code: c, Labels: l} }

// script gives the outcome of attempt i (0-based): a failure, or ok for success. It plays the
// role of the failCommand failpoint.
type script func(i int) (f Failure, ok bool)

// times fails the first n attempts with f, then succeeds (failpoint mode {times: n}).
func times(n int, f Failure) script {
	return func(i int) (Failure, bool) { return f, i >= n }
}

// alwaysOn fails every attempt with f.
func alwaysOn(f Failure) script { return func(int) (Failure, bool) { return f, false } }

// then fails the first attempt with first and every later one with rest: the prose tests that
// reconfigure the failpoint from the first CommandFailedEvent.
func then(first, rest Failure) script {
	return func(i int) (Failure, bool) {
		if i == 0 {
			return first, false
		}
		return rest, false
	}
}

// env is how the harness runs an operation: its CSOT deadline, how long each attempt takes on
// the wire, and the jitter.
type env struct {
	deadline sim.Time      // sim.Never without CSOT
	attempt  time.Duration // duration of one attempt
	jitter   Jitter
}

// transcript is what an operation came to, as command monitoring would see it.
type transcript struct {
	attempts int             // commands started
	backoffs []time.Duration // one per granted retry, in order
	deprio   []bool          // one per granted retry
	ok       bool
	why      GiveUp
	err      Failure
	end      sim.Time // when the operation ended; it starts at t0 = 0
}

// backoffTotal is the time the operation slept.
func (tr transcript) backoffTotal() time.Duration {
	var s time.Duration
	for _, b := range tr.backoffs {
		s += b
	}
	return s
}

// run drives one operation of class c through p as a driver would: attempt, then Succeeded or
// Failed, sleep the backoff, attempt again.
func run(t *testing.T, p Policy, c Class, s script, e env) transcript {
	t.Helper()
	if e.deadline == 0 {
		e.deadline = sim.Never
	}
	if e.jitter == nil {
		e.jitter = constJitter(1)
	}
	var st State
	var tr transcript
	p.Begin(&st, c, 0, e.deadline)
	now := sim.Time(0)
	for i := 0; ; i++ {
		if i == 1000 {
			t.Fatalf("%s: no end after 1000 attempts", p.Name())
		}
		tr.attempts++
		now = now.Add(e.attempt)
		f, ok := s(i)
		if ok {
			p.Succeeded(&st, 0)
			tr.ok, tr.end = true, now
			return tr
		}
		d := p.Failed(&st, f, now, e.jitter)
		if !d.Retry {
			if d.Backoff != 0 || d.Deprioritize {
				t.Errorf("%s: a decision to give up carries backoff %v, deprioritize %v", p.Name(), d.Backoff, d.Deprioritize)
			}
			if d.Why == Continue {
				t.Errorf("%s: gave up with Why = Continue", p.Name())
			}
			if st.Retries() != tr.attempts-1 {
				t.Errorf("%s: Retries() = %d after %d attempts", p.Name(), st.Retries(), tr.attempts)
			}
			tr.why, tr.err, tr.end, tr.ok = d.Why, d.Err, now, d.Succeed
			return tr
		}
		if d.Why != Continue || d.Err != (Failure{}) {
			t.Errorf("%s: a retry carries Why %v, Err %v", p.Name(), d.Why, d.Err)
		}
		tr.backoffs = append(tr.backoffs, d.Backoff)
		tr.deprio = append(tr.deprio, d.Deprioritize)
		now = now.Add(d.Backoff)
	}
}

// opts returns DefaultOptions changed by mod.
func opts(mod func(*Options)) Options {
	o := DefaultOptions()
	if mod != nil {
		mod(&o)
	}
	return o
}

func mustNew(t *testing.T, name string, o Options) Policy {
	t.Helper()
	p, err := New(name, o)
	if err != nil {
		t.Fatalf("New(%q, %v) = %v", name, o, err)
	}
	return p
}

// revision is one Client Backpressure text with the counts its tests expect (docs/spec-coverage.md §3).
type revision struct {
	name       string
	maxRetries int             // MAX_RETRIES
	loopTimes  int             // backpressure-retry-loop's failpoint times
	ladder     []time.Duration // the backoff before each retry with jitter 1
}

var revisions = []revision{
	{NameMongoDB202603, 5, 3, ms(100, 200, 400, 800, 1600)},
	{NameMongoDB202607, 2, 2, ms(200, 400)},
}

func ms(v ...int) []time.Duration {
	out := make([]time.Duration, len(v))
	for i, x := range v {
		out[i] = time.Duration(x) * time.Millisecond
	}
	return out
}

// mongoNames returns the MongoDB driver policies the Client Backpressure, Retryable Reads and
// Retryable Writes tests apply to: the spec texts, legacy and none, not the release presets.
func mongoNames() []string {
	var out []string
	for _, n := range Names() {
		if MongoDBDriver(n) && !Release(n) { // the release presets' departures have tests of their own
			out = append(out, n)
		}
	}
	return out
}
