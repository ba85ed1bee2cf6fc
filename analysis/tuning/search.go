package tuning

import (
	"math"
	"slices"

	"github.com/overloadsim/overloadsim/internal/stats"
)

// Round is one round of a search: the candidates to run.
type Round struct {
	// N is 0 for the coarse grid, k for the k-th refinement.
	N int
	// Around is the best feasible candidate's values, which a refinement surrounds; nil for
	// the coarse grid.
	Around []float64
	// Candidates are the settings to run, each one value per parameter.
	Candidates [][]float64
}

// Eval runs the candidates of a round: values[c][m][r] is what replication r of candidate c
// measured of measure m (NaN for no value), and done[c] whether every replication of candidate
// c finished. An error stops the search: the candidates done are kept.
type Eval func(r Round) (values [][][]float64, done []bool, err error)

// Result is what a search found.
type Result struct {
	Candidates []Candidate // in the order they ran, with Select's verdicts
	Selection
	// Rounds is how many rounds ran, the coarse grid included.
	Rounds int
	// Stopped says where an eval's error stopped the search; nil when it ran to its end.
	Stopped *Stop
}

// Stop says where a search stopped: in round Round, with Finished of its Of candidates done.
type Stop struct {
	Round, Finished, Of int
}

// Grid returns the coarse grid's settings: every combination of the parameters' grid values,
// the first parameter varying slowest.
func Grid(params []Param) [][]float64 {
	axes := make([][]float64, len(params))
	for i := range params {
		axes[i] = params[i].Grid()
	}
	return product(axes)
}

// GridSize is how many candidates the coarse grid has at most (before an integer parameter's
// rounded values are taken once each), computed without building it.
func GridSize(params []Param) float64 {
	n := 1.0
	for _, p := range params {
		n *= float64(p.Levels)
	}
	return n
}

// RefineSize is how many new candidates one refinement round runs at most.
func RefineSize(params []Param) float64 {
	n := 1.0
	for _, p := range params {
		n *= float64(2*p.refineLevels() - 1)
	}
	return n - 1
}

// product returns every combination of axes' values, the first varying slowest.
func product(axes [][]float64) [][]float64 {
	combos := [][]float64{nil}
	for _, ax := range axes {
		var next [][]float64
		for _, c := range combos {
			for _, x := range ax {
				next = append(next, append(slices.Clone(c), x))
			}
		}
		combos = next
	}
	return combos
}

// Search runs the search: the coarse grid, then up to Refine refinement rounds, each around the
// best feasible candidate so far (a round with no new candidate, or no feasible candidate to
// refine around, ends the search early), judging the candidates after each round (Select). When
// eval fails, the candidates it finished are kept, Result.Stopped says where, and the error is
// returned with the result. Options that Validate refuses return its error and no result.
func Search(o *Options, eval Eval) (*Result, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	res := &Result{}
	next := Grid(o.Params)
	var around []float64
	for round := 0; len(next) > 0; round++ {
		values, done, err := eval(Round{N: round, Around: around, Candidates: next})
		finished := 0
		for i := range next {
			if i < len(done) && done[i] && i < len(values) {
				res.Candidates = append(res.Candidates, candidate(o, next[i], round, values[i]))
				finished++
			}
		}
		res.Rounds = round + 1
		res.Selection = Select(o, res.Candidates)
		if err != nil {
			res.Stopped = &Stop{Round: round, Finished: finished, Of: len(next)}
			return res, err
		}
		if round >= o.Refine || res.Best < 0 {
			break
		}
		around = res.Candidates[res.Best].Values
		next = refinement(o, res.Candidates, around)
	}
	return res, nil
}

// candidate returns a finished candidate with the statistics of its replications' values (per
// measure, NaN values left out).
func candidate(o *Options, vs []float64, round int, values [][]float64) Candidate {
	c := Candidate{Values: slices.Clone(vs), Round: round}
	for m := 0; m < o.Measures; m++ {
		var xs []float64
		if m < len(values) {
			for _, v := range values[m] {
				if !math.IsNaN(v) {
					xs = append(xs, v)
				}
			}
		}
		mean, half := stats.MeanCI(xs, o.Confidence)
		c.Stats = append(c.Stats, Stat{Mean: mean, CI95: half, N: len(xs)})
	}
	return c
}

// refinement returns the settings of a refinement round around best: along each parameter,
// from best to its neighbours (the nearest values any candidate has on either side, the range's
// end where there is none), a finer grid; every combination whose key no candidate has.
func refinement(o *Options, cands []Candidate, best []float64) [][]float64 {
	axes := make([][]float64, len(o.Params))
	for d := range o.Params {
		p := &o.Params[d]
		var seen []float64
		for _, c := range cands {
			if !slices.Contains(seen, c.Values[d]) {
				seen = append(seen, c.Values[d])
			}
		}
		slices.Sort(seen)
		b := best[d]
		i := slices.Index(seen, b)
		lo, hi := seen[max(i-1, 0)], seen[min(i+1, len(seen)-1)]
		ax := []float64{b}
		if lo < b {
			ax = append(ax, p.span(lo, b, p.refineLevels())...)
		}
		if hi > b {
			ax = append(ax, p.span(b, hi, p.refineLevels())...)
		}
		slices.Sort(ax)
		axes[d] = slices.Compact(ax)
	}
	have := map[string]bool{}
	for _, c := range cands {
		have[o.Key(c.Values)] = true
	}
	var out [][]float64
	for _, vs := range product(axes) {
		if !have[o.Key(vs)] {
			out = append(out, vs)
		}
	}
	return out
}
