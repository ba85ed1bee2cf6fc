package record

import (
	"slices"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/sim/simtest"
)

// testNames are the model's error classes and retry reasons, as a run's series names them.
var testNames = results.Names{
	ErrClasses:   []string{"overload", "timeout", "network", "serverSelection", "poolCleared", "server"},
	RetryReasons: []string{"KV_LOCKED", "KV_TEMPORARY_FAILURE"},
}

// groupSource is a scripted group: its cumulative record grows by step every time it is read,
// and it counts its reads.
type groupSource struct {
	cum, step results.GroupInterval
	reads     int
}

func (g *groupSource) read() results.GroupInterval {
	g.reads++
	g.cum.Add(&g.step)
	out := g.cum
	out.FailedByClass = slices.Clone(g.cum.FailedByClass)
	out.RetriedByReason = slices.Clone(g.cum.RetriedByReason)
	out.NotRetriedByReason = slices.Clone(g.cum.NotRetriedByReason)
	out.TokensMin, out.TokensSum, out.TokensN = float64(g.reads), 2*float64(g.reads), 1
	return out
}

// TestRecorderDifferencesSources: each interval's record is its source's reading at the
// interval's end minus the reading at its start (the first taken when the source was added),
// gauges are the reading at the end, latencies are filed in the interval they happened in, rows
// come in (End, Name) order, and the last, partial interval closes at Finish.
func TestRecorderDifferencesSources(t *testing.T) {
	loop := sim.NewLoop()
	rec := newRecorder(loop, time.Second, testNames)
	a := &groupSource{step: results.GroupInterval{Issued: 10, Succeeded: 7, Failed: 3, FailedByClass: []uint64{2, 1},
		Attempts: 15, Backoff: time.Millisecond, RetriedByReason: []uint64{0, 4}}}
	b := &groupSource{step: results.GroupInterval{Issued: 1, Attempts: 1}}
	tb := rec.addGroup("b", b.read)
	ta := rec.addGroup("a", a.read)
	// The server's counters as a script of virtual time: 100 more completed and 0.5 more busy
	// seconds by each interval end, and the workers gauge at its whole second.
	sec := func(s float64) sim.Time { return sim.FromSeconds(s) }
	server := simtest.NewScript(results.ServerInterval{}).
		Set(sec(1), results.ServerInterval{Completed: 100, BusyArea: 0.5, Workers: 1}).
		Set(sec(2), results.ServerInterval{Completed: 200, BusyArea: 1, Workers: 2}).
		Set(sec(2.5), results.ServerInterval{Completed: 300, BusyArea: 1.5, Workers: 2})
	rec.addServer("db", server.Func())
	shard := results.ShardInterval{Shard: "s0", Balance: 7}
	rec.addShards("m1", func() []results.ShardInterval {
		shard.Attempted += 5
		shard.Balance--
		return []results.ShardInterval{shard}
	})
	rec.AddFault("late", sim.Time(2*time.Second), sim.Time(time.Second)) // end before start: instantaneous
	rec.AddFault("early", sim.Time(time.Second), sim.Time(2*time.Second))
	rec.Start()
	// Latencies: one success in interval 0, one failure and one attempt in interval 1.
	loop.At(sim.Time(500*time.Millisecond), sim.HandlerFunc(func(sim.Time, int, any) { ta.op(true, time.Millisecond) }), 0, nil)
	loop.At(sim.Time(1500*time.Millisecond), sim.HandlerFunc(func(sim.Time, int, any) {
		ta.op(false, time.Second)
		tb.attemptDone(2 * time.Millisecond)
	}), 0, nil)
	end := sim.Time(2500 * time.Millisecond)
	loop.RunUntil(end)
	s := rec.Finish(end)

	if !slices.Equal(s.ErrClasses, testNames.ErrClasses) || !slices.Equal(s.RetryReasons, testNames.RetryReasons) {
		t.Errorf("series names %q %q, want the recorder's", s.ErrClasses, s.RetryReasons)
	}
	if len(s.Groups) != 6 || len(s.Servers) != 3 || len(s.Shards) != 3 {
		t.Fatalf("%d group, %d server, %d shard rows; want 6, 3, 3", len(s.Groups), len(s.Servers), len(s.Shards))
	}
	ends := []sim.Time{sim.Time(time.Second), sim.Time(2 * time.Second), end}
	for i, g := range s.Groups {
		k := i / 2
		start := sim.Time(0)
		if k > 0 {
			start = ends[k-1]
		}
		if want := []string{"a", "b"}[i%2]; g.Name != want || g.Start != start || g.End != ends[k] {
			t.Errorf("row %d: %s [%v, %v), want %s [%v, %v)", i, g.Name, g.Start, g.End, want, start, ends[k])
		}
		if g.Name == "a" {
			// One reading per interval end: every interval is exactly one step.
			if g.Issued != 10 || g.Succeeded != 7 || g.Failed != 3 || g.Attempts != 15 || g.Backoff != time.Millisecond ||
				!slices.Equal(g.FailedByClass, []uint64{2, 1}) || !slices.Equal(g.RetriedByReason, []uint64{0, 4}) {
				t.Errorf("row %d (a): %+v, want one step of counters", i, g)
			}
			if want := float64(k + 2); g.TokensMin != want || g.TokensN != 1 {
				t.Errorf("row %d (a): tokens min %v n %d, want the reading at the end (%v, 1)", i, g.TokensMin, g.TokensN, want)
			}
		}
	}
	if a0, a1 := &s.Groups[0], &s.Groups[2]; a0.Success.Count() != 1 || a0.Failure.Count() != 0 || a1.Failure.Count() != 1 || a1.Success.Count() != 0 {
		t.Errorf("latencies: interval 0 %d/%d, interval 1 %d/%d ok/failed; want 1/0 and 0/1",
			a0.Success.Count(), a0.Failure.Count(), a1.Success.Count(), a1.Failure.Count())
	}
	if b1 := &s.Groups[3]; b1.Attempt.Count() != 1 || s.Groups[1].Attempt.Count() != 0 {
		t.Errorf("attempt latencies: b's interval 1 has %d, interval 0 %d; want 1 and 0", b1.Attempt.Count(), s.Groups[1].Attempt.Count())
	}
	for i, v := range s.Servers {
		if v.Name != "db" || v.Completed != 100 || v.BusyArea != 0.5 || v.Workers != int(ends[i]/sim.Time(time.Second)) {
			t.Errorf("server row %d: %+v, want 100 completed, 0.5 busy, the gauge at its end", i, v)
		}
	}
	for i, v := range s.Shards {
		if v.Mongos != "m1" || v.Shard != "s0" || v.Attempted != 5 || v.Balance != float64(6-i-1) {
			t.Errorf("shard row %d: %+v, want m1/s0, 5 attempted, balance %d", i, v, 6-i-1)
		}
	}
	if len(s.Faults) != 2 || s.Faults[0].Name != "early" || s.Faults[1].Name != "late" || s.Faults[1].End != s.Faults[1].Start {
		t.Errorf("faults %+v, want early then late, late instantaneous", s.Faults)
	}
	if again := rec.Finish(end + sim.Time(time.Second)); len(again.Groups) != 6 {
		t.Errorf("a second Finish added rows: %d", len(again.Groups))
	}
	if a.reads != 4 {
		t.Errorf("group a read %d times, want 4 (added, 1 s, 2 s, Finish)", a.reads)
	}
}

// TestNewRefusesNoInterval: a recorder without a positive interval would never close
// one.
func TestNewRefusesNoInterval(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("New(0) did not panic")
		}
	}()
	New(sim.NewLoop(), 0)
}
