// Package tune runs a tuning: it drives the search of package analysis/tuning over a tuning's
// record (package results/tune), its candidates' replications run through the scenario runner
// (Runner) or read from a sharded tuning's units (Merged).
package tune

import (
	"fmt"
	"slices"

	"github.com/overloadsim/overloadsim/analysis/tuning"
	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/tune"
)

// Round is one round of a tuning's search: its candidates, and the label of the candidate a
// refinement surrounds ("" for the coarse grid).
type Round struct {
	N          int // 0 for the coarse grid, k for the k-th refinement
	Around     string
	Candidates []tune.Candidate
}

// Eval runs the candidates of a round: values[c][m][r] is what replication r of candidate c
// measured of measure m (Tuning.Measures; NaN for no value), and done[c] whether every
// replication of candidate c finished. An error stops the search: the candidates done are kept.
type Eval func(r Round) (values [][][]float64, done []bool, err error)

// Search runs the tuning t: the coarse grid, then up to t.Refine refinement rounds, each around
// the best feasible candidate so far (analysis/tuning), and records every candidate that
// finished, the recommendation and what the constraints did in t. When eval fails, the
// candidates it finished are kept, the tuning is marked Partial, and the error is returned.
func Search(t *tune.Tuning, eval Eval) error {
	res, err := tuning.Search(options(t), func(r tuning.Round) ([][][]float64, []bool, error) {
		round := Round{N: r.N, Candidates: make([]tune.Candidate, len(r.Candidates))}
		for i, vs := range r.Candidates {
			round.Candidates[i] = candidate(t, vs, r.N)
		}
		if r.Around != nil {
			c := candidate(t, r.Around, 0)
			round.Around = c.Label()
		}
		return eval(round)
	})
	if res == nil {
		return err
	}
	t.Candidates = nil
	for _, c := range res.Candidates {
		rc := candidate(t, c.Values, c.Round)
		rc.Replications = t.Replications
		for m, st := range c.Stats {
			rc.Metrics = append(rc.Metrics, results.MetricStats{Name: t.Measures[m].Name(), Mean: st.Mean, CI95: st.CI95, N: st.N})
		}
		t.Candidates = append(t.Candidates, rc)
	}
	t.Rounds = res.Rounds
	record(t, res.Candidates, res.Selection)
	if s := res.Stopped; s != nil {
		t.Partial = fmt.Sprintf("stopped in round %d (%s): %d of its %d candidates finished", s.Round, roundName(s.Round), s.Finished, s.Of)
	}
	return err
}

// roundName says what a round is: "the coarse grid" or "refinement 2".
func roundName(round int) string {
	if round == 0 {
		return "the coarse grid"
	}
	return fmt.Sprintf("refinement %d", round)
}

// Select judges t's candidates as its search does (analysis/tuning's Select), for a tuning
// whose candidates were measured elsewhere (Tuning.AddCandidate): each one's verdict, the
// recommendation, the runners-up, what each constraint excluded, the Pareto front and the notes.
func Select(t *tune.Tuning) {
	cands := make([]tuning.Candidate, len(t.Candidates))
	for i := range t.Candidates {
		c := &t.Candidates[i]
		cands[i] = tuning.Candidate{Values: c.Values, Round: c.Round}
		for _, m := range t.Measures {
			st := c.Metric(m.Name())
			cands[i].Stats = append(cands[i].Stats, tuning.Stat{Mean: st.Mean, CI95: st.CI95, N: st.N})
		}
	}
	record(t, cands, tuning.Select(options(t), cands))
}

// record writes the judgement sel of cands (t's candidates, in order) into t.
func record(t *tune.Tuning, cands []tuning.Candidate, sel tuning.Selection) {
	for i := range t.Candidates {
		c, jc := &t.Candidates[i], &cands[i]
		c.Failed = nil
		if jc.NoObjective {
			c.Failed = append(c.Failed, t.Objective.Measure().String()+": no value")
		}
		for _, k := range jc.Broken {
			c.Failed = append(c.Failed, t.Constraints[k].String())
		}
		c.Feasible = jc.Feasible
	}
	t.Recommendation, t.RunnersUp = nil, nil
	if sel.Best >= 0 {
		r := pick(t, sel.Best)
		t.Recommendation = &r
		for _, i := range sel.RunnersUp {
			t.RunnersUp = append(t.RunnersUp, pick(t, i))
		}
	}
	t.Exclusions = nil
	for i, k := range t.Constraints {
		ex := sel.Exclusions[i]
		te := tune.Exclusion{Constraint: k.String(), Excluded: ex.Excluded, Best: ex.Best}
		if ex.BestAt >= 0 {
			te.BestAt = slices.Clone(t.Candidates[ex.BestAt].Params)
		}
		t.Exclusions = append(t.Exclusions, te)
	}
	t.Pareto = sel.Pareto
	t.Notes = nil
	for _, e := range sel.Ends {
		end := "lower"
		if e.Upper {
			end = "upper"
		}
		c := &t.Candidates[sel.Best]
		t.Notes = append(t.Notes, fmt.Sprintf("the recommendation is at the %s end of %s's range (%s): a better setting may lie beyond it; widen the range to look",
			end, t.Params[e.Param].Path, c.Params[e.Param].Value))
	}
}

// pick returns candidate i of t as a Pick.
func pick(t *tune.Tuning, i int) tune.Pick {
	c := &t.Candidates[i]
	return tune.Pick{Candidate: i, Params: slices.Clone(c.Params), Objective: c.Metric(t.Objective.Measure().Name()),
		Metrics: slices.Clone(c.Metrics)}
}

// options are the search's options for t: its parameters, measures, objective, constraints and
// Pareto axes, by their index in t.Measures.
func options(t *tune.Tuning) *tuning.Options {
	index := func(name string) int {
		return slices.IndexFunc(t.Measures, func(m results.TuneMeasure) bool { return m.Name() == name })
	}
	o := &tuning.Options{Params: params(t), Measures: len(t.Measures), Objective: index(t.Objective.Measure().Name()),
		Maximize: t.Objective.Maximize(), ParetoX: index(t.ParetoX), ParetoY: index(t.ParetoY),
		ParetoXMaximize: t.ParetoXMaximize(), Replications: t.Replications, Refine: t.Refine,
		Confidence: results.ConfidenceLevel, Key: func(vs []float64) string { return label(t, vs) }}
	for _, k := range t.Constraints {
		o.Constraints = append(o.Constraints, tuning.Constraint{Measure: index(k.Measure().Name()), Upper: k.Upper(), Holds: k.Holds})
	}
	return o
}

// params are t's parameters as the search takes them.
func params(t *tune.Tuning) []tuning.Param {
	ps := make([]tuning.Param, len(t.Params))
	for i, p := range t.Params {
		ps[i] = tuning.Param{Lo: p.Lo, Hi: p.Hi, Levels: p.Levels, Log: p.Log, Integer: p.Integer}
	}
	return ps
}

// candidate returns t's candidate with values vs (in the parameters' units) of round round.
func candidate(t *tune.Tuning, vs []float64, round int) tune.Candidate {
	c := tune.Candidate{Values: slices.Clone(vs), Round: round}
	for i := range t.Params {
		c.Params = append(c.Params, results.Param{Path: t.Params[i].Path, Value: t.Params[i].Text(vs[i])})
	}
	return c
}

// label names the setting vs as the scenario takes it: "PATH=VALUE, …".
func label(t *tune.Tuning, vs []float64) string {
	c := candidate(t, vs, 0)
	return c.Label()
}

// Grid returns the coarse grid's candidates, every combination of the parameters' grid values,
// the first parameter varying slowest.
func Grid(t *tune.Tuning) []tune.Candidate {
	var out []tune.Candidate
	for _, vs := range tuning.Grid(params(t)) {
		out = append(out, candidate(t, vs, 0))
	}
	return out
}

// GridSize is how many candidates t's coarse grid has at most, computed without building it.
func GridSize(t *tune.Tuning) float64 { return tuning.GridSize(params(t)) }

// RefineSize is how many new candidates one refinement round of t runs at most.
func RefineSize(t *tune.Tuning) float64 { return tuning.RefineSize(params(t)) }
