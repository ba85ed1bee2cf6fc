// Package stats computes the summary statistics overloadsim reports across independent
// replications: means with Student-t confidence intervals.
package stats

import (
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// MeanCI returns the sample mean of xs and the half-width of its two-sided confidence interval
// at the given level (e.g. 0.95), using Student's t with len(xs)−1 degrees of freedom:
// half = t_{(1+level)/2, n−1} · s / √n. With fewer than two samples the half-width is NaN.
func MeanCI(xs []float64, level float64) (mean, half float64) {
	n := len(xs)
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	mean, sd := stat.MeanStdDev(xs, nil)
	if n < 2 {
		return mean, math.NaN()
	}
	// Quantile draws no random numbers, so the nil Src is never used.
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile((1 + level) / 2)
	return mean, t * sd / math.Sqrt(float64(n))
}

// WelchP returns the two-sided p-value of Welch's t-test that two means differ, from each
// mean's confidence half-width at level over n replications (as MeanCI gives them): the
// standard deviations are recovered as half · √n / t_{(1+level)/2, n−1}. It is NaN when either
// side has fewer than two replications or no finite half-width.
func WelchP(m1, h1 float64, n1 int, m2, h2 float64, n2 int, level float64) float64 {
	if n1 < 2 || n2 < 2 || math.IsNaN(h1) || math.IsNaN(h2) || math.IsInf(h1, 0) || math.IsInf(h2, 0) {
		return math.NaN()
	}
	v := func(h float64, n int) float64 { // the variance of the mean, sd²/n
		t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile((1 + level) / 2)
		return float64((h / t) * (h / t))
	}
	v1, v2 := v(h1, n1), v(h2, n2)
	se := math.Sqrt(v1 + v2)
	if se == 0 {
		if m1 == m2 {
			return 1
		}
		return 0
	}
	t := (m2 - m1) / se
	df := (v1 + v2) * (v1 + v2) / (v1*v1/float64(n1-1) + v2*v2/float64(n2-1))
	return float64(2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Survival(math.Abs(t)))
}
