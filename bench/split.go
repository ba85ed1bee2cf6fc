package bench

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/overloadsim/overloadsim/analysis/splitting"
	"github.com/overloadsim/overloadsim/record"
	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/scenarios"
	"github.com/overloadsim/overloadsim/sim"
)

// SplitModel runs a scenario as a splitting.Model, for rare-event estimates of how likely a run
// is to stick. A trajectory's checkpoints are every Step (checkpoint k at k·Step; the scenario's
// interval when Step is 0), where the Score of the Step just ended is observed. A storm can build
// within one of the scenario's 1 s intervals, so a finer Step gives the levels in between a
// chance to split it. A path's root is the
// run seed; at each branch point the world's loop re-derives every random stream from the
// branch's key (sim.Loop.Branch) after the checkpoint's events, so a replay is identical to its
// parent up to there and fresh after. Cost is loop events handled, the replayed prefix included:
// a storm's events cost what they cost, so splitting and plain replication compare fairly.
//
// From sets the first instant whose interval counts: scores of intervals that end at or before
// it are not observed, so levels are reached only after it. Starting at a trigger's start makes
// the score a better guide to sticking: a backlog that noise raises long before the trigger
// says little about the trigger's outcome, and splitting from there wastes its effort.
type SplitModel struct {
	Scenario *scenarios.Scenario
	Score    results.Score
	From     time.Duration
	Step     time.Duration
}

// step returns the checkpoint spacing.
func (m *SplitModel) step() time.Duration {
	if m.Step > 0 {
		return m.Step
	}
	return m.Scenario.Interval
}

// Checkpoints returns the number of checkpoints of a run: whole intervals up to the horizon.
func (m *SplitModel) Checkpoints() int64 {
	return int64(m.Scenario.Duration / m.step())
}

// Run implements splitting.Model.
func (m *SplitModel) Run(ctx context.Context, p splitting.Path, level float64) (splitting.Stop, error) {
	sc := m.Scenario
	loop := sim.NewLoop()
	rec := record.New(loop, m.step())
	if _, err := Build(sc, p.Root, loop, rec); err != nil {
		return splitting.Stop{}, err
	}
	rec.Start()
	last := int64(0)
	k := m.Checkpoints()
	// In slices that ask ctx, so a cancelled estimate stops within a checkpoint, however many
	// events it holds (the same events in the same order).
	s := slicer{loop: loop, stop: func() bool { return ctx.Err() != nil }, span: firstSlice}
	at := func(c int64) sim.Time { return sim.Time(time.Duration(c) * m.step()) }
	for _, b := range p.Branches {
		if b.At <= last || b.At > k {
			return splitting.Stop{}, fmt.Errorf("bench: %s: path %s: branch at checkpoint %d outside (%d, %d]", sc.Name, p, b.At, last, k)
		}
		if s.runUntil(at(b.At)) {
			return splitting.Stop{}, ctx.Err()
		}
		loop.Branch(b.Key)
		last = b.At
	}
	// A branch at the horizon observes nothing more: a miss where it stands.
	stop := splitting.Stop{At: k, Score: math.Inf(-1), Max: math.Inf(-1)}
	for c := last + 1; c <= k; c++ {
		if s.runUntil(at(c)) {
			return splitting.Stop{}, ctx.Err()
		}
		if at(c) <= sim.Time(m.From) {
			continue
		}
		v, ok := rec.SoFar().ScoreAt(m.Score, at(c))
		if !ok {
			return splitting.Stop{}, fmt.Errorf("bench: %s: no interval ends at checkpoint %d", sc.Name, c)
		}
		stop.Max = max(stop.Max, v)
		if v >= level {
			stop = splitting.Stop{Hit: true, At: c, Score: v, Max: stop.Max}
			break
		}
		stop.Score = v
	}
	stop.Cost = float64(loop.Fired())
	return stop, nil
}
