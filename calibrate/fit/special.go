package fit

import "math"

// logMinusDigamma is ln k − ψ(k) for k > 0 (ψ the digamma function): the left side of the
// gamma shape's likelihood equation. It falls from +∞ at 0 towards 0 like 1/(2k).
//
// For k ≥ 20 it is the asymptotic series (Abramowitz and Stegun 6.3.18)
//
//	ln k − ψ(k) = 1/(2k) + 1/(12k²) − 1/(120k⁴) + 1/(252k⁶) − 1/(240k⁸) + 1/(132k¹⁰) − …,
//
// whose first omitted term, 691/(32760k¹²), is below 1e-16 of the sum there; below 20 the
// recurrence ψ(k) = ψ(k+n) − Σ_{j<n} 1/(k+j) moves it up to x = k+n ≥ 20:
//
//	ln k − ψ(k) = −ln(1 + n/k) + (ln x − ψ(x)) + Σ_{j<n} 1/(k+j).
//
// Written out here rather than as ln k − mathext.Digamma(k), because for a large k the two terms
// agree in every digit that a float64 holds, and the shape of nearly constant data is lost.
func logMinusDigamma(k float64) float64 {
	x, sum, n := k, 0.0, 0.0
	for x < 20 {
		sum += 1 / x
		x++
		n++
	}
	y := 1 / float64(x*x)
	t := 1.0 / 132
	t = 1.0/240 - float64(y*t)
	t = 1.0/252 - float64(y*t)
	t = 1.0/120 - float64(y*t)
	t = 1.0/12 - float64(y*t)
	tail := 0.5/x + float64(y*t)
	if n == 0 {
		return tail
	}
	return tail + sum - math.Log1p(n/k)
}

// gammaShape solves ln k − ψ(k) = s for k, s > 0: the maximum-likelihood shape of a gamma
// fitted to samples with s = ln(mean) − mean(ln x). Minka's approximation ("Estimating a Gamma
// distribution", 2002) starts a bracket, doubled outwards until it holds the root, and bisection
// on ln k narrows it until the midpoint equals an end, so the result is the float64 root to the
// last bit and the same on every machine. The result is capped to [1e-300, 1e300].
func gammaShape(s float64) float64 {
	k0 := (3 - s + math.Sqrt(float64((s-3)*(s-3))+float64(24*s))) / float64(12*s)
	f := func(k float64) float64 { return logMinusDigamma(k) - s } // decreasing in k
	lo, hi := float64(k0/2), float64(k0*2)
	for f(lo) < 0 && lo > 1e-300 {
		lo /= 2
	}
	for f(hi) > 0 && hi < 1e300 {
		hi *= 2
	}
	for {
		mid := math.Sqrt(lo) * math.Sqrt(hi) // geometric: the root may be anywhere in 600 decades
		if mid <= lo || mid >= hi {
			return mid
		}
		if f(mid) > 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
}
