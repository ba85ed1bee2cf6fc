package results

import (
	"time"
)

// MSERBatch is the batch size of MSER-5.
const MSERBatch = 5

// MSER5 returns how many leading observations of xs to discard as warm-up, by MSER-5 (White
// 1997, "An effective truncation heuristic for bias reduction in simulation output", Simulation
// 69(6); White, Cobb & Spratt 2000): average xs in k = ⌊n/5⌋ consecutive batches of five,
// Z₁ … Z_k (a trailing remainder is ignored), and choose the batch count d that minimises
//
//	MSER(d) = Σ_{j=d+1..k} (Z_j − Z̄_d)² / (k − d)²,   Z̄_d = mean of Z_{d+1} … Z_k,
//
// the squared standard error of the mean of what remains. d ranges over the first half of the
// series, 0 ≤ d ≤ ⌊k/2⌋, and leaves at least two batches; ties go to the smaller d. The answer
// is 5·d observations. With fewer than two batches it is 0.
func MSER5(xs []float64) int {
	k := len(xs) / MSERBatch
	if k < 2 {
		return 0
	}
	z := make([]float64, k)
	for j := range z {
		var s float64
		for _, x := range xs[j*MSERBatch : (j+1)*MSERBatch] {
			s += x
		}
		z[j] = s / MSERBatch
	}
	best, bestStat := 0, 0.0
	for d := 0; d <= min(k/2, k-2); d++ {
		rest := z[d:]
		var mean float64
		for _, x := range rest {
			mean += x
		}
		mean /= float64(len(rest))
		var ss float64
		for _, x := range rest {
			dev := x - mean
			ss += float64(dev * dev) // explicit rounding: no fused multiply-add on any platform
		}
		n := float64(len(rest))
		stat := ss / float64(n*n)
		if d == 0 || stat < bestStat {
			best, bestStat = d, stat
		}
	}
	return best * MSERBatch
}

// AutoWarmup chooses the warm-up of s by MSER-5 (MSER5) applied to the total goodput of all
// client groups per whole interval: goodput is the quantity the summaries and checks are about,
// and summing the groups gives one series whatever the topology. The last, partial interval is
// left out. The result is the start of the first interval kept (0 when none is discarded).
func AutoWarmup(s *Series) time.Duration {
	pts := totals(s)
	xs := make([]float64, len(pts))
	for i, p := range pts {
		xs[i] = p.goodput
	}
	if d := MSER5(xs); d > 0 {
		return time.Duration(pts[d].start)
	}
	return 0
}
