package retry

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
)

// Couchbase request classes (RFC 0049, "Idempotent Operation List").
var (
	kvGet       = Class{Service: wire.ServiceKV, Idempotent: true}
	kvUpsert    = Class{Service: wire.ServiceKV}
	kvUnlock    = Class{Service: wire.ServiceKV, Unlock: true}
	searchReq   = Class{Service: wire.ServiceSearch, Idempotent: true}
	queryRO     = Class{Service: wire.ServiceQuery, Idempotent: true}
	queryWrite  = Class{Service: wire.ServiceQuery}
	viewReq     = Class{Service: wire.ServiceView, Idempotent: true}
	kvTempFail  = Failure{Code: wire.KVTemporaryFailure}
	kvNMVB      = Failure{Code: wire.KVNotMyVbucket}
	closedInAir = Failure{Network: true}
	noSocket    = Failure{Dispatch: true}
)

// RFC 0049, "RetryReason": the table, row for row.
func TestReasonTable(t *testing.T) {
	want := []struct {
		name          string
		nonIdempotent bool
		always        bool
	}{
		{"UNKNOWN", false, false},
		{"SOCKET_NOT_AVAILABLE", true, false},
		{"SERVICE_NOT_AVAILABLE", true, false},
		{"NODE_NOT_AVAILABLE", true, false},
		{"KV_NOT_MY_VBUCKET", true, true},
		{"KV_COLLECTION_OUTDATED", true, true},
		{"KV_ERROR_MAP_RETRY_INDICATED", true, false},
		{"KV_LOCKED", true, false},
		{"KV_TEMPORARY_FAILURE", true, false},
		{"KV_SYNC_WRITE_IN_PROGRESS", true, false},
		{"KV_SYNC_WRITE_RE_COMMIT_IN_PROGRESS", true, false},
		{"SERVICE_RESPONSE_CODE_INDICATED", true, false},
		{"SOCKET_CLOSED_WHILE_IN_FLIGHT", false, false},
		{"CIRCUIT_BREAKER_OPEN", true, false},
		{"QUERY_PREPARED_STATEMENT_FAILURE", true, false},
		{"QUERY_INDEX_NOT_FOUND", true, false},
		{"ANALYTICS_TEMPORARY_FAILURE", true, false},
		{"SEARCH_TOO_MANY_REQUESTS", true, false},
		{"VIEWS_TEMPORARY_FAILURE", true, false},
		{"VIEWS_NO_ACTIVE_PARTITION", true, true},
	}
	if len(want) != NumReasons-1 {
		t.Fatalf("%d reasons besides NONE, the RFC has %d", NumReasons-1, len(want))
	}
	for i, w := range want {
		r := Reason(i + 1)
		if r.String() != w.name || r.AllowsNonIdempotentRetry() != w.nonIdempotent || r.AlwaysRetry() != w.always {
			t.Errorf("%d: %v nonIdempotent=%v always=%v, want %s %v %v", i, r, r.AllowsNonIdempotentRetry(), r.AlwaysRetry(), w.name, w.nonIdempotent, w.always)
		}
	}
	if ReasonNone.AlwaysRetry() || ReasonNone.AllowsNonIdempotentRetry() || Reason(200).String() != "Reason(200)" {
		t.Error("ReasonNone and out-of-range reasons allow nothing")
	}
}

// RFC 0049, "Different Stage Retry Semantics" and "Response Code Retry List".
func TestReasonOf(t *testing.T) {
	st := func(n int, svc wire.Service) Failure {
		c, ok := wire.CouchbaseStatus(svc, n)
		if !ok {
			c = wire.HTTPStatus(n)
		}
		return Failure{Code: c}
	}
	tests := []struct {
		gloss string
		f     Failure
		c     Class
		want  Reason
	}{
		{"client dispatch: no node", Failure{Dispatch: true, NoNode: true}, kvUpsert, ReasonNodeNotAvailable},
		{"client dispatch: no socket", noSocket, kvUpsert, ReasonSocketNotAvailable},
		{"client dispatch: pool cleared", Failure{PoolCleared: true}, kvUpsert, ReasonSocketNotAvailable},
		{"client dispatch: circuit breaker open", Failure{CircuitOpen: true, Dispatch: true}, kvGet, ReasonCircuitBreakerOpen},
		{"network time: socket closed in flight", closedInAir, kvGet, ReasonSocketClosedWhileInFlight},
		{"KV not my vbucket 0x07", st(0x07, wire.ServiceKV), kvUpsert, ReasonKVNotMyVbucket},
		{"KV collection outdated 0x88", st(0x88, wire.ServiceKV), kvGet, ReasonKVCollectionOutdated},
		{"KV locked 0x09", st(0x09, wire.ServiceKV), kvUpsert, ReasonKVLocked},
		{"KV locked on unlock is never retried", st(0x09, wire.ServiceKV), kvUnlock, ReasonUnknown},
		{"KV temporary failure 0x86", kvTempFail, kvUpsert, ReasonKVTemporaryFailure},
		{"KV sync write in progress 0xa2", st(0xa2, wire.ServiceKV), kvUpsert, ReasonKVSyncWriteInProgress},
		{"KV sync write re-commit 0xa4", st(0xa4, wire.ServiceKV), kvUpsert, ReasonKVSyncWriteReCommitInProgress},
		{"query 4040", st(4040, wire.ServiceQuery), queryRO, ReasonQueryPreparedStatementFailure},
		{"query 4050", st(4050, wire.ServiceQuery), queryRO, ReasonQueryPreparedStatementFailure},
		{"query 4070", st(4070, wire.ServiceQuery), queryRO, ReasonQueryPreparedStatementFailure},
		{"query 5000 indexNotFound", st(5000, wire.ServiceQuery), queryRO, ReasonQueryIndexNotFound},
		{"query request queue full (503) is not in the list", Failure{Code: wire.QueryRequestQueueFull}, queryRO, ReasonUnknown},
		{"search 429", st(429, wire.ServiceSearch), searchReq, ReasonSearchTooManyRequests},
		{"search 503 is not in the list", st(503, wire.ServiceSearch), searchReq, ReasonUnknown},
		{"views 302", st(302, wire.ServiceView), viewReq, ReasonViewsNoActivePartition},
		{"views 503", st(503, wire.ServiceView), viewReq, ReasonViewsTemporaryFailure},
		{"views 408", st(408, wire.ServiceView), viewReq, ReasonViewsTemporaryFailure},
		{"views 404 (text not modelled)", st(404, wire.ServiceView), viewReq, ReasonUnknown},
		{"a KV status on a search request means nothing", kvTempFail, searchReq, ReasonUnknown},
		{"a MongoDB 462 means nothing to a Couchbase SDK", rejected, kvGet, ReasonUnknown},
	}
	for _, tc := range tests {
		if got := ReasonOf(tc.f, tc.c); got != tc.want {
			t.Errorf("%s: ReasonOf(%v, %+v) = %v, want %v", tc.gloss, tc.f, tc.c, got, tc.want)
		}
	}
}

// RFC 0049, "Best Effort": "an exponential delay that retries the first attempts fairly quickly
// but then takes a bit longer", by the reference backoff calculator the RFC links (the JVM core's
// Backoff.exponential(1 ms, 500 ms, 2, false), docs/model.md §9.9). Each row is one retry: the
// retries before it, the delay the previous retry waited (lastRetryDuration) and the delay it
// gets. The first fourteen rows are the whole sequence of a request retried only by BestEffort,
// each row's last the row before's delay: 0 (2^−1 truncated), 1, 2, 4, … 256 ms, then 2^9 = 512 ms
// for the retry after ten retries (nothing clamps the computed value), then 500 ms for good
// because the previous delay was at least 500 ms. The last rows are the previous-duration rule
// after an always-retry reason's controlled backoff.
func TestBestEffortBackoffTable(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		gloss   string
		retries int
		last    time.Duration
		want    time.Duration
	}{
		{"1st retry: 1ms × (long)2^−1 = 0", 0, 0, 0},
		{"2nd retry", 1, 0, 1 * ms},
		{"3rd retry", 2, 1 * ms, 2 * ms},
		{"4th retry", 3, 2 * ms, 4 * ms},
		{"5th retry", 4, 4 * ms, 8 * ms},
		{"6th retry", 5, 8 * ms, 16 * ms},
		{"7th retry", 6, 16 * ms, 32 * ms},
		{"8th retry", 7, 32 * ms, 64 * ms},
		{"9th retry", 8, 64 * ms, 128 * ms},
		{"10th retry", 9, 128 * ms, 256 * ms},
		{"11th retry (after 10 retries): 2^9 = 512ms, not clamped", 10, 256 * ms, 512 * ms},
		{"12th retry: the previous 512ms ≥ 500ms", 11, 512 * ms, 500 * ms},
		{"13th retry", 12, 500 * ms, 500 * ms},
		{"14th retry", 13, 500 * ms, 500 * ms},
		{"previous just under 500ms: the exponent decides", 2, 499 * ms, 2 * ms},
		{"after the controlled ladder's 500ms", 5, 500 * ms, 500 * ms},
		{"after the controlled ladder's 1000ms", 6, time.Second, 500 * ms},
	}
	var last time.Duration
	for i, tc := range tests {
		if got := BestEffortBackoff(tc.retries, tc.last); got != tc.want {
			t.Errorf("%s: BestEffortBackoff(%d, %v) = %v, want %v", tc.gloss, tc.retries, tc.last, got, tc.want)
		}
		if i < 14 && tc.last != last {
			t.Fatalf("%s: the table's sequence is broken: last %v, want the previous row's %v", tc.gloss, tc.last, last)
		}
		last = tc.want
	}
	// Out of reach (after ten retries the previous delay is always ≥ 500ms), but no overflow.
	if d := BestEffortBackoff(1<<20, 0); d <= 0 || d < 500*ms {
		t.Errorf("BestEffortBackoff(1<<20, 0) = %v, want a positive delay of at least 500ms", d)
	}
}

// docs/model.md §9.9: the orchestrator's controlled ladder is 1, 10, 50, 100, 500, then 1000 ms;
// a request retried only by BestEffort waits 0, 1, 2, … 256, 512, then 500 ms.
func TestCouchbaseBackoffSequences(t *testing.T) {
	var ladder []time.Duration
	for n := range 14 {
		ladder = append(ladder, ControlledBackoff(n))
	}
	ms := time.Millisecond
	if want := []time.Duration{1 * ms, 10 * ms, 50 * ms, 100 * ms, 500 * ms, time.Second, time.Second, time.Second,
		time.Second, time.Second, time.Second, time.Second, time.Second, time.Second}; !slices.Equal(ladder, want) {
		t.Errorf("ControlledBackoff(0..13) = %v, want %v", ladder, want)
	}
	if ControlledBackoff(-1) != time.Second {
		t.Error("ControlledBackoff(-1): want the default 1000ms")
	}
	// Through the policy, each delay feeding the next retry's lastRetryDuration.
	p := mustNew(t, NameCouchbaseBestEffort, DefaultOptions())
	var st State
	p.Begin(&st, kvUpsert, 0, sim.Never)
	var best []time.Duration
	for range 14 {
		best = append(best, p.Failed(&st, kvTempFail, 0, nil).Backoff)
	}
	if want := []time.Duration{0, 1 * ms, 2 * ms, 4 * ms, 8 * ms, 16 * ms, 32 * ms, 64 * ms, 128 * ms, 256 * ms,
		512 * ms, 500 * ms, 500 * ms, 500 * ms}; !slices.Equal(best, want) {
		t.Errorf("BestEffort's delays for 14 temporary failures = %v, want %v", best, want)
	}
	// The previous-duration rule through the orchestrator: five not-my-vbuckets (1, 10, 50, 100,
	// 500 ms) leave lastRetryDuration at 500ms, so the temporary failure that follows waits
	// 500ms, not 2^4 = 16ms.
	p.Begin(&st, kvUpsert, 0, sim.Never)
	for range 5 {
		p.Failed(&st, kvNMVB, 0, nil)
	}
	if d := p.Failed(&st, kvTempFail, 0, nil); d.Backoff != 500*ms {
		t.Errorf("temporary failure after five not-my-vbuckets: %v, want 500ms", d.Backoff)
	}
	// And every one after it: each BestEffort delay is then 500 ms, so the next sees 500 ms too
	// (the request keeps its lastRetryDuration rather than working it out from the reason).
	for i := range 4 {
		if d := p.Failed(&st, kvTempFail, 0, nil); d.Backoff != 500*ms {
			t.Errorf("temporary failure %d after the ladder's 500ms and a BestEffort 500ms: %v, want 500ms", i+2, d.Backoff)
		}
	}
}

// RFC 0049, RetryOrchestrator and the strategies: reason × idempotency × stage → retry or fail.
// A response the "Response Code Retry List" does not name is UNKNOWN and fails the request at
// once, idempotent or not: "once a complete, known response is received it should not be
// retried, unless specifically outlined in this list"; "All unexpected/unknown retry errors must
// not be retried" ("RetryReason").
func TestOrchestratorTable(t *testing.T) {
	tests := []struct {
		gloss      string
		f          Failure
		c          Class
		bestEffort bool // BestEffort retries
		failFast   bool // FailFast retries (always-retry reasons only)
	}{
		{"dispatch failure, non-idempotent: nothing was sent", noSocket, kvUpsert, true, false},
		{"dispatch failure, idempotent", noSocket, kvGet, true, false},
		{"socket closed in flight, idempotent", closedInAir, kvGet, true, false},
		{"socket closed in flight, non-idempotent: may have been applied", closedInAir, kvUpsert, false, false},
		{"temporary failure, non-idempotent: no state changed", kvTempFail, kvUpsert, true, false},
		{"not my vbucket: always retried, even by fail-fast", kvNMVB, kvUpsert, true, true},
		{"views no active partition: always", Failure{Code: wire.HTTPFound}, viewReq, true, true},
		{"unknown response, idempotent: never reaches the orchestrator", Failure{Code: wire.QueryRequestQueueFull}, queryRO, false, false},
		{"unknown response, non-idempotent", Failure{Code: wire.QueryRequestQueueFull}, queryWrite, false, false},
		{"unlisted search 503, idempotent", Failure{Code: wire.HTTPServiceUnavailable}, searchReq, false, false},
		{"a MongoDB 462 on a KV get, idempotent", rejected, kvGet, false, false},
		{"search 429, idempotent", Failure{Code: wire.HTTPTooManyRequests}, searchReq, true, false},
		{"locked on unlock, non-idempotent", Failure{Code: wire.KVLocked}, kvUnlock, false, false},
	}
	for _, tc := range tests {
		for _, p := range []struct {
			name string
			want bool
		}{{NameCouchbaseBestEffort, tc.bestEffort}, {NameCouchbaseFailFast, tc.failFast}} {
			pol := mustNew(t, p.name, DefaultOptions())
			var st State
			pol.Begin(&st, tc.c, 0, sim.Time(time.Hour))
			d := pol.Failed(&st, tc.f, 0, nil)
			if d.Retry != p.want {
				t.Errorf("%s: %s retries = %v, want %v (%v)", tc.gloss, p.name, d.Retry, p.want, d)
			}
			if d.Reason != ReasonOf(tc.f, tc.c) {
				t.Errorf("%s: decision reason %v, want %v: every retry and non-retry is logged with its reason", tc.gloss, d.Reason, ReasonOf(tc.f, tc.c))
			}
			if !d.Retry && (d.Err != tc.f || st.Retries() != 0) {
				t.Errorf("%s: %s gave up with %v after %d retries, want the failure itself", tc.gloss, p.name, d.Err, st.Retries())
			}
			if d.Reason == ReasonUnknown && d.Why != NotRetryable {
				t.Errorf("%s: %s gave up on UNKNOWN with %v, want NotRetryable: no strategy is asked", tc.gloss, p.name, d.Why)
			}
		}
	}
}

// fixedStrategy asks for the same delay every time: a user's own backoff calculator, as the RFC
// lets BestEffort take one.
type fixedStrategy time.Duration

func (f fixedStrategy) retryAfter(*State, Reason, time.Duration) (time.Duration, bool) {
	return time.Duration(f), true
}

// RFC 0049, "Capping the Retry Duration": "if a KV operation is 2s into its lifetime and a retry
// duration asks for a 1s sleep and the overall KV timeout is 2.5s, it must be capped down to
// 500ms", and the request is cancelled then instead of being sent again.
func TestCapping(t *testing.T) {
	p := &couchbase{name: "test", strategy: fixedStrategy(time.Second), refused: NotRetryable}
	var st State
	p.Begin(&st, kvGet, 0, sim.Time(2500*time.Millisecond))
	d := p.Failed(&st, kvTempFail, sim.Time(2*time.Second), nil)
	if !d.Retry || d.Backoff != 500*time.Millisecond || !d.Cancel {
		t.Errorf("2s into 2.5s, 1s asked: %+v, want a 500ms wait, then cancel", d)
	}
	p.Begin(&st, kvGet, 0, sim.Time(2500*time.Millisecond))
	d = p.Failed(&st, kvTempFail, sim.Time(time.Second), nil)
	if d.Backoff != time.Second || d.Cancel {
		t.Errorf("1s into 2.5s, 1s asked: %+v, want the full 1s and a real retry", d)
	}
	// The controlled ladder is capped the same way: 1000ms asked at 2.2s of 2.5s.
	var cb State
	be := mustNew(t, NameCouchbaseBestEffort, DefaultOptions())
	be.Begin(&cb, kvGet, 0, sim.Time(2500*time.Millisecond))
	cb.retries = 5
	if d := be.Failed(&cb, kvNMVB, sim.Time(2200*time.Millisecond), nil); d.Backoff != 300*time.Millisecond || !d.Cancel {
		t.Errorf("not-my-vbucket at 2.2s after 5 retries: %+v, want 300ms then cancel", d)
	}
}

// docs/model.md §9.9 (derived): under total rejection with instant failures, BestEffort's delays sum
// to 0, 1, 3, 7, …, 511, 1023, 1523, 2023 ms, so 13 retries start inside the 2.5 s KV timeout:
// 14 attempts; the 14th retry's 500 ms is capped to the 477 ms left and cancelled.
func TestWorstCaseAttemptsInKVTimeout(t *testing.T) {
	p := mustNew(t, NameCouchbaseBestEffort, DefaultOptions())
	timeout, ok := RequestTimeout(p, kvGet)
	if !ok || timeout != DefaultKVTimeout {
		t.Fatalf("RequestTimeout(kvGet) = %v, %v; want the 2.5s KV default", timeout, ok)
	}
	var st State
	deadline := sim.Time(timeout)
	p.Begin(&st, kvGet, 0, deadline)
	now, attempts := sim.Time(0), 1
	var starts []time.Duration
	for {
		d := p.Failed(&st, kvTempFail, now, nil)
		if !d.Retry {
			t.Fatalf("BestEffort gave up before the timeout: %+v", d)
		}
		now = now.Add(d.Backoff)
		if d.Cancel {
			break
		}
		attempts++
		starts = append(starts, time.Duration(now))
	}
	if attempts != 14 || now != deadline {
		t.Errorf("%d attempts, ended at %v; want 14 attempts, cancelled at the 2.5s deadline", attempts, time.Duration(now))
	}
	if last := starts[len(starts)-1]; last != 2023*time.Millisecond {
		t.Errorf("last retry started at %v, want 2.023s", last)
	}
	if got := st.Reasons(); !slices.Equal(got, []Reason{ReasonKVTemporaryFailure}) {
		t.Errorf("Reasons() = %v", got)
	}
	q, _ := RequestTimeout(p, queryRO)
	s, _ := RequestTimeout(p, searchReq)
	if q != 75*time.Second || s != 75*time.Second {
		t.Errorf("query/search timeouts %v %v, want 75s", q, s)
	}
	if _, ok := RequestTimeout(mustNew(t, NameMongoDB202603, DefaultOptions()), find); ok {
		t.Error("MongoDB policies have no per-request timeout: timeoutMS governs them")
	}
}

// Options: the Couchbase timeouts apply only to Couchbase policies; the MongoDB options must keep
// their defaults there.
func TestCouchbaseOptions(t *testing.T) {
	o := DefaultOptions()
	o.KVTimeout = time.Second
	if err := o.Validate(NameMongoDB202603); err == nil {
		t.Error("kvTimeout on mongodb-2026-03 must be refused")
	}
	p, err := New(NameCouchbaseBestEffort, o)
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := RequestTimeout(p, kvGet); d != time.Second {
		t.Errorf("kvTimeout 1s: RequestTimeout = %v", d)
	}
	o = DefaultOptions()
	o.AdaptiveRetries = true
	o.QueryTimeout = -time.Second
	err = o.Validate(NameCouchbaseFailFast)
	if err == nil || !strings.Contains(err.Error(), "adaptiveRetries") || !strings.Contains(err.Error(), "queryTimeout: -1s") {
		t.Errorf("Validate = %v, want both adaptiveRetries and queryTimeout named", err)
	}
	for _, mod := range []func(*Options){
		func(o *Options) { o.CSOT = true },
		func(o *Options) { o.RetryReads = false },
	} {
		o := DefaultOptions()
		mod(&o)
		if err := o.Validate(NameCouchbaseBestEffort); err == nil {
			t.Errorf("%s: a MongoDB option couchbase-besteffort would ignore must be refused", o)
		}
	}
	if !Couchbase(NameCouchbaseFailFast) || Couchbase(NameMongoDB202607) || Couchbase("nope") {
		t.Error("Couchbase(name)")
	}
}
