package plot

import (
	"image/color"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/overloadsim/overloadsim/results/chart"
)

// render lays a figure built as data (chart.Figure) out for gonum: its panels by row, each
// with its axes, windows, reference lines, series and legend, drawn as given.
func render(f *chart.Figure) *figure {
	out := &figure{name: f.Name, title: f.Title, subtitle: f.Subtitle, weights: f.Weights}
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
	for _, r := range c.Refs {
		pn.p.Add(&hline{y: r.Y, style: style(r.Style)})
	}
	renderCrosses(pn, c)
	for _, s := range c.Series {
		ys := s.Y
		if c.Y.Log {
			ys = logValues(ys)
		}
		pn.p.Add(&line{xs: s.X, ys: ys, style: style(s.Style), glyph: glyph(s.Glyph, s.Colour)})
	}
	renderMarks(pn, c)
	setRanges(pn.p, c)
	for _, k := range c.Keys {
		switch k.Kind {
		case chart.KeyFill:
			pn.key(k.Label, windowThumb{fill: k.Colour})
		case chart.KeyInstant:
			pn.key(k.Label, windowThumb{edge: k.Colour, instant: true})
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
	return pn
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
