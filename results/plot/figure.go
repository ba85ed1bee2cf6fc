package plot

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"path/filepath"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/chart"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// panel is one plot of a figure and its legend, drawn in a gutter right of the plot (never over
// the data).
type panel struct {
	p      *plot.Plot
	legend plot.Legend
	keys   []string             // the legend's entries
	thumbs [][]plot.Thumbnailer // each entry's icons, to lay the legend out in columns
	over   []plot.Plotter       // drawn last, over the data (labels)
}

// key adds a legend entry.
func (pn *panel) key(name string, thumbs ...plot.Thumbnailer) {
	pn.legend.Add(name, thumbs...)
	pn.keys = append(pn.keys, name)
	pn.thumbs = append(pn.thumbs, thumbs)
}

// columns lays the legend's entries out in columns, in order down each column, within width:
// as many columns as fit (at most maxColumns), each a legend of its own, and their widths.
func (pn *panel) columns(width vg.Length) ([]plot.Legend, []vg.Length) {
	n := len(pn.keys)
	for ncols := min(n, maxColumns); ncols >= 1; ncols-- {
		per := (n + ncols - 1) / ncols
		var legends []plot.Legend
		var widths []vg.Length
		var total vg.Length
		for i := 0; i < n; i += per {
			l := newLegend()
			for j := i; j < min(i+per, n); j++ {
				l.Add(pn.keys[j], pn.thumbs[j]...)
			}
			w := l.Rectangle(draw.Canvas{}).Size().X + colGap
			legends, widths, total = append(legends, l), append(widths, w), total+w
		}
		if total <= width || ncols == 1 {
			return legends, widths
		}
	}
	return nil, nil
}

// maxColumns is the most columns a legend below the panels takes (Figure.KeysBelow), so that
// it reads down its columns rather than across the page.
const maxColumns = 3

func newPanel(title, xlabel, ylabel string) *panel {
	return &panel{p: newPlot(title, xlabel, ylabel), legend: newLegend()}
}

// empty marks a panel with nothing to draw: a message in the middle, no y tick labels.
func (pn *panel) empty(msg string) {
	pn.p.Y.Min, pn.p.Y.Max = 0, 1
	pn.p.Y.Tick.Marker = plot.ConstantTicks{}
	pn.p.Add(note{msg})
}

// hasLegend reports whether the panel's legend has entries.
func (pn *panel) hasLegend() bool { return len(pn.keys) > 0 }

// figure is a titled grid of panels. Rows may hold different numbers of panels; within a row
// the panels share its height, and their data areas line up: left edges of every row's first
// panel, of same-position panels in rows of the same width, right edges of every row's last
// panel, and tops and bottoms within a row. Only a row's last panel may have a legend; the
// gutter is as wide as the widest legend.
type figure struct {
	name     string // file base name
	title    string
	subtitle string
	rows     [][]*panel
	weights  []float64 // relative row heights; nil for equal rows
	below    bool      // the last panel's legend below the panels (chart.Figure.KeysBelow)
	ready    bool      // prepare has run
}

// prepare finishes the panels once, before the first drawing: room above the data (more
// under window labels), linear y axes ending at a tick, the overlays added last.
func (f *figure) prepare() {
	if f.ready {
		return
	}
	f.ready = true
	for _, row := range f.rows {
		for _, pn := range row {
			head := 0.03
			if len(pn.over) > 0 {
				head = 0.1 // room for the window labels along the top
			}
			roundUp(pn.p, head)
			pn.p.Add(pn.over...)
		}
	}
}

// Layout constants.
var (
	margin    = vg.Points(10)
	rowGap    = vg.Points(10)
	colGap    = vg.Points(14)
	gutterPad = vg.Points(8)
)

// header paints dc white and writes the title and, if any, the subtitle at its top, and
// returns the area left below them, inside the margins.
func header(dc draw.Canvas, title, subtitle string) draw.Canvas {
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	area := draw.Crop(dc, margin, -margin, margin, -margin)

	top := area.Max.Y
	ts := textStyle(titleSize, true)
	ts.XAlign, ts.YAlign = draw.XCenter, draw.YTop
	area.FillText(ts, vg.Point{X: area.Center().X, Y: top}, title)
	top -= ts.Rectangle(title).Size().Y + vg.Points(4)
	if subtitle != "" {
		sub := textStyle(subtitleSize, false)
		sub.Color = chart.Note
		sub.XAlign, sub.YAlign = draw.XCenter, draw.YTop
		area.FillText(sub, vg.Point{X: area.Center().X, Y: top}, subtitle)
		top -= sub.Rectangle(subtitle).Size().Y
	}
	area.Max.Y = top - vg.Points(8)
	return area
}

// draw renders the figure onto dc.
func (f *figure) draw(dc draw.Canvas) {
	f.prepare()
	area := header(dc, f.title, f.subtitle)

	var gutter vg.Length
	var under *panel // the panel whose legend is below the panels
	if last := f.rows[len(f.rows)-1]; f.below && last[len(last)-1].hasLegend() {
		under = last[len(last)-1]
	}
	for _, row := range f.rows {
		for _, pn := range row {
			if pn.hasLegend() && pn != under {
				gutter = max(gutter, pn.legend.Rectangle(draw.Canvas{}).Size().X+vg.Length(2*gutterPad))
			}
		}
	}
	var legends []plot.Legend
	var widths []vg.Length
	var strip vg.Length // the height of the legend below the panels
	if under != nil {
		legends, widths = under.columns(area.Max.X - area.Min.X - gutter)
		for _, l := range legends {
			strip = max(strip, l.Rectangle(draw.Canvas{}).Size().Y)
		}
		area.Min.Y += strip + rowGap
	}

	// Tiles: split the height by weight, then each row's width equally, the last tile of a
	// row getting the gutter on top of its share.
	var total float64
	for i := range f.rows {
		total += f.weight(i)
	}
	height := area.Max.Y - area.Min.Y - vg.Length(vg.Length(len(f.rows)-1)*rowGap)
	tiles := make([][]draw.Canvas, len(f.rows))
	y := area.Max.Y
	for i, row := range f.rows {
		h := vg.Length(height * vg.Length(f.weight(i)/total))
		w := (area.Max.X - area.Min.X - gutter - vg.Length(vg.Length(len(row)-1)*colGap)) / vg.Length(len(row))
		x := area.Min.X
		for j := range row {
			tw := w
			if j == len(row)-1 {
				tw += gutter
			}
			tiles[i] = append(tiles[i], draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
				Min: vg.Point{X: x, Y: y - h}, Max: vg.Point{X: x + tw, Y: y}}})
			x += tw + colGap
		}
		y -= h + rowGap
	}

	// Plot canvases: the tile less the gutter, then cropped so the data areas line up.
	type col struct{ n, j int }
	left := map[col]vg.Length{}
	key := func(n, j int) col {
		if j == 0 {
			return col{0, 0}
		}
		return col{n, j}
	}
	plotC := make([][]draw.Canvas, len(f.rows))
	offs := make([][][3]vg.Length, len(f.rows)) // left, bottom, top offsets of the data area
	for i, row := range f.rows {
		for j, pn := range row {
			c := tiles[i][j]
			if j == len(row)-1 {
				c.Max.X -= gutter
			}
			plotC[i] = append(plotC[i], c)
			d := pn.p.DataCanvas(c)
			o := [3]vg.Length{d.Min.X - c.Min.X, d.Min.Y - c.Min.Y, c.Max.Y - d.Max.Y}
			offs[i] = append(offs[i], o)
			k := key(len(row), j)
			left[k] = max(left[k], o[0])
		}
	}
	for i, row := range f.rows {
		var bottom, topOff vg.Length
		for j := range row {
			bottom, topOff = max(bottom, offs[i][j][1]), max(topOff, offs[i][j][2])
		}
		for j, pn := range row {
			o := offs[i][j]
			// Line the data areas' tops up by padding the title (which keeps the titles of a
			// row level) or, without a title, by cropping.
			c := draw.Crop(plotC[i][j], left[key(len(row), j)]-o[0], 0, bottom-o[1], 0)
			pad := pn.p.Title.Padding
			if pn.p.Title.Text != "" {
				pn.p.Title.Padding += topOff - o[2]
			} else {
				c = draw.Crop(c, 0, 0, 0, -(topOff - o[2]))
			}
			pn.p.Draw(c)
			if pn == under {
				// The columns below the panel, from its data area's left edge.
				d := pn.p.DataCanvas(c)
				x := d.Min.X
				for k, l := range legends {
					lc := draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
						Min: vg.Point{X: x, Y: area.Min.Y - rowGap - strip},
						Max: vg.Point{X: x + widths[k], Y: area.Min.Y - rowGap}}}
					l.Draw(lc)
					x += widths[k]
				}
			} else if j == len(row)-1 && pn.hasLegend() {
				d := pn.p.DataCanvas(c)
				lc := draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
					Min: vg.Point{X: c.Max.X + gutterPad, Y: d.Min.Y},
					Max: vg.Point{X: c.Max.X + gutter, Y: d.Max.Y}}}
				pn.legend.Draw(lc)
			}
			pn.p.Title.Padding = pad
		}
	}
}

func (f *figure) weight(i int) float64 {
	if i < len(f.weights) && f.weights[i] > 0 {
		return f.weights[i]
	}
	return 1
}

// svg renders the figure as SVG: byte-stable (no time stamps, fonts named, not embedded).
func (f *figure) svg() ([]byte, error) { return renderSVG(f.draw) }

// png renders the figure as a 1200 × 800 px PNG.
func (f *figure) png() ([]byte, error) { return renderPNG(f.draw) }

// renderSVG renders what drawFn draws on a canvas of the figures' size as SVG.
func renderSVG(drawFn func(draw.Canvas)) ([]byte, error) {
	c := vgsvg.New(figWidth, figHeight)
	drawFn(draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// renderPNG renders what drawFn draws on a canvas of the figures' size as a PNG.
func renderPNG(drawFn func(draw.Canvas)) ([]byte, error) {
	c := vgimg.NewWith(vgimg.UseWH(figWidth, figHeight), vgimg.UseDPI(pngDPI))
	drawFn(draw.New(c))
	var b bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// writeFigures writes NAME.svg and NAME.png of every figure into dir and returns the names.
func writeFigures(dir string, figs []*figure) ([]string, error) {
	m, err := results.ReadManifest(dir)
	if err != nil {
		return nil, fmt.Errorf("plot: %w", err)
	}
	// Nothing is drawn over a file of someone else's: check every name before writing any.
	for _, f := range figs {
		for _, ext := range []string{".svg", ".png"} {
			if err := results.CheckDrawn(dir, &m, f.name+ext); err != nil {
				return nil, fmt.Errorf("plot: %w", err)
			}
		}
	}
	digest := m.ResultDigest() // every figure says which result it was drawn from
	var names []string
	for _, f := range figs {
		svg, err := f.svg()
		if err != nil {
			return names, fmt.Errorf("plot: %s.svg: %w", f.name, err)
		}
		if err := writeBytes(filepath.Join(dir, f.name+".svg"), results.MarkSVG(svg, digest)); err != nil {
			return names, err
		}
		png, err := f.png()
		if err != nil {
			return names, fmt.Errorf("plot: %s.png: %w", f.name, err)
		}
		if err := writeBytes(filepath.Join(dir, f.name+".png"), results.MarkPNG(png, digest)); err != nil {
			return names, err
		}
		names = append(names, f.name)
	}
	return names, nil
}

// writeBytes writes data to path with results.WriteFileAtomic.
func writeBytes(path string, data []byte) error {
	return results.WriteFileAtomic(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}
