package ratelimiter

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/overloadsim/overloadsim/field"
)

// fieldErrors flattens an error returned by a Validate or a constructor into its parts'
// messages, failing the test if any part holds no *field.Error.
func fieldErrors(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	var out []string
	for _, e := range field.Parts(err) {
		var fe *field.Error
		if !errors.As(e, &fe) {
			t.Fatalf("error %q holds no *field.Error", e)
		}
		out = append(out, e.Error())
	}
	return out
}

// Rule (docs/conventions.md §6 and §7; MongoDB idl validators: rate >= 1, burst > 0, depth >= 0):
// every invalid field is reported, each naming the field, its value and the rule, and a
// constructor returns an error rather than panicking.
func TestNewTokenBucketRejectsInvalidConfig(t *testing.T) {
	const (
		finite = ": must be a finite number > 0"
		rng    = ": must be between 1e-09 and 1e+10 tokens/s"
	)
	ok := Config{RatePerSec: 100, BurstCapacitySecs: 1, MaxQueueDepth: 0}
	with := func(f func(*Config)) Config { c := ok; f(&c); return c }
	cases := []struct {
		name string
		cfg  Config
		want []string
	}{
		{"rate NaN", with(func(c *Config) { c.RatePerSec = math.NaN() }), []string{"ratelimiter: RatePerSec: NaN" + finite}},
		{"rate +Inf", with(func(c *Config) { c.RatePerSec = math.Inf(1) }), []string{"ratelimiter: RatePerSec: +Inf" + finite}},
		{"rate -Inf", with(func(c *Config) { c.RatePerSec = math.Inf(-1) }), []string{"ratelimiter: RatePerSec: -Inf" + finite}},
		{"rate negative", with(func(c *Config) { c.RatePerSec = -1 }), []string{"ratelimiter: RatePerSec: -1" + finite}},
		{"rate zero", with(func(c *Config) { c.RatePerSec = 0 }), []string{"ratelimiter: RatePerSec: 0" + finite}},
		{"rate below resolution", with(func(c *Config) { c.RatePerSec = 1e-12 }), []string{"ratelimiter: RatePerSec: 1e-12" + rng}},
		{"rate above maximum", with(func(c *Config) { c.RatePerSec = 2e10 }), []string{"ratelimiter: RatePerSec: 2e+10" + rng}},
		{"burst NaN", with(func(c *Config) { c.BurstCapacitySecs = math.NaN() }), []string{"ratelimiter: BurstCapacitySecs: NaN" + finite}},
		{"burst +Inf", with(func(c *Config) { c.BurstCapacitySecs = math.Inf(1) }), []string{"ratelimiter: BurstCapacitySecs: +Inf" + finite}},
		{"burst zero", with(func(c *Config) { c.BurstCapacitySecs = 0 }), []string{"ratelimiter: BurstCapacitySecs: 0" + finite}},
		{"burst negative", with(func(c *Config) { c.BurstCapacitySecs = -0.5 }), []string{"ratelimiter: BurstCapacitySecs: -0.5" + finite}},
		{"depth negative", with(func(c *Config) { c.MaxQueueDepth = -1 }), []string{"ratelimiter: MaxQueueDepth: -1: must be ≥ 0"}},
		{"zero Config: every field at once", Config{MaxQueueDepth: -3}, []string{
			"ratelimiter: RatePerSec: 0" + finite,
			"ratelimiter: BurstCapacitySecs: 0" + finite,
			"ratelimiter: MaxQueueDepth: -3: must be ≥ 0",
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, err := NewTokenBucket(tc.cfg, 0)
			if b != nil {
				t.Errorf("NewTokenBucket(%v) returned a bucket with error %v", tc.cfg, err)
			}
			if got := fieldErrors(t, err); !slices.Equal(got, tc.want) {
				t.Errorf("NewTokenBucket(%v) errors = %q, want %q", tc.cfg, got, tc.want)
			}
			if got := fieldErrors(t, tc.cfg.Validate()); !slices.Equal(got, tc.want) {
				t.Errorf("%v.Validate() = %q, want %q", tc.cfg, got, tc.want)
			}
		})
	}
}

// Rule (package doc, "Where this model departs"): fractional rates down to 1e-9 token/s are
// accepted, and so are MongoDB's "unlimited" defaults (rate INT32_MAX, burst DBL_MAX), whose
// capacity is held at MaxCapacity.
func TestNewTokenBucketAcceptsBoundaryConfig(t *testing.T) {
	cases := []struct {
		name    string
		cfg     Config
		wantCap float64
	}{
		{"fractional rate", Config{RatePerSec: 0.5, BurstCapacitySecs: 4}, 2},
		{"smallest rate", Config{RatePerSec: MinRatePerSec, BurstCapacitySecs: 3e9}, 3},
		{"largest rate", Config{RatePerSec: MaxRatePerSec, BurstCapacitySecs: 0.1}, 1e9},
		{"MongoDB defaults", Config{RatePerSec: math.MaxInt32, BurstCapacitySecs: math.MaxFloat64}, MaxCapacity},
		{"capacity below one token", Config{RatePerSec: 1, BurstCapacitySecs: 0.001}, 0.001},
		{"deep queue", Config{RatePerSec: 1, BurstCapacitySecs: 1, MaxQueueDepth: math.MaxInt64}, 1},
	}
	for _, tc := range cases {
		b, err := NewTokenBucket(tc.cfg, 0)
		if err != nil {
			t.Errorf("%s: NewTokenBucket(%v) = %v, want no error", tc.name, tc.cfg, err)
			continue
		}
		if got := b.Capacity(); got != tc.wantCap {
			t.Errorf("%s: Capacity() = %v, want %v", tc.name, got, tc.wantCap)
		}
	}
}

// Rule (docs/conventions.md §6): String is canonical (sorted keys, shortest floats) for run headers.
func TestConfigString(t *testing.T) {
	c := Config{RatePerSec: 20, BurstCapacitySecs: 0.5, MaxQueueDepth: 1}
	if got, want := c.String(), "burstCapacitySecs=0.5 maxQueueDepth=1 ratePerSec=20"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}
