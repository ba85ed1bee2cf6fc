package results

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"gonum.org/v1/gonum/stat"
)

// latencies returns n log-normally distributed latencies around 5 ms (σ = 1.5, so they span
// microseconds to seconds and many HdrHistogram buckets), from a fixed seed.
func latencies(seed uint64, n int) []time.Duration {
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = time.Duration(5e6 * math.Exp(1.5*rng.NormFloat64()))
	}
	return out
}

// TestHistogramQuantilesMatchEmpirical: on small samples every quantile is within
// HistogramRelativeError of the exact empirical quantile, gonum's
// stat.Quantile(p, stat.Empirical, sorted, nil) (docs/conventions.md §9).
func TestHistogramQuantilesMatchEmpirical(t *testing.T) {
	ps := []float64{0, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.94, 0.99, 0.999, 1}
	for _, n := range []int{1, 2, 7, 10, 100, 1000} {
		for seed := uint64(1); seed <= 5; seed++ {
			var h Histogram
			sorted := make([]float64, 0, n)
			for _, d := range latencies(seed, n) {
				h.Record(d)
				sorted = append(sorted, d.Seconds())
			}
			slices.Sort(sorted)
			for _, p := range ps {
				want := stat.Quantile(p, stat.Empirical, sorted, nil)
				got := h.Quantile(p)
				if math.Abs(got-want) > HistogramRelativeError*want {
					t.Errorf("n=%d seed=%d: Quantile(%v) = %v, want %v within %.3g relative", n, seed, p, got, want, HistogramRelativeError)
				}
			}
			if h.Count() != uint64(n) {
				t.Errorf("n=%d: Count() = %d", n, h.Count())
			}
		}
	}
}

// TestHistogramSmallValuesExact: below 256 ns every value has its own bucket, so quantiles are
// exact.
func TestHistogramSmallValuesExact(t *testing.T) {
	var h Histogram
	var sorted []float64
	for v := 0; v < 256; v += 3 {
		h.Record(time.Duration(v))
		sorted = append(sorted, float64(v)/1e9)
	}
	for _, p := range []float64{0, 0.3, 0.5, 0.77, 1} {
		if got, want := h.Quantile(p), stat.Quantile(p, stat.Empirical, sorted, nil); got != want {
			t.Errorf("Quantile(%v) = %v, want exactly %v", p, got, want)
		}
	}
}

// TestHistogramMergeIsUnion: merging histograms of parts gives the histogram of the whole, and
// the recording order does not matter (determinism).
func TestHistogramMergeIsUnion(t *testing.T) {
	all := latencies(7, 5000)
	var whole Histogram
	for _, d := range all {
		whole.Record(d)
	}
	var merged Histogram
	for _, part := range [][]time.Duration{all[:1], all[1:1700], all[1700:1700], all[1700:]} {
		var h Histogram
		for _, d := range part {
			h.Record(d)
		}
		merged.Merge(&h)
	}
	if !merged.Equal(&whole) {
		t.Errorf("merge of parts differs from the histogram of all values")
	}
	var reversed Histogram
	for i := len(all) - 1; i >= 0; i-- {
		reversed.Record(all[i])
	}
	if !reversed.Equal(&whole) {
		t.Errorf("recording in reverse order gives a different histogram")
	}
	for _, p := range []float64{0.5, 0.99, 0.999} {
		if merged.Quantile(p) != whole.Quantile(p) {
			t.Errorf("Quantile(%v): merged %v, whole %v", p, merged.Quantile(p), whole.Quantile(p))
		}
	}
	if merged.Mean() != whole.Mean() {
		t.Errorf("Mean: merged %v, whole %v", merged.Mean(), whole.Mean())
	}
	var h Histogram
	h.Record(time.Second)
	if h.Equal(&whole) || whole.Equal(&h) {
		t.Errorf("different histograms compare equal")
	}
}

// TestHistogramBucketGeometry: the bucket bounds Buckets and Quantile assume are HdrHistogram's
// for two significant digits (lowest and highest equivalent values of a single recorded value).
func TestHistogramBucketGeometry(t *testing.T) {
	for _, d := range append(latencies(3, 300), 0, 1, 255, 256, 257, 511, 512, time.Hour) {
		dense := hdrhistogram.New(1, int64(HistogramMax), histSigFigs)
		if err := dense.RecordValue(int64(d)); err != nil {
			t.Fatal(err)
		}
		var h Histogram
		h.Record(d)
		h.Buckets(func(lo, hi time.Duration, count uint64) bool {
			if int64(lo) != dense.ValueAtQuantile(0) || int64(hi) != dense.ValueAtQuantile(100) || count != 1 {
				t.Errorf("value %d: bucket [%d, %d] ×%d, HdrHistogram [%d, %d]", d, lo, hi, count, dense.ValueAtQuantile(0), dense.ValueAtQuantile(100))
			}
			if d < lo || d > hi {
				t.Errorf("value %d outside its bucket [%d, %d]", d, lo, hi)
			}
			return true
		})
	}
}

// TestHistogramEmptyAndClamped: an empty histogram has no quantiles or mean; out-of-range values
// are clamped, not lost.
func TestHistogramEmptyAndClamped(t *testing.T) {
	var h Histogram
	if !math.IsNaN(h.Quantile(0.5)) || !math.IsNaN(h.Mean()) || h.Count() != 0 {
		t.Errorf("empty: Quantile %v, Mean %v, Count %d; want NaN, NaN, 0", h.Quantile(0.5), h.Mean(), h.Count())
	}
	h.Record(-time.Second)
	h.Record(48 * time.Hour)
	if h.Count() != 2 {
		t.Errorf("Count() = %d, want 2", h.Count())
	}
	if got := h.Quantile(0); got != 0 {
		t.Errorf("Quantile(0) = %v, want 0 (negative clamped)", got)
	}
	if got, want := h.Quantile(1), HistogramMax.Seconds(); math.Abs(got-want) > HistogramRelativeError*want {
		t.Errorf("Quantile(1) = %v, want %v (clamped to HistogramMax)", got, want)
	}
	c := h.Clone()
	c.Record(time.Millisecond)
	if h.Count() != 2 || c.Count() != 3 {
		t.Errorf("Clone is not independent: %d, %d", h.Count(), c.Count())
	}
}
