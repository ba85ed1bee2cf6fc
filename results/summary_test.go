package results

import (
	"math"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/sim"
)

// goodputSeries returns a series of one group "app" with one-second intervals whose goodput is
// goodput[i] operations/s in interval i (issued = succeeded), and the given triggers.
func goodputSeries(goodput []uint64, faults ...FaultWindow) *Series {
	s := &Series{Interval: time.Second, Faults: faults}
	for i, g := range goodput {
		start := sim.Time(time.Duration(i) * time.Second)
		s.Groups = append(s.Groups, GroupInterval{Start: start, End: start.Add(time.Second), Name: "app",
			Issued: g, Succeeded: g, Attempts: g, TokensMin: math.NaN()})
	}
	return s
}

// repeat returns n copies of v.
func repeat(v uint64, n int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func seq(parts ...[]uint64) []uint64 {
	var out []uint64
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func at(secs float64) sim.Time { return sim.FromSeconds(secs) }

func sameFloat(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }

// TestMSER5KnownTransient: a linear ramp over the first 20 observations, then a steady level with
// ±1 alternating noise. MSER-5 removes exactly the four ramp batches: keeping any ramp batch
// adds a squared deviation of at least 15², and removing steady batches only shrinks k − d.
func TestMSER5KnownTransient(t *testing.T) {
	var xs []float64
	for i := 0; i < 20; i++ {
		xs = append(xs, float64(5*i))
	}
	for i := 0; i < 180; i++ {
		xs = append(xs, 100+float64(1-2*(i%2)))
	}
	if got := MSER5(xs); got != 20 {
		t.Errorf("MSER5(ramp then steady) = %d, want 20", got)
	}
	steady := xs[20:]
	if got := MSER5(steady); got != 0 {
		t.Errorf("MSER5(steady) = %d, want 0", got)
	}
	if got := MSER5(xs[:9]); got != 0 {
		t.Errorf("MSER5(9 observations) = %d, want 0 (fewer than two batches)", got)
	}
	// A transient longer than half the series cannot be removed: d stops at k/2.
	long := append(append([]float64{}, make([]float64, 150)...), steady[:50]...)
	for i := range 150 {
		long[i] = float64(i)
	}
	if got := MSER5(long); got > len(long)/2 {
		t.Errorf("MSER5 truncated %d of %d, beyond the first half", got, len(long))
	}
}

// TestAutoWarmup: AutoWarmup applies MSER-5 to the total goodput of all groups and returns the
// start of the first kept interval; Summarize then drops the intervals before it.
func TestAutoWarmup(t *testing.T) {
	var g []uint64
	for i := 0; i < 20; i++ {
		g = append(g, uint64(5*i))
	}
	for i := 0; i < 180; i++ {
		g = append(g, uint64(100+1-2*(i%2)))
	}
	s := goodputSeries(g)
	if got := AutoWarmup(s); got != 20*time.Second {
		t.Errorf("AutoWarmup = %v, want 20s", got)
	}
	sum := Summarize(s, 20*time.Second)
	if sum.Measured != 180*time.Second || sum.Total.Goodput != 100 {
		t.Errorf("Summarize(warmup 20s): measured %v, goodput %v; want 180s, 100", sum.Measured, sum.Total.Goodput)
	}
	// A warm-up inside an interval drops that whole interval.
	if got := Summarize(s, 19500*time.Millisecond).Measured; got != 180*time.Second {
		t.Errorf("Summarize(warmup 19.5s).Measured = %v, want 180s", got)
	}
}
