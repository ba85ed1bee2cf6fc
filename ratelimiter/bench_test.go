package ratelimiter

import (
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/sim"
)

// BenchmarkTryAcquire offers twice the refill rate (R = 1000/s, a request every 500 µs), so
// half the calls admit and half reject, each after a lazy refill.
func BenchmarkTryAcquire(b *testing.B) {
	tb := mustBucket(b, Config{RatePerSec: 1000, BurstCapacitySecs: 0.01}, 0)
	step := sim.Time(500 * time.Microsecond)
	var now sim.Time
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		now += step
		tb.TryAcquire(now)
	}
}

// BenchmarkAcquireQueued offers bursts of 10 requests every 10 ms at R = 1000/s, C = 1: each
// burst queues 9 callers that are admitted 1 ms apart before the next burst, so the waiter heap
// cycles between 0 and 9 entries without growing.
func BenchmarkAcquireQueued(b *testing.B) {
	tb := mustBucket(b, Config{RatePerSec: 1000, BurstCapacitySecs: 0.001, MaxQueueDepth: 100}, 0)
	burst := sim.Time(10 * time.Millisecond)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if _, ok := tb.Acquire(sim.Time(i/10) * burst); !ok {
			b.Fatal("Acquire rejected")
		}
	}
}
