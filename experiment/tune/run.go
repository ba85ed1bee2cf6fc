package tune

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/overloadsim/overloadsim/bench"
	"github.com/overloadsim/overloadsim/experiment"
	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/tune"
	"github.com/overloadsim/overloadsim/scenarios"
)

// Runner runs a tuning's candidates through the scenario runner.
type Runner struct {
	Scenario *scenarios.Scenario // the scenario tuned; each candidate sets the tuned fields
	Seed     uint64              // the base seed: replication r of every candidate runs with its r-th run seed
	Workers  int
	Options  bench.RunOptions
	// Hooks: Log is where each refinement round is announced, Bar the progress of each round,
	// Running the runs in progress.
	Hooks experiment.Hooks
	// Interrupted is the error of a round some of whose runs did not finish without an error.
	Interrupted error
}

// Eval returns the Eval of tuning t: it runs every candidate's replications on r.Workers,
// replication k of each with the run seed of replication k of r.Seed (common random numbers),
// and measures t's measures on each run. Results are kept by index, so they do not depend on
// the workers; once ctx is cancelled no new run starts, and the round ends interrupted.
func (r *Runner) Eval(ctx context.Context, t *tune.Tuning) Eval {
	exps := Expectations(t)
	reps := t.Replications
	return func(round Round) ([][][]float64, []bool, error) {
		cands := round.Candidates
		scs := make([]*scenarios.Scenario, len(cands))
		for i, c := range cands {
			s, err := Scenario(r.Scenario, c)
			if err != nil {
				return nil, nil, fmt.Errorf("the candidate %s: %v", c.Label(), ProblemText(err))
			}
			scs[i] = s
		}
		label := "tune: coarse grid"
		if round.N > 0 {
			label = fmt.Sprintf("tune: refinement %d", round.N)
			s := "s"
			if len(cands) == 1 {
				s = ""
			}
			r.Hooks.Logf("refinement %d: %d new candidate%s around %s\n", round.N, len(cands), s, round.Around)
		}
		runs, done, err := experiment.RunIndexed(ctx, len(cands)*reps, r.Workers, func(u int) ([]float64, error) {
			defer r.Hooks.Start()()
			run, err := bench.RunWith(scs[u/reps], r.Seed, u%reps, r.Options)
			if err != nil {
				return nil, fmt.Errorf("%s, replication %d: %w", cands[u/reps].Label(), u%reps, err)
			}
			ms := results.Measure(exps, &run.Summary, run.Series)
			vs := make([]float64, len(ms))
			for i, m := range ms {
				vs[i] = m.Value // NaN when the run has no value (or cannot measure it)
			}
			return vs, nil
		}, r.Hooks.Progress(label))
		values := make([][][]float64, len(cands))
		complete := make([]bool, len(cands))
		all := true
		for c := range cands {
			complete[c] = true
			values[c] = make([][]float64, len(exps))
			for k := 0; k < reps; k++ {
				u := c*reps + k
				if !done[u] {
					complete[c] = false
					continue
				}
				for m := range exps {
					values[c][m] = append(values[c][m], runs[u][m])
				}
			}
			all = all && complete[c]
		}
		if err == nil && !all {
			err = r.Interrupted
		}
		return values, complete, err
	}
}

// The merged shards of a tuning are its coarse grid, searched.
func init() { experiment.RegisterFinish(results.KindTune, merge) }

// merge is the tuning (a *tune.Tuning) that the merged shards of one make: its coarse grid,
// the one round a sharded tuning runs, searched for what the tuning asks.
func merge(info experiment.ShardInfo, runs []results.Summary) (any, error) {
	ts := info.Tune
	t := tune.New(info.Header, ts.Params, ts.Objective, ts.Constraints, info.Replications, 0)
	if err := Search(t, merged(info, runs)); err != nil {
		return nil, err
	}
	return t, nil
}

// merged is the Eval of a merged tuning: the coarse grid's measures, read from the units'
// summaries (runs, in unit order), for the one round a sharded tuning runs.
func merged(info experiment.ShardInfo, runs []results.Summary) Eval {
	return func(round Round) ([][][]float64, []bool, error) {
		cands := round.Candidates
		reps := info.Replications
		if round.N > 0 || len(cands) != len(info.Points) {
			return nil, nil, fmt.Errorf("the shards ran %d candidates, the tuning asks for %d in round %d", len(info.Points), len(cands), round.N)
		}
		values := make([][][]float64, len(cands))
		done := make([]bool, len(cands))
		for c, cand := range cands {
			if results.ParamsText(cand.Params) != results.ParamsText(info.Points[c]) {
				return nil, nil, fmt.Errorf("candidate %d: the shards ran %s, the tuning's grid has %s", c, results.ParamsText(info.Points[c]), cand.Label())
			}
			done[c] = true
			for k := 0; k < reps; k++ {
				ms := runs[c*reps+k].Expected
				if values[c] == nil {
					values[c] = make([][]float64, len(ms))
				}
				for m := range ms {
					values[c][m] = append(values[c][m], ms[m].Value)
				}
			}
		}
		return values, done, nil
	}
}

// Expectations are the measures of t as expectations without bounds, for results.Measure.
func Expectations(t *tune.Tuning) []results.Expectation {
	exps := make([]results.Expectation, len(t.Measures))
	for i, m := range t.Measures {
		exps[i] = m.Expectation()
	}
	return exps
}

// Scenario returns sc with the candidate's values set, leaving sc unchanged.
func Scenario(sc *scenarios.Scenario, c tune.Candidate) (*scenarios.Scenario, error) {
	at, err := sc.With(c.Params[0].Path, c.Params[0].Value)
	if err != nil || len(c.Params) == 1 {
		return at, err
	}
	sets := make([]string, len(c.Params))
	for i, p := range c.Params {
		sets[i] = p.Path + "=" + p.Value
	}
	return at, at.SetAll(sets...)
}

// Points are the candidates as a sharded command's points: each one's parameters and scenario.
// The error names the first candidate that is not a valid scenario.
func Points(sc *scenarios.Scenario, cands []tune.Candidate) ([]scenarios.SweepPoint, error) {
	points := make([]scenarios.SweepPoint, len(cands))
	for i, c := range cands {
		s, err := Scenario(sc, c)
		if err != nil {
			return nil, &CandidateError{Candidate: c.Label(), Err: err}
		}
		points[i] = scenarios.SweepPoint{Params: c.Params, Scenario: s}
	}
	return points, nil
}

// CandidateError is a candidate that is not a valid scenario.
type CandidateError struct {
	Candidate string // its label
	Err       error  // the scenario's error
}

func (e *CandidateError) Error() string {
	return fmt.Sprintf("the candidate %s: %s", e.Candidate, ProblemText(e.Err))
}

func (e *CandidateError) Unwrap() error { return e.Err }

// ProblemText is a scenario error without the override it names (the caller names what caused
// it): each problem's path, value and rule.
func ProblemText(err error) string {
	var ps scenarios.Problems
	if !errors.As(err, &ps) {
		return strings.TrimPrefix(err.Error(), "scenarios: ")
	}
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = fmt.Sprintf("%s: %s: %s", p.Path, p.Value, p.Rule)
	}
	return strings.Join(parts, "; ")
}
