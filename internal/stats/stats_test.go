package stats

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

func TestMeanCI(t *testing.T) {
	// Five values with mean 3 and sample sd √2.5; t_{0.975,4} = 2.776445 (standard t table).
	m, h := MeanCI([]float64{1, 2, 3, 4, 5}, 0.95)
	if m != 3 || math.Abs(h-2.776445*math.Sqrt(2.5)/math.Sqrt(5)) > 1e-5 {
		t.Fatalf("MeanCI = %v ± %v", m, h)
	}
	if _, h := MeanCI([]float64{7}, 0.95); !math.IsNaN(h) {
		t.Fatalf("one sample: half-width %v, want NaN", h)
	}
}

// TestWelchP: a textbook case (two samples of five), recomputed from the samples' means and
// 95 % half-widths, against the p-value of Welch's test computed directly; equal samples give
// 1; too few replications give NaN.
func TestWelchP(t *testing.T) {
	a := []float64{19.1, 20.2, 18.7, 21.0, 20.5}
	b := []float64{22.3, 21.8, 23.9, 22.1, 24.0}
	ma, ha := MeanCI(a, 0.95)
	mb, hb := MeanCI(b, 0.95)
	got := WelchP(ma, ha, 5, mb, hb, 5, 0.95)
	// Directly: t = (mb − ma) / √(sa²/5 + sb²/5), Welch–Satterthwaite df, two-sided.
	va, vb := variance(a)/5, variance(b)/5
	tt := (mb - ma) / math.Sqrt(va+vb)
	df := (va + vb) * (va + vb) / (va*va/4 + vb*vb/4)
	want := 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Survival(math.Abs(tt))
	if math.Abs(got-want) > 1e-9 || want > 0.01 {
		t.Errorf("WelchP = %v, want %v (and < 0.01)", got, want)
	}
	if p := WelchP(ma, ha, 5, ma, ha, 5, 0.95); math.Abs(p-1) > 1e-12 {
		t.Errorf("equal samples: p = %v, want 1", p)
	}
	if p := WelchP(1, math.NaN(), 1, 2, 0.1, 5, 0.95); !math.IsNaN(p) {
		t.Errorf("one replication: p = %v, want NaN", p)
	}
}

func variance(xs []float64) float64 {
	m := 0.0
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	s := 0.0
	for _, x := range xs {
		s += (x - m) * (x - m)
	}
	return s / float64(len(xs)-1)
}
