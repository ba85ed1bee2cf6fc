package splitting

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/overloadsim/overloadsim/field"
)

// PilotConfig sets up [Pilot].
type PilotConfig struct {
	// Target is the threshold of the rare event: the last level.
	Target float64
	// N is the number of trajectories per pilot stage; the quantiles need N·P0 of at least ~20.
	N int
	// P0 is the wanted fraction of runs that go on from one level to the next, in (0, 1);
	// 0.1–0.3 suits most models (see the package documentation).
	P0 float64
	// MaxLevels bounds the number of levels; Pilot fails if Target is not reached within it.
	// 0 means 100.
	MaxLevels int
	// Seed determines the pilot's roots, keys and assignments. Use a different seed for the
	// Estimate that uses the levels.
	Seed uint64
	// Workers is the number of trajectories run at once; 0 means one per CPU.
	Workers int
}

// PilotResult is what [Pilot] found.
type PilotResult struct {
	// Levels are strictly increasing and end with Target: pass them to Config.Levels.
	Levels []float64
	// P is the pilot's own estimate of the probability, Π (fraction reaching each level). The
	// levels were chosen from the same runs, so it is biased; it is a guide for choosing N, not
	// a result.
	P float64
	// Cost is the total cost of the pilot's runs.
	Cost float64
}

// Pilot chooses levels for [Estimate] by adaptive multilevel splitting (Cérou & Guyader 2007):
// each stage runs N trajectories towards Target from the previous level's entrance states, and
// the next level is the (1−P0)-quantile of the highest scores they reached, so that about a
// fraction P0 of them reach it: precisely, with need = ⌈P0·N⌉, the need-th highest of the N
// scores, which with distinct scores exactly need runs reach. Their entrance states are found by replaying those runs to the
// new level. It stops when at least a fraction P0 of a stage reaches Target.
//
// Scores that take few values (integers, say) can tie at the quantile; the level is then the
// quantile itself when it is above the previous level (more than a fraction P0 may reach it), or
// the lowest score reached above the previous level (fewer may). If no run goes above the
// previous level, Pilot fails: the model cannot climb from there.
func Pilot(ctx context.Context, cfg PilotConfig, m Model) (PilotResult, error) {
	if err := cfg.validate(); err != nil {
		return PilotResult{}, err
	}
	if m == nil {
		return PilotResult{}, errors.New("splitting: Pilot: nil Model")
	}
	maxLevels := cfg.MaxLevels
	if maxLevels == 0 {
		maxLevels = 100
	}
	workers := workerCount(cfg.Workers)
	var ents []entrance
	prev := math.Inf(-1)
	res := PilotResult{P: 1}
	need := int(math.Ceil(cfg.P0 * float64(cfg.N))) // runs that must reach a level
	for k := range maxLevels {
		// A start is the path to run with the stop of the entrance it branches from; the roots of
		// stage 1 carry a score of −∞ so that every stage treats its starts alike.
		starts := make([]entrance, cfg.N)
		from := make([]entrance, cfg.N)   // the entrance each start branches from
		highest := make([]float64, cfg.N) // the highest score of each start, entrance included
		var run []int
		var paths []Path
		var perm []int
		if k > 0 {
			perm = permutation(len(ents), mix(domPilotPerm, cfg.Seed, uint64(k)))
		}
		for i := range starts {
			if k == 0 {
				starts[i] = entrance{path: Path{Root: mix(domPilotRoot, cfg.Seed, uint64(i))}, stop: Stop{Score: math.Inf(-1), Max: math.Inf(-1)}}
			} else {
				e := ents[perm[i%len(ents)]]
				if e.stop.Score >= cfg.Target {
					starts[i], highest[i] = e, e.stop.Score
					continue
				}
				from[i] = e
				starts[i] = entrance{path: e.path.Extend(e.stop.At, mix(domPilotKey, cfg.Seed, uint64(k), uint64(i))), stop: e.stop}
			}
			run = append(run, i)
			paths = append(paths, starts[i].path)
		}
		stops, err := runBatch(ctx, m, paths, cfg.Target, workers)
		if err != nil {
			return PilotResult{}, fmt.Errorf("splitting: Pilot: stage %d: %w", k+1, err)
		}
		for j, i := range run {
			highest[i] = max(starts[i].stop.Score, stops[j].Max)
			res.Cost += stops[j].Cost
		}

		sorted := slices.Clone(highest)
		slices.Sort(sorted)
		if reached := cfg.N - countBelow(sorted, cfg.Target); reached >= need {
			res.Levels = append(res.Levels, cfg.Target)
			res.P *= float64(reached) / float64(cfg.N)
			return res, nil
		}
		level := sorted[cfg.N-need] // the need-th highest
		if level <= prev {
			i := countBelow(sorted, math.Nextafter(prev, math.Inf(1)))
			if i == cfg.N {
				return PilotResult{}, fmt.Errorf("splitting: Pilot: stage %d: no run went above level %v (highest score %v): the target %v looks unreachable from there",
					k+1, prev, sorted[cfg.N-1], cfg.Target)
			}
			level = sorted[i]
		}
		res.Levels = append(res.Levels, level)
		res.P *= float64(cfg.N-countBelow(sorted, level)) / float64(cfg.N)

		// Replay the runs that reached level, stopping there, to find their entrance states.
		next := make([]entrance, 0, need)
		var replay []int // indices into next of the entrances to replay
		paths = paths[:0]
		for i := range starts {
			if highest[i] < level {
				continue
			}
			if starts[i].stop.Score >= level { // its entrance is already there
				next = append(next, from[i])
				continue
			}
			replay = append(replay, len(next))
			paths = append(paths, starts[i].path)
			next = append(next, starts[i])
		}
		stops, err = runBatch(ctx, m, paths, level, workers)
		if err != nil {
			return PilotResult{}, fmt.Errorf("splitting: Pilot: stage %d, replaying to level %v: %w", k+1, level, err)
		}
		for j, i := range replay {
			if !stops[j].Hit {
				return PilotResult{}, fmt.Errorf("splitting: Pilot: path %s reached level %v on its way to %v but not when replayed: the model is not deterministic",
					paths[j], level, cfg.Target)
			}
			next[i].stop = stops[j]
			res.Cost += stops[j].Cost
		}
		ents, prev = next, level
	}
	return PilotResult{}, fmt.Errorf("splitting: Pilot: target %v not reached within PilotConfig.MaxLevels = %d levels (last level %v)", cfg.Target, maxLevels, prev)
}

// countBelow returns the number of elements of the sorted xs that are below x.
func countBelow(sorted []float64, x float64) int {
	i, _ := slices.BinarySearch(sorted, x)
	return i
}

// validate reports every problem with cfg, each a *field.Error after "splitting: PilotConfig: ",
// joined with errors.Join.
func (cfg PilotConfig) validate() error {
	var errs []error
	bad := func(name string, value any, rule string) {
		errs = append(errs, fmt.Errorf("splitting: PilotConfig: %w", field.New(name, value, rule)))
	}
	if math.IsNaN(cfg.Target) || math.IsInf(cfg.Target, 0) {
		bad("Target", cfg.Target, "must be finite")
	}
	if cfg.N < 2 {
		bad("N", cfg.N, "need at least 2 trajectories per stage")
	}
	if !(cfg.P0 > 0 && cfg.P0 < 1) {
		bad("P0", cfg.P0, "must be in (0, 1)")
	}
	if cfg.MaxLevels < 0 {
		bad("MaxLevels", cfg.MaxLevels, "want ≥ 1, or 0 for 100")
	}
	if cfg.Workers < 0 {
		bad("Workers", cfg.Workers, "want ≥ 1, or 0 for one per CPU")
	}
	return errors.Join(errs...)
}
