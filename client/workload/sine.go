package workload

import (
	"math"
	"time"
)

// Phases at which a Sine profile starts (t = 0), as in vegeta's SinePacer.
const (
	PhaseMeanUp   = 0               // at the mean, rising
	PhasePeak     = math.Pi / 2     // at mean + amplitude
	PhaseMeanDown = math.Pi         // at the mean, falling
	PhaseTrough   = 3 * math.Pi / 2 // at mean − amplitude
)

// sine is the profile mean + amp·sin(2π·t/period + phase).
type sine struct {
	mean, amp, phase float64
	period           time.Duration
	text             string
}

// Sine returns the profile
//
//	rate(t) = mean + amplitude·sin(2π·t/period + phase)
//
// which swings between mean − amplitude and mean + amplitude once per period, starting at the
// point of the cycle that phase (radians) selects:
//
//	rate
//	▲
//	│    .-'''-.              mean + amplitude  (PhasePeak starts here)
//	│  .'       '.
//	│-'-----------'-----------.-  mean  (PhaseMeanUp, the default, starts at t = 0)
//	│              '.       .'
//	│                '-...-'      mean − amplitude  (PhaseTrough starts here)
//	└─┴───────────────────────┴─▶ t
//	  0                     period
//
// The integrated rate (times in seconds) is
//
//	Λ(a, b) = mean·(b − a) + (amplitude·period/2π)·(cos θ(a) − cos θ(b)),   θ(t) = 2π·t/period + phase,
//
// so over a whole number of periods it is exactly mean × duration.
//
// mean and amplitude are in ops/s with 0 ≤ amplitude ≤ mean (so the rate never goes
// negative) and mean + amplitude ≤ MaxOpsRate; period must be > 0; phase must be finite.
func Sine(mean, amplitude float64, period time.Duration, phase float64) (Profile, error) {
	c := checker{family: "sine"}
	okMean := c.rate("mean", mean)
	okAmp := c.rate("amplitude", amplitude)
	switch {
	case okMean && okAmp && amplitude > mean:
		c.fail("amplitude", formatFloat(amplitude), "must be ≤ mean "+formatFloat(mean)+" (the rate would go negative)")
	case okMean && okAmp && mean+amplitude > MaxOpsRate:
		c.fail("amplitude", formatFloat(amplitude), "mean + amplitude ("+formatFloat(mean+amplitude)+") must be ≤ "+
			formatFloat(MaxOpsRate)+" (MaxOpsRate)")
	}
	if period <= 0 {
		c.fail("period", period, "must be > 0")
	}
	if !isFinite(phase) {
		c.fail("phase", formatFloat(phase), "must be finite")
	}
	if err := c.err(); err != nil {
		return nil, err
	}
	return &sine{
		mean: mean, amp: amplitude, phase: phase, period: period,
		text: "sine(" + formatRate(mean) + ", " + formatRate(amplitude) + ", " + period.String() + ", " + formatFloat(phase) + ")",
	}, nil
}

// theta returns 2π·t/period + phase, reducing t modulo the period in integers first so that
// the angle stays small and exact however far into the run t is.
func (s *sine) theta(t time.Duration) float64 {
	return float64(2*math.Pi*float64(t%s.period)/float64(s.period)) + s.phase
}

// rateAt returns the rate at angle th, clamped at 0 against rounding when amplitude == mean.
func (s *sine) rateAt(th float64) float64 {
	return max(s.mean+float64(s.amp*math.Sin(th)), 0)
}

// Rate returns mean + amplitude·sin(θ(t)).
func (s *sine) Rate(t time.Duration) float64 { return s.rateAt(s.theta(max(t, 0))) }

// MaxRate returns mean + amplitude if the window contains a crest (θ ≡ π/2 mod 2π), and the
// larger end of the window otherwise.
func (s *sine) MaxRate(from, to time.Duration) float64 {
	from = max(from, 0)
	switch {
	case to <= from:
		return 0
	case to-from >= s.period:
		return s.mean + s.amp
	}
	a := s.theta(from)
	b := a + 2*math.Pi*float64(to-from)/float64(s.period)
	if crest := math.Pi/2 + float64(2*math.Pi*math.Ceil((a-math.Pi/2)/(2*math.Pi))); crest <= b {
		return s.mean + s.amp
	}
	return max(s.rateAt(a), s.rateAt(b))
}

// Integral returns Λ(from, to) in operations.
func (s *sine) Integral(from, to time.Duration) float64 {
	from = max(from, 0)
	if to <= from {
		return 0
	}
	return s.area(s.theta(from), float64(to-from))
}

// area returns the integral over tau nanoseconds starting at angle th, in operations. It uses
//
//	cos θa − cos θb = 2·sin((θa+θb)/2)·sin((θb−θa)/2),
//
// which keeps its accuracy when tau is a tiny fraction of the period. As everywhere in this
// package, a product that meets a sum is rounded by an explicit conversion first, so that no
// architecture fuses the two into a multiply-add and every machine gets the same arrivals.
func (s *sine) area(th, tau float64) float64 {
	half := math.Pi * tau / float64(s.period) // (θb − θa)/2
	osc := float64(float64(s.amp*float64(s.period)/math.Pi) * float64(math.Sin(th+half)*math.Sin(half)))
	return (float64(s.mean*tau) + osc) / 1e9
}

// invert solves area(θ(from), x) = need for x by safeguarded Newton iteration (Newton steps
// that stay inside a shrinking bracket, bisection otherwise; Press et al., Numerical Recipes,
// 3rd ed., §9.4 "rtsafe"). The integral is non-decreasing with derivative rate/1e9, and is
// bracketed by
//
//	need/(mean + amplitude) <= x <= min(need/(mean − amplitude), (⌊need/(mean·period)⌋ + 1)·period),
//
// the second bound because every whole period contributes exactly mean·period. The iteration
// stops when a step moves x by less than a thousandth of a nanosecond (or the bracket is that
// narrow), far below the nanosecond the result is rounded to.
func (s *sine) invert(from time.Duration, need float64) (time.Duration, float64, bool) {
	if s.mean == 0 {
		return 0, 0, false
	}
	from = max(from, 0)
	n := need * 1e9 // ops·ns/s: need, with the rate's seconds turned into nanoseconds
	p := float64(s.period)
	lo := n / (s.mean + s.amp)
	hi := float64((math.Floor(n/float64(s.mean*p)) + 1) * p)
	if s.mean > s.amp {
		hi = min(hi, n/(s.mean-s.amp))
	}
	th := s.theta(from)
	x := min(max(n/s.mean, lo), hi)
	for range 200 {
		f := s.area(th, x) - need
		switch {
		case f > 0:
			hi = x
		case f < 0:
			lo = x
		default:
			return from, x, true
		}
		fp := s.rateAt(th+2*math.Pi*x/p) / 1e9
		next := x - f/fp
		if fp == 0 || !(next > lo && next < hi) { // also catches NaN
			next = lo + float64((hi-lo)*0.5)
		}
		tol := 1e-3 + float64(x*1e-15)
		if math.Abs(next-x) < tol || hi-lo < tol {
			return from, next, true
		}
		x = next
	}
	return from, x, true
}

func (s *sine) String() string { return s.text }
