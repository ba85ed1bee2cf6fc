package splitting

import (
	"math"
	"testing"
)

// TestWilson checks the Wilson score interval against values computed from its formula by hand
// (z = 1.96): 0/10 → [0, 0.2775], 5/10 → [0.2366, 0.7634], 10/10 → [0.7225, 1].
func TestWilson(t *testing.T) {
	for _, c := range []struct {
		h, n   int
		lo, hi float64
	}{{0, 10, 0, 0.2775}, {5, 10, 0.2366, 0.7634}, {10, 10, 0.7225, 1}} {
		lo, hi := wilson(c.h, c.n)
		if math.Abs(lo-c.lo) > 1e-4 || math.Abs(hi-c.hi) > 1e-4 {
			t.Errorf("wilson(%d, %d) = [%.4f, %.4f], want [%.4f, %.4f]", c.h, c.n, lo, hi, c.lo, c.hi)
		}
	}
}

// TestTQuantile checks Student's t quantiles against a standard table: t_{0.975} with 1, 9 and
// 39 degrees of freedom is 12.706, 2.262 and 2.023.
func TestTQuantile(t *testing.T) {
	for df, want := range map[int]float64{1: 12.706, 9: 2.262, 39: 2.023} {
		if got := tQuantile975(df); math.Abs(got-want) > 1e-3 {
			t.Errorf("t(0.975, %d) = %.4f, want %.3f", df, got, want)
		}
	}
}

// TestPermutationUniform: fixed assignment gives the extra starts to the first N mod R entries of
// the permutation, so every position must be equally likely for every element (a biased shuffle
// would bias the estimator). 3 elements: each of the 6 orders about 1/6 of 60000 seeds (χ² with
// 5 degrees of freedom below 20.5, p = 0.001).
func TestPermutationUniform(t *testing.T) {
	const n = 60000
	counts := map[[3]int]int{}
	for s := range uint64(n) {
		p := permutation(3, mix(domPerm, s))
		counts[[3]int(p)]++
	}
	if len(counts) != 6 {
		t.Fatalf("saw %d orders of 3, want 6", len(counts))
	}
	chi2 := 0.0
	for _, c := range counts {
		d := float64(c) - n/6.0
		chi2 += d * d / (n / 6.0)
	}
	if chi2 > 20.5 {
		t.Errorf("χ² = %.1f over the 6 orders: %v", chi2, counts)
	}
}
