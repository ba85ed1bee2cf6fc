package dist

import (
	"math"
	"slices"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat/distuv"
)

// The statistical tests draw n samples on a fixed stream, so they are deterministic; the
// tolerances are still derived from the standard error, so that passing says the sampler agrees
// with the formulas rather than that the seed was lucky. With tol = 4·SE a correct sampler fails
// for a given seed with probability about 6e-5 (two-sided normal tail beyond 4σ); the sample
// mean of n = 200000 draws is close to normal for every family here (CLT).
const statN = 200_000

// within reports whether |got − want| <= 4·se.
func within(got, want, se float64) bool { return math.Abs(got-want) <= 4*se }

// drawSeconds returns n draws of d in seconds.
func drawSeconds(d Duration, stream string, n int) []float64 {
	r := newTestStream(stream)
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = d.Sample(r).Seconds()
	}
	return xs
}

// rawMoment is the sample mean of x^k.
func rawMoment(xs []float64, k float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += math.Pow(x, k)
	}
	return s / float64(len(xs))
}

// TestMoments checks, per family, the sample mean against Mean() and the sample mean of S²
// against SecondMoment(). The standard errors are
//
//	SE(mean) = sqrt(E[S²] − E[S]²) / √n        SE(mean of S²) = sqrt(E[S⁴] − E[S²]²) / √n,
//
// with E[S⁴] from the family's own formula (an independent check on SecondMoment's).
func TestMoments(t *testing.T) {
	ms := func(d time.Duration) float64 { return d.Seconds() }
	tests := []struct {
		text   string
		fourth float64 // E[S⁴] in s⁴
	}{
		// Constant: zero variance, so the sample moments must be exact.
		{"const(1ms)", math.Pow(ms(time.Millisecond), 4)},
		// Exponential: E[S^k] = k!·m^k.
		{"exp(5ms)", 24 * math.Pow(ms(5*time.Millisecond), 4)},
		// Lognormal with the mean parametrisation: E[S^k] = m^k·exp(k(k−1)σ²/2).
		{"lognormal(3ms, 0.5)", math.Pow(ms(3*time.Millisecond), 4) * math.Exp(6*0.25)},
		{"lognormal(10ms, 1)", math.Pow(ms(10*time.Millisecond), 4) * math.Exp(6)},
		// Gamma with mean m and shape k (θ = m/k): E[S⁴] = θ⁴·k(k+1)(k+2)(k+3).
		{"gamma(5ms, 2)", math.Pow(ms(5*time.Millisecond)/2, 4) * 2 * 3 * 4 * 5},
		{"gamma(5ms, 0.5)", math.Pow(ms(5*time.Millisecond)/0.5, 4) * 0.5 * 1.5 * 2.5 * 3.5},
		{"gamma(2ms, 30)", math.Pow(ms(2*time.Millisecond)/30, 4) * 30 * 31 * 32 * 33},
		// Uniform on [a, b]: E[S⁴] = (b⁵ − a⁵) / (5(b − a)); the 1 ns grid is negligible here.
		{"uniform(1ms, 3ms)", (math.Pow(0.003, 5) - math.Pow(0.001, 5)) / (5 * 0.002)},
		// Empirical: the mean of v⁴ over the listed values.
		{"empirical(1ms, 2ms, 2ms, 5ms)", (1 + 16 + 16 + 625) / 4 * 1e-12},
	}
	for _, tt := range tests {
		d, err := Parse(tt.text)
		if err != nil {
			t.Fatal(err)
		}
		xs := drawSeconds(d, "moments/"+tt.text, statN)
		mean, m2 := d.Mean().Seconds(), d.SecondMoment()
		sqrtN := math.Sqrt(statN)
		seMean := math.Sqrt(math.Max(m2-mean*mean, 0)) / sqrtN
		seM2 := math.Sqrt(math.Max(tt.fourth-m2*m2, 0)) / sqrtN
		if got := rawMoment(xs, 1); !within(got, mean, seMean) && !approxEqual(got, mean) {
			t.Errorf("%s: sample mean %.6g s, Mean() %.6g s: off by %.2f SE (tolerance 4)", tt.text, got, mean, (got-mean)/seMean)
		}
		if got := rawMoment(xs, 2); !within(got, m2, seM2) && !approxEqual(got, m2) {
			t.Errorf("%s: sample E[S²] %.6g s², SecondMoment() %.6g s²: off by %.2f SE (tolerance 4)", tt.text, got, m2, (got-m2)/seM2)
		}
	}
}

// approxEqual absorbs float rounding where the standard error is zero (const): summing n
// values accumulates a relative error up to about n·2⁻⁵³ ≈ 2e-11.
func approxEqual(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Abs(b) }

// TestLogNormalParameters checks the parametrisation on the log scale: ln S has mean
// μ = ln(m) − σ²/2 and standard deviation σ. For normal data SE(mean) = σ/√n and
// SE(sd) ≈ σ/√(2n). Rounding draws to the nanosecond moves ln S by under 1e-6 at these sizes.
func TestLogNormalParameters(t *testing.T) {
	for _, tt := range []struct {
		mean  time.Duration
		sigma float64
	}{
		{3 * time.Millisecond, 0.5},
		{10 * time.Millisecond, 1},
		{time.Second, 2},
	} {
		d, err := LogNormal(tt.mean, tt.sigma)
		if err != nil {
			t.Fatal(err)
		}
		xs := drawSeconds(d, "lognormal/"+d.String(), statN)
		var sum, sum2 float64
		for _, x := range xs {
			l := math.Log(x)
			sum += l
			sum2 += l * l
		}
		n := float64(statN)
		mu := sum / n
		sd := math.Sqrt((sum2 - n*mu*mu) / (n - 1))
		wantMu := math.Log(tt.mean.Seconds()) - tt.sigma*tt.sigma/2
		if !within(mu, wantMu, tt.sigma/math.Sqrt(n)) {
			t.Errorf("%s: mean of ln S = %.5f, want μ = ln(mean) − σ²/2 = %.5f", d, mu, wantMu)
		}
		if !within(sd, tt.sigma, tt.sigma/math.Sqrt(2*n)) {
			t.Errorf("%s: sd of ln S = %.5f, want σ = %v", d, sd, tt.sigma)
		}
	}
}

// TestExponentialShape checks two properties that distinguish the exponential from other
// distributions with the same mean.
//
// CV = sd/mean = 1. By the delta method, for exponential data Var(ln CV̂) ≈ 1/n (Var ln s ≈ 2/n,
// Var ln x̄ = 1/n, Cov = 1/n from the third moment 2m³), so SE(CV̂) ≈ 1/√n.
//
// Memorylessness: P(S > s+t | S > s) = P(S > t). With s = t = m both sides are e⁻¹; the
// conditional proportion rests on about n·e⁻¹ draws, so SE ≈ sqrt(p(1−p)/(n·e⁻¹)), and the
// unconditional one adds sqrt(p(1−p)/n); the tolerance uses the sum, which bounds the SE of the
// difference.
func TestExponentialShape(t *testing.T) {
	const m = 5 * time.Millisecond
	d, err := Exp(m)
	if err != nil {
		t.Fatal(err)
	}
	xs := drawSeconds(d, "exp/shape", statN)
	n := float64(statN)
	mean := rawMoment(xs, 1)
	sd := math.Sqrt(rawMoment(xs, 2) - mean*mean)
	if cv := sd / mean; !within(cv, 1, 1/math.Sqrt(n)) {
		t.Errorf("exp(%v): CV = %.4f, want 1 ± %.4f", m, cv, 4/math.Sqrt(n))
	}

	s := m.Seconds()
	var overS, over2S float64 // draws above s, and above s+t = 2s
	for _, x := range xs {
		if x > s {
			overS++
		}
		if x > 2*s {
			over2S++
		}
	}
	p := math.Exp(-1)
	cond, uncond := over2S/overS, overS/n
	se := math.Sqrt(p*(1-p)/overS) + math.Sqrt(p*(1-p)/n)
	if !within(cond, uncond, se) {
		t.Errorf("exp(%v): P(S > 2m | S > m) = %.4f but P(S > m) = %.4f; want equal within %.4f", m, cond, uncond, 4*se)
	}
	if !within(uncond, p, math.Sqrt(p*(1-p)/n)) {
		t.Errorf("exp(%v): P(S > m) = %.4f, want e⁻¹ = %.4f", m, uncond, p)
	}
}

// TestGammaVariance checks the shape through the variance: Var S = m²/k, so the sample CV² is
// 1/k. For gamma data SE(s²) = sqrt((μ₄ − σ⁴)/n) with central μ₄ = 3σ⁴ + 6σ⁴/k (excess
// kurtosis 6/k), i.e. SE(s²) = σ²·sqrt((2 + 6/k)/n); the tolerance is 4 of those, on s² alone
// (the sample mean's error is a further 1/√n·√(1/k) relative, and is covered by TestMoments).
func TestGammaVariance(t *testing.T) {
	for _, tt := range []struct {
		mean time.Duration
		k    float64
	}{
		{5 * time.Millisecond, 0.3}, {5 * time.Millisecond, 1}, {3 * time.Millisecond, 2}, {time.Second, 50},
	} {
		d, err := Gamma(tt.mean, tt.k)
		if err != nil {
			t.Fatal(err)
		}
		xs := drawSeconds(d, "gamma/variance/"+d.String(), statN)
		m := tt.mean.Seconds()
		var sum2 float64
		for _, x := range xs {
			sum2 += (x - m) * (x - m)
		}
		n := float64(statN)
		got, want := sum2/n, m*m/tt.k
		if se := want * math.Sqrt((2+6/tt.k)/n); !within(got, want, se) {
			t.Errorf("%s: sample variance %.6g s², want m²/k = %.6g s² ± %.3g", d, got, want, 4*se)
		}
	}
}

// TestGammaKS compares the sampler with gonum's gamma CDF (distuv.Gamma, shape α = k, rate
// β = k/m) by the one-sample Kolmogorov–Smirnov distance D = sup |Fₙ(x) − F(x)|. Under the null
// hypothesis √n·D tends to the Kolmogorov distribution, whose 1 − 1e-4 quantile is 2.30
// (P(K > x) ≈ 2e^(−2x²)), so a correct sampler passes for a given seed with probability
// 0.9999; n = 200000 puts the bound at 0.0051, and a sampler off by one in a hundred in its
// shape fails it. The sample is rounded to the nanosecond: Fₙ is compared at the upper edge
// of each draw's rounding cell, x + 0.5 ns, so rounding costs nothing even where k < 1 piles
// draws up near 0.
func TestGammaKS(t *testing.T) {
	const kolmogorov = 2.30
	for _, tt := range []struct {
		mean time.Duration
		k    float64
	}{
		{5 * time.Millisecond, 0.05}, {5 * time.Millisecond, 0.5}, {5 * time.Millisecond, 0.999},
		{5 * time.Millisecond, 1}, {5 * time.Millisecond, 2}, {100 * time.Microsecond, 7.5},
		{time.Second, 1000},
	} {
		d, err := Gamma(tt.mean, tt.k)
		if err != nil {
			t.Fatal(err)
		}
		xs := drawSeconds(d, "gamma/ks/"+d.String(), statN)
		slices.Sort(xs)
		ref := distuv.Gamma{Alpha: tt.k, Beta: tt.k / tt.mean.Seconds()}
		n := float64(len(xs))
		dmax := 0.0
		for i := 0; i < len(xs); {
			j := i // xs[i:j] are the draws equal to xs[i]
			for j < len(xs) && xs[j] == xs[i] {
				j++
			}
			below := ref.CDF(xs[i] - 0.5e-9)
			upper := ref.CDF(xs[i] + 0.5e-9)
			dmax = max(dmax, math.Abs(float64(j)/n-upper), math.Abs(float64(i)/n-below))
			i = j
		}
		if bound := kolmogorov / math.Sqrt(n); dmax > bound {
			t.Errorf("%s: KS distance to distuv.Gamma{%v, %v} = %.5f, want ≤ %.5f", d, ref.Alpha, ref.Beta, dmax, bound)
		} else {
			t.Logf("%s: KS distance %.5f (bound %.5f)", d, dmax, bound)
		}
	}
}

// TestUniformBounds: every draw lies in [lo, hi] and, on a grid small enough to count, every
// nanosecond including both ends comes up with probability 1/k (binomial SE sqrt(p(1−p)/n)).
func TestUniformBounds(t *testing.T) {
	d, err := Uniform(time.Millisecond, 3*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	r := newTestStream("uniform/bounds")
	lo, hi := MaxDuration, time.Duration(0)
	for range statN {
		v := d.Sample(r)
		if v < time.Millisecond || v > 3*time.Millisecond {
			t.Fatalf("%s: draw %v outside [1ms, 3ms]", d, v)
		}
		lo, hi = min(lo, v), max(hi, v)
	}
	// The gap between the extreme draw and a bound is about (hi−lo)/n = 10ns.
	if lo > time.Millisecond+time.Microsecond || hi < 3*time.Millisecond-time.Microsecond {
		t.Errorf("%s: draws span [%v, %v], want close to both bounds", d, lo, hi)
	}

	small, err := Uniform(1, 4)
	if err != nil {
		t.Fatal(err)
	}
	checkFrequencies(t, small, "uniform/grid", map[time.Duration]float64{1: 0.25, 2: 0.25, 3: 0.25, 4: 0.25})
}

// TestEmpiricalFrequencies: each listed value comes up in proportion to its repeats.
func TestEmpiricalFrequencies(t *testing.T) {
	d, err := Parse("empirical(5ms, 2ms, 1ms, 2ms)")
	if err != nil {
		t.Fatal(err)
	}
	checkFrequencies(t, d, "empirical/freq", map[time.Duration]float64{
		time.Millisecond: 0.25, 2 * time.Millisecond: 0.5, 5 * time.Millisecond: 0.25,
	})
}

func checkFrequencies(t *testing.T, d Duration, stream string, want map[time.Duration]float64) {
	t.Helper()
	r := newTestStream(stream)
	counts := map[time.Duration]float64{}
	for range statN {
		v := d.Sample(r)
		if _, ok := want[v]; !ok {
			t.Fatalf("%s: draw %v is not a possible value", d, v)
		}
		counts[v]++
	}
	for v, p := range want {
		got := counts[v] / statN
		if se := math.Sqrt(p * (1 - p) / statN); !within(got, p, se) {
			t.Errorf("%s: P(S = %v) = %.4f, want %.4f ± %.4f", d, v, got, p, 4*se)
		}
	}
}
