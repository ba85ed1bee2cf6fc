package plot

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/overloadsim/overloadsim/results/chart"
	"github.com/overloadsim/overloadsim/results/tune"
)

// WriteTuneFigures draws the tuning in dir (tune.json, as tune.WriteDir writes it) and
// writes its figure, as chart.TuneFigure builds it, as tune-pareto.svg and tune-pareto.png
// into dir. It returns the base names written ([chart.TunePareto]).
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

// tuneFigure renders the tuning's figure as chart.TuneFigure builds it.
func tuneFigure(t *tune.Tuning) (*figure, error) {
	cf, err := chart.TuneFigure(t)
	if err != nil {
		return nil, fmt.Errorf("plot: %w", err)
	}
	return render(cf), nil
}

// The marks of a scatter of estimates (chart.Panel's Crosses, Bounds, Outline, Rings and
// Labels), as renderPanel draws them: renderCrosses before the series, renderMarks after them.

// renderCrosses draws the panel's crosses, under its series.
func renderCrosses(pn *panel, c *chart.Panel) {
	for _, cs := range c.Crosses {
		x := &crosses{style: style(cs.Style), glyph: *glyph(&cs.Glyph, cs.Colour)}
		for _, e := range cs.Points {
			x.xs, x.xh, x.ys, x.yh = append(x.xs, e.X), append(x.xh, e.XHalf), append(x.ys, e.Y), append(x.yh, e.YHalf)
		}
		pn.p.Add(x)
	}
}

// renderMarks draws the panel's bounds (the horizontal ones, then the vertical ones together)
// and its outline over the series, and adds its bounds' labels, rings and point labels to
// what is drawn over everything.
func renderMarks(pn *panel, c *chart.Panel) {
	var v vlines
	for _, b := range c.Bounds {
		if b.Vertical {
			v.marks = append(v.marks, vmark{x: b.At, label: b.Label, style: style(b.Style)})
			continue
		}
		pn.p.Add(&hline{y: b.At, style: style(b.Style)})
		pn.over = append(pn.over, &boundLabel{y: b.At, text: b.Label, colour: b.Colour})
	}
	if len(v.marks) > 0 {
		pn.p.Add(&v)
	}
	if o := c.Outline; o != nil {
		pn.p.Add(&frame{x: o.X, y: o.Y, style: style(o.Style)})
	}
	for _, r := range c.Rings {
		rs := &rings{glyph: *glyph(&r.Glyph, r.Colour)}
		for _, pt := range r.Points {
			rs.xs, rs.ys = append(rs.xs, pt.X), append(rs.ys, pt.Y)
		}
		pn.over = append(pn.over, rs)
	}
	if len(c.Labels) > 0 {
		l := &pointLabels{}
		for _, pl := range c.Labels {
			l.xs, l.ys = append(l.xs, pl.X), append(l.ys, pl.Y)
			l.texts, l.bold = append(l.texts, pl.Text), append(l.bold, pl.Bold)
		}
		pn.over = append(pn.over, l)
	}
}

// setRanges gives the plot's axes the extents the panel fixes (chart.Axis.Range), over the
// data's, once every element is added.
func setRanges(p *plot.Plot, c *chart.Panel) {
	if r := c.X.Range; r != nil {
		p.X.Min, p.X.Max = r.Min, r.Max
	}
	if r := c.Y.Range; r != nil {
		p.Y.Min, p.Y.Max = r.Min, r.Max
	}
}

// markKey is the legend icon of a key of one of the marks' kinds (chart.KeyCrosses,
// KeyOutline), none for chart.KeyText.
func markKey(k chart.Key) []plot.Thumbnailer {
	switch k.Kind {
	case chart.KeyCrosses:
		return []plot.Thumbnailer{&crosses{style: style(k.Style), glyph: *glyph(k.Glyph, k.Colour)}}
	case chart.KeyOutline:
		return []plot.Thumbnailer{&frame{style: style(k.Style)}}
	}
	return nil
}

// glyphDrawer is gonum's drawer of a chart glyph's shape: a ring of the glyph's width for
// chart.Hollow and chart.Open.
func glyphDrawer(g *chart.Glyph) draw.GlyphDrawer {
	switch g.Shape {
	case chart.Hollow:
		return hollow{width: vg.Points(g.Width)}
	case chart.Open:
		return hollow{width: vg.Points(g.Width), clear: true}
	}
	return glyphShapes[g.Shape]
}

// frame draws a rectangle over the data (a close-up's area).
type frame struct {
	x, y  chart.Range
	style draw.LineStyle
}

// Plot draws the rectangle (plot.Plotter).
func (f *frame) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	x0, x1, y0, y1 := trX(f.x.Min), trX(f.x.Max), trY(f.y.Min), trY(f.y.Max)
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

// crosses draws points with error bars both ways: a glyph at each mean, a horizontal bar over
// its x interval and a vertical bar over its y interval, with caps.
type crosses struct {
	xs, xh, ys, yh []float64 // means and half-widths
	style          draw.LineStyle
	glyph          draw.GlyphStyle
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
