package report

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/overloadsim/overloadsim/results/chart"
)

// TestReduce: a run with more intervals than the charts draw keeps every series' peaks and dips
// (min and max per bucket), at most MaxChartPoints points, and a short run is drawn whole.
func TestReduce(t *testing.T) {
	n := 10_000
	d := chartData{Series: []chartSeries{{Label: "goodput"}}}
	for i := range n {
		d.X = append(d.X, float64(i+1))
		y := 1000.0
		switch i {
		case 4321:
			y = 1e6 // one interval's spike
		case 8765:
			y = 0 // one interval's dip
		case 9000:
			y = math.NaN() // no value
		}
		d.Series[0].Y = append(d.Series[0].Y, y)
	}
	r := reduce(d, MaxChartPoints)
	if len(r.X) > MaxChartPoints || len(r.X) != len(r.Series[0].Y) || r.Reduced < 2 {
		t.Fatalf("%d points (reduced by %d), want at most %d", len(r.X), r.Reduced, MaxChartPoints)
	}
	hi, lo := math.Inf(-1), math.Inf(1)
	for _, y := range r.Series[0].Y {
		hi, lo = math.Max(hi, y), math.Min(lo, y)
	}
	if hi != 1e6 || lo != 0 {
		t.Errorf("the reduced series spans [%v, %v], want the spike 1e6 and the dip 0 kept", lo, hi)
	}
	if r.X[0] != 1 || r.X[len(r.X)-1] != float64(n) {
		t.Errorf("the reduced series runs from %v to %v, want 1 to %d", r.X[0], r.X[len(r.X)-1], n)
	}
	short := chartData{X: []float64{1, 2}, Series: []chartSeries{{Y: []float64{1, 2}}}}
	if r := reduce(short, MaxChartPoints); r.Reduced != 0 || len(r.X) != 2 {
		t.Errorf("a short run was reduced: %+v", r)
	}
}

// TestInteractiveChartsData: the interactive charts come with what they show, not only their
// series — each chart's title, axis labels and height, the run's fault windows with their
// outcome to shade, and the amplification's "1 = no retries" line — so that interactive.js only
// draws (chart.Run.Charts).
func TestInteractiveChartsData(t *testing.T) {
	dir := spikeRun(t, "14s") // the spike runs from 10 s
	run, err := chart.ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	v, err := newInteractive(run)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Charts []chartPanel
		X      []float64
	}
	if err := json.Unmarshal([]byte(v.Data), &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Charts) != 2 || !slices.Equal(v.Names, []string{"rates", "amplification"}) {
		t.Fatalf("charts %+v, names %v: want rates and amplification", d.Charts, v.Names)
	}
	rates, amp := d.Charts[0], d.Charts[1]
	if rates.Title != "All client groups: rates per second" || rates.YLabel != "per second" || rates.XLabel != "time (s)" ||
		amp.Title != "Retry amplification: attempts ÷ operations" || amp.YLabel != "attempts ÷ operation" || !(rates.Weight > amp.Weight) {
		t.Errorf("titles, labels, weights: %+v %+v", rates, amp)
	}
	for _, c := range d.Charts {
		if len(c.Bands) != 1 || c.Bands[0].Start != 10 || c.Bands[0].End != 14 || !strings.HasPrefix(c.Bands[0].Label, "spike") ||
			!strings.HasPrefix(c.Bands[0].Fill, "rgba(") {
			t.Errorf("chart %s: windows %+v, want the spike's, 10 s to the end at 14 s, translucent", c.Name, c.Bands)
		}
	}
	// The configured ceiling (spike: the ingress request limiter of 1000/s on db) across the
	// rates, named on its line; "1 = no retries" across the amplification.
	const ceiling = "configured ceiling 1000/s (ingress request limiter 1000/s on db)"
	if len(amp.Refs) != 1 || amp.Refs[0].Y != 1 || amp.Refs[0].Label != "1 = no retries" ||
		len(rates.Refs) != 1 || rates.Refs[0].Y != 1000 || rates.Refs[0].Label != ceiling {
		t.Errorf("reference lines: rates %+v, amplification %+v; want the ceiling at 1000/s on the rates and 1 = no retries on the amplification", rates.Refs, amp.Refs)
	}
	// Offered coincides with goodput before the spike: drawn after it (on top), dashed and
	// narrower, so that neither hides the other.
	var series []chartSeries
	if err := json.Unmarshal([]byte(v.Data), &struct{ Series *[]chartSeries }{&series}); err != nil {
		t.Fatal(err)
	}
	at := map[string]int{}
	for i, s := range series {
		at[s.Label] = i
	}
	off, good := series[at["offered"]], series[at["goodput"]]
	if !(at["offered"] > at["goodput"]) || len(off.Dash) == 0 || len(good.Dash) != 0 || !(off.Width < good.Width) {
		t.Errorf("offered %+v (drawn %d), goodput %+v (drawn %d): want offered drawn after goodput, dashed, narrower", off, at["offered"], good, at["goodput"])
	}
}
