package mongos

import (
	"math"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/server"
	"github.com/overloadsim/overloadsim/server/failpoint"
	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
)

const overloadLabels = wire.SystemOverloadedError | wire.RetryableError | wire.NoWritesPerformed

// docs/model.md §7.2, DefaultRetryStrategy: stop when retryAttemptCount >= maxRetryAttempts. A
// shard that rejects every attempt with 462 sees 1 + defaultClientMaxRetryAttempts attempts;
// the driver then gets 462 with the configured exhausted-retry labels (docs/model.md §7.4).
func TestMaxRetryAttempts(t *testing.T) {
	for _, tc := range []struct {
		name    string
		retries int
		labels  wire.Labels
	}{
		{"default labels: drivers do not retry", 3, wire.SystemOverloadedError},
		{"retryable labels: layered amplification", 3, overloadLabels},
		{"zero retries (jstest runTestZeroRetries)", 0, overloadLabels},
		{"one retry", 1, wire.SystemOverloadedError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.MaxRetryAttempts, cfg.ExhaustedLabels = tc.retries, tc.labels
			w := newWorld(t, cfg, 1, rs(1))
			w.failAll(0, "find", wire.IngressRequestRateLimitExceeded, failpoint.AlwaysOn())
			w.drv.Send(0, wire.Find, nil)
			w.run(30 * time.Second)

			a := w.drv.Only(t)
			if a.Code != wire.IngressRequestRateLimitExceeded || a.Labels != tc.labels {
				t.Errorf("driver got %v %v, want 462 %v", a.Code, a.Labels, tc.labels)
			}
			if got, want := w.attempts(0, 0), uint64(1+tc.retries); got != want {
				t.Errorf("attempts on the shard = %d, want %d", got, want)
			}
			st := w.router.Stats()[0]
			want := ShardStats{
				Shard:                  "rs0",
				NumOperationsAttempted: 1,
				NumOperationsRetriedAtLeastOnceDueToOverload: 1, // counted on the first overload error
				NumRetriesDueToOverloadAttempted:             uint64(tc.retries),
				NumOverloadErrorsReceived:                    uint64(1 + tc.retries),
				TotalBackoffTime:                             st.TotalBackoffTime,
				// every overload error took a token, the last one too (the wrapped strategy
				// declined after the budget said yes)
				RetryBudgetTokenBucketBalance: 1000 - float64(1+tc.retries),
			}
			if st != want {
				t.Errorf("Stats = %+v\nwant    %+v", st, want)
			}
			if tc.retries > 0 && st.TotalBackoffTime == 0 {
				t.Errorf("TotalBackoffTime = 0 after %d overload retries", tc.retries)
			}
		})
	}
}

// docs/model.md §7.3: non-overload retryable failures are retried with delay 0 if no overload was
// seen yet, and they do not advance the backoff counter: after an overload, the current i is
// reused.
func TestNonOverloadRetryNoBackoff(t *testing.T) {
	t.Run("no overload seen: retried at once", func(t *testing.T) {
		w := newWorld(t, DefaultConfig(), 1, rs(1))
		j := &countJitter{j: maxJitter{}}
		w.router.jitter = j
		w.fail(0, 0, "find", wire.PrimarySteppedDown, failpoint.Times(2))
		w.drv.Send(0, wire.Find, nil)
		w.run(10 * time.Second)
		a := w.drv.Only(t)
		if !a.OK() {
			t.Fatalf("driver got %+v, want OK", a.Reply)
		}
		if got := w.attempts(0, 0); got != 3 {
			t.Errorf("attempts = %d, want 3", got)
		}
		st := w.router.Stats()[0]
		if st.TotalBackoffTime != 0 || j.draws != 0 || st.NumOverloadErrorsReceived != 0 {
			t.Errorf("backoff %v with %d draws, %d overload errors; want none", st.TotalBackoffTime, j.draws, st.NumOverloadErrorsReceived)
		}
		// connect 4ms (1ms each way + 2ms handshake), then three 2ms round trips on the
		// connection, plus 1ms of work for the one that ran
		if want := sim.Time(11 * time.Millisecond); a.Got != want {
			t.Errorf("answered at %v, want %v (no sleep)", a.Got, want)
		}
	})
	t.Run("after an overload: i is reused", func(t *testing.T) {
		// t=6ms 462 → i=1, sleep 200ms (jitter at max); at 100ms the failpoint changes to
		// 189 once; t=208ms 189 → sleep 200ms again (i stays 1); t≈411ms success.
		w := newWorld(t, DefaultConfig(), 1, rs(1))
		w.router.jitter = maxJitter{}
		w.fail(0, 0, "find", wire.IngressRequestRateLimitExceeded, failpoint.Times(1))
		w.loop.At(sim.Time(100*time.Millisecond), sim.HandlerFunc(func(sim.Time, int, any) {
			w.fail(0, 0, "find", wire.PrimarySteppedDown, failpoint.Times(1))
		}), 0, nil)
		w.drv.Send(0, wire.Find, nil)
		w.run(10 * time.Second)
		a := w.drv.Only(t)
		if !a.OK() {
			t.Fatalf("driver got %+v, want OK", a.Reply)
		}
		st := w.router.Stats()[0]
		if st.TotalBackoffTime != 400*time.Millisecond {
			t.Errorf("TotalBackoffTime = %v, want 400ms (200ms twice)", st.TotalBackoffTime)
		}
		// Shard::RetryStrategy: the 189 after the 462 is a non-overloaded attempt after an
		// overloaded one, so "…AndSucceeded" counts it; the final success does not again.
		want := ShardStats{
			Shard: "rs0", NumOperationsAttempted: 1,
			NumOperationsRetriedAtLeastOnceDueToOverload:             1,
			NumOperationsRetriedAtLeastOnceDueToOverloadAndSucceeded: 1,
			NumRetriesDueToOverloadAttempted:                         1,
			NumOverloadErrorsReceived:                                1,
			TotalBackoffTime:                                         400 * time.Millisecond,
			RetryBudgetTokenBucketBalance:                            1000,
		}
		if st != want {
			t.Errorf("Stats = %+v\nwant    %+v", st, want)
		}
	})
}

// docs/model.md §7.2, Shard variants of the retry criteria: reads are kIdempotent (RetriableError
// category or a retryable label), writes kNotIdempotent (NotPrimary errors, or the
// RetryableError label of an overload rejection, which did not write).
func TestRetryCriteria(t *testing.T) {
	for _, tc := range []struct {
		name     string
		cmd      wire.Command
		code     wire.Code
		attempts uint64
		want     wire.Reply
	}{
		{"read, HostUnreachable: RetriableError category", wire.Find, wire.HostUnreachable, 4,
			wire.Reply{Code: wire.HostUnreachable}},
		{"read, PrimarySteppedDown", wire.Find, wire.PrimarySteppedDown, 4,
			wire.Reply{Code: wire.PrimarySteppedDown}},
		{"read, InternalError: not retriable", wire.Find, wire.InternalError, 1,
			wire.Reply{Code: wire.InternalError}},
		{"read, AdmissionQueueOverflow: overload but not retryable", wire.Find, wire.AdmissionQueueOverflow, 1,
			wire.Reply{Code: wire.AdmissionQueueOverflow, Labels: wire.SystemOverloadedError}},
		{"write, NotWritablePrimary: a NotPrimary error", wire.Insert, wire.NotWritablePrimary, 4,
			wire.Reply{Code: wire.NotWritablePrimary, Labels: wire.RetryableWriteError}},
		{"write, HostUnreachable: not retried, it may have written", wire.Insert, wire.HostUnreachable, 1,
			wire.Reply{Code: wire.HostUnreachable, Labels: wire.RetryableWriteError}},
		{"write, 462: RetryableError and NoWritesPerformed", wire.Insert, wire.IngressRequestRateLimitExceeded, 4,
			wire.Reply{Code: wire.IngressRequestRateLimitExceeded, Labels: wire.SystemOverloadedError}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, DefaultConfig(), 1, rs(1))
			w.failAll(0, tc.cmd.String(), tc.code, failpoint.AlwaysOn())
			w.drv.Send(0, tc.cmd, nil)
			w.run(30 * time.Second)
			a := w.drv.Only(t)
			if a.Code != tc.want.Code || a.Labels != tc.want.Labels || a.NetErr {
				t.Errorf("driver got %v %v, want %v %v", a.Code, a.Labels, tc.want.Code, tc.want.Labels)
			}
			if got := w.attempts(0, 0); got != tc.attempts {
				t.Errorf("attempts = %d, want %d", got, tc.attempts)
			}
		})
	}
}

// A connection the member refuses fails the attempt with HostUnreachable (6): a retryable
// error that is not an overload (reads retry it at once; writes, kNotIdempotent, do not).
func TestConnectionRefused(t *testing.T) {
	refuse := func(c *server.Config) {
		// a bucket of half a token with no queue: every connection is refused
		c.ConnLimiter = server.ConnLimiterConfig{Enabled: true, RatePerSec: 0.5, BurstCapacitySecs: 1}
	}
	for _, tc := range []struct {
		cmd      wire.Command
		attempts uint64
	}{{wire.Find, 4}, {wire.Insert, 1}} {
		t.Run(tc.cmd.String(), func(t *testing.T) {
			w := newWorld(t, DefaultConfig(), 1, []memberSpec{{role: wire.Primary, delay: time.Millisecond, mod: refuse}})
			w.drv.Send(0, tc.cmd, nil)
			w.run(10 * time.Second)
			a := w.drv.Only(t)
			if a.Code != wire.HostUnreachable || a.Labels != 0 {
				t.Errorf("driver got %v %v, want HostUnreachable []", a.Code, a.Labels)
			}
			if got := w.shards[0][0].Snapshot(w.loop.Now()).ConnRejected; got != tc.attempts {
				t.Errorf("connections refused = %d, want %d", got, tc.attempts)
			}
			st := w.router.Stats()[0]
			if st.NumOverloadErrorsReceived != 0 || st.TotalBackoffTime != 0 {
				t.Errorf("Stats = %+v, want no overload and no backoff", st)
			}
		})
	}
}

// docs/model.md §7.2, AdaptiveRetryStrategy + RetryBudget: with capacity 2 and every attempt
// overloaded, the shard's budget allows exactly 2 retries across operations, then none;
// attempts that are not overloaded return 0.1, plus 1 after an overloaded attempt, capped at the
// capacity.
func TestRetryBudget(t *testing.T) {
	cfg := DefaultConfig()
	cfg.BudgetCapacity = 2
	balance := func(w *world) float64 { return w.router.Stats()[0].RetryBudgetTokenBucketBalance }

	t.Run("two retries, then none", func(t *testing.T) {
		w := newWorld(t, cfg, 1, rs(1))
		w.failAll(0, "find", wire.IngressRequestRateLimitExceeded, failpoint.AlwaysOn())
		w.drv.Send(0, wire.Find, nil)
		w.run(30 * time.Second) // op 1: 2→1, retry; 1→0, retry; no token: gives up
		w.drv.Send(w.loop.Now(), wire.Find, nil)
		w.run(30 * time.Second) // op 2: no token: gives up at once
		if got := w.attempts(0, 0); got != 4 {
			t.Errorf("attempts = %d, want 3 + 1", got)
		}
		st := w.router.Stats()[0]
		if st.NumRetriesDueToOverloadAttempted != 2 || st.NumOverloadErrorsReceived != 4 || balance(w) != 0 {
			t.Errorf("retries %d, overload errors %d, balance %v; want 2, 4, 0",
				st.NumRetriesDueToOverloadAttempted, st.NumOverloadErrorsReceived, balance(w))
		}
		for i, a := range w.drv.Replies {
			if a.Code != wire.IngressRequestRateLimitExceeded {
				t.Errorf("reply %d = %v, want 462", i, a.Code)
			}
		}
		// A success deposits the return rate.
		w.shards[0][0].SetFailPoint(w.loop.Now(), nil)
		w.drv.Send(w.loop.Now(), wire.Find, nil)
		w.run(time.Second)
		if b := balance(w); b != 0.1 {
			t.Errorf("balance after a success = %v, want 0.1", b)
		}
	})
	t.Run("deposits after an overloaded attempt, capped", func(t *testing.T) {
		w := newWorld(t, cfg, 1, rs(1))
		w.fail(0, 0, "find", wire.IngressRequestRateLimitExceeded, failpoint.Times(2))
		w.drv.Send(0, wire.Find, nil)
		w.run(30 * time.Second) // 2→1→0, then the success returns 0.1 + 1
		if b := balance(w); math.Abs(b-1.1) > 1e-12 {
			t.Errorf("balance = %v, want 1.1", b)
		}
		w.drv.Send(w.loop.Now(), wire.Find, nil)
		w.run(time.Second)
		if b := balance(w); math.Abs(b-1.2) > 1e-12 {
			t.Errorf("balance = %v, want 1.2", b)
		}
		for range 20 {
			w.drv.Send(w.loop.Now(), wire.Find, nil)
			w.run(time.Second)
		}
		if b := balance(w); b != 2 {
			t.Errorf("balance = %v, want the capacity 2", b)
		}
	})
	t.Run("no budget: DefaultRetryStrategy alone, balance +Inf", func(t *testing.T) {
		c := cfg
		c.RetryBudget = false
		w := newWorld(t, c, 1, rs(1))
		w.failAll(0, "find", wire.IngressRequestRateLimitExceeded, failpoint.AlwaysOn())
		for range 3 {
			w.drv.Send(w.loop.Now(), wire.Find, nil)
			w.run(30 * time.Second)
		}
		if got := w.attempts(0, 0); got != 12 {
			t.Errorf("attempts = %d, want 3 × 4", got)
		}
		if b := balance(w); !math.IsInf(b, 1) {
			t.Errorf("balance = %v, want +Inf", b)
		}
	})
}

// docs/model.md §7.3: the backoff sleep is interruptible; when maxTimeMS would pass during it the
// command fails with MaxTimeMSExpired at the deadline. Attempts carry the time left as their
// own maxTimeMS.
func TestMaxTimeMSCutsOffBackoff(t *testing.T) {
	w := newWorld(t, DefaultConfig(), 1, rs(1))
	w.router.jitter = maxJitter{}
	w.failAll(0, "find", wire.IngressRequestRateLimitExceeded, failpoint.AlwaysOn())
	w.drv.Send(0, wire.Find, withMaxTime(150*time.Millisecond))
	w.run(10 * time.Second)
	a := w.drv.Only(t)
	if a.Code != wire.MaxTimeMSExpired {
		t.Errorf("driver got %v, want MaxTimeMSExpired", a.Code)
	}
	if want := sim.Time(150 * time.Millisecond); a.Got != want {
		t.Errorf("answered at %v, want %v (the deadline)", a.Got, want)
	}
	// the 462 came back at 6ms; the 200ms backoff was cut at 150ms
	st := w.router.Stats()[0]
	if st.TotalBackoffTime != 144*time.Millisecond || w.attempts(0, 0) != 1 {
		t.Errorf("backoff %v after %d attempts, want 144ms after 1", st.TotalBackoffTime, w.attempts(0, 0))
	}
}

// The member enforces the remaining maxTimeMS an attempt carries: a command blocked on the shard
// past it fails there with MaxTimeMSExpired, which the mongos does not retry.
func TestMaxTimeMSOnTheShard(t *testing.T) {
	w := newWorld(t, DefaultConfig(), 1, rs(1))
	p, err := failpoint.New(failpoint.Config{Mode: failpoint.AlwaysOn(), FailCommands: []string{"find"},
		BlockConnection: true, BlockTimeMS: 500, FailInternalCommands: true})
	if err != nil {
		t.Fatal(err)
	}
	w.shards[0][0].SetFailPoint(0, p)
	w.drv.Send(0, wire.Find, withMaxTime(100*time.Millisecond))
	w.run(10 * time.Second)
	a := w.drv.Only(t)
	if a.Code != wire.MaxTimeMSExpired || w.attempts(0, 0) != 1 {
		t.Errorf("driver got %v after %d attempts, want MaxTimeMSExpired after 1", a.Code, w.attempts(0, 0))
	}
}

// internal-client.md: "A FailedToSatisfyReadPreference error occurs when there is a host
// selection time out and no eligible nodes are found." Targeting looks again every 500ms, so a
// primary that comes back in time is found.
func TestFailedToSatisfyReadPreference(t *testing.T) {
	cfg := DefaultConfig()
	cfg.FindHostTimeout = 2 * time.Second
	for _, tc := range []struct {
		name    string
		mod     func(*wire.Request)
		upAt    time.Duration // when the primary comes back; 0: never
		code    wire.Code
		answer  time.Duration
		members uint64 // attempts that reached a member
	}{
		{"primary read, no primary: 133 after findHostTimeout", nil, 0,
			wire.FailedToSatisfyReadPreference, 2 * time.Second, 0},
		{"maxTimeMS first: 50 at the deadline", withMaxTime(time.Second), 0,
			wire.MaxTimeMSExpired, time.Second, 0},
		{"primary back at 1.2s: found at the 1.5s look", nil, 1200 * time.Millisecond,
			wire.OK, 1500*time.Millisecond + 7*time.Millisecond, 1},
		{"secondaryPreferred: served by a secondary", read(wire.ReadSecondaryPreferred), 0,
			wire.OK, 7 * time.Millisecond, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, cfg, 1, rs(3))
			w.shards[0][0].GoDown(0)
			if tc.upAt > 0 {
				w.loop.At(sim.Time(tc.upAt), sim.HandlerFunc(func(now sim.Time, _ int, _ any) {
					w.shards[0][0].Up(now, wire.Primary)
				}), 0, nil)
			}
			w.drv.Send(0, wire.Find, tc.mod)
			w.run(10 * time.Second)
			a := w.drv.Only(t)
			if a.Code != tc.code || a.Got != sim.Time(tc.answer) {
				t.Errorf("driver got %v at %v, want %v at %v", a.Code, a.Got, tc.code, sim.Time(tc.answer))
			}
			var n uint64
			for j := range 3 {
				n += w.attempts(0, j)
			}
			if n != tc.members {
				t.Errorf("attempts on members = %d, want %d", n, tc.members)
			}
		})
	}
}

// A mongos keeps routing after the driver has given up, and the driver's give-up time travels
// to the member, which counts the work as wasted.
func TestWorkForNobody(t *testing.T) {
	w := newWorld(t, DefaultConfig(), 1, rs(1))
	w.drv.Send(0, wire.Find, func(r *wire.Request) { r.GiveUpAt = sim.Time(time.Millisecond) })
	w.run(time.Second)
	if st := w.shards[0][0].Snapshot(w.loop.Now()); st.WastedBusyTime != time.Millisecond {
		t.Errorf("member's wasted busy time = %v, want the 1ms of work", st.WastedBusyTime)
	}
}

// maxTimeMS also bounds the wait for a new connection (here queued by the member's connection
// limiter); the connection, once established, is pooled for later commands.
func TestMaxTimeMSWhileConnecting(t *testing.T) {
	queue := func(c *server.Config) {
		// one token, then one per second, and room to wait
		c.ConnLimiter = server.ConnLimiterConfig{Enabled: true, RatePerSec: 1, BurstCapacitySecs: 1, MaxQueueDepth: 10}
	}
	w := newWorld(t, DefaultConfig(), 1, []memberSpec{{role: wire.Primary, delay: time.Millisecond, mod: queue}})
	w.drv.Send(0, wire.Find, nil)                               // takes the token
	w.drv.Send(0, wire.Find, withMaxTime(100*time.Millisecond)) // waits ~1s for a connection
	w.run(2 * time.Second)
	if len(w.drv.Replies) != 2 {
		t.Fatalf("%d replies, want 2", len(w.drv.Replies))
	}
	a := w.drv.Replies[1]
	if a.ID != 2 || a.Code != wire.MaxTimeMSExpired || a.Got != sim.Time(100*time.Millisecond) {
		t.Errorf("second command: %+v, want MaxTimeMSExpired at 100ms", a)
	}
	// Both connections now sit idle: two more commands at once open none.
	w.drv.Send(w.loop.Now(), wire.Find, nil)
	w.drv.Send(w.loop.Now(), wire.Find, nil)
	w.run(time.Second)
	st := w.shards[0][0].Snapshot(w.loop.Now())
	if st.ConnCreated != 2 || st.ConnAttemptedAdmissions != 2 || st.Completed != 3 {
		t.Errorf("member: %d connections created (%d attempted), %d commands completed; want 2 (2), 3",
			st.ConnCreated, st.ConnAttemptedAdmissions, st.Completed)
	}
}

// An attempt's reply that comes back after the command's deadline (here a 462 on a slow link)
// fails the command with MaxTimeMSExpired when it arrives: the interruptible backoff sleep ends
// as it begins, with no time slept (the metamorphic harness found the router scheduling the
// interruption in the past, at seed 5).
func TestMaxTimeMSPassedBeforeTheReply(t *testing.T) {
	w := newWorld(t, DefaultConfig(), 1, []memberSpec{{role: wire.Primary, delay: 50 * time.Millisecond}})
	w.router.jitter = maxJitter{}
	w.drv.Send(0, wire.Find, nil) // opens the connection the next command reuses
	w.run(time.Second)
	w.failAll(0, "find", wire.IngressRequestRateLimitExceeded, failpoint.AlwaysOn())
	sent := w.loop.Now()
	// sent over the idle connection, rejected on arrival 50ms later, the 462 back at +100ms
	w.drv.Send(sent, wire.Find, withMaxTime(80*time.Millisecond))
	w.run(time.Second)
	if len(w.drv.Replies) != 2 {
		t.Fatalf("%d replies, want 2", len(w.drv.Replies))
	}
	a := w.drv.Replies[1]
	if want := sent.Add(100 * time.Millisecond); a.Code != wire.MaxTimeMSExpired || a.Got != want {
		t.Errorf("driver got %v at %v, want MaxTimeMSExpired at %v (when the reply came)", a.Code, a.Got, want)
	}
	st := w.router.Stats()[0]
	if st.TotalBackoffTime != 0 || w.attempts(0, 0) != 2 {
		t.Errorf("backoff %v after %d attempts, want 0 after 2", st.TotalBackoffTime, w.attempts(0, 0))
	}
}
