// Package phasemap is the engine of a metastability map: every cell of a grid of two or three
// parameters runs its replications through bench on a pool of workers
// (experiment.RunIndexed), and each run's outcome after the map's trigger is counted into the
// cell, as results/phasemap records it.
package phasemap

import (
	"context"
	"fmt"

	"github.com/overloadsim/overloadsim/bench"
	"github.com/overloadsim/overloadsim/experiment"
	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/phasemap"
	"github.com/overloadsim/overloadsim/scenarios"
)

// Options is one map. Its runs are units: unit u is cell u/Replications's replication
// u%Replications, run with the run seed of that replication of Seed.
type Options struct {
	Scenario     *scenarios.Scenario
	Header       results.Header // the map's header: the scenario, Seed, the simulator's version
	Axes         []results.Axis // the grid, the first axis varying slowest
	Trigger      string         // the trigger whose outcome is counted (experiment.Trigger)
	Replications int
	Seed         uint64
	Workers      int
	Run          bench.RunOptions
	Hooks        experiment.Hooks
}

// Run runs every cell's replications and counts their outcomes after the trigger. Once ctx is
// cancelled no new run starts: the cells whose replications all finished are kept, the others
// have none, and the map is marked partial.
func Run(ctx context.Context, o Options) (phasemap.Map, error) {
	points, err := o.Scenario.Grid(o.Axes)
	if err != nil {
		return phasemap.Map{}, err
	}
	params := make([][]results.Param, len(points))
	for p := range points {
		params[p] = points[p].Params
	}
	reps := o.Replications
	runs, done, err := experiment.RunIndexed(ctx, len(points)*reps, o.Workers, func(u int) (outcome, error) {
		defer o.Hooks.Start()()
		r, err := bench.RunWith(points[u/reps].Scenario, o.Seed, u%reps, o.Run)
		if err != nil {
			return outcome{}, err
		}
		return outcomeOf(params[u/reps], &r.Summary, o.Trigger)
	}, o.Hooks.Progress("map"))
	if err != nil {
		return phasemap.Map{}, err
	}
	return build(o.Header, o.Trigger, o.Axes, params, runs, done, reps), nil
}

// The merged shards of a map are the map.
func init() { experiment.RegisterFinish(results.KindMap, merge) }

// merge is the map (a phasemap.Map) that the finished units of a map's shards make (runs, in
// unit order).
func merge(info experiment.ShardInfo, runs []results.Summary) (any, error) {
	outcomes := make([]outcome, len(runs))
	done := make([]bool, len(runs))
	for u := range runs {
		o, err := outcomeOf(info.Points[u/info.Replications], &runs[u], info.Trigger)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", info.UnitName(u), err)
		}
		outcomes[u], done[u] = o, true
	}
	return build(info.Header, info.Trigger, info.Axes, info.Points, outcomes, done, info.Replications), nil
}

// outcome is how one run of a map's cell came out after the map's trigger.
type outcome struct {
	o       results.RecoveryOutcome
	seconds float64
}

// outcomeOf returns the outcome of the run with summary s, at the cell with params.
func outcomeOf(params []results.Param, s *results.Summary, trigger string) (outcome, error) {
	rec, ok := experiment.Recovery(s, trigger)
	if !ok {
		return outcome{}, fmt.Errorf("%s: no trigger %q in this cell's run", results.ParamsText(params), trigger)
	}
	return outcome{rec.Outcome, rec.Seconds}, nil
}

// build counts the cells' outcomes (unit u is cell u/reps's replication u%reps; done says
// which finished): a cell with an unfinished replication has none, and the map is then partial.
func build(hdr results.Header, trigger string, axes []results.Axis, params [][]results.Param, runs []outcome, done []bool, reps int) phasemap.Map {
	m := phasemap.Map{Header: hdr, Trigger: trigger, Axes: axes}
	for p := range params {
		var os []results.RecoveryOutcome
		var secs []float64
		complete := true
		for r := 0; r < reps; r++ {
			complete = complete && done[p*reps+r]
			os = append(os, runs[p*reps+r].o)
			secs = append(secs, runs[p*reps+r].seconds)
		}
		if !complete {
			os, secs, m.Partial = nil, nil, true
		}
		m.Cells = append(m.Cells, phasemap.NewCell(params[p], os, secs))
	}
	return m
}
