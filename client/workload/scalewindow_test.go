package workload

import (
	"math"
	"testing"
	"time"
)

// TestScaleWindow: the rate is multiplied inside [from, to) and unchanged outside, over
// constant, ramp and spike profiles, and the integral (the expected arrivals that Poisson
// inverts) is the unscaled one plus (factor−1)·the area inside the window.
func TestScaleWindow(t *testing.T) {
	constant, _ := Constant(100)
	ramp, _ := Ramp(0, 1000, 0, 10*time.Second)
	spike, _ := Spike(100, 400, 2*time.Second, 2*time.Second)
	for _, tc := range []struct {
		name     string
		p        Profile
		from, to time.Duration
		factor   float64
	}{
		{"constant ×3 over [10s, 30s)", constant, 10 * time.Second, 30 * time.Second, 3},
		{"ramp ×2 across its middle", ramp, 4 * time.Second, 6 * time.Second, 2},
		{"spike ×0.5 overlapping its start", spike, time.Second, 3 * time.Second, 0.5},
		{"window past the last knot", ramp, 8 * time.Second, 20 * time.Second, 1.5},
	} {
		q, err := ScaleWindow(tc.p, tc.factor, tc.from, tc.to)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for ms := int64(0); ms < 40_000; ms += 250 {
			at := time.Duration(ms) * time.Millisecond
			want := tc.p.Rate(at)
			if at >= tc.from && at < tc.to {
				want *= tc.factor
			}
			if got := q.Rate(at); math.Abs(got-want) > 1e-9*math.Max(1, want) {
				t.Fatalf("%s: rate at %s = %v, want %v", tc.name, at, got, want)
			}
		}
		end := 40 * time.Second
		want := tc.p.Integral(0, end) + (tc.factor-1)*tc.p.Integral(tc.from, tc.to)
		if got := q.Integral(0, end); math.Abs(got-want) > 1e-6*want {
			t.Errorf("%s: integral over [0, 40s) = %v, want %v", tc.name, got, want)
		}
	}
}

// TestScaleWindowRefuses: bad windows and factors, and a sine profile, are errors.
func TestScaleWindowRefuses(t *testing.T) {
	constant, _ := Constant(100)
	s, _ := Sine(100, 50, time.Minute, 0)
	for _, tc := range []struct {
		name     string
		p        Profile
		factor   float64
		from, to time.Duration
	}{
		{"sine", s, 2, 0, time.Second},
		{"negative factor", constant, -1, 0, time.Second},
		{"NaN factor", constant, math.NaN(), 0, time.Second},
		{"empty window", constant, 2, time.Second, time.Second},
		{"negative start", constant, 2, -time.Second, time.Second},
		{"beyond MaxOpsRate", constant, 1e8, 0, time.Second},
	} {
		if _, err := ScaleWindow(tc.p, tc.factor, tc.from, tc.to); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}
