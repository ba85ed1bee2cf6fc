package queueing

import (
	"math"
	"testing"
)

// Reference values computed by hand from the textbook formulas (Kleinrock 1975) to 6 digits.
func TestFormulas(t *testing.T) {
	near := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-6*math.Max(1, math.Abs(want)) {
			t.Errorf("%s = %.9g, want %.9g", name, got, want)
		}
	}
	// c = 1: Erlang C reduces to ρ, and M/M/c to M/M/1.
	near("ErlangC(1, 0.5)", ErlangC(1, 0.5), 0.5)
	near("MMcWait(c=1)", MMcWait(8, 10, 1), MM1Wait(8, 10))
	// c = 2, a = 1 (ρ = 0.5): B(2) = 0.2, C = 0.2/(1-0.5·0.8) = 1/3.
	near("ErlangC(2, 1)", ErlangC(2, 1), 1.0/3)
	// Direct sum: a = 3.2, c = 4 ⇒ C = (a^c/c!)/(1−ρ) / (Σ_{k<c} a^k/k! + (a^c/c!)/(1−ρ)).
	a, c := 3.2, 4
	sum, term := 0.0, 1.0
	for k := 0; k < c; k++ {
		sum += term
		term *= a / float64(k+1)
	}
	top := term / (1 - a/float64(c))
	near("ErlangC(4, 3.2)", ErlangC(c, a), top/(sum+top))
	near("MD1Wait", MD1Wait(5, 10), 0.5/(2*10*0.5))
	near("MM1Wait", MM1Wait(5, 10), 0.1)
	// Exponential service has E[S²] = 2/μ²: P-K gives the M/M/1 result.
	near("MG1Wait(exp)", MG1Wait(5, 0.1, 0.02), MM1Wait(5, 10))
	near("USL linear", USLThroughput(8, 100, 0, 0), 800)
	near("USL", USLThroughput(4, 100, 0.1, 0.01), 400/(1+0.3+0.12))
	for _, x := range []float64{ErlangC(2, 2), MM1Wait(10, 10), MD1Wait(11, 10), ErlangC(0, 0.1)} {
		if !math.IsNaN(x) {
			t.Errorf("unstable or invalid queue gave %v, want NaN", x)
		}
	}
}
