package mongos

import (
	"reflect"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/server/failpoint"
	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
	"github.com/overloadsim/overloadsim/wire/wiretest"
)

// busyRun routes 2000 mixed commands (nearest reads and writes, some with maxTimeMS) through a
// mongos to two 3-member shards whose members reject 30 % of them with 462, with a small
// budget, and returns the router's stats and the driver's replies.
func busyRun(t *testing.T, seed uint64, failing []int) ([]ShardStats, []wiretest.Reply) {
	cfg := testConfig(true)
	cfg.BudgetCapacity = 20
	w := newWorld(t, cfg, seed, rs(3), rs(3))
	for _, i := range failing {
		w.failAll(i, "find", wire.IngressRequestRateLimitExceeded, failpoint.ActivationProbability(0.3))
		w.failAll(i, "insert", wire.IngressRequestRateLimitExceeded, failpoint.ActivationProbability(0.3))
	}
	for i := range 2000 {
		at := sim.Time(i) * sim.Time(2*time.Millisecond)
		switch i % 4 {
		case 0:
			w.drv.Send(at, wire.Insert, nil)
		case 1:
			w.drv.Send(at, wire.Find, withMaxTime(300*time.Millisecond))
		default:
			w.drv.Send(at, wire.Find, read(wire.ReadNearest))
		}
	}
	w.run(time.Minute)
	if len(w.drv.Replies) != 2000 {
		t.Fatalf("seed %d: %d replies, want 2000", seed, len(w.drv.Replies))
	}
	return w.router.Stats(), w.drv.Replies
}

// The same seed gives the same statistics and the same replies at the same times; another seed
// gives other ones.
func TestDeterminism(t *testing.T) {
	s1, r1 := busyRun(t, 7, []int{0, 1})
	s2, r2 := busyRun(t, 7, []int{0, 1})
	if !reflect.DeepEqual(s1, s2) || !reflect.DeepEqual(r1, r2) {
		t.Errorf("two runs with seed 7 differ:\n%+v\n%+v", s1, s2)
	}
	if s1[0].NumRetriesDueToOverloadAttempted == 0 || s1[0].TotalBackoffTime == 0 {
		t.Errorf("stats %+v: the run should retry and back off", s1[0])
	}
	s3, r3 := busyRun(t, 8, []int{0, 1})
	if reflect.DeepEqual(s1, s3) || reflect.DeepEqual(r1, r3) {
		t.Errorf("seeds 7 and 8 gave the same run")
	}
}

// The router's streams are independent: backoff and targeting draws caused by a failing shard
// do not shift the shard choices, which come from their own stream.
func TestShardStreamIndependent(t *testing.T) {
	healthy, _ := busyRun(t, 7, nil)
	failing, _ := busyRun(t, 7, []int{0})
	for i := range healthy {
		if healthy[i].NumOperationsAttempted != failing[i].NumOperationsAttempted {
			t.Errorf("shard %d: %d commands when healthy, %d when shard 0 fails", i,
				healthy[i].NumOperationsAttempted, failing[i].NumOperationsAttempted)
		}
	}
	if failing[0].NumRetriesDueToOverloadAttempted == 0 || healthy[0].NumRetriesDueToOverloadAttempted != 0 {
		t.Errorf("retries: healthy %d, failing %d", healthy[0].NumRetriesDueToOverloadAttempted, failing[0].NumRetriesDueToOverloadAttempted)
	}
}

// Steady-state routing allocates nothing per command once the pools are warm.
func TestRouteAllocs(t *testing.T) {
	w := newWorld(t, DefaultConfig(), 1, rs(3))
	req := &wire.Request{Cmd: wire.Find, Conn: w.drv.Conn, GiveUpAt: sim.Never, ReplyTo: sink{}, ReadPref: wire.ReadNearest, SecondaryOK: true}
	step := func() {
		*req = wire.Request{Cmd: wire.Find, Conn: w.drv.Conn, GiveUpAt: sim.Never, ReplyTo: sink{}, ReadPref: wire.ReadNearest, SecondaryOK: true}
		w.loop.At(w.loop.Now(), w.mongos, wire.EvRequest, req)
		w.run(50 * time.Millisecond)
	}
	for range 100 {
		step()
	}
	if n := testing.AllocsPerRun(200, step); n != 0 {
		t.Errorf("allocations per routed command = %v, want 0", n)
	}
}

// sink discards replies.
type sink struct{}

func (sink) HandleEvent(sim.Time, int, any) {}
