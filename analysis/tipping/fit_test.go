package tipping

import (
	"context"
	"math"
	"testing"
)

// Rule: the logistic fit recovers x50 = −a/b and the slope from binomial data, in either
// direction, with an interval around x50, and is absent when the maximum-likelihood estimate
// is infinite (separated data) or undetermined (one probe value).
func TestFitLogistic(t *testing.T) {
	for _, tc := range []struct {
		name   string
		x50, s float64 // P(stuck | x) = logistic((x − x50)/s)
		lo     float64 // the probes are at lo, lo + 0.5, …, lo + 10
	}{{"increasing", 4.2, 1.5, -0.8}, {"decreasing", 7.1, -0.8, 2.1}, {"far from zero", 1e4 + 3, 2, 1e4 - 2}, {"off-centre design", 4.2, 1.5, 3.2}} {
		t.Run(tc.name, func(t *testing.T) {
			var probes []ProbeResult
			for i := range 21 {
				x := tc.lo + 0.5*float64(i)
				n := 2000
				s := int(math.Round(float64(n) / (1 + math.Exp(-(x-tc.x50)/tc.s))))
				probes = append(probes, ProbeResult{X: x, Stuck: s, Recovered: n - s, Undecided: 7, Replications: n + 7})
			}
			f := fitLogistic(probes, 0.95)
			if f == nil {
				t.Fatal("no fit")
			}
			if math.Abs(f.X50-tc.x50) > 0.01 || math.Abs(f.Slope-1/tc.s) > 0.01*math.Abs(1/tc.s) ||
				math.Abs(f.X50+f.Intercept/f.Slope) > 1e-9*math.Abs(f.X50) || !(f.Lo < tc.x50 && tc.x50 < f.Hi) || f.Hi-f.Lo > 0.2 {
				t.Errorf("fit %+v, want x50 %v slope %v", *f, tc.x50, 1/tc.s)
			}
			// The delta-method standard error of x50 equals the one from the observed
			// information in the parametrisation (x50, b), η = b·(x − x50), at the maximum;
			// here computed independently by finite differences.
			ll := func(x50, b float64) float64 {
				var l float64
				for _, p := range probes {
					eta := b * (p.X - x50)
					l += float64(p.Stuck)*eta - float64(p.Stuck+p.Recovered)*softplus(eta)
				}
				return l
			}
			h1, h2 := 1e-3, 1e-3*math.Abs(f.Slope)
			x0, b0 := f.X50, f.Slope
			d11 := (ll(x0+h1, b0) - 2*ll(x0, b0) + ll(x0-h1, b0)) / (h1 * h1)
			d22 := (ll(x0, b0+h2) - 2*ll(x0, b0) + ll(x0, b0-h2)) / (h2 * h2)
			d12 := (ll(x0+h1, b0+h2) - ll(x0+h1, b0-h2) - ll(x0-h1, b0+h2) + ll(x0-h1, b0-h2)) / (4 * h1 * h2)
			se := math.Sqrt(-d22 / (d11*d22 - d12*d12))
			z := math.Sqrt2 * math.Erfcinv(0.05)
			if got := (f.Hi - f.Lo) / (2 * z); math.Abs(got-se) > 0.01*se || math.Abs(f.X50-(f.Lo+f.Hi)/2) > 1e-9*math.Abs(f.X50) {
				t.Errorf("interval [%v, %v]: standard error %v, want %v", f.Lo, f.Hi, got, se)
			}
		})
	}
	for _, tc := range []struct {
		name   string
		probes []ProbeResult
	}{
		{"separated", []ProbeResult{{X: 1, Recovered: 10}, {X: 2, Recovered: 9, Stuck: 1}, {X: 3, Stuck: 10}}},
		{"separated decreasing", []ProbeResult{{X: 1, Stuck: 10}, {X: 3, Recovered: 10}}},
		{"one value", []ProbeResult{{X: 1, Stuck: 4, Recovered: 6}}},
		{"nothing decided", []ProbeResult{{X: 1, Undecided: 4}, {X: 2, Undecided: 4}}},
	} {
		if f := fitLogistic(tc.probes, 0.95); f != nil {
			t.Errorf("%s: fit %+v, want none", tc.name, *f)
		}
	}
}

// Rule: a search on a noisy problem reports a fit consistent with its bracket.
func TestSearchFit(t *testing.T) {
	cfg := Config{Lo: 0, Hi: 100, Increasing: true, Precision: 0.5, Batch: 20, MaxReps: 400}
	res, err := Search(context.Background(), cfg, logisticProbe(11, 42.7, 1, true, false))
	if err != nil {
		t.Fatal(err)
	}
	if res.Fit == nil || math.Abs(res.Fit.X50-42.7) > 1.5 || res.Fit.Slope <= 0 {
		t.Fatalf("fit %+v, bracket [%v, %v]", res.Fit, res.Lo, res.Hi)
	}
	t.Logf("bracket [%v, %v], fit x50 %.3f [%.3f, %.3f], %d probes, %d replications",
		res.Lo, res.Hi, res.Fit.X50, res.Fit.Lo, res.Fit.Hi, len(res.Probes), res.Replications)
}
