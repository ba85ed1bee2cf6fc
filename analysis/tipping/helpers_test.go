package tipping

import "math"

// mix is the splitmix64 finaliser: a fixed bijection that scrambles bits, so synthetic outcomes
// are pseudo-random yet the same (seed, x, r) always gives the same outcome.
func mix(v uint64) uint64 {
	v += 0x9e3779b97f4a7c15
	v = (v ^ v>>30) * 0xbf58476d1ce4e5b9
	v = (v ^ v>>27) * 0x94d049bb133111eb
	return v ^ v>>31
}

// uniform is a deterministic number in [0, 1) for run r at x. With crn (common random
// numbers) it ignores x, as a simulator seeded by r alone would: each replication then has its
// own tipping point, and outcomes at different x are strongly dependent.
func uniform(seed uint64, x float64, r int, crn bool) float64 {
	h := mix(seed ^ mix(uint64(r)+1))
	if !crn {
		h = mix(h ^ math.Float64bits(x))
	}
	return float64(h>>11) / (1 << 53)
}

// logistic is P(stuck | x) = 1/(1 + exp(−(x − xstar)/scale)), mirrored when !increasing.
func logistic(x, xstar, scale float64, increasing bool) float64 {
	z := (x - xstar) / scale
	if !increasing {
		z = -z
	}
	return 1 / (1 + math.Exp(-z))
}

// logisticProbe draws outcomes with P(stuck | x) = logistic(x, xstar, scale, increasing).
func logisticProbe(seed uint64, xstar, scale float64, increasing, crn bool) Probe {
	return func(x float64, r int) (Outcome, error) {
		if uniform(seed, x, r, crn) < logistic(x, xstar, scale, increasing) {
			return Stuck, nil
		}
		return Recovered, nil
	}
}

// stepProbe is noise-free: stuck at and above c (increasing) or at and below c (decreasing).
func stepProbe(c float64, increasing bool) Probe {
	return func(x float64, r int) (Outcome, error) {
		if (x >= c) == increasing || x == c {
			return Stuck, nil
		}
		return Recovered, nil
	}
}

// minVerdictReps is the fewest runs, all one way, that pass a look at level beta.
func minVerdictReps(beta float64) int {
	n := 0
	for math.Ldexp(1, -n) > beta {
		n++
	}
	return n
}
