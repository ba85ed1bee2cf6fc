package report

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"math"
	"strings"

	"github.com/overloadsim/overloadsim/results/chart"
)

// The chart library the interactive report embeds: uPlot (MIT), vendored at a pinned version
// (vendor/uplot/README.md says which and how to update it). It is inlined into every report, so
// the report still opens without a network.
var (
	//go:embed vendor/uplot/uPlot.iife.min.js
	uplotJS string
	//go:embed vendor/uplot/uPlot.min.css
	uplotCSS string
	//go:embed interactive.js
	chartsJS string
)

// MaxChartPoints bounds the points per series the interactive charts embed: a run with more
// intervals is reduced to this many by keeping, for each run of consecutive intervals, the
// lowest and the highest value of every series (min/max per bucket), so that no peak or dip is
// lost.
const MaxChartPoints = 2000

// chartSeries is one series of the interactive charts.
type chartSeries struct {
	Label string    `json:"label"`
	Color string    `json:"color"`
	Width float64   `json:"width"` // CSS pixels: the figures' points (chart.Style.Width)
	Dash  []float64 `json:"dash"`  // the canvas's line dash, CSS pixels; empty for solid
	Chart string    `json:"chart"` // the name of its chart: "rates" or "amplification"
	Y     []float64 `json:"y"`     // NaN is written as null: no value in that interval
}

// chartPanel is one interactive chart as chart.Panel gives it: its name, title, axis labels and
// relative height, the windows to shade under its series (warm-up, faults) and its reference
// lines.
type chartPanel struct {
	Name   string        `json:"name"`
	Title  string        `json:"title"`
	XLabel string        `json:"xLabel"`
	YLabel string        `json:"yLabel"`
	Weight float64       `json:"weight"`
	Bands  []chartWindow `json:"windows"`
	Refs   []chartRef    `json:"refs"`
}

// chartWindow is a stretch of time to shade, with its label in the colour of its edge.
type chartWindow struct {
	Start float64 `json:"start"`
	End   float64 `json:"end"`
	Label string  `json:"label"`
	Fill  string  `json:"fill"` // CSS colour, with its transparency
	Edge  string  `json:"edge"`
}

// chartRef is a horizontal reference line, with its label written on it.
type chartRef struct {
	Y     float64 `json:"y"`
	Color string  `json:"color"`
	Label string  `json:"label"`
}

// lineDash is the canvas dash pattern of a chart.Dash, in CSS pixels.
func lineDash(d chart.Dash) []float64 {
	switch d {
	case chart.Dashed:
		return []float64{6, 4}
	case chart.Dotted:
		return []float64{2, 3}
	}
	return []float64{}
}

// chartData is the data of a run's interactive charts: the charts, the interval ends (seconds)
// and the series, each value holding for the interval that ends at its x (drawn as steps).
type chartData struct {
	Charts []chartPanel  `json:"charts"`
	X      []float64     `json:"x"`
	Series []chartSeries `json:"series"`
	// Reduced says the run had more intervals than MaxChartPoints: the series are the min and
	// max of each bucket of Reduced intervals.
	Reduced int `json:"reduced,omitempty"`
}

// interactiveView is what the template needs to draw the charts.
type interactiveView struct {
	Names   []string // the charts' names, in order: each is drawn into the element chart-NAME
	Data    template.JS
	Library template.JS
	Code    template.JS
	CSS     template.CSS
	Reduced int
}

// newInteractive serialises the figure of the run's interactive charts (chart.Run.Charts) for
// interactive.js, which draws each panel as it is given: nil for a run without intervals.
func newInteractive(r *chart.Run) (*interactiveView, error) {
	fig := r.Charts()
	d := chartData{X: fig.Panels[0].Series[0].X}
	for i, pn := range fig.Panels {
		cp := chartPanel{Name: pn.Name, Title: pn.Title, XLabel: pn.X.Label, YLabel: pn.Y.Label, Weight: fig.Weights[i],
			Bands: []chartWindow{}, Refs: []chartRef{}}
		for _, w := range pn.Windows {
			cp.Bands = append(cp.Bands, chartWindow{w.Start, w.End, w.Label, chart.RGBA(w.Fill), chart.Hex(w.Edge)})
		}
		for _, r := range pn.Refs {
			cp.Refs = append(cp.Refs, chartRef{r.Y, chart.Hex(r.Colour), r.Label})
		}
		d.Charts = append(d.Charts, cp)
		for _, s := range pn.Series {
			d.Series = append(d.Series, chartSeries{s.Label, chart.Hex(s.Colour), s.Width, lineDash(s.Dash), pn.Name, s.Y})
		}
	}
	d = reduce(d, MaxChartPoints)
	b, err := marshalChart(d)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, c := range d.Charts {
		names = append(names, c.Name)
	}
	return &interactiveView{Names: names, Data: template.JS(b), Library: template.JS(uplotLibrary()), Code: template.JS(chartsJS), CSS: template.CSS(uplotCSS), Reduced: d.Reduced}, nil
}

// uplotLibrary is the vendored uPlot with its banner, which names the project by its address,
// given with the licence instead: a report holds no URL that a reader could take for something
// it loads.
func uplotLibrary() string {
	banner, rest, ok := strings.Cut(uplotJS, "\n")
	if !ok || !strings.HasPrefix(banner, "/*! https://github.com/leeoniya/uPlot") {
		return uplotJS
	}
	return "/*! uPlot " + strings.TrimSuffix(strings.TrimPrefix(banner, "/*! https://github.com/leeoniya/uPlot "), " */") +
		", (c) Leon Sorokin, MIT licence (github.com/leeoniya/uPlot) */\n" + rest
}

// reduce keeps at most max points per series: buckets of k consecutive intervals become two
// points, at the bucket's first and last interval end, with the bucket's lowest and highest
// value of each series.
func reduce(d chartData, max int) chartData {
	n := len(d.X)
	if n <= max {
		return d
	}
	k := (2*n + max - 1) / max
	out := chartData{Charts: d.Charts, Reduced: k}
	for i := range d.Series {
		out.Series = append(out.Series, chartSeries{Label: d.Series[i].Label, Color: d.Series[i].Color, Width: d.Series[i].Width, Dash: d.Series[i].Dash, Chart: d.Series[i].Chart})
	}
	for lo := 0; lo < n; lo += k {
		hi := min(lo+k, n)
		out.X = append(out.X, d.X[lo], d.X[hi-1])
		for i, s := range d.Series {
			mn, mx := math.NaN(), math.NaN()
			for _, v := range s.Y[lo:hi] {
				if !math.IsNaN(v) {
					if math.IsNaN(mn) || v < mn {
						mn = v
					}
					if math.IsNaN(mx) || v > mx {
						mx = v
					}
				}
			}
			out.Series[i].Y = append(out.Series[i].Y, mn, mx)
		}
	}
	return out
}

// marshalChart writes the chart data as JSON, NaN as null, numbers in their shortest exact form.
func marshalChart(d chartData) ([]byte, error) {
	type series struct {
		Label string     `json:"label"`
		Color string     `json:"color"`
		Width float64    `json:"width"`
		Dash  []float64  `json:"dash"`
		Chart string     `json:"chart"`
		Y     []*float64 `json:"y"`
	}
	out := struct {
		Charts  []chartPanel `json:"charts"`
		X       []float64    `json:"x"`
		Series  []series     `json:"series"`
		Reduced int          `json:"reduced,omitempty"`
	}{Charts: d.Charts, X: d.X, Reduced: d.Reduced}
	for _, s := range d.Series {
		ys := make([]*float64, len(s.Y))
		for i := range s.Y {
			if !math.IsNaN(s.Y[i]) && !math.IsInf(s.Y[i], 0) {
				ys[i] = &s.Y[i]
			}
		}
		dash := s.Dash
		if dash == nil {
			dash = []float64{}
		}
		out.Series = append(out.Series, series{s.Label, s.Color, s.Width, dash, s.Chart, ys})
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("report: charts: %w", err)
	}
	return b, nil
}
