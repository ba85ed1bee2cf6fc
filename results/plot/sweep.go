package plot

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/chart"
)

// SweepFigures are the base names of the figures WriteSweepFigures draws, in order.
var SweepFigures = chart.Names(results.KindSweep)

// WriteSweepFigures draws the figures of the sweep in dir (sweep.json, as
// sweep.WriteSweepDir writes it) and writes each as NAME.svg and NAME.png into dir. It
// returns the base names written, in the order of SweepFigures.
func WriteSweepFigures(dir string, opts chart.SweepOptions) ([]string, error) {
	figs, err := sweepFigures(dir, opts)
	if err != nil {
		return nil, err
	}
	return writeFigures(dir, figs)
}

// categorySlack is the part of a figure's width that is not the x axis: the y axis and its
// label, and the legend beside the plot.
const categorySlack = 3.5 * vg.Inch

// applyX labels p's x axis a and sets its range to cover every value, whether or not a
// metric has a value there.
func applyX(p *plot.Plot, a *chart.XAxis) {
	p.X.Label.Text = a.Label
	if a.Categorical() {
		ticks := make(plot.ConstantTicks, len(a.Values))
		for i, v := range a.Values {
			ticks[i] = plot.Tick{Value: a.Pos[v], Label: v}
		}
		p.X.Tick.Marker = ticks
		p.X.Min, p.X.Max = -0.5, float64(len(a.Values))-0.5
		// Category names wider than their share of the axis would run into each other:
		// slant them so that each ends under its own category.
		slot := (figWidth - categorySlack) / vg.Length(len(a.Values))
		for _, v := range a.Values {
			if p.X.Tick.Label.Width(v) > 0.9*slot {
				p.X.Tick.Label.Rotation = math.Pi / 6
				p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YTop
				break
			}
		}
		return
	}
	for _, v := range a.Values {
		p.X.Min, p.X.Max = math.Min(p.X.Min, a.Pos[v]), math.Max(p.X.Max, a.Pos[v])
	}
}

// sweepData is a sweep's figures' data, drawn with gonum.
type sweepData struct{ *chart.Sweep }

// readSweep reads the sweep in dir as chart.ReadSweep arranges it.
func readSweep(dir string, opts chart.SweepOptions) (*sweepData, error) {
	cs, err := chart.ReadSweep(dir, opts)
	if err != nil {
		return nil, err
	}
	return &sweepData{cs}, nil
}

// lineColour is line i's line style and its band's fill, in its colour (chart.Sweep.LineColour).
func (s *sweepData) lineColour(i int) (sty draw.LineStyle, fill draw.LineStyle) {
	col, fc := s.LineColour(i)
	return lineStyle(col, medium, nil), lineStyle(fc, 0, nil)
}

// addLines draws every line's mean of metric, scaled by k (and as log10 on a log axis), with
// its confidence band: a line and a band over a numeric x, glyphs with whiskers, side by side,
// over categories. The x positions where a line has no value are marked along the bottom.
func (s *sweepData) addLines(pn *panel, metric string, k float64, logY bool, absentText string) {
	var absent []float64
	for i, l := range s.Lines {
		sty, fill := s.lineColour(i)
		mean, lo, hi := l.Metric(metric)
		mean, lo, hi = scaled(mean, k), scaled(lo, k), scaled(hi, k)
		for j, m := range mean {
			if !valid(m) && !slices.Contains(absent, l.X[j]) {
				absent = append(absent, l.X[j])
			}
		}
		if logY {
			for j := range lo {
				if !(lo[j] > 0) && mean[j] > 0 {
					lo[j] = mean[j] * 1e-6 // the band runs off the bottom of the axis
				}
			}
			mean, lo, hi = logValues(mean), logValues(lo), logValues(hi)
		}
		g := s.glyph(i, sty.Color.(color.NRGBA))
		if s.X.Categorical() {
			xs := make([]float64, len(l.X))
			for j, x := range l.X {
				xs[j] = x + s.Dodge(i)
			}
			w := &whiskers{xs: xs, ys: mean, lo: lo, hi: hi, style: sty, glyph: g}
			pn.p.Add(w)
			pn.key(s.LineName(i), w)
			continue
		}
		b := &band{xs: l.X, lo: lo, hi: hi, fill: fill.Color}
		ln := &line{xs: l.X, ys: mean, style: sty, glyph: &g}
		pn.p.Add(b, ln)
		pn.key(s.LineName(i), b, ln)
	}
	if len(absent) > 0 {
		m := &missing{xs: absent, glyph: draw.GlyphStyle{Color: chart.Total, Radius: vg.Points(5), Shape: draw.CrossGlyph{}}}
		pn.p.Add(m)
		pn.key(absentText, m)
	}
}

// glyph is line i's point marker (chart.Sweep.Glyph) in colour c.
func (s *sweepData) glyph(i int, c color.NRGBA) draw.GlyphStyle {
	g := s.Glyph(i)
	return *glyph(&g, c)
}

// scaled returns xs, each times k.
func scaled(xs []float64, k float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = x * k
	}
	return out
}

func sweepFigures(dir string, opts chart.SweepOptions) ([]*figure, error) {
	s, err := readSweep(dir, opts)
	if err != nil {
		return nil, err
	}
	return []*figure{s.goodputFigure(), s.amplificationFigure(), s.p99Figure()}, nil
}

// goodputFigure: goodput against the first parameter, with the ideal min(offered, capacity)
// and each line's knee.
func (s *sweepData) goodputFigure() *figure {
	f := &figure{name: chart.SweepGoodput, title: "Goodput vs " + s.Versus(), subtitle: s.Subtitle()}
	label, _ := chart.MetricAxis("goodput", nil, false)
	pn := newPanel(s.PanelTitle(), "", label)
	applyX(pn.p, s.X)
	pn.p.Y.Min = 0

	s.addLines(pn, "goodput", 1, false, "no value")
	for _, id := range s.Ideals() {
		if id.Line >= 0 {
			// The sweep varies the ceiling: each line its own ideal, in its colour.
			col, _ := s.LineColour(id.Line)
			pn.p.Add(&line{xs: id.X, ys: id.Y, style: lineStyle(col, thin, dashed)})
			if id.Drawn {
				pn.key(id.Key, &line{style: lineStyle(chart.Total, thin, dashed)})
			}
			continue
		}
		var l interface {
			plot.Plotter
			plot.Thumbnailer
		} = &line{xs: id.X, ys: id.Y, style: lineStyle(chart.Total, thin, dashed)}
		if s.X.Categorical() {
			l = &levels{xs: id.X, ys: id.Y, halfWidth: 0.3, style: lineStyle(chart.Total, thin, dashed)}
		}
		pn.p.Add(l)
		pn.key(id.Key, l)
	}

	knees := s.Knees()
	for _, k := range knees {
		// A ring in the line's colour, without a text label: many lines' labels would pile
		// up at the same load; the key says what the ring is.
		sty, _ := s.lineColour(k.Line)
		pn.p.Add(&markers{xs: []float64{k.X}, ys: []float64{k.Y},
			glyph: draw.GlyphStyle{Color: sty.Color, Radius: vg.Points(7), Shape: draw.RingGlyph{}}})
	}
	if len(knees) > 0 {
		pn.key("knee: goodput < 95 % of offered", &markers{glyph: draw.GlyphStyle{Color: chart.Total, Radius: vg.Points(5), Shape: draw.RingGlyph{}}})
	}
	s.loadMarks(pn, false, false, 1)
	f.rows = [][]*panel{{pn}}
	return f
}

// loadMarks draws a load sweep's marks (chart.Sweep.LoadMarks) on a panel whose x is the
// offered load: vertical lines in the marks' colours, today's dotted, the knees dashed. latency
// also draws the latency knee's threshold, on the p99 panel (latencies scaled by k, as log10
// when logY).
func (s *sweepData) loadMarks(pn *panel, latency, logY bool, k float64) {
	v := &vlines{}
	for _, m := range s.LoadMarks() {
		dashes := dashed
		if m.Kind == chart.TodayMark {
			dashes = dotted
		}
		sty := lineStyle(m.Colour, thin, dashes)
		v.marks = append(v.marks, vmark{x: m.X, label: m.Label, style: sty})
		pn.key(m.Key, vlineKey{sty})
	}
	if len(v.marks) > 0 {
		pn.p.Add(v)
	}
	if limit, ok := s.LatencyThreshold(); latency && ok {
		y := limit * k
		if logY {
			y = math.Log10(y)
		}
		h := &hline{y: y, style: lineStyle(chart.Rejections, thin, dotted)}
		pn.p.Add(h)
		pn.key(fmt.Sprintf("latency knee threshold %.0f %s", limit*k, unitOf(pn.p.Y.Label.Text)), h)
	}
}

// unitOf returns the unit in a label such as "p99 latency (ms, log scale)": "ms".
func unitOf(label string) string {
	_, rest, ok := strings.Cut(label, "(")
	if !ok {
		return ""
	}
	unit, _, _ := strings.Cut(strings.TrimSuffix(rest, ")"), ",")
	return unit
}

// amplificationFigure: retry amplification against the first parameter.
func (s *sweepData) amplificationFigure() *figure {
	f := &figure{name: chart.SweepAmplification, title: "Retry amplification vs " + s.Versus(), subtitle: s.Subtitle()}
	label, _ := chart.MetricAxis("amplification", nil, false)
	pn := newPanel(s.PanelTitle(), "", label)
	applyX(pn.p, s.X)
	pn.p.Y.Min = 0
	ref := &hline{y: 1, style: lineStyle(chart.Reference, thin, dotted)}
	pn.p.Add(ref)
	s.addLines(pn, "amplification", 1, false, "no value: nothing issued")
	pn.key("1 = no retries", ref)
	f.rows = [][]*panel{{pn}}
	return f
}

// p99Figure: the p99 latency of successful operations against the first parameter.
func (s *sweepData) p99Figure() *figure {
	f := &figure{name: chart.SweepP99, title: "p99 latency of successful operations vs " + s.Versus(), subtitle: s.Subtitle()}
	var all [][]float64
	for _, l := range s.Lines {
		mean, lo, hi := l.Metric("latency_ok_p99")
		all = append(all, mean, lo, hi)
	}
	useLog, lo, hi := chart.LogScale(all...)
	label, k := chart.MetricAxis("latency_ok_p99", []float64{hi}, useLog)
	pn := newPanel(s.PanelTitle(), "", label)
	applyX(pn.p, s.X)
	switch {
	case math.IsNaN(lo):
		pn.empty("no successful operations")
	case useLog:
		logAxis(&pn.p.Y, lo*k, hi*k)
	default:
		pn.p.Y.Min = 0
	}
	s.addLines(pn, "latency_ok_p99", k, useLog, "no value: no operation succeeded")
	s.loadMarks(pn, true, useLog, k)
	f.rows = [][]*panel{{pn}}
	return f
}
