package fit

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/overloadsim/overloadsim/dist"
	"gonum.org/v1/gonum/mathext"
)

// The families a fit tries, named as the dist syntax names them, in the order Samples and
// Histogram return them: by number of parameters, then lognormal before gamma.
const (
	Exp       = "exp"       // exponential: mean only
	LogNormal = "lognormal" // mean and σ of ln S
	Gamma     = "gamma"     // mean and shape k
)

// families is the order of the fits in a result, which is also Best's order among ties.
var families = []string{Exp, LogNormal, Gamma}

// MinSamples is the fewest samples Samples accepts, and the smallest total count Histogram
// accepts. Below it the shape is a guess: with 30 draws from an exponential the standard error
// of the fitted lognormal σ is already 13 %.
const MinSamples = 30

// MinSpread is the smallest relative spread Samples fits a shape to: the largest sample must
// exceed the smallest by at least this fraction of it. Closer samples are a constant (their ln
// values may even coincide in float64), and a shape fitted to them would be noise.
const MinSpread = 1e-6

// Fit is one family fitted to data by maximum likelihood.
type Fit struct {
	// Family is Exp, LogNormal or Gamma.
	Family string
	// Mean is the fitted mean E[S], in seconds.
	Mean float64
	// Shape is σ of ln S for LogNormal, the shape k for Gamma, and 0 for Exp. It does not
	// depend on the unit of the data: rescaling every sample rescales Mean only.
	Shape float64
	// LogLik is the maximised log-likelihood: of the densities for Samples, of the bin
	// probabilities for Histogram (see the package documentation). Only fits to the same data
	// compare.
	LogLik float64
	// AIC is Akaike's information criterion, 2·(number of parameters) − 2·LogLik; lower is
	// better.
	AIC float64
	// KS is the Kolmogorov–Smirnov distance between the fitted CDF and the data's empirical
	// CDF (at every sample for Samples, at the range edges for Histogram): the largest gap
	// between the two, in probability. It is a measure of quality, not a test.
	KS float64
	// N is the number of samples, or the histogram's total count.
	N int64
}

// params is the number of free parameters of family.
func params(family string) int {
	if family == Exp {
		return 1
	}
	return 2
}

// aic is 2·params − 2·lnL.
func aic(family string, lnL float64) float64 {
	return float64(2*params(family)) - float64(2*lnL)
}

// rank is family's position in families, len(families) for an unknown one.
func rank(family string) int {
	for i, f := range families {
		if f == family {
			return i
		}
	}
	return len(families)
}

// Best returns the fit with the lowest AIC. Ties (equal AIC, as float64) go to the simpler
// family, the one with fewer parameters, and between the two-parameter families to lognormal,
// the first in the order Exp, LogNormal, Gamma; a NaN AIC never wins. Best of no fits is the
// zero Fit, whose Dist is "".
func Best(fits []Fit) Fit {
	var best Fit
	found := false
	for _, f := range fits {
		if math.IsNaN(f.AIC) {
			continue
		}
		if !found || f.AIC < best.AIC ||
			f.AIC == best.AIC && (params(f.Family) < params(best.Family) ||
				params(f.Family) == params(best.Family) && rank(f.Family) < rank(best.Family)) {
			best, found = f, true
		}
	}
	return best
}

// DurationDigits and ShapeDigits are the significant digits Dist keeps of the mean and of the
// shape; MinMean is the smallest mean it writes. MongoDB reports latencies in whole
// microseconds (opLatencies, the slow-query log's durationMillis and workingMillis are coarser
// still), so a fitted mean below 1µs is below the resolution of the data it came from.
const (
	DurationDigits = 3
	ShapeDigits    = 3
	MinMean        = time.Microsecond
)

// Dist returns the fit in the dist syntax, canonical as dist's String writes it: exp(5ms),
// lognormal(5.12ms, 0.5), gamma(312µs, 2.37). The mean is rounded to nearest at DurationDigits
// significant digits of nanoseconds, and is at least MinMean and at most dist.MaxDuration; the
// shape is rounded to ShapeDigits significant digits and held in the family's range (σ in
// [0, dist.MaxSigma], k in [dist.MinShape, dist.MaxShape]), so that dist.Parse always accepts
// the text. A Fit whose Family is not one of the three, whose Mean is not a positive finite
// number (such as the zero Fit's), or whose Shape is NaN gives "".
func (f Fit) Dist() string {
	if !(f.Mean > 0) || math.IsInf(f.Mean, 1) || math.IsNaN(f.Shape) {
		return ""
	}
	mean := roundMean(f.Mean)
	var d dist.Duration
	var err error
	switch f.Family {
	case Exp:
		d, err = dist.Exp(mean)
	case LogNormal:
		d, err = dist.LogNormal(mean, min(max(roundShape(f.Shape), 0), dist.MaxSigma))
	case Gamma:
		d, err = dist.Gamma(mean, min(max(roundShape(f.Shape), dist.MinShape), dist.MaxShape))
	default:
		return ""
	}
	if err != nil {
		panic(fmt.Sprintf("fit: Dist of %s with mean %v s and shape %v: %v", f.Family, f.Mean, f.Shape, err))
	}
	return d.String()
}

// roundMean converts seconds to a duration rounded to nearest at DurationDigits significant
// digits of nanoseconds, within [MinMean, dist.MaxDuration]. The digits come from strconv's
// correctly rounded decimal text of the float, as for the shape, so that a mean rounds once.
func roundMean(seconds float64) time.Duration {
	ns := min(float64(seconds*1e9), float64(dist.MaxDuration))
	r, _ := strconv.ParseFloat(strconv.FormatFloat(ns, 'e', DurationDigits-1, 64), 64)
	return min(max(time.Duration(math.Round(r)), MinMean), dist.MaxDuration)
}

// roundShape rounds x to ShapeDigits significant digits (through its decimal text, so that the
// result is the float64 nearest the short decimal dist writes). NaN stays NaN.
func roundShape(x float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', ShapeDigits, 64), 64)
	return r
}

// WithMean returns f with its mean replaced by mean (seconds), for a mean measured better
// elsewhere (from counters, where the fit's data was a sample of latencies). The shape carries
// over unchanged, since σ and k do not depend on the scale; LogLik, AIC, KS and N still
// describe the fit to the original data. mean must be a positive finite number: anything else
// is a caller's bug, and WithMean panics with the value.
func (f Fit) WithMean(mean float64) Fit {
	if !(mean > 0) || math.IsInf(mean, 1) {
		panic(fmt.Sprintf("fit: WithMean(%v): the mean must be a positive finite number of seconds", mean))
	}
	f.Mean = mean
	return f
}

// String is one line for a report: the distribution, then the criterion and the quality with
// fixed verbs, e.g. "gamma(4.96ms, 1.98) AIC=-176777 KS=0.0038 n=20000".
func (f Fit) String() string {
	return fmt.Sprintf("%s AIC=%.6g KS=%.4f n=%d", f.Dist(), f.AIC, f.KS, f.N)
}

// model is a fitted family with what its CDF needs.
type model struct {
	family string
	mean   float64 // seconds
	shape  float64
	mu     float64 // lognormal: mean of ln S
	theta  float64 // gamma: scale mean/k
}

func newModel(family string, mean, shape float64) model {
	m := model{family: family, mean: mean, shape: shape}
	switch family {
	case LogNormal:
		m.mu = math.Log(mean) - float64(0.5*float64(shape*shape))
	case Gamma:
		m.theta = mean / shape
	}
	return m
}

// cdf is P(S ≤ x) and sf is P(S > x) = 1 − cdf(x), each computed directly so that a tail
// probability keeps its precision.
func (m model) cdf(x float64) float64 {
	switch {
	case x <= 0:
		return 0
	case math.IsInf(x, 1):
		return 1
	}
	switch m.family {
	case Exp:
		return -math.Expm1(-x / m.mean)
	case LogNormal:
		return float64(0.5 * math.Erfc(-(math.Log(x)-m.mu)/(m.shape*math.Sqrt2)))
	default:
		return mathext.GammaIncReg(m.shape, x/m.theta)
	}
}

func (m model) sf(x float64) float64 {
	switch {
	case x <= 0:
		return 1
	case math.IsInf(x, 1):
		return 0
	}
	switch m.family {
	case Exp:
		return math.Exp(-x / m.mean)
	case LogNormal:
		return float64(0.5 * math.Erfc((math.Log(x)-m.mu)/(m.shape*math.Sqrt2)))
	default:
		return mathext.GammaIncRegComp(m.shape, x/m.theta)
	}
}

// prob is P(lo ≤ S < hi), hi possibly +Inf: a difference of CDFs below the median and of
// survival functions above it, so that neither tail cancels to 0.
func (m model) prob(lo, hi float64) float64 {
	if c := m.cdf(lo); c < 0.5 {
		return m.cdf(hi) - c
	}
	return m.sf(lo) - m.sf(hi)
}

// minProb is the smallest range probability logProb takes the logarithm of. A range that far
// in a fitted family's tail costs ln(1e-300) ≈ −691 per sample instead of −Inf, which keeps
// the likelihood finite, so that a search that starts far from the data can still move.
const minProb = 1e-300

// logProb is ln P(lo ≤ S < hi), at least ln minProb; for the exponential it is exact in any
// tail: ln P = −lo/m + ln(1 − e^(−(hi−lo)/m)).
func (m model) logProb(lo, hi float64) float64 {
	if m.family == Exp {
		if math.IsInf(hi, 1) {
			return -lo / m.mean
		}
		return -lo/m.mean + math.Log(-math.Expm1(-(hi-lo)/m.mean))
	}
	return math.Log(max(m.prob(lo, hi), minProb))
}
