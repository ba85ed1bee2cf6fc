package workload

import (
	"math"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/sim"
)

// The statistical tests below run on fixed streams, so they are deterministic; their tolerances
// still come from standard errors, so that passing says the process has the right law rather
// than that the seed was lucky. At 4σ a correct process fails one given check with probability
// about 6e-5 (two-sided normal tail).

// TestPoissonCounts checks the defining property of a non-homogeneous Poisson process: the
// number of arrivals in a window [a, b) is Poisson with mean Λ(a, b) = ∫ₐᵇ rate dt (Ross,
// Introduction to Probability Models, 11th ed., §5.4.1). Each window's count must be within
// 4σ of Λ, σ = √Λ; every Λ here is at least 500, where the normal approximation to the Poisson
// is good. Windows are aligned with the profiles' changes.
func TestPoissonCounts(t *testing.T) {
	tests := []struct {
		gloss   string
		p       Profile
		window  time.Duration
		windows int
	}{
		{"constant 1000/s", must(Constant(1000)), 10 * s, 10},
		{"spike 100/s → 2000/s for 20s at 30s", must(Spike(100, 2000, 30*s, 20*s)), 5 * s, 16},
		{"sine 500/s ± 400/s with a 20s period", must(Sine(500, 400, 20*s, 0)), 2500 * ms, 80},
		{"sine reaching 0 at its trough", must(Sine(500, 500, 20*s, PhaseTrough)), 5 * s, 40},
		{"ramp 0 → 1000/s over 50s", must(Ramp(0, 1000, 0, 50*s)), 5 * s, 12},
		{"trace with silent seconds", must(Trace([]Point{{0, 800}, {5 * s, 0}, {10 * s, 300}, {20 * s, 0}, {25 * s, 1200}})), 5 * s, 8},
	}
	for _, tt := range tests {
		a := Poisson(tt.p)
		horizon := tt.window * time.Duration(tt.windows)
		counts := countWindows(arrivalsUntil(t, a, stream("counts/"+tt.gloss), horizon), tt.window, tt.windows)
		for k, n := range counts {
			from := tt.window * time.Duration(k)
			want := tt.p.Integral(from, from+tt.window)
			if want == 0 {
				if n != 0 {
					t.Errorf("%s: window [%v, %v): %d arrivals, want 0 (rate 0)", tt.gloss, from, from+tt.window, n)
				}
				continue
			}
			if z := (float64(n) - want) / math.Sqrt(want); math.Abs(z) > 4 {
				t.Errorf("%s: window [%v, %v): %d arrivals, Λ = %.1f: off by %.2fσ (tolerance 4)",
					tt.gloss, from, from+tt.window, n, want, z)
			}
		}
	}
}

// TestPoissonDispersion checks that counts in disjoint windows vary like Poisson counts: for k
// windows of a constant-rate process the index of dispersion D = s²/mean of the counts satisfies
// (k−1)·D ~ χ²(k−1) (the index-of-dispersion test; Cox and Lewis, The Statistical Analysis of Series of
// Events, 1966),
// so D has mean 1 and standard error √(2/(k−1)). A process that is too regular (Fixed has
// D ≈ 0) or too bursty fails.
func TestPoissonDispersion(t *testing.T) {
	const (
		rate = 100.0
		k    = 2000
	)
	arr := arrivalsUntil(t, Poisson(must(Constant(rate))), stream("dispersion"), k*s)
	counts := countWindows(arr, s, k)
	mean, m2 := 0.0, 0.0
	for _, c := range counts {
		mean += float64(c)
	}
	mean /= k
	for _, c := range counts {
		m2 += (float64(c) - mean) * (float64(c) - mean)
	}
	d := m2 / (k - 1) / mean
	if se := math.Sqrt(2.0 / (k - 1)); math.Abs(d-1) > 4*se {
		t.Errorf("index of dispersion %.4f, want 1 ± %.4f (4 SE)", d, 4*se)
	}
}

// TestPoissonGaps checks that the gaps of a constant-rate process are exponential with mean
// 1/λ: the sample mean within 4 SE (SE = (1/λ)/√n), the coefficient of variation within 4 SE of
// 1, and the share of gaps longer than the mean within 4 SE of e⁻¹.
//
// SE of the sample CV for the exponential, by the delta method on (x̄, s²): with mean 1,
// variance 1, third central moment 2 and fourth 9, Var(x̄) = 1/n, Var(s²) = (9 − 1)/n,
// Cov = 2/n, and ∂CV/∂x̄ = −1, ∂CV/∂s² = 1/2, so Var(CV) = (1 − 2 + 8/4)/n = 1/n.
func TestPoissonGaps(t *testing.T) {
	const (
		rate = 1000.0
		n    = 100_000
	)
	a := Poisson(must(Constant(rate)))
	r := stream("gaps")
	gaps := make([]float64, n)
	now := sim.Time(0)
	for i := range gaps {
		at, ok := a.Next(now, r)
		if !ok {
			t.Fatalf("Next(%v) = _, false on a constant rate", now)
		}
		gaps[i] = at.Sub(now).Seconds()
		now = at
	}
	mean, m2, long := 0.0, 0.0, 0
	for _, g := range gaps {
		mean += g
	}
	mean /= n
	for _, g := range gaps {
		m2 += (g - mean) * (g - mean)
		if g > 1/rate {
			long++
		}
	}
	cv := math.Sqrt(m2/(n-1)) / mean
	sqrtN := math.Sqrt(n)
	if se := 1 / rate / sqrtN; math.Abs(mean-1/rate) > 4*se {
		t.Errorf("mean gap %.6g s, want %.6g s: off by %.2f SE (tolerance 4)", mean, 1/rate, (mean-1/rate)/se)
	}
	if se := 1 / sqrtN; math.Abs(cv-1) > 4*se {
		t.Errorf("CV of the gaps %.4f, want 1: off by %.2f SE (tolerance 4)", cv, (cv-1)/se)
	}
	p := math.Exp(-1)
	if frac, se := float64(long)/n, math.Sqrt(p*(1-p)/n); math.Abs(frac-p) > 4*se {
		t.Errorf("share of gaps > 1/λ %.4f, want e⁻¹ = %.4f: off by %.2f SE (tolerance 4)", frac, p, (frac-p)/se)
	}
}

// TestPoissonSkipsSilence checks that a stretch of zero rate costs nothing: Next draws the same
// words from the generator, and lands the same offset past the silence, whether the silence
// lasts a second or a thousand hours.
func TestPoissonSkipsSilence(t *testing.T) {
	for _, gap := range []time.Duration{s, 1000 * time.Hour} {
		r, src := countingStream("silence")
		at, ok := Poisson(must(Step(0, 100, gap))).Next(0, r)
		if !ok || at < sim.Time(gap) {
			t.Fatalf("gap %v: Next(0) = %v, %v; want an arrival after %v", gap, at, ok, gap)
		}
		// The reference: the same stream on a profile with no silence at all.
		ref, refSrc := countingStream("silence")
		refAt, _ := Poisson(must(Constant(100))).Next(0, ref)
		if src.n != refSrc.n || at.Sub(sim.Time(gap)) != time.Duration(refAt) {
			t.Errorf("gap %v: %d words drawn, arrival %v after the gap; without the gap: %d words, arrival at %v",
				gap, src.n, at.Sub(sim.Time(gap)), refSrc.n, refAt)
		}
	}
	// Many silent pieces between bursts: one exponential per arrival still.
	var pts []Point
	for i := range 10_000 {
		pts = append(pts, Point{time.Duration(2*i) * time.Minute, 0}, Point{time.Duration(2*i+1) * time.Minute, 0.001})
	}
	r, src := countingStream("silences")
	arr := arrivalsUntil(t, Poisson(must(Trace(pts))), r, 20_000*time.Minute)
	// Λ = 10⁴ silent-or-slow minutes × 0.06 = 600 arrivals expected; each draws one unit
	// exponential, which takes one 64-bit word except on the ziggurat's rare slow path.
	if len(arr) == 0 || src.n > 2*(len(arr)+1) {
		t.Errorf("%d arrivals took %d words from the generator, want about one each", len(arr), src.n)
	}
}

// TestNoMoreArrivals checks ok = false when the rate stays 0 for the rest of time, and when the
// next arrival would fall beyond sim.Time's range.
func TestNoMoreArrivals(t *testing.T) {
	tests := []struct {
		gloss string
		p     Profile
		now   sim.Time
	}{
		{"zero forever", must(Constant(0)), 0},
		{"after the last spike of a zero base", must(Spike(0, 100, 10*s, s)), sim.Time(11 * s)},
		{"a trace that ends at 0", must(Trace([]Point{{0, 5}, {s, 0}})), sim.Time(s)},
		{"a sine of mean 0", must(Sine(0, 0, s, 0)), 0},
		{"a ramp down to 0, after it", must(Ramp(100, 0, 0, s)), sim.Time(s)},
		{"beyond the range of sim.Time", must(Constant(1)), sim.Never - 1000},
		{"at Never", must(Constant(1e9)), sim.Never},
		{"a rate so small the next arrival is beyond sim.Time", must(Constant(1e-300)), 0},
		{"a sine so slow the next arrival is beyond sim.Time", must(Sine(1e-300, 1e-301, s, 0)), 0},
	}
	for _, tt := range tests {
		for _, a := range []Arrivals{Poisson(tt.p), Fixed(tt.p)} {
			if at, ok := a.Next(tt.now, stream("none")); ok || at != sim.Never {
				t.Errorf("%s: %v.Next(%v) = %v, %v; want Never, false", tt.gloss, a, tt.now, at, ok)
			}
		}
	}
}

// TestFixedConstant checks exact arrivals at a constant rate: the n-th at n/λ.
func TestFixedConstant(t *testing.T) {
	tests := []struct {
		rate float64
		gap  time.Duration
		n    int
	}{
		{100, 10 * ms, 1000},
		{1e6, time.Microsecond, 100_000},
		{0.5, 2 * s, 100},
	}
	for _, tt := range tests {
		p := must(Constant(tt.rate))
		arr := arrivalsUntil(t, Fixed(p), nil, time.Duration(tt.n)*tt.gap)
		if len(arr) != tt.n {
			t.Errorf("%v: %d arrivals in (0, %v], want %d", p, len(arr), time.Duration(tt.n)*tt.gap, tt.n)
		}
		for i, at := range arr {
			if want := sim.Time(time.Duration(i+1) * tt.gap); at != want {
				t.Fatalf("%v: arrival #%d at %v, want %v", p, i+1, at, want)
			}
		}
	}
	// 3/s: gaps of 333333333.3ns, rounded to the nearest nanosecond.
	arr := arrivalsUntil(t, Fixed(must(Constant(3))), nil, 1000*s)
	if len(arr) != 3000 {
		t.Errorf("constant(3/s): %d arrivals in 1000s, want 3000", len(arr))
	}
}

// TestFixedRamp checks the integrated-rate rule on a ramp 0 → 100/s over 10s, where
// Λ(t) = 5t² (t in seconds): the n-th arrival is at √(n/5) s while n <= 500, then every 10ms.
// Each gap is measured from the previous arrival rounded to the nanosecond, so arrival n may
// drift by up to n/2 ns from the exact instant.
func TestFixedRamp(t *testing.T) {
	arr := arrivalsUntil(t, Fixed(must(Ramp(0, 100, 0, 10*s))), nil, 20*s)
	if len(arr) != 1500 {
		t.Fatalf("%d arrivals in (0, 20s], want 1500", len(arr))
	}
	worst := 0.0
	for i, at := range arr {
		n := float64(i + 1)
		want := math.Sqrt(n/5) * 1e9
		if n > 500 {
			want = 10e9 + (n-500)*10e6
		}
		dev := math.Abs(float64(at) - want)
		worst = max(worst, dev)
		if dev > n/2+1 {
			t.Errorf("arrival #%d at %v, want %.1fns: off by %.1fns, more than n/2 + 1", i+1, at, want, dev)
		}
	}
	t.Logf("largest deviation from the exact instants: %.1fns", worst)
}

// TestFixedCounts checks that Fixed puts in every window its integrated rate, to within one
// arrival: the number of arrivals in (0, b] is ⌊Λ(0, b)⌋ (±1 for the rounding at the ends).
func TestFixedCounts(t *testing.T) {
	tests := []struct {
		gloss string
		p     Profile
	}{
		{"spike", must(Spike(10, 500, 3*s, 2*s))},
		{"sine", must(Sine(50, 40, 7*s, 1))},
		{"sine touching 0", must(Sine(20, 20, 3*s, PhaseTrough))},
		{"piecewise", must(Piecewise([]Point{{0, 0}, {2 * s, 300}, {4 * s, 10}, {6 * s, 10}}))},
		{"trace", must(Trace([]Point{{0, 33.3}, {s, 0}, {4 * s, 71}}))},
	}
	for _, tt := range tests {
		arr := arrivalsUntil(t, Fixed(tt.p), nil, 10*s)
		for i, at := range arr {
			if lam := tt.p.Integral(0, time.Duration(at)+1); math.Abs(lam-float64(i+1)) > 1 {
				t.Errorf("%s: arrival #%d at %v, where Λ = %.4f, want within 1 of %d", tt.gloss, i+1, at, lam, i+1)
				break
			}
		}
		if want := math.Floor(tt.p.Integral(0, 10*s)); math.Abs(float64(len(arr))-want) > 1 {
			t.Errorf("%s: %d arrivals in (0, 10s], Λ = %v", tt.gloss, len(arr), tt.p.Integral(0, 10*s))
		}
	}
}

// TestLateInRun checks that arrivals keep their rate 100 days into a run, where a float64 of
// nanoseconds has lost its sub-nanosecond digits. By the time-change theorem the integrated rate
// from the start to the n-th Poisson arrival is Gamma(n, 1), mean n and standard deviation √n:
// with n = 10⁴ it must be within 4√n of n. Fixed gaps at 1000/s must be exactly 1ms.
func TestLateInRun(t *testing.T) {
	const n = 10_000
	start := sim.Time(100 * 24 * time.Hour)
	for _, p := range []Profile{must(Constant(1000)), must(Sine(1000, 500, 10*s, 0))} {
		r := stream("late")
		now := start
		for range n {
			at, ok := Poisson(p).Next(now, r)
			if !ok || at <= now {
				t.Fatalf("%v: Next(%v) = %v, %v", p, now, at, ok)
			}
			now = at
		}
		lam := p.Integral(time.Duration(start), time.Duration(now))
		if z := (lam - n) / math.Sqrt(n); math.Abs(z) > 4 {
			t.Errorf("%v: Λ from %v to the %d-th arrival = %.1f: off by %.2fσ (tolerance 4)", p, start, n, lam, z)
		}
	}
	now := start
	for i := range 1000 {
		at, _ := Fixed(must(Constant(1000))).Next(now, nil)
		if at.Sub(now) != ms {
			t.Fatalf("gap #%d from %v: %v, want 1ms", i+1, now, at.Sub(now))
		}
		now = at
	}
}

// TestHighRates checks that arrivals stay strictly increasing (arrivalsUntil fails otherwise)
// up to MaxOpsRate, where the nanosecond grid takes over: Fixed issues exactly one arrival per
// nanosecond; Poisson fewer, since gaps that round to 0 become 1ns and the rest are rounded
// (its mean gap is then E[max(1, round(X))] ≈ 1.35ns for X ~ Exp(1ns)).
func TestHighRates(t *testing.T) {
	p := must(Constant(MaxOpsRate))
	if arr := arrivalsUntil(t, Fixed(p), nil, 1000); len(arr) != 1000 {
		t.Errorf("fixed: %d arrivals in (0, 1µs], want 1000 (one per nanosecond)", len(arr))
	}
	if arr := arrivalsUntil(t, Poisson(p), stream("high"), 1000); len(arr) < 600 || len(arr) > 800 {
		t.Errorf("poisson: %d arrivals in (0, 1µs], want about 1000/1.35", len(arr))
	}
}

// TestArrivalsString checks the canonical text of the processes.
func TestArrivalsString(t *testing.T) {
	p := must(Constant(100))
	for a, want := range map[Arrivals]string{Poisson(p): "poisson(constant(100/s))", Fixed(p): "fixed(constant(100/s))"} {
		if got := a.String(); got != want {
			t.Errorf("String() = %q, want %q", got, want)
		}
	}
}
