package client

import (
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/client/retry"
	"github.com/overloadsim/overloadsim/server"
	"github.com/overloadsim/overloadsim/server/failpoint"
	"github.com/overloadsim/overloadsim/sim"
)

// The JVM core's LazyCircuitBreaker, step by step with the default configuration: it opens
// once at least 20 requests in the rolling window saw at least 50 % failures; it refuses
// requests for the 5 s sleep window; then one canary goes through (half-open, the rest still
// refused); the canary's failure reopens it, its success closes it with fresh counts.
func TestBreakerStates(t *testing.T) {
	s := func(sec float64) sim.Time { return sim.Time(sec * 1e9) }
	b := newBreaker(DefaultCircuitBreaker(), 0)
	for i := 0; i < 10; i++ {
		b.track()
		b.markSuccess(s(1))
	}
	for i := 0; i < 9; i++ {
		b.track()
		b.markFailure(s(1))
	}
	if b.state != breakerClosed || !b.allows(s(1)) {
		t.Fatalf("19 requests, 9 failed: %v, want closed (below the volume threshold)", b.state)
	}
	b.track()
	b.markFailure(s(2)) // 20 requests, 10 failed: 50 %
	if b.state != breakerOpen || b.allows(s(2)) || b.allows(s(7)) {
		t.Fatalf("20 requests, 10 failed: state %v, allows at 7s %v; want open for more than 5s", b.state, b.allows(s(7)))
	}
	if !b.allows(s(7.001)) {
		t.Fatal("after the sleep window a canary must go through")
	}
	b.track()
	if b.state != breakerHalfOpen || b.allows(s(7.002)) {
		t.Fatalf("with the canary out: %v, want half-open, refusing the rest", b.state)
	}
	b.markFailure(s(8))
	if b.state != breakerOpen || b.allows(s(12)) || !b.allows(s(13.001)) {
		t.Fatalf("the canary failed: %v, want open for another sleep window from 8s", b.state)
	}
	b.track()
	b.markSuccess(s(13.5))
	if b.state != breakerClosed || b.total != 0 || b.failed != 0 {
		t.Fatalf("the canary succeeded: %v total %d failed %d, want closed with fresh counts", b.state, b.total, b.failed)
	}
	// The rolling window: counts older than a minute are dropped before counting on.
	for i := 0; i < 15; i++ {
		b.markFailure(s(14))
	}
	for i := 0; i < 10; i++ {
		b.markFailure(s(80)) // 66 s after the window began at 13.5 s: a new window
	}
	if b.state != breakerClosed || b.total != 10 {
		t.Errorf("after the window rolled: %v with %d counted, want closed with 10", b.state, b.total)
	}
	if err := (CircuitBreaker{Enabled: true}).Validate(); err == nil {
		t.Error("an enabled breaker with zero thresholds and windows must be refused")
	}
}

// Through a real node: every KV request blocks 3 s on the node (a failpoint), past the 1 s
// kvTimeout, so requests time out in flight — the failures the breaker counts. After
// volumeThreshold of them the circuit opens and later requests are refused at dispatch and
// retried as CIRCUIT_BREAKER_OPEN, never reaching the node, until they time out.
func TestBreakerOpensOnTimeouts(t *testing.T) {
	opts := DefaultOptions()
	opts.RetryPolicy = retry.NameCouchbaseBestEffort
	opts.Retry.KVTimeout = time.Second
	opts.CircuitBreaker = DefaultCircuitBreaker()
	opts.CircuitBreaker.VolumeThreshold = 5
	e := newEnv(t, envConfig{nodes: standalone(func(c *server.Config) { c.Flavor = server.FlavorCouchbase }),
		opts: opts, jitter: -1})
	e.arm("db", failpoint.Config{Mode: failpoint.AlwaysOn(), FailCommands: []string{"kvGet"}, BlockConnection: true, BlockTimeMS: 3000})
	var specs []Spec
	for range 5 {
		specs = append(specs, Spec{Kind: KVGet})
	}
	first := e.run(discovered, specs...)
	for _, r := range first {
		if r.OK || r.Class != ErrTimeout || r.Attempts != 1 {
			t.Errorf("blocked request: %+v, want a timeout after its one attempt", r)
		}
	}
	sent := e.client.Snapshot().AttemptsStarted
	e.results = nil
	later := e.run(discovered+sim.Time(2*time.Second), Spec{Kind: KVGet})[0]
	st := e.client.Snapshot()
	if later.OK || later.Class != ErrTimeout || st.AttemptsStarted != sent {
		t.Errorf("with the circuit open: %+v, %d attempts sent (was %d); want a timeout with nothing sent", later, st.AttemptsStarted, sent)
	}
	if st.RetriedByReason[retry.ReasonCircuitBreakerOpen] == 0 {
		t.Error("no retry logged as CIRCUIT_BREAKER_OPEN")
	}
	o := DefaultOptions()
	o.CircuitBreaker = DefaultCircuitBreaker()
	if err := o.Validate(0); err == nil {
		t.Error("a circuit breaker on a MongoDB policy must be refused")
	}
}
