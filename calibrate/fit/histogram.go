package fit

import (
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/gonum/optimize"
)

// MinRanges is the fewest non-empty ranges Histogram fits to. Two ranges leave a two-parameter
// family free to put all its mass on their common edge (σ → 0 for the lognormal, k → ∞ for the
// gamma), and one range says nothing at all about the shape.
const MinRanges = 3

// Bounds on the parameters while searching, wide enough for any latency histogram; a fit that
// ends on one says the histogram holds no evidence against going further.
const (
	minSigma = 1e-3
	maxSigma = 20
	minK     = 1e-3
	maxK     = 1e7
)

// Histogram fits each family to binned data by binned maximum likelihood and returns the fits in
// the order Exp, LogNormal, Gamma. Range i is [lower[i], lower[i+1]) and the last range is
// [lower[len−1], ∞), in seconds; counts[i] is the number of samples in range i. Every range must
// be listed, empty ones with a count of 0, since the next range's lower bound is this one's
// upper bound: for MongoDB's opLatencies, lower is results/serverstatus.LowerBounds in seconds
// and the buckets a document leaves out count 0.
//
// An error (a *field.Error after "fit: ") names what is wrong: no ranges, lower and counts of
// different lengths, bounds that are negative, not finite or not increasing, a negative count,
// a total below MinSamples, or fewer than MinRanges non-empty ranges.
func Histogram(lower []float64, counts []int64) ([]Fit, error) {
	if err := checkHistogram(lower, counts); err != nil {
		return nil, err
	}
	h := newHist(lower, counts)
	fits := make([]Fit, len(families))
	for i, fam := range families {
		fits[i] = h.fit(fam)
	}
	return fits, nil
}

func checkHistogram(lower []float64, counts []int64) error {
	if len(lower) == 0 {
		return invalid("lower", "0 ranges", "need at least "+strconv.Itoa(MinRanges)+" ranges with counts")
	}
	if len(counts) != len(lower) {
		return invalid("counts", strconv.Itoa(len(counts))+" counts",
			"need one per range of lower, "+strconv.Itoa(len(lower)))
	}
	for i, l := range lower {
		name := "lower[" + strconv.Itoa(i) + "]"
		switch {
		case !(l >= 0 && l <= maxSeconds):
			return invalid(name, formatFloat(l), "must be a number of seconds in [0, "+formatFloat(maxSeconds)+"] (dist.MaxDuration)")
		case i > 0 && l <= lower[i-1]:
			return invalid(name, formatFloat(l), "must be > lower["+strconv.Itoa(i-1)+"] = "+formatFloat(lower[i-1])+": the ranges must increase")
		}
	}
	var total int64
	nonEmpty := 0
	for i, c := range counts {
		if c < 0 {
			return invalid("counts["+strconv.Itoa(i)+"]", strconv.FormatInt(c, 10), "must be ≥ 0")
		}
		if total > math.MaxInt64-c {
			return invalid("counts", "a total beyond 2⁶³−1", "must fit in an int64")
		}
		total += c
		if c > 0 {
			nonEmpty++
		}
	}
	if total < MinSamples {
		return invalid("counts", fmt.Sprintf("%d samples in all", total), "need at least "+strconv.Itoa(MinSamples))
	}
	if nonEmpty < MinRanges {
		return invalid("counts", fmt.Sprintf("%d samples in %s", total, plural(nonEmpty, "non-empty range")),
			"need at least "+strconv.Itoa(MinRanges)+" non-empty ranges to fit a shape")
	}
	return nil
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// hist is a validated histogram: the non-empty ranges, and the totals below each edge for KS.
type hist struct {
	lo, hi []float64 // the non-empty ranges [lo[j], hi[j]), hi possibly +Inf
	c      []float64 // their counts
	n      float64   // total count
	edges  []float64 // every finite range edge above 0, increasing
	below  []float64 // the fraction of the count below each edge, the empirical CDF there
}

func newHist(lower []float64, counts []int64) *hist {
	h := &hist{}
	var total int64
	for _, c := range counts {
		total += c
	}
	h.n = float64(total)
	var cum int64
	for i, l := range lower {
		if l > 0 {
			h.edges = append(h.edges, l)
			h.below = append(h.below, float64(cum)/h.n)
		}
		cum += counts[i]
		if counts[i] == 0 {
			continue
		}
		hi := math.Inf(1)
		if i+1 < len(lower) {
			hi = lower[i+1]
		}
		h.lo, h.hi, h.c = append(h.lo, l), append(h.hi, hi), append(h.c, float64(counts[i]))
	}
	return h
}

// logLik is the binned log-likelihood Σ cᵢ·ln Pᵢ of the model.
func (h *hist) logLik(m model) float64 {
	ll := 0.0
	for j := range h.c {
		ll += float64(h.c[j] * m.logProb(h.lo[j], h.hi[j]))
	}
	return ll
}

// ks is the largest gap between the model's CDF and the empirical CDF at the range edges, the
// only points where the histogram knows its CDF.
func (h *hist) ks(m model) float64 {
	d := 0.0
	for i, e := range h.edges {
		d = max(d, math.Abs(m.cdf(e)-h.below[i]))
	}
	return d
}

// start is the search's starting point for family, from the histogram's ranges stood in for
// by one point each (the geometric midpoint of [l, u), u/2 for [0, u), 2l for the open last
// range) and the estimators of Samples applied to the points with the counts as weights.
func (h *hist) start(family string) (mean, shape float64) {
	var sum, sumLog float64
	pts := make([]float64, len(h.c))
	for j := range h.c {
		switch lo, hi := h.lo[j], h.hi[j]; {
		case math.IsInf(hi, 1):
			pts[j] = 2 * lo
		case lo == 0:
			pts[j] = hi / 2
		default:
			pts[j] = math.Sqrt(lo) * math.Sqrt(hi)
		}
		sum += float64(h.c[j] * pts[j])
		sumLog += float64(h.c[j] * math.Log(pts[j]))
	}
	mean = sum / h.n
	meanLog := sumLog / h.n
	var ss, s float64
	for j, x := range pts {
		dl := math.Log(x) - meanLog
		ss += float64(float64(h.c[j]*dl) * dl)
		d := (x - mean) / mean
		s += float64(h.c[j] * (d - math.Log1p(d)))
	}
	switch family {
	case LogNormal:
		return mean, min(max(math.Sqrt(ss/h.n), 0.05), 5)
	case Gamma:
		return mean, min(max(gammaShape(max(s/h.n, 1e-12)), 0.05), 1e4)
	}
	return mean, 0
}

// fit maximises the binned likelihood of family over (ln mean, ln shape) with Nelder–Mead,
// from start, then once more from where the first search stopped (a restart recovers from a
// simplex that collapsed early). The objective is −lnL/n, so that the convergence threshold
// does not depend on the count.
func (h *hist) fit(family string) Fit {
	mean, shape := h.start(family)
	x := []float64{math.Log(mean)}
	if family != Exp {
		x = append(x, math.Log(shape))
	}
	at := func(x []float64) model {
		k := 0.0
		if len(x) > 1 {
			k = math.Exp(x[1])
		}
		return newModel(family, math.Exp(x[0]), k)
	}
	lo, hi := h.lo[0], h.hi[len(h.hi)-1]
	if math.IsInf(hi, 1) {
		hi = h.lo[len(h.lo)-1]
	}
	lo = max(lo, h.edges[0]) // the lowest edge above 0
	minMean, maxMean := math.Log(lo)-math.Log(1e6), math.Log(hi)+math.Log(1e6)
	problem := optimize.Problem{Func: func(x []float64) float64 {
		if !(x[0] >= minMean && x[0] <= maxMean) {
			return math.Inf(1)
		}
		if len(x) > 1 {
			lo, hi := math.Log(minSigma), math.Log(maxSigma)
			if family == Gamma {
				lo, hi = math.Log(minK), math.Log(maxK)
			}
			if !(x[1] >= lo && x[1] <= hi) {
				return math.Inf(1)
			}
		}
		return -h.logLik(at(x)) / h.n
	}}
	for _, size := range []float64{0.2, 0.02} {
		settings := &optimize.Settings{
			Converger:       &optimize.FunctionConverge{Absolute: 1e-13, Iterations: 50},
			MajorIterations: 10000,
			Concurrent:      1, // one evaluation at a time: the search is a sequence, the same on every run
		}
		res, err := optimize.Minimize(problem, x, settings, &optimize.NelderMead{SimplexSize: size})
		if err == nil && res != nil && res.F < problem.Func(x) {
			x = res.X
		}
	}
	m := at(x)
	f := Fit{Family: family, Mean: m.mean, Shape: m.shape, LogLik: h.logLik(m), KS: h.ks(m), N: int64(h.n)}
	f.AIC = aic(family, f.LogLik)
	return f
}
