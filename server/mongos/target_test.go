package mongos

import (
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/server/failpoint"
	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
)

// docs/model.md §7.1, retargeting within a shard, after the server's jstest (id
// 56418682936, runTestAllNodesFail): every member of a 3-member shard fails the command once
// with 462. With overloadAwareServerSelectionEnabled each overload retry goes to a member that
// has not failed yet, and once all eligible members have, to one that has; without it (or with
// primary reads, or writes) every retry hits the primary.
func TestRetargetingAllMembersFailOnce(t *testing.T) {
	for _, tc := range []struct {
		name       string
		flag       bool
		cmd        wire.Command
		mode       wire.ReadMode
		retries    uint64 // numRetriesDueToOverloadAttempted
		retargeted uint64 // numRetriesRetargetedDueToOverload
		onPrimary  bool   // every attempt on the primary
	}{
		{"flag off, primary", false, wire.Find, wire.ReadPrimary, 1, 0, true},
		{"flag off, primaryPreferred", false, wire.Find, wire.ReadPrimaryPreferred, 1, 0, true},
		{"flag on, primary: deprioritising the only primary cannot help", true, wire.Find, wire.ReadPrimary, 1, 0, true},
		{"flag on, write", true, wire.Insert, wire.ReadPrimary, 1, 0, true},
		{"flag on, primaryPreferred: the secondaries, then back to the primary", true, wire.Find, wire.ReadPrimaryPreferred, 3, 2, false},
		{"flag on, secondary: each secondary once, then one again", true, wire.Find, wire.ReadSecondary, 2, 1, false},
		{"flag on, secondaryPreferred: secondaries, then the primary, then a secondary", true, wire.Find, wire.ReadSecondaryPreferred, 3, 2, false},
		{"flag on, nearest: every member once, then one again", true, wire.Find, wire.ReadNearest, 3, 2, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for seed := uint64(1); seed <= 20; seed++ { // targeting draws differ by seed; the counts do not
				w := newWorld(t, testConfig(tc.flag), seed, rs(3))
				w.failAll(0, tc.cmd.String(), wire.IngressRequestRateLimitExceeded, failpoint.Times(1))
				w.run(time.Second) // RTT pings
				w.drv.Send(w.loop.Now(), tc.cmd, read(tc.mode))
				w.run(30 * time.Second)
				if a := w.drv.Only(t); !a.OK() {
					t.Fatalf("seed %d: driver got %+v, want OK", seed, a.Reply)
				}
				st := w.router.Stats()[0]
				if st.NumRetriesDueToOverloadAttempted != tc.retries || st.NumRetriesRetargetedDueToOverload != tc.retargeted ||
					st.NumOverloadErrorsReceived != tc.retries || st.NumOperationsRetriedAtLeastOnceDueToOverloadAndSucceeded != 1 {
					t.Errorf("seed %d: retries %d, retargeted %d, overload errors %d, succeeded %d; want %d, %d, %d, 1", seed,
						st.NumRetriesDueToOverloadAttempted, st.NumRetriesRetargetedDueToOverload, st.NumOverloadErrorsReceived,
						st.NumOperationsRetriedAtLeastOnceDueToOverloadAndSucceeded, tc.retries, tc.retargeted, tc.retries)
				}
				if tc.onPrimary && (w.attempts(0, 1) != 0 || w.attempts(0, 2) != 0) {
					t.Errorf("seed %d: attempts on secondaries %d, %d; want all on the primary", seed, w.attempts(0, 1), w.attempts(0, 2))
				}
			}
		})
	}
}

// jstest runTestOnlyPrimaryFails: the primary fails three times. Without the flag (or with
// primary reads) all three retries go to it; with the flag a primaryPreferred read moves to a
// secondary after one failure, a retargeted retry.
func TestRetargetingOnlyPrimaryFails(t *testing.T) {
	for _, tc := range []struct {
		name                string
		flag                bool
		mode                wire.ReadMode
		retries, retargeted uint64
	}{
		{"flag off, primary", false, wire.ReadPrimary, 3, 0},
		{"flag off, primaryPreferred", false, wire.ReadPrimaryPreferred, 3, 0},
		{"flag on, primary", true, wire.ReadPrimary, 3, 0},
		{"flag on, primaryPreferred", true, wire.ReadPrimaryPreferred, 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, testConfig(tc.flag), 1, rs(3))
			w.fail(0, 0, "find", wire.IngressRequestRateLimitExceeded, failpoint.Times(3))
			w.drv.Send(0, wire.Find, read(tc.mode))
			w.run(30 * time.Second)
			if a := w.drv.Only(t); !a.OK() {
				t.Fatalf("driver got %+v, want OK", a.Reply)
			}
			st := w.router.Stats()[0]
			if st.NumRetriesDueToOverloadAttempted != tc.retries || st.NumRetriesRetargetedDueToOverload != tc.retargeted {
				t.Errorf("retries %d, retargeted %d; want %d, %d", st.NumRetriesDueToOverloadAttempted,
					st.NumRetriesRetargetedDueToOverload, tc.retries, tc.retargeted)
			}
			if st.TotalBackoffTime == 0 || st.NumOperationsRetriedAtLeastOnceDueToOverload != 1 {
				t.Errorf("Stats = %+v, want backoff > 0 and one operation retried", st)
			}
		})
	}
}

// jstest runTestRetryCapExhaustedWithRetargeting: nearest, defaultClientMaxRetryAttempts =
// members − 1, every member fails once: each retry reaches a fresh member, and the command fails
// with 462 when the cap is hit.
func TestRetargetingRetryCapExhausted(t *testing.T) {
	cfg := testConfig(true)
	cfg.MaxRetryAttempts = 2
	cfg.BaseBackoff, cfg.MaxBackoff = 0, 0
	w := newWorld(t, cfg, 1, rs(3))
	w.failAll(0, "find", wire.IngressRequestRateLimitExceeded, failpoint.Times(1))
	w.drv.Send(0, wire.Find, read(wire.ReadNearest))
	w.run(time.Second)
	if a := w.drv.Only(t); a.Code != wire.IngressRequestRateLimitExceeded {
		t.Fatalf("driver got %v, want 462", a.Code)
	}
	for j := range 3 {
		if n := w.attempts(0, j); n != 1 {
			t.Errorf("attempts on member %d = %d, want 1", j, n)
		}
	}
	st := w.router.Stats()[0]
	want := ShardStats{Shard: "rs0", NumOperationsAttempted: 1, NumOperationsRetriedAtLeastOnceDueToOverload: 1,
		NumRetriesDueToOverloadAttempted: 2, NumRetriesRetargetedDueToOverload: 2, NumOverloadErrorsReceived: 3,
		RetryBudgetTokenBucketBalance: 997}
	if st != want {
		t.Errorf("Stats = %+v\nwant    %+v", st, want)
	}
}

// internal-client.md: targeting keeps the eligible members within localThresholdMS of the
// fastest, by the RTT its pings measure. A member 50ms away is never chosen while two 1ms
// members are; both of those are.
func TestLatencyWindow(t *testing.T) {
	w := newWorld(t, DefaultConfig(), 1, []memberSpec{
		{role: wire.Primary, delay: time.Millisecond},
		{role: wire.Secondary, delay: time.Millisecond},
		{role: wire.Secondary, delay: 50 * time.Millisecond},
	})
	w.run(time.Second) // the first pings: RTT 2ms, 2ms, 100ms
	for i := range 200 {
		w.drv.Send(w.loop.Now().Add(time.Duration(i)*time.Millisecond), wire.Find, read(wire.ReadNearest))
	}
	w.run(10 * time.Second)
	a0, a1, a2 := w.attempts(0, 0), w.attempts(0, 1), w.attempts(0, 2)
	if a2 != 0 || a0 < 60 || a1 < 60 || a0+a1 != 200 {
		t.Errorf("attempts per member = %d, %d, %d; want about 100, 100, 0", a0, a1, a2)
	}
	if m := w.router.shards[0].members[2]; m.rttValue() != 100*time.Millisecond {
		t.Errorf("RTT of the far member = %v, want 100ms", m.rttValue())
	}
}

// The pinger's hellos are unauthenticated: exempt from the member's request limiter even when it
// rejects everything, so RTTs stay known during an overload.
func TestPingsExemptFromLimiter(t *testing.T) {
	w := newWorld(t, DefaultConfig(), 1, rs(1))
	w.run(35 * time.Second) // pings at 0, 10, 20, 30s
	st := w.shards[0][0].Snapshot(w.loop.Now())
	if st.Errors != 0 || st.NetErrors != 0 || st.AttemptedAdmissions != 0 {
		t.Errorf("member stats %+v: pings must be answered and not admitted", st)
	}
	if v, ok := w.router.shards[0].members[0].rtt.Value(); !ok || v != 2*time.Millisecond {
		t.Errorf("RTT = %v (known %v), want 2ms", v, ok)
	}
	// A member that goes down loses its average; the next ping after it comes back starts anew.
	w.shards[0][0].GoDown(w.loop.Now())
	w.run(10 * time.Second)
	if v, ok := w.router.shards[0].members[0].rtt.Value(); ok {
		t.Errorf("RTT still known (%v) after a failed ping", v)
	}
}

// Roles are read at targeting time (the streamable monitor's prompt view): a stepdown moves
// writes to the new primary at once.
func TestTargetingFollowsElection(t *testing.T) {
	w := newWorld(t, DefaultConfig(), 1, rs(2))
	w.drv.Send(0, wire.Insert, nil)
	w.run(time.Second)
	w.shards[0][0].StepDown(w.loop.Now())
	// the cluster would elect member 1; do it by hand: a fresh process that is primary
	w.shards[0][1].GoDown(w.loop.Now())
	w.shards[0][1].Up(w.loop.Now(), wire.Primary)
	w.drv.Send(w.loop.Now(), wire.Insert, nil)
	w.run(time.Second)
	if w.attempts(0, 0) != 1 || w.attempts(0, 1) != 1 {
		t.Errorf("writes per member = %d, %d; want 1, 1", w.attempts(0, 0), w.attempts(0, 1))
	}
	for i, a := range w.drv.Replies {
		if !a.OK() {
			t.Errorf("reply %d = %+v, want OK", i, a.Reply)
		}
	}
}

// Each command picks its shard uniformly from the router's shard stream.
func TestShardChoiceUniform(t *testing.T) {
	w := newWorld(t, DefaultConfig(), 1, rs(1), rs(1), rs(1))
	const n = 3000
	for i := range n {
		w.drv.Send(sim.Time(i)*sim.Time(time.Millisecond), wire.Find, nil)
	}
	w.run(time.Minute)
	for i, st := range w.router.Stats() {
		// binomial(3000, 1/3): σ ≈ 26; ±130 is 5σ
		if d := int(st.NumOperationsAttempted) - n/3; d < -130 || d > 130 {
			t.Errorf("shard %d got %d commands, want %d ± 130", i, st.NumOperationsAttempted, n/3)
		}
	}
	if len(w.drv.Replies) != n {
		t.Errorf("%d replies, want %d", len(w.drv.Replies), n)
	}
}

// internal-client.md, RetryStrategy: "Any server that returns a SystemOverloadedError-labeled
// error is added to the list of deprioritized servers in the strategy's TargetingMetadata" —
// those servers, and only those: a retry after an error without the label targets as the first
// attempt did. With overloadAwareServerSelectionEnabled and a primaryPreferred read the primary
// is the one eligible member unless it is deprioritized, so where the retry goes shows whether
// it was: the primary fails the find once; after an error that is not an overload error (a
// RetriableError code, a read retries it) the retry goes back to the primary; after a 462 it
// goes to a secondary, counted as retargeted.
func TestDeprioritizeOnlyAfterOverload(t *testing.T) {
	for _, tc := range []struct {
		name       string
		code       wire.Code
		retargeted bool
	}{
		{"189 PrimarySteppedDown: same member", wire.PrimarySteppedDown, false},
		{"91 ShutdownInProgress: same member", wire.ShutdownInProgress, false},
		{"6 HostUnreachable: same member", wire.HostUnreachable, false},
		{"262 ExceededTimeLimit: same member", wire.ExceededTimeLimit, false},
		{"462 IngressRequestRateLimitExceeded: a secondary", wire.IngressRequestRateLimitExceeded, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for seed := uint64(1); seed <= 5; seed++ { // the secondary drawn differs by seed; the member kind does not
				w := newWorld(t, testConfig(true), seed, rs(3))
				w.fail(0, 0, "find", tc.code, failpoint.Times(1))
				w.run(time.Second) // RTT pings
				w.drv.Send(w.loop.Now(), wire.Find, read(wire.ReadPrimaryPreferred))
				w.run(30 * time.Second)
				if a := w.drv.Only(t); !a.OK() {
					t.Fatalf("seed %d: driver got %+v, want OK after one retry", seed, a.Reply)
				}
				onPrimary := w.attempts(0, 0)
				onSecondaries := w.attempts(0, 1) + w.attempts(0, 2)
				st := w.router.Stats()[0]
				if tc.retargeted {
					if onPrimary != 1 || onSecondaries != 1 || st.NumRetriesRetargetedDueToOverload != 1 {
						t.Errorf("seed %d: attempts on the primary %d, on secondaries %d, retargeted %d; want 1, 1, 1",
							seed, onPrimary, onSecondaries, st.NumRetriesRetargetedDueToOverload)
					}
					continue
				}
				if onPrimary != 2 || onSecondaries != 0 || st.NumRetriesRetargetedDueToOverload != 0 {
					t.Errorf("seed %d: attempts on the primary %d, on secondaries %d, retargeted %d; want 2, 0, 0: "+
						"an error without SystemOverloadedError does not deprioritize the primary",
						seed, onPrimary, onSecondaries, st.NumRetriesRetargetedDueToOverload)
				}
			}
		})
	}
}
