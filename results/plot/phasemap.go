package plot

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/chart"
	"github.com/overloadsim/overloadsim/results/phasemap"
)

// WriteMapFigures draws the metastability map in dir (map.json, as phasemap.Write writes
// it) and writes it as map.svg and map.png into dir. It returns the base names written
// ([chart.Map]). labels name its parameters (path → name, --label; nil for the short names).
func WriteMapFigures(dir string, labels map[string]string) ([]string, error) {
	m, err := phasemap.Read(dir)
	if err != nil {
		return nil, fmt.Errorf("plot: %w", err)
	}
	f, err := newMapFig(m, labels)
	if err != nil {
		return nil, err
	}
	man, err := results.ReadManifest(dir)
	if err != nil {
		return nil, fmt.Errorf("plot: %w", err)
	}
	svg, err := f.svg()
	if err != nil {
		return nil, fmt.Errorf("plot: %s.svg: %w", chart.Map, err)
	}
	if err := writeBytes(filepath.Join(dir, chart.Map+".svg"), results.MarkSVG(svg, man.ResultDigest())); err != nil {
		return nil, err
	}
	png, err := f.png()
	if err != nil {
		return nil, fmt.Errorf("plot: %s.png: %w", chart.Map, err)
	}
	if err := writeBytes(filepath.Join(dir, chart.Map+".png"), results.MarkPNG(png, man.ResultDigest())); err != nil {
		return nil, err
	}
	return []string{chart.Map}, nil
}

// MapSVG draws the map figure of m as SVG: the bytes WriteMapFigures writes to map.svg but
// for its result mark (results.MarkSVG), for a caller (the report) that wants the figure
// without writing files.
func MapSVG(m phasemap.Map) ([]byte, error) {
	f, err := newMapFig(m, nil)
	if err != nil {
		return nil, err
	}
	return f.svg()
}

// Styles of the map figure. The boundary is black on a white halo, so that it shows on pale
// and dark cells alike.
var (
	boundaryStyle = lineStyle(color.Black, vg.Points(3), nil)
	boundaryHalo  = lineStyle(color.White, vg.Points(6), nil)
	cellEdge      = lineStyle(color.White, vg.Points(1), nil)
)

// mapFig renders a chart.MapFigure: one gonum plot per panel, the colour bar and the legend.
type mapFig struct {
	*chart.MapFigure
	panels []*plot.Plot
	legend plot.Legend
}

func newMapFig(m phasemap.Map, labels map[string]string) (*mapFig, error) {
	cf, err := chart.BuildMap(m, labels)
	if err != nil {
		return nil, fmt.Errorf("plot: %w", err)
	}
	f := &mapFig{MapFigure: cf}
	for k := range cf.Panels {
		pn := &cf.Panels[k]
		p := newPlot(pn.Title, cf.X.Label, cf.Y.Label)
		p.X.Tick.Marker, p.Y.Tick.Marker = mapTicks(cf.X.Ticks), mapTicks(cf.Y.Ticks)
		p.X.Min, p.X.Max = -0.5, float64(cf.X.Cells)-0.5
		p.Y.Min, p.Y.Max = -0.5, float64(cf.Y.Cells)-0.5
		p.X.Padding, p.Y.Padding = 0, 0
		p.Add(&mapCells{pn: pn})
		if cf.Boundary {
			p.Add(&mapBoundary{pn: pn})
		}
		p.Add(&mapCells{pn: pn, labels: true})
		f.panels = append(f.panels, p)
	}
	f.legend = newLegend()
	f.legend.Padding = vg.Points(6)
	for _, k := range cf.Keys {
		f.legend.Add(k.Label, mapThumb{k})
	}
	return f, nil
}

func mapTicks(ts []chart.Tick) plot.ConstantTicks {
	var out plot.ConstantTicks
	for _, t := range ts {
		out = append(out, plot.Tick{Value: t.Value, Label: t.Label})
	}
	return out
}

// mapCells draws the cells of one panel: filled, hatched where not run. With labels set it
// draws, instead, what is written in them (newMapFig adds it over the boundary, so that the
// line never hides a number): the text in the middle, k/n along the bottom, "?" in the top
// right corner where replications were undecided, each on a patch of the cell's colour, and a
// dashed frame inside a cell whose interval holds ½.
type mapCells struct {
	pn     *chart.MapPanel
	labels bool
}

func (mc *mapCells) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	num := textStyle(noteSize, false)
	num.XAlign, num.YAlign = draw.XCenter, draw.YCenter
	corner := textStyle(noteSize, true)
	corner.XAlign, corner.YAlign = draw.XRight, draw.YTop
	count := textStyle(noteSize-2, false)
	count.XAlign, count.YAlign = draw.XCenter, draw.YBottom
	for _, cell := range mc.pn.Cells {
		xi, yi := float64(cell.X), float64(cell.Y)
		r := vg.Rectangle{
			Min: vg.Point{X: trX(xi - 0.5), Y: trY(yi - 0.5)},
			Max: vg.Point{X: trX(xi + 0.5), Y: trY(yi + 0.5)},
		}
		if !mc.labels {
			if !cell.Ran {
				c.FillPolygon(chart.NotRunFill, rectPath(r))
				hatch(c, r, chart.NotRunHatch)
			} else {
				c.FillPolygon(cell.Fill, rectPath(r))
			}
			c.StrokeLines(cellEdge, append(rectPath(r), r.Min))
			continue
		}
		if !cell.Ran {
			continue
		}
		if cell.Text != "" {
			num.Color = cell.Ink
			label(c, num, cell.Fill, vg.Point{X: (r.Min.X + r.Max.X) / 2, Y: (r.Min.Y + r.Max.Y) / 2}, cell.Text)
		}
		if cell.Undecided {
			corner.Color = cell.Ink
			label(c, corner, cell.Fill, vg.Point{X: r.Max.X - vg.Points(4), Y: r.Max.Y - vg.Points(3)}, "?")
		}
		if cell.Count != "" {
			count.Color = cell.Ink
			label(c, count, cell.Fill, vg.Point{X: (r.Min.X + r.Max.X) / 2, Y: r.Min.Y + vg.Points(4)}, cell.Count)
		}
		if cell.Straddle {
			straddleFrame(c, r, cell.Ink)
		}
	}
}

// label writes s at pt in sty on a patch of bg a little larger than the text.
func label(c draw.Canvas, sty draw.TextStyle, bg color.Color, pt vg.Point, s string) {
	r := sty.Rectangle(s)
	pad := vg.Points(2)
	box := vg.Rectangle{Min: vg.Point{X: pt.X + r.Min.X - pad, Y: pt.Y + r.Min.Y - vg.Length(pad/2)},
		Max: vg.Point{X: pt.X + r.Max.X + pad, Y: pt.Y + r.Max.Y + vg.Length(pad/2)}}
	c.FillPolygon(bg, rectPath(box))
	c.FillText(sty, pt, s)
}

func rectPath(r vg.Rectangle) []vg.Point {
	return []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}}
}

// hatch strokes diagonal lines (lower left to upper right) across r, clipped to it.
func hatch(c draw.Canvas, r vg.Rectangle, col color.Color) {
	sty := lineStyle(col, vg.Points(0.8), nil)
	gap := vg.Points(6)
	w, h := r.Max.X-r.Min.X, r.Max.Y-r.Min.Y
	// Lines x − y = k (relative to r.Min) for k from −h to w.
	for k := -h + vg.Length(gap/2); k < w; k += gap {
		x0, y0 := max(0, k), max(0, -k)
		x1, y1 := min(w, h+k), min(h, w-k)
		if x1 <= x0 {
			continue
		}
		c.StrokeLine2(sty, r.Min.X+x0, r.Min.Y+y0, r.Min.X+x1, r.Min.Y+y1)
	}
}

// straddleFrame draws the mark of a cell whose 95 % interval for P(stuck) holds ½: a dashed
// frame inset in r, in the cell's ink.
func straddleFrame(c draw.Canvas, r vg.Rectangle, ink color.Color) {
	in := vg.Points(2.5)
	f := vg.Rectangle{Min: vg.Point{X: r.Min.X + in, Y: r.Min.Y + in}, Max: vg.Point{X: r.Max.X - in, Y: r.Max.Y - in}}
	c.StrokeLines(lineStyle(ink, vg.Points(1.2), []vg.Length{vg.Points(3), vg.Points(2)}), append(rectPath(f), f.Min))
}

// mapBoundary draws the 50 % boundary of one panel as its polylines, black on a white halo.
type mapBoundary struct{ pn *chart.MapPanel }

func (mb *mapBoundary) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	var paths [][]vg.Point
	for _, line := range mb.pn.Boundary {
		var ps []vg.Point
		for _, q := range line {
			ps = append(ps, vg.Point{X: trX(q.X), Y: trY(q.Y)})
		}
		paths = append(paths, ps)
	}
	for _, sty := range []draw.LineStyle{boundaryHalo, boundaryStyle} {
		for _, ps := range paths {
			c.StrokeLines(sty, c.ClipLinesXY(ps)...)
		}
	}
}

// mapThumb draws a map legend entry's sample: the boundary's line, a cell with a sample of
// its text, or a hatched cell.
type mapThumb struct{ k chart.MapKey }

func (t mapThumb) Thumbnail(c *draw.Canvas) {
	if t.k.Kind == chart.MapKeyBoundary {
		y := c.Center().Y
		c.StrokeLine2(boundaryStyle, c.Min.X, y, c.Max.X, y)
		return
	}
	r := vg.Rectangle{Min: vg.Point{X: c.Min.X, Y: c.Min.Y - vg.Points(2)}, Max: vg.Point{X: c.Max.X, Y: c.Max.Y + vg.Points(2)}}
	c.FillPolygon(t.k.Fill, rectPath(r))
	if t.k.Kind == chart.MapKeyHatch {
		hatch(*c, r, chart.NotRunHatch)
		return
	}
	if t.k.Kind == chart.MapKeyStraddle {
		straddleFrame(*c, r, t.k.Ink)
		return
	}
	sty := textStyle(noteSize-1, false)
	sty.Color = t.k.Ink
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YCenter
	c.FillText(sty, c.Center(), t.k.Text)
}

// Layout.

// Colour bar size.
var (
	barWidth  = vg.Points(16)
	barHeight = vg.Points(190)
)

// layout returns the number of rows and columns of panels: one row up to three panels, then
// a near-square grid.
func (f *mapFig) layout() (rows, cols int) {
	n := len(f.panels)
	if n <= 3 {
		return 1, n
	}
	cols = int(math.Ceil(math.Sqrt(float64(n))))
	return (n + cols - 1) / cols, cols
}

// gutterWidth is the width of the key right of the panels: the colour bar with its labels and
// the legend, whichever is wider.
func (f *mapFig) gutterWidth() vg.Length {
	tick := textStyle(tickSize, false)
	barW := barWidth + vg.Points(6) + tick.Rectangle("0.75 — boundary").Size().X
	head := textStyle(labelSize, true).Rectangle("P(stuck)").Size().X
	legW := f.legend.Rectangle(draw.Canvas{}).Size().X
	return max(barW, head, legW) + vg.Length(2*gutterPad)
}

func (f *mapFig) draw(dc draw.Canvas) {
	area := header(dc, f.Title, f.Subtitle)

	gutter := f.gutterWidth()
	rows, cols := f.layout()
	w := (area.Max.X - area.Min.X - gutter - vg.Length(vg.Length(cols-1)*colGap)) / vg.Length(cols)
	h := (area.Max.Y - area.Min.Y - vg.Length(vg.Length(rows-1)*rowGap)) / vg.Length(rows)

	// Panel titles by the last element of the third axis's path when a full one does not fit
	// (the subtitle names the path).
	if f.Panels[0].Title != "" {
		ts := textStyle(panelSize, true)
		short := false
		for _, pn := range f.Panels {
			short = short || ts.Rectangle(pn.Title).Size().X > w-vg.Points(8)
		}
		for k, pn := range f.Panels {
			f.panels[k].Title.Text = pn.Title
			if short {
				f.panels[k].Title.Text = pn.ShortTitle
			}
		}
	}
	// The y axis label on the first column only, the x axis label on the bottom row only
	// (small multiples share their axes); every panel keeps its tick labels.
	tiles := make([]draw.Canvas, len(f.panels))
	for i, pn := range f.panels {
		r, col := i/cols, i%cols
		if col > 0 {
			pn.Y.Label.Text = ""
		}
		if r < rows-1 && i+cols < len(f.panels) {
			pn.X.Label.Text = ""
		}
		x := area.Min.X + vg.Length(vg.Length(col)*(w+colGap))
		y := area.Max.Y - vg.Length(vg.Length(r)*(h+rowGap))
		tiles[i] = draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{Min: vg.Point{X: x, Y: y - h}, Max: vg.Point{X: x + w, Y: y}}}
	}
	// Line the data areas up: the largest offset on each side, everywhere.
	var off [4]vg.Length // left, bottom, right, top
	offs := make([][4]vg.Length, len(f.panels))
	for i, pn := range f.panels {
		c := tiles[i]
		d := pn.DataCanvas(c)
		offs[i] = [4]vg.Length{d.Min.X - c.Min.X, d.Min.Y - c.Min.Y, c.Max.X - d.Max.X, c.Max.Y - d.Max.Y}
		for k := range off {
			off[k] = max(off[k], offs[i][k])
		}
	}
	var firstData vg.Rectangle
	for i, pn := range f.panels {
		o := offs[i]
		c := draw.Crop(tiles[i], off[0]-o[0], -(off[2] - o[2]), off[1]-o[1], 0)
		pad := pn.Title.Padding
		if pn.Title.Text != "" {
			pn.Title.Padding += off[3] - o[3]
		} else {
			c = draw.Crop(c, 0, 0, 0, -(off[3] - o[3]))
		}
		pn.Draw(c)
		if i == 0 {
			firstData = pn.DataCanvas(c).Rectangle
		}
		pn.Title.Padding = pad
	}

	key := draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
		Min: vg.Point{X: area.Max.X - gutter + gutterPad, Y: area.Min.Y},
		Max: vg.Point{X: area.Max.X, Y: firstData.Max.Y},
	}}
	f.drawKey(key)
}

// drawKey draws the colour bar (P(stuck), 0 to 1, with the ½ of the boundary marked) at the
// top of c and the legend below it.
func (f *mapFig) drawKey(c draw.Canvas) {
	head := textStyle(labelSize, true)
	head.YAlign = draw.YTop
	c.FillText(head, vg.Point{X: c.Min.X, Y: c.Max.Y}, "P(stuck)")
	top := c.Max.Y - head.Rectangle("P(stuck)").Size().Y - vg.Points(8)
	bar := vg.Rectangle{Min: vg.Point{X: c.Min.X, Y: top - barHeight}, Max: vg.Point{X: c.Min.X + barWidth, Y: top}}
	const steps = 64
	for i := range steps {
		y0 := bar.Min.Y + vg.Length(barHeight*vg.Length(i)/steps)
		y1 := bar.Min.Y + vg.Length(barHeight*vg.Length(i+1)/steps)
		// Overlap the next step a little, so that no hairline of background shows between.
		if i < steps-1 {
			y1 += vg.Points(0.3)
		}
		c.FillPolygon(chart.StuckColour((float64(i)+0.5)/steps), rectPath(vg.Rectangle{
			Min: vg.Point{X: bar.Min.X, Y: y0}, Max: vg.Point{X: bar.Max.X, Y: y1}}))
	}
	c.StrokeLines(lineStyle(chart.Reference, vg.Points(0.6), nil), append(rectPath(bar), bar.Min))
	tick := textStyle(tickSize, false)
	tick.YAlign = draw.YCenter
	for _, v := range []float64{0, 0.25, 0.5, 0.75, 1} {
		y := bar.Min.Y + vg.Length(barHeight*vg.Length(v))
		label := formatTick(v, 0.25)
		sty := lineStyle(chart.Reference, vg.Points(0.6), nil)
		if v == 0.5 && f.Boundary {
			label += " — boundary"
			sty = boundaryStyle
			c.StrokeLine2(boundaryHalo, bar.Min.X-vg.Points(2), y, bar.Max.X+vg.Points(4), y)
			c.StrokeLine2(sty, bar.Min.X-vg.Points(2), y, bar.Max.X+vg.Points(4), y)
		} else {
			c.StrokeLine2(sty, bar.Max.X, y, bar.Max.X+vg.Points(4), y)
		}
		c.FillText(tick, vg.Point{X: bar.Max.X + vg.Points(6), Y: y}, label)
	}
	lc := c
	lc.Max.Y = bar.Min.Y - vg.Points(18)
	f.legend.Draw(lc)
}

// svg renders the figure as SVG, byte-stable like the run and sweep figures.
func (f *mapFig) svg() ([]byte, error) { return renderSVG(f.draw) }

// png renders the figure as a 1200 × 800 px PNG.
func (f *mapFig) png() ([]byte, error) { return renderPNG(f.draw) }
