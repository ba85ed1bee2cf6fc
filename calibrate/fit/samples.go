package fit

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/overloadsim/overloadsim/dist"
	"github.com/overloadsim/overloadsim/field"
)

// maxSeconds is the largest sample or range edge accepted: dist.MaxDuration in seconds, the
// largest mean a distribution can have. It keeps every sum of samples finite.
var maxSeconds = dist.MaxDuration.Seconds()

// formatFloat prints a value in an error as Go would read it back.
func formatFloat(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// invalid is the error for field holding value, which breaks rule.
func invalid(name, value, rule string) error {
	return fmt.Errorf("fit: %w", field.New(name, value, rule))
}

// Samples fits each family to xs, positive durations in seconds, by maximum likelihood, and
// returns the fits in the order Exp, LogNormal, Gamma (see the package documentation for the
// estimators). Pass the result to Best to choose one. xs is not modified.
//
// An error (a *field.Error after "fit: ") names what is wrong: fewer than MinSamples values,
// a value that is not a finite number in (0, dist.MaxDuration], or values all within MinSpread
// of one another, which have no shape to fit (const fits them).
func Samples(xs []float64) ([]Fit, error) {
	if len(xs) < MinSamples {
		return nil, invalid("samples", strconv.Itoa(len(xs))+" values", "need at least "+strconv.Itoa(MinSamples))
	}
	for i, x := range xs {
		if !(x > 0 && x <= maxSeconds) { // also false for NaN
			return nil, invalid("samples["+strconv.Itoa(i)+"]", formatFloat(x),
				"must be a number of seconds in (0, "+formatFloat(maxSeconds)+"] (dist.MaxDuration)")
		}
	}
	sorted := slices.Clone(xs)
	slices.Sort(sorted)
	if lo, hi := sorted[0], sorted[len(sorted)-1]; hi <= lo+float64(lo*MinSpread) {
		return nil, invalid("samples", fmt.Sprintf("%d values in [%s, %s]", len(xs), formatFloat(lo), formatFloat(hi)),
			"no spread to fit a shape to: the largest must exceed the smallest by "+formatFloat(MinSpread)+" of it (a constant fits them)")
	}

	// The sums run over the sorted copy, so that the fits do not depend on the order of xs.
	n := float64(len(sorted))
	var sum, sumLog float64
	for _, x := range sorted {
		sum += x
		sumLog += math.Log(x)
	}
	mean, meanLog := sum/n, sumLog/n

	// Lognormal: μ and σ² are the mean and the (1/n) variance of ln x.
	var ss float64
	for _, x := range sorted {
		d := math.Log(x) - meanLog
		ss += float64(d * d)
	}
	sigma := math.Sqrt(ss / n)

	// Gamma: s = ln(mean) − mean(ln x) = mean(d − ln(1+d)) with d = x/mean − 1, a sum of
	// non-negative terms that keeps its digits when the samples are close together.
	var s float64
	for _, x := range sorted {
		d := (x - mean) / mean
		s += d - math.Log1p(d)
	}
	s /= n
	k := gammaShape(s)
	theta := mean / k
	lgk, _ := math.Lgamma(k)

	fits := []Fit{
		{Family: Exp, Mean: mean,
			LogLik: -float64(n*math.Log(mean)) - n},
		{Family: LogNormal, Mean: math.Exp(meanLog + float64(0.5*float64(sigma*sigma))), Shape: sigma,
			LogLik: -sumLog - float64(n*(math.Log(sigma)+halfLog2Pi+0.5))},
		{Family: Gamma, Mean: mean, Shape: k,
			LogLik: float64((k-1)*sumLog) - float64(n*k) - float64(n*lgk) - float64(float64(n*k)*math.Log(theta))},
	}
	for i := range fits {
		f := &fits[i]
		f.N = int64(len(sorted))
		f.AIC = aic(f.Family, f.LogLik)
		f.KS = ksSamples(sorted, newModel(f.Family, f.Mean, f.Shape))
	}
	return fits, nil
}

// halfLog2Pi is ln(2π)/2, the normal density's constant.
var halfLog2Pi = float64(0.5 * math.Log(2*math.Pi))

// ksSamples is sup |Fₙ(x) − F(x)| for the sorted sample: at a run of equal values
// sorted[i:j], Fₙ steps from i/n to j/n, and the gap is largest at one of the two.
func ksSamples(sorted []float64, m model) float64 {
	n := float64(len(sorted))
	d := 0.0
	for i := 0; i < len(sorted); {
		j := i + 1
		for j < len(sorted) && sorted[j] == sorted[i] {
			j++
		}
		c := m.cdf(sorted[i])
		d = max(d, math.Abs(float64(j)/n-c), math.Abs(c-float64(i)/n))
		i = j
	}
	return d
}
