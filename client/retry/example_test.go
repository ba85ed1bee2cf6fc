package retry_test

import (
	"fmt"
	"time"

	"github.com/overloadsim/overloadsim/client/retry"
	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
)

// full is a Jitter that always returns 1: every backoff is the formula's ceiling.
type full struct{}

func (full) Float64() float64 { return 1 }

// Example prints each policy's backoff ladder for a find that the ingress request rate limiter
// rejects on every attempt (code 462 with SystemOverloadedError, RetryableError and
// NoWritesPerformed), with jitter 1, as a driver would run it.
func Example() {
	rejected := retry.Failure{
		Code:   wire.IngressRequestRateLimitExceeded,
		Labels: wire.SystemOverloadedError | wire.RetryableError | wire.NoWritesPerformed,
	}
	for _, name := range retry.Names() {
		if !retry.MongoDBDriver(name) || retry.Release(name) {
			continue // Couchbase SDKs do not speak to MongoDB (see ExampleReasonOf); other stacks' policies have examples of their own
		}
		p, err := retry.New(name, retry.DefaultOptions())
		if err != nil {
			fmt.Println(err)
			return
		}
		var st retry.State
		p.Begin(&st, retry.Class{RetryableRead: true}, 0, sim.Never)
		now := sim.Time(0)
		var ladder []time.Duration
		for {
			d := p.Failed(&st, rejected, now, full{})
			if !d.Retry {
				fmt.Printf("%-15s %d attempts, backoffs %v, then %v: %v\n", name, st.Retries()+1, ladder, d.Why, d.Err.Code)
				break
			}
			ladder = append(ladder, d.Backoff)
			now = now.Add(d.Backoff)
		}
	}
	// Output:
	// mongodb-2026-03 6 attempts, backoffs [100ms 200ms 400ms 800ms 1.6s], then MaxRetries: IngressRequestRateLimitExceeded
	// mongodb-2026-07 3 attempts, backoffs [200ms 400ms], then MaxRetries: IngressRequestRateLimitExceeded
	// mongodb-legacy  1 attempts, backoffs [], then NotRetryable: IngressRequestRateLimitExceeded
	// none            1 attempts, backoffs [], then Disabled: IngressRequestRateLimitExceeded
}

// ExampleReasonOf shows Couchbase SDK3 retry handling for an upsert (not idempotent) and a get
// (idempotent): a temporary failure is retried for both, a socket closed in flight only for the
// get, and not-my-vbucket for both even under fail-fast, with the controlled backoff.
func ExampleReasonOf() {
	upsert := retry.Class{Service: wire.ServiceKV}
	get := retry.Class{Service: wire.ServiceKV, Idempotent: true}
	failures := []struct {
		name string
		f    retry.Failure
	}{
		{"0x86", retry.Failure{Code: wire.KVTemporaryFailure}},
		{"closed", retry.Failure{Network: true}},
		{"0x07", retry.Failure{Code: wire.KVNotMyVbucket}},
	}
	for _, name := range []string{retry.NameCouchbaseBestEffort, retry.NameCouchbaseFailFast} {
		p, _ := retry.New(name, retry.DefaultOptions())
		for _, c := range []struct {
			op    string
			class retry.Class
		}{{"upsert", upsert}, {"get", get}} {
			for _, fl := range failures {
				var st retry.State
				p.Begin(&st, c.class, 0, sim.Time(2500*time.Millisecond))
				d := p.Failed(&st, fl.f, 0, nil)
				if !d.Retry {
					fmt.Printf("%-20s %-6s %-6s %-29s fails\n", name, c.op, fl.name, d.Reason)
					continue
				}
				d2 := p.Failed(&st, fl.f, sim.Time(d.Backoff), nil)
				fmt.Printf("%-20s %-6s %-6s %-29s retries after %v, then %v\n", name, c.op, fl.name, d.Reason, d.Backoff, d2.Backoff)
			}
		}
	}
	// Output:
	// couchbase-besteffort upsert 0x86   KV_TEMPORARY_FAILURE          retries after 0s, then 1ms
	// couchbase-besteffort upsert closed SOCKET_CLOSED_WHILE_IN_FLIGHT fails
	// couchbase-besteffort upsert 0x07   KV_NOT_MY_VBUCKET             retries after 1ms, then 10ms
	// couchbase-besteffort get    0x86   KV_TEMPORARY_FAILURE          retries after 0s, then 1ms
	// couchbase-besteffort get    closed SOCKET_CLOSED_WHILE_IN_FLIGHT retries after 0s, then 1ms
	// couchbase-besteffort get    0x07   KV_NOT_MY_VBUCKET             retries after 1ms, then 10ms
	// couchbase-failfast   upsert 0x86   KV_TEMPORARY_FAILURE          fails
	// couchbase-failfast   upsert closed SOCKET_CLOSED_WHILE_IN_FLIGHT fails
	// couchbase-failfast   upsert 0x07   KV_NOT_MY_VBUCKET             retries after 1ms, then 10ms
	// couchbase-failfast   get    0x86   KV_TEMPORARY_FAILURE          fails
	// couchbase-failfast   get    closed SOCKET_CLOSED_WHILE_IN_FLIGHT fails
	// couchbase-failfast   get    0x07   KV_NOT_MY_VBUCKET             retries after 1ms, then 10ms
}
