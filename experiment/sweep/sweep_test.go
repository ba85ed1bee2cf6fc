package sweep

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/overloadsim/overloadsim/bench"
	"github.com/overloadsim/overloadsim/experiment"
	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/scenarios"
)

// smallSweep is a sweep of 2 points × 2 replications of a short healthy scenario, kept in dir.
func smallSweep(t *testing.T, dir string) Options {
	t.Helper()
	sc, err := scenarios.Lookup("healthy")
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.SetAll("duration=3s", "warmup=1s", "sweep.replications=2"); err != nil {
		t.Fatal(err)
	}
	if err := sc.Vary("clients[0].workload.rate", "200/s,400/s"); err != nil {
		t.Fatal(err)
	}
	points, err := sc.Points()
	if err != nil {
		t.Fatal(err)
	}
	return Options{Header: experiment.Header(sc, 1, bench.Label{Tool: "simulate", Version: "test"}), Points: points,
		Replications: 2, Seed: 1, Workers: 1, Dir: dir}
}

// TestResume: a sweep stopped part way keeps its finished units in its folder, written or
// not; the same sweep run again runs only the rest, says so, and aggregates to what a sweep
// that never stopped does; written whole, it removes its units.
func TestResume(t *testing.T) {
	whole, err := Run(context.Background(), smallSweep(t, ""))
	if err != nil || whole.Partial() {
		t.Fatalf("the whole sweep: %d of %d points, %v", len(whole.Stats), whole.Points, err)
	}

	dir := t.TempDir()
	units := filepath.Join(dir, results.UnitsDir)
	o := smallSweep(t, dir)
	ctx, cancel := context.WithCancel(context.Background())
	o.Hooks.Bar = func(string) func(done, total int) {
		return func(done, total int) {
			if done == 1 {
				cancel() // no run starts after the first finishes
			}
		}
	}
	cut, err := Run(ctx, o)
	if err != nil || !cut.Partial() || cut.Finished != 1 {
		t.Fatalf("the stopped sweep: %d of %d units finished, partial %v, %v; want 1, partial", cut.Finished, cut.Runs, cut.Partial(), err)
	}
	if err := cut.Written(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(units); err != nil {
		t.Fatalf("the partial sweep, written, did not keep its units: %v", err)
	}

	var log bytes.Buffer
	o = smallSweep(t, dir)
	o.Hooks.Log = &log
	resumed, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if want := "resuming: 1 of 4 runs kept in " + units; !strings.Contains(log.String(), want) {
		t.Errorf("the resumed sweep told %q; want %q", log.String(), want)
	}
	if fmt.Sprint(resumed.Stats) != fmt.Sprint(whole.Stats) { // NaN, no value, is unequal to itself

		t.Error("the resumed sweep aggregates otherwise than the whole sweep")
	}
	if err := resumed.Written(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(units); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the sweep written whole kept its units: %v", err)
	}
}
