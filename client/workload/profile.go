package workload

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// Forever is the open end of a profile's timeline: MaxRate(from, Forever) bounds the rate over
// the rest of the run, and the last piece of every piecewise profile lasts until Forever.
const Forever time.Duration = math.MaxInt64

// MaxTime is the latest instant a profile parameter may name, 2⁶² ns (about 146 years). It
// leaves headroom so that start + duration never overflows.
const MaxTime time.Duration = 1 << 62

// MaxOpsRate is the largest rate, in operations per second, a profile may reach: one operation
// per nanosecond, the resolution of the virtual clock. Arrivals are strictly increasing
// nanoseconds, so rates approaching it are distorted (see Poisson).
const MaxOpsRate = 1e9

// Profile is a load profile: the rate at which an open-loop application issues operations, as a
// function of time since the start of the run.
//
// Profiles are immutable and safe to share between any number of arrival processes. The
// interface is implemented only by this package's constructors, which know how to invert their
// own integrated rate exactly (see Poisson); Piecewise and Trace describe any other shape.
type Profile interface {
	// Rate returns the rate at t, in operations per second. A negative t reads as 0.
	Rate(t time.Duration) float64
	// MaxRate returns the supremum of Rate over [from, to), an upper bound of the rate in that
	// window (the bound a thinning algorithm needs). It is 0 when to <= from; to may be
	// Forever.
	MaxRate(from, to time.Duration) float64
	// Integral returns ∫ rate dt over [from, to), in operations: the expected number of
	// Poisson arrivals in that window. It is 0 when to <= from.
	Integral(from, to time.Duration) float64
	// String returns the canonical text of the profile, for run headers: the family name,
	// then its parameters, with rates as the shortest float that reads back exactly followed
	// by /s, and durations as time.Duration prints them.
	String() string

	// invert returns the instant base + off (off in nanoseconds, fractional) at which the
	// integral of the rate from `from` reaches need > 0, or ok = false if it never does.
	// base is an integer instant at or after from, so that precision is not lost far into a
	// run. It is unexported so that every Profile supports it.
	invert(from time.Duration, need float64) (base time.Duration, off float64, ok bool)
}

// Compile-time checks that both families implement Profile.
var (
	_ Profile = (*linear)(nil)
	_ Profile = (*sine)(nil)
)

// Point is one knot of a piecewise profile or one sample of a trace: the rate, in operations
// per second, at time T since the start of the run.
type Point struct {
	T    time.Duration
	Rate float64
}

// segment is one piece of a piecewise-linear rate: on [start, end) the rate goes linearly from
// r0 (at start) towards r1 (its limit at end). The last segment of a profile ends at Forever and
// is constant (r0 == r1).
type segment struct {
	start, end time.Duration
	r0, r1     float64
}

// at returns the rate at t, which must lie in [start, end]; at end it is the limit r1.
func (s *segment) at(t time.Duration) float64 {
	switch {
	case s.r0 == s.r1 || t <= s.start:
		return s.r0
	case t >= s.end:
		return s.r1
	}
	f := float64(t-s.start) / float64(s.end-s.start)
	// The explicit conversion keeps the product from being fused with the sum (Go may fuse
	// a*b+c on some architectures), so that every machine computes the same rate.
	return s.r0 + float64((s.r1-s.r0)*f)
}

// area returns ∫ rate dt over [a, b) ⊆ [start, end], in operations (the trapezoid rule is
// exact for a linear rate).
func (s *segment) area(a, b time.Duration) float64 {
	if b <= a {
		return 0
	}
	secs := float64(b-a) / 1e9
	if s.r0 == s.r1 {
		return float64(s.r0 * secs)
	}
	// Explicit conversions round each product, so that a caller's sum or difference is never
	// fused with it into a multiply-add (see at).
	return float64(float64((s.at(a)+s.at(b))/2) * secs)
}

// linear is every piecewise-linear profile: Constant, Step, Ramp, Spike, Piecewise and Trace.
// segs covers [0, Forever) without gaps or overlaps, in order.
type linear struct {
	segs []segment
	text string
}

// find returns the index of the segment that contains t >= 0, by binary search.
func (l *linear) find(t time.Duration) int {
	lo, hi := 0, len(l.segs)-1
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if l.segs[m].end > t {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}

// Rate returns the rate at t; O(log n) in the number of pieces.
func (l *linear) Rate(t time.Duration) float64 {
	t = max(t, 0)
	return l.segs[l.find(t)].at(t)
}

// MaxRate returns the supremum of the rate over [from, to): the larger end of each linear piece
// that meets the window. O(log n + k) for k pieces in the window.
func (l *linear) MaxRate(from, to time.Duration) float64 {
	from = max(from, 0)
	if to <= from {
		return 0
	}
	m := 0.0
	for i := l.find(from); i < len(l.segs) && l.segs[i].start < to; i++ {
		s := &l.segs[i]
		m = max(m, s.at(max(from, s.start)), s.at(min(to, s.end)))
	}
	return m
}

// Integral returns ∫ rate dt over [from, to) in operations. O(log n + k) for k pieces in the
// window.
func (l *linear) Integral(from, to time.Duration) float64 {
	from = max(from, 0)
	sum := 0.0
	for i := l.find(from); i < len(l.segs) && l.segs[i].start < to; i++ {
		s := &l.segs[i]
		sum += s.area(max(from, s.start), min(to, s.end))
	}
	return sum
}

func (l *linear) String() string { return l.text }

// invert walks the pieces from `from`, subtracting each piece's area from need, and solves for
// the instant inside the piece where the remainder runs out. On a piece whose rate is
// a + k·x (x in ns after the piece's current start, k in ops/s per ns) the integral
// (a·x + k·x²/2)/1e9 reaches need at
//
//	x = 2N / (a + √(a² + 2kN)),   N = need·1e9,
//
// the root of the quadratic written in the form that stays accurate when k is small or negative.
// Pieces with zero rate have zero area and are crossed in O(1) each, so a long silent stretch
// costs nothing but the walk.
func (l *linear) invert(from time.Duration, need float64) (time.Duration, float64, bool) {
	t := max(from, 0)
	for i := l.find(t); i < len(l.segs); i++ {
		s := &l.segs[i]
		a := s.at(t)
		if s.end == Forever { // the last piece is constant
			if a == 0 {
				return 0, 0, false
			}
			return t, need * 1e9 / a, true
		}
		area := s.area(t, s.end)
		if area > need {
			dt := float64(s.end - t)
			n := float64(need * 1e9)
			k := (s.r1 - a) / dt
			disc := max(float64(a*a)+float64(2*k*n), 0)
			x := 2 * n / (a + math.Sqrt(disc))
			return t, min(max(x, 0), dt), true
		}
		need -= area
		t = s.end
	}
	return 0, 0, false // unreachable: the last piece ends at Forever
}

// builder appends the pieces of a linear profile from time 0 on.
type builder struct {
	segs []segment
	t    time.Duration // end of the pieces so far
}

// to appends the piece [b.t, end) going from r0 to r1; an empty piece is dropped, and a constant
// piece continuing a constant piece of the same rate extends it.
func (b *builder) to(end time.Duration, r0, r1 float64) {
	if end <= b.t {
		return
	}
	if n := len(b.segs); n > 0 && r0 == r1 {
		if last := &b.segs[n-1]; last.r0 == r0 && last.r1 == r0 {
			last.end, b.t = end, end
			return
		}
	}
	b.segs = append(b.segs, segment{start: b.t, end: end, r0: r0, r1: r1})
	b.t = end
}

// hold ends the profile with rate r until Forever.
func (b *builder) hold(r float64, text string) *linear {
	b.to(Forever, r, r)
	return &linear{segs: b.segs, text: text}
}

// Constant returns the profile whose rate is always rate ops/s.
//
//	rate(t) = rate
func Constant(rate float64) (Profile, error) {
	c := checker{family: "constant"}
	c.rate("rate", rate)
	if err := c.err(); err != nil {
		return nil, err
	}
	var b builder
	return b.hold(rate, "constant("+formatRate(rate)+")"), nil
}

// Step returns the profile that runs at before until at, and at after from at on:
//
//	rate(t) = before   for t < at
//	          after    for t >= at
func Step(before, after float64, at time.Duration) (Profile, error) {
	c := checker{family: "step"}
	c.rate("before", before)
	c.rate("after", after)
	c.instant("at", at)
	if err := c.err(); err != nil {
		return nil, err
	}
	var b builder
	b.to(at, before, before)
	return b.hold(after, "step("+formatRate(before)+", "+formatRate(after)+", "+at.String()+")"), nil
}

// Ramp returns the profile that holds from until start, goes linearly to to by end, and holds
// to after that; from > to ramps down.
//
//	rate(t) = from                                      for t <= start
//	          from + (to − from)·(t − start)/(end − start)  for start < t < end
//	          to                                        for t >= end
//
// start must be ≥ 0 and end > start.
func Ramp(from, to float64, start, end time.Duration) (Profile, error) {
	c := checker{family: "ramp"}
	c.rate("from", from)
	c.rate("to", to)
	okStart := c.instant("start", start)
	if c.instant("end", end) && okStart && end <= start {
		c.fail("end", end, fmt.Sprintf("must be > start %v", start))
	}
	if err := c.err(); err != nil {
		return nil, err
	}
	var b builder
	b.to(start, from, from)
	b.to(end, from, to)
	return b.hold(to, "ramp("+formatRate(from)+", "+formatRate(to)+", "+start.String()+", "+end.String()+")"), nil
}

// Spike returns the profile that runs at peak during [start, start+duration) and at base
// outside it; a peak below base is a dip.
//
//	rate(t) = peak   for start <= t < start + duration
//	          base   otherwise
//
// duration must be > 0 and start + duration ≤ MaxTime.
func Spike(base, peak float64, start, duration time.Duration) (Profile, error) {
	c := checker{family: "spike"}
	c.rate("base", base)
	c.rate("peak", peak)
	okStart := c.instant("start", start)
	switch {
	case duration <= 0:
		c.fail("duration", duration, "must be > 0")
	case okStart && duration > MaxTime-start:
		c.fail("duration", duration, fmt.Sprintf("start + duration must be ≤ %v (MaxTime)", MaxTime))
	}
	if err := c.err(); err != nil {
		return nil, err
	}
	var b builder
	b.to(start, base, base)
	b.to(start+duration, peak, peak)
	return b.hold(base, "spike("+formatRate(base)+", "+formatRate(peak)+", "+start.String()+", "+duration.String()+")"), nil
}

// Piecewise returns the profile that interpolates linearly between points, holds the first
// point's rate before it and the last point's rate after it:
//
//	rate(t) = R₀                                     for t <= T₀
//	          Rᵢ + (Rᵢ₊₁ − Rᵢ)·(t − Tᵢ)/(Tᵢ₊₁ − Tᵢ)     for Tᵢ <= t < Tᵢ₊₁
//	          Rₙ                                     for t >= Tₙ
//
// points must be non-empty, with times in [0, MaxTime] and strictly increasing. Piecewise keeps
// its own copy.
func Piecewise(points []Point) (Profile, error) {
	return buildPoints("piecewise", points, "", true)
}

// checkPoints validates the points of a piecewise profile or a trace.
func checkPoints(c *checker, points []Point) {
	if len(points) == 0 {
		c.fail("points", "[]", "must list at least one point")
		return
	}
	for i, p := range points {
		at := fmt.Sprintf("points[%d].at", i)
		c.instant(at, p.T)
		c.rate(fmt.Sprintf("points[%d].rate", i), p.Rate)
		if i > 0 && p.T <= points[i-1].T {
			c.fail(at, p.T, fmt.Sprintf("must be > points[%d].at %v", i-1, points[i-1].T))
		}
	}
}

// buildPoints builds Piecewise (interpolate) or a trace (hold each rate until the next point).
// name, if not empty, replaces the list of points in String.
func buildPoints(family string, points []Point, name string, interpolate bool) (Profile, error) {
	c := checker{family: family}
	checkPoints(&c, points)
	if err := c.err(); err != nil {
		return nil, err
	}
	b := builder{segs: make([]segment, 0, len(points)+1)}
	b.to(points[0].T, points[0].Rate, points[0].Rate)
	for i := 1; i < len(points); i++ {
		next := points[i-1].Rate
		if interpolate {
			next = points[i].Rate
		}
		b.to(points[i].T, points[i-1].Rate, next)
	}
	text := family + "(" + name + ")"
	if name == "" {
		text = family + "(" + formatPoints(points) + ")"
	}
	return b.hold(points[len(points)-1].Rate, text), nil
}

// formatPoints is the canonical text of a list of points: "T rate" pairs separated by ", ".
func formatPoints(points []Point) string {
	var sb strings.Builder
	for i, p := range points {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(p.T.String())
		sb.WriteByte(' ')
		sb.WriteString(formatRate(p.Rate))
	}
	return sb.String()
}

// Scale returns p with every rate multiplied by factor: the share of an application's load one
// of several identical clients issues (a Poisson process split k ways is k Poisson processes at
// 1/k of the rate). factor must be finite and ≥ 0, and the scaled peak must not exceed
// MaxOpsRate. Its String is scale(factor, p).
func Scale(p Profile, factor float64) (Profile, error) {
	c := checker{family: "scale"}
	switch {
	case p == nil:
		c.fail("profile", "nil", "must be a profile")
	case !(factor >= 0) || math.IsInf(factor, 1):
		c.fail("factor", formatFloat(factor), "must be a finite number ≥ 0")
	case !validRate(float64(p.MaxRate(0, Forever) * factor)):
		c.fail("factor", formatFloat(factor), fmt.Sprintf("the peak rate %s of %s would exceed %s (MaxOpsRate)",
			formatRate(p.MaxRate(0, Forever)*factor), p, formatFloat(MaxOpsRate)))
	}
	if err := c.err(); err != nil {
		return nil, err
	}
	text := "scale(" + formatFloat(factor) + ", " + p.String() + ")"
	switch p := p.(type) {
	case *linear:
		segs := make([]segment, len(p.segs))
		for i, s := range p.segs {
			segs[i] = segment{start: s.start, end: s.end, r0: float64(s.r0 * factor), r1: float64(s.r1 * factor)}
		}
		return &linear{segs: segs, text: text}, nil
	case *sine:
		s := *p
		s.mean, s.amp, s.text = float64(p.mean*factor), float64(p.amp*factor), text
		return &s, nil
	}
	panic("workload: Scale of an unknown Profile type") // unreachable: Profile is sealed
}

// ScaleWindow returns p with its rate multiplied by factor during [from, to) and unchanged
// elsewhere: a temporary load change (a surge of a given height and length) laid over any
// piecewise-linear profile (constant, step, ramp, spike, piecewise, trace). The result is again
// piecewise linear, so arrivals keep their exact inversion; a sine profile is refused. factor must
// be finite and ≥ 0, 0 ≤ from < to, and the scaled peak must not exceed MaxOpsRate. Its String
// is scaleWindow(factor, from, to, p).
func ScaleWindow(p Profile, factor float64, from, to time.Duration) (Profile, error) {
	c := checker{family: "scaleWindow"}
	lin, ok := p.(*linear)
	switch {
	case p == nil:
		c.fail("profile", "nil", "must be a profile")
	case !ok:
		c.fail("profile", p, "only a piecewise-linear profile can be scaled over a window")
	case !(factor >= 0) || math.IsInf(factor, 1):
		c.fail("factor", formatFloat(factor), "must be a finite number ≥ 0")
	case from < 0 || to <= from || to > MaxTime:
		c.fail("window", fmt.Sprintf("[%s, %s)", from, to), fmt.Sprintf("must satisfy 0 ≤ from < to ≤ %s", MaxTime))
	case !validRate(float64(p.MaxRate(from, to) * factor)):
		c.fail("factor", formatFloat(factor), fmt.Sprintf("the peak rate %s would exceed %s (MaxOpsRate)",
			formatRate(p.MaxRate(from, to)*factor), formatFloat(MaxOpsRate)))
	}
	if err := c.err(); err != nil {
		return nil, err
	}
	var segs []segment
	for _, s := range lin.segs {
		// Cut the piece at the window's edges; the parts inside are scaled.
		cuts := []time.Duration{s.start}
		for _, t := range []time.Duration{from, to} {
			if t > s.start && t < s.end {
				cuts = append(cuts, t)
			}
		}
		cuts = append(cuts, s.end)
		for i := 0; i+1 < len(cuts); i++ {
			a, b := cuts[i], cuts[i+1]
			r0, r1 := s.at(a), s.at(b)
			if b == Forever {
				r1 = r0 // the last piece is constant
			}
			if a >= from && a < to {
				r0, r1 = float64(r0*factor), float64(r1*factor)
			}
			segs = append(segs, segment{start: a, end: b, r0: r0, r1: r1})
		}
	}
	text := "scaleWindow(" + formatFloat(factor) + ", " + from.String() + ", " + to.String() + ", " + p.String() + ")"
	return &linear{segs: segs, text: text}, nil
}
