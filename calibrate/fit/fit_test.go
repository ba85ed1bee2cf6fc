package fit

import (
	"errors"
	"math"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/overloadsim/overloadsim/dist"
	"github.com/overloadsim/overloadsim/field"
	"github.com/overloadsim/overloadsim/results/serverstatus"
	"github.com/overloadsim/overloadsim/sim"
	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat/distuv"
)

// recoverN is the sample size of the recovery tests, and testSeed their seed: each case draws
// from its own stream, sim.NewStream(testSeed, "fit/test/"+text), so a failure is reproduced by
// go test ./calibrate/fit -run <TestName> -v.
const (
	recoverN = 20_000
	testSeed = 1
)

// draw returns n draws of the distribution text in seconds, from the project's sampler.
func draw(t testing.TB, text string, n int) []float64 {
	t.Helper()
	d, err := dist.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	r := sim.NewStream(testSeed, "fit/test/"+text)
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = d.Sample(r).Seconds()
	}
	return xs
}

// opLatencies buckets xs (seconds) as MongoDB's opLatencies histogram does: a latency of l µs
// counts in the last range whose lower bound is ≤ l. It returns every range, empty ones with 0,
// the bounds in seconds.
func opLatencies(xs []float64) (lower []float64, counts []int64) {
	b := serverstatus.LowerBounds
	lower = make([]float64, len(b))
	for i, us := range b {
		lower[i] = float64(us) * 1e-6
	}
	counts = make([]int64, len(b))
	for _, x := range xs {
		us := x * 1e6
		i := sort.Search(len(b), func(i int) bool { return float64(b[i]) > us }) - 1
		counts[i]++
	}
	return lower, counts
}

// recoveryCases are the distributions the recovery tests draw from: each family, shapes on
// both sides of the exponential, means from 800µs to 50ms. The tolerances (mean within 2 %,
// shape within 10 %) are wide against the estimators' standard errors at n = 20000: the
// mean's is at most 0.9 % (lognormal σ = 1: m·sqrt((σ² + σ⁴/2)/n); gamma k = 0.7:
// m/sqrt(k·n)), σ̂'s is σ/√(2n) = 0.5 %, k̂'s about k·sqrt(2/n)·(1 + 1/(2k)) ≤ 1.5 %. The
// shapes are far enough apart that the other two-parameter family loses by an AIC margin of
// dozens at this n. Durations are whole nanoseconds and below 1 ns in fewer than one draw in
// 10⁵ at these parameters (a zero would be refused by Samples).
var recoveryCases = []struct {
	text   string
	family string
	mean   float64 // seconds
	shape  float64
}{
	{"exp(5ms)", Exp, 0.005, 0},
	{"lognormal(3ms, 0.5)", LogNormal, 0.003, 0.5},
	{"lognormal(10ms, 1)", LogNormal, 0.010, 1},
	{"lognormal(50ms, 0.2)", LogNormal, 0.050, 0.2},
	{"gamma(5ms, 2)", Gamma, 0.005, 2},
	{"gamma(20ms, 0.7)", Gamma, 0.020, 0.7},
	{"gamma(800µs, 12)", Gamma, 0.0008, 12},
}

// checkRecovery checks that fits hold a fit of the true family within the tolerances and that
// Best picks it. For exponential data the gamma nests the truth (k = 1) and gains χ²₁/2 in lnL,
// which beats AIC's penalty of one parameter with probability 0.16: a gamma with k within the
// shape tolerance of 1 is the same distribution, and counts as the true family.
func checkRecovery(t *testing.T, how string, fits []Fit, text, family string, mean, shape float64) {
	t.Helper()
	if len(fits) != 3 || fits[0].Family != Exp || fits[1].Family != LogNormal || fits[2].Family != Gamma {
		t.Fatalf("%s(%s): families %v, want exp, lognormal, gamma in that order", how, text, fits)
	}
	for _, f := range fits {
		for _, v := range []float64{f.Mean, f.Shape, f.LogLik, f.AIC, f.KS} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Errorf("%s(%s): %s fit %+v is not finite", how, text, f.Family, f)
			}
		}
		if f.N != recoverN {
			t.Errorf("%s(%s): %s fit N = %d, want %d", how, text, f.Family, f.N, recoverN)
		}
	}
	f := fits[slices.IndexFunc(fits, func(f Fit) bool { return f.Family == family })]
	if rel := math.Abs(f.Mean/mean - 1); rel > 0.02 {
		t.Errorf("%s(%s): fitted mean %.6g s, want %.6g s within 2 %% (off by %.2f %%)", how, text, f.Mean, mean, 100*rel)
	}
	if family != Exp {
		if rel := math.Abs(f.Shape/shape - 1); rel > 0.10 {
			t.Errorf("%s(%s): fitted shape %.6g, want %.6g within 10 %% (off by %.1f %%)", how, text, f.Shape, shape, 100*rel)
		}
	}
	best := Best(fits)
	same := best.Family == family || family == Exp && best.Family == Gamma && math.Abs(best.Shape-1) <= 0.10
	if !same {
		t.Errorf("%s(%s): Best = %s, want %s; fits:\n%s", how, text, best, family, fitLines(fits))
	}
	t.Logf("%s(%s): best %s\n%s", how, text, best, fitLines(fits))
}

func fitLines(fits []Fit) string {
	var b strings.Builder
	for _, f := range fits {
		b.WriteString("\t" + f.String() + "\n")
	}
	return b.String()
}

func TestSamplesRecovers(t *testing.T) {
	for _, tt := range recoveryCases {
		fits, err := Samples(draw(t, tt.text, recoverN))
		if err != nil {
			t.Fatalf("Samples(%s): %v", tt.text, err)
		}
		checkRecovery(t, "Samples", fits, tt.text, tt.family, tt.mean, tt.shape)
	}
}

// TestHistogramRecovers fits the same draws after bucketing them as opLatencies does. The
// ranges are a factor 1.33 to 2 wide, so the information lost is modest and the tolerances
// are those of TestSamplesRecovers.
func TestHistogramRecovers(t *testing.T) {
	for _, tt := range recoveryCases {
		lower, counts := opLatencies(draw(t, tt.text, recoverN))
		fits, err := Histogram(lower, counts)
		if err != nil {
			t.Fatalf("Histogram(%s): %v", tt.text, err)
		}
		checkRecovery(t, "Histogram", fits, tt.text, tt.family, tt.mean, tt.shape)
	}
}

// TestHistogramIsMaximum checks the search, not the estimator: moving either parameter of a
// histogram fit by ±0.1 % must not raise the binned likelihood. Near the maximum lnL falls
// like n·(δ/SE₁)²/2 with SE₁ the one-sample standard error of the parameter, about 0.02 here,
// far above the search's convergence threshold (1e-13 per sample), so a search that stopped
// 0.1 % short would be caught.
func TestHistogramIsMaximum(t *testing.T) {
	for _, tt := range recoveryCases {
		lower, counts := opLatencies(draw(t, tt.text, recoverN))
		fits, err := Histogram(lower, counts)
		if err != nil {
			t.Fatal(err)
		}
		h := newHist(lower, counts)
		for _, f := range fits {
			at := h.logLik(newModel(f.Family, f.Mean, f.Shape))
			if at != f.LogLik {
				t.Errorf("%s: %s fit reports LogLik %v, but its parameters give %v", tt.text, f.Family, f.LogLik, at)
			}
			for _, step := range []float64{0.999, 1.001} {
				moves := []model{newModel(f.Family, f.Mean*step, f.Shape)}
				if f.Family != Exp {
					moves = append(moves, newModel(f.Family, f.Mean, f.Shape*step))
				}
				for _, m := range moves {
					if ll := h.logLik(m); ll > at+1e-9*math.Abs(at) {
						t.Errorf("%s: %s fit (%v, %v) has lnL %.10g, but (%v, %v) has %.10g", tt.text, f.Family, f.Mean, f.Shape, at, m.mean, m.shape, ll)
					}
				}
			}
		}
	}
}

// TestLogLikMatchesDensities checks the closed forms of LogLik against the sum of gonum's log
// densities (and, for histograms, of gonum's range probabilities, as CDF differences below the
// median and survival differences above it, where a CDF difference would cancel) at the fitted
// parameters: two computations that share nothing but the parameters. The sums of 20000 terms
// agree to about 1e-12 relative; 1e-9 leaves room.
func TestLogLikMatchesDensities(t *testing.T) {
	ref := func(f Fit) interface {
		LogProb(float64) float64
		CDF(float64) float64
		Survival(float64) float64
	} {
		switch f.Family {
		case Exp:
			return distuv.Exponential{Rate: 1 / f.Mean}
		case LogNormal:
			return distuv.LogNormal{Mu: math.Log(f.Mean) - f.Shape*f.Shape/2, Sigma: f.Shape}
		default:
			return distuv.Gamma{Alpha: f.Shape, Beta: f.Shape / f.Mean}
		}
	}
	for _, tt := range recoveryCases {
		xs := draw(t, tt.text, recoverN)
		fits, err := Samples(xs)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fits {
			want := 0.0
			for _, x := range xs {
				want += ref(f).LogProb(x)
			}
			if math.Abs(f.LogLik-want) > 1e-9*math.Abs(want) {
				t.Errorf("Samples(%s): %s LogLik = %.12g, Σ distuv LogProb = %.12g", tt.text, f.Family, f.LogLik, want)
			}
		}
		lower, counts := opLatencies(xs)
		hfits, err := Histogram(lower, counts)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range hfits {
			d, want := ref(f), 0.0
			for i, c := range counts {
				if c == 0 {
					continue
				}
				hi := math.Inf(1)
				if i+1 < len(lower) {
					hi = lower[i+1]
				}
				p := d.CDF(hi) - d.CDF(lower[i])
				if d.CDF(lower[i]) >= 0.5 {
					p = d.Survival(lower[i]) - d.Survival(hi)
				}
				want += float64(c) * math.Log(p)
			}
			if math.Abs(f.LogLik-want) > 1e-9*math.Abs(want) {
				t.Errorf("Histogram(%s): %s LogLik = %.12g, Σ c·ln ΔF (distuv) = %.12g", tt.text, f.Family, f.LogLik, want)
			}
		}
	}
}

// TestDeterministic: the same input gives the same fits, to the bit, and the order of the
// samples does not matter (Samples sums over a sorted copy).
func TestDeterministic(t *testing.T) {
	xs := draw(t, "gamma(5ms, 2)", recoverN)
	a, err := Samples(xs)
	if err != nil {
		t.Fatal(err)
	}
	reversed := slices.Clone(xs)
	slices.Reverse(reversed)
	b, err := Samples(reversed)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("Samples differs with the order of its input:\n%+v\n%+v", a, b)
	}
	lower, counts := opLatencies(xs)
	h1, err := Histogram(lower, counts)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if h2, _ := Histogram(lower, counts); !reflect.DeepEqual(h1, h2) {
			t.Fatalf("Histogram differs between two calls:\n%+v\n%+v", h1, h2)
		}
	}
}

// checkInputError checks that err is a *field.Error after "fit: " with the wanted message.
func checkInputError(t *testing.T, call string, fits []Fit, err error, want string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s = %v, want error %q", call, fits, want)
		return
	}
	if fits != nil {
		t.Errorf("%s returned %v with its error", call, fits)
	}
	if err.Error() != want {
		t.Errorf("%s error\n got %s\nwant %s", call, err, want)
	}
	if fe := (*field.Error)(nil); !errors.As(err, &fe) {
		t.Errorf("%s error %v holds no *field.Error", call, err)
	}
}

func TestSamplesErrors(t *testing.T) {
	many := func(n int, x float64) []float64 {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = x
		}
		return xs
	}
	with := func(xs []float64, i int, x float64) []float64 { xs[i] = x; return xs }
	tests := []struct {
		gloss string
		xs    []float64
		want  string
	}{
		{"no samples", nil, "fit: samples: 0 values: need at least 30"},
		{"one short of the minimum", with(many(29, 0.005), 0, 0.001), "fit: samples: 29 values: need at least 30"},
		{"a zero", with(many(40, 0.005), 3, 0), "fit: samples[3]: 0: must be a number of seconds in (0, 4.611686018427388e+09] (dist.MaxDuration)"},
		{"a negative", with(many(40, 0.005), 39, -0.002), "fit: samples[39]: -0.002: must be a number of seconds in (0, 4.611686018427388e+09] (dist.MaxDuration)"},
		{"NaN", with(many(40, 0.005), 0, math.NaN()), "fit: samples[0]: NaN: must be a number of seconds in (0, 4.611686018427388e+09] (dist.MaxDuration)"},
		{"+Inf", with(many(40, 0.005), 1, math.Inf(1)), "fit: samples[1]: +Inf: must be a number of seconds in (0, 4.611686018427388e+09] (dist.MaxDuration)"},
		{"beyond MaxDuration", with(many(40, 0.005), 2, 1e10), "fit: samples[2]: 1e+10: must be a number of seconds in (0, 4.611686018427388e+09] (dist.MaxDuration)"},
		{"all equal", many(50, 0.005), "fit: samples: 50 values in [0.005, 0.005]: no spread to fit a shape to: the largest must exceed the smallest by 1e-06 of it (a constant fits them)"},
		{"equal to within 1e-7", with(many(50, 0.005), 7, 0.005*(1+1e-7)), "fit: samples: 50 values in [0.005, 0.0050000005]: no spread to fit a shape to: the largest must exceed the smallest by 1e-06 of it (a constant fits them)"},
	}
	for _, tt := range tests {
		fits, err := Samples(tt.xs)
		checkInputError(t, "Samples("+tt.gloss+")", fits, err, tt.want)
	}
}

// TestSamplesNearlyConstant: samples just above MinSpread apart fit, with finite numbers and a
// gamma shape far beyond dist.MaxShape that Dist holds at it.
func TestSamplesNearlyConstant(t *testing.T) {
	xs := make([]float64, 100)
	for i := range xs {
		xs[i] = 0.005 * (1 + float64(i%2)*2e-6)
	}
	fits, err := Samples(xs)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fits {
		for _, v := range []float64{f.Mean, f.Shape, f.LogLik, f.AIC, f.KS} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Errorf("%s fit %+v is not finite", f.Family, f)
			}
		}
	}
	if got, want := fits[2].Dist(), "gamma(5ms, 1e+06)"; got != want {
		t.Errorf("gamma fit %+v: Dist() = %q, want %q", fits[2], got, want)
	}
}

func TestHistogramErrors(t *testing.T) {
	lower := []float64{0, 0.001, 0.002, 0.004}
	tests := []struct {
		gloss  string
		lower  []float64
		counts []int64
		want   string
	}{
		{"empty", nil, nil, "fit: lower: 0 ranges: need at least 3 ranges with counts"},
		{"fewer counts than ranges", lower, []int64{10, 10, 10}, "fit: counts: 3 counts: need one per range of lower, 4"},
		{"negative bound", []float64{-0.001, 0.001, 0.002, 0.004}, []int64{10, 10, 10, 10}, "fit: lower[0]: -0.001: must be a number of seconds in [0, 4.611686018427388e+09] (dist.MaxDuration)"},
		{"NaN bound", []float64{0, math.NaN(), 0.002, 0.004}, []int64{10, 10, 10, 10}, "fit: lower[1]: NaN: must be a number of seconds in [0, 4.611686018427388e+09] (dist.MaxDuration)"},
		{"infinite bound", []float64{0, 0.001, 0.002, math.Inf(1)}, []int64{10, 10, 10, 10}, "fit: lower[3]: +Inf: must be a number of seconds in [0, 4.611686018427388e+09] (dist.MaxDuration)"},
		{"equal bounds", []float64{0, 0.001, 0.001, 0.004}, []int64{10, 10, 10, 10}, "fit: lower[2]: 0.001: must be > lower[1] = 0.001: the ranges must increase"},
		{"decreasing bounds", []float64{0, 0.002, 0.001, 0.004}, []int64{10, 10, 10, 10}, "fit: lower[2]: 0.001: must be > lower[1] = 0.002: the ranges must increase"},
		{"negative count", lower, []int64{10, -1, 10, 10}, "fit: counts[1]: -1: must be ≥ 0"},
		{"total overflows", lower, []int64{math.MaxInt64, 1, 0, 0}, "fit: counts: a total beyond 2⁶³−1: must fit in an int64"},
		{"all zero", lower, []int64{0, 0, 0, 0}, "fit: counts: 0 samples in all: need at least 30"},
		{"too few samples", lower, []int64{10, 9, 10, 0}, "fit: counts: 29 samples in all: need at least 30"},
		{"one bin only", lower, []int64{0, 500, 0, 0}, "fit: counts: 500 samples in 1 non-empty range: need at least 3 non-empty ranges to fit a shape"},
		{"only the open range", lower, []int64{0, 0, 0, 500}, "fit: counts: 500 samples in 1 non-empty range: need at least 3 non-empty ranges to fit a shape"},
		{"two bins", lower, []int64{0, 250, 250, 0}, "fit: counts: 500 samples in 2 non-empty ranges: need at least 3 non-empty ranges to fit a shape"},
	}
	for _, tt := range tests {
		fits, err := Histogram(tt.lower, tt.counts)
		checkInputError(t, "Histogram("+tt.gloss+")", fits, err, tt.want)
	}
}

// TestHistogramSmall: the smallest histograms accepted give finite fits, including one whose
// mass sits at the ends (the first range from 0 and the open last range).
func TestHistogramSmall(t *testing.T) {
	for _, tt := range []struct {
		gloss  string
		lower  []float64
		counts []int64
	}{
		{"three adjacent ranges", []float64{0, 0.001, 0.002, 0.004, 0.008}, []int64{0, 10, 10, 10, 0}},
		{"the two ends and one between", []float64{0, 0.001, 0.002, 0.004}, []int64{10, 0, 10, 10}},
		{"a lone far outlier", []float64{0, 0.001, 0.002, 0.004, 1, 2}, []int64{0, 100, 100, 0, 0, 1}},
	} {
		fits, err := Histogram(tt.lower, tt.counts)
		if err != nil {
			t.Fatalf("%s: %v", tt.gloss, err)
		}
		for _, f := range fits {
			for _, v := range []float64{f.Mean, f.Shape, f.LogLik, f.AIC, f.KS} {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Errorf("%s: %s fit %+v is not finite", tt.gloss, f.Family, f)
				}
			}
			if s := f.Dist(); s == "" {
				t.Errorf("%s: %s fit %+v has no Dist", tt.gloss, f.Family, f)
			}
		}
	}
}

func TestBest(t *testing.T) {
	exp := Fit{Family: Exp, AIC: 10}
	ln := Fit{Family: LogNormal, AIC: 10}
	gm := Fit{Family: Gamma, AIC: 10}
	tests := []struct {
		gloss string
		fits  []Fit
		want  Fit
	}{
		{"no fits", nil, Fit{}},
		{"the lowest AIC", []Fit{exp, {Family: LogNormal, AIC: 9}, gm}, Fit{Family: LogNormal, AIC: 9}},
		{"negative AICs", []Fit{{Family: Exp, AIC: -5}, {Family: Gamma, AIC: -7}}, Fit{Family: Gamma, AIC: -7}},
		{"tie: exp before gamma", []Fit{gm, exp}, exp},
		{"tie: exp before lognormal", []Fit{ln, exp}, exp},
		{"tie: lognormal before gamma", []Fit{gm, ln}, ln},
		{"NaN never wins", []Fit{{Family: Exp, AIC: math.NaN()}, gm}, gm},
		{"only NaN", []Fit{{Family: Exp, AIC: math.NaN()}}, Fit{}},
	}
	for _, tt := range tests {
		if got := Best(tt.fits); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: Best(%+v) = %+v, want %+v", tt.gloss, tt.fits, got, tt.want)
		}
	}
}

func TestDist(t *testing.T) {
	tests := []struct {
		gloss string
		fit   Fit
		want  string
	}{
		{"exp", Fit{Family: Exp, Mean: 0.005}, "exp(5ms)"},
		{"three digits", Fit{Family: Exp, Mean: 0.0051234}, "exp(5.12ms)"},
		{"to nearest, up", Fit{Family: Exp, Mean: 0.0051251}, "exp(5.13ms)"},
		{"to nearest, down", Fit{Family: Exp, Mean: 0.0051249}, "exp(5.12ms)"},
		{"rounding carries a digit", Fit{Family: Exp, Mean: 0.0099951}, "exp(10ms)"},
		{"microseconds", Fit{Family: Exp, Mean: 123.456e-6}, "exp(123µs)"},
		{"fraction of a microsecond", Fit{Family: Exp, Mean: 1.2345e-6}, "exp(1.23µs)"},
		{"below 1µs is 1µs", Fit{Family: Exp, Mean: 4e-7}, "exp(1µs)"},
		{"seconds", Fit{Family: Exp, Mean: 12.3456}, "exp(12.3s)"},
		{"beyond MaxDuration is held below it", Fit{Family: Exp, Mean: 1e12}, "exp(1280555h33m20s)"},
		{"lognormal", Fit{Family: LogNormal, Mean: 0.003, Shape: 0.50123}, "lognormal(3ms, 0.501)"},
		{"small sigma", Fit{Family: LogNormal, Mean: 0.003, Shape: 0.000012345}, "lognormal(3ms, 1.23e-05)"},
		{"sigma beyond MaxSigma", Fit{Family: LogNormal, Mean: 0.003, Shape: 12}, "lognormal(3ms, 10)"},
		{"gamma", Fit{Family: Gamma, Mean: 0.005, Shape: 2}, "gamma(5ms, 2)"},
		{"gamma shape three digits", Fit{Family: Gamma, Mean: 0.000312, Shape: 2.3456}, "gamma(312µs, 2.35)"},
		{"large shape", Fit{Family: Gamma, Mean: 0.005, Shape: 12345}, "gamma(5ms, 12300)"},
		{"shape beyond MaxShape", Fit{Family: Gamma, Mean: 0.005, Shape: 3e7}, "gamma(5ms, 1e+06)"},
		{"shape below MinShape", Fit{Family: Gamma, Mean: 0.005, Shape: 0.001}, "gamma(5ms, 0.01)"},
		{"zero Fit", Fit{}, ""},
		{"unknown family", Fit{Family: "weibull", Mean: 0.005, Shape: 1}, ""},
		{"zero mean", Fit{Family: Exp}, ""},
		{"NaN mean", Fit{Family: Exp, Mean: math.NaN()}, ""},
		{"infinite mean", Fit{Family: Exp, Mean: math.Inf(1)}, ""},
		{"NaN shape", Fit{Family: Gamma, Mean: 0.005, Shape: math.NaN()}, ""},
		{"infinite shape is held at MaxShape", Fit{Family: Gamma, Mean: 0.005, Shape: math.Inf(1)}, "gamma(5ms, 1e+06)"},
		{"negative sigma is held at 0", Fit{Family: LogNormal, Mean: 0.005, Shape: -1}, "lognormal(5ms, 0)"},
	}
	for _, tt := range tests {
		got := tt.fit.Dist()
		if got != tt.want {
			t.Errorf("%s: %+v.Dist() = %q, want %q", tt.gloss, tt.fit, got, tt.want)
		}
		if got == "" {
			continue
		}
		if d, err := dist.Parse(got); err != nil || d.String() != got {
			t.Errorf("%s: dist.Parse(%q) = %v, %v; want it back unchanged", tt.gloss, got, d, err)
		}
	}
}

func TestWithMean(t *testing.T) {
	f := Fit{Family: Gamma, Mean: 0.004, Shape: 2.5, LogLik: 1, AIC: 2, KS: 0.01, N: 100}
	got := f.WithMean(0.005)
	want := f
	want.Mean = 0.005
	if got != want {
		t.Errorf("%+v.WithMean(0.005) = %+v, want %+v", f, got, want)
	}
	if got.Dist() != "gamma(5ms, 2.5)" {
		t.Errorf("WithMean(0.005).Dist() = %q, want gamma(5ms, 2.5)", got.Dist())
	}
	for _, bad := range []float64{0, -0.001, math.NaN(), math.Inf(1)} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.HasPrefix(r.(string), "fit: WithMean(") {
					t.Errorf("WithMean(%v) panicked with %v, want a fit: WithMean message", bad, r)
				}
			}()
			f.WithMean(bad)
		}()
	}
}

// TestLogMinusDigamma checks the series against closed forms of ψ (Abramowitz and Stegun
// 6.3.2–6.3.7: ψ(1) = −γ, ψ(1/2) = −γ − 2 ln 2, ψ(1/4) = −γ − π/2 − 3 ln 2, ψ(1/3) = −γ −
// π/(2√3) − (3/2) ln 3, ψ(n) = −γ + Σ_{j<n} 1/j) to 1e-14 of ln k and ψ(k); against ln k − gonum's
// Digamma elsewhere, to the 1e-9 that Digamma's own accuracy allows (it is off by up to 1e-10
// at k = 1); and against the asymptotic 1/(2k) + 1/(12k²) where ln k − ψ(k) would be noise.
func TestLogMinusDigamma(t *testing.T) {
	const euler = 0.57721566490153286061
	harmonic := func(n int) float64 {
		s := 0.0
		for j := n - 1; j >= 1; j-- {
			s += 1 / float64(j)
		}
		return s
	}
	for _, tt := range []struct{ k, psi float64 }{
		{1, -euler},
		{0.5, -euler - 2*math.Ln2},
		{0.25, -euler - math.Pi/2 - 3*math.Ln2},
		{1.0 / 3, -euler - math.Pi/(2*math.Sqrt(3)) - 1.5*math.Log(3)},
		{2, -euler + harmonic(2)},
		{10, -euler + harmonic(10)},
		{20, -euler + harmonic(20)},
		{57, -euler + harmonic(57)},
	} {
		// The reference subtracts two numbers near ln k, so its own error is a few ulps of them.
		got, want := logMinusDigamma(tt.k), math.Log(tt.k)-tt.psi
		if math.Abs(got-want) > 1e-14*(math.Abs(math.Log(tt.k))+math.Abs(tt.psi)) {
			t.Errorf("logMinusDigamma(%v) = %.17g, want ln k − ψ(k) = %.17g", tt.k, got, want)
		}
	}
	for _, k := range []float64{1e-3, 0.01, 0.3, 2.5, 9.99, 10.01, 17, 19.99, 20.01, 50} {
		got, want := logMinusDigamma(k), math.Log(k)-mathext.Digamma(k)
		if math.Abs(got-want) > 1e-9*math.Abs(want) {
			t.Errorf("logMinusDigamma(%v) = %.17g, ln k − Digamma(k) = %.17g", k, got, want)
		}
	}
	for _, k := range []float64{1e6, 1e9, 1e15} {
		got, want := logMinusDigamma(k), 1/(2*k)+1/(12*k*k)
		if math.Abs(got-want) > 1e-15*want {
			t.Errorf("logMinusDigamma(%v) = %.17g, want 1/(2k) + 1/(12k²) = %.17g", k, got, want)
		}
	}
}

// TestGammaShape: solving the likelihood equation for s = ln k − ψ(k) gives k back, to a few
// ulps, over the whole range a fit can meet.
func TestGammaShape(t *testing.T) {
	for _, k := range []float64{1e-3, 0.01, 0.2, 0.7, 1, 2, 12, 99.5, 1e4, 1e6, 1e10} {
		if got := gammaShape(logMinusDigamma(k)); math.Abs(got-k) > 1e-12*k {
			t.Errorf("gammaShape(ln k − ψ(k)) = %.17g for k = %v", got, k)
		}
	}
}

// TestKS checks both distances against a naive reading of the definition on the raw draws:
// for Samples, sup over every draw of the gap between gonum's CDF and the fraction of draws at
// or below it (and strictly below it); for Histogram, the gap at each positive range bound
// between gonum's CDF and the fraction of draws below the bound, counted from the draws
// themselves rather than from the histogram.
func TestKS(t *testing.T) {
	cdf := func(f Fit) func(float64) float64 {
		switch f.Family {
		case Exp:
			return distuv.Exponential{Rate: 1 / f.Mean}.CDF
		case LogNormal:
			return distuv.LogNormal{Mu: math.Log(f.Mean) - f.Shape*f.Shape/2, Sigma: f.Shape}.CDF
		default:
			return distuv.Gamma{Alpha: f.Shape, Beta: f.Shape / f.Mean}.CDF
		}
	}
	for _, tt := range recoveryCases {
		xs := draw(t, tt.text, recoverN)
		sorted := slices.Clone(xs)
		slices.Sort(sorted)
		fits, err := Samples(xs)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fits {
			F, want := cdf(f), 0.0
			for _, x := range sorted {
				atOrBelow, _ := slices.BinarySearch(sorted, math.Nextafter(x, math.Inf(1)))
				below, _ := slices.BinarySearch(sorted, x)
				want = max(want, math.Abs(F(x)-float64(atOrBelow)/recoverN), math.Abs(F(x)-float64(below)/recoverN))
			}
			if math.Abs(f.KS-want) > 1e-12 {
				t.Errorf("Samples(%s): %s KS = %.15g, naive = %.15g", tt.text, f.Family, f.KS, want)
			}
		}
		lower, counts := opLatencies(xs)
		hfits, err := Histogram(lower, counts)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range hfits {
			F, want := cdf(f), 0.0
			for j, us := range serverstatus.LowerBounds[1:] {
				below := 0
				for _, x := range xs {
					if x*1e6 < float64(us) { // as opLatencies buckets: in µs
						below++
					}
				}
				want = max(want, math.Abs(F(lower[j+1])-float64(below)/recoverN))
			}
			if math.Abs(f.KS-want) > 1e-12 {
				t.Errorf("Histogram(%s): %s KS = %.15g, naive = %.15g", tt.text, f.Family, f.KS, want)
			}
		}
	}
}
