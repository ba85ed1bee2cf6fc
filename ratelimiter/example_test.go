package ratelimiter_test

import (
	"fmt"
	"time"

	"github.com/overloadsim/overloadsim/ratelimiter"
	"github.com/overloadsim/overloadsim/sim"
)

// The 8.2 ingress request rate limiter: try-acquire, reject at once when no token is left.
func ExampleTokenBucket() {
	// 100 requests/s with a burst of 50 ms: 5 tokens, one more every 10 ms.
	b, err := ratelimiter.NewTokenBucket(ratelimiter.Config{RatePerSec: 100, BurstCapacitySecs: 0.05}, 0)
	if err != nil {
		panic(err)
	}
	admitted := 0
	for range 8 { // eight requests at the same instant
		if b.TryAcquire(0) {
			admitted++
		}
	}
	fmt.Println("admitted at 0s:", admitted)
	fmt.Println("admitted at 5ms:", b.TryAcquire(sim.Time(5*time.Millisecond)))
	fmt.Println("admitted at 10ms:", b.TryAcquire(sim.Time(10*time.Millisecond)))
	s := b.Stats(sim.Time(10 * time.Millisecond))
	fmt.Printf("attempted=%d successful=%d rejected=%d available=%.2f\n",
		s.AttemptedAdmissions, s.SuccessfulAdmissions, s.RejectedAdmissions, s.TotalAvailableTokens)
	// Output:
	// admitted at 0s: 5
	// admitted at 5ms: false
	// admitted at 10ms: true
	// attempted=10 successful=6 rejected=4 available=0.00
}

// The connection-establishment limiter as the SDAM "Connection Pool Backpressure" test sets it
// up: 20 connections/s, a burst of 1 s, at most one connection waiting.
func ExampleTokenBucket_Acquire() {
	b, err := ratelimiter.NewTokenBucket(ratelimiter.Config{RatePerSec: 20, BurstCapacitySecs: 1, MaxQueueDepth: 1}, 0)
	if err != nil {
		panic(err)
	}
	var now, waitsUntil sim.Time
	atOnce, rejected := 0, 0
	for range 22 {
		switch r, ok := b.Acquire(now); {
		case !ok:
			rejected++ // the server closes this connection
		case r.At == now:
			atOnce++
		default:
			waitsUntil = r.At
		}
	}
	fmt.Println("admitted at once:", atOnce)
	fmt.Println("one waits until:", waitsUntil)
	fmt.Println("rejected:", rejected)
	s := b.Stats(sim.Time(time.Second))
	fmt.Printf("successful=%d queued=%d averageTimeQueuedMicros=%.0f\n",
		s.SuccessfulAdmissions, s.Queued, s.AverageTimeQueuedMicros)
	// Output:
	// admitted at once: 20
	// one waits until: 50ms
	// rejected: 1
	// successful=21 queued=0 averageTimeQueuedMicros=10000
}

// Client Backpressure prose test 4: with two tokens in the bucket, two overload retries are
// allowed and the third is refused.
func ExampleRetryTokenBucket() {
	b, err := ratelimiter.NewRetryTokenBucket(ratelimiter.DefaultRetryTokenCapacity)
	if err != nil {
		panic(err)
	}
	b.Set(2)
	for retry := 1; retry <= 3; retry++ {
		fmt.Printf("retry %d allowed: %v\n", retry, b.Consume(ratelimiter.RetryCost))
	}
	b.Deposit(ratelimiter.RetryTokenReturn) // a later command succeeds on its first attempt
	fmt.Printf("tokens: %.1f\n", b.Tokens())
	// Output:
	// retry 1 allowed: true
	// retry 2 allowed: true
	// retry 3 allowed: false
	// tokens: 0.1
}

// A mongos retrying a shard: the shard's budget pays for overload retries and is repaid by
// attempts that were not overloaded.
func ExampleRetryBudget() {
	b, err := ratelimiter.NewRetryBudget(ratelimiter.DefaultRetryBudgetConfig())
	if err != nil {
		panic(err)
	}
	// An operation fails twice with SystemOverloadedError, then succeeds.
	fmt.Println("retry allowed:", b.TryAcquireToken())
	fmt.Println("retry allowed:", b.TryAcquireToken())
	b.RecordNotOverloaded(true) // its previous attempt was overloaded: 0.1 + 1 back
	fmt.Printf("balance: %.1f\n", b.Balance())
	// Output:
	// retry allowed: true
	// retry allowed: true
	// balance: 999.1
}
