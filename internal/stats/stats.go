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
