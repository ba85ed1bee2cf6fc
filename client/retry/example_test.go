package retry_test

import (
	"fmt"
	"time"

	"overloadsim/client/retry"
	"overloadsim/sim"
	"overloadsim/wire"
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
		p, err := retry.New(name, retry.DefaultOptions())
		if err != nil {
			fmt.Println(err)
			return
		}
		var st retry.State
		p.Begin(&st, retry.Class{RetryableRead: true}, sim.Never)
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
