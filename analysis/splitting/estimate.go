package splitting

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/overloadsim/overloadsim/field"
)

// Config sets up fixed-effort splitting.
type Config struct {
	// Levels are the levels L_1 < L_2 < … < L_m of the score; the last is the threshold of the
	// rare event. A single level makes Estimate plain replication repeated Repetitions times.
	Levels []float64
	// N is the number of trajectories run in every stage.
	N int
	// Repetitions is the number of independent repetitions of the whole procedure, at least 2:
	// their spread gives the standard error and the interval.
	Repetitions int
	// Seed determines every root, branch key and assignment; the same Seed gives the same
	// Result.
	Seed uint64
	// Workers is the number of trajectories run at once; 0 means one per CPU
	// (runtime.GOMAXPROCS). It changes the wall time, never the Result.
	Workers int
}

// Validate reports every problem with c, each a *field.Error after "splitting: Config: ",
// joined with errors.Join.
func (c Config) Validate() error {
	var errs []error
	bad := func(name string, value any, rule string) {
		errs = append(errs, fmt.Errorf("splitting: Config: %w", field.New(name, value, rule)))
	}
	if len(c.Levels) == 0 {
		bad("Levels", "[]", "must not be empty: give at least the rare event's threshold")
	}
	for i, l := range c.Levels {
		name := fmt.Sprintf("Levels[%d]", i)
		switch {
		case math.IsNaN(l) || math.IsInf(l, 0):
			bad(name, l, "levels must be finite")
		case i > 0 && l <= c.Levels[i-1]:
			bad(name, l, fmt.Sprintf("must be above Levels[%d] = %v: levels must be strictly increasing", i-1, c.Levels[i-1]))
		}
	}
	if c.N < 1 {
		bad("N", c.N, "need at least 1 trajectory per stage")
	}
	if c.Repetitions < 2 {
		bad("Repetitions", c.Repetitions, "need at least 2 independent repetitions for a standard error")
	}
	if c.Workers < 0 {
		bad("Workers", c.Workers, "want ≥ 1, or 0 for one per CPU")
	}
	return errors.Join(errs...)
}

// StageResult is what one stage of one repetition saw.
type StageResult struct {
	// Level is the level this stage tried to reach.
	Level float64
	// Entrances is the number of distinct states the stage started from: the roots in stage 1,
	// the previous stage's hits after.
	Entrances int
	// Runs is the number of trajectories started (Config.N).
	Runs int
	// Hits is the number of trajectories that reached Level.
	Hits int
	// Jumped counts the hits whose entrance state was already at or above Level (the score
	// jumped over it); they were counted without running.
	Jumped int
	// P is Hits/Runs, the estimate of P(reach Level | reached the previous level).
	P float64
	// Cost is the total cost of the stage's runs.
	Cost float64
}

// Result is an estimate of the probability of the rare event.
type Result struct {
	// P is the estimate: the mean of the repetitions' estimates (hits/N for BruteForce).
	P float64
	// SE is the standard error of P.
	SE float64
	// CILo and CIHi bound the 95 % confidence interval for the probability: Student's t across
	// repetitions for Estimate, Wilson's score interval for BruteForce; clipped to [0, 1]. If
	// every repetition of Estimate gave 0, the interval is [0, 1]: there is no information; add
	// levels or raise N.
	CILo, CIHi float64
	// RelErr is SE/P, +Inf when P is 0.
	RelErr float64
	// Cost is the total cost of every run made (all stages and repetitions).
	Cost float64
	// Reps holds the estimate P̂ of each repetition (nil for BruteForce).
	Reps []float64
	// Stages holds, per repetition, its stages in order; a repetition that ended on a stage
	// without hits has fewer stages than levels. BruteForce reports one repetition of one stage.
	Stages [][]StageResult
}

// RelVarCost returns RelErr²·Cost, the work-normalised relative variance: the squared relative
// error that one unit of cost buys, inverted. It hardly depends on the sample size, so it compares
// methods and level choices fairly; lower is better.
func (r Result) RelVarCost() float64 { return float64(r.RelErr * r.RelErr * r.Cost) }

// entrance is a state from which a stage starts: the path that reaches it and the stop there.
type entrance struct {
	path Path
	stop Stop
}

// Estimate estimates the probability that the score reaches the last of cfg.Levels by
// fixed-effort multilevel splitting (see the package documentation), with cfg.Repetitions
// independent repetitions. It returns an error if cfg is invalid, if the model fails or breaks
// its contract, or if ctx is done (the error then wraps ctx.Err()).
func Estimate(ctx context.Context, cfg Config, m Model) (Result, error) {
	if err := cfg.Validate(); err != nil {
		return Result{}, err
	}
	if m == nil {
		return Result{}, errors.New("splitting: Estimate: nil Model")
	}
	res := Result{Reps: make([]float64, cfg.Repetitions), Stages: make([][]StageResult, cfg.Repetitions)}
	for r := range cfg.Repetitions {
		p, stages, err := repetition(ctx, cfg, m, mix(domRep, cfg.Seed, uint64(r)))
		if err != nil {
			return Result{}, fmt.Errorf("splitting: repetition %d: %w", r, err)
		}
		res.Reps[r], res.Stages[r] = p, stages
		for _, s := range stages {
			res.Cost += s.Cost
		}
	}
	res.P, res.SE = meanSE(res.Reps)
	half := float64(tQuantile975(len(res.Reps)-1) * res.SE)
	res.CILo, res.CIHi = max(0, res.P-half), min(1, res.P+half)
	if res.P == 0 {
		// Every repetition had a stage without hits: the spread is 0 but says nothing, and
		// [0, 0] would claim certainty.
		res.CIHi = 1
	}
	res.RelErr = relErr(res.SE, res.P)
	return res, nil
}

// repetition runs the stages once from seed and returns Π H_k/N and the stages run.
func repetition(ctx context.Context, cfg Config, m Model, seed uint64) (float64, []StageResult, error) {
	workers := workerCount(cfg.Workers)
	var ents []entrance // the previous stage's hits, in index order
	p := 1.0
	stages := make([]StageResult, 0, len(cfg.Levels))
	for k, level := range cfg.Levels {
		st := StageResult{Level: level, Runs: cfg.N}
		starts := make([]entrance, cfg.N) // a start's stop is its entrance's, until it runs
		run := make([]int, 0, cfg.N)      // indices of the starts that must run
		paths := make([]Path, 0, cfg.N)
		if k == 0 {
			st.Entrances = cfg.N
			for i := range starts {
				starts[i].path = Path{Root: mix(domRoot, seed, uint64(i))}
				run = append(run, i)
				paths = append(paths, starts[i].path)
			}
		} else {
			st.Entrances = len(ents)
			// Fixed assignment: start i goes to entrance perm[i mod E], so each gets ⌊N/E⌋ or
			// ⌈N/E⌉ starts and the random permutation picks which get the extra one.
			perm := permutation(len(ents), mix(domPerm, seed, uint64(k)))
			for i := range starts {
				e := ents[perm[i%len(ents)]]
				if e.stop.Score >= level {
					starts[i] = e // already there: a hit at no cost
					st.Jumped++
					continue
				}
				// A fresh key per (repetition, stage, index): reusing the parent's would make
				// its children copies of each other.
				starts[i].path = e.path.Extend(e.stop.At, mix(domKey, seed, uint64(k), uint64(i)))
				run = append(run, i)
				paths = append(paths, starts[i].path)
			}
		}
		stops, err := runBatch(ctx, m, paths, level, workers)
		if err != nil {
			return 0, nil, fmt.Errorf("stage %d (level %v): %w", k+1, level, err)
		}
		for j, i := range run {
			starts[i].stop = stops[j]
			st.Cost += stops[j].Cost
		}
		ents = make([]entrance, 0, cfg.N)
		for _, s := range starts {
			if s.stop.Hit {
				ents = append(ents, s)
			}
		}
		st.Hits = len(ents)
		st.P = float64(st.Hits) / float64(cfg.N)
		stages = append(stages, st)
		p *= st.P
		if st.Hits == 0 {
			break
		}
	}
	return p, stages, nil
}

// BruteForce estimates the probability that the score reaches level by n plain runs from
// distinct roots derived from seed, on up to workers goroutines (0: one per CPU). P is hits/n,
// SE is √(P(1−P)/n) and the interval is Wilson's score interval, which stays meaningful with
// few or no hits. The roots differ from those of Estimate with the same seed, so the two
// estimates are independent.
func BruteForce(ctx context.Context, n int, level float64, seed uint64, workers int, m Model) (Result, error) {
	var errs []error
	bad := func(name string, value any, rule string) {
		errs = append(errs, fmt.Errorf("splitting: BruteForce: %w", field.New(name, value, rule)))
	}
	if n < 1 {
		bad("n", n, "need at least 1 run")
	}
	if math.IsNaN(level) || math.IsInf(level, 0) {
		bad("level", level, "must be finite")
	}
	if workers < 0 {
		bad("workers", workers, "want ≥ 1, or 0 for one per CPU")
	}
	if m == nil {
		errs = append(errs, errors.New("splitting: BruteForce: nil Model"))
	}
	if len(errs) > 0 {
		return Result{}, errors.Join(errs...)
	}
	w := workerCount(workers)
	// Run in chunks so that memory stays bounded for the millions of runs a validation may need;
	// costs are added in index order, so the sum does not depend on w.
	const chunk = 1 << 12
	hits, cost := 0, 0.0
	paths := make([]Path, 0, chunk)
	for lo := 0; lo < n; lo += chunk {
		paths = paths[:0]
		for i := lo; i < min(n, lo+chunk); i++ {
			paths = append(paths, Path{Root: mix(domBrute, seed, uint64(i))})
		}
		stops, err := runBatch(ctx, m, paths, level, w)
		if err != nil {
			return Result{}, fmt.Errorf("splitting: BruteForce: %w", err)
		}
		for _, s := range stops {
			if s.Hit {
				hits++
			}
			cost += s.Cost
		}
	}
	p := float64(hits) / float64(n)
	res := Result{P: p, SE: math.Sqrt(p * (1 - p) / float64(n)), Cost: cost}
	res.CILo, res.CIHi = wilson(hits, n)
	res.RelErr = relErr(res.SE, p)
	res.Stages = [][]StageResult{{{Level: level, Entrances: n, Runs: n, Hits: hits, P: p, Cost: cost}}}
	return res, nil
}

// z975 is the 0.975 quantile of the standard normal distribution.
const z975 = 1.959963984540054

// wilson returns Wilson's 95 % score interval for h successes in n trials.
func wilson(h, n int) (lo, hi float64) {
	p, nf := float64(h)/float64(n), float64(n)
	z2 := z975 * z975
	centre := (p + z2/(2*nf)) / (1 + z2/nf)
	half := float64(z975 / (1 + z2/nf) * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf)))
	return max(0, centre-half), min(1, centre+half)
}

// meanSE returns the mean of xs and its standard error s/√n (s the sample standard deviation).
func meanSE(xs []float64) (mean, se float64) {
	for _, x := range xs {
		mean += x
	}
	n := float64(len(xs))
	mean /= n
	var ss float64
	for _, x := range xs {
		ss += float64((x - mean) * (x - mean))
	}
	return mean, math.Sqrt(ss / (n - 1) / n)
}

// tQuantile975 returns the 0.975 quantile of Student's t with df degrees of freedom.
func tQuantile975(df int) float64 {
	// Quantile draws no random numbers, so the nil Src is never used.
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}.Quantile(0.975)
}

func relErr(se, p float64) float64 {
	if p <= 0 {
		return math.Inf(1)
	}
	return se / p
}
