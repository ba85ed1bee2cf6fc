package results

import (
	"math"
	"math/bits"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram geometry. Latencies are recorded in nanoseconds into HdrHistogram buckets with two
// significant decimal digits: 256 sub-buckets per power of two, so values below 256 ns have their
// own bucket and a bucket holding values ≥ 256 ns is at most 1/128 of its lowest value wide.
// Latencies above HistogramMax are recorded as HistogramMax.
const (
	histSigFigs = 2
	// HistogramMax is the largest latency a Histogram tells apart (24 h of virtual time).
	HistogramMax = 24 * time.Hour
	// HistogramRelativeError bounds |estimate − exact| / exact for every quantile a Histogram
	// reports: the estimate is the midpoint of the exact value's bucket, which is at most
	// 1/128 of its lowest value wide, so the midpoint is within 1/256 (0.39 %) of any value in it.
	HistogramRelativeError = 1.0 / 256
	histSubBucketBits      = 8 // log2 of the 256 sub-buckets that two significant digits need
)

// Histogram is a latency histogram: HdrHistogram's log-linear buckets (Tene) in its sparse
// PackedHistogram form, plus the exact sum of the values for the mean.
//
// Bucket indices come from integer arithmetic on the value (no floating point), so the same
// values give the same buckets on every machine, in any recording order. Merging adds bucket
// counts, so the merge of two histograms equals one histogram of all their values. Memory grows
// with the number of distinct buckets, not with the number of values.
//
// The zero value is an empty histogram ready to use. A Histogram must not be copied after the
// first Record (copies would share storage); Clone makes an independent copy.
type Histogram struct {
	p   *hdrhistogram.PackedHistogram // nil while empty
	sum int64                         // nanoseconds, saturating
}

func newPacked() *hdrhistogram.PackedHistogram {
	return hdrhistogram.NewPacked(1, int64(HistogramMax), histSigFigs)
}

// Record adds one latency. Negative latencies are recorded as 0, latencies above HistogramMax
// as HistogramMax.
func (h *Histogram) Record(d time.Duration) {
	d = min(max(d, 0), HistogramMax)
	if h.p == nil {
		h.p = newPacked()
	}
	_ = h.p.RecordValue(int64(d)) // in range by the clamp above
	if h.sum > math.MaxInt64-int64(d) {
		h.sum = math.MaxInt64
	} else {
		h.sum += int64(d)
	}
}

// Merge adds the values of o to h.
func (h *Histogram) Merge(o *Histogram) {
	if o.Count() == 0 {
		return
	}
	if h.p == nil {
		h.p = newPacked()
	}
	h.p.Merge(o.p)
	if h.sum > math.MaxInt64-o.sum {
		h.sum = math.MaxInt64
	} else {
		h.sum += o.sum
	}
}

// Clone returns an independent copy of h.
func (h *Histogram) Clone() Histogram {
	c := Histogram{sum: h.sum}
	if h.p != nil {
		c.p = h.p.Clone()
	}
	return c
}

// Count returns the number of values recorded.
func (h *Histogram) Count() uint64 {
	if h.p == nil {
		return 0
	}
	return uint64(h.p.TotalCount())
}

// Mean returns the exact mean of the values in seconds, NaN when empty.
func (h *Histogram) Mean() float64 {
	n := h.Count()
	if n == 0 {
		return math.NaN()
	}
	return float64(h.sum) / float64(n) / 1e9
}

// Quantile returns an estimate of the p-quantile of the values in seconds, NaN when empty.
//
// The quantile is the empirical one that gonum's stat.Quantile(p, stat.Empirical, sorted, nil)
// computes — the smallest value whose cumulative count reaches p·n — and the estimate is the
// midpoint of that value's bucket, within HistogramRelativeError of it.
func (h *Histogram) Quantile(p float64) float64 {
	n := h.Count()
	if n == 0 || math.IsNaN(p) {
		return math.NaN()
	}
	target := p * float64(n)
	var cum int64
	est := math.NaN()
	h.p.ForEachBucket(func(value, count int64) bool {
		est = float64(bucketMid(value))
		cum += count
		return float64(cum) < target
	})
	return est / 1e9
}

// MergedQuantile returns the p-quantile (Quantile) of the values of hs together, as if recorded
// into one histogram (Merge), leaving hs unchanged; NaN when all are empty.
func MergedQuantile(p float64, hs ...*Histogram) float64 {
	var all Histogram
	for _, h := range hs {
		all.Merge(h)
	}
	return all.Quantile(p)
}

// Buckets calls fn for every non-empty bucket in ascending order with its lowest and highest
// value and its count, stopping early if fn returns false.
func (h *Histogram) Buckets(fn func(lo, hi time.Duration, count uint64) bool) {
	if h.p == nil {
		return
	}
	h.p.ForEachBucket(func(value, count int64) bool {
		return fn(time.Duration(value), time.Duration(value+bucketWidth(value)-1), uint64(count))
	})
}

// Equal reports whether h and o hold the same bucket counts and the same sum.
func (h *Histogram) Equal(o *Histogram) bool {
	if h.Count() != o.Count() || h.sum != o.sum {
		return false
	}
	type bucket struct {
		lo    time.Duration
		count uint64
	}
	var a []bucket
	h.Buckets(func(lo, _ time.Duration, c uint64) bool { a = append(a, bucket{lo, c}); return true })
	i, same := 0, true
	o.Buckets(func(lo, _ time.Duration, c uint64) bool {
		same = i < len(a) && a[i] == bucket{lo, c}
		i++
		return same
	})
	return same && i == len(a)
}

// bucketWidth is the width of the bucket whose lowest value is v, in HdrHistogram's geometry for
// two significant digits and a lowest discernible value of 1: 1 below 2·128, doubling with every
// power of two above.
func bucketWidth(v int64) int64 {
	return int64(1) << max(0, bits.Len64(uint64(v))-histSubBucketBits)
}

// bucketMid is the midpoint of the bucket whose lowest value is v.
func bucketMid(v int64) int64 { return v + bucketWidth(v)/2 }
