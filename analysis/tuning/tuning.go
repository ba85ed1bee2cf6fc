// Package tuning searches a box of parameters for the setting that optimises one measure subject
// to bounds on others: "how large a retry budget, how many overload retries?" It knows neither
// the model nor results: the caller's [Eval] runs the candidates and reports what each
// replication measured, and the caller names the settings ([Options].Key) and says whether a
// mean meets a bound ([Constraint].Holds).
//
// # Method
//
// [Search] runs a coarse grid over every parameter ([Param].Levels values from Lo to Hi, both
// included, evenly or geometrically), each candidate Replications times. The caller runs
// replication r of every candidate with the same seed (common random numbers), so that the
// candidates differ by their parameters and not by their luck. Per candidate it keeps the mean
// of every measure and the half-width of its Student-t confidence interval at Confidence (NaN
// values left out). A candidate is feasible when its objective has a value and every constraint
// holds for its mean. Then Refine rounds each put a finer grid between the best feasible
// candidate's neighbours along each parameter (the nearest values evaluated on either side), and
// run the candidates not run before. The recommendation is the feasible candidate with the best
// objective mean, ties going to the smaller parameter values in order; the runners-up are the
// other feasible candidates whose objective interval overlaps the recommendation's: the evidence
// does not tell them apart ([Select]).
//
// The package has no randomness and reads no clock: the same evaluations give the same result.
package tuning

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/overloadsim/overloadsim/field"
)

// Param is one tuned parameter's range, in the unit its values are taken in.
type Param struct {
	Lo, Hi float64
	// Levels is how many values the coarse grid takes from Lo to Hi, both included (fewer for
	// an integer parameter, whose rounded values are taken once each).
	Levels int
	// Log spreads the values geometrically (Lo > 0), else evenly.
	Log bool
	// Integer rounds every value to a whole number.
	Integer bool
}

// Grid returns the coarse grid's values of the parameter, in increasing order.
func (p *Param) Grid() []float64 { return p.span(p.Lo, p.Hi, p.Levels) }

// span returns n values from lo to hi, both included, spread as the parameter's are, rounded
// (Round) and each taken once.
func (p *Param) span(lo, hi float64, n int) []float64 {
	var out []float64
	for i := 0; i < n; i++ {
		f := float64(i) / float64(n-1)
		x := lo + float64(f*(hi-lo))
		if p.Log {
			x = lo * math.Pow(hi/lo, f)
		}
		switch i {
		case 0:
			x = lo
		case n - 1:
			x = hi
		}
		if x = p.Round(x); !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// Round returns x as a candidate takes it: a whole number for an integer parameter, else four
// significant digits (so that a value reads as it is written, and a refinement does not split
// hairs).
func (p *Param) Round(x float64) float64 {
	if p.Integer {
		return math.Round(x)
	}
	r, err := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 4, 64), 64)
	if err != nil {
		return x
	}
	return r
}

// refineLevels is how many values a refinement round spans each gap with, from the best
// candidate to a neighbour: half the coarse grid's levels, at least 3 (a new value in the
// middle).
func (p *Param) refineLevels() int { return max(3, (p.Levels+1)/2) }

// Constraint is a bound a feasible candidate's mean of one measure must meet.
type Constraint struct {
	Measure int // the measure's index
	// Upper says the constraint bounds the measure from above (≤, <): the least mean is the
	// closest to meeting it.
	Upper bool
	// Holds reports whether a mean meets the constraint; it must be false for NaN (no value).
	Holds func(mean float64) bool
}

// Options say what to search and how.
type Options struct {
	Params []Param
	// Measures is how many measures every replication reports; Objective, each constraint's
	// Measure, ParetoX and ParetoY index them.
	Measures  int
	Objective int
	Maximize  bool // the objective is maximised, else minimised
	// Constraints bound the feasible candidates' means.
	Constraints []Constraint
	// ParetoX and ParetoY are the measures of the Pareto front (Selection.Pareto): a larger
	// ParetoX is better when ParetoXMaximize, else a smaller; a smaller ParetoY is better.
	ParetoX, ParetoY int
	ParetoXMaximize  bool
	Replications     int // replications per candidate
	Refine           int // refinement rounds after the coarse grid
	// Confidence is the level of each measure's confidence interval (0.95).
	Confidence float64
	// Key names a setting as the caller takes it: settings with the same key are one candidate,
	// run once (a refinement skips a setting any candidate had).
	Key func(values []float64) string
}

// Validate reports every problem with o at once, each a *field.Error naming the option, joined
// with errors.Join; nil when Search can work with o.
func (o *Options) Validate() error {
	var errs []error
	bad := func(name string, v any, rule string) { errs = append(errs, field.New(name, v, rule)) }
	if len(o.Params) == 0 {
		bad("Params", "none", "tune at least one parameter")
	}
	for i, p := range o.Params {
		name := fmt.Sprintf("Params[%d]", i)
		switch {
		case !finite(p.Lo) || !finite(p.Hi) || !(p.Lo < p.Hi):
			bad(name, fmt.Sprintf("Lo %v, Hi %v", p.Lo, p.Hi), "want finite Lo < Hi")
		case p.Log && p.Lo <= 0:
			bad(name+".Lo", p.Lo, "log spacing needs Lo > 0")
		}
		if p.Levels < 2 {
			bad(name+".Levels", p.Levels, "must be ≥ 2")
		}
	}
	inRange := func(name string, m int) {
		if m < 0 || m >= o.Measures {
			bad(name, m, fmt.Sprintf("must index one of the %d measures", o.Measures))
		}
	}
	if o.Measures < 1 {
		bad("Measures", o.Measures, "must be ≥ 1")
	}
	inRange("Objective", o.Objective)
	for i, c := range o.Constraints {
		inRange(fmt.Sprintf("Constraints[%d].Measure", i), c.Measure)
		if c.Holds == nil {
			bad(fmt.Sprintf("Constraints[%d].Holds", i), "nil", "must say whether a mean meets the constraint")
		}
	}
	inRange("ParetoX", o.ParetoX)
	inRange("ParetoY", o.ParetoY)
	if o.Replications < 1 {
		bad("Replications", o.Replications, "must be ≥ 1")
	}
	if o.Refine < 0 {
		bad("Refine", o.Refine, "must be ≥ 0")
	}
	if !(o.Confidence > 0 && o.Confidence < 1) {
		bad("Confidence", o.Confidence, "must be in (0, 1)")
	}
	if o.Key == nil {
		bad("Key", "nil", "must name a setting")
	}
	return errors.Join(errs...)
}

// Stat is a candidate's statistics of one measure over its replications.
type Stat struct {
	Mean float64 // NaN when no replication has a value
	CI95 float64 // the confidence half-width at Options.Confidence; NaN with fewer than two values
	N    int     // the replications with a value
}

// Candidate is one setting and what its replications measured.
type Candidate struct {
	Values []float64 // one per parameter, in order
	Round  int       // 0 for the coarse grid, k for the k-th refinement
	Stats  []Stat    // one per measure
	// Select's verdict: Feasible, or why not: NoObjective (the objective has no value) and the
	// indices of the constraints whose mean breaks them, in order.
	Feasible    bool
	NoObjective bool
	Broken      []int
}

// Exclusion is what one constraint did to the candidates.
type Exclusion struct {
	// Excluded counts the candidates whose mean breaks the constraint (others may break it too).
	Excluded int
	// Best is the mean closest to meeting the constraint, or deepest inside it, over every
	// candidate (the least for an upper bound, the greatest for a lower one); NaN when no
	// candidate has a value, and BestAt, that candidate's index, is then -1.
	Best   float64
	BestAt int
}

// End says that the recommendation sits at an end of one parameter's range: a better setting
// may lie beyond it.
type End struct {
	Param int
	Upper bool // the upper end, else the lower
}

// Selection is Select's judgement of the candidates.
type Selection struct {
	// Best is the recommendation's index: the feasible candidate with the best objective mean;
	// -1 when no candidate is feasible.
	Best int
	// RunnersUp are the other feasible candidates whose objective confidence interval overlaps
	// the recommendation's, best first.
	RunnersUp  []int
	Exclusions []Exclusion // one per constraint
	// Pareto lists the feasible candidates that none beats on both ParetoX and ParetoY, in
	// increasing ParetoX (ties by ParetoY, then index).
	Pareto []int
	Ends   []End // the parameters at an end of whose range the recommendation sits
}

// Select judges the candidates, setting each one's verdict: feasible when its objective has a
// value and every constraint holds for its mean; then the recommendation (the feasible
// candidate with the best objective mean, ties to the smaller parameter values in order), the
// runners-up, what each constraint excluded, the Pareto front and the ends. o must be valid
// (Validate).
func Select(o *Options, cands []Candidate) Selection {
	mean := func(c *Candidate, m int) float64 {
		if m < len(c.Stats) {
			return c.Stats[m].Mean
		}
		return math.NaN()
	}
	for i := range cands {
		c := &cands[i]
		c.NoObjective, c.Broken = math.IsNaN(mean(c, o.Objective)), nil
		for k, con := range o.Constraints {
			if !con.Holds(mean(c, con.Measure)) {
				c.Broken = append(c.Broken, k)
			}
		}
		c.Feasible = !c.NoObjective && len(c.Broken) == 0
	}
	better := func(a, b float64) bool {
		if o.Maximize {
			return a > b
		}
		return a < b
	}
	before := func(a, b *Candidate) bool {
		oa, ob := mean(a, o.Objective), mean(b, o.Objective)
		switch {
		case better(oa, ob):
			return true
		case better(ob, oa):
			return false
		}
		return slices.Compare(a.Values, b.Values) < 0
	}
	sel := Selection{Best: -1}
	for i := range cands {
		if cands[i].Feasible && (sel.Best < 0 || before(&cands[i], &cands[sel.Best])) {
			sel.Best = i
		}
	}
	if sel.Best >= 0 {
		bo := stat(&cands[sel.Best], o.Objective)
		for i := range cands {
			if i == sel.Best || !cands[i].Feasible {
				continue
			}
			st := stat(&cands[i], o.Objective)
			if math.Abs(st.Mean-bo.Mean) <= halfWidth(st)+halfWidth(bo) {
				sel.RunnersUp = append(sel.RunnersUp, i)
			}
		}
		slices.SortStableFunc(sel.RunnersUp, func(a, b int) int {
			ca, cb := &cands[a], &cands[b]
			if before(ca, cb) {
				return -1
			}
			if before(cb, ca) {
				return 1
			}
			return 0
		})
	}
	for _, con := range o.Constraints {
		ex := Exclusion{Best: math.NaN(), BestAt: -1}
		for i := range cands {
			x := mean(&cands[i], con.Measure)
			if !con.Holds(x) {
				ex.Excluded++
			}
			if math.IsNaN(x) {
				continue
			}
			if math.IsNaN(ex.Best) || con.Upper && x < ex.Best || !con.Upper && x > ex.Best {
				ex.Best, ex.BestAt = x, i
			}
		}
		sel.Exclusions = append(sel.Exclusions, ex)
	}
	sel.Pareto = paretoFront(o, cands)
	if sel.Best >= 0 {
		c := &cands[sel.Best]
		for d := range o.Params {
			p := &o.Params[d]
			switch c.Values[d] {
			case p.Round(p.Lo):
				sel.Ends = append(sel.Ends, End{Param: d})
			case p.Round(p.Hi):
				sel.Ends = append(sel.Ends, End{Param: d, Upper: true})
			}
		}
	}
	return sel
}

// stat returns candidate c's statistics of measure m; no value when it has none.
func stat(c *Candidate, m int) Stat {
	if m < len(c.Stats) {
		return c.Stats[m]
	}
	return Stat{Mean: math.NaN(), CI95: math.NaN()}
}

// halfWidth is a confidence half-width, 0 when there is none (one replication).
func halfWidth(s Stat) float64 {
	if math.IsNaN(s.CI95) || math.IsInf(s.CI95, 0) {
		return 0
	}
	return s.CI95
}

// paretoFront returns the feasible candidates that no other feasible candidate dominates on
// (ParetoX, ParetoY), ParetoY to minimise, in increasing ParetoX (ties by ParetoY, then index).
func paretoFront(o *Options, cands []Candidate) []int {
	type pt struct {
		i    int
		x, y float64
	}
	sign := -1.0 // a larger x is better when maximising: compare -x
	if !o.ParetoXMaximize {
		sign = 1
	}
	var pts []pt
	for i := range cands {
		c := &cands[i]
		x, y := stat(c, o.ParetoX).Mean, stat(c, o.ParetoY).Mean
		if c.Feasible && finite(x) && finite(y) {
			pts = append(pts, pt{i, x, y})
		}
	}
	var front []int
	for _, a := range pts {
		dominated := false
		for _, b := range pts {
			if sign*b.x <= sign*a.x && b.y <= a.y && (sign*b.x < sign*a.x || b.y < a.y) {
				dominated = true
				break
			}
		}
		if !dominated {
			front = append(front, a.i)
		}
	}
	slices.SortStableFunc(front, func(a, b int) int {
		ca, cb := &cands[a], &cands[b]
		return cmp.Or(cmp.Compare(stat(ca, o.ParetoX).Mean, stat(cb, o.ParetoX).Mean),
			cmp.Compare(stat(ca, o.ParetoY).Mean, stat(cb, o.ParetoY).Mean), cmp.Compare(a, b))
	})
	return front
}

// finite reports whether x is a finite number.
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
