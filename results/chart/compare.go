package chart

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/compare"
)

// The verdicts' colours (compare.Judge): green better, red worse, grey not significant or
// untested, as the comparison's table colours them.
var (
	BetterColour   = Goodput
	WorseColour    = Failures
	UnjudgedColour = color.NRGBA{0x9a, 0x9a, 0x9a, 0xff}
)

// VerdictColour is the colour of a difference judged v: BetterColour, WorseColour, or
// UnjudgedColour for the rest (not significant, untested, a metric without a direction).
func VerdictColour(v compare.Verdict) color.NRGBA {
	switch v {
	case compare.Better:
		return BetterColour
	case compare.Worse:
		return WorseColour
	}
	return UnjudgedColour
}

// CompareMetrics are the group metrics a comparison figure draws, all client groups together,
// a panel each: goodput, failures, p99 latency of successes and retry amplification.
var CompareMetrics = []string{"goodput", "failures", "latency_ok_p99", "amplification"}

// compareWords name the metrics in the panels' titles.
var compareWords = map[string]string{
	"goodput":        "Goodput",
	"failures":       "Failures",
	"latency_ok_p99": "p99 latency of successes",
	"amplification":  "Retry amplification",
}

// betterWords says which way a metric is better, from the catalogue (results.MetricInfo.Better).
func betterWords(metric string) string {
	m, _ := results.LookupMetric(metric)
	switch m.Better {
	case results.BetterHigher:
		return "higher is better"
	case results.BetterLower:
		return "lower is better"
	}
	return ""
}

// CompareFigure builds the figure of the comparison c of the result folders inputs (all runs,
// or all sweeps), each named by its label in c (compare.ResultLabel):
//   - runs: goodput of all client groups over time, one line per run, then each run's
//     difference from the reference, interval by interval, in goodput, failures, p99 latency
//     of successes (the worst group's) and amplification, with the windows of the triggers
//     (and the warm-up) shaded on every panel;
//   - sweeps over one numeric parameter: goodput against it, a line per sweep over its 95 %
//     band, then each sweep's difference from the reference in the four metrics with the
//     difference's 95 % interval (compare.Value.DeltaCI95), each point coloured by its verdict;
//   - sweeps of one point (no swept parameter): each result's value of the four metrics with
//     its 95 % interval as whiskers, the reference in black and the others coloured by verdict.
//
// Results of different kinds, and sweeps over categories, over two parameters or over
// different parameters, whose points need not line up, are not drawn together: no figure and
// no error.
func CompareFigure(c compare.Comparison, inputs []string) (*Figure, error) {
	var kinds []string
	for _, in := range inputs {
		m, err := results.ReadManifest(in)
		if err != nil {
			return nil, fmt.Errorf("plot: %w", err)
		}
		kinds = append(kinds, m.Kind)
	}
	if len(c.Results) != len(inputs) {
		return nil, fmt.Errorf("plot: the comparison holds %d results, %d folders given", len(c.Results), len(inputs))
	}
	switch {
	case allKind(kinds, results.KindRun):
		return compareRuns(c, inputs)
	case allKind(kinds, results.KindSweep):
		return compareSweeps(c, inputs)
	}
	return nil, nil
}

func allKind(kinds []string, kind string) bool {
	for _, k := range kinds {
		if k != kind {
			return false
		}
	}
	return len(kinds) > 0
}

// compareSubtitle names the reference and says how to read the difference panels.
func compareSubtitle(c compare.Comparison, extra string) string {
	return c.Results[0].Label + " · difference = result − reference · " + extra
}

// compareKeys are the legend of a comparison: each result's line, then the verdicts' colours.
func compareKeys(c compare.Comparison, glyph *Glyph, verdicts bool) []Key {
	var keys []Key
	for i, r := range c.Results {
		keys = append(keys, Key{Label: r.Label, Style: Style{Colour: resultColour(i), Width: Medium}, Glyph: glyph})
	}
	if verdicts {
		g := Glyph{Shape: Circle, Radius: 4}
		keys = append(keys,
			Key{Label: "better (p < 0.05)", Kind: KeyGlyph, Style: Style{Colour: BetterColour}, Glyph: &g},
			Key{Label: "worse (p < 0.05)", Kind: KeyGlyph, Style: Style{Colour: WorseColour}, Glyph: &g},
			Key{Label: "not significant or untested", Kind: KeyGlyph, Style: Style{Colour: UnjudgedColour}, Glyph: &g})
	}
	return keys
}

// resultColour is the colour of the i-th result's line: the reference black, the others the
// palette's.
func resultColour(i int) color.NRGBA {
	if i == 0 {
		return Total
	}
	return PaletteColour(i - 1)
}

// runMetric is a run's metric of all client groups, interval by interval: summed rates, the
// amplification of the sums, and for the p99 latency the worst group's (a percentile of a union
// is not a sum of percentiles; the worst group bounds what any operation saw at that rank).
func runMetric(r *Run, metric string) []float64 {
	switch metric {
	case "amplification":
		return RetryAmplification(r.TS)
	case "latency_ok_p99":
		out := make([]float64, len(r.Ends))
		for i := range out {
			out[i] = math.NaN()
		}
		for _, g := range r.Groups {
			for i, v := range r.group(g, metric) {
				if !math.IsNaN(v) && (math.IsNaN(out[i]) || v > out[i]) {
					out[i] = v
				}
			}
		}
		return out
	}
	return GroupsSum(r.TS, metric)
}

// RunDifference is other's values minus ref's, interval by interval, matched by the
// intervals' ends (other's intervals): NaN where either has no value or ref has no such
// interval.
func RunDifference(ref, other *Run, refValues, otherValues []float64) []float64 {
	at := map[float64]int{}
	for i, e := range ref.Ends {
		at[e] = i
	}
	out := make([]float64, len(otherValues))
	for i, v := range otherValues {
		out[i] = math.NaN()
		if j, ok := at[other.Ends[i]]; ok && finite(v) && finite(refValues[j]) {
			out[i] = v - refValues[j]
		}
	}
	return out
}

// diffAxis is the y axis of a difference panel of metric whose values (in the metric's unit)
// are values: its label ("Δ p99 latency (ms)") and the factor to the unit shown.
func diffAxis(metric string, values []float64) (string, float64) {
	var abs []float64
	for _, v := range values {
		abs = append(abs, math.Abs(v))
	}
	label, k := MetricAxis(metric, abs, false)
	return "Δ " + label, k
}

// diffTitle titles a difference panel: "Δ goodput (higher is better)".
func diffTitle(metric string) string {
	t := "Δ " + strings.ToLower(compareWords[metric][:1]) + compareWords[metric][1:]
	if b := betterWords(metric); b != "" {
		t += " (" + b + ")"
	}
	return t
}

// compareRuns is CompareFigure for runs.
func compareRuns(c compare.Comparison, inputs []string) (*Figure, error) {
	var runs []*Run
	end := 0.0
	for _, in := range inputs {
		r, err := ReadRun(in)
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
		end = math.Max(end, r.End)
	}
	ref := runs[0]
	// The windows of every run, each once: the reference's, and another's where it differs.
	var windows []Window
	for _, r := range runs {
		for _, w := range r.Windows {
			dup := false
			for _, o := range windows {
				dup = dup || o.Start == w.Start && o.End == w.End
			}
			if !dup {
				windows = append(windows, w)
			}
		}
	}
	timePanel := func(title, y string, labels bool) Panel {
		return Panel{Title: title, X: Axis{Label: "time (s)", Cover: []float64{0, end}}, Y: Axis{Label: y},
			Windows: windows, WindowLabels: labels && len(windows) > 0}
	}
	f := &Figure{Name: Compare, Title: "What changed: goodput over time, and each run's difference from the reference",
		Subtitle: compareSubtitle(c, fmt.Sprintf("single runs: differences are untested · %v intervals, rates as steps", ref.Header.Interval))}
	goodLabel, _ := MetricAxis("goodput", nil, false)
	over := timePanel("Goodput, all client groups", goodLabel, true)
	over.Y.Cover = fromZero
	for i, r := range runs {
		sty := Style{Colour: resultColour(i), Width: GroupWidth(i, len(runs)), Dash: Solid}
		over.Series = append(over.Series, r.Steps(c.Results[i].Label, runMetric(r, "goodput"), sty))
	}
	over.Keys = append(compareKeys(c, nil, false), ref.windowKeys()...)
	for _, w := range windows {
		if w.Fill == FaultFill && !slicesContainsKey(over.Keys, "fault window") {
			over.Keys = append(over.Keys, Key{Label: "fault window", Kind: KeyFill, Style: Style{Colour: FaultFill}})
		}
	}
	f.Panels = append(f.Panels, over)
	for _, metric := range CompareMetrics {
		refValues := runMetric(ref, metric)
		diffs := make([][]float64, len(runs))
		var all []float64
		for i := 1; i < len(runs); i++ {
			diffs[i] = RunDifference(ref, runs[i], refValues, runMetric(runs[i], metric))
			all = append(all, diffs[i]...)
		}
		label, k := diffAxis(metric, all)
		pn := timePanel(diffTitle(metric), label, false)
		pn.Refs = []Ref{{Y: 0, Style: Style{Colour: Reference, Width: Thin, Dash: Dotted}}}
		for i := 1; i < len(runs); i++ {
			sty := Style{Colour: resultColour(i), Width: GroupWidth(i-1, len(runs)-1), Dash: Solid}
			pn.Series = append(pn.Series, runs[i].Steps(c.Results[i].Label, scaled(diffs[i], k), sty))
		}
		f.Panels = append(f.Panels, pn)
	}
	f.Rows = []int{1, 2, 2}
	f.Weights = []float64{0.9, 1, 1}
	return f, nil
}

func slicesContainsKey(keys []Key, label string) bool {
	for _, k := range keys {
		if k.Label == label {
			return true
		}
	}
	return false
}

// compareSweeps is CompareFigure for sweeps.
func compareSweeps(c compare.Comparison, inputs []string) (*Figure, error) {
	var sweeps []*Sweep
	for _, in := range inputs {
		s, err := ReadSweep(in, SweepOptions{})
		if err != nil {
			return nil, err
		}
		if s.X.Categorical() && s.X.Path != "" || s.By != "" || len(sweeps) > 0 && s.X.Path != sweeps[0].X.Path {
			return nil, nil // categories, lines of a second parameter, or other parameters need not line up
		}
		sweeps = append(sweeps, s)
	}
	if sweeps[0].X.Path == "" {
		return compareOnePoint(c), nil
	}
	s0 := sweeps[0]
	f := &Figure{Name: Compare, Title: "What changed: goodput against " + s0.Versus() + ", and each sweep's difference from the reference",
		Subtitle: compareSubtitle(c, "bands and bars: 95 % confidence intervals (Welch's for a difference)")}
	var xs []float64
	for _, v := range s0.X.Values {
		xs = append(xs, s0.X.Pos[v])
	}
	xAxis := Axis{Label: s0.X.Label, Cover: xs}
	// The difference panels are a third of the width: a load axis is titled there without
	// what was swept, which the overlay's title says.
	diffX := xAxis
	if s0.X.IsLoad() {
		diffX.Label = "total offered load (operations/s)"
	}
	goodLabel, _ := MetricAxis("goodput", nil, false)
	over := Panel{Title: "Goodput, all client groups", X: xAxis, Y: Axis{Label: goodLabel, Cover: fromZero}}
	g := Glyph{Shape: Circle, Radius: 3}
	for i, s := range sweeps {
		all := s.Lines[0]
		mean, lo, hi := all.Metric("goodput")
		col := resultColour(i)
		over.Layers = append(over.Layers, Interval{Style: Style{Colour: col, Width: Medium}, Fill: WithAlpha(col, 0x26), Glyph: g, X: all.X, Y: mean, Lo: lo, Hi: hi})
	}
	over.Keys = compareKeys(c, &g, true)
	f.Panels = append(f.Panels, over)
	for _, metric := range CompareMetrics {
		diffs := sweepDifferences(c, "total."+metric, s0)
		var all []float64
		for _, d := range diffs {
			all = append(all, d.lo...)
			all = append(all, d.hi...)
		}
		label, k := diffAxis(metric, all)
		pn := Panel{Title: diffTitle(metric), X: diffX, Y: Axis{Label: label}}
		pn.Layers = append(pn.Layers, Ref{Y: 0, Style: Style{Colour: Reference, Width: Thin, Dash: Dotted}})
		for i := 1; i < len(c.Results); i++ {
			d := diffs[i]
			col := resultColour(i)
			pn.Layers = append(pn.Layers, Interval{Style: Style{Colour: col, Width: Medium}, Fill: WithAlpha(col, 0x26), Glyph: Glyph{Shape: Circle, Radius: 1},
				X: d.x, Y: scaled(d.delta, k), Lo: scaled(d.lo, k), Hi: scaled(d.hi, k)})
			for _, v := range []compare.Verdict{compare.NotSignificant, compare.Better, compare.Worse} {
				m := Markers{Colour: VerdictColour(v), Glyph: Glyph{Shape: Circle, Radius: 4}}
				for j := range d.x {
					if VerdictColour(d.verdict[j]) == VerdictColour(v) && finite(d.delta[j]) {
						m.X, m.Y = append(m.X, d.x[j]), append(m.Y, d.delta[j]*k)
					}
				}
				if len(m.X) > 0 {
					pn.Layers = append(pn.Layers, m)
				}
			}
		}
		f.Panels = append(f.Panels, pn)
	}
	f.Rows = []int{1, 2, 2}
	f.Weights = []float64{0.9, 1, 1}
	return f, nil
}

// sweepDifference is one result's difference from the reference at each point of a sweep:
// its x, the difference, its 95 % interval (the difference alone where it has none) and its
// verdict.
type sweepDifference struct {
	x, delta, lo, hi []float64
	verdict          []compare.Verdict
}

// sweepDifferences reads the differences of metric from the comparison, per result, at the
// points of the reference sweep s0 (their x, in x order as the comparison's rows list them).
func sweepDifferences(c compare.Comparison, metric string, s0 *Sweep) []sweepDifference {
	out := make([]sweepDifference, len(c.Results))
	for _, row := range c.Rows {
		if row.Metric != metric {
			continue
		}
		x, ok := s0.X.Pos[strings.TrimPrefix(row.Point, s0.X.Path+"=")]
		if !ok {
			continue
		}
		for i := 1; i < len(row.Values); i++ {
			v := row.Values[i]
			h := v.DeltaCI95
			if !finite(h) {
				h = 0
			}
			d := &out[i]
			d.x, d.delta = append(d.x, x), append(d.delta, v.Delta)
			d.lo, d.hi = append(d.lo, v.Delta-h), append(d.hi, v.Delta+h)
			d.verdict = append(d.verdict, v.Verdict)
		}
	}
	for i := range out {
		sortByX(&out[i])
	}
	return out
}

// sortByX orders a difference's points by x (insertion sort: a sweep has few points).
func sortByX(d *sweepDifference) {
	for i := 1; i < len(d.x); i++ {
		for j := i; j > 0 && d.x[j] < d.x[j-1]; j-- {
			d.x[j], d.x[j-1] = d.x[j-1], d.x[j]
			d.delta[j], d.delta[j-1] = d.delta[j-1], d.delta[j]
			d.lo[j], d.lo[j-1] = d.lo[j-1], d.lo[j]
			d.hi[j], d.hi[j-1] = d.hi[j-1], d.hi[j]
			d.verdict[j], d.verdict[j-1] = d.verdict[j-1], d.verdict[j]
		}
	}
}

// OnePointValue is one result's value of a metric in a comparison of single points, as the
// figure draws it: its mean, the ends of its 95 % interval (the mean alone without one) and its
// colour (black for the reference, else by verdict).
type OnePointValue struct {
	Mean, Lo, Hi float64
	Colour       color.NRGBA
	Delta        string // the difference from the reference as written beside the point ("" for the reference)
	Significant  bool
}

// OnePointValues are the values of metric (a "total." name) of every result at the comparison's
// one point, in the results' order.
func OnePointValues(c compare.Comparison, metric string) []OnePointValue {
	out := make([]OnePointValue, len(c.Results))
	for i := range out {
		out[i] = OnePointValue{Mean: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Colour: UnjudgedColour}
	}
	for _, row := range c.Rows {
		if row.Metric != metric || row.Point != c.Rows[0].Point {
			continue
		}
		for i, v := range row.Values {
			h := v.CI95
			if !finite(h) {
				h = 0
			}
			out[i] = OnePointValue{Mean: v.Mean, Lo: v.Mean - h, Hi: v.Mean + h, Colour: VerdictColour(v.Verdict), Significant: v.Significant}
			if i == 0 {
				out[i].Colour = Total
			} else if finite(v.Delta) {
				out[i].Delta = compare.FormatDelta(metric, v.Delta)
				if finite(v.DeltaRel) && v.Delta != 0 {
					out[i].Delta += fmt.Sprintf(" (%+.1f %%)", 100*v.DeltaRel)
				}
			}
		}
	}
	return out
}

// compareOnePoint is CompareFigure for sweeps without a swept parameter: a panel per metric,
// a whiskered mean per result.
func compareOnePoint(c compare.Comparison) *Figure {
	f := &Figure{Name: Compare, Title: "What changed: each result's goodput, failures, p99 latency and amplification",
		Subtitle: compareSubtitle(c, "dots: means; bars: 95 % confidence intervals; green better, red worse, grey not significant (p ≥ 0.05)")}
	var ticks []Tick
	for i := range c.Results {
		t := fmt.Sprintf("[%d]", i)
		if i == 0 {
			t = "[0] reference"
		}
		ticks = append(ticks, Tick{Value: float64(i), Label: t})
	}
	x := Axis{Label: "result", Categorical: true, Ticks: ticks, Cover: []float64{-0.5, float64(len(c.Results)) - 0.5}}
	for _, metric := range CompareMetrics {
		vals := OnePointValues(c, "total."+metric)
		var all []float64
		for _, v := range vals {
			all = append(all, v.Hi)
		}
		label, k := MetricAxis(metric, all, false)
		title := compareWords[metric]
		if b := betterWords(metric); b != "" {
			title += " (" + b + ")"
		}
		pn := Panel{Title: title, X: x, Y: Axis{Label: label, Cover: fromZero}}
		if metric == "amplification" {
			pn.Layers = append(pn.Layers, noRetries)
		}
		for i, v := range vals {
			pn.Layers = append(pn.Layers, Interval{Style: Style{Colour: v.Colour, Width: Medium}, Glyph: Glyph{Shape: Circle, Radius: 4},
				X: []float64{float64(i)}, Y: []float64{v.Mean * k}, Lo: []float64{v.Lo * k}, Hi: []float64{v.Hi * k}, Whiskers: true})
			if v.Delta != "" {
				pn.Labels = append(pn.Labels, PointLabel{Point: Point{X: float64(i), Y: v.Mean * k}, Text: v.Delta, Bold: v.Significant})
			}
		}
		f.Panels = append(f.Panels, pn)
	}
	var keys []Key
	for i, r := range c.Results {
		keys = append(keys, Key{Label: fmt.Sprintf("[%d] %s", i, r.Label), Kind: KeyText})
	}
	g := Glyph{Shape: Circle, Radius: 4}
	keys = append(keys,
		Key{Label: "reference", Kind: KeyGlyph, Style: Style{Colour: Total}, Glyph: &g},
		Key{Label: "better (p < 0.05)", Kind: KeyGlyph, Style: Style{Colour: BetterColour}, Glyph: &g},
		Key{Label: "worse (p < 0.05)", Kind: KeyGlyph, Style: Style{Colour: WorseColour}, Glyph: &g},
		Key{Label: "not significant or untested", Kind: KeyGlyph, Style: Style{Colour: UnjudgedColour}, Glyph: &g})
	f.Panels[1].Keys = keys
	f.Rows = []int{2, 2}
	return f
}
