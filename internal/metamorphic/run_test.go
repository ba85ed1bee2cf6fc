package metamorphic

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/bench"
	"github.com/overloadsim/overloadsim/client"
	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/scenarios"
	"github.com/overloadsim/overloadsim/sim"
)

// runScenario runs replication 0 of sc at its own seed: straight to the horizon, or, sliced,
// in many slices of virtual time (a progress report at every hundredth of the horizon, and a
// stop question between slices that start at a microsecond), which must handle the same events
// in the same order. attach, when not nil, sees the built world. It is the harness's one call
// into the package that runs scenarios.
func runScenario(sc *scenarios.Scenario, sliced bool, attach func(*bench.World)) (*results.Run, error) {
	opts := bench.RunOptions{Attach: attach}
	if sliced {
		opts.Progress = func(now, horizon time.Duration) {}
		opts.Stop = func() bool { return false }
	}
	return bench.RunWith(sc, sc.Seed, 0, opts)
}

// files returns the bytes of every file a run's folder holds (run.json, timeseries.csv,
// summary.json, shards.csv with mongos nodes, the manifest), by name.
func files(t *testing.T, run *results.Run) map[string][]byte {
	t.Helper()
	dir := t.TempDir()
	if err := results.WriteRunDir(dir, run); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = b
	}
	return out
}

// sameFiles fails unless a and b hold the same files with the same bytes.
func sameFiles(t *testing.T, seed uint64, what string, a, b map[string][]byte) {
	t.Helper()
	names := func(m map[string][]byte) []string { return slices.Sorted(maps.Keys(m)) }
	if !slices.Equal(names(a), names(b)) {
		t.Errorf("seed %d: %s: files %v and %v", seed, what, names(a), names(b))
		return
	}
	for n := range a {
		if !bytes.Equal(a[n], b[n]) {
			t.Errorf("seed %d: %s: %s differs\n%s", seed, what, n, Generate(seed))
		}
	}
}

// TestRerunIdentical: the same scenario and seed run twice write the same bytes.
func TestRerunIdentical(t *testing.T) {
	for seed := range uint64(*seeds) {
		sc := parse(t, seed)
		a, err := runScenario(sc, false, nil)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		b, err := runScenario(parse(t, seed), false, nil)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		sameFiles(t, seed, "a rerun", files(t, a), files(t, b))
	}
}

// TestSlicedIdentical: a run made in many slices of virtual time writes the same bytes as one
// run straight to the horizon.
func TestSlicedIdentical(t *testing.T) {
	for seed := range uint64(*seeds) {
		straight, err := runScenario(parse(t, seed), false, nil)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		sliced, err := runScenario(parse(t, seed), true, nil)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		sameFiles(t, seed, "sliced against straight", files(t, straight), files(t, sliced))
	}
}

// TestIntervalsSumToTotals: every counter of every group and server, summed over the series'
// intervals, is what the model counted over the whole run; and the summary's counts are the sums
// over the intervals of the measured window.
//
// The series covers [0, horizon). When the duration is a whole number of intervals, the last
// interval is closed by the recorder's sampling event at the horizon, and what other events of
// that instant do after it is outside the series (as what happens at any interval's end after its
// sampling belongs to the next interval): the model's counters may then exceed the sums by that
// instant's work, never fall short of them. Otherwise the run closes its last, short interval
// after every event, and the sums are exact.
func TestIntervalsSumToTotals(t *testing.T) {
	for seed := range uint64(*seeds) {
		sc := parse(t, seed)
		var w *bench.World
		run, err := runScenario(sc, false, func(world *bench.World) { w = world })
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		exact := sc.Duration%sc.Interval != 0
		checkGroups(t, seed, run, w.Groups, exact)
		checkServers(t, seed, run, w, exact)
		checkSummary(t, seed, run)
	}
}

// counts are the counters of one group the check compares, in a fixed order.
type counts [9]uint64

func groupCounts(g *results.GroupInterval) counts {
	return counts{g.Issued, g.Succeeded, g.Failed, g.AppRetries, g.DriverOps, g.Attempts, g.Retries, g.RetriesRefused, g.WritesLost}
}

// covered reports whether every sum is at most the model's count, and equal to it when exact.
func covered(sums, model []uint64, exact bool) bool {
	for i := range sums {
		if sums[i] > model[i] || exact && sums[i] != model[i] {
			return false
		}
	}
	return true
}

// checkGroups compares each group's intervals, added up, with the group's own counters.
func checkGroups(t *testing.T, seed uint64, run *results.Run, groups []*client.Group, exact bool) {
	t.Helper()
	sums := map[string]counts{}
	for i := range run.Series.Groups {
		g := &run.Series.Groups[i]
		c := groupCounts(g)
		s := sums[g.Name]
		for k := range c {
			s[k] += c[k]
		}
		sums[g.Name] = s
	}
	for _, g := range groups {
		gs, ds := g.Stats(), g.DriverStats()
		want := counts{gs.Issued, gs.Succeeded, gs.Failed, gs.AppRetries, ds.OpsIssued, ds.AttemptsStarted, ds.Retries, ds.RetriesRefusedNoToken, ds.WritesLost}
		if got := sums[g.Name()]; !covered(got[:], want[:], exact) {
			t.Errorf("seed %d: group %s: the intervals add up to %v, the group counted %v (issued, succeeded, failed, app retries, driver ops, attempts, retries, refused, writes lost; exact %t)",
				seed, g.Name(), got, want, exact)
		}
	}
}

// checkServers compares each server's intervals, added up, with the server's own counters.
func checkServers(t *testing.T, seed uint64, run *results.Run, w *bench.World, exact bool) {
	t.Helper()
	sums := map[string][4]uint64{}
	for _, v := range run.Series.Servers {
		s := sums[v.Name]
		s[0] += v.Completed
		s[1] += v.RejectedAdmissions
		s[2] += v.QueueOverflows
		s[3] += v.ConnRejected
		sums[v.Name] = s
	}
	for _, n := range w.Cluster.Nodes() {
		st := n.Snapshot(w.Loop.Now())
		want := [4]uint64{st.Completed, st.RejectedAdmissions, st.QueueOverflows, st.ConnRejected}
		if got := sums[n.Address()]; !covered(got[:], want[:], exact) {
			t.Errorf("seed %d: server %s: the intervals add up to %v, the server counted %v (completed, rejected, overflows, connections rejected; exact %t)",
				seed, n.Address(), got, want, exact)
		}
	}
}

// checkSummary compares the summary's counts with the intervals of its measured window.
func checkSummary(t *testing.T, seed uint64, run *results.Run) {
	t.Helper()
	from := sim.Time(run.Summary.Warmup)
	sums := map[string]counts{}
	for i := range run.Series.Groups {
		g := &run.Series.Groups[i]
		if g.Start < from {
			continue
		}
		c := groupCounts(g)
		for _, name := range []string{g.Name, "total"} {
			s := sums[name]
			for k := range c {
				s[k] += c[k]
			}
			sums[name] = s
		}
	}
	for _, gs := range append([]results.GroupSummary{run.Summary.Total}, run.Summary.Groups...) {
		s := sums[gs.Name]
		got := [6]uint64{gs.Issued, gs.Succeeded, gs.Failed, gs.AppRetries, gs.Attempts, gs.Retries}
		want := [6]uint64{s[0], s[1], s[2], s[3], s[5], s[6]}
		if got != want {
			t.Errorf("seed %d: summary of %s: %v, its window's intervals add up to %v (issued, succeeded, failed, app retries, attempts, retries)",
				seed, gs.Name, got, want)
		}
	}
}
