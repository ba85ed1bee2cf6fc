package main

import (
	"math"
	"slices"
	"sort"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// welch returns Welch's t statistic (y's mean minus x's over the standard error), its
// Welch–Satterthwaite degrees of freedom and the two-sided p-value that the two means are
// equal. Both samples need at least two values. With no spread on either side the p-value is 1
// when the means are equal and 0 when they differ.
func welch(x, y []float64) (t, df, p float64) {
	m1, s1 := stat.MeanStdDev(x, nil)
	m2, s2 := stat.MeanStdDev(y, nil)
	n1, n2 := float64(len(x)), float64(len(y))
	v1, v2 := float64(s1*s1)/n1, float64(s2*s2)/n2 // the variances of the means
	se := math.Sqrt(v1 + v2)
	if se == 0 {
		if m1 == m2 {
			return 0, math.NaN(), 1
		}
		return math.Inf(1), math.NaN(), 0
	}
	t = (m2 - m1) / se
	df = (v1 + v2) * (v1 + v2) / (float64(v1*v1)/(n1-1) + float64(v2*v2)/(n2-1))
	p = float64(2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Survival(math.Abs(t)))
	return t, df, min(p, 1)
}

// ksTest returns the two-sample Kolmogorov–Smirnov statistic D, the largest distance between
// the empirical distribution functions of x and y (gonum's stat.KolmogorovSmirnov), and its
// asymptotic p-value with the small-sample correction of Stephens (1970), as Numerical Recipes
// (Press et al., 3rd ed., §14.3.3, eq. 14.3.18) gives it: p = Q_KS(λ),
// λ = (√nₑ + 0.12 + 0.11/√nₑ)·D, nₑ = n·m/(n+m). Neither sample may be empty.
func ksTest(x, y []float64) (d, p float64) {
	xs, ys := slices.Clone(x), slices.Clone(y)
	sort.Float64s(xs)
	sort.Float64s(ys)
	d = stat.KolmogorovSmirnov(xs, nil, ys, nil)
	n, m := float64(len(x)), float64(len(y))
	ne := math.Sqrt(n * m / (n + m))
	lambda := float64((ne + 0.12 + 0.11/ne) * d)
	return d, kolmogorovQ(lambda)
}

// kolmogorovQ is the survival function of the Kolmogorov distribution,
//
//	Q_KS(λ) = 2 Σ_{j≥1} (−1)^{j−1} e^{−2j²λ²},
//
// summed in that form for λ ≥ 1.18 and as 1 − (√(2π)/λ) Σ_{j≥1} e^{−(2j−1)²π²/(8λ²)} below, where
// the first converges slowly (Numerical Recipes, 3rd ed., §6.14.12).
func kolmogorovQ(lambda float64) float64 {
	switch {
	case lambda <= 0:
		return 1
	case lambda < 1.18:
		y := math.Exp(-math.Pi * math.Pi / float64(8*lambda*lambda))
		sum := 0.0
		for j := 1; j <= 10; j++ {
			k := float64(2*j - 1)
			sum += math.Pow(y, k*k)
		}
		return clamp01(1 - float64(math.Sqrt(2*math.Pi)/lambda)*sum)
	default:
		sum, sign := 0.0, 1.0
		for j := 1; j <= 100; j++ {
			jj := float64(j * j)
			term := math.Exp(-2 * jj * lambda * lambda)
			sum += sign * term
			if term < 1e-17 {
				break
			}
			sign = -sign
		}
		return clamp01(2 * sum)
	}
}

func clamp01(x float64) float64 { return math.Max(0, math.Min(1, x)) }

// fisherExact returns the two-sided p-value of Fisher's exact test on the 2×2 table
//
//	a b
//	c d
//
// with its margins fixed: the summed hypergeometric probabilities of every table with those
// margins that is no more probable than the one observed (the rule of R's fisher.test, with the
// same relative tolerance of 10⁻⁷ for ties).
func fisherExact(a, b, c, d int) float64 {
	row1, col1, n := a+b, a+c, a+b+c+d
	if n == 0 {
		return 1
	}
	lf := func(k int) float64 { v, _ := math.Lgamma(float64(k + 1)); return v }
	// The probability of the table whose top-left cell is x.
	logP := func(x int) float64 {
		return lf(row1) + lf(n-row1) + lf(col1) + lf(n-col1) -
			(lf(x) + lf(row1-x) + lf(col1-x) + lf(n-row1-col1+x) + lf(n))
	}
	obs := logP(a)
	lo, hi := max(0, row1+col1-n), min(row1, col1)
	p := 0.0
	for x := lo; x <= hi; x++ {
		if lp := logP(x); lp <= obs+1e-7 {
			p += math.Exp(lp)
		}
	}
	return clamp01(p)
}

// z95 is the standard normal quantile of 0.975, for 95 % intervals.
var z95 = distuv.UnitNormal.Quantile(0.975)

// wilson returns the Wilson score interval of a proportion of k successes in n trials at the
// normal quantile z (no continuity correction):
//
//	(p̂ + z²/2n ± z·√(p̂(1−p̂)/n + z²/4n²)) / (1 + z²/n).
func wilson(k, n int, z float64) (lo, hi float64) {
	if n == 0 {
		return 0, 1
	}
	nn := float64(n)
	p := float64(k) / nn
	z2 := float64(z * z)
	den := 1 + z2/nn
	centre := (p + z2/(2*nn)) / den
	half := float64(z*math.Sqrt(float64(p*(1-p))/nn+z2/float64(4*nn*nn))) / den
	return clamp01(centre - half), clamp01(centre + half)
}

// holm applies the Holm–Bonferroni step-down procedure at family-wise level alpha to ps and
// returns each hypothesis's adjusted p-value and whether it is rejected. With the p-values
// sorted, p₍₁₎ ≤ … ≤ p₍ₘ₎, the adjusted value of p₍ᵢ₎ is max over j ≤ i of min(1, (m−j+1)·p₍ⱼ₎),
// and a hypothesis is rejected when its adjusted value is at most alpha: every hypothesis up to
// the first p₍ᵢ₎ > alpha/(m−i+1), and none after. Ties keep their input order.
func holm(ps []float64, alpha float64) (adjusted []float64, rejected []bool) {
	m := len(ps)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return ps[order[a]] < ps[order[b]] })
	adjusted, rejected = make([]float64, m), make([]bool, m)
	run := 0.0
	for rank, i := range order {
		run = math.Max(run, math.Min(1, float64(m-rank)*ps[i]))
		adjusted[i] = run
		rejected[i] = run <= alpha
	}
	return adjusted, rejected
}
