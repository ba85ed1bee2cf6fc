package bench

import (
	"context"
	"flag"
	"fmt"
	"github.com/overloadsim/overloadsim/scenarios"
	"reflect"
	"slices"
	"testing"

	"github.com/overloadsim/overloadsim/client"
	"github.com/overloadsim/overloadsim/internal/parallel"
	"github.com/overloadsim/overloadsim/results"
)

var seedFlag = flag.Uint64("seed", 0, "run the library scenarios with this seed instead of their own")

// libraryRuns is a library scenario run as the CLI runs it: Base is `simulate run NAME`
// (replication 0 of the scenario as written), Points `simulate sweep NAME` (every point, every
// replication: Runs[p][r]), when the scenario has sweep parameters or a claim about a mean over
// replications.
type libraryRuns struct {
	Scenario *scenarios.Scenario
	Base     *results.Run
	Points   []scenarios.SweepPoint
	Runs     [][]*results.Run
}

// runLibrary runs the library scenario name as the CLI's run and sweep do, with its own seed or
// -seed; the sweep's replications two at a time (internal/parallel).
func runLibrary(t *testing.T, name string) libraryRuns {
	t.Helper()
	sc, err := scenarios.Lookup(name)
	if err != nil {
		t.Fatalf("scenarios.Lookup(%q): %v", name, err)
	}
	seed := sc.Seed
	if *seedFlag != 0 {
		seed = *seedFlag
	}
	lr := libraryRuns{Scenario: sc}
	if lr.Base, err = Run(sc, seed, 0); err != nil {
		t.Fatalf("%s: Run: %v", name, err)
	}
	needsSweep := len(sc.Sweep.Parameters) > 0
	for _, e := range sc.Expectations() {
		needsSweep = needsSweep || e.Over == "mean"
	}
	if !needsSweep {
		return lr
	}
	if lr.Points, err = sc.Points(); err != nil {
		t.Fatalf("%s: Points: %v", name, err)
	}
	reps := sc.Sweep.Replications
	runs, errs, _ := parallel.Map(context.Background(), len(lr.Points)*reps, 2, func(_ context.Context, i int) (*results.Run, error) {
		return Run(lr.Points[i/reps].Scenario, seed, i%reps)
	}, nil)
	lr.Runs = make([][]*results.Run, len(lr.Points))
	for i, r := range runs {
		if errs[i] != nil {
			t.Fatalf("%s: run %d: %v", name, i, errs[i])
		}
		lr.Runs[i/reps] = append(lr.Runs[i/reps], r)
	}
	return lr
}

// pointRuns returns the runs of the sweep point whose parameter path has value.
func (lr *libraryRuns) pointRuns(t *testing.T, path, value string) []*results.Run {
	t.Helper()
	for i, p := range lr.Points {
		for _, pr := range p.Params {
			if pr.Path == path && pr.Value == value {
				return lr.Runs[i]
			}
		}
	}
	t.Fatalf("%s: no sweep point %s=%s", lr.Scenario.Name, path, value)
	return nil
}

// TestLibraryClaims runs every library scenario as simulate run and simulate sweep do and
// checks its claim, which is data: the scenario's expect: block, judged as the CLI judges it
// (results.JudgeRun on the run, results.Judge at every sweep point). Every library scenario must
// have one, and every expectation must apply somewhere. mechanismChecks adds, for a few
// scenarios, checks of how the model gets there that are not metrics of a run.
func TestLibraryClaims(t *testing.T) {
	names := scenarios.Names()
	for name := range mechanismChecks {
		if !slices.Contains(names, name) {
			t.Errorf("mechanismChecks has %q, which the library does not", name)
		}
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			lr := runLibrary(t, name)
			exps := lr.Scenario.Expectations()
			if len(exps) == 0 {
				t.Fatalf("library scenario %q has no expect: block", name)
			}
			replay := fmt.Sprintf("\n\treplay: simulate run %s --seed=%d, or simulate sweep %s", name, lr.Base.Header.Seed, name)
			judged := map[int]bool{}
			for _, v := range results.JudgeRun(exps, lr.Base.Summary.Expected) {
				judged[v.Index] = true
				if !v.Pass {
					t.Errorf("%s: claim broken on its run: %s%s", name, v, replay)
				}
			}
			for p := range lr.Points {
				var measured [][]results.Measured
				for _, r := range lr.Runs[p] {
					measured = append(measured, r.Summary.Expected)
				}
				for _, v := range results.Judge(exps, lr.Points[p].Params, measured) {
					judged[v.Index] = true
					if !v.Pass {
						t.Errorf("%s: claim broken in its sweep: %s%s", name, v, replay)
					}
				}
			}
			for i := range exps {
				if !judged[i] {
					t.Errorf("%s: expect[%d] %s applies to neither the run nor any sweep point", name, i, exps[i].String())
				}
			}
			if check, ok := mechanismChecks[name]; ok {
				check(t, &lr)
			}
		})
	}
}

func group(t *testing.T, s *results.Summary, name string) results.GroupSummary {
	t.Helper()
	for _, g := range s.Groups {
		if g.Name == name {
			return g
		}
	}
	t.Fatalf("no group %q in the summary", name)
	return results.GroupSummary{}
}

func serverOf(t *testing.T, s *results.Summary, name string) results.ServerSummary {
	t.Helper()
	for _, n := range s.Servers {
		if n.Name == name {
			return n
		}
	}
	t.Fatalf("no server %q in the summary", name)
	return results.ServerSummary{}
}

func recovery(t *testing.T, s *results.Summary, fault string) results.Recovery {
	t.Helper()
	for _, r := range s.Recoveries {
		if r.Fault == fault {
			return r
		}
	}
	t.Fatalf("no recovery for fault %q", fault)
	return results.Recovery{}
}

// sustainedBy checks that every run stuck after the trigger, sustained (among others) by what.
func sustainedBy(t *testing.T, runs []*results.Run, fault string, what ...string) {
	t.Helper()
	for _, r := range runs {
		rec := recovery(t, &r.Summary, fault)
		for _, w := range what {
			if rec.Outcome != results.Stuck || !slices.Contains(rec.Stuck.SustainedBy, w) {
				t.Errorf("seed %d: %s, want stuck, sustained by %s", r.Header.Seed, rec.Describe(), w)
			}
		}
	}
}

// mechanismChecks check how the model reaches a library scenario's claim, where that is not a
// metric of a run an expect: block can bound: what sustains a stuck state, the reasons a
// Couchbase SDK retried for, what a mongos did per shard, and a ratio between two sweep points.
// Each would fail if the mechanism the scenario demonstrates were missing.
var mechanismChecks = map[string]func(t *testing.T, lr *libraryRuns){
	// Each tier at every failure probability against its closed form (closedform_test.go).
	"retry-budgets": checkClosedForms,
	// Stuck seeds sit well below the pre-trigger goodput: no middle state.
	"spike-collapse": func(t *testing.T, lr *libraryRuns) {
		for _, r := range lr.Runs[0] {
			if rec := recovery(t, &r.Summary, "surge"); rec.Outcome == results.Stuck && rec.Stuck.GoodputShare >= 0.6 {
				t.Errorf("seed %d: stuck at %.2f of the pre-trigger goodput, want < 0.6", r.Header.Seed, rec.Stuck.GoodputShare)
			}
		}
	},
	"cpu-cut-storm": func(t *testing.T, lr *libraryRuns) {
		sustainedBy(t, lr.pointRuns(t, "faults[0].for", "8s"), "cpu-cut", "retries", "abandonedWork")
	},
	"pause-collapse": func(t *testing.T, lr *libraryRuns) {
		sustainedBy(t, lr.pointRuns(t, "faults[0].for", "2s"), "gc-pause", "retries")
	},
	// The Couchbase SDK retries KV TemporaryFailure alone, and every failure is a timeout.
	"couchbase-vs-mongodb": func(t *testing.T, lr *libraryRuns) {
		cb := group(t, &lr.Base.Summary, "couchbase")
		if len(cb.RetryReasons) != 1 || cb.RetryReasons[0].Reason != "KV_TEMPORARY_FAILURE" {
			t.Errorf("couchbase: retry reasons %v, want KV_TEMPORARY_FAILURE alone", cb.RetryReasons)
		}
		if cb.Failures[client.ErrTimeout-1].Count != cb.Failed {
			t.Errorf("couchbase: %d timeouts of %d failures, want every failure a timeout", cb.Failures[client.ErrTimeout-1].Count, cb.Failed)
		}
	},
	// Shard attempts per operation, counted at the shards' primaries: the budget caps the
	// mongos's own retries.
	"sharded-layered-retries": func(t *testing.T, lr *libraryRuns) {
		perOp := func(value string) float64 {
			s := &lr.pointRuns(t, "topology.router.retryBudget", value)[0].Summary
			if len(s.Shards) != 4 {
				t.Errorf("retryBudget=%s: %d mongos×shard summaries, want 4", value, len(s.Shards))
			}
			attempts := 0.0
			for _, n := range []string{"s0a", "s1a"} {
				sv := serverOf(t, s, n)
				attempts += float64(sv.Completed + sv.Rejections)
			}
			return attempts / float64(s.Total.Issued)
		}
		if off := perOp("false"); off <= 7 {
			t.Errorf("without the budget: %.3f shard attempts per operation, want > 7", off)
		}
		if on := perOp("true"); on >= 3 {
			t.Errorf("with the budget: %.3f shard attempts per operation, want < 3", on)
		}
	},
	// Overload-aware selection retargets the mongos's retries; without it, none is.
	"mongos-retargeting": func(t *testing.T, lr *libraryRuns) {
		for _, value := range []string{"true", "false"} {
			var retargeted uint64
			for _, sh := range lr.pointRuns(t, "topology.router.overloadAwareServerSelectionEnabled", value)[0].Summary.Shards {
				retargeted += sh.Retargeted
			}
			if (value == "true") != (retargeted > 0) {
				t.Errorf("overloadAwareServerSelectionEnabled=%s: %d retries retargeted", value, retargeted)
			}
		}
	},
	// The application's attempts multiply the driver's: 2.5 times the amplification or more.
	"app-retries": func(t *testing.T, lr *libraryRuns) {
		one := lr.pointRuns(t, "clients[0].appRetry.attempts", "1")[0].Summary.Total.Amplification
		three := lr.pointRuns(t, "clients[0].appRetry.attempts", "3")[0].Summary.Total.Amplification
		if three <= 2.5*one {
			t.Errorf("with application retries: amplification %.3f, want > 2.5 × the driver alone's %.3f", three, one)
		}
	},
}

// TestDeterminism: the same scenario and seed give the same summary and header, run twice.
func TestDeterminism(t *testing.T) {
	for _, name := range []string{"spike", "connection-storm", "policy-comparison"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sc, err := scenarios.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			a, err := Run(sc, sc.Seed, 1)
			if err != nil {
				t.Fatal(err)
			}
			b, err := Run(sc, sc.Seed, 1)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(a.Header, b.Header) {
				t.Errorf("Run(%s, %d, 1) twice: headers differ:\n%+v\n%+v", name, sc.Seed, a.Header, b.Header)
			}
			if fa, fb := fmt.Sprintf("%#v", a.Summary), fmt.Sprintf("%#v", b.Summary); fa != fb {
				t.Errorf("Run(%s, %d, 1) twice: summaries differ:\n%s\n%s", name, sc.Seed, fa, fb)
			}
			c, err := Run(sc, sc.Seed, 2)
			if err != nil {
				t.Fatal(err)
			}
			if c.Header.Seed == a.Header.Seed || fmt.Sprintf("%#v", c.Summary) == fmt.Sprintf("%#v", a.Summary) {
				t.Errorf("Run(%s, %d, 2) = the same seed or summary as replication 1", name, sc.Seed)
			}
		})
	}
}
