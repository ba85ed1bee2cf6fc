package plot

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/overloadsim/overloadsim/results/chart"
)

// The plotters here draw what gonum/plot's own do not: lines with gaps where a value is
// missing (an interval without operations has no latency), confidence bands, shaded fault
// windows with their labels, reference lines and notes.

// valid reports whether v can be drawn: finite.
func valid(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// grid draws light lines at the labelled ticks of both axes, under the data.
type grid struct{}

func (grid) Plot(c draw.Canvas, p *plot.Plot) {
	sty := lineStyle(chart.Grid, vg.Points(0.6), nil)
	for _, t := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
		if t.IsMinor() || t.Value < p.X.Min || t.Value > p.X.Max {
			continue
		}
		x := c.X(p.X.Norm(t.Value))
		c.StrokeLine2(sty, x, c.Min.Y, x, c.Max.Y)
	}
	for _, t := range p.Y.Tick.Marker.Ticks(p.Y.Min, p.Y.Max) {
		if t.IsMinor() || t.Value < p.Y.Min || t.Value > p.Y.Max {
			continue
		}
		y := c.Y(p.Y.Norm(t.Value))
		c.StrokeLine2(sty, c.Min.X, y, c.Max.X, y)
	}
}

// line joins the points (xs[i], ys[i]) in order, leaving a gap where a y is missing.
type line struct {
	xs, ys []float64
	style  draw.LineStyle
	glyph  *draw.GlyphStyle // drawn at every point when set
}

// segments returns the runs of consecutive drawable points.
func (l *line) segments() [][2]int {
	var out [][2]int
	start := -1
	for i := range l.xs {
		ok := valid(l.xs[i]) && valid(l.ys[i])
		switch {
		case ok && start < 0:
			start = i
		case !ok && start >= 0:
			out = append(out, [2]int{start, i})
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, [2]int{start, len(l.xs)})
	}
	return out
}

func (l *line) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	dot := draw.GlyphStyle{Color: l.style.Color, Radius: l.style.Width, Shape: draw.CircleGlyph{}}
	for _, s := range l.segments() {
		pts := make([]vg.Point, 0, s[1]-s[0])
		for i := s[0]; i < s[1]; i++ {
			pts = append(pts, vg.Point{X: trX(l.xs[i]), Y: trY(l.ys[i])})
		}
		if len(pts) == 1 && l.glyph == nil {
			if c.Contains(pts[0]) {
				c.DrawGlyph(dot, pts[0])
			}
			continue
		}
		c.StrokeLines(l.style, c.ClipLinesXY(pts)...)
	}
	if l.glyph != nil {
		for i := range l.xs {
			if valid(l.xs[i]) && valid(l.ys[i]) {
				if pt := (vg.Point{X: trX(l.xs[i]), Y: trY(l.ys[i])}); c.Contains(pt) {
					c.DrawGlyph(*l.glyph, pt)
				}
			}
		}
	}
}

func (l *line) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin = math.Inf(1), math.Inf(1)
	xmax, ymax = math.Inf(-1), math.Inf(-1)
	for i := range l.xs {
		if valid(l.xs[i]) && valid(l.ys[i]) {
			xmin, xmax = math.Min(xmin, l.xs[i]), math.Max(xmax, l.xs[i])
			ymin, ymax = math.Min(ymin, l.ys[i]), math.Max(ymax, l.ys[i])
		}
	}
	return
}

func (l *line) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	if l.glyph == nil {
		return nil
	}
	var out []plot.GlyphBox
	for i := range l.xs {
		if valid(l.xs[i]) && valid(l.ys[i]) {
			out = append(out, plot.GlyphBox{X: p.X.Norm(l.xs[i]), Y: p.Y.Norm(l.ys[i]), Rectangle: l.glyph.Rectangle()})
		}
	}
	return out
}

func (l *line) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(l.style, c.Min.X, y, c.Max.X, y)
	if l.glyph != nil {
		c.DrawGlyphNoClip(*l.glyph, c.Center())
	}
}

// band fills between lo and hi (a confidence band), leaving a gap where either is missing.
type band struct {
	xs, lo, hi []float64
	fill       color.Color
}

func (b *band) ok(i int) bool {
	return valid(b.xs[i]) && valid(b.lo[i]) && valid(b.hi[i])
}

func (b *band) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for i := 0; i < len(b.xs); {
		j := i
		for j < len(b.xs) && b.ok(j) {
			j++
		}
		if j-i >= 2 {
			var pts []vg.Point
			for k := i; k < j; k++ {
				pts = append(pts, vg.Point{X: trX(b.xs[k]), Y: trY(b.hi[k])})
			}
			for k := j - 1; k >= i; k-- {
				pts = append(pts, vg.Point{X: trX(b.xs[k]), Y: trY(b.lo[k])})
			}
			c.FillPolygon(b.fill, c.ClipPolygonXY(pts))
		}
		i = j + 1
	}
}

func (b *band) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin = math.Inf(1), math.Inf(1)
	xmax, ymax = math.Inf(-1), math.Inf(-1)
	for i := range b.xs {
		if b.ok(i) {
			xmin, xmax = math.Min(xmin, b.xs[i]), math.Max(xmax, b.xs[i])
			ymin, ymax = math.Min(ymin, b.lo[i]), math.Max(ymax, b.hi[i])
		}
	}
	return
}

func (b *band) Thumbnail(c *draw.Canvas) {
	h := (c.Max.Y - c.Min.Y) / 2
	r := vg.Rectangle{Min: vg.Point{X: c.Min.X, Y: c.Center().Y - h/1.2}, Max: vg.Point{X: c.Max.X, Y: c.Center().Y + h/1.2}}
	c.FillPolygon(b.fill, []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}})
}

// window is a stretch of the time axis to shade: a fault's window or the warm-up. An instant
// (End = Start) is drawn as a dashed vertical line.
type window struct {
	start, end float64 // seconds
	label      string
	fill, edge color.Color
}

// windows shades time windows across the data area, under the data.
type windows struct{ ws []window }

func clampX(c draw.Canvas, x vg.Length) vg.Length { return max(c.Min.X, min(c.Max.X, x)) }

func (w *windows) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	for _, win := range w.ws {
		x0, x1 := clampX(c, trX(win.start)), clampX(c, trX(win.end))
		if win.end > win.start {
			if x1 > x0 {
				c.FillPolygon(win.fill, []vg.Point{{X: x0, Y: c.Min.Y}, {X: x1, Y: c.Min.Y}, {X: x1, Y: c.Max.Y}, {X: x0, Y: c.Max.Y}})
			}
			continue
		}
		if c.ContainsX(x0) {
			c.StrokeLine2(lineStyle(win.edge, thin, dashed), x0, c.Min.Y, x0, c.Max.Y)
		}
	}
}

// windowLabels writes the windows' labels along the top of the data area, over the data, each
// on a white ground in the first row where it does not overlap the label before it.
type windowLabels struct{ ws []window }

func (w *windowLabels) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	sty := textStyle(noteSize-1, false)
	sty.YAlign = draw.YTop
	lineH := sty.Rectangle("Mg").Size().Y + vg.Points(3)
	var lanes []vg.Length // right edge of the last label in each row
	for _, win := range w.ws {
		if win.label == "" {
			continue
		}
		sty.Color = win.edge
		width := sty.Rectangle(win.label).Size().X
		x := clampX(c, trX(win.start)) + vg.Points(4)
		x = max(c.Min.X+vg.Points(2), min(x, c.Max.X-width-vg.Points(2)))
		lane := 0
		for lane < len(lanes) && x < lanes[lane]+vg.Points(8) {
			lane++
		}
		if lane == len(lanes) {
			lanes = append(lanes, 0)
		}
		lanes[lane] = x + width
		y := c.Max.Y - vg.Points(3) - vg.Length(vg.Length(lane)*lineH)
		bg := color.White
		pad := vg.Points(1.5)
		c.FillPolygon(bg, []vg.Point{{X: x - pad, Y: y - lineH + vg.Points(2)}, {X: x + width + pad, Y: y - lineH + vg.Points(2)},
			{X: x + width + pad, Y: y + pad}, {X: x - pad, Y: y + pad}})
		c.FillText(sty, vg.Point{X: x, Y: y}, win.label)
	}
}

// windowThumb is the legend icon of a shaded window (or, instant, of its dashed line).
type windowThumb struct {
	fill, edge color.Color
	instant    bool
}

func (t windowThumb) Thumbnail(c *draw.Canvas) {
	if t.instant {
		x := c.Center().X
		c.StrokeLine2(lineStyle(t.edge, medium, nil), x, c.Min.Y-vg.Points(1), x, c.Max.Y+vg.Points(1))
		return
	}
	c.FillPolygon(t.fill, []vg.Point{c.Min, {X: c.Max.X, Y: c.Min.Y}, c.Max, {X: c.Min.X, Y: c.Max.Y}})
}

// hline is a horizontal reference line at y across the whole data area.
type hline struct {
	y     float64
	style draw.LineStyle
}

func (h *hline) Plot(c draw.Canvas, p *plot.Plot) {
	_, trY := p.Transforms(&c)
	if y := trY(h.y); c.ContainsY(y) {
		c.StrokeLine2(h.style, c.Min.X, y, c.Max.X, y)
	}
}

func (h *hline) DataRange() (xmin, xmax, ymin, ymax float64) {
	return math.Inf(1), math.Inf(-1), h.y, h.y
}

func (h *hline) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(h.style, c.Min.X, y, c.Max.X, y)
}

// markers draws a glyph at each point (a knee's ring).
type markers struct {
	xs, ys []float64
	glyph  draw.GlyphStyle
}

func (m *markers) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for i := range m.xs {
		if !valid(m.xs[i]) || !valid(m.ys[i]) {
			continue
		}
		c.DrawGlyph(m.glyph, vg.Point{X: trX(m.xs[i]), Y: trY(m.ys[i])})
	}
}

func (m *markers) DataRange() (xmin, xmax, ymin, ymax float64) {
	l := line{xs: m.xs, ys: m.ys}
	return l.DataRange()
}

func (m *markers) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	l := line{xs: m.xs, ys: m.ys, glyph: &m.glyph}
	return l.GlyphBoxes(p)
}

func (m *markers) Thumbnail(c *draw.Canvas) { c.DrawGlyphNoClip(m.glyph, c.Center()) }

// note writes a message in the middle of the data area (a panel with nothing to draw).
type note struct{ text string }

func (n note) Plot(c draw.Canvas, _ *plot.Plot) {
	sty := textStyle(noteSize+1, false)
	sty.Color = chart.Note
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YCenter
	c.FillText(sty, c.Center(), n.text)
}

// whiskers draws a glyph at each mean and a vertical bar with caps from lo to hi: the points of
// a sweep whose x is categorical, where a line between the categories would mean nothing.
type whiskers struct {
	xs, ys, lo, hi []float64
	style          draw.LineStyle
	glyph          draw.GlyphStyle
}

func (w *whiskers) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	capLen := vg.Points(4)
	for i := range w.xs {
		if !valid(w.xs[i]) || !valid(w.ys[i]) {
			continue
		}
		x := trX(w.xs[i])
		if valid(w.lo[i]) && valid(w.hi[i]) && w.hi[i] > w.lo[i] {
			lo, hi := trY(w.lo[i]), trY(w.hi[i])
			c.StrokeLines(w.style, c.ClipLinesXY([]vg.Point{{X: x, Y: lo}, {X: x, Y: hi}})...)
			for _, y := range []vg.Length{lo, hi} {
				c.StrokeLines(w.style, c.ClipLinesXY([]vg.Point{{X: x - capLen, Y: y}, {X: x + capLen, Y: y}})...)
			}
		}
		if pt := (vg.Point{X: x, Y: trY(w.ys[i])}); c.Contains(pt) {
			c.DrawGlyph(w.glyph, pt)
		}
	}
}

func (w *whiskers) DataRange() (xmin, xmax, ymin, ymax float64) {
	b := band{xs: w.xs, lo: w.lo, hi: w.hi}
	xmin, xmax, ymin, ymax = b.DataRange()
	l := line{xs: w.xs, ys: w.ys}
	x0, x1, y0, y1 := l.DataRange()
	return math.Min(xmin, x0), math.Max(xmax, x1), math.Min(ymin, y0), math.Max(ymax, y1)
}

func (w *whiskers) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	l := line{xs: w.xs, ys: w.ys, glyph: &w.glyph}
	return l.GlyphBoxes(p)
}

func (w *whiskers) Thumbnail(c *draw.Canvas) {
	x := c.Center().X
	c.StrokeLine2(w.style, x, c.Min.Y, x, c.Max.Y)
	c.DrawGlyphNoClip(w.glyph, c.Center())
}

// levels draws a short horizontal segment, halfWidth either side in x units, at each (x, y):
// a reference value per category.
type levels struct {
	xs, ys    []float64
	halfWidth float64
	style     draw.LineStyle
}

func (l *levels) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for i := range l.xs {
		if valid(l.xs[i]) && valid(l.ys[i]) {
			y := trY(l.ys[i])
			c.StrokeLines(l.style, c.ClipLinesXY([]vg.Point{{X: trX(l.xs[i] - l.halfWidth), Y: y}, {X: trX(l.xs[i] + l.halfWidth), Y: y}})...)
		}
	}
}

func (l *levels) DataRange() (xmin, xmax, ymin, ymax float64) {
	ln := line{xs: l.xs, ys: l.ys}
	return ln.DataRange()
}

func (l *levels) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(l.style, c.Min.X, y, c.Max.X, y)
}

// missing marks, along the bottom of the data area, the x positions where a metric has no
// value (no successful operation, so no latency).
type missing struct {
	xs    []float64
	glyph draw.GlyphStyle
}

func (m *missing) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	for _, x := range m.xs {
		if pt := (vg.Point{X: trX(x), Y: c.Min.Y + m.glyph.Radius + vg.Points(3)}); c.ContainsX(pt.X) {
			c.DrawGlyph(m.glyph, pt)
		}
	}
}

func (m *missing) Thumbnail(c *draw.Canvas) { c.DrawGlyphNoClip(m.glyph, c.Center()) }

// vmark is one vertical marker line with a label at its top ("today 500/s").
type vmark struct {
	x     float64
	label string
	style draw.LineStyle
}

// vlines draws vertical marker lines across the data area, each labelled at the top. Labels
// never overlap: a label that would run into one already placed goes one text line lower, and
// one that still finds no room within the top third of the area is left out (the key names
// every marker in any case).
type vlines struct {
	marks []vmark
}

func (v *vlines) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	type box struct{ x0, x1, row float64 }
	var placed []box
	for _, m := range v.marks {
		x := trX(m.x)
		if !valid(m.x) || !c.ContainsX(x) {
			continue
		}
		c.StrokeLine2(m.style, x, c.Min.Y, x, c.Max.Y)
		if m.label == "" {
			continue
		}
		sty := textStyle(noteSize, true)
		sty.Color = m.style.Color
		sty.YAlign = draw.YTop
		r := sty.Rectangle(m.label)
		w, h := r.Size().X, r.Size().Y
		x0 := x + vg.Points(3)
		if x0+w > c.Max.X {
			x0 = x - vg.Points(3) - w
		}
		rows := int(float64((c.Max.Y-c.Min.Y)/3) / float64(h))
		for row := 0; row < rows; row++ {
			free := true
			for _, b := range placed {
				if b.row == float64(row) && float64(x0) < b.x1+2 && float64(x0+w) > b.x0-2 {
					free = false
					break
				}
			}
			if free {
				placed = append(placed, box{float64(x0), float64(x0 + w), float64(row)})
				c.FillText(sty, vg.Point{X: x0, Y: c.Max.Y - vg.Points(2) - vg.Length(vg.Length(row)*h)}, m.label)
				break
			}
		}
	}
}

func (v *vlines) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax, ymin, ymax = math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, m := range v.marks {
		xmin, xmax = math.Min(xmin, m.x), math.Max(xmax, m.x)
	}
	return
}
