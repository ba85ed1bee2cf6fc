package client

import (
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/client/retry"
	"github.com/overloadsim/overloadsim/client/selection"
	"github.com/overloadsim/overloadsim/client/workload"
	"github.com/overloadsim/overloadsim/dist"
	"github.com/overloadsim/overloadsim/server"
	"github.com/overloadsim/overloadsim/server/failpoint"
	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
)

// couchbaseEnv is one couchbase-besteffort (or -failfast) client against one Couchbase node.
func couchbaseEnv(t *testing.T, policy string, delay time.Duration, mod func(*server.Config)) *env {
	t.Helper()
	opts := DefaultOptions()
	opts.RetryPolicy = policy
	return newEnv(t, envConfig{
		nodes: standalone(func(c *server.Config) {
			c.Flavor = server.FlavorCouchbase
			if mod != nil {
				mod(c)
			}
		}),
		kind: selection.Single, opts: opts, delay: delay, jitter: -1,
	})
}

// rejectAll is a request limiter whose capacity is below one token: every request is rejected
// (docs/model.md §4.1), here with KV TemporaryFailure since the node speaks Couchbase.
func rejectAll(c *server.Config) {
	c.RejectCost = 0 // rejections are free
	c.RequestLimiter = server.RequestLimiterConfig{Enabled: true, AdmissionRatePerSec: 1, AdmissionBurstCapacitySecs: 0.001}
}

// docs/model.md §9.9 through a real node: a KV get that the node's limiter rejects on every attempt
// (KV 0x86) is retried by BestEffort with 0, 1, 2, …, 256, 512, 500, 500 ms between attempts
// until its 2.5 s timeout. With instant replies the retries start at 0, 1, 3, … 511, 1023, 1523,
// 2023 ms: 14 attempts, the next retry capped to the deadline and cancelled, and the
// application sees a timeout. A 40 ms round trip moves the 13th attempt's failure to 2043 ms, so
// its retry would land at 2543 ms: 13 attempts.
func TestCouchbaseTotalRejection(t *testing.T) {
	for _, tc := range []struct {
		delay    time.Duration
		attempts int
	}{{0, 14}, {20 * time.Millisecond, 13}} {
		e := couchbaseEnv(t, retry.NameCouchbaseBestEffort, tc.delay, rejectAll)
		r := e.run(discovered, Spec{Kind: KVGet})[0]
		st := e.client.Snapshot()
		if r.OK || r.Class != ErrTimeout || r.Attempts != tc.attempts || r.Latency() != retry.DefaultKVTimeout {
			t.Errorf("delay %v: %+v (latency %v); want a timeout after %d attempts at exactly 2.5s", tc.delay, r, r.Latency(), tc.attempts)
		}
		if st.RetriesCancelled != 1 || st.RetriedByReason[retry.ReasonKVTemporaryFailure] != uint64(tc.attempts) {
			t.Errorf("delay %v: cancelled %d, retried for KV_TEMPORARY_FAILURE %d; want 1 and %d (the cancelled one is logged too)",
				tc.delay, st.RetriesCancelled, st.RetriedByReason[retry.ReasonKVTemporaryFailure], tc.attempts)
		}
		if r.Err.Code != wire.KVTemporaryFailure {
			t.Errorf("the timeout carries %v, want the last error, KV TemporaryFailure", r.Err)
		}
	}
}

// RFC 0049, "Response Code Retry List": "once a complete, known response is received it should not
// be retried, unless specifically outlined in this list". The query service's overload answer
// (HTTP 503 "Request queue full", 1117) is not on it: a query against a node that rejects
// everything fails on its first attempt, read-only (idempotent) or not, and BestEffort is never
// asked; the decision is logged as not retried for UNKNOWN. (Retried as if BestEffort applied, a
// read-only query would make 159 attempts in its 75 s timeout.)
func TestCouchbaseUnknownResponseFailsAtOnce(t *testing.T) {
	for _, kind := range []OpKind{QueryReadonly, Query} {
		e := couchbaseEnv(t, retry.NameCouchbaseBestEffort, 0, rejectAll)
		r := e.run(discovered, Spec{Kind: kind})[0]
		st := e.client.Snapshot()
		if r.OK || r.Attempts != 1 || r.Retries != 0 || r.Class != ErrOverload || r.Err.Code != wire.QueryRequestQueueFull {
			t.Errorf("%v: %+v; want one attempt failing with the query service's RequestQueueFull", kind, r)
		}
		if st.NotRetriedByReason[retry.ReasonUnknown] != 1 || st.RetriedByReason[retry.ReasonUnknown] != 0 {
			t.Errorf("%v: UNKNOWN retried %d, not retried %d; want 0 and 1", kind,
				st.RetriedByReason[retry.ReasonUnknown], st.NotRetriedByReason[retry.ReasonUnknown])
		}
	}
}

// RFC 0049: an upsert (not idempotent) whose socket closes in flight fails at once; a get is
// retried. A temporary failure is retried for both. Fail-fast retries none of them.
func TestCouchbaseStages(t *testing.T) {
	closeOnce := failpoint.Config{Mode: failpoint.Times(1), FailCommands: []string{"kvGet", "kvUpsert"}, CloseConnection: true}
	tempOnce := failpoint.Config{Mode: failpoint.Times(1), FailCommands: []string{"kvGet", "kvUpsert"}, ErrorCode: 0x86}
	tests := []struct {
		gloss    string
		policy   string
		fp       failpoint.Config
		kind     OpKind
		ok       bool
		attempts int
		reason   retry.Reason
	}{
		{"get, closed in flight: idempotent, retried", retry.NameCouchbaseBestEffort, closeOnce, KVGet, true, 2, retry.ReasonSocketClosedWhileInFlight},
		{"upsert, closed in flight: may have been applied", retry.NameCouchbaseBestEffort, closeOnce, KVUpsert, false, 1, retry.ReasonSocketClosedWhileInFlight},
		{"upsert, temporary failure: nothing changed", retry.NameCouchbaseBestEffort, tempOnce, KVUpsert, true, 2, retry.ReasonKVTemporaryFailure},
		{"get, temporary failure, fail-fast", retry.NameCouchbaseFailFast, tempOnce, KVGet, false, 1, retry.ReasonKVTemporaryFailure},
	}
	for _, tc := range tests {
		e := couchbaseEnv(t, tc.policy, 500*time.Microsecond, nil)
		e.arm("db", tc.fp)
		r := e.run(discovered, Spec{Kind: tc.kind})[0]
		st := e.client.Snapshot()
		if r.OK != tc.ok || r.Attempts != tc.attempts {
			t.Errorf("%s: ok %v after %d attempts, want %v after %d", tc.gloss, r.OK, r.Attempts, tc.ok, tc.attempts)
		}
		if got := st.RetriedByReason[tc.reason] + st.NotRetriedByReason[tc.reason]; got != 1 {
			t.Errorf("%s: %d decisions logged for %v, want 1", tc.gloss, got, tc.reason)
		}
	}
}

// A rebalance makes the node answer NotMyVbucket, an always-retry reason: even fail-fast retries
// it, with the controlled ladder 1, 10, 50, 100, 500, 1000 ms, until the rebalance ends.
func TestCouchbaseRebalance(t *testing.T) {
	e := couchbaseEnv(t, retry.NameCouchbaseFailFast, 0, nil)
	if err := e.cluster.Schedule([]server.Fault{{At: time.Duration(discovered), Kind: server.FaultRebalance, Node: "db", For: 600 * time.Millisecond}}); err != nil {
		t.Fatal(err)
	}
	r := e.run(discovered, Spec{Kind: KVUpsert})[0]
	// The first attempt waits 2 ms for its connection's handshake. Attempts at 2, 3, 13, 63,
	// 163 ms fail; the retry 500 ms later (663 ms) finds the rebalance over (600 ms) and
	// succeeds after the 1 ms service time.
	if !r.OK || r.Attempts != 6 || r.Latency() != 664*time.Millisecond {
		t.Errorf("%+v latency %v; want success on attempt 6 after 664ms", r, r.Latency())
	}
	if n := e.client.Snapshot().RetriedByReason[retry.ReasonKVNotMyVbucket]; n != 5 {
		t.Errorf("%d retries for KV_NOT_MY_VBUCKET, want 5", n)
	}
}

// A MongoDB policy cannot issue Couchbase requests, nor the reverse.
func TestCouchbaseMixMismatch(t *testing.T) {
	e := couchbaseEnv(t, retry.NameCouchbaseBestEffort, 0, nil)
	mix, _ := workload.NewMix([]workload.Weight{{Kind: "find", Weight: 1}})
	if _, err := NewGroup(e.loop, "g", []*Client{e.client}, Workload{Threads: 1, Mix: mix, Kinds: []OpKind{Find}}, 1); err == nil {
		t.Error("a couchbase-besteffort group issuing find must be refused")
	}
}

// RFC 0049, NODE_NOT_AVAILABLE: while the client knows no usable node (the node was down when
// its monitor first looked), a Couchbase request does not wait for server selection; the
// orchestrator retries it (the reason allows non-idempotent retry) until the monitor finds the
// node back, within the 2.5 s timeout.
func TestCouchbaseNodeNotAvailable(t *testing.T) {
	e := couchbaseEnv(t, retry.NameCouchbaseBestEffort, 0, nil)
	if err := e.cluster.Schedule([]server.Fault{{Kind: server.FaultDown, Node: "db", For: time.Second}}); err != nil {
		t.Fatal(err)
	}
	r := e.run(discovered, Spec{Kind: KVUpsert})[0]
	st := e.client.Snapshot()
	if !r.OK || r.Attempts != 1 || st.RetriedByReason[retry.ReasonNodeNotAvailable] != uint64(r.Retries) {
		t.Errorf("%+v, NODE_NOT_AVAILABLE retries %d: want one attempt, sent once the monitor found the node, every retry before it for NODE_NOT_AVAILABLE",
			r, st.RetriedByReason[retry.ReasonNodeNotAvailable])
	}
	if done := r.Done; done < sim.Time(time.Second) || done > sim.Time(2*time.Second) {
		t.Errorf("done at %v: want after the 1s outage, within the monitor's next checks", done)
	}
}

// A Couchbase SDK sends its query (and search) timeout to the service, which stops the work when
// it passes; a KV request carries none, so the data service finishes work the SDK gave up on.
func TestCouchbaseServerTimeouts(t *testing.T) {
	for _, tc := range []struct {
		kind    OpKind
		expired uint64 // commands the node aborted at their server-side deadline
	}{{KVGet, 0}, {QueryReadonly, 1}} {
		opts := DefaultOptions()
		opts.RetryPolicy = retry.NameCouchbaseFailFast
		opts.Retry.KVTimeout, opts.Retry.QueryTimeout = time.Second, time.Second
		e := newEnv(t, envConfig{nodes: standalone(func(c *server.Config) {
			c.Flavor = server.FlavorCouchbase
			c.Service = dist.Const(3 * time.Second)
		}), opts: opts, jitter: -1})
		r := e.run(discovered, Spec{Kind: tc.kind})[0]
		e.loop.RunUntil(discovered + sim.Time(5*time.Second)) // let the node finish or abort
		st := e.cluster.Node("db").Snapshot(e.loop.Now())
		if r.OK || r.Class != ErrTimeout || st.MaxTimeExpired != tc.expired || st.Completed != 1-tc.expired {
			t.Errorf("%v: %+v; node aborted %d and completed %d, want a timeout, %d aborted", tc.kind, r, st.MaxTimeExpired, st.Completed, tc.expired)
		}
	}
}

// A closed-loop thread with no think time whose every operation fails in the client (a
// couchbase-failfast client knowing no node: NODE_NOT_AVAILABLE, not retried) starts its
// operations MinThreadCycle apart, so virtual time passes and the run ends. Without that cost
// the thread issued them for ever at one instant (the metamorphic harness found it); the test
// runs on a budget of events, so that it fails rather than hangs.
func TestClosedLoopLocalFailuresTakeTime(t *testing.T) {
	e := couchbaseEnv(t, retry.NameCouchbaseFailFast, 0, nil)
	if err := e.cluster.Schedule([]server.Fault{{Kind: server.FaultDown, Node: "db", For: time.Second}}); err != nil {
		t.Fatal(err)
	}
	mix, err := workload.NewMix([]workload.Weight{{Kind: "kvGet", Weight: 1}})
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewGroup(e.loop, "g", []*Client{e.client}, Workload{Threads: 1, Think: dist.Const(0), Mix: mix, Kinds: []OpKind{KVGet}, Stop: sim.Never}, 1)
	if err != nil {
		t.Fatal(err)
	}
	const horizon = sim.Time(50 * time.Millisecond)
	for n := 0; e.loop.Now() < horizon; n++ {
		if n == 1e6 {
			t.Fatalf("%d events and the clock stands at %v: the thread spins at one instant", n, e.loop.Now())
		}
		if !e.loop.Step() {
			t.Fatalf("no events left at %v", e.loop.Now())
		}
	}
	// one operation every 10µs from 0 to 50ms, both included
	st, want := g.Stats(), uint64(horizon/sim.Time(MinThreadCycle))+1
	failed := g.DriverStats().NotRetriedByReason[retry.ReasonNodeNotAvailable]
	if st.Issued != want || st.Failed != want || failed != want {
		t.Errorf("issued %d, failed %d (%d for NODE_NOT_AVAILABLE); want %d each", st.Issued, st.Failed, failed, want)
	}
}
