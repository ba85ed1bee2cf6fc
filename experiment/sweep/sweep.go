// Package sweep is the engine of a sweep: every point's replications run through bench on a
// pool of workers (experiment.RunIndexed), and the points whose replications all finished are
// aggregated into their statistics and judged against the scenario's expectations, as
// sweep.WriteSweepDir records them.
package sweep

import (
	"context"

	"github.com/overloadsim/overloadsim/bench"
	"github.com/overloadsim/overloadsim/experiment"
	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/sweep"
	"github.com/overloadsim/overloadsim/scenarios"
)

// Options is one sweep. Its runs are units: unit u is point u/Replications's replication
// u%Replications, run with the run seed of that replication of Seed.
type Options struct {
	Points       []scenarios.SweepPoint
	Replications int
	Seed         uint64
	Workers      int
	Run          bench.RunOptions
	Expect       []results.Expectation // what each point is judged against
	// Kept are the units an earlier attempt of the same sweep finished: they are not run again.
	Kept map[int]results.Summary
	// Keep, when not nil, is given each unit's summary as soon as the unit finishes, so that a
	// sweep stopped in any way can resume; its error stops the sweep.
	Keep  func(u int, s results.Summary) error
	Hooks experiment.Hooks
}

// Result is a sweep aggregated: the points whose replications all finished.
type Result struct {
	Stats    []sweep.PointStats // each complete point's statistics, in the points' order
	Verdicts []results.Verdict  // the expectations judged at every complete point
	Points   int                // the points of the sweep, complete or not
	Runs     int                // its units
	Finished int                // the units that finished
}

// Partial reports whether some point has a replication that did not finish.
func (r *Result) Partial() bool { return len(r.Stats) < r.Points }

// Run runs the sweep o describes and aggregates it. Once ctx is cancelled no new run starts:
// the runs in progress finish, and the result holds the points whose replications all finished.
func Run(ctx context.Context, o Options) (Result, error) {
	reps := o.Replications
	runs, done, err := experiment.RunIndexed(ctx, len(o.Points)*reps, o.Workers, func(u int) (results.Summary, error) {
		if s, ok := o.Kept[u]; ok {
			return s, nil
		}
		defer o.Hooks.Start()()
		r, err := bench.RunWith(o.Points[u/reps].Scenario, o.Seed, u%reps, o.Run)
		if err != nil {
			return results.Summary{}, err
		}
		if o.Keep != nil {
			err = o.Keep(u, r.Summary)
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
	return Aggregate(params, runs, done, reps, o.Expect), nil
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
