package plot

import (
	"image/color"
	"math"
	"strconv"

	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/overloadsim/overloadsim/results/chart"
)

// Figure size: 12 × 8 inches, 1200 × 800 px in the PNG.
const (
	figWidth  = 12 * vg.Inch
	figHeight = 8 * vg.Inch
	pngDPI    = 100
)

// Font sizes in points (at 100 dpi a point is 1.39 px).
const (
	titleSize    = 16
	subtitleSize = 10.5
	panelSize    = 12.5
	labelSize    = 11.5
	tickSize     = 10.5
	legendSize   = 11
	noteSize     = 11
)

// sans is the one typeface of every figure: Liberation Sans, embedded in gonum/plot, so the
// text measures the same everywhere and the SVG names a fixed font family.
var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

func textStyle(size vg.Length, bold bool) text.Style {
	f := font.From(sans, size)
	if bold {
		f.Weight = xfont.WeightBold
	}
	return text.Style{Color: color.Black, Font: f, Handler: plot.DefaultTextHandler}
}

// Line widths (chart's) and dash patterns.
var (
	thin   = vg.Points(chart.Thin)
	medium = vg.Points(chart.Medium)

	dashed = []vg.Length{vg.Points(6), vg.Points(3)}
	dotted = []vg.Length{vg.Points(1.5), vg.Points(2.5)}
)

func lineStyle(c color.Color, w vg.Length, dashes []vg.Length) draw.LineStyle {
	return draw.LineStyle{Color: c, Width: w, Dashes: dashes}
}

// newPlot returns a plot in the figures' style: Liberation Sans throughout, a panel title,
// labelled axes with nice linear ticks and no legend of its own (panels draw theirs beside
// the plot, see panel).
func newPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle = textStyle(panelSize, true)
	p.Title.TextStyle.XAlign = draw.XCenter
	p.Title.TextStyle.YAlign = draw.YTop
	p.Title.Padding = vg.Points(6)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		xa, ya := a.Label.TextStyle.XAlign, a.Label.TextStyle.YAlign
		a.Label.TextStyle = textStyle(labelSize, false)
		a.Label.TextStyle.XAlign, a.Label.TextStyle.YAlign = xa, ya
		xa, ya = a.Tick.Label.XAlign, a.Tick.Label.YAlign
		a.Tick.Label = textStyle(tickSize, false)
		a.Tick.Label.XAlign, a.Tick.Label.YAlign = xa, ya
		a.Tick.Marker = niceTicks{}
		a.Padding = vg.Points(2)
		a.Label.Padding = vg.Points(3)
	}
	p.X.Label.Text, p.Y.Label.Text = xlabel, ylabel
	p.Add(grid{})
	return p
}

// newLegend returns an empty legend in the figures' style, icons left of the text.
func newLegend() plot.Legend {
	l := plot.NewLegend()
	l.TextStyle = textStyle(legendSize, false)
	l.Top, l.Left = true, true
	l.ThumbnailWidth = vg.Points(26)
	l.Padding = vg.Points(3)
	return l
}

// niceTicks labels an axis at 1, 2, 2.5 or 5 × 10^k steps, about six labels per axis.
type niceTicks struct{}

func (niceTicks) Ticks(lo, hi float64) []plot.Tick {
	step := niceStep((hi - lo) / 6)
	if !(step > 0) || math.IsInf(step, 0) {
		return []plot.Tick{{Value: lo, Label: formatTick(lo, 1)}}
	}
	var ticks []plot.Tick
	for k := math.Ceil(lo/step - 1e-9); ; k++ {
		v := k * step
		if v > hi+float64(step*1e-9) {
			break
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: formatTick(v, step)})
	}
	return ticks
}

// niceStep returns the smallest of 1, 2, 2.5, 5 × 10^k that is at least x.
func niceStep(x float64) float64 {
	if !(x > 0) {
		return 0
	}
	mag := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= x*(1-1e-9) {
			return float64(m * mag)
		}
	}
	return float64(10 * mag)
}

// formatTick writes v with as many decimals as step needs, and no "-0".
func formatTick(v, step float64) string {
	if math.Abs(v) < step*1e-6 {
		v = 0
	}
	dec := 0
	for s := step; dec < 6 && math.Abs(s-math.Round(s)) > 1e-9*math.Max(1, math.Abs(s)); s *= 10 {
		dec++
	}
	return strconv.FormatFloat(v, 'f', dec, 64)
}

// A log axis plots log10 of the values on a linear axis (gonum's LogScale places a vertical
// axis label by the arithmetic middle of the range, which pushes the panel down): logValues
// transforms the data, logAxis sets the range to whole decades and labels the ticks with the
// values themselves.

// logValues returns log10 of each value, NaN for the values that are not positive.
func logValues(ys []float64) []float64 {
	out := make([]float64, len(ys))
	for i, y := range ys {
		out[i] = math.NaN()
		if y > 0 {
			out[i] = math.Log10(y)
		}
	}
	return out
}

// logAxis makes a a log axis over [lo, hi] (values, not logarithms), widened to
// whole decades.
func logAxis(a *plot.Axis, lo, hi float64) {
	// Whole decades, and a little room beyond a value that sits on one.
	l, h := float64(math.Log10(lo)), float64(math.Log10(hi))
	lo, hi = math.Floor(l), math.Ceil(h)
	pad := float64(0.04 * (hi - lo))
	a.Min, a.Max = min(lo, l-pad), max(hi, h+pad)
	a.Tick.Marker = logTicks{}
}

// logTicks labels a log axis (in log10 units) at every power of ten, and at 2 and 5 × 10^k
// when the axis spans at most two decades, with unlabelled minor ticks at the other multiples.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	few := hi-lo <= 2
	var ticks []plot.Tick
	for e := math.Floor(lo); e <= math.Ceil(hi); e++ {
		for m := 1; m < 10; m++ {
			v := e + float64(math.Log10(float64(m)))
			if v < lo-1e-9 || v > hi+1e-9 {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || few && (m == 2 || m == 5) {
				t.Label = strconv.FormatFloat(float64(m)*math.Pow10(int(e)), 'g', -1, 64)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// roundUp leaves room above the highest value, a share head of the axis range, and ends a
// linear axis at the labelled tick above that.
func roundUp(p *plot.Plot, head float64) {
	if !valid(p.Y.Min) || !valid(p.Y.Max) {
		return
	}
	if p.Y.Max <= p.Y.Min {
		p.Y.Max = p.Y.Min + 1 // flat data (a queue that stayed empty): show it at the bottom
	}
	switch p.Y.Tick.Marker.(type) {
	case niceTicks:
		top := p.Y.Max + float64(head*(p.Y.Max-p.Y.Min))
		if step := niceStep((top - p.Y.Min) / 6); step > 0 {
			p.Y.Max = math.Ceil(top/step-1e-9) * step
		}
	case logTicks:
		p.Y.Max += float64(head * (p.Y.Max - p.Y.Min))
	}
}
