package plot

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/brewer"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/chart"
	"github.com/overloadsim/overloadsim/results/phasemap"
)

// WriteMapFigures draws the metastability map in dir (map.json, as phasemap.Write writes
// it) and writes it as map.svg and map.png into dir. It returns the base names written
// ([chart.Map]).
func WriteMapFigures(dir string) ([]string, error) {
	m, err := phasemap.Read(dir)
	if err != nil {
		return nil, fmt.Errorf("plot: %w", err)
	}
	f, err := newMapFig(m)
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
	f, err := newMapFig(m)
	if err != nil {
		return nil, err
	}
	return f.svg()
}

// The P(stuck) scale: ColorBrewer's sequential YlOrRd (9 classes), interpolated linearly
// between its classes. Pale yellow (never stuck) to dark red (always stuck), its lightness
// falls monotonically, so it reads in greyscale and to most colour-blind readers.
var stuckStops = func() []color.NRGBA {
	var out []color.NRGBA
	for _, c := range brewer.YlOrRd[9].Colors() {
		out = append(out, color.NRGBAModel.Convert(c).(color.NRGBA))
	}
	return out
}()

// stuckColour returns the colour of P(stuck) = p on the fixed 0–1 scale.
func stuckColour(p float64) color.NRGBA {
	p = math.Max(0, math.Min(1, p))
	t := float64(p * float64(len(stuckStops)-1))
	i := min(int(t), len(stuckStops)-2)
	f := t - float64(i)
	a, b := stuckStops[i], stuckStops[i+1]
	mix := func(x, y uint8) uint8 { return uint8(math.Round(float64(x) + float64(f*(float64(y)-float64(x))))) }
	return color.NRGBA{mix(a.R, b.R), mix(a.G, b.G), mix(a.B, b.B), 0xff}
}

// inkOn returns the text colour that reads on a fill: white on dark fills, black on light ones.
func inkOn(c color.NRGBA) color.Color {
	if float64(0.299*float64(c.R))+float64(0.587*float64(c.G))+float64(0.114*float64(c.B)) < 140 {
		return color.White
	}
	return color.Black
}

// Colours and styles of the map figure.
var (
	notRunFill  = color.NRGBA{0xee, 0xee, 0xee, 0xff}
	notRunHatch = color.NRGBA{0x9a, 0x9a, 0x9a, 0xff}
	// The boundary is black on a white halo, so that it shows on pale and dark cells alike.
	boundaryStyle = lineStyle(color.Black, vg.Points(3), nil)
	boundaryHalo  = lineStyle(color.White, vg.Points(6), nil)
	cellEdge      = lineStyle(color.White, vg.Points(1), nil)
)

// mapAxis is one axis of the map as drawn: its values in display order (ascending when they
// are numbers), their positions 0, 1, 2, … (equal cells, whatever the spacing of the values),
// and the tick labels.
type mapAxis struct {
	path   string
	values []string  // display order
	index  []int     // display position → index in the map's axis values
	nums   []float64 // display order, in unit; nil when the values are not numbers
	unit   string
	label  string
}

func newMapAxis(a results.Axis) *mapAxis {
	ax := &mapAxis{path: a.Path, label: a.Path}
	order := make([]int, len(a.Values))
	for i := range order {
		order[i] = i
	}
	nums, kind, unit, ok := results.ParseValues(a.Values)
	if ok {
		slices.SortStableFunc(order, func(x, y int) int { return cmp.Compare(nums[x], nums[y]) })
		ax.unit = unit
		switch kind {
		case results.ValueRate:
			ax.label += " (operations/s)"
		case results.ValueDuration:
			ax.label += " (" + unit + ")"
		}
	}
	for _, i := range order {
		ax.index = append(ax.index, i)
		ax.values = append(ax.values, a.Values[i])
		if ok {
			ax.nums = append(ax.nums, nums[i])
		}
	}
	return ax
}

// ticks labels every position with its value (numbers without their unit, which is in the axis
// label), or every k-th when there are more than maxTicks.
func (ax *mapAxis) ticks() plot.ConstantTicks {
	const maxTicks = 14
	step := (len(ax.values) + maxTicks - 1) / maxTicks
	var out plot.ConstantTicks
	for i, v := range ax.values {
		if i%step != 0 {
			continue
		}
		if ax.nums != nil {
			v = results.FormatValue(ax.nums[i], "")
		}
		out = append(out, plot.Tick{Value: float64(i), Label: v})
	}
	return out
}

// pos returns the position of the value x (in unit) on the axis: between the cells of the two
// values around it, linearly in the value, as phasemap.Boundary interpolates.
func (ax *mapAxis) pos(x float64) float64 {
	n := len(ax.nums)
	if n == 0 || !valid(x) {
		return math.NaN()
	}
	for i := 1; i < n; i++ {
		if x <= ax.nums[i] {
			lo, hi := ax.nums[i-1], ax.nums[i]
			if hi == lo {
				return float64(i)
			}
			return float64(i-1) + (x-lo)/(hi-lo)
		}
	}
	return float64(n - 1)
}

// mapFig is the map figure: one panel per value of the third axis.
type mapFig struct {
	m        phasemap.Map
	x, y     *mapAxis // x: the second axis, y: the first
	z        *mapAxis // the third axis, nil without one
	along    int      // the axis the boundary runs along (0: y, 1: x), -1 for none
	bounds   []phasemap.BoundaryPoint
	title    string
	subtitle string
	panels   []*mapPanel
	legend   plot.Legend
	keys     []string
}

// mapPanel is one panel: a plot of the cells at one value of the third axis.
type mapPanel struct {
	p    *plot.Plot
	zIdx int // index into the map's third-axis values, -1 without one
}

func newMapFig(m phasemap.Map) (*mapFig, error) {
	if n := len(m.Axes); n < 2 || n > 3 {
		return nil, fmt.Errorf("plot: a metastability map has two or three axes, this one %d", n)
	}
	for _, a := range m.Axes {
		if len(a.Values) == 0 {
			return nil, fmt.Errorf("plot: map axis %s has no values", a.Path)
		}
	}
	f := &mapFig{m: m, y: newMapAxis(m.Axes[0]), x: newMapAxis(m.Axes[1]), along: -1}
	if len(m.Axes) == 3 {
		f.z = newMapAxis(m.Axes[2])
	}
	if a, ok := phasemap.BoundaryAxis(m); ok {
		b, err := phasemap.Boundary(m, a)
		if err != nil {
			return nil, fmt.Errorf("plot: %w", err)
		}
		f.along, f.bounds = a, b
	}
	f.title, f.subtitle = f.titles()

	zs := []int{-1}
	if f.z != nil {
		zs = f.z.index
	}
	for k, zi := range zs {
		p := newPlot(f.panelTitle(k, false), f.x.label, f.y.label)
		p.X.Tick.Marker, p.Y.Tick.Marker = f.x.ticks(), f.y.ticks()
		p.X.Min, p.X.Max = -0.5, float64(len(f.x.values))-0.5
		p.Y.Min, p.Y.Max = -0.5, float64(len(f.y.values))-0.5
		p.X.Padding, p.Y.Padding = 0, 0
		p.Add(&mapCells{f: f, zIdx: zi})
		if f.along >= 0 {
			p.Add(&mapBoundary{f: f, zIdx: zi})
		}
		p.Add(&mapCells{f: f, zIdx: zi, labels: true})
		f.panels = append(f.panels, &mapPanel{p: p, zIdx: zi})
	}
	f.buildLegend()
	return f, nil
}

// panelTitle names the third axis's value of panel k: "path = value", or with short "name =
// value" by the last element of the path; "" without a third axis.
func (f *mapFig) panelTitle(k int, short bool) string {
	if f.z == nil {
		return ""
	}
	name := f.z.path
	if short {
		name = name[strings.LastIndex(name, ".")+1:]
	}
	return name + " = " + f.z.values[k]
}

// cellAt returns the cell at map value indices (y, x, z), z -1 without a third axis; nil if
// the map has none.
func (f *mapFig) cellAt(y, x, z int) *phasemap.Cell {
	values := []string{f.m.Axes[0].Values[y], f.m.Axes[1].Values[x]}
	if z >= 0 {
		values = append(values, f.m.Axes[2].Values[z])
	}
	if c, ok := f.m.Cell(values...); ok {
		return &c
	}
	return nil
}

// titles returns the figure's title (the trigger and the scenario) and its subtitle (what the
// colours and numbers are, and the run's facts).
func (f *mapFig) titles() (string, string) {
	trig := f.m.Trigger
	if trig == "" {
		trig = "the trigger"
	}
	title := "Where " + trig + " sticks: P(stuck) over " + f.x.path + " × " + f.y.path
	if f.m.Header.Scenario != "" {
		title = f.m.Header.Scenario + " — " + title
	}
	fewest, most, ran := math.MaxInt, 0, 0
	for _, c := range f.m.Cells {
		if c.Replications > 0 {
			fewest, most, ran = min(fewest, c.Replications), max(most, c.Replications), ran+1
		}
	}
	reps := strconv.Itoa(most) + " replications per cell"
	switch {
	case ran == 0:
		reps = "no cell ran"
	case most == 1:
		reps = "1 replication per cell"
	case fewest != most:
		reps = strconv.Itoa(fewest) + "–" + strconv.Itoa(most) + " replications per cell"
	}
	sub := fmt.Sprintf("colour: share of replications stuck after %s · %s · horizon %s s · seed %d",
		trig, reps, strconv.FormatFloat(f.m.Header.Duration.Seconds(), 'f', -1, 64), f.m.Header.Seed)
	cells := len(f.x.values) * len(f.y.values)
	if f.z != nil {
		cells *= len(f.z.values)
		sub += " · one panel per " + f.z.path
	}
	if ran < cells {
		sub += fmt.Sprintf(" · partial: %d of %d cells ran", ran, cells)
	}
	return title, sub
}

// buildLegend lists what the marks mean, below the colour bar.
func (f *mapFig) buildLegend() {
	f.legend = newLegend()
	f.legend.Padding = vg.Points(6)
	key := func(name string, t plot.Thumbnailer) {
		f.legend.Add(name, t)
		f.keys = append(f.keys, name)
	}
	if f.along >= 0 {
		key("P(stuck) = ½, interpolated", boundaryThumb{})
	}
	key("median recovery time, s", textThumb{"7.5", 0.25})
	key("blank: none recovered", textThumb{"", 1})
	var notRun, undecided bool
	for _, pn := range f.panels {
		for _, yi := range f.y.index {
			for _, xi := range f.x.index {
				c := f.cellAt(yi, xi, pn.zIdx)
				notRun = notRun || c == nil || c.Replications == 0
				undecided = undecided || c != nil && c.Undecided > 0
			}
		}
	}
	if undecided {
		key("some replications undecided", textThumb{"?", 0.25})
	}
	if notRun {
		key("not run", hatchThumb{})
	}
}

// mapCells draws the cells of one panel: coloured by P(stuck), hatched where not run. With
// labels set it draws, instead, what is written in them (mapFig adds it over the boundary, so
// that the line never hides a number): the median recovery time in the middle and "?" in the
// top right corner where replications were undecided, each on a patch of the cell's colour.
type mapCells struct {
	f      *mapFig
	zIdx   int
	labels bool
}

func (mc *mapCells) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	f := mc.f
	num := textStyle(noteSize, false)
	num.XAlign, num.YAlign = draw.XCenter, draw.YCenter
	corner := textStyle(noteSize, true)
	corner.XAlign, corner.YAlign = draw.XRight, draw.YTop
	for yi, my := range f.y.index {
		for xi, mx := range f.x.index {
			r := vg.Rectangle{
				Min: vg.Point{X: trX(float64(xi) - 0.5), Y: trY(float64(yi) - 0.5)},
				Max: vg.Point{X: trX(float64(xi) + 0.5), Y: trY(float64(yi) + 0.5)},
			}
			cell := f.cellAt(my, mx, mc.zIdx)
			ran := cell != nil && cell.Replications > 0 && valid(cell.PStuck)
			if !mc.labels {
				if !ran {
					c.FillPolygon(notRunFill, rectPath(r))
					hatch(c, r, notRunHatch)
				} else {
					c.FillPolygon(stuckColour(cell.PStuck), rectPath(r))
				}
				c.StrokeLines(cellEdge, append(rectPath(r), r.Min))
				continue
			}
			if !ran {
				continue
			}
			fill := stuckColour(cell.PStuck)
			if valid(cell.RecoveryMedian) {
				num.Color = inkOn(fill)
				label(c, num, fill, vg.Point{X: (r.Min.X + r.Max.X) / 2, Y: (r.Min.Y + r.Max.Y) / 2}, recoveryText(cell.RecoveryMedian))
			}
			if cell.Undecided > 0 {
				corner.Color = inkOn(fill)
				label(c, corner, fill, vg.Point{X: r.Max.X - vg.Points(4), Y: r.Max.Y - vg.Points(3)}, "?")
			}
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

// recoveryText writes a recovery time in seconds as a planner reads it off a cell: whole
// seconds from 10 s, one decimal below ("7.5", "12"); the unit is in the legend, so that the
// numbers fit the narrow cells of three panels side by side.
func recoveryText(secs float64) string {
	if secs >= 10 {
		return strconv.FormatFloat(math.Round(secs), 'f', 0, 64)
	}
	return results.FormatValue(math.Round(secs*10)/10, "")
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

// mapBoundary draws the 50 % boundary of one panel (phasemap.Boundary): where P(stuck) = ½
// on each line of cells along the boundary's axis, as a bold bar across the line's cell; the
// bars of neighbouring lines that each cross once are joined into one polyline when the lines
// are numbers (not policy names, between which nothing is interpolated).
type mapBoundary struct {
	f    *mapFig
	zIdx int
}

// crossings returns, for each line across the boundary's axis (display order), the positions
// along it where P(stuck) crosses ½.
func (mb *mapBoundary) crossings() [][]float64 {
	f := mb.f
	alongAx, across := f.x, f.y
	if f.along == 0 {
		alongAx, across = f.y, f.x
	}
	acrossAxis := 1 - f.along
	out := make([][]float64, len(across.values))
	for _, bp := range f.bounds {
		if bp.Kind != phasemap.Crossing {
			continue
		}
		line := -1
		zOK := mb.zIdx < 0
		for _, fx := range bp.Fixed {
			switch {
			case fx.Path == f.m.Axes[acrossAxis].Path:
				line = slices.Index(across.values, fx.Value)
			case f.z != nil && fx.Path == f.z.path:
				zOK = fx.Value == f.m.Axes[2].Values[mb.zIdx]
			}
		}
		if line >= 0 && zOK {
			out[line] = append(out[line], alongAx.pos(bp.At))
		}
	}
	return out
}

func (mb *mapBoundary) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	// pt maps (position along, line) to the canvas, whichever axis the boundary runs along.
	pt := func(along, line float64) vg.Point {
		if mb.f.along == 0 {
			return vg.Point{X: trX(line), Y: trY(along)}
		}
		return vg.Point{X: trX(along), Y: trY(line)}
	}
	var paths [][]vg.Point
	var run []vg.Point // the polyline of consecutive lines that cross once
	flush := func() {
		if len(run) > 0 {
			paths = append(paths, run)
			run = nil
		}
	}
	cr := mb.crossings()
	// Between lines of names (policies) there is nothing to interpolate: no joins.
	join := mb.f.y.nums != nil
	if mb.f.along == 0 {
		join = mb.f.x.nums != nil
	}
	for line, xs := range cr {
		l := float64(line)
		switch len(xs) {
		case 0:
			flush()
		case 1:
			if len(run) == 0 {
				run = append(run, pt(xs[0], l-0.5)) // from the line's outer edge
			}
			run = append(run, pt(xs[0], l))
			if !join || line+1 == len(cr) || len(cr[line+1]) != 1 {
				run = append(run, pt(xs[0], l+0.5))
				flush()
			}
		default: // not monotone: a bar at each crossing, joined to nothing
			flush()
			for _, x := range xs {
				paths = append(paths, []vg.Point{pt(x, l-0.5), pt(x, l+0.5)})
			}
		}
	}
	for _, sty := range []draw.LineStyle{boundaryHalo, boundaryStyle} {
		for _, ps := range paths {
			c.StrokeLines(sty, c.ClipLinesXY(ps)...)
		}
	}
}

// Legend thumbnails.

type boundaryThumb struct{}

func (boundaryThumb) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(boundaryStyle, c.Min.X, y, c.Max.X, y)
}

type hatchThumb struct{}

func (hatchThumb) Thumbnail(c *draw.Canvas) {
	r := vg.Rectangle{Min: vg.Point{X: c.Min.X, Y: c.Min.Y - vg.Points(2)}, Max: vg.Point{X: c.Max.X, Y: c.Max.Y + vg.Points(2)}}
	c.FillPolygon(notRunFill, rectPath(r))
	hatch(*c, r, notRunHatch)
}

// textThumb shows a sample of the text the cells carry on a cell of P(stuck) p.
type textThumb struct {
	s string
	p float64
}

func (t textThumb) Thumbnail(c *draw.Canvas) {
	r := vg.Rectangle{Min: vg.Point{X: c.Min.X, Y: c.Min.Y - vg.Points(2)}, Max: vg.Point{X: c.Max.X, Y: c.Max.Y + vg.Points(2)}}
	fill := stuckColour(t.p)
	c.FillPolygon(fill, rectPath(r))
	sty := textStyle(noteSize-1, false)
	sty.Color = inkOn(fill)
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YCenter
	c.FillText(sty, c.Center(), t.s)
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
	area := header(dc, f.title, f.subtitle)

	gutter := f.gutterWidth()
	rows, cols := f.layout()
	w := (area.Max.X - area.Min.X - gutter - vg.Length(vg.Length(cols-1)*colGap)) / vg.Length(cols)
	h := (area.Max.Y - area.Min.Y - vg.Length(vg.Length(rows-1)*rowGap)) / vg.Length(rows)

	// Panel titles by the last element of the third axis's path when a full one does not fit
	// (the subtitle names the path).
	if f.z != nil {
		ts := textStyle(panelSize, true)
		short := false
		for k := range f.panels {
			short = short || ts.Rectangle(f.panelTitle(k, false)).Size().X > w-vg.Points(8)
		}
		for k, pn := range f.panels {
			pn.p.Title.Text = f.panelTitle(k, short)
		}
	}
	// The y axis label on the first column only, the x axis label on the bottom row only
	// (small multiples share their axes); every panel keeps its tick labels.
	tiles := make([]draw.Canvas, len(f.panels))
	for i, pn := range f.panels {
		r, col := i/cols, i%cols
		if col > 0 {
			pn.p.Y.Label.Text = ""
		}
		if r < rows-1 && i+cols < len(f.panels) {
			pn.p.X.Label.Text = ""
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
		d := pn.p.DataCanvas(c)
		offs[i] = [4]vg.Length{d.Min.X - c.Min.X, d.Min.Y - c.Min.Y, c.Max.X - d.Max.X, c.Max.Y - d.Max.Y}
		for k := range off {
			off[k] = max(off[k], offs[i][k])
		}
	}
	var firstData vg.Rectangle
	for i, pn := range f.panels {
		o := offs[i]
		c := draw.Crop(tiles[i], off[0]-o[0], -(off[2] - o[2]), off[1]-o[1], 0)
		pad := pn.p.Title.Padding
		if pn.p.Title.Text != "" {
			pn.p.Title.Padding += off[3] - o[3]
		} else {
			c = draw.Crop(c, 0, 0, 0, -(off[3] - o[3]))
		}
		pn.p.Draw(c)
		if i == 0 {
			firstData = pn.p.DataCanvas(c).Rectangle
		}
		pn.p.Title.Padding = pad
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
		c.FillPolygon(stuckColour((float64(i)+0.5)/steps), rectPath(vg.Rectangle{
			Min: vg.Point{X: bar.Min.X, Y: y0}, Max: vg.Point{X: bar.Max.X, Y: y1}}))
	}
	c.StrokeLines(lineStyle(chart.Reference, vg.Points(0.6), nil), append(rectPath(bar), bar.Min))
	tick := textStyle(tickSize, false)
	tick.YAlign = draw.YCenter
	for _, v := range []float64{0, 0.25, 0.5, 0.75, 1} {
		y := bar.Min.Y + vg.Length(barHeight*vg.Length(v))
		label := formatTick(v, 0.25)
		sty := lineStyle(chart.Reference, vg.Points(0.6), nil)
		if v == 0.5 && f.along >= 0 {
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
