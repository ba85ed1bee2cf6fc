package tipping

import "gonum.org/v1/gonum/mathext"

// judge is the test of one look: the side of 1/2 on which s stuck and r recovered runs put
// P(stuck), or Open when the exact binomial test at level beta cannot tell.
func judge(s, r int, beta float64) Verdict {
	switch n := s + r; {
	case n == 0:
		return Open
	case halfTail(n, s) <= beta:
		return StuckSide
	case halfTail(n, r) <= beta:
		return RecoveredSide
	}
	return Open
}

// halfTail is P(Bin(n, 1/2) ≥ k), the chance of k or more stuck runs out of n if P(stuck) were
// 1/2: the regularized incomplete beta function I_{1/2}(k, n−k+1).
func halfTail(n, k int) float64 {
	switch {
	case k <= 0:
		return 1
	case k > n:
		return 0
	}
	return mathext.RegIncBeta(float64(k), float64(n-k+1), 0.5)
}

// clopperPearson is the exact interval for P(stuck) from s stuck and r recovered runs, with
// probability at most beta of missing on either side.
func clopperPearson(s, r int, beta float64) (lo, hi float64) {
	n := s + r
	lo, hi = 0, 1
	if s > 0 {
		lo = mathext.InvRegIncBeta(float64(s), float64(n-s+1), beta)
	}
	if r > 0 {
		hi = mathext.InvRegIncBeta(float64(s+1), float64(r), 1-beta)
	}
	return lo, hi
}

// Interval is the exact (Clopper–Pearson) interval for P(stuck) from stuck and recovered runs,
// two-sided at the given level (0.95: each side misses with probability at most 2.5 %): what a
// search can say of P(stuck) at a value it probed, such as an end of an interval that brackets
// no flip.
func Interval(stuck, recovered int, level float64) (lo, hi float64) {
	return clopperPearson(stuck, recovered, (1-level)/2)
}
