package workload

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

// instant is one row of a Rate timeline: the rate the profile must give at t.
type instant struct {
	t    time.Duration
	want float64
}

// TestRate checks each profile at symbolic instants: the edges of every piece (t0 and t0−1ns,
// the first nanosecond on each side) and points inside. Pieces are half-open [start, end), so a
// change takes effect exactly at its instant.
func TestRate(t *testing.T) {
	const (
		t0 = 10 * s // a change
		d  = 20 * s // a duration
		t1 = t0 + d // the end of the change
	)
	tests := []struct {
		gloss string
		p     Profile
		at    []instant
	}{
		{
			gloss: "constant: the same rate at every instant, negative t reads as 0",
			p:     must(Constant(250)),
			at:    []instant{{-s, 250}, {0, 250}, {t0, 250}, {Forever - 1, 250}},
		},
		{
			gloss: "step: before until t0−1ns, after from t0 on",
			p:     must(Step(100, 200, t0)),
			at:    []instant{{0, 100}, {t0 - 1, 100}, {t0, 200}, {t1, 200}, {time.Hour, 200}},
		},
		{
			gloss: "step at 0: the before rate never applies",
			p:     must(Step(100, 200, 0)),
			at:    []instant{{-1, 200}, {0, 200}, {t0, 200}},
		},
		{
			gloss: "ramp up: from until t0, linear to t1, to after",
			p:     must(Ramp(100, 300, t0, t1)),
			at:    []instant{{0, 100}, {t0, 100}, {t0 + d/2, 200}, {t0 + 3*d/4, 250}, {t1, 300}, {time.Hour, 300}},
		},
		{
			gloss: "ramp down from 0 to a zero rate",
			p:     must(Ramp(1000, 0, 0, d)),
			at:    []instant{{0, 1000}, {d / 4, 750}, {d, 0}, {2 * d, 0}},
		},
		{
			gloss: "spike: peak on [t0, t1), base outside",
			p:     must(Spike(100, 2000, t0, d)),
			at:    []instant{{0, 100}, {t0 - 1, 100}, {t0, 2000}, {t1 - 1, 2000}, {t1, 100}, {time.Hour, 100}},
		},
		{
			gloss: "spike at 0 with a dip to 0",
			p:     must(Spike(50, 0, 0, d)),
			at:    []instant{{0, 0}, {d - 1, 0}, {d, 50}},
		},
		{
			gloss: "piecewise: R₀ before T₀, linear between points, Rₙ after Tₙ",
			p:     must(Piecewise([]Point{{t0, 0}, {t0 + 10*s, 100}, {t0 + 20*s, 100}, {t0 + 30*s, 0}})),
			at: []instant{{0, 0}, {t0, 0}, {t0 + 5*s, 50}, {t0 + 10*s, 100}, {t0 + 15*s, 100},
				{t0 + 25*s, 50}, {t0 + 30*s, 0}, {time.Hour, 0}},
		},
		{
			gloss: "piecewise with one point: constant",
			p:     must(Piecewise([]Point{{t0, 42}})),
			at:    []instant{{0, 42}, {t0, 42}, {time.Hour, 42}},
		},
		{
			gloss: "trace: each rate holds until the next point; R₀ before T₀",
			p:     must(Trace([]Point{{0, 10}, {s, 20}, {2 * s, 0}, {3 * s, 5}})),
			at: []instant{{0, 10}, {s - 1, 10}, {s, 20}, {1500 * ms, 20}, {2*s - 1, 20}, {2 * s, 0},
				{3 * s, 5}, {time.Hour, 5}},
		},
		{
			gloss: "scale: every rate of a spike times 0.25",
			p:     must(Scale(must(Spike(100, 2000, t0, d)), 0.25)),
			at:    []instant{{0, 25}, {t0, 500}, {t1, 25}},
		},
	}
	for _, tt := range tests {
		for j, in := range tt.at {
			if got := tt.p.Rate(in.t); got != in.want {
				t.Errorf("%s: instant %d: %v.Rate(%v) = %v, want %v", tt.gloss, j, tt.p, in.t, got, in.want)
			}
		}
	}
}

// TestSineRate checks the sine at quarter periods and far into a run (where the argument is
// reduced modulo the period in integers first). Floats: within 1e-9 ops/s.
func TestSineRate(t *testing.T) {
	const (
		mean, amp = 500.0, 400.0
		period    = 60 * s
	)
	tests := []struct {
		gloss string
		phase float64
		at    []instant
	}{
		{"phase 0 starts at the mean, rising", PhaseMeanUp, []instant{
			{0, 500}, {period / 4, 900}, {period / 2, 500}, {3 * period / 4, 100}, {period, 500},
			{1000*period + period/4, 900}, {-s, 500}}},
		{"PhasePeak starts at the crest", PhasePeak, []instant{{0, 900}, {period / 2, 100}}},
		{"PhaseMeanDown starts at the mean, falling", PhaseMeanDown, []instant{{0, 500}, {period / 4, 100}}},
		{"PhaseTrough starts at the trough", PhaseTrough, []instant{{0, 100}, {period / 2, 900}}},
	}
	for _, tt := range tests {
		p := must(Sine(mean, amp, period, tt.phase))
		for j, in := range tt.at {
			if got := p.Rate(in.t); math.Abs(got-in.want) > 1e-9 {
				t.Errorf("%s: instant %d: %v.Rate(%v) = %v, want %v", tt.gloss, j, p, in.t, got, in.want)
			}
		}
	}
	// amplitude == mean: the trough is 0, never a rounding error below it.
	p := must(Sine(100, 100, period, PhaseTrough))
	if got := p.Rate(0); got < 0 || got > 1e-12 {
		t.Errorf("%v.Rate(0) = %v, want 0", p, got)
	}
}

// TestValidation checks every rule of every constructor, with the exact message.
func TestValidation(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	tests := []struct {
		gloss string
		build func() (Profile, error)
		want  string
	}{
		// Rates.
		{"negative rate", func() (Profile, error) { return Constant(-1) },
			"workload: constant: rate: -1: must be a finite number in [0, 1e+09]"},
		{"NaN rate", func() (Profile, error) { return Constant(nan) },
			"workload: constant: rate: NaN: must be a finite number in [0, 1e+09]"},
		{"infinite rate", func() (Profile, error) { return Constant(inf) },
			"workload: constant: rate: +Inf: must be a finite number in [0, 1e+09]"},
		{"rate above one per nanosecond", func() (Profile, error) { return Constant(2e9) },
			"workload: constant: rate: 2e+09: must be a finite number in [0, 1e+09]"},
		{"every violation is reported", func() (Profile, error) { return Step(-1, nan, -s) },
			"workload: step: before: -1: must be a finite number in [0, 1e+09]\n" +
				"workload: step: after: NaN: must be a finite number in [0, 1e+09]\n" +
				"workload: step: at: -1s: must be ≥ 0"},
		// Times.
		{"time beyond MaxTime", func() (Profile, error) { return Step(1, 2, MaxTime+1) },
			"workload: step: at: 1281023h53m38.427387905s: must be ≤ 1281023h53m38.427387904s (MaxTime)"},
		{"ramp of zero duration", func() (Profile, error) { return Ramp(0, 100, 10*s, 10*s) },
			"workload: ramp: end: 10s: must be > start 10s"},
		{"ramp ending before it starts", func() (Profile, error) { return Ramp(0, 100, 10*s, 5*s) },
			"workload: ramp: end: 5s: must be > start 10s"},
		{"ramp starting before 0", func() (Profile, error) { return Ramp(0, 100, -s, 5*s) },
			"workload: ramp: start: -1s: must be ≥ 0"},
		{"spike of zero duration", func() (Profile, error) { return Spike(1, 2, 0, 0) },
			"workload: spike: duration: 0s: must be > 0"},
		{"spike of negative duration", func() (Profile, error) { return Spike(1, 2, s, -s) },
			"workload: spike: duration: -1s: must be > 0"},
		{"spike ending beyond MaxTime", func() (Profile, error) { return Spike(1, 2, MaxTime-s, 2*s) },
			"workload: spike: duration: 2s: start + duration must be ≤ 1281023h53m38.427387904s (MaxTime)"},
		// Sine.
		{"amplitude above the mean", func() (Profile, error) { return Sine(100, 150, s, 0) },
			"workload: sine: amplitude: 150: must be ≤ mean 100 (the rate would go negative)"},
		{"negative amplitude", func() (Profile, error) { return Sine(100, -1, s, 0) },
			"workload: sine: amplitude: -1: must be a finite number in [0, 1e+09]"},
		{"crest above MaxOpsRate", func() (Profile, error) { return Sine(8e8, 5e8, s, 0) },
			"workload: sine: amplitude: 5e+08: mean + amplitude (1.3e+09) must be ≤ 1e+09 (MaxOpsRate)"},
		{"zero period", func() (Profile, error) { return Sine(100, 50, 0, 0) },
			"workload: sine: period: 0s: must be > 0"},
		{"NaN phase", func() (Profile, error) { return Sine(100, 50, s, nan) },
			"workload: sine: phase: NaN: must be finite"},
		// Points.
		{"no points", func() (Profile, error) { return Piecewise(nil) },
			"workload: piecewise: points: []: must list at least one point"},
		{"empty trace", func() (Profile, error) { return Trace([]Point{}) },
			"workload: trace: points: []: must list at least one point"},
		{"points out of order", func() (Profile, error) { return Piecewise([]Point{{0, 1}, {2 * s, 1}, {s, 1}}) },
			"workload: piecewise: points[2].at: 1s: must be > points[1].at 2s"},
		{"two points at the same time", func() (Profile, error) { return Trace([]Point{{0, 1}, {s, 1}, {s, 2}}) },
			"workload: trace: points[2].at: 1s: must be > points[1].at 1s"},
		{"negative time and rate of a point", func() (Profile, error) { return Piecewise([]Point{{-s, -5}}) },
			"workload: piecewise: points[0].at: -1s: must be ≥ 0\n" +
				"workload: piecewise: points[0].rate: -5: must be a finite number in [0, 1e+09]"},
		{"trace file without a name", func() (Profile, error) { return TraceFile("", []Point{{0, 1}}) },
			`workload: trace: file: "": must not be empty`},
		// Scale.
		{"negative scale factor", func() (Profile, error) { return Scale(must(Constant(1)), -1) },
			"workload: scale: factor: -1: must be a finite number ≥ 0"},
		{"scaled beyond MaxOpsRate", func() (Profile, error) { return Scale(must(Constant(1e6)), 1e4) },
			"workload: scale: factor: 10000: the peak rate 1e+10/s of constant(1e+06/s) would exceed 1e+09 (MaxOpsRate)"},
		{"scale of nil", func() (Profile, error) { return Scale(nil, 1) },
			"workload: scale: profile: nil: must be a profile"},
	}
	for _, tt := range tests {
		p, err := tt.build()
		switch {
		case err == nil:
			t.Errorf("%s: got %v, want error %q", tt.gloss, p, tt.want)
		case err.Error() != tt.want:
			t.Errorf("%s: error\n%s\nwant\n%s", tt.gloss, err, tt.want)
		case !errors.Is(err, ErrInvalid):
			t.Errorf("%s: errors.Is(%v, ErrInvalid) = false", tt.gloss, err)
		case p != nil:
			t.Errorf("%s: got profile %v with the error, want nil", tt.gloss, p)
		}
	}
}

// TestString checks the canonical text of each family.
func TestString(t *testing.T) {
	tests := []struct {
		p    func() (Profile, error)
		want string
	}{
		{func() (Profile, error) { return Constant(2000) }, "constant(2000/s)"},
		{func() (Profile, error) { return Constant(1e6) }, "constant(1e+06/s)"},
		{func() (Profile, error) { return Step(100, 0.5, 90*s) }, "step(100/s, 0.5/s, 1m30s)"},
		{func() (Profile, error) { return Ramp(0, 1000, 0, time.Minute) }, "ramp(0/s, 1000/s, 0s, 1m0s)"},
		{func() (Profile, error) { return Spike(100, 2000, 30*s, 20*s) }, "spike(100/s, 2000/s, 30s, 20s)"},
		{func() (Profile, error) { return Sine(500, 400, time.Minute, PhasePeak) }, "sine(500/s, 400/s, 1m0s, 1.5707963267948966)"},
		{func() (Profile, error) { return Piecewise([]Point{{0, 0}, {1500 * ms, 100}}) }, "piecewise(0s 0/s, 1.5s 100/s)"},
		{func() (Profile, error) { return Trace([]Point{{0, 1.25}, {s, 3}}) }, "trace(0s 1.25/s, 1s 3/s)"},
		{func() (Profile, error) { return TraceFile("load.csv", []Point{{0, 1}}) }, "trace(load.csv)"},
		{func() (Profile, error) { return Scale(must(Constant(2000)), 0.1) }, "scale(0.1, constant(2000/s))"},
	}
	for _, tt := range tests {
		p := must(tt.p())
		if got := p.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}

// TestMaxRate checks the bound at the edges of pieces (exclusive ends) and of sine windows.
func TestMaxRate(t *testing.T) {
	step := must(Step(100, 200, 10*s))
	spike := must(Spike(100, 2000, 30*s, 20*s))
	ramp := must(Ramp(0, 1000, 0, 10*s))
	sine := must(Sine(500, 400, 60*s, 0))
	tests := []struct {
		gloss    string
		p        Profile
		from, to time.Duration
		want     float64
	}{
		{"step: [0, t0) excludes the change at t0", step, 0, 10 * s, 100},
		{"step: [0, t0+1ns) includes it", step, 0, 10*s + 1, 200},
		{"empty window", step, 10 * s, 10 * s, 0},
		{"reversed window", step, 20 * s, 10 * s, 0},
		{"spike: before it", spike, 0, 30 * s, 100},
		{"spike: across its start", spike, 29 * s, 31 * s, 2000},
		{"spike: after it, forever", spike, 50 * s, Forever, 100},
		{"spike: whole timeline", spike, 0, Forever, 2000},
		{"ramp: the limit at the window's end", ramp, 0, 5 * s, 500},
		{"ramp: inside", ramp, 2 * s, 3 * s, 300},
		{"sine: a window holding the crest at 15s", sine, 14 * s, 16 * s, 900},
		{"sine: a rising window, bound at its end", sine, 0, 5 * s, 500 + 400*math.Sin(2*math.Pi*5/60)},
		{"sine: a falling window, bound at its start", sine, 20 * s, 25 * s, 500 + 400*math.Sin(2*math.Pi*20/60)},
		{"sine: the next period's crest", sine, 70 * s, 80 * s, 900},
		{"sine: a full period", sine, 33 * s, 93 * s, 900},
	}
	for _, tt := range tests {
		if got := tt.p.MaxRate(tt.from, tt.to); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("%s: %v.MaxRate(%v, %v) = %v, want %v", tt.gloss, tt.p, tt.from, tt.to, got, tt.want)
		}
	}
}

// TestIntegral checks Λ(a, b) against closed forms.
func TestIntegral(t *testing.T) {
	const P = 60 * s
	sine := must(Sine(500, 400, P, 0))
	tests := []struct {
		gloss    string
		p        Profile
		from, to time.Duration
		want     float64
	}{
		{"constant: rate × duration", must(Constant(100)), 0, 10 * s, 1000},
		{"ramp: the triangle 5t² up to t = 5s", must(Ramp(0, 100, 0, 10*s)), 0, 5 * s, 125},
		{"ramp: across its end", must(Ramp(0, 100, 0, 10*s)), 5 * s, 20 * s, 375 + 1000},
		{"spike: 40s of base and 20s of peak", must(Spike(100, 1000, 30*s, 20*s)), 0, 60 * s, 100*40 + 1000*20},
		{"trace: half a second of each of two steps", must(Trace([]Point{{0, 10}, {s, 20}})), 500 * ms, 1500 * ms, 15},
		{"piecewise: a trapezoid", must(Piecewise([]Point{{0, 0}, {s, 100}, {2 * s, 100}, {3 * s, 0}})), 0, 4 * s, 200},
		{"sine: a whole period is mean × period", sine, 7 * s, 7*s + P, 500 * 60},
		{"sine: the first quarter is m·P/4 + A·P/2π", sine, 0, P / 4, 500*15 + 400*60/(2*math.Pi)},
		{"sine: 1000 periods in", sine, 1000 * P, 1000*P + P/4, 500*15 + 400*60/(2*math.Pi)},
		{"empty window", sine, 5 * s, 5 * s, 0},
	}
	for _, tt := range tests {
		if got := tt.p.Integral(tt.from, tt.to); math.Abs(got-tt.want) > 1e-9*math.Max(1, tt.want) {
			t.Errorf("%s: %v.Integral(%v, %v) = %v, want %v", tt.gloss, tt.p, tt.from, tt.to, got, tt.want)
		}
	}
}

// TestScaleSine checks that Scale multiplies both the mean and the amplitude.
func TestScaleSine(t *testing.T) {
	p := must(Scale(must(Sine(500, 400, 60*s, 0)), 0.5))
	if got, want := p.Rate(15*s), 450.0; math.Abs(got-want) > 1e-9 {
		t.Errorf("%v.Rate(15s) = %v, want %v", p, got, want)
	}
	if got, want := p.String(), "scale(0.5, sine(500/s, 400/s, 1m0s, 0))"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

// TestConstructorsCopyPoints checks that changing the caller's slice afterwards changes nothing.
func TestConstructorsCopyPoints(t *testing.T) {
	pts := []Point{{0, 10}, {s, 20}}
	p := must(Piecewise(pts))
	pts[1].Rate = 1000
	if got := p.Rate(s); got != 20 {
		t.Errorf("after changing the caller's slice, Rate(1s) = %v, want 20", got)
	}
	if !strings.Contains(p.String(), "20/s") {
		t.Errorf("String() = %q changed with the caller's slice", p)
	}
}
