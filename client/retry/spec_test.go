package retry

import (
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
)

// This file replays the Client Backpressure, Retryable Reads and Retryable Writes tests
// (docs/spec-coverage.md §3 and §4) at policy level: a script plays the failpoint, and the transcript counts what
// command monitoring would see.

// overloadClasses are the operation kinds the backpressure unified tests cover, reduced to the
// model's classes: a retryable read (find, aggregate, distinct, …), a retryable write (insertOne,
// updateOne, …), a write no retryable-writes rule covers (updateMany, aggregate with $out),
// getMore and runCommand.
var overloadClasses = []struct {
	name  string
	class Class
}{
	{"find", find}, {"insertOne", insert}, {"updateMany", updateMany},
	{"aggregate-$out", aggregateOut}, {"getMore", getMore}, {"runCommand", runCommand},
}

// TestRetryLoop checks backpressure-retry-loop "… retries using operation loop": the failpoint
// fails the command `times` times (3 at 2026-03, 2 at 2026-07) with code 2 and both overload
// labels, and the operation succeeds after times+1 started commands, each retry after a backoff.
func TestRetryLoop(t *testing.T) {
	for _, rev := range revisions {
		for _, oc := range overloadClasses {
			p := mustNew(t, rev.name, DefaultOptions())
			tr := run(t, p, oc.class, times(rev.loopTimes, specOverload), env{})
			if !tr.ok || tr.attempts != rev.loopTimes+1 || !slices.Equal(tr.backoffs, rev.ladder[:rev.loopTimes]) {
				t.Errorf("%s %s: ok=%v after %d started, backoffs %v; want success after %d, backoffs %v",
					rev.name, oc.name, tr.ok, tr.attempts, tr.backoffs, rev.loopTimes+1, rev.ladder[:rev.loopTimes])
			}
		}
	}
	// The 2026-03 failpoint (times 3) exhausts 2026-07's two retries: 3 started, all failed.
	tr := run(t, mustNew(t, NameMongoDB202607, DefaultOptions()), find, times(3, specOverload), env{})
	if tr.ok || tr.attempts != 3 || tr.why != MaxRetries {
		t.Errorf("2026-07, times 3: ok=%v after %d started (%v); want failure after 3 (MaxRetries)", tr.ok, tr.attempts, tr.why)
	}
}

// TestRetryLoopOptionsOff checks backpressure-retry-loop "… does not retry if retryReads=false"
// and "… retryWrites=false" (added in 5711e4b7) and Client Backpressure rule 2.4: with the option
// off, times 1 gives exactly one started and one failed command, and the server's error
// propagates. runCommand needs both options; a read ignores retryWrites and a write retryReads.
func TestRetryLoopOptionsOff(t *testing.T) {
	noReads := func(o *Options) { o.RetryReads = false }
	noWrites := func(o *Options) { o.RetryWrites = false }
	tests := []struct {
		gloss    string
		class    Class
		mod      func(*Options)
		attempts int
	}{
		// Sad paths: the option the class needs is off.
		{"find, retryReads=false", find, noReads, 1},
		{"getMore, retryReads=false", getMore, noReads, 1},
		{"runCommand, retryReads=false", runCommand, noReads, 1},
		{"insertOne, retryWrites=false", insert, noWrites, 1},
		{"updateMany, retryWrites=false", updateMany, noWrites, 1},
		{"aggregate $out, retryWrites=false (a write)", aggregateOut, noWrites, 1},
		{"runCommand, retryWrites=false", runCommand, noWrites, 1},
		// Happy paths: the other option does not matter.
		{"find, retryWrites=false", find, noWrites, 2},
		{"getMore, retryWrites=false", getMore, noWrites, 2},
		{"insertOne, retryReads=false", insert, noReads, 2},
		{"aggregate $out, retryReads=false", aggregateOut, noReads, 2},
		{"runCommand, both on", runCommand, nil, 2},
	}
	for _, rev := range revisions {
		for _, tc := range tests {
			tr := run(t, mustNew(t, rev.name, opts(tc.mod)), tc.class, times(1, specOverload), env{})
			if tr.attempts != tc.attempts {
				t.Errorf("%s, %s: %d started, want %d", rev.name, tc.gloss, tr.attempts, tc.attempts)
			}
			if tc.attempts == 1 && (tr.ok || tr.why != Ineligible || tr.err != specOverload) {
				t.Errorf("%s, %s: ok=%v why=%v err=%v; want the server error %v to propagate (Ineligible)",
					rev.name, tc.gloss, tr.ok, tr.why, tr.err, specOverload)
			}
		}
	}
}

// TestMaxAttempts checks backpressure-retry-max-attempts "… retries at most maxAttempts=N times":
// alwaysOn ⇒ 1 + MAX_RETRIES started and failed commands (6 at 2026-03, 3 at 2026-07), the
// server's error propagating. backpressure-connection-checkin expects as many checkout/checkin
// pairs, one per attempt. A pre-backpressure driver and none make one attempt.
func TestMaxAttempts(t *testing.T) {
	want := map[string]struct {
		attempts int
		why      GiveUp
	}{
		NameMongoDB202603: {6, MaxRetries},
		NameMongoDB202607: {3, MaxRetries},
		NameLegacy:        {1, NotRetryable}, // code 2 is no retryable read code, no RetryableWriteError
		NameNone:          {1, Disabled},
	}
	for _, name := range mongoNames() {
		for _, oc := range overloadClasses {
			tr := run(t, mustNew(t, name, DefaultOptions()), oc.class, alwaysOn(specOverload), env{})
			w := want[name]
			if tr.ok || tr.attempts != w.attempts || tr.why != w.why || tr.err != specOverload {
				t.Errorf("%s %s: ok=%v, %d started, %v, err %v; want failure after %d (%v) with %v",
					name, oc.name, tr.ok, tr.attempts, tr.why, tr.err, w.attempts, w.why, specOverload)
			}
		}
	}
}

// TestGetMoreRetried checks getMore-retried: a getMore is no retryable read (Retryable Reads,
// "Unsupported Read Operations"), but overload errors are retried for every command: times N ⇒
// N+1 getMores; alwaysOn ⇒ 1 + MAX_RETRIES. A non-overload error that a find would retry is not
// retried on a getMore.
func TestGetMoreRetried(t *testing.T) {
	for _, rev := range revisions {
		p := mustNew(t, rev.name, DefaultOptions())
		if tr := run(t, p, getMore, times(rev.loopTimes, specOverload), env{}); !tr.ok || tr.attempts != rev.loopTimes+1 {
			t.Errorf("%s: times %d: ok=%v after %d getMores; want success after %d", rev.name, rev.loopTimes, tr.ok, tr.attempts, rev.loopTimes+1)
		}
		if tr := run(t, p, getMore, alwaysOn(specOverload), env{}); tr.attempts != rev.maxRetries+1 {
			t.Errorf("%s: alwaysOn: %d getMores, want %d", rev.name, tr.attempts, rev.maxRetries+1)
		}
		for _, f := range []Failure{code(wire.ShutdownInProgress, 0), netErr, cleared,
			code(wire.ShutdownInProgress, wire.RetryableError), code(wire.ShutdownInProgress, wire.SystemOverloadedError)} {
			if tr := run(t, p, getMore, alwaysOn(f), env{}); tr.attempts != 1 || tr.why != NotRetryable {
				t.Errorf("%s: getMore failing with %v: %d started (%v); want 1 (NotRetryable)", rev.name, f, tr.attempts, tr.why)
			}
			// The same error on a find is a retryable read: one retry, or MAX_RETRIES if the
			// error carries SystemOverloadedError (pseudocode: allowed_retries = MAX_RETRIES on
			// is_overload, whatever made the error retryable).
			want := 2
			if f.Overloaded() {
				want = rev.maxRetries + 1
			}
			if tr := run(t, p, find, alwaysOn(f), env{}); tr.attempts != want {
				t.Errorf("%s: find failing with %v: %d started; want %d", rev.name, f, tr.attempts, want)
			}
		}
	}
}

// TestTransactions checks transactions/tests/unified/backpressure-retryable-*: inside a
// transaction, overload errors (112 WriteConflict with both labels) are retried: one failure ⇒
// 2 started; alwaysOn ⇒ 1 + MAX_RETRIES. Retryable reads and writes stay off there (Retryable
// Reads 2a; Retryable Writes), so a non-overload retryable error is not retried.
func TestTransactions(t *testing.T) {
	wc := code(wire.WriteConflict, overloadLabels|wire.TransientTransactionError)
	for _, rev := range revisions {
		p := mustNew(t, rev.name, DefaultOptions())
		if tr := run(t, p, txnInsert, times(1, wc), env{}); !tr.ok || tr.attempts != 2 {
			t.Errorf("%s: times 1: ok=%v after %d; want success after 2", rev.name, tr.ok, tr.attempts)
		}
		if tr := run(t, p, txnInsert, alwaysOn(wc), env{}); tr.attempts != rev.maxRetries+1 {
			t.Errorf("%s: alwaysOn: %d started, want %d", rev.name, tr.attempts, rev.maxRetries+1)
		}
		if tr := run(t, p, txnInsert, alwaysOn(code(wire.NotWritablePrimary, wire.RetryableWriteError)), env{}); tr.attempts != 1 || tr.why != Ineligible {
			t.Errorf("%s: RetryableWriteError in a transaction: %d started (%v), want 1 (Ineligible)", rev.name, tr.attempts, tr.why)
		}
		if tr := run(t, p, txnFind, alwaysOn(code(wire.ShutdownInProgress, 0)), env{}); tr.attempts != 1 || tr.why != Ineligible {
			t.Errorf("%s: retryable read error in a transaction: %d started (%v), want 1 (Ineligible)", rev.name, tr.attempts, tr.why)
		}
	}
}

// TestProse1ExponentialBackoff checks Client Backpressure prose test 1: an insert failing
// alwaysOn (code 2, both labels), once with jitter 0 and once with jitter ≈ 1. 2026-03: the five
// backoffs are 0.1+0.2+0.4+0.8+1.6 = 3.1 s (the test demands ≥ 2.1 s more than with jitter 0);
// 2026-07: 0.2+0.4 = 0.6 s (|Δ − 0.6 s| < 0.6 s).
func TestProse1ExponentialBackoff(t *testing.T) {
	for _, rev := range revisions {
		p := mustNew(t, rev.name, DefaultOptions())
		zero := run(t, p, insert, alwaysOn(specOverload), env{jitter: constJitter(0)})
		if zero.backoffTotal() != 0 {
			t.Errorf("%s: jitter 0: backoffs %v, want all 0", rev.name, zero.backoffs)
		}
		full := run(t, p, insert, alwaysOn(specOverload), env{jitter: constJitter(1)})
		if !slices.Equal(full.backoffs, rev.ladder) {
			t.Errorf("%s: jitter 1: backoffs %v, want %v", rev.name, full.backoffs, rev.ladder)
		}
		var want time.Duration
		for _, b := range rev.ladder {
			want += b
		}
		// Jitter just below 1 truncates each backoff by at most 1 ns.
		near := run(t, p, insert, alwaysOn(specOverload), env{jitter: nearOne})
		if got := near.end.Sub(zero.end); got > want || got < want-time.Duration(len(rev.ladder)) {
			t.Errorf("%s: jitter ≈ 1 takes %v longer than jitter 0, want %v (within %d ns)", rev.name, got, want, len(rev.ladder))
		}
	}
}

// TestProse1Ladders pins the totals of prose test 1 and prose test 5 (2026-07): 3.1 s at
// 2026-03; 0.6 s at 2026-07; 0.3 s (0.1+0.2) at 2026-07 when the server attaches baseBackoffMS=50
// to its 462s, which the test bounds to [0.3 s, 0.6 s).
func TestProse1Ladders(t *testing.T) {
	with50 := rejected
	with50.BaseBackoffMS = 50
	tests := []struct {
		name string
		f    Failure
		want time.Duration
	}{
		{NameMongoDB202603, specOverload, 3100 * time.Millisecond},
		{NameMongoDB202603, with50, 3100 * time.Millisecond}, // 2026-03 has no baseBackoffMS
		{NameMongoDB202607, specOverload, 600 * time.Millisecond},
		{NameMongoDB202607, rejected, 600 * time.Millisecond},
		{NameMongoDB202607, with50, 300 * time.Millisecond},
	}
	for _, tc := range tests {
		tr := run(t, mustNew(t, tc.name, DefaultOptions()), insert, alwaysOn(tc.f), env{jitter: constJitter(1)})
		if got := tr.backoffTotal(); got != tc.want {
			t.Errorf("%s, insert failing with %v: backoffs %v total %v, want %v", tc.name, tc.f, tr.backoffs, got, tc.want)
		}
	}
}

// TestBackoffCap checks the formula's MAX_BACKOFF: no backoff exceeds 10 s, whatever the
// exponent or the server's baseBackoffMS.
func TestBackoffCap(t *testing.T) {
	p := mustNew(t, NameMongoDB202607, opts(func(o *Options) { o.MaxAdaptiveRetries = 80 }))
	tr := run(t, p, find, alwaysOn(specOverload), env{})
	want := append(ms(200, 400, 800, 1600, 3200, 6400), slices.Repeat([]time.Duration{MaxBackoff}, 74)...)
	if !slices.Equal(tr.backoffs, want) {
		t.Errorf("maxAdaptiveRetries 80: backoffs %v, want %v", tr.backoffs, want)
	}
	huge := specOverload
	huge.BaseBackoffMS = math.MaxInt64
	if tr := run(t, p, find, times(1, huge), env{}); tr.backoffs[0] != MaxBackoff {
		t.Errorf("baseBackoffMS = MaxInt64: backoff %v, want %v", tr.backoffs[0], MaxBackoff)
	}
}

// TestMaxBackoffTenSeconds pins MAX_BACKOFF to the number the Client Backpressure text gives,
// "Overload retry policy" rule 3: "`MAX_BACKOFF` is 10000ms" (pseudocode: `MAX_BACKOFF = 10 #
// 10000ms`). TestBackoffCap compares with the MaxBackoff constant, which would follow the
// constant anywhere; every expectation here is a literal number of milliseconds. Jitter is 1, so
// each backoff is its ceiling min(MAX_BACKOFF, BASE × 2^exponent): the cases put the uncapped
// ceiling under, at and over 10 s, through the server's baseBackoffMS and through the exponent.
// Under 2026-03 (exponent attempt − 1) five retries never pass 1.6 s, so its formula is checked
// directly, at the attempts where it would reach the cap.
func TestMaxBackoffTenSeconds(t *testing.T) {
	withBase := func(ms int64) Failure {
		f := specOverload
		f.BaseBackoffMS = ms
		return f
	}
	tests := []struct {
		gloss   string
		f       Failure
		retries int   // maxAdaptiveRetries and failures: the last retry's backoff is checked
		wantMS  int64 // the spec's milliseconds
	}{
		{"baseBackoffMS 4900, attempt 1: 9800 ms, under the cap", withBase(4900), 1, 9800},
		{"baseBackoffMS 5000, attempt 1: 10000 ms, the cap itself", withBase(5000), 1, 10000},
		{"baseBackoffMS 6000, attempt 1: 12000 ms, capped", withBase(6000), 1, 10000},
		{"baseBackoffMS MaxInt64: capped", withBase(math.MaxInt64), 1, 10000},
		{"BASE 100 ms, attempt 6: 6400 ms", specOverload, 6, 6400},
		{"BASE 100 ms, attempt 7: 12800 ms, capped", specOverload, 7, 10000},
		{"BASE 100 ms, attempt 40: capped", specOverload, 40, 10000},
	}
	for _, tc := range tests {
		p := mustNew(t, NameMongoDB202607, opts(func(o *Options) { o.MaxAdaptiveRetries = tc.retries }))
		tr := run(t, p, find, times(tc.retries, tc.f), env{jitter: constJitter(1)})
		if !tr.ok || len(tr.backoffs) != tc.retries {
			t.Fatalf("2026-07, %s: ok=%v after %d retries, want success after %d", tc.gloss, tr.ok, len(tr.backoffs), tc.retries)
		}
		if got, want := tr.backoffs[tc.retries-1], time.Duration(tc.wantMS)*time.Millisecond; got != want {
			t.Errorf("2026-07, %s: backoff %v, want %v", tc.gloss, got, want)
		}
	}
	// 2026-03: jitter × min(MAX_BACKOFF, BASE_BACKOFF × 2^(attempt−1)).
	for _, tc := range []struct {
		attempt int
		wantMS  int64
	}{{5, 1600}, {7, 6400}, {8, 10000}, {64, 10000}, {1000, 10000}} {
		if got, want := backoff(constJitter(1), BaseBackoff, tc.attempt-1), time.Duration(tc.wantMS)*time.Millisecond; got != want {
			t.Errorf("2026-03 formula, attempt %d: backoff %v, want %v", tc.attempt, got, want)
		}
	}
}

// TestBackoffExponentCountsEveryRetry checks Client Backpressure, "Overload retry policy" rule 1:
// "`attempt` is the execution attempt number (starting with 0). Note that `attempt` includes
// retries for errors that are not overload errors". The backoff's exponent is that attempt, not
// the number of overload errors seen: an operation whose first attempt fails with a retryable
// error that is not an overload error (retried at once, rule "backoff MUST be applied if and
// only if the error is an overload error") and whose second fails with 462 backs off with the
// second step's ceiling — 2026-03: 100 ms × 2^(2−1) = 200 ms; 2026-07: 100 ms × 2^2 = 400 ms,
// or 50 ms × 2^2 = 200 ms with baseBackoffMS 50 — never the first step's.
func TestBackoffExponentCountsEveryRetry(t *testing.T) {
	ns := code(wire.ShutdownInProgress, 0)
	netWrite := netErr.withLabels(wire.RetryableWriteError)
	with50 := rejected
	with50.BaseBackoffMS = 50
	tests := []struct {
		gloss         string
		policy        string
		class         Class
		first, second Failure
		want          time.Duration // the second retry's backoff, jitter 1
	}{
		{"find: network error, then 462", NameMongoDB202603, find, netErr, rejected, 200 * time.Millisecond},
		{"find: 91, then 462", NameMongoDB202603, find, ns, rejected, 200 * time.Millisecond},
		{"insertOne: network error, then 462", NameMongoDB202603, insert, netWrite, rejected, 200 * time.Millisecond},
		{"find: network error, then 462", NameMongoDB202607, find, netErr, rejected, 400 * time.Millisecond},
		{"find: 91, then 462", NameMongoDB202607, find, ns, rejected, 400 * time.Millisecond},
		{"insertOne: network error, then 462", NameMongoDB202607, insert, netWrite, rejected, 400 * time.Millisecond},
		{"find: network error, then 462 with baseBackoffMS 50", NameMongoDB202607, find, netErr, with50, 200 * time.Millisecond},
	}
	for _, tc := range tests {
		s := func(i int) (Failure, bool) {
			switch i {
			case 0:
				return tc.first, false
			case 1:
				return tc.second, false
			}
			return Failure{}, true
		}
		tr := run(t, mustNew(t, tc.policy, DefaultOptions()), tc.class, s, env{jitter: constJitter(1)})
		if want := []time.Duration{0, tc.want}; !tr.ok || tr.attempts != 3 || !slices.Equal(tr.backoffs, want) {
			t.Errorf("%s, %s: ok=%v after %d attempts, backoffs %v; want success after 3, backoffs %v",
				tc.policy, tc.gloss, tr.ok, tr.attempts, tr.backoffs, want)
		}
	}
}

// retryableReadCodes is the table of Retryable Reads, "Terms: Retryable Error": "a server error
// response with any the following codes", name and number as the spec lists them.
var retryableReadCodes = []struct {
	name string
	code wire.Code
}{
	{"ExceededTimeLimit", 262}, {"InterruptedAtShutdown", 11600}, {"InterruptedDueToReplStateChange", 11602},
	{"NotWritablePrimary", 10107}, {"NotPrimaryNoSecondaryOk", 13435}, {"NotPrimaryOrSecondary", 13436},
	{"PrimarySteppedDown", 189}, {"ReadConcernMajorityNotAvailableYet", 134}, {"ShutdownInProgress", 91},
	{"HostNotFound", 7}, {"HostUnreachable", 6}, {"NetworkTimeout", 89}, {"SocketException", 9001},
}

// TestRetryableReadCodes pins the 13 retryable error codes of Retryable Reads ("Terms: Retryable
// Error"; network errors and PoolClearedError are the table's other criteria, checked by
// TestEligibility and TestPoolCleared). Each code, without labels, fails a find once: every
// policy implementing Retryable Reads retries it, once and at once, on the same server (a replica
// set); the same error on a write that no retryable-writes rule covers is not retried. Every other
// code the model names fails the find for good.
func TestRetryableReadCodes(t *testing.T) {
	if len(retryableReadCodes) != 13 {
		t.Fatalf("%d codes in the table, the spec lists 13", len(retryableReadCodes))
	}
	listed := map[wire.Code]bool{}
	for _, rc := range retryableReadCodes {
		listed[rc.code] = true
		if got := rc.code.String(); got != rc.name {
			t.Errorf("code %d is named %q, the spec names it %s", int(rc.code), got, rc.name)
		}
	}
	for _, name := range []string{NameMongoDB202603, NameMongoDB202607, NameLegacy} {
		p := mustNew(t, name, DefaultOptions())
		for _, rc := range retryableReadCodes {
			f := code(rc.code, 0)
			if tr := run(t, p, find, times(1, f), env{}); !tr.ok || tr.attempts != 2 || tr.backoffs[0] != 0 || tr.deprio[0] {
				t.Errorf("%s: find failing once with %v: ok=%v after %d attempts, backoffs %v, deprioritize %v; want success after 2, at once, same server",
					name, f, tr.ok, tr.attempts, tr.backoffs, tr.deprio)
			}
			if tr := run(t, p, updateMany, times(1, f), env{}); tr.ok || tr.attempts != 1 || tr.why != NotRetryable {
				t.Errorf("%s: updateMany failing with %v: ok=%v after %d attempts (%v); want failure after 1 (NotRetryable)",
					name, f, tr.ok, tr.attempts, tr.why)
			}
		}
		for _, c := range wire.KnownCodes() {
			if c == wire.OK || listed[c] {
				continue
			}
			if tr := run(t, p, find, times(1, code(c, 0)), env{}); tr.ok || tr.attempts != 1 || tr.why != NotRetryable {
				t.Errorf("%s: find failing with %v(%d): ok=%v after %d attempts (%v); want failure after 1 (NotRetryable)",
					name, c, int(c), tr.ok, tr.attempts, tr.why)
			}
		}
	}
}

// TestProse2TokenBucketCapacity checks Client Backpressure prose test 2 (2026-03): with
// adaptiveRetries the bucket starts full at DEFAULT_RETRY_TOKEN_CAPACITY and a successful ping
// (runCommand) does not push it above capacity.
func TestProse2TokenBucketCapacity(t *testing.T) {
	p := mustNew(t, NameMongoDB202603, opts(func(o *Options) { o.AdaptiveRetries = true }))
	b := TokenBucket(p)
	if b == nil || b.Tokens() != 1000 || b.Capacity() != 1000 {
		t.Fatalf("TokenBucket() = %v, want a full bucket of 1000", b)
	}
	if tr := run(t, p, runCommand, times(0, Failure{}), env{}); !tr.ok || b.Tokens() != 1000 {
		t.Errorf("after a successful ping the bucket holds %v, want 1000", b.Tokens())
	}
}

// TestProse3OverloadRetriedMaxRetries checks prose test 3: find failing alwaysOn with 462 ⇒
// the error has both labels after 1 + MAX_RETRIES started commands (6 / 3).
func TestProse3OverloadRetriedMaxRetries(t *testing.T) {
	for _, rev := range revisions {
		tr := run(t, mustNew(t, rev.name, DefaultOptions()), find, alwaysOn(rejected), env{})
		if tr.attempts != rev.maxRetries+1 || !tr.err.Labels.Has(overloadLabels) || tr.err.Code != wire.IngressRequestRateLimitExceeded {
			t.Errorf("%s: %d started, error %v; want %d started and 462 with both labels", rev.name, tr.attempts, tr.err, rev.maxRetries+1)
		}
	}
}

// TestProse4RetriesLimited checks prose test 4. 2026-03: adaptiveRetries, the bucket set to 2
// tokens, find failing times 3 with 462 ⇒ failure with both labels after 3 started commands (the
// third retry finds no token). 2026-07: maxAdaptiveRetries=1 ⇒ 2 started; 0 ⇒ 1.
func TestProse4RetriesLimited(t *testing.T) {
	p := mustNew(t, NameMongoDB202603, opts(func(o *Options) { o.AdaptiveRetries = true }))
	TokenBucket(p).Set(2)
	tr := run(t, p, find, times(3, rejected), env{})
	if tr.ok || tr.attempts != 3 || tr.why != NoToken || !tr.err.Labels.Has(overloadLabels) || TokenBucket(p).Tokens() != 0 {
		t.Errorf("2026-03, 2 tokens: ok=%v after %d started (%v, %v), %v tokens left; want failure after 3 (NoToken), 0 left",
			tr.ok, tr.attempts, tr.why, tr.err, TokenBucket(p).Tokens())
	}
	for _, tc := range []struct{ max, attempts int }{{1, 2}, {0, 1}, {2, 3}, {5, 6}} {
		p := mustNew(t, NameMongoDB202607, opts(func(o *Options) { o.MaxAdaptiveRetries = tc.max }))
		if tr := run(t, p, find, alwaysOn(rejected), env{}); tr.attempts != tc.attempts || tr.why != MaxRetries {
			t.Errorf("2026-07, maxAdaptiveRetries=%d: %d started (%v), want %d (MaxRetries)", tc.max, tr.attempts, tr.why, tc.attempts)
		}
	}
}

// TestTokenDeposits checks the 2026-03 adaptive retry rules: success on the first attempt
// deposits 0.1 (rule 1), success on a retry 1.1 (rule 2), a retry failing with a non-overload
// error 1 (rule 3, deposited before the retryability check), an overload retry consumes 1 (rule
// 5); deposits stop at capacity. Each row starts at 500 tokens.
func TestTokenDeposits(t *testing.T) {
	ns := code(wire.ShutdownInProgress, 0) // a retryable read error, not an overload error
	tests := []struct {
		gloss string
		class Class
		s     script
		want  float64
	}{
		{"success on the first attempt: +0.1", find, times(0, Failure{}), 500.1},
		{"one overload retry, then success: −1 +1.1", find, times(1, rejected), 500.1},
		{"two overload retries, then success: −2 +1.1", find, times(2, rejected), 499.1},
		{"a non-overload retry, then success: +1.1", find, times(1, ns), 501.1},
		{"non-overload error on the first attempt, not retryable: nothing", find, alwaysOn(specOverload.withLabels(0)), 500},
		{"non-overload error twice: the retry's failure +1, then MaxRetries", find, alwaysOn(ns), 501},
		{"overload, then a non-retryable error: −1 +1", insert, then(rejected, code(wire.BadValue, 0)), 500},
		{"overload, then non-overload retryable ×5: −1 +5", find, then(code(wire.ShutdownInProgress, overloadLabels), ns), 504},
		{"alwaysOn overload: −5, no deposit", find, alwaysOn(rejected), 495},
	}
	for _, tc := range tests {
		p := mustNew(t, NameMongoDB202603, opts(func(o *Options) { o.AdaptiveRetries = true }))
		b := TokenBucket(p)
		b.Set(500)
		run(t, p, tc.class, tc.s, env{})
		if got := b.Tokens(); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: %v tokens, want %v", tc.gloss, got, tc.want)
		}
	}
	// Deposits stop at capacity (prose test 2 with a custom capacity).
	p := mustNew(t, NameMongoDB202603, opts(func(o *Options) { o.AdaptiveRetries, o.RetryTokenCapacity = true, 10 }))
	b := TokenBucket(p)
	b.Set(9.95)
	run(t, p, find, times(1, ns), env{})
	if b.Tokens() != 10 {
		t.Errorf("9.95 tokens + 1.1 in a bucket of 10: %v, want 10", b.Tokens())
	}
	for _, name := range Names() {
		if name == NameMongoDB202603 {
			continue
		}
		if b := TokenBucket(mustNew(t, name, DefaultOptions())); b != nil {
			t.Errorf("TokenBucket(%s) = %v, want nil", name, b)
		}
	}
	if b := TokenBucket(mustNew(t, NameMongoDB202603, DefaultOptions())); b != nil {
		t.Errorf("TokenBucket(2026-03 without adaptiveRetries) = %v, want nil", b)
	}
}

func (f Failure) withLabels(l wire.Labels) Failure { f.Labels = l; return f }

// TestDeprioritization checks which retries deprioritize the failed server.
//
//   - Retryable Reads prose 2.1/2.2 and Retryable Writes prose 4/5: sharded, code 6 (a retryable
//     error, not an overload) ⇒ deprioritized (with two mongoses the retry goes to the other; with
//     one, selection falls back to it). Every policy.
//   - Retryable Reads prose 3.1: replica set, code 6 with both overload labels, primaryPreferred:
//     2026-03 retries on a different server; 2026-07 only with enableOverloadRetargeting (prose
//     3.3: without it, the same server).
//   - Retryable Reads prose 3.2: replica set, code 6 with RetryableError only (not an overload) ⇒
//     the same server, in both revisions.
func TestDeprioritization(t *testing.T) {
	sharded := func(o *Options) { o.Sharded = true }
	retarget := func(o *Options) { o.EnableOverloadRetargeting = true }
	hostUnreachable := code(wire.HostUnreachable, 0)
	tests := []struct {
		gloss  string
		policy string
		mod    func(*Options)
		class  Class
		f      Failure
		want   bool
	}{
		{"reads 2.1: sharded, code 6", NameMongoDB202603, sharded, find, hostUnreachable, true},
		{"reads 2.1: sharded, code 6", NameMongoDB202607, sharded, find, hostUnreachable, true},
		{"reads 2.1: sharded, code 6", NameLegacy, sharded, find, hostUnreachable, true},
		{"writes 4: sharded, code 6 RetryableWriteError", NameMongoDB202603, sharded, insert, code(wire.HostUnreachable, wire.RetryableWriteError), true},
		{"writes 4: sharded, code 6 RetryableWriteError", NameMongoDB202607, sharded, insert, code(wire.HostUnreachable, wire.RetryableWriteError), true},
		{"writes 4: sharded, code 6 RetryableWriteError", NameLegacy, sharded, insert, code(wire.HostUnreachable, wire.RetryableWriteError), true},
		{"sharded, overload", NameMongoDB202607, sharded, find, code(wire.HostUnreachable, overloadLabels), true},
		{"reads 3.1: replica set, overload", NameMongoDB202603, nil, find, code(wire.HostUnreachable, overloadLabels), true},
		{"reads 3.1: replica set, overload, retargeting on", NameMongoDB202607, retarget, find, code(wire.HostUnreachable, overloadLabels), true},
		{"reads 3.3: replica set, overload, retargeting off", NameMongoDB202607, nil, find, code(wire.HostUnreachable, overloadLabels), false},
		{"replica set, overload labels mean nothing", NameLegacy, nil, find, code(wire.HostUnreachable, overloadLabels), false},
		{"reads 3.2: replica set, RetryableError only", NameMongoDB202603, nil, find, code(wire.HostUnreachable, wire.RetryableError), false},
		{"reads 3.2: replica set, RetryableError only", NameMongoDB202607, retarget, find, code(wire.HostUnreachable, wire.RetryableError), false},
		{"replica set, network error", NameMongoDB202603, nil, find, netErr, false},
		{"replica set, PoolClearedError", NameMongoDB202603, nil, insert, cleared, false},
	}
	for _, tc := range tests {
		tr := run(t, mustNew(t, tc.policy, opts(tc.mod)), tc.class, times(1, tc.f), env{})
		if !tr.ok || len(tr.deprio) != 1 || tr.deprio[0] != tc.want {
			t.Errorf("%s (%s): ok=%v, deprioritize %v; want success after one retry with deprioritize %v",
				tc.gloss, tc.policy, tr.ok, tr.deprio, tc.want)
		}
	}
}

// TestOverloadThenNonOverload checks Retryable Reads prose 4 and 5 and Retryable Writes prose 4
// and 5 (added with 7039e69945d4, whose rule the 2026-03 pseudocode already has: allowed_retries
// stays MAX_RETRIES): the first attempt fails with 91 and both overload labels, every later one
// with 91 and RetryableError only (plus RetryableWriteError for the insert). The operation fails
// after MAX_RETRIES+1 attempts — with or without CSOT — and only the first retry backs off.
func TestOverloadThenNonOverload(t *testing.T) {
	classes := []struct {
		name  string
		class Class
		rest  Failure
	}{
		{"find (reads 4, 5)", find, code(wire.ShutdownInProgress, wire.RetryableError)},
		{"insertOne (writes 4, 5)", insert, code(wire.ShutdownInProgress, wire.RetryableError|wire.RetryableWriteError)},
	}
	for _, rev := range revisions {
		for _, c := range classes {
			for _, csot := range []bool{false, true} {
				p := mustNew(t, rev.name, opts(func(o *Options) { o.CSOT = csot }))
				e := env{deadline: sim.Time(time.Hour), attempt: time.Millisecond}
				tr := run(t, p, c.class, then(code(wire.ShutdownInProgress, overloadLabels), c.rest), e)
				nonzero := 0
				for _, b := range tr.backoffs {
					if b != 0 {
						nonzero++
					}
				}
				if tr.attempts != rev.maxRetries+1 || tr.why != MaxRetries || nonzero != 1 || tr.backoffs[0] != rev.ladder[0] {
					t.Errorf("%s %s csot=%v: %d attempts (%v), backoffs %v; want %d attempts (MaxRetries), one backoff of %v first",
						rev.name, c.name, csot, tr.attempts, tr.why, tr.backoffs, rev.maxRetries+1, rev.ladder[0])
				}
			}
		}
	}
}

// TestErrorPropagation checks Retryable Writes prose test 6 (error propagation after multiple
// errors, for drivers implementing Client Backpressure), Retryable Writes prose test 3, and the
// Retryable Reads rule 3c for reads. In each case the first attempt fails with the first error
// and every later one with the second (the failpoint is reconfigured from the CommandFailedEvent).
func TestErrorPropagation(t *testing.T) {
	nwp := wire.NoWritesPerformed
	tests := []struct {
		gloss       string
		class       Class
		first, rest Failure
		want        Failure
	}{
		{"writes 6 case 1: no NoWritesPerformed ⇒ the latest error, 10107", insert,
			code(wire.ShutdownInProgress, overloadLabels), code(wire.NotWritablePrimary, overloadLabels),
			code(wire.NotWritablePrimary, overloadLabels)},
		{"writes 6 case 2: all NoWritesPerformed ⇒ the first error, 91", insert,
			code(wire.ShutdownInProgress, overloadLabels|nwp), code(wire.NotWritablePrimary, overloadLabels|nwp),
			code(wire.ShutdownInProgress, overloadLabels|nwp)},
		{"writes 6 case 3: 91 without, then 91 with NoWritesPerformed ⇒ 91 without it", insert,
			code(wire.ShutdownInProgress, overloadLabels), code(wire.ShutdownInProgress, overloadLabels|nwp),
			code(wire.ShutdownInProgress, overloadLabels)},
		{"writes 3: RetryableWriteError 91, then 10107 NoWritesPerformed ⇒ 91", insert,
			code(wire.ShutdownInProgress, wire.RetryableWriteError), code(wire.NotWritablePrimary, wire.RetryableWriteError|nwp),
			code(wire.ShutdownInProgress, wire.RetryableWriteError)},
		{"a non-retryable error with NoWritesPerformed ⇒ the earlier error", insert,
			code(wire.ShutdownInProgress, overloadLabels), code(wire.BadValue, nwp),
			code(wire.ShutdownInProgress, overloadLabels)},
		{"runCommand propagates as a write (rule 6)", runCommand,
			code(wire.ShutdownInProgress, overloadLabels), code(wire.NotWritablePrimary, overloadLabels|nwp),
			code(wire.ShutdownInProgress, overloadLabels)},
		{"aggregate $out propagates as a write", aggregateOut,
			code(wire.ShutdownInProgress, overloadLabels), rejected,
			code(wire.ShutdownInProgress, overloadLabels)},
		{"reads: the latest error; NoWritesPerformed is a write rule", find,
			code(wire.ShutdownInProgress, overloadLabels), code(wire.NotWritablePrimary, overloadLabels|nwp),
			code(wire.NotWritablePrimary, overloadLabels|nwp)},
		{"reads: a PoolClearedError on the retry ⇒ the previous error", find,
			code(wire.ShutdownInProgress, 0), cleared, code(wire.ShutdownInProgress, 0)},
		{"reads: only PoolClearedErrors ⇒ the first", find, cleared, cleared, cleared},
		{"writes: a server error with NoWritesPerformed beats a PoolClearedError", insert,
			cleared, code(wire.NotWritablePrimary, wire.RetryableWriteError|nwp), code(wire.NotWritablePrimary, wire.RetryableWriteError|nwp)},
	}
	for _, name := range []string{NameMongoDB202603, NameMongoDB202607, NameLegacy} {
		for _, tc := range tests {
			if name == NameLegacy && tc.first.RetryableOverload() {
				continue // the legacy driver does not retry these: covered by TestLegacy
			}
			tr := run(t, mustNew(t, name, DefaultOptions()), tc.class, then(tc.first, tc.rest), env{})
			if tr.ok || tr.err != tc.want {
				t.Errorf("%s, %s: after %d attempts the application gets %v, want %v", name, tc.gloss, tr.attempts, tr.err, tc.want)
			}
		}
	}
}

// TestCSOT checks the CSOT rules: allowed_retries starts unlimited, so non-overload retryable
// errors are retried until the deadline (Retryable Reads 3c, Retryable Writes); an overload error
// caps retries at MAX_RETRIES even with CSOT (Client Backpressure, "Interaction with Other Retry
// Policies"); a backoff that would pass the deadline raises before a token is consumed.
func TestCSOT(t *testing.T) {
	csot := func(o *Options) { o.CSOT = true }
	ns := code(wire.ShutdownInProgress, 0)
	// Attempts take 10 ms; the deadline is t = 95 ms. Attempts fail at 10, 20, …, 90 ms and are
	// retried; the tenth fails at 100 ms, past the deadline.
	e := env{deadline: sim.Time(95 * time.Millisecond), attempt: 10 * time.Millisecond}
	for _, name := range []string{NameMongoDB202603, NameMongoDB202607, NameLegacy} {
		p := mustNew(t, name, opts(csot))
		if tr := run(t, p, find, alwaysOn(ns), e); tr.attempts != 10 || tr.why != Deadline || tr.backoffTotal() != 0 {
			t.Errorf("%s: non-overload errors under CSOT: %d attempts (%v), backoffs %v; want 10 (Deadline), no backoff", name, tr.attempts, tr.why, tr.backoffs)
		}
		if tr := run(t, p, insert, alwaysOn(netErr.withLabels(wire.RetryableWriteError)), e); tr.attempts != 10 || tr.why != Deadline {
			t.Errorf("%s: network errors of a write under CSOT: %d attempts (%v); want 10 (Deadline)", name, tr.attempts, tr.why)
		}
		// Without CSOT: one retry.
		if tr := run(t, mustNew(t, name, DefaultOptions()), find, alwaysOn(ns), e); tr.attempts != 2 || tr.why != MaxRetries {
			t.Errorf("%s: non-overload errors without CSOT: %d attempts (%v); want 2 (MaxRetries)", name, tr.attempts, tr.why)
		}
	}
	for _, rev := range revisions {
		p := mustNew(t, rev.name, opts(csot))
		tr := run(t, p, find, alwaysOn(rejected), env{deadline: sim.Time(time.Hour), jitter: constJitter(0)})
		if tr.attempts != rev.maxRetries+1 || tr.why != MaxRetries {
			t.Errorf("%s: overload errors under CSOT: %d attempts (%v); want %d (MaxRetries)", rev.name, tr.attempts, tr.why, rev.maxRetries+1)
		}
	}

	// The backoff check, with attempts taking no time and jitter 1. 2026-03: t0 = 0 fails, backs
	// off 100 ms; t1 = 100 ms fails, would back off 200 ms to 300 ms.
	adaptive := opts(func(o *Options) { o.CSOT, o.AdaptiveRetries = true, true })
	tests := []struct {
		gloss    string
		policy   string
		o        Options
		deadline time.Duration
		attempts int
		tokens   float64
	}{
		{"2026-03: t1 + 200 ms > 250 ms ⇒ raise, no token spent on it", NameMongoDB202603, adaptive, 250 * time.Millisecond, 2, 999},
		{"2026-03: t1 + 200 ms = 300 ms is not past the deadline; t2 = 300 ms is", NameMongoDB202603, adaptive, 300 * time.Millisecond, 3, 998},
		{"2026-07: t1 = 200 ms, + 400 ms > 500 ms ⇒ raise", NameMongoDB202607, opts(csot), 500 * time.Millisecond, 2, 0},
	}
	for _, tc := range tests {
		p := mustNew(t, tc.policy, tc.o)
		tr := run(t, p, find, alwaysOn(rejected), env{deadline: sim.Time(tc.deadline)})
		if tr.attempts != tc.attempts || tr.why != Deadline {
			t.Errorf("%s: %d attempts (%v), want %d (Deadline)", tc.gloss, tr.attempts, tr.why, tc.attempts)
		}
		if b := TokenBucket(p); b != nil && b.Tokens() != tc.tokens {
			t.Errorf("%s: %v tokens left, want %v", tc.gloss, b.Tokens(), tc.tokens)
		}
	}
	// Without CSOT the deadline argument is ignored.
	p := mustNew(t, NameMongoDB202603, DefaultOptions())
	if tr := run(t, p, find, alwaysOn(rejected), env{deadline: 1}); tr.attempts != 6 {
		t.Errorf("no CSOT, deadline 1 ns: %d attempts, want 6", tr.attempts)
	}
}

// TestPoolCleared checks the Retryable Reads and Writes rules for PoolClearedError: nothing was
// sent, so it is always retryable for a retryable read or write, it counts as an attempt, and
// without CSOT it is retried once, at once, on the same server (outside sharded clusters).
func TestPoolCleared(t *testing.T) {
	for _, name := range []string{NameMongoDB202603, NameMongoDB202607, NameLegacy} {
		p := mustNew(t, name, DefaultOptions())
		for _, c := range []Class{find, insert} {
			if tr := run(t, p, c, times(1, cleared), env{}); !tr.ok || tr.attempts != 2 || tr.backoffs[0] != 0 || tr.deprio[0] {
				t.Errorf("%s %+v: times 1: ok=%v after %d, backoff %v deprioritize %v; want success after 2, at once, same server",
					name, c, tr.ok, tr.attempts, tr.backoffs, tr.deprio)
			}
			if tr := run(t, p, c, alwaysOn(cleared), env{}); tr.attempts != 2 || tr.why != MaxRetries || tr.err != cleared {
				t.Errorf("%s %+v: alwaysOn: %d attempts (%v) %v; want 2 (MaxRetries) PoolClearedError", name, c, tr.attempts, tr.why, tr.err)
			}
		}
		for _, c := range []Class{getMore, runCommand, updateMany} {
			if tr := run(t, p, c, alwaysOn(cleared), env{}); tr.attempts != 1 || tr.why != NotRetryable {
				t.Errorf("%s %+v: %d attempts (%v); want 1 (NotRetryable): no retryable read or write", name, c, tr.attempts, tr.why)
			}
		}
		pc := mustNew(t, name, opts(func(o *Options) { o.CSOT = true }))
		e := env{deadline: sim.Time(95 * time.Millisecond), attempt: 10 * time.Millisecond}
		if tr := run(t, pc, find, alwaysOn(cleared), e); tr.attempts != 10 || tr.why != Deadline {
			t.Errorf("%s: CSOT: %d attempts (%v); want 10 (Deadline)", name, tr.attempts, tr.why)
		}
	}
}

// TestLegacy checks mongodb-legacy, a driver before Client Backpressure: the overload labels mean
// nothing, so 462 (no retryable read code, no RetryableWriteError) reaches the application after
// one attempt; retryable reads and writes are retried once, at once; only sharded clusters
// deprioritize.
func TestLegacy(t *testing.T) {
	p := mustNew(t, NameLegacy, DefaultOptions())
	for _, c := range []Class{find, insert, getMore, runCommand} {
		if tr := run(t, p, c, alwaysOn(rejected), env{}); tr.attempts != 1 || tr.why != NotRetryable || tr.err != rejected {
			t.Errorf("%+v failing with 462: %d attempts (%v) %v; want 1 (NotRetryable) 462", c, tr.attempts, tr.why, tr.err)
		}
	}
	// A connection-establishment failure: a network error the CMAP labels as an overload error.
	est := netErr.withLabels(overloadLabels)
	tests := []struct {
		gloss string
		class Class
		f     Failure
	}{
		{"find, 91", find, code(wire.ShutdownInProgress, 0)},
		{"find, 91 with overload labels", find, code(wire.ShutdownInProgress, overloadLabels)},
		{"find, establishment failure", find, est},
		{"insert, RetryableWriteError", insert, code(wire.NotWritablePrimary, wire.RetryableWriteError)},
		{"insert, network error", insert, netErr.withLabels(wire.RetryableWriteError)},
	}
	for _, tc := range tests {
		tr := run(t, p, tc.class, alwaysOn(tc.f), env{})
		if tr.attempts != 2 || tr.why != MaxRetries || tr.backoffs[0] != 0 || tr.deprio[0] {
			t.Errorf("%s: %d attempts (%v), backoff %v, deprioritize %v; want 2 (MaxRetries), at once, same server",
				tc.gloss, tr.attempts, tr.why, tr.backoffs, tr.deprio)
		}
	}
	if tr := run(t, p, getMore, alwaysOn(est), env{}); tr.attempts != 1 {
		t.Errorf("getMore, establishment failure: %d attempts, want 1", tr.attempts)
	}
	if tr := run(t, mustNew(t, NameLegacy, opts(func(o *Options) { o.RetryReads = false })), find, alwaysOn(netErr), env{}); tr.attempts != 1 || tr.why != Ineligible {
		t.Errorf("retryReads=false: %d attempts (%v), want 1 (Ineligible)", tr.attempts, tr.why)
	}
}

// TestNone checks that none never retries and the error propagates unchanged.
func TestNone(t *testing.T) {
	p := mustNew(t, NameNone, opts(func(o *Options) { o.CSOT, o.Sharded = true, true }))
	for _, f := range []Failure{specOverload, rejected, netErr, cleared, code(wire.ShutdownInProgress, 0)} {
		if tr := run(t, p, find, alwaysOn(f), env{deadline: sim.Time(time.Hour)}); tr.attempts != 1 || tr.why != Disabled || tr.err != f {
			t.Errorf("%v: %d attempts (%v) %v; want 1 (Disabled) %v", f, tr.attempts, tr.why, tr.err, f)
		}
	}
}

// TestEligibility is the first-failure decision of mongodb-2026-03 for each kind of error and
// class: the pseudocode's is_retryable with rule 2.4 and the transaction rule.
func TestEligibility(t *testing.T) {
	ns := code(wire.ShutdownInProgress, 0)
	overloadOnly := code(wire.IngressRequestRateLimitExceeded, wire.SystemOverloadedError)
	retryableOnly := code(wire.BadValue, wire.RetryableError)
	tests := []struct {
		gloss string
		class Class
		f     Failure
		mod   func(*Options)
		want  GiveUp // Continue: retried
	}{
		// Happy paths.
		{"retryable overload error, any command", updateMany, specOverload, nil, Continue},
		{"retryable read code on a retryable read", find, ns, nil, Continue},
		{"network error on a retryable read", find, netErr, nil, Continue},
		{"RetryableWriteError on a retryable write", insert, code(wire.NotWritablePrimary, wire.RetryableWriteError), nil, Continue},
		{"overload label alone, but a retryable read code", find, code(wire.ShutdownInProgress, wire.SystemOverloadedError), nil, Continue},
		{"overload in a transaction", txnFind, specOverload, nil, Continue},
		// Sad paths.
		{"SystemOverloadedError alone (mongos after its own retries)", find, overloadOnly, nil, NotRetryable},
		{"RetryableError alone", updateMany, retryableOnly, nil, NotRetryable},
		{"retryable read code on a write", insert, ns, nil, NotRetryable},
		{"network error without RetryableWriteError on updateMany", updateMany, netErr, nil, NotRetryable},
		{"retryable read code on runCommand", runCommand, ns, nil, NotRetryable},
		{"retryable read, retryReads off", find, ns, func(o *Options) { o.RetryReads = false }, Ineligible},
		{"retryable write, retryWrites off", insert, netErr, func(o *Options) { o.RetryWrites = false }, Ineligible},
		{"runCommand overload, retryWrites off", runCommand, specOverload, func(o *Options) { o.RetryWrites = false }, Ineligible},
	}
	for _, tc := range tests {
		p := mustNew(t, NameMongoDB202603, opts(tc.mod))
		var st State
		p.Begin(&st, tc.class, 0, sim.Never)
		d := p.Failed(&st, tc.f, 0, constJitter(1))
		if d.Retry != (tc.want == Continue) || d.Why != tc.want {
			t.Errorf("%s: Failed(%v) = retry %v why %v, want %v", tc.gloss, tc.f, d.Retry, d.Why, tc.want)
		}
	}
}

// TestJitterDeterminism checks that backoffs come only from the injected stream: two runs with
// the same seeded *rand.Rand give the same backoffs, each within [0, the jitter-1 ladder].
func TestJitterDeterminism(t *testing.T) {
	ladder := func(seed uint64) []time.Duration {
		p := mustNew(t, NameMongoDB202603, DefaultOptions())
		rng := sim.NewStream(seed, "client/app/0")
		var all []time.Duration
		for range 10 {
			all = append(all, run(t, p, find, alwaysOn(rejected), env{jitter: rng}).backoffs...)
		}
		return all
	}
	a, b, c := ladder(1), ladder(1), ladder(2)
	if !slices.Equal(a, b) {
		t.Errorf("seed 1 twice: %v vs %v", a, b)
	}
	if slices.Equal(a, c) {
		t.Errorf("seeds 1 and 2 give the same backoffs %v", a)
	}
	for i, d := range a {
		if hi := revisions[0].ladder[i%5]; d < 0 || d > hi {
			t.Errorf("backoff %d = %v, want within [0, %v]", i, d, hi)
		}
	}
}

// TestZeroAllocs checks that Begin, Failed and Succeeded allocate nothing.
func TestZeroAllocs(t *testing.T) {
	var j Jitter = sim.NewStream(1, "allocs")
	for _, name := range Names() {
		for _, o := range []Options{DefaultOptions(), opts(func(o *Options) { o.AdaptiveRetries = true })} {
			p, err := New(name, o)
			if err != nil {
				continue // adaptiveRetries is for 2026-03 only
			}
			var st State
			allocs := testing.AllocsPerRun(100, func() {
				p.Begin(&st, insert, 0, sim.Never)
				p.Failed(&st, rejected, 0, j)
				p.Failed(&st, code(wire.ShutdownInProgress, wire.RetryableWriteError|wire.NoWritesPerformed), 0, j)
				p.Succeeded(&st, 0)
			})
			if allocs != 0 {
				t.Errorf("%s %v: %v allocations per operation, want 0", name, o, allocs)
			}
		}
	}
}

// TestJitterRange checks that a jitter outside [0, 1] is a broken invariant.
func TestJitterRange(t *testing.T) {
	for _, x := range []float64{-0.1, 1.5, math.NaN()} {
		func() {
			defer func() {
				if r := recover(); r != fmt.Sprintf(panicJitter, x) {
					t.Errorf("jitter %v: recovered %v", x, r)
				}
			}()
			p := mustNew(t, NameMongoDB202603, DefaultOptions())
			run(t, p, find, alwaysOn(rejected), env{jitter: constJitter(x)})
		}()
	}
}

// TestClassPanics checks that Begin refuses a Class no operation can have.
func TestClassPanics(t *testing.T) {
	for _, c := range []Class{
		{RetryableRead: true, Write: true},
		{RetryableWrite: true},
		{RunCommand: true, RetryableRead: true},
		{RunCommand: true, Write: true, RetryableWrite: true},
	} {
		func() {
			defer func() {
				if r := recover(); r == nil {
					t.Errorf("Begin(%+v) did not panic", c)
				}
			}()
			var st State
			mustNew(t, NameMongoDB202603, DefaultOptions()).Begin(&st, c, 0, sim.Never)
		}()
	}
}

// TestStateReuse checks that Begin resets a pooled State: a record used by an operation that saw
// an overload error starts the next one with attempt 0 and allowed_retries 1.
func TestStateReuse(t *testing.T) {
	p := mustNew(t, NameMongoDB202603, DefaultOptions())
	var st State
	p.Begin(&st, find, 0, sim.Never)
	for range 6 {
		p.Failed(&st, rejected, 0, constJitter(0))
	}
	if st.Attempt() != 6 || st.Retries() != 5 || !st.OverloadSeen() {
		t.Errorf("after alwaysOn: Attempt() = %d, Retries() = %d, OverloadSeen() = %v; want 6, 5, true",
			st.Attempt(), st.Retries(), st.OverloadSeen())
	}
	p.Begin(&st, find, 0, sim.Never)
	ns := code(wire.ShutdownInProgress, 0)
	if d := p.Failed(&st, ns, 0, nil); !d.Retry || st.Attempt() != 1 || st.OverloadSeen() {
		t.Errorf("reused State: first failure retry=%v attempt %d", d.Retry, st.Attempt())
	}
	if d := p.Failed(&st, ns, 0, nil); d.Retry || d.Why != MaxRetries || d.Err != ns {
		t.Errorf("reused State: second failure = %+v, want MaxRetries with %v", d, ns)
	}
}
