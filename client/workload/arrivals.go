package workload

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/overloadsim/overloadsim/sim"
)

// Arrivals is an open-loop arrival process: the instants at which an application issues
// operations, whatever happens to the operations already issued.
//
// Next(now, r) returns the first arrival strictly after now (at > now), given that the
// previous arrival, or the start of the process, was at now. The caller schedules an event at
// at and, when it fires, issues one operation and calls Next(at, r) again. The strict
// inequality makes that loop progress by at least one nanosecond per arrival, and keeps Next a
// pure function of now and the draws: no state is kept between calls, so one Arrivals value can
// drive any number of applications, each with its own stream r.
//
// ok is false (and at is sim.Never) when no arrival follows: the rate stays 0 for the rest of
// time, or the next arrival would fall beyond the range of sim.Time. Next allocates nothing.
type Arrivals interface {
	// Next returns the first arrival after the one at now (or after the start, at now).
	Next(now sim.Time, r *rand.Rand) (at sim.Time, ok bool)
	// String returns the canonical text of the process, e.g. poisson(constant(100/s)).
	String() string
}

// Compile-time checks.
var (
	_ Arrivals = (*poisson)(nil)
	_ Arrivals = (*fixed)(nil)
)

type poisson struct{ p Profile }

type fixed struct{ p Profile }

// Poisson returns the non-homogeneous Poisson process whose intensity is the profile's rate.
//
// Method: inversion of the integrated rate. By the time-change theorem, if Λ(t) = ∫₀ᵗ rate,
// the points Λ⁻¹(E₁), Λ⁻¹(E₁+E₂), … for i.i.d. unit exponentials Eᵢ form a Poisson process
// with that rate (Çinlar, Introduction to Stochastic Processes, 1975, ch. 4; Devroye,
// Non-Uniform Random Variate Generation, 1986, ch. VI). Next draws one unit exponential E and
// returns the instant at where ∫[now, at] rate dt = E; by memorylessness, restarting from each
// arrival is exact. For the piecewise-linear profiles the inversion is closed-form (a quadratic
// per piece); for Sine it is a safeguarded Newton solve to a thousandth of a nanosecond. There
// is no rejection step, unlike thinning (Lewis and Shedler, 1979), so a spike costs the same per
// arrival as a constant rate, and exactly one exponential variate is drawn per call, however
// long a stretch of zero rate is skipped.
//
// Arrivals lie on the nanosecond grid: the continuous instant is rounded to the nearest
// nanosecond, and to now + 1ns if it rounds to now. For a rate λ the mean gap then differs
// from 1/λ by a relative amount of about 0.46·(λ·1ns)², under 10⁻⁶ for any rate up to
// 10⁶ ops/s.
//
// Poisson panics if p is nil.
func Poisson(p Profile) Arrivals {
	if p == nil {
		panic("workload: Poisson with a nil Profile")
	}
	return &poisson{p}
}

// Next draws E ~ Exp(1) from r and returns the instant where the integrated rate since now
// reaches E.
func (a *poisson) Next(now sim.Time, r *rand.Rand) (sim.Time, bool) {
	return advance(a.p, now, r.ExpFloat64())
}

func (a *poisson) String() string { return "poisson(" + a.p.String() + ")" }

// Fixed returns the deterministic process whose arrivals are one unit of integrated rate
// apart: the next arrival is the instant at where ∫[now, at] rate dt = 1. Started at 0, the
// n-th arrival is where Λ(t) = ∫₀ᵗ rate reaches n, so every window holds its integrated rate to
// within one arrival; at a constant rate λ the arrivals are exactly 1/λ apart, starting at 1/λ.
// (The simpler rule "next = now + 1/rate(now)" would stall on a rate of 0 and overshoot a
// spike; this one does neither.)
//
// Arrivals are rounded to the nearest nanosecond (and are at least 1ns apart); each gap is
// measured from the rounded previous arrival, so the drift is below half a nanosecond per
// arrival. Next never draws from r.
//
// Fixed panics if p is nil.
func Fixed(p Profile) Arrivals {
	if p == nil {
		panic("workload: Fixed with a nil Profile")
	}
	return &fixed{p}
}

// Next returns the instant where the integrated rate since now reaches 1.
func (a *fixed) Next(now sim.Time, _ *rand.Rand) (sim.Time, bool) { return advance(a.p, now, 1) }

func (a *fixed) String() string { return "fixed(" + a.p.String() + ")" }

// advance returns the instant, rounded to the nanosecond and strictly after now, at which the
// integrated rate of p since now reaches need.
func advance(p Profile, now sim.Time, need float64) (sim.Time, bool) {
	from := time.Duration(max(now, 0))
	base, off, ok := p.invert(from, need)
	if !ok {
		return sim.Never, false
	}
	off = math.Round(off)
	// float64(Forever-base) may round up by half an ulp; off < it still fits, since off is a
	// float of the same magnitude one ulp or more below.
	if !(off < float64(Forever-base)) {
		return sim.Never, false
	}
	at := base + time.Duration(off)
	if at <= from {
		if from == Forever {
			return sim.Never, false
		}
		at = from + 1
	}
	return sim.Time(at), true
}
