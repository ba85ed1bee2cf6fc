package plot

import (
	"fmt"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/overloadsim/overloadsim/results/chart"
)

// render lays a figure built as data (chart.Figure) out for gonum: its panels by row, each
// with its axes, windows, reference lines, series and legend, drawn as given.
func render(f *chart.Figure) *figure {
	out := &figure{name: f.Name, title: f.Title, subtitle: f.Subtitle, weights: f.Weights, below: f.KeysBelow}
	for _, row := range f.Grid() {
		var pns []*panel
		for _, cp := range row {
			pns = append(pns, renderPanel(cp))
		}
		out.rows = append(out.rows, pns)
	}
	return out
}

// renderPanel draws one panel in the order chart.Panel gives.
func renderPanel(c *chart.Panel) *panel {
	pn := newPanel(c.Title, c.X.Label, c.Y.Label)
	renderAxis(&pn.p.X, c.X)
	if c.X.Categorical {
		slant(&pn.p.X, c.X.Ticks)
	}
	renderAxis(&pn.p.Y, c.Y)
	if len(c.Windows) > 0 {
		ws := make([]window, len(c.Windows))
		for i, w := range c.Windows {
			ws[i] = window{start: w.Start, end: w.End, label: w.Label, fill: w.Fill, edge: w.Edge}
		}
		pn.p.Add(&windows{ws: ws})
		if c.WindowLabels {
			pn.over = append(pn.over, &windowLabels{ws: ws})
		}
	}
	ys := func(v []float64) []float64 { return v }
	if c.Y.Log {
		ys = logValues
	}
	for _, r := range c.Refs {
		pn.p.Add(ref(r, ys))
	}
	renderCrosses(pn, c)
	for _, s := range c.Series {
		pn.p.Add(series(s, ys))
	}
	renderMarks(pn, c)
	setRanges(pn.p, c)
	for _, k := range c.Keys {
		switch k.Kind {
		case chart.KeyFill:
			pn.key(k.Label, windowThumb{fill: k.Colour})
		case chart.KeyInstant:
			pn.key(k.Label, windowThumb{edge: k.Colour, instant: true})
		case chart.KeyBand:
			pn.key(k.Label, &band{fill: k.Fill}, &line{style: style(k.Style), glyph: glyph(k.Glyph, k.Colour)})
		case chart.KeyWhisker:
			pn.key(k.Label, &whiskers{style: style(k.Style), glyph: *glyph(k.Glyph, k.Colour)})
		case chart.KeyGlyph:
			pn.key(k.Label, &markers{glyph: *glyph(k.Glyph, k.Colour)})
		case chart.KeyCrosses, chart.KeyOutline, chart.KeyText:
			pn.key(k.Label, markKey(k)...)
		default:
			pn.key(k.Label, &line{style: style(k.Style), glyph: glyph(k.Glyph, k.Colour)})
		}
	}
	if c.Empty != "" {
		pn.empty(c.Empty)
	}
	for _, l := range c.Layers {
		pn.p.Add(layer(l, ys)...)
	}
	return pn
}

// ref is a reference line, its y as ys draws the panel's values.
func ref(r chart.Ref, ys func([]float64) []float64) *hline {
	return &hline{y: ys([]float64{r.Y})[0], style: style(r.Style)}
}

// series is a line, its values as ys draws the panel's.
func series(s chart.Series, ys func([]float64) []float64) *line {
	return &line{xs: s.X, ys: ys(s.Y), style: style(s.Style), glyph: glyph(s.Glyph, s.Colour)}
}

// layer is the plotters of one of a panel's layers, in the order they are drawn, its values as
// ys draws the panel's.
func layer(l chart.Layer, ys func([]float64) []float64) []plot.Plotter {
	switch l := l.(type) {
	case chart.Series:
		return []plot.Plotter{series(l, ys)}
	case chart.Ref:
		return []plot.Plotter{ref(l, ys)}
	case chart.Interval:
		g := *glyph(&l.Glyph, l.Colour)
		if l.Whiskers {
			return []plot.Plotter{&whiskers{xs: l.X, ys: ys(l.Y), lo: ys(l.Lo), hi: ys(l.Hi), style: style(l.Style), glyph: g}}
		}
		return []plot.Plotter{&band{xs: l.X, lo: ys(l.Lo), hi: ys(l.Hi), fill: l.Fill},
			&line{xs: l.X, ys: ys(l.Y), style: style(l.Style), glyph: &g}}
	case chart.Levels:
		return []plot.Plotter{&levels{xs: l.X, ys: ys(l.Y), halfWidth: l.HalfWidth, style: style(l.Style)}}
	case chart.Markers:
		return []plot.Plotter{&markers{xs: l.X, ys: ys(l.Y), glyph: *glyph(&l.Glyph, l.Colour)}}
	case chart.Absent:
		return []plot.Plotter{&missing{xs: l.X, glyph: *glyph(&l.Glyph, l.Colour)}}
	case chart.VMarks:
		v := &vlines{}
		for _, m := range l {
			v.marks = append(v.marks, vmark{x: m.X, label: m.Label, style: style(m.Style)})
		}
		return []plot.Plotter{v}
	}
	panic(fmt.Sprintf("plot: a layer of type %T", l))
}

// categorySlack is the part of a figure's width that is not the x axis: the y axis and its
// label, and the legend beside the plot.
const categorySlack = 3.5 * vg.Inch

// slant slants the category names of the x axis a when any is wider than its share of the
// axis, so that each ends under its own category rather than running into the next.
func slant(a *plot.Axis, ticks []chart.Tick) {
	slot := (figWidth - categorySlack) / vg.Length(len(ticks))
	for _, t := range ticks {
		if a.Tick.Label.Width(t.Label) > 0.9*slot {
			a.Tick.Label.Rotation = math.Pi / 6
			a.Tick.Label.XAlign, a.Tick.Label.YAlign = draw.XRight, draw.YTop
			return
		}
	}
}

// renderAxis sets a gonum axis from chart's: a log axis over Cover's extremes, or a linear one
// reaching at least Cover, with Ticks when given.
func renderAxis(a *plot.Axis, c chart.Axis) {
	if c.Log && len(c.Cover) > 0 {
		logAxis(a, slices.Min(c.Cover), slices.Max(c.Cover))
		return
	}
	for _, v := range c.Cover {
		a.Min, a.Max = min(a.Min, v), max(a.Max, v)
	}
	if c.Ticks != nil {
		ticks := make(plot.ConstantTicks, len(c.Ticks))
		for i, t := range c.Ticks {
			ticks[i] = plot.Tick{Value: t.Value, Label: t.Label}
		}
		a.Tick.Marker = ticks
	}
}

// style is chart's line style in gonum's terms.
func style(s chart.Style) draw.LineStyle {
	var dashes []vg.Length
	switch s.Dash {
	case chart.Dashed:
		dashes = dashed
	case chart.Dotted:
		dashes = dotted
	}
	return lineStyle(s.Colour, vg.Points(s.Width), dashes)
}

// glyphShapes are gonum's drawers of chart's shapes.
var glyphShapes = map[chart.Shape]draw.GlyphDrawer{
	chart.Circle:   draw.CircleGlyph{},
	chart.Box:      draw.BoxGlyph{},
	chart.Pyramid:  draw.PyramidGlyph{},
	chart.Square:   draw.SquareGlyph{},
	chart.Triangle: draw.TriangleGlyph{},
	chart.Cross:    draw.CrossGlyph{},
	chart.Ring:     draw.RingGlyph{},
}

// glyph is chart's point marker in colour c as gonum draws it; nil for none.
func glyph(g *chart.Glyph, c color.NRGBA) *draw.GlyphStyle {
	if g == nil {
		return nil
	}
	return &draw.GlyphStyle{Color: c, Radius: vg.Points(g.Radius), Shape: glyphDrawer(g)}
}
