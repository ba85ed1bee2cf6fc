package bench

import (
	"math"
	"strconv"
	"testing"
)

// closedForm is a retry policy's steady state under independent per-attempt failures with
// probability p (docs/policies.md, "Closed forms"): amplification (attempts per call) and
// success (the share of calls that succeed).
type closedForm func(p float64) (amp, success float64)

// nRetries is N retries with nothing to stop them: amplification Σ_{k=0..N} p^k, success
// 1 − p^(N+1).
func nRetries(n int) closedForm {
	return func(p float64) (float64, float64) {
		a := 0.0
		for k := 0; k <= n; k++ {
			a += math.Pow(p, float64(k))
		}
		return a, 1 - math.Pow(p, float64(n+1))
	}
}

// depositBucket is N retries under a retry token bucket that gains r per call and spends 1 per
// retry: in the long run at most r retries per call, so amplification min(Σ p^k, 1 + r); every
// call succeeds at most once, so successes are the successful attempts, A·(1 − p).
func depositBucket(n int, r float64) closedForm {
	free := nRetries(n)
	return func(p float64) (float64, float64) {
		a, s := free(p)
		if a <= 1+r {
			return a, s
		}
		return 1 + r, (1 + r) * (1 - p)
	}
}

// checkClosedForms compares each tier's amplification and success at every sweep point of
// retry-budgets with its closed form: within three standard errors of the replications' mean,
// or tol when that is smaller (the closed forms are long-run limits; a run is 25 s).
func checkClosedForms(t *testing.T, lr *libraryRuns) {
	const tol = 0.01
	forms := map[string]closedForm{
		"none":     nRetries(0),
		"retries3": nRetries(3),
		"bucket":   depositBucket(3, 0.1),
	}
	for i, pt := range lr.Points {
		p, err := strconv.ParseFloat(pt.Params[0].Value, 64)
		if err != nil {
			t.Fatalf("point %d: %s=%q: not a probability", i, pt.Params[0].Path, pt.Params[0].Value)
		}
		mean := func(tier string, f func(ampl, success float64) float64) (m, se float64) {
			var xs []float64
			for _, r := range lr.Runs[i] {
				g := group(t, &r.Summary, tier)
				xs = append(xs, f(g.Amplification, g.Goodput/g.Offered))
			}
			for _, x := range xs {
				m += x
			}
			m /= float64(len(xs))
			for _, x := range xs {
				se += (x - m) * (x - m)
			}
			return m, math.Sqrt(se / float64(len(xs)-1) / float64(len(xs)))
		}
		near := func(tier, what string, got, se, want float64) {
			if d := math.Abs(got - want); d > max(3*se, tol) {
				t.Errorf("p=%v %s: %s %.4f ± %.4f, closed form %.4f", p, tier, what, got, se, want)
			}
		}
		for tier, form := range forms {
			wantA, wantS := form(p)
			a, seA := mean(tier, func(a, _ float64) float64 { return a })
			s, seS := mean(tier, func(_, s float64) float64 { return s })
			near(tier, "amplification", a, seA, wantA)
			near(tier, "success", s, seS, wantS)
		}
		// The breaker measures the failure ratio over attempts, which is p itself: below its
		// 10 % threshold it stays closed and the tier is three retries; above it, it opens and
		// lets only its half-open probes retry.
		a, seA := mean("breaker", func(a, _ float64) float64 { return a })
		if p < 0.1 {
			want, _ := nRetries(3)(p)
			near("breaker", "amplification", a, seA, want)
		} else if a > 1.08 {
			t.Errorf("p=%v breaker: amplification %.4f, want below 1.08 with the breaker open", p, a)
		}
	}
}
