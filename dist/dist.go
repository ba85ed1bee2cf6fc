package dist

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/stat/distuv"
)

// Duration is a distribution of non-negative durations.
//
// Sample takes the generator at draw time, so one Duration value can be shared by any number of
// components, each drawing from its own named stream. The implementations in this package are
// immutable after construction and allocate nothing per Sample.
type Duration interface {
	// Sample draws one duration from r. The result is rounded to the nanosecond and lies in
	// [0, MaxDuration]. r must not be nil: Sample panics rather than fall back to a global
	// generator.
	Sample(r *rand.Rand) time.Duration
	// Mean is E[S], rounded to the nanosecond.
	Mean() time.Duration
	// SecondMoment is E[S²] in seconds², as the Pollaczek–Khinchine formula needs it.
	SecondMoment() float64
	// String is the canonical text of the distribution; Parse (or ParseWith, for an
	// empirical distribution read from a file) accepts it back and gives an equal String.
	String() string
}

// MaxDuration is the largest duration a Sample returns, 2⁶² ns (about 146 years), and the
// largest duration parameter the constructors accept. A float draw beyond it is capped here
// instead of wrapping around when converted to int64; it leaves headroom so that now+sample on
// a simulation clock does not overflow either.
const MaxDuration time.Duration = 1 << 62

// MaxSigma is the largest lognormal sigma accepted. At σ = 10 the median is e⁻⁵⁰ of the mean and
// E[S²] is e¹⁰⁰ times the mean squared: far past any measured latency, and still finite.
const MaxSigma = 10

// MinShape and MaxShape bound the gamma shape k. At k = 0.01 the coefficient of variation is 10
// and the median is about 10⁻²⁸ of the mean; at k = 10⁶ it is 0.001, closer to a constant than
// any measured latency. The lower bound also keeps E[S²] = m²(1 + 1/k) finite for every mean up
// to MaxDuration.
const (
	MinShape = 0.01
	MaxShape = 1e6
)

// Compile-time checks that every family implements Duration.
var (
	_ Duration = (*constant)(nil)
	_ Duration = (*exponential)(nil)
	_ Duration = (*logNormal)(nil)
	_ Duration = (*gamma)(nil)
	_ Duration = (*uniform)(nil)
	_ Duration = (*empirical)(nil)
)

// The families are pointer types so that comparing two Duration values with == compares
// identity and never panics on the empirical family's slice.

type constant struct{ d time.Duration }

type exponential struct {
	mean time.Duration
	rate float64 // per nanosecond
}

type logNormal struct {
	mean  time.Duration
	sigma float64
	mu    float64 // of ln(S/1ns)
}

// gamma holds the constants of the Marsaglia–Tsang sampler: it draws Gamma(a, 1) with
// a = shape, or a = shape+1 and the boost U^(1/shape) when shape < 1, and scales by θ.
type gamma struct {
	mean  time.Duration
	shape float64 // k
	theta float64 // scale mean/k, in nanoseconds
	boost bool    // shape < 1: draw Gamma(shape+1) and multiply by U^(1/shape)
	invK  float64 // 1/shape, the boost's exponent
	d, c  float64 // a − 1/3 and 1/√(9d), a the shape the squeeze runs at
}

type uniform struct{ lo, hi time.Duration }

type empirical struct {
	values []time.Duration // sorted ascending, non-empty
	file   string          // the file the values came from, "" when given inline
	mean   time.Duration
	m2     float64
}

const errNilRand = "dist: Sample with a nil *rand.Rand"

// Const returns the distribution that is always d, clamped to [0, MaxDuration] (Parse rejects
// such values instead). Its Sample draws nothing from r.
func Const(d time.Duration) Duration { return &constant{clamp(d)} }

// Exp returns the exponential distribution with the given mean (rate 1/mean). mean must be in
// (0, MaxDuration].
func Exp(mean time.Duration) (Duration, error) {
	d, f := ret(newExp(mean))
	return d, f.in("exp")
}

// LogNormal returns the lognormal distribution whose MEAN is mean (not its median) and whose
// logarithm has standard deviation sigma:
//
//	ln S ~ Normal(μ, σ²)   with   μ = ln(mean) − σ²/2,
//
// so that E[S] = exp(μ + σ²/2) = mean. The median is mean·exp(−σ²/2), and
// E[S²] = mean²·exp(σ²). mean must be in (0, MaxDuration] and sigma in [0, MaxSigma].
func LogNormal(mean time.Duration, sigma float64) (Duration, error) {
	d, f := ret(newLogNormal(mean, sigma))
	return d, f.in("lognormal")
}

// Gamma returns the gamma distribution whose MEAN is mean and whose shape is k (rate k/mean,
// scale θ = mean/k):
//
//	f(s) = s^(k−1)·e^(−s/θ) / (Γ(k)·θ^k),   E[S] = kθ = mean,   E[S²] = mean²·(1 + 1/k).
//
// k = 1 is the exponential; k < 1 is more variable than it, k > 1 less. mean must be in
// (0, MaxDuration] and k in [MinShape, MaxShape].
func Gamma(mean time.Duration, k float64) (Duration, error) {
	d, f := ret(newGamma(mean, k))
	return d, f.in("gamma")
}

// Uniform returns the uniform distribution on the nanoseconds lo, lo+1ns, …, hi (both ends
// included). It needs 0 <= lo <= hi <= MaxDuration.
func Uniform(lo, hi time.Duration) (Duration, error) {
	d, f := ret(newUniform(lo, hi))
	return d, f.in("uniform")
}

// Empirical returns the distribution that draws uniformly among values, counting repeats. It
// keeps a sorted copy, so the caller may reuse the slice. values must be non-empty and each in
// [0, MaxDuration].
func Empirical(values []time.Duration) (Duration, error) {
	d, f := ret(newEmpirical(values, ""))
	return d, f.in("empirical")
}

func newConst(d time.Duration) (*constant, *failure) {
	if f := checkDuration("duration", d, false); f != nil {
		return nil, f
	}
	return &constant{d}, nil
}

func newExp(mean time.Duration) (*exponential, *failure) {
	if f := checkDuration("mean", mean, true); f != nil {
		return nil, f
	}
	return &exponential{mean: mean, rate: 1 / float64(mean)}, nil
}

func newLogNormal(mean time.Duration, sigma float64) (*logNormal, *failure) {
	if f := checkDuration("mean", mean, true); f != nil {
		return nil, f
	}
	if f := checkSigma(sigma); f != nil {
		return nil, f
	}
	sigma = math.Abs(sigma) // turns −0 into 0 so that String is canonical
	return &logNormal{mean: mean, sigma: sigma, mu: math.Log(float64(mean)) - float64(sigma*sigma/2)}, nil
}

func newGamma(mean time.Duration, k float64) (*gamma, *failure) {
	if f := checkDuration("mean", mean, true); f != nil {
		return nil, f
	}
	if !(k >= MinShape && k <= MaxShape) { // also false for NaN
		return nil, invalid("shape %s: %s", formatFloat(k), shapeRule)
	}
	g := &gamma{mean: mean, shape: k, theta: float64(mean) / k}
	a := k
	if k < 1 {
		g.boost, g.invK, a = true, 1/k, k+1
	}
	g.d = a - 1.0/3
	g.c = 1 / math.Sqrt(float64(9*g.d))
	return g, nil
}

func newUniform(lo, hi time.Duration) (*uniform, *failure) {
	if f := checkDuration("lo", lo, false); f != nil {
		return nil, f
	}
	if f := checkDuration("hi", hi, false); f != nil {
		return nil, f
	}
	if hi < lo {
		return nil, invalid("hi %v: must be ≥ lo %v", hi, lo)
	}
	return &uniform{lo, hi}, nil
}

func newEmpirical(values []time.Duration, file string) (*empirical, *failure) {
	if len(values) == 0 {
		return nil, invalid("no values: empirical needs at least 1")
	}
	for i, v := range values {
		if f := checkDuration("value #"+strconv.Itoa(i+1), v, false); f != nil {
			return nil, f
		}
	}
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	m2 := 0.0
	for _, v := range sorted {
		s := v.Seconds()
		m2 += float64(s * s)
	}
	return &empirical{values: sorted, file: file, mean: exactMean(sorted), m2: m2 / float64(len(sorted))}, nil
}

// exactMean is the mean of values rounded half up to the nanosecond, without the overflow a
// plain int64 sum would risk: it sums quotients and remainders of division by n separately.
// Each remainder is below n, so their sum stays below n², far from overflow for any slice that
// fits in memory.
func exactMean(values []time.Duration) time.Duration {
	n := int64(len(values))
	var q, r int64
	for _, v := range values {
		q += int64(v) / n
		r += int64(v) % n
	}
	q += r / n
	if 2*(r%n) >= n {
		q++
	}
	return time.Duration(q)
}

func checkDuration(param string, d time.Duration, positive bool) *failure {
	switch {
	case positive && d <= 0:
		return invalid("%s %v: must be > 0", param, d)
	case d < 0:
		return invalid("%s %v: must be ≥ 0", param, d)
	case d > MaxDuration:
		return invalid("%s %v: must be ≤ %v (MaxDuration)", param, d, MaxDuration)
	}
	return nil
}

// sigmaRule and shapeRule are the rules the lognormal sigma and the gamma shape break.
var (
	sigmaRule = "must be a finite number in [0, " + formatFloat(MaxSigma) + "]"
	shapeRule = "must be a finite number in [" + formatFloat(MinShape) + ", " + formatFloat(MaxShape) + "]"
)

func checkSigma(sigma float64) *failure {
	if !(sigma >= 0 && sigma <= MaxSigma) { // also false for NaN
		return invalid("sigma %s: %s", formatFloat(sigma), sigmaRule)
	}
	return nil
}

func clamp(d time.Duration) time.Duration { return min(max(d, 0), MaxDuration) }

// maxNanos is MaxDuration as a float64; 2⁶² is exact in binary.
const maxNanos = float64(MaxDuration)

// fromNanos converts a float draw in nanoseconds to a Duration: rounded to the nearest
// nanosecond, negatives and NaN to 0, and anything at or beyond MaxDuration (including +Inf) to
// MaxDuration, because converting an out-of-range float to int64 is implementation-defined in
// Go and wraps to a negative number on amd64.
func fromNanos(ns float64) time.Duration {
	switch {
	case ns >= maxNanos:
		return MaxDuration
	case ns > 0:
		return time.Duration(math.Round(ns))
	default:
		return 0
	}
}

func formatFloat(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

func (c *constant) Sample(r *rand.Rand) time.Duration {
	if r == nil {
		panic(errNilRand) // even though unused: a caller must not learn it only when switching to exp
	}
	return c.d
}
func (c *constant) Mean() time.Duration { return c.d }
func (c *constant) SecondMoment() float64 {
	s := c.d.Seconds()
	return float64(s * s)
}
func (c *constant) String() string { return "const(" + c.d.String() + ")" }

// Sample builds a distuv.Exponential with Src set to r on each call: the value stays on the
// stack and the *rand.Rand that distuv wraps around Src does not escape, so a draw allocates
// nothing (TestZeroAllocs) and one exponential can serve many streams.
func (e *exponential) Sample(r *rand.Rand) time.Duration {
	if r == nil {
		panic(errNilRand)
	}
	return fromNanos(distuv.Exponential{Rate: e.rate, Src: r}.Rand())
}
func (e *exponential) Mean() time.Duration { return e.mean }
func (e *exponential) SecondMoment() float64 {
	m := e.mean.Seconds()
	return float64(2 * m * m)
}
func (e *exponential) String() string { return "exp(" + e.mean.String() + ")" }

func (l *logNormal) Sample(r *rand.Rand) time.Duration {
	if r == nil {
		panic(errNilRand)
	}
	return fromNanos(distuv.LogNormal{Mu: l.mu, Sigma: l.sigma, Src: r}.Rand())
}
func (l *logNormal) Mean() time.Duration { return l.mean }
func (l *logNormal) SecondMoment() float64 {
	m := l.mean.Seconds()
	return float64(m * m * math.Exp(l.sigma*l.sigma))
}
func (l *logNormal) String() string {
	return "lognormal(" + l.mean.String() + ", " + formatFloat(l.sigma) + ")"
}

// Sample draws Gamma(k, 1) by Marsaglia and Tsang's squeeze-and-reject method ("A simple
// method for generating gamma variables", ACM TOMS 26(3), 2000) and scales it by θ. For k ≥ 1,
// with d = k − 1/3 and c = 1/√(9d): draw x ~ Normal(0, 1) until v = (1 + cx)³ > 0, draw
// U ~ Uniform[0, 1), and accept d·v if U < 1 − 0.0331x⁴ (the squeeze) or
// ln U < x²/2 + d(1 − v + ln v); else start again. For k < 1 it draws U^(1/k) first and
// multiplies a Gamma(k+1, 1) draw by it (Gamma(k) = Gamma(k+1)·U^(1/k), same paper, §6).
//
// The draws come from r's NormFloat64 and Float64 only, and every product that meets a sum is
// rounded on its own (float64(a*b) + c), so that no platform fuses it into a multiply-add and
// a stream gives the same durations on amd64 and arm64 (docs/conventions.md §9).
func (g *gamma) Sample(r *rand.Rand) time.Duration {
	if r == nil {
		panic(errNilRand)
	}
	boost := 1.0
	if g.boost {
		boost = math.Pow(r.Float64(), g.invK)
	}
	for {
		x := r.NormFloat64()
		v := 1 + float64(g.c*x)
		if v <= 0 {
			continue
		}
		v = float64(float64(v*v) * v)
		u := r.Float64()
		x2 := float64(x * x)
		if u < 1-float64(0.0331*float64(x2*x2)) ||
			math.Log(u) < float64(0.5*x2)+float64(g.d*(1-v+math.Log(v))) {
			return fromNanos(float64(float64(float64(g.d*v)*boost) * g.theta))
		}
	}
}
func (g *gamma) Mean() time.Duration { return g.mean }
func (g *gamma) SecondMoment() float64 {
	m := g.mean.Seconds()
	return float64(float64(m*m) * (1 + 1/g.shape))
}
func (g *gamma) String() string {
	return "gamma(" + g.mean.String() + ", " + formatFloat(g.shape) + ")"
}

// Sample draws an integer number of nanoseconds, so lo and hi are reachable and the mean is
// exactly (lo+hi)/2. hi−lo+1 cannot overflow because hi <= MaxDuration = 2⁶².
func (u *uniform) Sample(r *rand.Rand) time.Duration {
	if r == nil {
		panic(errNilRand)
	}
	return u.lo + time.Duration(r.Int64N(int64(u.hi-u.lo)+1))
}

// Mean is (lo+hi)/2, rounded half up.
func (u *uniform) Mean() time.Duration { return u.lo + (u.hi-u.lo+1)/2 }

// SecondMoment is that of the discrete uniform on a 1 ns grid: mean² + w²/12 + w·h/6 with
// w = hi−lo and h = 1 ns; the last term is what the grid adds to the continuous w²/12.
func (u *uniform) SecondMoment() float64 {
	const h = 1e-9
	m := (u.lo.Seconds() + u.hi.Seconds()) / 2
	w := (u.hi - u.lo).Seconds()
	return float64(m*m) + w*w/12 + w*h/6
}
func (u *uniform) String() string {
	return "uniform(" + u.lo.String() + ", " + u.hi.String() + ")"
}

func (e *empirical) Sample(r *rand.Rand) time.Duration {
	if r == nil {
		panic(errNilRand)
	}
	return e.values[r.IntN(len(e.values))]
}
func (e *empirical) Mean() time.Duration   { return e.mean }
func (e *empirical) SecondMoment() float64 { return e.m2 }

// String lists the sorted values, or names the file they were read from.
func (e *empirical) String() string {
	if e.file != "" {
		return "empirical(" + e.file + ")"
	}
	var b strings.Builder
	b.WriteString("empirical(")
	for i, v := range e.values {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(v.String())
	}
	b.WriteString(")")
	return b.String()
}
