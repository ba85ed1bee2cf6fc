// Package rare is the engine of a rare-event estimate: it runs a scenario as a splitting model
// (analysis/splitting) — a pilot to choose the levels when asked, the fixed-effort estimate,
// and plain replication at the same cost when asked — and returns the result as
// results/rare records it.
package rare

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/overloadsim/overloadsim/analysis/splitting"
	"github.com/overloadsim/overloadsim/bench"
	"github.com/overloadsim/overloadsim/experiment"
	"github.com/overloadsim/overloadsim/field"
	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/rare"
	"github.com/overloadsim/overloadsim/scenarios"
)

// Options is one rare-event estimate.
type Options struct {
	Scenario *scenarios.Scenario
	Header   results.Header // the result's header: the scenario, Seed, the simulator's version
	Score    results.Score  // what is observed at every checkpoint
	From     time.Duration  // the score counts only at checkpoints after From
	Step     time.Duration  // a checkpoint every Step; 0 is the scenario's interval
	// Levels are the levels, strictly increasing, the last the rare event's threshold; empty
	// when Pilot chooses them.
	Levels []float64
	// Pilot, when not 0, is the threshold toward which a pilot run chooses the levels.
	Pilot       float64
	N           int  // trajectories per stage
	Repetitions int  // independent repetitions of the estimate
	BruteForce  bool // also estimate by plain replication at about the same cost
	Seed        uint64
	Workers     int
	Hooks       experiment.Hooks // Log is where the stages of the work are told as they start
}

// model is the scenario as a splitting model, observed as o says.
func (o *Options) model() *bench.SplitModel {
	return &bench.SplitModel{Scenario: o.Scenario, Score: o.Score, From: o.From, Step: o.Step}
}

// TrajectoryCost is what one trajectory of o costs: each is recorded at its Step, and a finer
// step costs a row per checkpoint.
func TrajectoryCost(o Options) bench.Cost { return o.model().Cost() }

// Run makes the estimate o describes. A bad splitting configuration (too few repetitions, say)
// is an error worded "splitting: Config.N = 1: rule", a line per problem.
func Run(ctx context.Context, o Options) (rare.Result, error) {
	m := o.model()
	r := rare.Result{Header: o.Header, Score: string(o.Score), N: o.N, Repetitions: o.Repetitions,
		Step: m.Step, From: o.From}
	if r.Step == 0 {
		r.Step = o.Scenario.Interval
	}
	levels := o.Levels
	if o.Pilot != 0 {
		o.Hooks.Logf("pilot: choosing levels toward %s ≥ %g\n", o.Score, o.Pilot)
		pr, err := splitting.Pilot(ctx, splitting.PilotConfig{Target: o.Pilot, N: o.N, P0: 0.2, Seed: o.Seed ^ 0x5eed, Workers: o.Workers}, m)
		if err != nil {
			return rare.Result{}, configText("PilotConfig", err)
		}
		levels, r.PilotCost = pr.Levels, pr.Cost
	}
	r.Levels = levels
	o.Hooks.Logf("splitting: %d levels, %d trajectories per stage, %d repetitions\n", len(levels), o.N, o.Repetitions)
	est, err := splitting.Estimate(ctx, splitting.Config{Levels: levels, N: o.N, Repetitions: o.Repetitions, Seed: o.Seed, Workers: o.Workers}, m)
	if err != nil {
		return rare.Result{}, configText("Config", err)
	}
	r.Splitting = estimate(est)
	if o.BruteForce {
		// As many plain runs as splitting's cost buys, at the mean cost of a plain run.
		probe, err := splitting.BruteForce(ctx, 8, levels[len(levels)-1], o.Seed^0xb0b, o.Workers, m)
		if err != nil {
			return rare.Result{}, err
		}
		runs := max(1, int(est.Cost/(probe.Cost/8)))
		o.Hooks.Logf("brute force: %d plain runs at the same cost\n", runs)
		bf, err := splitting.BruteForce(ctx, runs, levels[len(levels)-1], o.Seed^0xb0b, o.Workers, m)
		if err != nil {
			return rare.Result{}, err
		}
		e := estimate(bf)
		r.BruteForce = &e
	}
	return r, nil
}

// configText words the problems of a splitting configuration (each a *field.Error, owner the
// configuration's type) as "splitting: Config.N = 1: rule", one a line; any other error is
// returned as it is.
func configText(owner string, err error) error {
	parts := field.Parts(err)
	lines := make([]string, len(parts))
	for i, p := range parts {
		var e *field.Error
		if !errors.As(p, &e) {
			return err
		}
		lines[i] = fmt.Sprintf("splitting: %s.%s = %s: %s", owner, e.Field, e.Value, e.Rule)
	}
	return errors.New(strings.Join(lines, "\n"))
}

// estimate is an estimate as results/rare records it: the stages summed over the repetitions.
func estimate(r splitting.Result) rare.Estimate {
	e := rare.Estimate{P: r.P, CILo: r.CILo, CIHi: r.CIHi, RelErr: r.RelErr, Cost: r.Cost}
	for _, reps := range r.Stages {
		for i, st := range reps {
			for len(e.Stages) <= i {
				e.Stages = append(e.Stages, rare.Stage{Level: st.Level})
			}
			e.Stages[i].Runs += st.Runs
			e.Stages[i].Hits += st.Hits
		}
	}
	return e
}
