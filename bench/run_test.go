package bench

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/scenarios"
	"github.com/overloadsim/overloadsim/server"
	"github.com/overloadsim/overloadsim/sim"
)

// TestReplicationSeed: replication 0 is the seed itself; others are distinct, stable values.
func TestReplicationSeed(t *testing.T) {
	if got := ReplicationSeed(7, 0); got != 7 {
		t.Errorf("ReplicationSeed(7, 0) = %d, want 7", got)
	}
	s1, _ := sim.StreamSeeds(7, "replication/3")
	if got := ReplicationSeed(7, 3); got != s1 {
		t.Errorf("ReplicationSeed(7, 3) = %d, want sim.StreamSeeds(7, \"replication/3\") s1 = %d", got, s1)
	}
	seen := map[uint64]int{}
	for r := range 100 {
		s := ReplicationSeed(1, r)
		if prev, dup := seen[s]; dup {
			t.Errorf("ReplicationSeed(1, %d) = ReplicationSeed(1, %d) = %d", r, prev, s)
		}
		seen[s] = r
	}
}

// TestBuild wires a small replica set and checks the streams it names, the recorder's fault
// windows, and the run header.
func TestBuild(t *testing.T) {
	sc, err := scenarios.Parse("b.yaml", []byte(`
duration: 5s
topology:
  kind: replicaset
  nodes: [{name: a}, {name: b}]
clients:
  - {name: app, count: 2, workload: {rate: 50/s}}
faults:
  - {at: 1s, kind: capacity, node: a, speed: 0.5, for: 1s}
  - {at: 2s, kind: stepDown}
  - {at: 3s, kind: down, node: b}
`))
	if err != nil {
		t.Fatal(err)
	}
	w, err := Build(sc, 9, sim.NewLoop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"server/a/service", "server/a/failpoint", "server/b/service", "server/b/failpoint",
		"link/app/0/a", "link/app/0/b", "client/app/0", "link/app/1/a", "link/app/1/b", "client/app/1",
		"group/app",
	}
	if !slices.Equal(w.Streams(), want) {
		t.Errorf("Build streams = %q, want %q", w.Streams(), want)
	}
	windows := sc.FaultWindows()
	wantW := []results.FaultWindow{
		{Name: "capacity a", Start: sim.Time(time.Second), End: sim.Time(2 * time.Second)},
		{Name: "stepDown", Start: sim.Time(2 * time.Second), End: sim.Time(2 * time.Second)},
		{Name: "down b", Start: sim.Time(3 * time.Second), End: sim.Time(5 * time.Second)},
	}
	if !slices.Equal(windows, wantW) {
		t.Errorf("FaultWindows() = %+v, want %+v", windows, wantW)
	}
	run, err := Run(sc, 9, 0)
	if err != nil {
		t.Fatal(err)
	}
	h := run.Header
	if h.Seed != 9 || h.Scenario != "b" || h.Canonical != sc.String() || len(h.Streams) != len(want) || h.Streams[0].Name != want[0] {
		t.Errorf("Run header = %+v", h)
	}
	if s1, s2 := sim.StreamSeeds(9, want[4]); h.Streams[4] != (results.Stream{Name: want[4], S1: s1, S2: s2}) {
		t.Errorf("header stream 4 = %+v, want %s %d %d", h.Streams[4], want[4], s1, s2)
	}
	if len(run.Series.Faults) != 3 {
		t.Errorf("the recorder has %d fault windows, want 3", len(run.Series.Faults))
	}
}

// TestConcurrentRuns: the replications of one point may run in parallel (the CLI's worker
// pool does) and give the results they give one at a time. Run with -race.
func TestConcurrentRuns(t *testing.T) {
	sc, err := scenarios.Lookup("policy-comparison")
	if err != nil {
		t.Fatal(err)
	}
	const n = 4
	want := make([]string, n)
	for r := range n {
		run, err := Run(sc, sc.Seed, r)
		if err != nil {
			t.Fatal(err)
		}
		want[r] = fmt.Sprintf("%#v", run.Summary)
	}
	got := make([]string, n)
	errs := make(chan error, n)
	for r := range n {
		go func() {
			run, err := Run(sc, sc.Seed, r)
			if err == nil {
				got[r] = fmt.Sprintf("%#v", run.Summary)
			}
			errs <- err
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for r := range n {
		if got[r] != want[r] {
			t.Errorf("replication %d in parallel differs from its sequential run", r)
		}
	}
}

// Rule (determinism): the same scenario and seed, pauses included, give identical results — the
// time series, the summary and every node's final statistics.
func TestPauseFaultDeterminism(t *testing.T) {
	sc, err := scenarios.Parse("pause.yaml", []byte(pauseScenario))
	if err != nil {
		t.Fatal(err)
	}
	run := func() (string, []server.Stats) {
		var w *World
		r, err := RunWith(sc, sc.Seed, 0, RunOptions{Attach: func(world *World) { w = world }})
		if err != nil {
			t.Fatal(err)
		}
		var stats []server.Stats
		for _, n := range w.Cluster.Nodes() {
			stats = append(stats, n.Snapshot(sim.Time(sc.Duration)))
		}
		var ts bytes.Buffer
		if err := results.WriteTimeseries(&ts, r.Series); err != nil {
			t.Fatal(err)
		}
		return ts.String() + fmt.Sprintf("%#v", r.Summary), stats
	}
	s1, st1 := run()
	s2, st2 := run()
	if st1[0].PausedTime != 2*time.Second || st1[0].HeldMessages == 0 {
		t.Fatalf("paused %v, held %d: want the union of the pauses, 2s, and held messages", st1[0].PausedTime, st1[0].HeldMessages)
	}
	if s1 != s2 {
		t.Error("same scenario and seed, different time series or summary")
	}
	if !reflect.DeepEqual(st1, st2) {
		t.Errorf("same scenario and seed, different node statistics:\n%+v\n%+v", st1, st2)
	}
}

// TestRetryTokenCapacity: driver.retryTokenCapacity sizes mongodb-2026-03's retry token bucket
// (its capacity and starting balance): a bucket of 3 never holds more than 3 tokens, and one of
// the spec's 1000 starts full.
func TestRetryTokenCapacity(t *testing.T) {
	const text = `
name: capacity
duration: 5s
topology:
  nodes:
    - {name: db, workers: 4, service: const(1ms)}
clients:
  - name: small
    driver: {adaptiveRetries: true, retryTokenCapacity: 3}
    workload: {rate: 100/s}
  - name: spec
    driver: {adaptiveRetries: true}
    workload: {rate: 100/s}
`
	sc, err := scenarios.Parse("capacity.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(sc, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		group string
		max   float64
	}{{"small", 3}, {"spec", 1000}} {
		g := group(t, &r.Summary, c.group)
		if g.TokensMin != c.max || g.TokensMean != c.max {
			t.Errorf("%s: tokens min %v, mean %v; want a full bucket of %v throughout", c.group, g.TokensMin, g.TokensMean, c.max)
		}
	}
}

// TestLoadFaultScalesRate: a load fault multiplies the group's offered load inside its window
// only, and the other groups' not at all.
func TestLoadFaultScalesRate(t *testing.T) {
	sc, err := scenarios.Parse("t", []byte(`
name: t
duration: 20s
clients:
  - {name: a, count: 2, workload: {rate: 200/s, arrivals: fixed}}
  - {name: b, count: 2, workload: {rate: 100/s, arrivals: fixed}}
faults:
  - {kind: load, group: a, at: 5s, for: 5s, factor: 3}
`))
	if err != nil {
		t.Fatal(err)
	}
	run, err := Run(sc, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	in, out := window(run.Series, "a", 6*time.Second, 9*time.Second), window(run.Series, "a", 12*time.Second, 15*time.Second)
	other := window(run.Series, "b", 6*time.Second, 9*time.Second)
	if in.issued < 1790 || in.issued > 1810 || out.issued < 590 || out.issued > 610 || other.issued < 290 || other.issued > 310 {
		t.Errorf("issued in 3 s: %d in the window, %d after it, %d by the other group; want about 1800, 600 and 300",
			in.issued, out.issued, other.issued)
	}
}

// windowStats sums a group's intervals that lie within [from, to).
type windowStats struct{ issued, attempts, succeeded, failed uint64 }

func window(s *results.Series, name string, from, to time.Duration) windowStats {
	var w windowStats
	for _, g := range s.Groups {
		if g.Name == name && g.Start >= sim.Time(from) && g.End <= sim.Time(to) {
			w.issued += g.Issued
			w.attempts += g.Attempts
			w.succeeded += g.Succeeded
			w.failed += g.Failed
		}
	}
	return w
}
