package client

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/dist"

	"github.com/overloadsim/overloadsim/client/retry"
	"github.com/overloadsim/overloadsim/client/selection"
	"github.com/overloadsim/overloadsim/field"
	"github.com/overloadsim/overloadsim/server"
	"github.com/overloadsim/overloadsim/server/failpoint"
	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
)

// revisions are the two Client Backpressure texts and their expected counts (docs/spec-coverage.md §3).
var revisions = []struct {
	policy      string
	maxRetries  int // MAX_RETRIES
	loopTimes   int // the retry-loop test's failpoint times
	backoffs    []time.Duration
	retargetOpt bool // 2026-07: overload retargeting is an option
}{
	{"mongodb-2026-03", 5, 3, []time.Duration{100, 200, 400, 800, 1600}, false},
	{"mongodb-2026-07", 2, 2, []time.Duration{200, 400}, true},
}

func opts(policy string, mod func(*Options)) Options {
	o := DefaultOptions()
	o.RetryPolicy = policy
	if mod != nil {
		mod(&o)
	}
	return o
}

// overloadOps are the operation kinds the retry-loop tests cover (the generator's list reduced to
// the model's kinds: reads, writes, aggregate with $out, getMore and runCommand).
var overloadOps = []OpKind{Find, Insert, Update, Delete, Aggregate, AggregateOut, GetMore, RunCommand}

// TestRetryLoop: backpressure-retry-loop "… retries using operation loop": the failpoint fails the
// command `times` times (3 in 2026-03, 2 in 2026-07) with code 2 and both overload labels; the
// operation succeeds after times+1 started commands: times failed, one succeeded.
func TestRetryLoop(t *testing.T) {
	for _, rev := range revisions {
		for _, kind := range overloadOps {
			t.Run(rev.policy+"/"+kind.String(), func(t *testing.T) {
				e := newEnv(t, envConfig{nodes: standalone(nil), kind: selection.Single, opts: opts(rev.policy, nil), jitter: 0})
				e.arm("db", failpoint.Config{Mode: failpoint.Times(int64(rev.loopTimes)),
					FailCommands: []string{kind.Command().String()}, ErrorCode: 2,
					ErrorLabels: overloadLabels, HasErrorLabels: true})
				r := e.run(discovered, Spec{Kind: kind})[0]
				st := e.client.Snapshot()
				if !r.OK || r.Attempts != rev.loopTimes+1 || st.AttemptsFailed != uint64(rev.loopTimes) || st.AttemptsSucceeded != 1 {
					t.Errorf("ok=%v, %d started (%d failed, %d succeeded); want success after %d started",
						r.OK, r.Attempts, st.AttemptsFailed, st.AttemptsSucceeded, rev.loopTimes+1)
				}
			})
		}
	}
}

// TestRetryDisabled: backpressure-retry-loop "… does not retry if retryReads=false" (reads and
// runCommand) / "retryWrites=false" (writes and runCommand): failpoint times 1, exactly one started
// and one failed command, and the server's error reaches the application (rule 2.4).
func TestRetryDisabled(t *testing.T) {
	cases := []struct {
		kind OpKind
		off  string
	}{
		{Find, "retryReads"}, {Aggregate, "retryReads"}, {GetMore, "retryReads"}, {RunCommand, "retryReads"},
		{Insert, "retryWrites"}, {Update, "retryWrites"}, {Delete, "retryWrites"}, {AggregateOut, "retryWrites"},
		{RunCommand, "retryWrites"},
	}
	for _, rev := range revisions {
		for _, tc := range cases {
			t.Run(fmt.Sprintf("%s/%s/%s=false", rev.policy, tc.kind, tc.off), func(t *testing.T) {
				o := opts(rev.policy, func(o *Options) {
					if tc.off == "retryReads" {
						o.Retry.RetryReads = false
					} else {
						o.Retry.RetryWrites = false
					}
				})
				e := newEnv(t, envConfig{nodes: standalone(nil), kind: selection.Single, opts: o, jitter: 0})
				e.arm("db", failpoint.Config{Mode: failpoint.Times(1), FailCommands: []string{tc.kind.Command().String()},
					ErrorCode: 2, ErrorLabels: overloadLabels, HasErrorLabels: true})
				r := e.run(discovered, Spec{Kind: tc.kind})[0]
				if r.OK || r.Attempts != 1 || r.Err.Code != wire.BadValue {
					t.Errorf("ok=%v after %d started, error %v; want the server's BadValue after 1", r.OK, r.Attempts, r.Err.Code)
				}
			})
		}
	}
}

// TestMaxAttempts: backpressure-retry-max-attempts: alwaysOn ⇒ 1 + MAX_RETRIES started commands,
// all failed, and the server's error propagates. backpressure-connection-checkin: the connection
// is checked out and back in once per attempt — returned before each backoff.
func TestMaxAttempts(t *testing.T) {
	for _, rev := range revisions {
		t.Run(rev.policy, func(t *testing.T) {
			e := newEnv(t, envConfig{nodes: standalone(nil), kind: selection.Single, opts: opts(rev.policy, nil), jitter: 0.5})
			e.arm("db", failpoint.Config{Mode: failpoint.AlwaysOn(), FailCommands: []string{"find"},
				ErrorCode: 2, ErrorLabels: overloadLabels, HasErrorLabels: true})
			r := e.run(discovered, Spec{Kind: Find})[0]
			st := e.client.Snapshot()
			want := rev.maxRetries + 1
			if r.OK || r.Attempts != want || st.AttemptsFailed != uint64(want) || r.Err.Code != wire.BadValue {
				t.Errorf("ok=%v, %d started, %d failed, error %v; want %d failed and BadValue", r.OK, r.Attempts, st.AttemptsFailed, r.Err.Code, want)
			}
			if st.CheckedOut != uint64(want) || st.CheckedIn != uint64(want) {
				t.Errorf("%d checked out, %d checked in; want %d pairs", st.CheckedOut, st.CheckedIn, want)
			}
			// Each backoff sleeps with the connection checked in: no connection beyond the
			// first was needed.
			if st.ConnectionsCreated != 1 {
				t.Errorf("%d connections created, want 1", st.ConnectionsCreated)
			}
		})
	}
}

// TestProse1Backoff: prose test 1, exponential backoff: insert fails alwaysOn with code 2 and both
// labels; with jitter pinned near 1 the operation takes the sum of the backoffs longer than with
// jitter 0 (2026-03: 0.1+0.2+0.4+0.8+1.6 s, the test asserts ≥ 2.1 s; 2026-07: 0.2+0.4 s,
// asserted as |Δ − 0.6 s| < 0.6 s). Here the model is exact, so Δ is checked to the nanosecond.
func TestProse1Backoff(t *testing.T) {
	const nearOne = 1 - 1e-9
	for _, rev := range revisions {
		t.Run(rev.policy, func(t *testing.T) {
			latency := func(j float64) time.Duration {
				e := newEnv(t, envConfig{nodes: standalone(nil), kind: selection.Single, opts: opts(rev.policy, nil), jitter: j})
				e.arm("db", failpoint.Config{Mode: failpoint.AlwaysOn(), FailCommands: []string{"insert"},
					ErrorCode: 2, ErrorLabels: overloadLabels, HasErrorLabels: true})
				r := e.run(discovered, Spec{Kind: Insert})[0]
				return r.Latency()
			}
			delta := latency(nearOne) - latency(0)
			var want time.Duration
			for _, b := range rev.backoffs {
				want += time.Duration(float64(b*time.Millisecond) * nearOne)
			}
			if d := delta - want; d < -time.Duration(len(rev.backoffs)) || d > time.Duration(len(rev.backoffs)) {
				t.Errorf("with_backoff − no_backoff = %v, want %v", delta, want)
			}
		})
	}
}

// TestProse3And4: prose test 3: find alwaysOn 462 ⇒ the error carries both labels after
// 1 + MAX_RETRIES started commands. Prose test 4: 2026-03 with adaptiveRetries and the bucket at 2
// tokens, find failing times 3 with 462 ⇒ fails after 3 started commands (the third retry is
// refused for want of a token); 2026-07 with maxAdaptiveRetries = 1 ⇒ 2 started commands.
func TestProse3And4(t *testing.T) {
	fp := func(mode failpoint.Mode) failpoint.Config {
		return failpoint.Config{Mode: mode, FailCommands: []string{"find"}, ErrorCode: 462}
	}
	for _, rev := range revisions {
		t.Run(rev.policy+"/prose3", func(t *testing.T) {
			e := newEnv(t, envConfig{nodes: standalone(nil), kind: selection.Single, opts: opts(rev.policy, nil), jitter: 0})
			e.arm("db", fp(failpoint.AlwaysOn()))
			r := e.run(discovered, Spec{Kind: Find})[0]
			if r.OK || r.Attempts != rev.maxRetries+1 || !r.Err.Labels.Has(wire.SystemOverloadedError|wire.RetryableError) {
				t.Errorf("%d started, error %v %v", r.Attempts, r.Err.Code, r.Err.Labels)
			}
		})
	}
	t.Run("mongodb-2026-03/prose4", func(t *testing.T) {
		e := newEnv(t, envConfig{nodes: standalone(nil), kind: selection.Single,
			opts: opts("mongodb-2026-03", func(o *Options) { o.Retry.AdaptiveRetries = true }), jitter: 0})
		e.arm("db", fp(failpoint.Times(3)))
		retryTokenBucket(e.client).Set(2)
		r := e.run(discovered, Spec{Kind: Find})[0]
		if r.OK || r.Attempts != 3 || e.client.Snapshot().RetriesRefusedNoToken != 1 {
			t.Errorf("ok=%v after %d started; want failure after 3 (one retry refused for want of a token)", r.OK, r.Attempts)
		}
	})
	t.Run("mongodb-2026-07/prose4", func(t *testing.T) {
		e := newEnv(t, envConfig{nodes: standalone(nil), kind: selection.Single,
			opts: opts("mongodb-2026-07", func(o *Options) { o.Retry.MaxAdaptiveRetries = 1 }), jitter: 0})
		e.arm("db", fp(failpoint.AlwaysOn()))
		if r := e.run(discovered, Spec{Kind: Find})[0]; r.Attempts != 2 {
			t.Errorf("%d started, want 2", r.Attempts)
		}
	})
}

// TestProse5BaseBackoff: 2026-07 prose test 5: with jitter near 1, insert failing alwaysOn with
// 462; plainly the backoffs total 0.2+0.4 s (≥ 0.6 s), and with externalClientBaseBackoffMS = 50
// the server attaches baseBackoffMS and the driver uses it: 0.1+0.2 s (≥ 0.3 s and < 0.6 s).
func TestProse5BaseBackoff(t *testing.T) {
	for _, tc := range []struct {
		base int64
		want time.Duration
	}{{0, 600 * time.Millisecond}, {50, 300 * time.Millisecond}} {
		e := newEnv(t, envConfig{nodes: standalone(func(c *server.Config) { c.ExternalClientBaseBackoffMS = tc.base }),
			kind: selection.Single, opts: opts("mongodb-2026-07", nil), jitter: 1 - 1e-9})
		e.arm("db", failpoint.Config{Mode: failpoint.AlwaysOn(), FailCommands: []string{"insert"}, ErrorCode: 462})
		r := e.run(discovered, Spec{Kind: Insert})[0]
		got := e.client.Snapshot().BackoffTotal
		if got < tc.want-time.Microsecond || got > tc.want || (tc.base > 0 && r.Err.BaseBackoffMS != tc.base) {
			t.Errorf("baseBackoffMS %d: backoff total %v (error carried %d), want %v", tc.base, got, r.Err.BaseBackoffMS, tc.want)
		}
	}
}

// TestRealRateLimiter: the same max-attempts count when the 462s come from the ingress request
// limiter itself (capacity below one token rejects every authenticated command), while the
// monitors' unauthenticated hellos are never limited.
func TestRealRateLimiter(t *testing.T) {
	for _, rev := range revisions {
		e := newEnv(t, envConfig{nodes: standalone(func(c *server.Config) {
			c.RequestLimiter = server.RequestLimiterConfig{Enabled: true, AdmissionRatePerSec: 1, AdmissionBurstCapacitySecs: 0.001}
		}), kind: selection.Single, opts: opts(rev.policy, nil), jitter: 0.5})
		r := e.run(discovered, Spec{Kind: Find})[0]
		if r.Attempts != rev.maxRetries+1 || r.Err.Code != wire.IngressRequestRateLimitExceeded {
			t.Errorf("%s: %d started, error %v; want %d and 462", rev.policy, r.Attempts, r.Err.Code, rev.maxRetries+1)
		}
	}
}

// TestRetryableReadsProse3: which server a retry goes to (Retryable Reads prose 3.1–3.3, docs/spec-coverage.md
// §4). A replica set, read preference primaryPreferred, the primary fails find once with code 6:
// 3.1 with the overload labels, 2026-03 (and 2026-07 with enableOverloadRetargeting) retries on a
// secondary; 3.2 with RetryableError only, the retry stays on the primary; 3.3 2026-07 without
// retargeting, an overload retry stays on the primary.
func TestRetryableReadsProse3(t *testing.T) {
	cases := []struct {
		name      string
		policy    string
		retarget  bool
		labels    []string
		secondary bool // the retry ran on a secondary
	}{
		{"3.1 2026-03 overload", "mongodb-2026-03", false, overloadLabels, true},
		{"3.1 2026-07 overload with retargeting", "mongodb-2026-07", true, overloadLabels, true},
		{"3.2 2026-03 non-overload", "mongodb-2026-03", false, []string{"RetryableError"}, false},
		{"3.2 2026-07 non-overload", "mongodb-2026-07", true, []string{"RetryableError"}, false},
		{"3.3 2026-07 overload without retargeting", "mongodb-2026-07", false, overloadLabels, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := opts(tc.policy, func(o *Options) {
				o.ReadPreference = selection.ReadPreference{Mode: selection.PrimaryPreferred}
				o.Retry.EnableOverloadRetargeting = tc.retarget
			})
			e := newEnv(t, envConfig{nodes: replicaSet3(), kind: selection.ReplicaSet, opts: o, jitter: 0})
			e.arm("a", failpoint.Config{Mode: failpoint.Times(1), FailCommands: []string{"find"},
				ErrorCode: int(wire.HostUnreachable), ErrorLabels: tc.labels, HasErrorLabels: true})
			r := e.run(discovered, Spec{Kind: Find})[0]
			onPrimary := e.cluster.Node("a").Snapshot(e.loop.Now()).Completed
			if !r.OK || r.Attempts != 2 || (onPrimary == 0) != tc.secondary {
				t.Errorf("ok=%v, %d started, retry on the primary: %v; want the retry on a secondary: %v",
					r.OK, r.Attempts, onPrimary == 1, tc.secondary)
			}
		})
	}
}

// TestRetryableReadsProse4And5: 2026-07 (and the 2026-03 pseudocode, which keeps the cap): find
// fails first with 91 and the overload labels, then with 91 and RetryableError only, alwaysOn.
// Once an overload error is seen MAX_RETRIES caps all retries: the read fails after
// MAX_RETRIES + 1 attempts (prose 4), and backoff is applied exactly once, for the overload
// error only (prose 5).
func TestRetryableReadsProse4And5(t *testing.T) {
	for _, rev := range revisions {
		t.Run(rev.policy, func(t *testing.T) {
			e := newEnv(t, envConfig{nodes: standalone(nil), kind: selection.Single, opts: opts(rev.policy, nil), jitter: 1 - 1e-9})
			e.arm("db", failpoint.Config{Mode: failpoint.Times(1), FailCommands: []string{"find"},
				ErrorCode: int(wire.ShutdownInProgress), ErrorLabels: overloadLabels, HasErrorLabels: true})
			// The second failpoint replaces the first after the first failure, during the backoff.
			second, _ := failpoint.New(failpoint.Config{Mode: failpoint.AlwaysOn(), FailCommands: []string{"find"},
				ErrorCode: int(wire.ShutdownInProgress), ErrorLabels: []string{"RetryableError"}, HasErrorLabels: true})
			e.loop.At(discovered+sim.Time(50*time.Millisecond), sim.HandlerFunc(func(now sim.Time, _ int, _ any) {
				e.cluster.Node("db").SetFailPoint(now, second)
			}), 0, nil)
			r := e.run(discovered, Spec{Kind: Find})[0]
			st := e.client.Snapshot()
			first := time.Duration(float64(rev.backoffs[0]*time.Millisecond) * (1 - 1e-9))
			if r.OK || r.Attempts != rev.maxRetries+1 || st.BackoffTotal != first {
				t.Errorf("ok=%v after %d started, backoff total %v; want failure after %d and one backoff of %v",
					r.OK, r.Attempts, st.BackoffTotal, rev.maxRetries+1, first)
			}
		})
	}
}

// TestConnectionPoolBackpressure: the SDAM "Connection Pool Backpressure" test: the connection
// limiter at rate 20/s, burst 1 s, queue depth 1; 100 concurrent finds with maxConnecting 100 ⇒ at
// least 10 ConnectionCheckOutFailedEvents and no pool clear (overload-labelled establishment
// errors never clear the pool). The spec test ignores the finds' own errors; the model checks
// what the labels are for: CMAP labels a network error or timeout while establishing a
// connection SystemOverloadedError and RetryableError, so every failed checkout is an overload
// error that goes through the overload retry loop (Client Backpressure: MAX_RETRIES, with
// backoff), and all 100 finds succeed. Without the labels a failed checkout would be a plain
// network error, retried once at once, and most finds would fail.
func TestConnectionPoolBackpressure(t *testing.T) {
	e := newEnv(t, envConfig{nodes: standalone(func(c *server.Config) {
		c.ConnLimiter = server.ConnLimiterConfig{Enabled: true, RatePerSec: 20, BurstCapacitySecs: 1, MaxQueueDepth: 1}
	}), kind: selection.Single, opts: opts("mongodb-2026-03", func(o *Options) { o.MaxConnecting = 100 }), jitter: -1})
	specs := make([]Spec, 100)
	res := e.run(discovered, specs...)
	st := e.client.Snapshot()
	if st.CheckoutFailed < 10 || st.PoolClears != 0 {
		t.Errorf("%d checkout failures, %d pool clears; want ≥ 10 and 0", st.CheckoutFailed, st.PoolClears)
	}
	ok := 0
	for _, r := range res {
		if r.OK {
			ok++
		}
	}
	if ok != 100 || st.Retries < st.CheckoutFailed || st.BackoffTotal == 0 {
		t.Errorf("%d/100 finds succeeded after %d checkout failures, %d retries, %v of backoff; "+
			"want 100/100, every failed checkout retried through the overload loop", ok, st.CheckoutFailed, st.Retries, st.BackoffTotal)
	}
}

// TestPoolClearedProse1: Retryable Reads prose test 1 (PoolClearedError is retried): maxPoolSize 1,
// find fails once with 91 after blocking the connection for 1000 ms; two finds run at once. The
// first holds the only connection, fails with ShutdownInProgress, which clears the pool (SDAM);
// the second, waiting in the checkout queue, gets PoolClearedError and is retried. Both succeed;
// the pool was cleared once; one checkout failed; exactly 3 finds were started.
func TestPoolClearedProse1(t *testing.T) {
	e := newEnv(t, envConfig{nodes: standalone(nil), kind: selection.Single,
		opts: opts("mongodb-2026-03", func(o *Options) { o.MaxPoolSize = 1 }), jitter: 0})
	e.arm("db", failpoint.Config{Mode: failpoint.Times(1), FailCommands: []string{"find"},
		ErrorCode: int(wire.ShutdownInProgress), BlockConnection: true, BlockTimeMS: 1000})
	res := e.run(discovered, Spec{Kind: Find}, Spec{Kind: Find})
	st := e.client.Snapshot()
	if !res[0].OK || !res[1].OK || st.PoolClears != 1 || st.CheckoutFailed != 1 || st.AttemptsStarted != 3 {
		t.Errorf("ok %v %v, pool clears %d, checkout failures %d, finds started %d; want both ok, 1, 1, 3",
			res[0].OK, res[1].OK, st.PoolClears, st.CheckoutFailed, st.AttemptsStarted)
	}
}

// TestOptionsValidation: bad options are errors naming the option, its value and the rule.
func TestOptionsValidation(t *testing.T) {
	cases := []struct {
		mod  func(*Options)
		kind selection.TopologyKind
		want []string
	}{
		{func(o *Options) { o.RetryPolicy = "mongodb-2099" }, selection.Single, []string{`mongodb-2099`, "mongodb-2026-03"}},
		{func(o *Options) { o.RetryPolicy = "mongodb-2026-07"; o.Retry.MaxAdaptiveRetries = -1 }, selection.Single, []string{"maxAdaptiveRetries", "-1"}},
		{func(o *Options) { o.RetryPolicy = "mongodb-2026-07"; o.Retry.AdaptiveRetries = true }, selection.Single, []string{"adaptiveRetries", "mongodb-2026-03"}},
		{func(o *Options) {
			o.ReadPreference = selection.ReadPreference{Mode: selection.Nearest, TagSets: []map[string]string{{"dc": "ny"}}}
		}, selection.Single, []string{"tag"}},
		{func(o *Options) { o.MaxPoolSize = 0; o.MaxConnecting = -1 }, selection.Single, []string{"maxPoolSize: 0", "maxConnecting: -1"}},
		{func(o *Options) { o.Timeout = -time.Second; o.ConnectTimeout = 0 }, selection.Single, []string{"timeoutMS: -1s", "connectTimeoutMS: 0s"}},
	}
	for _, tc := range cases {
		o := DefaultOptions()
		tc.mod(&o)
		err := o.Validate(tc.kind)
		for _, w := range tc.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("Validate() = %v, want it to mention %q", err, w)
			}
		}
		for _, part := range field.Parts(err) {
			if fe := (*field.Error)(nil); !errors.As(part, &fe) {
				t.Errorf("Validate(): %q holds no *field.Error", part)
			}
		}
	}
	if _, err := New(sim.NewLoop(), DefaultOptions(), selection.Single, nil, 1, "c"); err == nil || !strings.Contains(err.Error(), "nodes: empty") {
		t.Errorf("New without nodes: %v", err)
	}
}

// TestNoServerForRetry: Retryable Reads 3a / Retryable Writes: if no server can be selected for
// the retry, the previous error is raised. An insert fails on the primary with
// NotWritablePrimary; SDAM marks the primary Unknown and its monitor will not look again for
// 500 ms (minHeartbeatFrequencyMS), longer than the 50 ms selection timeout, so the retry finds
// no server and the application receives the NotWritablePrimary error, after one attempt.
func TestNoServerForRetry(t *testing.T) {
	o := opts("mongodb-2026-03", func(o *Options) { o.ServerSelectionTimeout = 50 * time.Millisecond })
	e := newEnv(t, envConfig{nodes: replicaSet3(), kind: selection.ReplicaSet, opts: o, jitter: 0})
	e.arm("a", failpoint.Config{Mode: failpoint.Times(1), FailCommands: []string{"insert"},
		ErrorCode: int(wire.NotWritablePrimary)})
	r := e.run(discovered, Spec{Kind: Insert})[0]
	if r.OK || r.Attempts != 1 || r.Err.Code != wire.NotWritablePrimary || r.Class != ErrServer {
		t.Errorf("ok=%v after %d attempts, error %v (%v); want NotWritablePrimary after 1", r.OK, r.Attempts, r.Err.Code, r.Class)
	}
}

// TestWaitQueueTimeout: CMAP: a checkout that waits in the pool's queue longer than
// waitQueueTimeoutMS fails with a WaitQueueTimeoutError, which is not retryable: the operation
// fails with a timeout having started no command.
func TestWaitQueueTimeout(t *testing.T) {
	o := opts("mongodb-2026-03", func(o *Options) { o.MaxPoolSize = 1; o.WaitQueueTimeout = 5 * time.Millisecond })
	e := newEnv(t, envConfig{nodes: standalone(func(c *server.Config) { c.Service = dist.Const(100 * time.Millisecond) }),
		kind: selection.Single, opts: o, jitter: 0})
	res := e.run(discovered, Spec{Kind: Find}, Spec{Kind: Find})
	var timedOut *Result
	for i := range res {
		if !res[i].OK {
			timedOut = &res[i]
		}
	}
	st := e.client.Snapshot()
	if timedOut == nil || timedOut.Class != ErrTimeout || timedOut.Attempts != 0 || timedOut.Latency() != 5*time.Millisecond ||
		st.CheckoutFailed != 1 || st.AttemptsStarted != 1 {
		t.Errorf("results %+v, checkout failures %d, commands started %d; want one op timed out after 5ms in the queue, 1 command",
			res, st.CheckoutFailed, st.AttemptsStarted)
	}
}

// TestDeprioritizedServersAccumulate: Client Backpressure, "Overload retry policy" rule 4 ("the
// client MUST add the previously used server's address to the list of deprioritized server
// addresses") and its pseudocode, where deprioritized_servers is created once per operation and
// each retry appends to it: the list holds every server that failed, not just the last one.
// Three servers whose round trips are 2, 60 and 120 ms, so that the 15 ms latency window makes
// every selection deterministic (the fastest server left after the deprioritized filter); the
// first two answer every find with 462. Attempt 1 goes to the fastest and fails; attempt 2 to the
// next and fails; attempt 3 must avoid both, so it reaches the third and succeeds. A list that
// kept only the last failed server would send attempt 3 back to the fastest. Sharded (every
// retry deprioritizes the mongos) and a replica set read with nearest (overload retries
// deprioritize: 2026-03; 2026-07 with enableOverloadRetargeting).
func TestDeprioritizedServersAccumulate(t *testing.T) {
	delays := []time.Duration{time.Millisecond, 30 * time.Millisecond, 60 * time.Millisecond}
	cases := []struct {
		name   string
		kind   selection.TopologyKind
		policy string
	}{
		{"sharded 2026-03", selection.Sharded, "mongodb-2026-03"},
		{"sharded 2026-07", selection.Sharded, "mongodb-2026-07"},
		{"replica set nearest 2026-03", selection.ReplicaSet, "mongodb-2026-03"},
		{"replica set nearest 2026-07 with retargeting", selection.ReplicaSet, "mongodb-2026-07"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			loop := sim.NewLoop()
			var cl *server.Cluster
			var servers []*server.Server
			var err error
			if tc.kind == selection.Sharded {
				cl, err = server.NewCluster(loop, server.ClusterConfig{Nodes: []server.Config{{Address: "s0", Role: wire.Primary,
					ReplSetName: "rs0", RejectCost: server.DefaultRejectCost, HandshakeCost: server.DefaultHandshakeCost}}}, 1)
				if err != nil {
					t.Fatal(err)
				}
				for _, addr := range []string{"m1", "m2", "m3"} {
					m, err := cl.AddMongos(server.Config{Address: addr, Role: wire.Mongos, Router: okRouter{},
						RejectCost: server.DefaultRejectCost, HandshakeCost: server.DefaultHandshakeCost})
					if err != nil {
						t.Fatal(err)
					}
					servers = append(servers, m)
				}
			} else {
				if cl, err = server.NewCluster(loop, server.ClusterConfig{Nodes: replicaSet3()}, 1); err != nil {
					t.Fatal(err)
				}
				servers = cl.Nodes()
			}
			var nodes []Node
			for i, s := range servers {
				nodes = append(nodes, Node{Address: s.Address(), Handler: s,
					Link: wire.NewLink(dist.Const(delays[i]), sim.NewStream(1, "link/"+s.Address()))})
			}
			for _, s := range servers[:2] {
				fp, err := failpoint.New(failpoint.Config{Mode: failpoint.AlwaysOn(), FailCommands: []string{"find"},
					ErrorCode: int(wire.IngressRequestRateLimitExceeded)})
				if err != nil {
					t.Fatal(err)
				}
				s.SetFailPoint(0, fp)
			}
			o := opts(tc.policy, func(o *Options) {
				o.Retry.EnableOverloadRetargeting = tc.policy == "mongodb-2026-07" && tc.kind == selection.ReplicaSet
				if tc.kind == selection.ReplicaSet {
					o.ReadPreference = selection.ReadPreference{Mode: selection.Nearest}
				}
			})
			c, err := New(loop, o, tc.kind, nodes, 1, "client/test/0")
			if err != nil {
				t.Fatal(err)
			}
			c.jitter = constJitter(0)
			e := &env{t: t, loop: loop, cluster: cl, client: c}
			r := e.run(sim.Time(time.Second), Spec{Kind: Find})[0] // after every RTT is known
			var got []uint64
			for _, s := range servers {
				st := s.Snapshot(loop.Now())
				got = append(got, st.FailPointErrors+st.Completed)
			}
			if !r.OK || r.Attempts != 3 || !slices.Equal(got, []uint64{1, 1, 1}) {
				t.Errorf("ok=%v after %d attempts, finds per server (fastest first) %v; want success after 3, one find each: "+
					"the third attempt avoids both servers that failed", r.OK, r.Attempts, got)
			}
		})
	}
}

// TestOverloadReplyKeepsServer: SDAM error handling as Client Backpressure changed it
// (server-discovery-and-monitoring.md, "Error handling": an error labelled
// SystemOverloadedError does not mark the server Unknown and does not clear its pool) for a
// command's reply — TestConnectionPoolBackpressure covers connection establishment. The primary
// of a replica set answers every find with the row's error, jitter 0 so that retries come at
// once. With the overload label, even on a code that SDAM otherwise acts on (a shutdown code,
// which clears the pool, or a "not writable primary" or "node is recovering" code, which marks
// the server Unknown), the operation makes its 1 + MAX_RETRIES attempts back to back on its one
// connection, the pool is never cleared and the primary is still known at the end. The control
// rows, the same codes without labels, show that the test sees SDAM act when it should.
func TestOverloadReplyKeepsServer(t *testing.T) {
	cases := []struct {
		gloss    string
		code     wire.Code
		labels   []string // nil: the node's own labels (462 carries SystemOverloadedError and RetryableError)
		overload bool
		clears   bool // control rows: the error clears the pool
	}{
		{"462 IngressRequestRateLimitExceeded", wire.IngressRequestRateLimitExceeded, nil, true, false},
		{"91 ShutdownInProgress with both labels", wire.ShutdownInProgress, overloadLabels, true, false},
		{"11600 InterruptedAtShutdown with both labels", wire.InterruptedAtShutdown, overloadLabels, true, false},
		{"10107 NotWritablePrimary with both labels", wire.NotWritablePrimary, overloadLabels, true, false},
		{"11602 InterruptedDueToReplStateChange with both labels", wire.InterruptedDueToReplStateChange, overloadLabels, true, false},
		{"control: 91 without labels", wire.ShutdownInProgress, []string{}, false, true},
		{"control: 10107 without labels", wire.NotWritablePrimary, []string{}, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.gloss, func(t *testing.T) {
			o := opts("mongodb-2026-03", nil)
			e := newEnv(t, envConfig{nodes: replicaSet3(), kind: selection.ReplicaSet, opts: o, jitter: 0})
			e.arm("a", failpoint.Config{Mode: failpoint.AlwaysOn(), FailCommands: []string{"find"},
				ErrorCode: int(tc.code), ErrorLabels: tc.labels, HasErrorLabels: tc.labels != nil})
			r := e.run(discovered, Spec{Kind: Find})[0]
			st := e.client.Snapshot()
			role := e.client.servers[0].role // "a", the moment the operation ended
			if !tc.overload {
				if role != wire.Unknown || (st.PoolClears > 0) != tc.clears {
					t.Errorf("control: primary %v, %d pool clears; want Unknown, clears %v", role, st.PoolClears, tc.clears)
				}
				return
			}
			if r.OK || r.Attempts != 6 || !r.Err.Labels.Has(wire.SystemOverloadedError) {
				t.Fatalf("ok=%v after %d attempts, error %v; want failure after 6 with SystemOverloadedError", r.OK, r.Attempts, r.Err)
			}
			if role != wire.Primary || st.PoolClears != 0 || st.ConnectionsCreated != 1 || st.ConnectionsClosed != 0 {
				t.Errorf("primary %v, %d pool clears, %d connections created, %d closed; want Primary, 0, 1, 0",
					role, st.PoolClears, st.ConnectionsCreated, st.ConnectionsClosed)
			}
			// No retry waited for a monitor check (minHeartbeatFrequencyMS, 500 ms) to find the
			// server again.
			if r.Latency() >= o.MinHeartbeatFrequency {
				t.Errorf("the operation took %v, want the 6 attempts back to back (< %v)", r.Latency(), o.MinHeartbeatFrequency)
			}
		})
	}
}

// TestFirstSelectionErrorPropagates: Retryable Reads, "Executing Retryable Read Commands": "When
// selecting a server for the first attempt of a retryable read command, drivers MUST allow a
// server selection error to propagate. In this case, the caller is able to infer that no attempt
// was made" (Retryable Writes says the same of writes). With no suitable server the operation
// ends when serverSelectionTimeoutMS (50 ms here) passes, with a server selection error — not a
// timeout, nor an error of an attempt that was never made: no command started, no error kept.
// TestNoServerForRetry is the other half: no server for a retry raises the previous error.
func TestFirstSelectionErrorPropagates(t *testing.T) {
	cases := []struct {
		gloss string
		nodes []server.Config
		down  string // a member down from the start, never discovered
		mode  selection.Mode
		kind  OpKind
	}{
		{"find with read preference secondary, a primary only", replicaSet3()[:1], "", selection.Secondary, Find},
		{"insert, the primary down", replicaSet3(), "a", selection.Primary, Insert},
		{"runCommand, the primary down", replicaSet3(), "a", selection.Primary, RunCommand},
	}
	for _, rev := range revisions {
		for _, tc := range cases {
			t.Run(rev.policy+"/"+tc.gloss, func(t *testing.T) {
				o := opts(rev.policy, func(o *Options) {
					o.ServerSelectionTimeout = 50 * time.Millisecond
					o.ReadPreference = selection.ReadPreference{Mode: tc.mode}
				})
				e := newEnv(t, envConfig{nodes: tc.nodes, kind: selection.ReplicaSet, opts: o, jitter: 0})
				if tc.down != "" {
					e.cluster.Node(tc.down).GoDown(0)
				}
				r := e.run(discovered, Spec{Kind: tc.kind})[0]
				st := e.client.Snapshot()
				if r.OK || r.Class != ErrServerSelection || r.Attempts != 0 || r.Retries != 0 || r.Err != (retry.Failure{}) ||
					r.Latency() != 50*time.Millisecond || st.AttemptsStarted != 0 || st.CheckedOut != 0 {
					t.Errorf("ok=%v class %v after %d attempts (%d retries), error %v, latency %v, %d commands started; "+
						"want %v after 0 attempts, no error of an attempt, at 50ms, none started",
						r.OK, r.Class, r.Attempts, r.Retries, r.Err, r.Latency(), st.AttemptsStarted, ErrServerSelection)
				}
			})
		}
	}
}

// TestCheckinBeforeBackoff: Client Backpressure, backpressure-connection-checkin (added in
// 0535e651): "the connection is returned to the pool before each backoff" — a retry does not hold
// its connection while it sleeps. The replay in TestMaxAttempts counts checkout/check-in pairs,
// which a driver holding the connection through the sleep also produces; here another operation
// needs that connection. maxPoolSize 1, two finds at once: op1 opens the one connection, op2
// waits for it in the pool's queue. op1's find fails with an overload error (jitter 1: the
// backoff is the first ceiling, 100 ms / 200 ms): the connection goes back to the pool first, so
// op2 checks it out and succeeds while op1 sleeps, and op1's retry then finds it idle.
func TestCheckinBeforeBackoff(t *testing.T) {
	for _, rev := range revisions {
		t.Run(rev.policy, func(t *testing.T) {
			e := newEnv(t, envConfig{nodes: standalone(nil), kind: selection.Single,
				opts: opts(rev.policy, func(o *Options) { o.MaxPoolSize = 1 }), jitter: 1})
			e.arm("db", failpoint.Config{Mode: failpoint.Times(1), FailCommands: []string{"find"}, ErrorCode: 2,
				ErrorLabels: overloadLabels, HasErrorLabels: true})
			tr := &stepTracer{t0: discovered}
			e.client.SetTracer(tr)
			e.run(discovered, Spec{Kind: Find}, Spec{Kind: Find})
			b := rev.backoffs[0] * time.Millisecond
			checkTranscript(t, tr.lines, fmt.Sprintf(`
0s op1 find issued at 0s
0s op1 find checkout db
0s op2 find issued at 0s
0s op2 find checkout db
2ms op1 find checkout db ended after 2ms: ok
2ms op1 find attempt 1 sent to db
2ms op1 find attempt 1 to db ended after 0s: code=2 labels=[SystemOverloadedError,RetryableError] network=false poolCleared=false overload=true
2ms op2 find checkout db ended after 2ms: ok
2ms op2 find attempt 1 sent to db
2ms op1 find backoff 1 for %[1]v
3ms op2 find attempt 1 to db ended after 1ms: ok
3ms op2 find done ok=true class=none attempts=1 retries=0
%[2]v op1 find backoff 1 ended after %[1]v of %[1]v
%[2]v op1 find checkout db
%[2]v op1 find checkout db ended after 0s: ok
%[2]v op1 find attempt 2 sent to db
%[3]v op1 find attempt 2 to db ended after 1ms: ok
%[3]v op1 find done ok=true class=none attempts=2 retries=1
`, b, 2*time.Millisecond+b, 3*time.Millisecond+b))
			// The rule itself, whatever else the trace says: op2 had the connection before op1's
			// backoff ended.
			got, slept := -1, -1
			for i, l := range tr.lines {
				switch {
				case got < 0 && strings.Contains(l, "op2 find checkout db ended") && strings.HasSuffix(l, ": ok"):
					got = i
				case slept < 0 && strings.Contains(l, "op1 find backoff 1 ended"):
					slept = i
				}
			}
			if got < 0 || slept < 0 || got > slept {
				t.Errorf("op2 checked the connection out at trace line %d, op1's backoff ended at line %d: "+
					"want op2 to get it while op1 sleeps", got+1, slept+1)
			}
		})
	}
}

// TestWaitsCountTheDriverQueue: the operations waiting in the driver's queues — here the pool's
// wait queue, with one connection and five finds of 100 ms each — are WaitsBegun − WaitsEnded
// (Stats; Group.DriverQueue; docs/metrics.md §7 driver_queue): four wait while the first holds
// the connection, three once it is back, none at the end, when every wait has ended.
func TestWaitsCountTheDriverQueue(t *testing.T) {
	o := opts("mongodb-2026-03", func(o *Options) { o.MaxPoolSize = 1 })
	e := newEnv(t, envConfig{nodes: standalone(func(c *server.Config) { c.Service = dist.Const(100 * time.Millisecond) }),
		kind: selection.Single, opts: o, jitter: 0})
	e.want = 5
	e.loop.At(discovered, sim.HandlerFunc(func(now sim.Time, _ int, _ any) {
		for range 5 {
			e.client.Execute(now, Spec{Kind: Find}, e)
		}
	}), 0, nil)
	waiting := func() uint64 { st := e.client.Snapshot(); return st.WaitsBegun - st.WaitsEnded }
	for _, step := range []struct {
		at   sim.Time
		want uint64
	}{
		{discovered + sim.Time(50*time.Millisecond), 4},
		{discovered + sim.Time(150*time.Millisecond), 3},
		{discovered + sim.Time(5*time.Minute), 0},
	} {
		e.loop.RunUntil(step.at)
		if got := waiting(); got != step.want {
			t.Errorf("at %v: %d operations waiting in the driver, want %d", step.at, got, step.want)
		}
	}
	if st := e.client.Snapshot(); len(e.results) != 5 || st.WaitsBegun != 4 {
		t.Errorf("%d operations finished, %d waits begun; want 5 and 4 (every find but the first waited once)", len(e.results), st.WaitsBegun)
	}
}
