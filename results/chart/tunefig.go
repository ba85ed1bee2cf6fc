package chart

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/tune"
)

// Colours of the tuning figure.
var (
	tuneFeasible   = Palette[0]
	tuneInfeasible = color.NRGBA{0x99, 0x99, 0x99, 0xff}
	tuneFront      = WithAlpha(Palette[0], 0xb0)
	tuneRunnerUp   = Palette[1]
	tuneBound      = FaultEdge
)

// TuneFigure is the tuning's trade-off as data (TunePareto): x the tuning's ParetoX (the
// objective, or the first other metric when the objective is an amplification), y its ParetoY
// (an amplification, attempts per operation). Each candidate is a point at its means with its
// 95 % confidence interval as bars in both directions: filled when feasible, hollow and grey
// when a constraint excludes it. The Pareto front of the feasible candidates (none better in
// both) is a step line, drawn as the best y attainable at each x; a constraint on either metric
// is a dashed line at its bound. The recommendation is ringed and labelled with its
// parameters, the runners-up (whose objective interval overlaps the recommendation's) ringed
// more lightly, and every other point labelled with its values. When the feasible candidates
// crowd a corner of the panel (an infeasible candidate far off: their box, with the
// constraints' bounds, covers under a tenth of its area), a second panel beside it shows them
// close up, and the first outlines the close-up's area.
//
// Both panels' axes have their extents given (Axis.Range): the first's is the data's, padded
// (tuneExtent), which the close-up's test of crowding needs before anything is drawn.
func TuneFigure(t *tune.Tuning) (*Figure, error) {
	if len(t.Candidates) == 0 {
		return nil, fmt.Errorf("the tuning of %s has no candidates", t.Header.Scenario)
	}
	var xsAll, ysAll []float64
	for i := range t.Candidates {
		xsAll = append(xsAll, t.Candidates[i].Metric(t.ParetoX).Mean)
		ysAll = append(ysAll, t.Candidates[i].Metric(t.ParetoY).Mean)
	}
	xBetter := "lower is better"
	if t.ParetoXMaximize() {
		xBetter = "higher is better"
	}
	xa := newTuneAxis(t, t.ParetoX, xBetter, xsAll)
	ya := newTuneAxis(t, t.ParetoY, "lower is better", ysAll)

	var paths, fields []string
	for _, p := range t.Params {
		paths = append(paths, p.Path)
		fields = append(fields, p.Path[strings.LastIndex(p.Path, ".")+1:])
	}
	title := fmt.Sprintf("Tuning %s: %s", strings.Join(paths, ", "), t.Objective)
	var ks []string
	for _, k := range t.Constraints {
		ks = append(ks, k.String())
	}
	goal := "no constraints"
	if len(ks) > 0 {
		goal = "subject to " + strings.Join(ks, ", ")
	}
	sub := fmt.Sprintf("scenario %s · %s · %d candidates × %d replications (common random numbers) · points: mean; bars: 95 %% confidence interval",
		t.Header.Scenario, goal, len(t.Candidates), t.Replications)
	if t.Replications < 2 {
		sub = fmt.Sprintf("scenario %s · %s · %d candidates × 1 replication (no confidence intervals)", t.Header.Scenario, goal, len(t.Candidates))
	}
	if t.Partial != "" {
		sub += " · partial: " + t.Partial
	}
	full := tunePanel(t, xa, ya, "every candidate", nil)
	f := &Figure{Name: TunePareto, Title: title, Subtitle: sub}
	if b, ok := feasibleBox(t, xa, ya, full.X.Range, full.Y.Range); ok {
		full = tunePanel(t, xa, ya, "every candidate", &b)
		full.Keys = nil // one legend, beside the close-up
		zoom := tunePanel(t, xa, ya, "close-up of the feasible candidates", nil)
		zx, zy := b.X, b.Y
		zoom.X.Range, zoom.Y.Range = &zx, &zy
		zoom.Keys = append(zoom.Keys, Key{Label: "the close-up's area", Kind: KeyOutline, Style: Style{Colour: Reference, Width: Thin, Dash: Dotted}})
		f.Panels, f.Rows = []Panel{full, zoom}, []int{2}
	} else {
		f.Panels = []Panel{full}
	}
	last := &f.Panels[len(f.Panels)-1]
	last.Keys = append(last.Keys, Key{Label: "labels: " + strings.Join(fields, ", "), Kind: KeyText})
	return f, nil
}

// tuneAxis is one axis of the tuning figure: the measure, its label and the factor from the
// metric's unit to the one shown.
type tuneAxis struct {
	name  string // the measure's name (results.TuneMeasure.Name)
	label string
	k     float64
}

// newTuneAxis labels the axis of the measure named name: its words, its unit (milliseconds or
// seconds for a latency, operations/s for a rate) and which way is better when known ("higher
// is better"); all is every value shown on it, for the latency unit.
func newTuneAxis(t *tune.Tuning, name string, better string, all []float64) tuneAxis {
	a := tuneAxis{name: name, k: 1}
	m := results.TuneMeasure{Metric: name}
	for _, x := range t.Measures {
		if x.Name() == name {
			m = x
		}
	}
	a.label, a.k = AxisLabel(m.String(), m.Metric, better, all)
	return a
}

// feasibleBox returns the close-up's area: the feasible candidates' means and intervals, and
// the constraints' bounds on either axis, with a margin; ok when there are at least two
// feasible candidates and the area covers under a tenth of the full panel's, whose extents
// are x and y.
func feasibleBox(t *tune.Tuning, xa, ya tuneAxis, x, y *Range) (Outline, bool) {
	b := Outline{X: Range{math.Inf(1), math.Inf(-1)}, Y: Range{math.Inf(1), math.Inf(-1)}}
	n := 0
	for i := range t.Candidates {
		c := &t.Candidates[i]
		if !c.Feasible {
			continue
		}
		cx, cy := c.Metric(t.ParetoX), c.Metric(t.ParetoY)
		if !finite(cx.Mean) || !finite(cy.Mean) {
			continue
		}
		n++
		b.X.Min, b.X.Max = math.Min(b.X.Min, (cx.Mean-halfWidth(cx))*xa.k), math.Max(b.X.Max, (cx.Mean+halfWidth(cx))*xa.k)
		b.Y.Min, b.Y.Max = math.Min(b.Y.Min, (cy.Mean-halfWidth(cy))*ya.k), math.Max(b.Y.Max, (cy.Mean+halfWidth(cy))*ya.k)
	}
	if n < 2 {
		return b, false
	}
	for _, k := range t.Constraints {
		switch k.Measure().Name() {
		case t.ParetoX:
			b.X.Min, b.X.Max = math.Min(b.X.Min, k.Bound*xa.k), math.Max(b.X.Max, k.Bound*xa.k)
		case t.ParetoY:
			b.Y.Min, b.Y.Max = math.Min(b.Y.Min, k.Bound*ya.k), math.Max(b.Y.Max, k.Bound*ya.k)
		}
	}
	fw, fh := x.Max-x.Min, y.Max-y.Min
	if (b.X.Max-b.X.Min)*(b.Y.Max-b.Y.Min) >= fw*fh/10 {
		return b, false // the feasible candidates fill enough of the panel
	}
	wx, wy := b.X.Max-b.X.Min, b.Y.Max-b.Y.Min
	if wx <= 0 {
		wx = math.Max(math.Abs(b.X.Max)*0.05, 1e-9)
	}
	if wy <= 0 {
		wy = math.Max(math.Abs(b.Y.Max)*0.05, 1e-9)
	}
	b.X.Min, b.X.Max = b.X.Min-float64(0.12*wx), b.X.Max+float64(0.12*wx)
	b.Y.Min, b.Y.Max = b.Y.Min-float64(0.12*wy), b.Y.Max+float64(0.12*wy)
	b.Style = Style{Colour: Reference, Width: Thin, Dash: Dotted}
	return b, true
}

// tunePanel is one panel of the candidates over the whole range of the data. With outline, it
// outlines that area (the close-up's) and leaves the points inside it to the close-up's labels.
// The caller sets a close-up's extents.
func tunePanel(t *tune.Tuning, xa, ya tuneAxis, title string, outline *Outline) Panel {
	pn := Panel{Title: title, X: Axis{Label: xa.label}, Y: Axis{Label: ya.label}, Outline: outline}

	// The points: feasible filled, infeasible hollow; means with bars both ways.
	infeasible := Crosses{Style: Style{Colour: tuneInfeasible, Width: Thin}, Glyph: Glyph{Shape: Hollow, Radius: 4.5, Width: 1.5}}
	feasible := Crosses{Style: Style{Colour: tuneFeasible, Width: Thin}, Glyph: Glyph{Shape: Circle, Radius: 4.5}}
	rec := -1
	if t.Recommendation != nil {
		rec = t.Recommendation.Candidate
	}
	for i := range t.Candidates {
		c := &t.Candidates[i]
		x, y := c.Metric(t.ParetoX), c.Metric(t.ParetoY)
		set := &infeasible
		if c.Feasible {
			set = &feasible
		}
		set.Points = append(set.Points, Estimate{X: x.Mean * xa.k, XHalf: halfWidth(x) * xa.k, Y: y.Mean * ya.k, YHalf: halfWidth(y) * ya.k})
		pt := Point{X: x.Mean * xa.k, Y: y.Mean * ya.k}
		inside := outline != nil && pt.X >= outline.X.Min && pt.X <= outline.X.Max && pt.Y >= outline.Y.Min && pt.Y <= outline.Y.Max
		switch {
		case i == rec && inside:
			pn.Labels = append(pn.Labels, PointLabel{Point: pt, Text: "recommended", Bold: true})
		case i == rec:
			pn.Labels = append(pn.Labels, PointLabel{Point: pt, Text: recommendedText(c), Bold: true})
		case inside:
			pn.Labels = append(pn.Labels, PointLabel{Point: pt}) // a point for the labels to keep clear of
		default:
			var vs []string
			for _, p := range c.Params {
				vs = append(vs, p.Value)
			}
			pn.Labels = append(pn.Labels, PointLabel{Point: pt, Text: strings.Join(vs, ", ")})
		}
	}
	pn.Crosses = []Crosses{infeasible, feasible}

	// The Pareto front of the feasible candidates, as a step line.
	if len(t.Pareto) > 1 {
		front := Series{Style: Style{Colour: tuneFront, Width: Medium}}
		front.X, front.Y = paretoSteps(t, xa.k, ya.k)
		pn.Series = append(pn.Series, front)
		pn.Keys = append(pn.Keys, Key{Label: "Pareto front (feasible)", Style: front.Style})
	}
	for _, set := range []struct {
		label string
		Crosses
	}{{"feasible", feasible}, {"infeasible (breaks a constraint)", infeasible}} {
		if len(set.Points) > 0 {
			pn.Keys = append(pn.Keys, Key{Label: set.label, Kind: KeyCrosses, Style: set.Style, Glyph: &set.Glyph})
		}
	}

	// The constraints' bounds on either axis.
	bound := Style{Colour: tuneBound, Width: Thin, Dash: Dashed}
	for _, k := range t.Constraints {
		op := strings.TrimSpace(strings.TrimPrefix(k.String(), k.Measure().String()))
		switch k.Measure().Name() {
		case t.ParetoY:
			pn.Bounds = append(pn.Bounds, Bound{At: k.Bound * ya.k, Label: "constraint " + op, Style: bound})
		case t.ParetoX:
			pn.Bounds = append(pn.Bounds, Bound{Vertical: true, At: k.Bound * xa.k, Label: "constraint " + op, Style: bound})
		}
	}
	if len(pn.Bounds) > 0 {
		pn.Keys = append(pn.Keys, Key{Label: "constraint bound", Style: bound})
	}

	// The runners-up and the recommendation, ringed, over everything else.
	if len(t.RunnersUp) > 0 {
		ru := Rings{Colour: tuneRunnerUp, Glyph: Glyph{Shape: Open, Radius: 7.5, Width: 1.5}}
		for _, r := range t.RunnersUp {
			c := &t.Candidates[r.Candidate]
			ru.Points = append(ru.Points, Point{X: c.Metric(t.ParetoX).Mean * xa.k, Y: c.Metric(t.ParetoY).Mean * ya.k})
		}
		pn.Rings = append(pn.Rings, ru)
		pn.Keys = append(pn.Keys, Key{Label: "runner-up: intervals overlap", Kind: KeyGlyph, Style: Style{Colour: ru.Colour}, Glyph: &ru.Glyph})
	}
	if rec >= 0 {
		c := &t.Candidates[rec]
		m := Rings{Colour: Total, Glyph: Glyph{Shape: Open, Radius: 9, Width: 2.5},
			Points: []Point{{X: c.Metric(t.ParetoX).Mean * xa.k, Y: c.Metric(t.ParetoY).Mean * ya.k}}}
		pn.Rings = append(pn.Rings, m)
		pn.Keys = append(pn.Keys, Key{Label: "recommended", Kind: KeyGlyph, Style: Style{Colour: m.Colour}, Glyph: &m.Glyph})
	}
	pn.X.Range, pn.Y.Range = tuneExtent(&pn)
	return pn
}

// tuneExtent returns the extents of the panel's axes: the range of its crosses with their
// bars, its series and its bounds, each widened by a share either side on x, and below on y,
// so that points at the edges (and their labels) are not cut by the frame. It is the
// arithmetic of gonum/plot's autoscale (the minimum and maximum over every element's range)
// followed by that widening, done here so that the close-up's test of crowding does not
// depend on a renderer.
func tuneExtent(pn *Panel) (x, y *Range) {
	x, y = &Range{math.Inf(1), math.Inf(-1)}, &Range{math.Inf(1), math.Inf(-1)}
	cover := func(r *Range, lo, hi float64) { r.Min, r.Max = math.Min(r.Min, lo), math.Max(r.Max, hi) }
	for _, cs := range pn.Crosses {
		for _, c := range cs.Points {
			if finite(c.X) && finite(c.Y) {
				cover(x, c.X-c.XHalf, c.X+c.XHalf)
				cover(y, c.Y-c.YHalf, c.Y+c.YHalf)
			}
		}
	}
	for _, s := range pn.Series {
		for i := range s.X {
			if finite(s.X[i]) && finite(s.Y[i]) {
				cover(x, s.X[i], s.X[i])
				cover(y, s.Y[i], s.Y[i])
			}
		}
	}
	for _, b := range pn.Bounds {
		if b.Vertical {
			cover(x, b.At, b.At)
		} else {
			cover(y, b.At, b.At)
		}
	}
	for _, r := range []*Range{x, y} {
		if !finite(r.Min) || !finite(r.Max) {
			continue
		}
		w := r.Max - r.Min
		if w <= 0 {
			w = math.Max(math.Abs(r.Max)*0.2, 1)
		}
		r.Min -= float64(0.06 * w)
		if r == x {
			r.Max += float64(0.06 * w)
		}
	}
	return x, y
}

// recommendedText is the recommendation's label: "recommended" and a line per tuned field,
// the field's last name and its value ("maxAdaptiveRetries=1"); the title gives the paths.
func recommendedText(c *tune.Candidate) string {
	lines := []string{"recommended"}
	for _, p := range c.Params {
		lines = append(lines, p.Path[strings.LastIndex(p.Path, ".")+1:]+"="+p.Value)
	}
	if len(lines) == 2 {
		return lines[0] + ": " + lines[1]
	}
	return strings.Join(lines, "\n")
}

// halfWidth is a confidence half-width, 0 when there is none (one replication).
func halfWidth(m results.MetricStats) float64 {
	if !finite(m.CI95) {
		return 0
	}
	return m.CI95
}

// paretoSteps returns the step line of the tuning's Pareto front (t.Pareto, in increasing x),
// scaled by kx and ky: at each x the lowest y a front point at least as good in x attains, so
// that the line runs along the edge of what the feasible candidates can do.
func paretoSteps(t *tune.Tuning, kx, ky float64) (xs, ys []float64) {
	maxX := t.ParetoXMaximize()
	for j, i := range t.Pareto {
		c := &t.Candidates[i]
		x, y := c.Metric(t.ParetoX).Mean*kx, c.Metric(t.ParetoY).Mean*ky
		if j > 0 {
			if maxX { // higher x costs higher y: rise at the previous x, then run to this one
				xs, ys = append(xs, xs[len(xs)-1]), append(ys, y)
			} else { // higher x buys lower y: run to this x at the previous y, then drop
				xs, ys = append(xs, x), append(ys, ys[len(ys)-1])
			}
		}
		xs, ys = append(xs, x), append(ys, y)
	}
	return xs, ys
}
