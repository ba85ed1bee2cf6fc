package workload

import (
	"math"
	randv1 "math/rand"
	"math/rand/v2"
	"testing"
	"testing/quick"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/overloadsim/overloadsim/sim"
)

// randomProfile builds a profile of a random family from r: rates in [0, 200] ops/s (a third
// of them 0, so that silences are common), changes on a 1ms grid within [0, 10s], and sine
// periods in [100ms, 5s].
func randomProfile(r *rand.Rand) Profile {
	rate := func() float64 {
		if r.IntN(3) == 0 {
			return 0
		}
		return math.Round(r.Float64()*200*100) / 100
	}
	at := func() time.Duration { return time.Duration(r.IntN(10_000)) * ms }
	points := func() []Point {
		n := 1 + r.IntN(6)
		pts := make([]Point, 0, n)
		t := time.Duration(0)
		for range n {
			t += time.Duration(1+r.IntN(3000)) * ms
			pts = append(pts, Point{t, rate()})
		}
		return pts
	}
	switch r.IntN(6) {
	case 0:
		return must(Piecewise(points()))
	case 1:
		return must(Trace(points()))
	case 2:
		return must(Spike(rate(), rate(), at(), time.Duration(1+r.IntN(5000))*ms))
	case 3:
		start := at()
		return must(Ramp(rate(), rate(), start, start+time.Duration(1+r.IntN(5000))*ms))
	case 4:
		return must(Step(rate(), rate(), at()))
	}
	mean := rate()
	return must(Sine(mean, mean*r.Float64(), time.Duration(100+r.IntN(4900))*ms, r.Float64()*2*math.Pi))
}

// naiveThinning is the reference process: Lewis and Shedler's thinning ("Simulation of
// nonhomogeneous Poisson processes by thinning", Naval Research Logistics Quarterly 26(3),
// 1979, algorithm 1) with one global bound λ*: candidates of a homogeneous Poisson process at
// rate λ*, each kept with probability rate(t)/λ*. It uses nothing of the profile but Rate: the
// bound is 1.01 × the largest rate on a 1ms grid (the linear profiles change on that grid, and
// a sine with a period of 100ms or more peaks at most A·(1 − cos(π/100)) < 0.05% of its crest
// above its best grid point).
func naiveThinning(p Profile, horizon time.Duration, r *rand.Rand) []time.Duration {
	bound := 0.0
	for t := time.Duration(0); t <= horizon; t += ms {
		bound = max(bound, p.Rate(t))
	}
	bound *= 1.01
	var out []time.Duration
	if bound == 0 {
		return out
	}
	for t := 0.0; ; {
		t += r.ExpFloat64() / bound
		at := time.Duration(t * 1e9)
		if at > horizon {
			return out
		}
		if r.Float64()*bound < p.Rate(at) {
			out = append(out, at)
		}
	}
}

// naiveIntegral integrates the rate by the midpoint rule on a 10µs grid: exact for the pieces
// of a linear profile (which change on the 1ms grid), and for a sine within (h²/24)·max|rate”|
// per unit time, far below the counting tolerance.
func naiveIntegral(p Profile, from, to time.Duration) float64 {
	const h = 10 * time.Microsecond
	sum := 0.0
	for t := from; t < to; t += h {
		sum += p.Rate(t + h/2)
	}
	return sum * h.Seconds()
}

// poissonPlausible reports whether n is a plausible draw from Poisson(mean): it fails only if
// either tail probability, P(N <= n) or P(N >= n), is below 1e-6. Exact Poisson tails, rather
// than a normal approximation, keep the test fair for windows of small mean.
func poissonPlausible(n int, mean float64) bool {
	if mean == 0 {
		return n == 0
	}
	d := distuv.Poisson{Lambda: mean} // CDF draws nothing, so no Src is needed
	lower := d.CDF(float64(n))
	upper := 1.0
	if n > 0 {
		upper = 1 - d.CDF(float64(n-1))
	}
	return lower >= 1e-6 && upper >= 1e-6
}

// TestPoissonAgainstThinning compares, on random profiles, the inversion-based Poisson process
// with naive thinning, both against counts expected from a naive integral (and Integral against
// that integral). For each profile both processes run reps times over 10s; the count in each 1s
// window summed over the runs is Poisson with mean reps·Λ(window). With 200 profiles, 10
// windows and 2 processes, 4000 checks at a two-sided level of 2e-6 make a false failure of a
// correct implementation unlikely (below 1%), and the seed is fixed anyway; a process whose
// rate is off by a few percent in a window fails.
func TestPoissonAgainstThinning(t *testing.T) {
	const (
		horizon = 10 * s
		windows = 10
		reps    = 20
	)
	check := func(seed uint64) bool {
		r := sim.NewStream(seed, "workload/test/quick")
		p := randomProfile(r)
		fast, slow := make([]int, windows), make([]int, windows)
		for range reps {
			now := sim.Time(0)
			for {
				at, ok := Poisson(p).Next(now, r)
				if !ok || at > sim.Time(horizon) {
					break
				}
				if k := int(time.Duration(at) / s); k < windows {
					fast[k]++
				}
				now = at
			}
			for _, at := range naiveThinning(p, horizon, r) {
				if k := int(at / s); k < windows {
					slow[k]++
				}
			}
		}
		ok := true
		for k := range windows {
			from := time.Duration(k) * s
			lam := naiveIntegral(p, from, from+s)
			if got := p.Integral(from, from+s); math.Abs(got-lam) > 1e-6*max(1, lam) {
				t.Errorf("seed %d: %v.Integral(%v, %v) = %.9g, naive %.9g", seed, p, from, from+s, got, lam)
				ok = false
			}
			if m := p.MaxRate(from, from+s); m < p.Rate(from) || m < p.Rate(from+s-1) {
				t.Errorf("seed %d: %v.MaxRate(%v, %v) = %v is below the rate at an end", seed, p, from, from+s, m)
				ok = false
			}
			for _, c := range []struct {
				name string
				n    int
			}{{"inversion", fast[k]}, {"naive thinning", slow[k]}} {
				if !poissonPlausible(c.n, reps*lam) {
					t.Errorf("seed %d: %v: window %d: %s counted %d in %d runs, want Poisson(%.1f)",
						seed, p, k, c.name, c.n, reps, reps*lam)
					ok = false
				}
			}
		}
		return ok
	}
	cfg := &quick.Config{MaxCount: 200, Rand: newQuickRand()}
	if err := quick.Check(check, cfg); err != nil {
		t.Error(err)
	}
}

// TestMaxRateAgainstGrid checks on random profiles that MaxRate bounds every rate on a 1ms grid
// inside a random window, and is itself attained there or at the window's end (up to the slope
// over one grid step).
func TestMaxRateAgainstGrid(t *testing.T) {
	check := func(seed uint64) bool {
		r := sim.NewStream(seed, "workload/test/maxrate")
		p := randomProfile(r)
		from := time.Duration(r.IntN(10_000)) * ms
		to := from + time.Duration(1+r.IntN(5000))*ms
		bound := p.MaxRate(from, to)
		best := 0.0
		for t := from; t < to; t += ms {
			best = max(best, p.Rate(t))
		}
		best = max(best, p.Rate(to)) // the supremum of a half-open window may be the limit at its end
		if bound < best-1e-9 || bound > best*1.001+1e-9 {
			t.Errorf("seed %d: %v.MaxRate(%v, %v) = %v, grid maximum %v", seed, p, from, to, bound, best)
			return false
		}
		return true
	}
	if err := quick.Check(check, &quick.Config{MaxCount: 2000, Rand: newQuickRand()}); err != nil {
		t.Error(err)
	}
}

// TestNextAgainstIntegral checks inversion directly on random profiles: from a random instant,
// the arrival Fixed returns is where Integral says one unit of rate has accrued, to within the
// rate times the half nanosecond of rounding; and there is no arrival only if less than one
// unit is left.
func TestNextAgainstIntegral(t *testing.T) {
	check := func(seed uint64) bool {
		r := sim.NewStream(seed, "workload/test/invert")
		p := randomProfile(r)
		now := sim.Time(r.IntN(10_000)) * sim.Time(ms)
		at, ok := Fixed(p).Next(now, nil)
		if !ok { // right only if less than one unit of rate is left, ever
			if rest := p.Integral(time.Duration(now), MaxTime); rest >= 1 {
				t.Errorf("seed %d: %v: Fixed.Next(%v) = _, false with Λ = %v ahead", seed, p, now, rest)
				return false
			}
			return true
		}
		got := p.Integral(time.Duration(now), time.Duration(at))
		slack := p.MaxRate(time.Duration(at)-1, time.Duration(at)+1)*1e-9 + 1e-9
		if math.Abs(got-1) > slack {
			t.Errorf("seed %d: %v: Fixed.Next(%v) = %v, where Λ = %.12f, want 1 ± %.2g", seed, p, now, at, got, slack)
			return false
		}
		return true
	}
	if err := quick.Check(check, &quick.Config{MaxCount: 5000, Rand: newQuickRand()}); err != nil {
		t.Error(err)
	}
}

// newQuickRand returns the fixed generator testing/quick draws its seeds from (quick takes a
// math/rand v1 generator); each case then builds its own v2 stream from the seed it is given.
func newQuickRand() *randv1.Rand { return randv1.New(randv1.NewSource(testSeed)) }
