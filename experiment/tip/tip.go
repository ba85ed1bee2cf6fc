// Package tip is the engine of a tipping-point search: a noisy bisection (analysis/tipping) of
// one parameter's range for the value at which P(stuck) after a trigger crosses 1/2, each probe
// a batch of replications run through bench, and the search as results/tip records it.
package tip

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/overloadsim/overloadsim/analysis/tipping"
	"github.com/overloadsim/overloadsim/bench"
	"github.com/overloadsim/overloadsim/experiment"
	"github.com/overloadsim/overloadsim/field"
	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/chart"
	"github.com/overloadsim/overloadsim/results/tip"
	"github.com/overloadsim/overloadsim/scenarios"
)

// Range is the searched parameter: its path, its kind of value, and the interval searched.
// Lo, Hi and Precision are in the kind's base unit: seconds, operations/s, or the number.
type Range struct {
	Path              string
	Kind              results.ValueKind
	Lo, Hi, Precision float64
	Integer           bool // the field takes whole numbers: every probe is one
}

// NewRange is the range [lo, hi] of path searched to precision, all of kind: both ends must be
// valid values of sc's field. A plain-number field that refuses a fraction between two whole
// ends takes integers, and is searched on them (the precision then at least 1).
func NewRange(sc *scenarios.Scenario, path string, kind results.ValueKind, lo, hi, precision float64) (Range, error) {
	r := Range{Path: path, Kind: kind, Lo: lo, Hi: hi, Precision: precision}
	for _, x := range []float64{lo, hi} {
		if _, err := sc.With(path, r.Text(x)); err != nil {
			return Range{}, err
		}
	}
	if kind == results.ValueNumber && experiment.WholeNumbers(sc, path, lo, hi, r.Text) {
		r.Integer = true
		r.Precision = math.Max(1, math.Round(precision))
	}
	return r, nil
}

// Text writes x as a value of the range's kind, as a scenario field takes it.
func (r *Range) Text(x float64) string {
	switch r.Kind {
	case results.ValueDuration:
		return time.Duration(math.Round(x * 1e9)).String()
	case results.ValueRate:
		return strconv.FormatFloat(x, 'g', 6, 64) + "/s"
	}
	if r.Integer {
		return strconv.FormatFloat(math.Round(x), 'f', 0, 64)
	}
	return strconv.FormatFloat(x, 'g', 6, 64)
}

// MaxProbes is how many probes a bisection of r can take at most: the two ends, then one per
// halving until the bracket is at most Precision wide.
func (r *Range) MaxProbes() int {
	return 2 + int(math.Ceil(math.Log2(math.Max(1, (r.Hi-r.Lo)/r.Precision))))
}

// Options is one tipping-point search.
type Options struct {
	Scenario   *scenarios.Scenario
	Header     results.Header // the result's header: the scenario, Seed, the simulator's version
	Range      Range
	Trigger    string // the trigger whose outcome decides (experiment.Trigger)
	Sticks     string // where runs stick: "above" or "below" the boundary
	Batch      int    // replications per round at one probe
	MaxReps    int    // replications at most per probe
	Confidence float64
	Seed       uint64 // replication k of every probe runs with the k-th run seed of Seed
	Workers    int
	Run        bench.RunOptions
	Hooks      experiment.Hooks
}

// Run searches o's range. A bad configuration is the *field.Error problems of
// tipping.Config, and ends on one side of the boundary a *tipping.EndsError, each with no
// result. Any other error (the search interrupted, a run failed) comes with the search so
// far, marked partial.
func Run(ctx context.Context, o Options) (tip.Result, error) {
	a := &o.Range
	cfg := tipping.Config{Lo: a.Lo, Hi: a.Hi, Increasing: o.Sticks == "above", Precision: a.Precision,
		Batch: o.Batch, MaxReps: o.MaxReps, Workers: o.Workers, Integer: a.Integer, Confidence: o.Confidence}
	o.Hooks.Logf("searching %s in [%s, %s] to %s: probes of %d replications at a time, at most %d\n",
		a.Path, a.Text(a.Lo), a.Text(a.Hi), a.Text(a.Precision), o.Batch, o.MaxReps)
	res, err := tipping.Search(ctx, cfg, func(x float64, rep int) (tipping.Outcome, error) {
		at, err := o.Scenario.With(a.Path, a.Text(x))
		if err != nil {
			return tipping.Undecided, err
		}
		r, err := bench.RunWith(at, o.Seed, rep, o.Run)
		if err != nil {
			return tipping.Undecided, err
		}
		rec, ok := experiment.Recovery(&r.Summary, o.Trigger)
		if !ok {
			return tipping.Undecided, fmt.Errorf("%s=%s: no trigger %q in the run", a.Path, a.Text(x), o.Trigger)
		}
		switch {
		case rec.Outcome == results.Recovered:
			return tipping.Recovered, nil
		case rec.Outcome.Stuck(): // a relapse is stuck too (docs/metrics.md §13.9)
			return tipping.Stuck, nil
		}
		return tipping.Undecided, nil
	})
	var cfgErr *field.Error
	var ends *tipping.EndsError
	if errors.As(err, &ends) && ends.Lo.Verdict == ends.Hi.Verdict && ends.Lo.Verdict != tipping.Tie {
		t := a.noFlip(o.Header, o.Trigger, o.Sticks, ends)
		t.Name = ParamName(o.Scenario, a.Path)
		return t, nil
	}
	if errors.As(err, &cfgErr) || errors.As(err, &ends) {
		return tip.Result{}, err
	}
	t := a.result(o.Header, o.Trigger, o.Sticks, res, err != nil)
	t.Name = ParamName(o.Scenario, a.Path)
	return t, err
}

// QuoteLevel is the level of the exact interval for P(stuck) recorded at every probe
// (tip.Probe.Lo95, Hi95): what the lead sentence, the figure and the report quote.
const QuoteLevel = 0.95

// ParamName is the name in words of the scenario field path, for the sentences of a search's
// result: the figures' short name of the parameter (chart.ParamLabel: "cut length" for the
// length of a CPU cut, "web rate" for the rate of the group web), the load factor as "load
// scale", or "" when it has none: the path then names it.
func ParamName(sc *scenarios.Scenario, path string) string {
	name := chart.ParamLabel(path, chart.ParamInfoOf(sc.String()), map[string]string{"load": "load scale"})
	if name == path {
		return ""
	}
	return name
}

// result turns a search into its record, in the range's units.
func (r *Range) result(hdr results.Header, trigger, sticks string, s tipping.Result, partial bool) tip.Result {
	unit := map[results.ValueKind]string{results.ValueDuration: "s", results.ValueRate: "/s"}[r.Kind]
	t := tip.Result{Header: hdr, Trigger: trigger, Param: r.Path, Unit: unit, Sticks: sticks,
		Boundary: s.Boundary, Lo: s.Lo, Hi: s.Hi, Confidence: s.Confidence, Converged: s.Converged,
		Replications: s.Replications, Warnings: s.Warnings, Partial: partial,
		FitX50: math.NaN(), FitLo: math.NaN(), FitHi: math.NaN()}
	if s.Fit != nil {
		t.FitX50, t.FitLo, t.FitHi = s.Fit.X50, s.Fit.Lo, s.Fit.Hi
	}
	for _, p := range s.Probes {
		lo95, hi95 := tipping.Interval(p.Stuck, p.Recovered, QuoteLevel)
		t.Probes = append(t.Probes, tip.Probe{Value: r.Text(p.X), X: p.X, Replications: p.Replications,
			Stuck: p.Stuck, Recovered: p.Recovered, Undecided: p.Undecided, Verdict: verdictName(p.Verdict),
			PLo: p.PLo, PHi: p.PHi, Lo95: lo95, Hi95: hi95})
	}
	return t
}

// NoFlipLevel is the level of the interval for P(stuck) that a search without a flip reports.
const NoFlipLevel = 0.95

// noFlip is the result of a search whose ends came out on one side: a result, not an error (a
// range that never sticks is an answer to quote). It says P(stuck) at the end nearest the other
// side: the stuck end of the range for a range that recovered throughout, the recovered end for
// one stuck throughout.
func (r *Range) noFlip(hdr results.Header, trigger, sticks string, e *tipping.EndsError) tip.Result {
	nan := math.NaN()
	s := tipping.Result{Boundary: nan, Lo: nan, Hi: nan, Confidence: NoFlipLevel,
		Probes: []tipping.ProbeResult{e.Lo, e.Hi}, Replications: e.Lo.Replications + e.Hi.Replications}
	t := r.result(hdr, trigger, sticks, s, false)
	first, last := e.Hi, e.Lo // where runs would stick first, and last: the high end with sticks above
	if sticks == "below" {
		first, last = e.Lo, e.Hi
	}
	side, end := "recovered", first
	if e.Lo.Verdict == tipping.StuckSide {
		side, end = "stuck", last
	}
	lo, hi := tipping.Interval(end.Stuck, end.Recovered, NoFlipLevel)
	t.NoFlip = &tip.NoFlip{Side: side, Value: r.Text(end.X), X: end.X, Stuck: end.Stuck, Runs: end.Stuck + end.Recovered,
		PLo: lo, PHi: hi, Level: NoFlipLevel}
	return t
}

func verdictName(v tipping.Verdict) string {
	switch v {
	case tipping.RecoveredSide:
		return "recovered"
	case tipping.StuckSide:
		return "stuck"
	case tipping.Tie:
		return "tie"
	}
	return "open"
}
