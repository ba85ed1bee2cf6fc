package main

import (
	"math"
	"testing"
)

// TestWelch checks Welch's t-test against published outputs.
func TestWelch(t *testing.T) {
	// R's sleep data (Cushny and Peebles 1905, as R's datasets package ships it): the extra
	// hours of sleep of ten patients under each of two drugs.
	sleep1 := []float64{0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0}
	sleep2 := []float64{1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4}
	for _, tc := range []struct {
		gloss      string
		x, y       []float64
		t, df, p   float64
		tolT, tolP float64
	}{
		// R's documentation of t.test, example t.test(extra ~ group, data = sleep), prints
		// "t = -1.8608, df = 17.776, p-value = 0.07939" (four or five figures, hence the
		// tolerances). R's t is group 1 minus group 2; ours is y minus x, so the sign flips.
		{"R's sleep example", sleep1, sleep2, 1.8608, 17.776, 0.07939, 5e-5, 5e-6},
		// Swapping the samples flips t and keeps the p-value.
		{"sleep, swapped", sleep2, sleep1, -1.8608, 17.776, 0.07939, 5e-5, 5e-6},
	} {
		gotT, gotDF, gotP := welch(tc.x, tc.y)
		if math.Abs(gotT-tc.t) > tc.tolT || math.Abs(gotDF-tc.df) > 5e-4 || math.Abs(gotP-tc.p) > tc.tolP {
			t.Errorf("%s: welch = t %.5f, df %.4f, p %.6f, want t %.4f, df %.3f, p %.5f", tc.gloss, gotT, gotDF, gotP, tc.t, tc.df, tc.p)
		}
	}

	// Without spread on either side the test is decided by the means alone.
	if _, _, p := welch([]float64{2, 2, 2}, []float64{2, 2}); p != 1 {
		t.Errorf("welch(equal constants) p = %v, want 1", p)
	}
	if _, _, p := welch([]float64{2, 2, 2}, []float64{3, 3}); p != 0 {
		t.Errorf("welch(different constants) p = %v, want 0", p)
	}
}

// TestKolmogorovQ checks the Kolmogorov distribution's survival function against the
// published critical values of the two-sample test.
func TestKolmogorovQ(t *testing.T) {
	// The large-sample critical values c(α) of the Kolmogorov–Smirnov test, as tabulated by
	// Smirnov (1948, "Table for estimating the goodness of fit of empirical distributions",
	// Ann. Math. Statist. 19, 279–281) and reproduced in the Wikipedia article
	// "Kolmogorov–Smirnov test", section "Two-sample Kolmogorov–Smirnov test": Q_KS(c(α)) = α.
	// The table gives three decimals; half a unit in the third moves Q by at most 0.0006 here.
	for _, tc := range []struct{ alpha, c float64 }{
		{0.20, 1.073}, {0.15, 1.138}, {0.10, 1.224}, {0.05, 1.358},
		{0.025, 1.48}, {0.01, 1.628}, {0.005, 1.731}, {0.001, 1.949},
	} {
		if got := kolmogorovQ(tc.c); math.Abs(got-tc.alpha) > 6e-4 {
			t.Errorf("kolmogorovQ(%v) = %.5f, want %v", tc.c, got, tc.alpha)
		}
	}
	// The two series meet at λ = 1.18, where the code switches from one to the other.
	below, above := kolmogorovQ(math.Nextafter(1.18, 0)), kolmogorovQ(1.18)
	if math.Abs(below-above) > 1e-12 {
		t.Errorf("kolmogorovQ around 1.18 = %v and %v, want equal", below, above)
	}
	for _, tc := range []struct{ lambda, want float64 }{{0, 1}, {-1, 1}, {0.05, 1}, {10, 0}} {
		if got := kolmogorovQ(tc.lambda); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("kolmogorovQ(%v) = %v, want %v", tc.lambda, got, tc.want)
		}
	}
}

// TestKS checks the two-sample statistic on hand-counted samples, with ties, and the
// p-value's small-sample correction.
func TestKS(t *testing.T) {
	for _, tc := range []struct {
		gloss string
		x, y  []float64
		d     float64
	}{
		// The empirical distribution functions differ most after 3: 3/4 of x, 0 of y.
		{"disjoint but the last", []float64{1, 2, 3, 9}, []float64{4, 5, 6, 7}, 0.75},
		// Ties across the samples: at 2, F_x = 3/4 and F_y = 1/4.
		{"ties", []float64{2, 1, 2, 3}, []float64{2, 3, 3, 3}, 0.5},
		{"same sample", []float64{3, 1, 2}, []float64{2, 3, 1}, 0},
		{"unsorted input, fully apart", []float64{5, 4}, []float64{1, 2, 0}, 1},
	} {
		d, p := ksTest(tc.x, tc.y)
		if math.Abs(d-tc.d) > 1e-12 {
			t.Errorf("%s: ksTest D = %v, want %v", tc.gloss, d, tc.d)
		}
		// p = Q_KS((√nₑ + 0.12 + 0.11/√nₑ)·D), worked by hand from the formula.
		n, m := float64(len(tc.x)), float64(len(tc.y))
		ne := math.Sqrt(n * m / (n + m))
		if want := kolmogorovQ((ne + 0.12 + 0.11/ne) * tc.d); math.Abs(p-want) > 1e-12 {
			t.Errorf("%s: ksTest p = %v, want %v", tc.gloss, p, want)
		}
	}
	// 30 against 30, the second shifted by 10.5: below 10.5, F_x reaches 11/30 while F_y is 0,
	// so D = 11/30; nₑ = 15 and λ = (√15 + 0.12 + 0.11/√15)·11/30.
	x, y := make([]float64, 30), make([]float64, 30)
	for i := range x {
		x[i] = float64(i)
		y[i] = float64(i) + 10.5
	}
	d, p := ksTest(x, y)
	if math.Abs(d-11.0/30) > 1e-12 {
		t.Fatalf("ksTest(shifted) D = %v, want 11/30", d)
	}
	ne := math.Sqrt(15)
	lambda := (ne + 0.12 + 0.11/ne) * 11 / 30
	if math.Abs(p-kolmogorovQ(lambda)) > 1e-12 {
		t.Errorf("ksTest(shifted) p = %v, want Q_KS(%v)", p, lambda)
	}
}

// TestFisherExact checks the two-sided exact test on Fisher's tea-tasting experiment.
func TestFisherExact(t *testing.T) {
	for _, tc := range []struct {
		gloss      string
		a, b, c, d int
		want, tol  float64
	}{
		// R's documentation of fisher.test, the TeaTasting example (Fisher 1935, "The Design of
		// Experiments"): the lady names 3 of the 4 milk-first cups. Two-sided p-value
		// = (1+16+1+16)/70 = 34/70 = 0.4857 (R prints p-value = 0.4857).
		{"tea tasting", 3, 1, 1, 3, 34.0 / 70, 1e-12},
		// All four right: only the two extreme tables, each 1/70, are as improbable.
		{"tea tasting, all right", 4, 0, 0, 4, 2.0 / 70, 1e-12},
		// Equal shares in equal samples are the most probable table: p = 1.
		{"no difference", 5, 25, 5, 25, 1, 1e-12},
		// 0 of 30 against 30 of 30: only this table and its mirror, each 1/C(60,30).
		{"all against none", 0, 30, 30, 0, 2 / 1.1826458156486e17, 1e-25},
		{"empty table", 0, 0, 0, 0, 1, 0},
	} {
		if got := fisherExact(tc.a, tc.b, tc.c, tc.d); math.Abs(got-tc.want) > tc.tol {
			t.Errorf("%s: fisherExact(%d, %d, %d, %d) = %v, want %v", tc.gloss, tc.a, tc.b, tc.c, tc.d, got, tc.want)
		}
	}
}

// TestWilson checks the Wilson score interval against Newcombe's worked examples.
func TestWilson(t *testing.T) {
	// Newcombe, R. G. (1998), "Two-sided confidence intervals for the single proportion:
	// comparison of seven methods", Statistics in Medicine 17, 857–872, Table I, method 3
	// (score method without continuity correction), to four decimals.
	for _, tc := range []struct {
		k, n   int
		lo, hi float64
	}{
		{81, 263, 0.2553, 0.3662},
		{15, 148, 0.0624, 0.1605},
		{0, 20, 0.0000, 0.1611},
		{1, 29, 0.0061, 0.1718},
	} {
		lo, hi := wilson(tc.k, tc.n, z95)
		if math.Abs(lo-tc.lo) > 5e-5 || math.Abs(hi-tc.hi) > 5e-5 {
			t.Errorf("wilson(%d, %d) = [%.5f, %.5f], want [%.4f, %.4f]", tc.k, tc.n, lo, hi, tc.lo, tc.hi)
		}
	}
	if lo, hi := wilson(0, 0, z95); lo != 0 || hi != 1 {
		t.Errorf("wilson(0, 0) = [%v, %v], want [0, 1]", lo, hi)
	}
}

// TestHolm checks the step-down procedure on a hand-worked family of four.
func TestHolm(t *testing.T) {
	// Sorted: 0.005 ≤ 0.05/4 rejected; 0.01 ≤ 0.05/3 rejected; 0.03 > 0.05/2 stops. Adjusted:
	// 4·0.005 = 0.02, max(0.02, 3·0.01) = 0.03, max(0.03, 2·0.03) = 0.06, max(0.06, 0.04) = 0.06.
	ps := []float64{0.01, 0.04, 0.03, 0.005}
	adj, rej := holm(ps, 0.05)
	wantAdj := []float64{0.03, 0.06, 0.06, 0.02}
	wantRej := []bool{true, false, false, true}
	for i := range ps {
		if math.Abs(adj[i]-wantAdj[i]) > 1e-15 || rej[i] != wantRej[i] {
			t.Errorf("holm(%v)[%d] = %v, %v, want %v, %v", ps, i, adj[i], rej[i], wantAdj[i], wantRej[i])
		}
	}
	// Bonferroni would reject only p ≤ 0.0125; Holm's step-down also takes 0.01. Adjusted values
	// never exceed 1.
	adj, rej = holm([]float64{0.9, 0.8}, 0.05)
	if adj[0] != 1 || adj[1] != 1 || rej[0] || rej[1] {
		t.Errorf("holm([0.9 0.8]) = %v, %v, want [1 1], none rejected", adj, rej)
	}
	if adj, rej := holm(nil, 0.05); len(adj) != 0 || len(rej) != 0 {
		t.Errorf("holm(nil) = %v, %v, want empty", adj, rej)
	}
}
