// Package sweep is the engine of a sweep: every point's replications run through bench on a
// pool of workers (experiment.RunIndexed), and the points whose replications all finished are
// aggregated into their statistics and judged against the scenario's expectations, as
// sweep.WriteSweepDir records them.
package sweep

import (
	"context"
	"path/filepath"

	"github.com/overloadsim/overloadsim/bench"
	"github.com/overloadsim/overloadsim/experiment"
	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/sweep"
	"github.com/overloadsim/overloadsim/scenarios"
)

// Options is one sweep. Its runs are units: unit u is point u/Replications's replication
// u%Replications, run with the run seed of that replication of Seed.
type Options struct {
	// Header is the sweep's header: with Replications, it names the work whose units are kept
	// in Dir (experiment.UnitsKey).
	Header       results.Header
	Points       []scenarios.SweepPoint
	Replications int
	Seed         uint64
	Workers      int
	Run          bench.RunOptions
	Expect       []results.Expectation // what each point is judged against
	// Dir, when not "", is the sweep's folder, whose units (experiment.Units) keep each unit as
	// soon as it finishes: the units an earlier attempt of the same sweep kept there are not
	// run again, so a sweep stopped in any way resumes where it stopped.
	Dir string
	// Hooks: Log is where the units set aside and the units resumed are told, Bar the
	// progress, Running the runs in progress.
	Hooks experiment.Hooks
}

// Result is a sweep aggregated: the points whose replications all finished.
type Result struct {
	Stats    []sweep.PointStats // each complete point's statistics, in the points' order
	Verdicts []results.Verdict  // the expectations judged at every complete point
	Points   int                // the points of the sweep, complete or not
	Runs     int                // its units
	Finished int                // the units that finished
	units    *experiment.Units  // where Run kept the units, nil when it kept none
}

// Partial reports whether some point has a replication that did not finish.
func (r *Result) Partial() bool { return len(r.Stats) < r.Points }

// Written tells the sweep it has been written: a sweep written whole removes the units it kept
// in Options.Dir, which nothing will resume; a partial one keeps them, for the same sweep run
// again to finish.
func (r *Result) Written() error {
	if r.units == nil || r.Finished < r.Runs {
		return nil
	}
	return r.units.Remove()
}

// Run runs the sweep o describes and aggregates it, keeping every unit in o.Dir as it finishes
// and running none kept there already. Once ctx is cancelled no new run starts: the runs in
// progress finish, and the result holds the points whose replications all finished. The
// caller writes the result, then calls its Written.
func Run(ctx context.Context, o Options) (Result, error) {
	reps := o.Replications
	var units *experiment.Units
	var kept map[int]results.Summary
	if o.Dir != "" {
		var err error
		if units, kept, err = experiment.OpenUnits(o.Dir, experiment.UnitsKey(o.Header, reps)); err != nil {
			return Result{}, err
		}
		for _, d := range units.Discarded {
			o.Hooks.Logf("not resuming from %s\n", d)
		}
		if len(kept) > 0 {
			o.Hooks.Logf("resuming: %d of %d runs kept in %s from an earlier run of this sweep\n",
				len(kept), len(o.Points)*reps, filepath.Join(o.Dir, results.UnitsDir))
		}
	}
	runs, done, err := experiment.RunIndexed(ctx, len(o.Points)*reps, o.Workers, func(u int) (results.Summary, error) {
		if s, ok := kept[u]; ok {
			return s, nil
		}
		defer o.Hooks.Start()()
		r, err := bench.RunWith(o.Points[u/reps].Scenario, o.Seed, u%reps, o.Run)
		if err != nil {
			return results.Summary{}, err
		}
		if units != nil {
			err = units.Put(u, r.Summary)
		}
		return r.Summary, err
	}, o.Hooks.Progress("sweep"))
	if err != nil {
		return Result{}, err
	}
	params := make([][]results.Param, len(o.Points))
	for p := range o.Points {
		params[p] = o.Points[p].Params
	}
	r := Aggregate(params, runs, done, reps, o.Expect)
	r.units = units
	return r, nil
}

// Aggregate aggregates a sweep's runs (unit u is point u/reps's replication u%reps, params
// each point's parameters; done says which units finished): the points whose replications all
// finished, each judged against exps.
func Aggregate(params [][]results.Param, runs []results.Summary, done []bool, reps int, exps []results.Expectation) Result {
	r := Result{Points: len(params), Runs: len(params) * reps}
	var complete []sweep.PointResult
	for p := range params {
		pr := sweep.PointResult{Params: params[p]}
		ok := true
		for k := 0; k < reps; k++ {
			ok = ok && done[p*reps+k]
			pr.Replications = append(pr.Replications, runs[p*reps+k])
		}
		if ok {
			complete = append(complete, pr)
		}
	}
	for _, d := range done {
		if d {
			r.Finished++
		}
	}
	r.Stats = sweep.Aggregate(complete)
	for _, pr := range complete {
		var measured [][]results.Measured
		for _, s := range pr.Replications {
			measured = append(measured, s.Expected)
		}
		r.Verdicts = append(r.Verdicts, results.Judge(exps, pr.Params, measured)...)
	}
	return r
}

// The merged shards of a sweep are the sweep.
func init() { experiment.RegisterFinish(results.KindSweep, merge) }

// merge is the sweep (a Result) that the merged shards of one make: every unit finished.
func merge(info experiment.ShardInfo, runs []results.Summary) (any, error) {
	done := make([]bool, len(runs))
	for u := range done {
		done[u] = true
	}
	return Aggregate(info.Points, runs, done, info.Replications, info.Expect), nil
}
