package plot

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/chart"
	"github.com/overloadsim/overloadsim/results/tune"
)

// WriteTuneFigures draws the tuning in dir (tune.json, as tune.WriteDir writes it) and
// writes its figure as tune-pareto.svg and tune-pareto.png into dir. It returns the base names
// written ([chart.TunePareto]).
//
// The figure is the tuning's trade-off: x the tuning's ParetoX (the objective, or the first
// other metric when the objective is an amplification), y its ParetoY (an amplification,
// attempts per operation). Each candidate is a point at its means with its 95 % confidence
// interval as bars in both directions: filled when feasible, hollow and grey when a constraint
// excludes it. The Pareto front of the feasible candidates (none better in both) is a step line,
// drawn as the best y attainable at each x; a constraint on either metric is a dashed line at
// its bound. The recommendation is ringed and labelled with its parameters, the runners-up
// (whose objective interval overlaps the recommendation's) ringed more lightly, and every other
// point labelled with its values. When the feasible candidates crowd a corner of the panel (an
// infeasible candidate far off), a second panel beside it shows them close up, and the first
// outlines the close-up's area.
func WriteTuneFigures(dir string) ([]string, error) {
	t, err := tune.Read(dir)
	if err != nil {
		return nil, fmt.Errorf("plot: %w", err)
	}
	f, err := tuneFigure(&t)
	if err != nil {
		return nil, err
	}
	return writeFigures(dir, []*figure{f})
}

// TuneSVG returns the tuning's figure as SVG, without writing it.
func TuneSVG(t *tune.Tuning) ([]byte, error) {
	f, err := tuneFigure(t)
	if err != nil {
		return nil, err
	}
	return f.svg()
}

// Colours of the tuning figure.
var (
	feasibleColour   = chart.Palette[0]
	infeasibleColour = color.NRGBA{0x99, 0x99, 0x99, 0xff}
	frontColour      = chart.WithAlpha(chart.Palette[0], 0xb0)
	runnerUpColour   = chart.Palette[1]
	boundColour      = chart.FaultEdge
)

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
	a.label, a.k = chart.AxisLabel(m.String(), m.Metric, better, all)
	return a
}

// tuneFigure draws the tuning's Pareto figure: one panel of every candidate and, when the
// feasible candidates crowd a corner of it (their box, with the constraints' bounds, covers
// under a tenth of its area), a close-up of them beside it.
func tuneFigure(t *tune.Tuning) (*figure, error) {
	if len(t.Candidates) == 0 {
		return nil, fmt.Errorf("plot: the tuning of %s has no candidates", t.Header.Scenario)
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
	full := tunePanel(t, xa, ya, "every candidate", nil, nil)
	f := &figure{name: chart.TunePareto, title: title, subtitle: sub, rows: [][]*panel{{full}}}
	if b, ok := feasibleBox(t, xa, ya, full.p); ok {
		full = tunePanel(t, xa, ya, "every candidate", nil, &b)
		full.legend, full.keys = newLegend(), nil // one key, beside the close-up
		zoom := tunePanel(t, xa, ya, "close-up of the feasible candidates", &b, nil)
		zoom.key("the close-up's area", &frame{style: lineStyle(chart.Reference, thin, dotted)})
		f.rows = [][]*panel{{full, zoom}}
	}
	last := f.rows[0][len(f.rows[0])-1]
	last.key("labels: " + strings.Join(fields, ", "))
	return f, nil
}

// box is a range of both axes, in the axes' units.
type box struct{ x0, x1, y0, y1 float64 }

// feasibleBox returns the close-up's box: the feasible candidates' means and intervals, and the
// constraints' bounds on either axis, with a margin; ok when there are at least two feasible
// candidates and the box covers under a tenth of full's area.
func feasibleBox(t *tune.Tuning, xa, ya tuneAxis, full *plot.Plot) (box, bool) {
	b := box{math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)}
	n := 0
	for i := range t.Candidates {
		c := &t.Candidates[i]
		if !c.Feasible {
			continue
		}
		x, y := c.Metric(t.ParetoX), c.Metric(t.ParetoY)
		if !valid(x.Mean) || !valid(y.Mean) {
			continue
		}
		n++
		b.x0, b.x1 = math.Min(b.x0, (x.Mean-halfWidth(x))*xa.k), math.Max(b.x1, (x.Mean+halfWidth(x))*xa.k)
		b.y0, b.y1 = math.Min(b.y0, (y.Mean-halfWidth(y))*ya.k), math.Max(b.y1, (y.Mean+halfWidth(y))*ya.k)
	}
	if n < 2 {
		return b, false
	}
	for _, k := range t.Constraints {
		switch k.Measure().Name() {
		case t.ParetoX:
			b.x0, b.x1 = math.Min(b.x0, k.Bound*xa.k), math.Max(b.x1, k.Bound*xa.k)
		case t.ParetoY:
			b.y0, b.y1 = math.Min(b.y0, k.Bound*ya.k), math.Max(b.y1, k.Bound*ya.k)
		}
	}
	fw, fh := full.X.Max-full.X.Min, full.Y.Max-full.Y.Min
	if (b.x1-b.x0)*(b.y1-b.y0) >= fw*fh/10 {
		return b, false // the feasible candidates fill enough of the panel
	}
	wx, wy := b.x1-b.x0, b.y1-b.y0
	if wx <= 0 {
		wx = math.Max(math.Abs(b.x1)*0.05, 1e-9)
	}
	if wy <= 0 {
		wy = math.Max(math.Abs(b.y1)*0.05, 1e-9)
	}
	b.x0, b.x1 = b.x0-float64(0.12*wx), b.x1+float64(0.12*wx)
	b.y0, b.y1 = b.y0-float64(0.12*wy), b.y1+float64(0.12*wy)
	return b, true
}

// tunePanel draws the candidates on one panel, over the whole range of the data or, with zoom,
// over that box only. With outline, it draws that box (the close-up's) dotted, and leaves the
// points inside it to the close-up's labels.
func tunePanel(t *tune.Tuning, xa, ya tuneAxis, title string, zoom, outline *box) *panel {
	pn := newPanel(title, xa.label, ya.label)

	// The points: feasible filled, infeasible hollow; means with bars both ways.
	feasible := &crosses{style: lineStyle(feasibleColour, thin, nil),
		glyph: draw.GlyphStyle{Color: feasibleColour, Radius: vg.Points(4.5), Shape: draw.CircleGlyph{}}}
	infeasible := &crosses{style: lineStyle(infeasibleColour, thin, nil),
		glyph: draw.GlyphStyle{Color: infeasibleColour, Radius: vg.Points(4.5), Shape: hollow{width: vg.Points(1.5)}}}
	labels := &pointLabels{}
	rec := -1
	if t.Recommendation != nil {
		rec = t.Recommendation.Candidate
	}
	for i := range t.Candidates {
		c := &t.Candidates[i]
		x, y := c.Metric(t.ParetoX), c.Metric(t.ParetoY)
		set := infeasible
		if c.Feasible {
			set = feasible
		}
		set.add(x.Mean*xa.k, halfWidth(x)*xa.k, y.Mean*ya.k, halfWidth(y)*ya.k)
		px, py := x.Mean*xa.k, y.Mean*ya.k
		inside := outline != nil && px >= outline.x0 && px <= outline.x1 && py >= outline.y0 && py <= outline.y1
		switch {
		case i == rec && inside:
			labels.add(px, py, "recommended", true)
			continue
		case i == rec:
			labels.add(px, py, recommendedText(t, c), true)
			continue
		case inside:
			labels.add(px, py, "", false) // a point for the labels to keep clear of
			continue
		}
		var vs []string
		for _, p := range c.Params {
			vs = append(vs, p.Value)
		}
		labels.add(x.Mean*xa.k, y.Mean*ya.k, strings.Join(vs, ", "), false)
	}
	pn.p.Add(infeasible, feasible)

	// The Pareto front of the feasible candidates, as a step line.
	if len(t.Pareto) > 1 {
		front := &line{style: lineStyle(frontColour, medium, nil)}
		front.xs, front.ys = paretoSteps(t, xa.k, ya.k)
		pn.p.Add(front)
		pn.key("Pareto front (feasible)", front)
	}
	if len(feasible.xs) > 0 {
		pn.key("feasible", feasible)
	}
	if len(infeasible.xs) > 0 {
		pn.key("infeasible (breaks a constraint)", infeasible)
	}

	// The constraints' bounds on either axis.
	var v vlines
	bound := false
	for _, k := range t.Constraints {
		name := k.Measure().Name()
		op := strings.TrimSpace(strings.TrimPrefix(k.String(), k.Measure().String()))
		switch name {
		case t.ParetoY:
			pn.p.Add(&hline{y: k.Bound * ya.k, style: lineStyle(boundColour, thin, dashed)})
			pn.over = append(pn.over, &boundLabel{y: k.Bound * ya.k, text: "constraint " + op, colour: boundColour})
			bound = true
		case t.ParetoX:
			v.marks = append(v.marks, vmark{x: k.Bound * xa.k, label: "constraint " + op, style: lineStyle(boundColour, thin, dashed)})
			bound = true
		}
	}
	if len(v.marks) > 0 {
		pn.p.Add(&v)
	}
	if bound {
		pn.key("constraint bound", vlineKey{lineStyle(boundColour, thin, dashed)})
	}

	// The runners-up and the recommendation, ringed, over everything else.
	if len(t.RunnersUp) > 0 {
		ru := &rings{glyph: draw.GlyphStyle{Color: runnerUpColour, Radius: vg.Points(7.5), Shape: hollow{width: vg.Points(1.5), clear: true}}}
		for _, r := range t.RunnersUp {
			c := &t.Candidates[r.Candidate]
			ru.xs = append(ru.xs, c.Metric(t.ParetoX).Mean*xa.k)
			ru.ys = append(ru.ys, c.Metric(t.ParetoY).Mean*ya.k)
		}
		pn.over = append(pn.over, ru)
		pn.key("runner-up: intervals overlap", ru)
	}
	if rec >= 0 {
		c := &t.Candidates[rec]
		m := &rings{xs: []float64{c.Metric(t.ParetoX).Mean * xa.k}, ys: []float64{c.Metric(t.ParetoY).Mean * ya.k},
			glyph: draw.GlyphStyle{Color: chart.Total, Radius: vg.Points(9), Shape: hollow{width: vg.Points(2.5), clear: true}}}
		pn.over = append(pn.over, m)
		pn.key("recommended", m)
	}
	if outline != nil {
		pn.p.Add(&frame{b: *outline, style: lineStyle(chart.Reference, thin, dotted)})
	}
	pn.over = append(pn.over, labels)
	if zoom != nil {
		pn.p.X.Min, pn.p.X.Max, pn.p.Y.Min, pn.p.Y.Max = zoom.x0, zoom.x1, zoom.y0, zoom.y1
	} else {
		pad(pn.p)
	}
	return pn
}

// recommendedText is the recommendation's label: "recommended" and a line per tuned field,
// the field's last name and its value ("maxAdaptiveRetries=1"); the title gives the paths.
func recommendedText(t *tune.Tuning, c *tune.Candidate) string {
	lines := []string{"recommended"}
	for _, p := range c.Params {
		lines = append(lines, p.Path[strings.LastIndex(p.Path, ".")+1:]+"="+p.Value)
	}
	if len(lines) == 2 {
		return lines[0] + ": " + lines[1]
	}
	return strings.Join(lines, "\n")
}

// frame draws a rectangle over the data (a close-up's area).
type frame struct {
	b     box
	style draw.LineStyle
}

// Plot draws the rectangle (plot.Plotter).
func (f *frame) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	x0, x1, y0, y1 := trX(f.b.x0), trX(f.b.x1), trY(f.b.y0), trY(f.b.y1)
	c.StrokeLines(f.style, c.ClipLinesXY([]vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}, {X: x0, Y: y0}})...)
}

// Thumbnail draws a small rectangle (plot.Thumbnailer).
func (f *frame) Thumbnail(c *draw.Canvas) {
	r := draw.Crop(*c, vg.Points(3), -vg.Points(3), vg.Points(1), -vg.Points(1))
	c.StrokeLines(f.style, []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}, r.Min})
}

// rings draws a ring glyph at each point inside the data area, over the data.
type rings struct {
	xs, ys []float64
	glyph  draw.GlyphStyle
}

// Plot draws the rings (plot.Plotter).
func (r *rings) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for i := range r.xs {
		if pt := (vg.Point{X: trX(r.xs[i]), Y: trY(r.ys[i])}); valid(r.xs[i]) && valid(r.ys[i]) && c.Contains(pt) {
			c.DrawGlyph(r.glyph, pt)
		}
	}
}

// Thumbnail draws one ring (plot.Thumbnailer).
func (r *rings) Thumbnail(c *draw.Canvas) { c.DrawGlyphNoClip(r.glyph, c.Center()) }

// halfWidth is a confidence half-width, 0 when there is none (one replication).
func halfWidth(m results.MetricStats) float64 {
	if !valid(m.CI95) {
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

// pad widens p's x axis by a share either side, and its y axis below, so that points at the
// edges (and their labels) are not cut by the frame.
func pad(p *plot.Plot) {
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		if !valid(a.Min) || !valid(a.Max) {
			continue
		}
		w := a.Max - a.Min
		if w <= 0 {
			w = math.Max(math.Abs(a.Max)*0.2, 1)
		}
		a.Min -= float64(0.06 * w)
		if a == &p.X {
			a.Max += float64(0.06 * w)
		}
	}
}

// crosses draws points with error bars both ways: a glyph at each mean, a horizontal bar over
// its x interval and a vertical bar over its y interval, with caps.
type crosses struct {
	xs, xh, ys, yh []float64 // means and half-widths
	style          draw.LineStyle
	glyph          draw.GlyphStyle
}

func (c *crosses) add(x, xh, y, yh float64) {
	c.xs, c.xh, c.ys, c.yh = append(c.xs, x), append(c.xh, xh), append(c.ys, y), append(c.yh, yh)
}

// Plot draws the bars, then the glyphs over them (plot.Plotter).
func (c *crosses) Plot(dc draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&dc)
	capLen := vg.Points(3)
	for i := range c.xs {
		if !valid(c.xs[i]) || !valid(c.ys[i]) {
			continue
		}
		x, y := trX(c.xs[i]), trY(c.ys[i])
		if c.yh[i] > 0 {
			lo, hi := trY(c.ys[i]-c.yh[i]), trY(c.ys[i]+c.yh[i])
			dc.StrokeLines(c.style, dc.ClipLinesXY([]vg.Point{{X: x, Y: lo}, {X: x, Y: hi}})...)
			for _, e := range []vg.Length{lo, hi} {
				dc.StrokeLines(c.style, dc.ClipLinesXY([]vg.Point{{X: x - capLen, Y: e}, {X: x + capLen, Y: e}})...)
			}
		}
		if c.xh[i] > 0 {
			lo, hi := trX(c.xs[i]-c.xh[i]), trX(c.xs[i]+c.xh[i])
			dc.StrokeLines(c.style, dc.ClipLinesXY([]vg.Point{{X: lo, Y: y}, {X: hi, Y: y}})...)
			for _, e := range []vg.Length{lo, hi} {
				dc.StrokeLines(c.style, dc.ClipLinesXY([]vg.Point{{X: e, Y: y - capLen}, {X: e, Y: y + capLen}})...)
			}
		}
	}
	for i := range c.xs {
		if pt := (vg.Point{X: trX(c.xs[i]), Y: trY(c.ys[i])}); valid(c.xs[i]) && valid(c.ys[i]) && dc.Contains(pt) {
			dc.DrawGlyph(c.glyph, pt)
		}
	}
}

// DataRange covers every point with its bars (plot.DataRanger).
func (c *crosses) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin = math.Inf(1), math.Inf(1)
	xmax, ymax = math.Inf(-1), math.Inf(-1)
	for i := range c.xs {
		if !valid(c.xs[i]) || !valid(c.ys[i]) {
			continue
		}
		xmin, xmax = math.Min(xmin, c.xs[i]-c.xh[i]), math.Max(xmax, c.xs[i]+c.xh[i])
		ymin, ymax = math.Min(ymin, c.ys[i]-c.yh[i]), math.Max(ymax, c.ys[i]+c.yh[i])
	}
	return
}

// GlyphBoxes are the glyphs' boxes, so that the axes leave room for them (plot.GlyphBoxer).
func (c *crosses) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	l := line{xs: c.xs, ys: c.ys, glyph: &c.glyph}
	return l.GlyphBoxes(p)
}

// Thumbnail draws a glyph with a bar each way (plot.Thumbnailer).
func (c *crosses) Thumbnail(dc *draw.Canvas) {
	ctr := dc.Center()
	w := vg.Points(8)
	dc.StrokeLine2(c.style, ctr.X-w, ctr.Y, ctr.X+w, ctr.Y)
	dc.StrokeLine2(c.style, ctr.X, dc.Min.Y, ctr.X, dc.Max.Y)
	dc.DrawGlyphNoClip(c.glyph, ctr)
}

// hollow is a ring glyph of a given line width; clear leaves its inside see-through, else it is
// filled white (a hollow point over its bars).
type hollow struct {
	width vg.Length
	clear bool
}

// DrawGlyph draws the ring at pt (draw.GlyphDrawer).
func (h hollow) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	var p vg.Path
	p.Move(vg.Point{X: pt.X + sty.Radius, Y: pt.Y})
	p.Arc(pt, sty.Radius, 0, 2*math.Pi)
	p.Close()
	if !h.clear {
		c.SetColor(color.White)
		c.Fill(p)
	}
	c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: h.width})
	c.Stroke(p)
}

// pointLabels writes a label beside each point, over the data: the bold ones (the
// recommendation's) placed first, the rest in grey. Each goes right and above its point, else
// right and below, left and above, left and below, centred above or below: the first place
// where it covers no label already placed and no other point and stays inside the panel; where
// none is free, the place inside the panel that covers fewest. A point without a label is kept
// clear of the others'.
type pointLabels struct {
	xs, ys []float64
	texts  []string
	bold   []bool
}

func (l *pointLabels) add(x, y float64, text string, bold bool) {
	l.xs, l.ys, l.texts, l.bold = append(l.xs, x), append(l.ys, y), append(l.texts, text), append(l.bold, bold)
}

// Plot places and writes the labels (plot.Plotter).
func (l *pointLabels) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	var pts []vg.Point
	for i := range l.xs {
		if valid(l.xs[i]) && valid(l.ys[i]) {
			pts = append(pts, vg.Point{X: trX(l.xs[i]), Y: trY(l.ys[i])})
		} else {
			pts = append(pts, vg.Point{X: vg.Length(math.NaN()), Y: vg.Length(math.NaN())})
		}
	}
	var placed []vg.Rectangle
	// cover scores a label's place: how many labels and points it covers, and far more when it
	// leaves the panel.
	cover := func(r vg.Rectangle, self int) float64 {
		score := 0.0
		if r.Min.X < c.Min.X || r.Max.X > c.Max.X || r.Min.Y < c.Min.Y || r.Max.Y > c.Max.Y {
			score += 1000
		}
		for _, q := range placed {
			if r.Min.X < q.Max.X && q.Min.X < r.Max.X && r.Min.Y < q.Max.Y && q.Min.Y < r.Max.Y {
				score += 10
			}
		}
		const near = 4 // points: a label keeps this far from another point's centre
		for j, pt := range pts {
			if j != self && pt.X > r.Min.X-near && pt.X < r.Max.X+near && pt.Y > r.Min.Y-near && pt.Y < r.Max.Y+near {
				score++
			}
		}
		return score
	}
	order := make([]int, 0, len(l.xs))
	for _, first := range []bool{true, false} {
		for i := range l.xs {
			if l.bold[i] == first {
				order = append(order, i)
			}
		}
	}
	for _, i := range order {
		pt := pts[i]
		if l.texts[i] == "" || !valid(float64(pt.X)) || !c.Contains(pt) {
			continue
		}
		sty := textStyle(noteSize-1, false)
		sty.Color = chart.Note
		gap := vg.Points(5)
		if l.bold[i] {
			sty = textStyle(noteSize, true)
			gap = vg.Points(11) // clear of the recommendation's ring
		}
		sz := sty.Rectangle(l.texts[i]).Size()
		// at is the label's place: h right (1), left (-1) or centred (0) on the point, v above
		// (1) or below (-1) it.
		at := func(h, v int) vg.Rectangle {
			x := pt.X + gap
			switch h {
			case -1:
				x = pt.X - gap - sz.X
			case 0:
				x = pt.X - vg.Length(sz.X/2)
			}
			y := pt.Y + vg.Length(gap*0.6)
			if v < 0 {
				y = pt.Y - vg.Length(gap*0.6) - sz.Y
			}
			if h == 0 {
				y = pt.Y + gap + vg.Points(2)
				if v < 0 {
					y = pt.Y - gap - vg.Points(2) - sz.Y
				}
			}
			return vg.Rectangle{Min: vg.Point{X: x, Y: y}, Max: vg.Point{X: x + sz.X, Y: y + sz.Y}}
		}
		// The first free place; where none is, the one inside the panel that covers least.
		best, bestScore := vg.Rectangle{}, math.Inf(1)
		for _, pl := range []struct{ h, v int }{{1, 1}, {1, -1}, {-1, 1}, {-1, -1}, {0, 1}, {0, -1}} {
			r := at(pl.h, pl.v)
			if sc := cover(r, i); sc < bestScore {
				best, bestScore = r, sc
			}
			if bestScore == 0 {
				break
			}
		}
		r := best
		if over := r.Max.X - c.Max.X; over > 0 { // wider than the room on either side
			r.Min.X, r.Max.X = r.Min.X-over, r.Max.X-over
		}
		if under := c.Min.X - r.Min.X; under > 0 {
			r.Min.X, r.Max.X = r.Min.X+under, r.Max.X+under
		}
		placed = append(placed, r)
		sty.XAlign, sty.YAlign = draw.XLeft, draw.YBottom
		c.FillText(sty, r.Min, l.texts[i])
	}
}

// boundLabel writes a constraint's label at the right end of its horizontal bound line, above
// it.
type boundLabel struct {
	y      float64
	text   string
	colour color.Color
}

// Plot writes the label, if its line is inside the data area (plot.Plotter).
func (b *boundLabel) Plot(c draw.Canvas, p *plot.Plot) {
	_, trY := p.Transforms(&c)
	y := trY(b.y)
	if !c.ContainsY(y) {
		return
	}
	sty := textStyle(noteSize, true)
	sty.Color = b.colour
	sty.XAlign, sty.YAlign = draw.XRight, draw.YBottom
	c.FillText(sty, vg.Point{X: c.Max.X - vg.Points(4), Y: y + vg.Points(2)}, b.text)
}
