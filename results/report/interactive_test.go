package report

import (
	"math"
	"testing"
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
