package ratelimiter

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/overloadsim/overloadsim/field"
)

// Limits on a TokenBucket's parameters; see the package documentation for why they exist.
const (
	// MinRatePerSec is the smallest refill rate a TokenBucket accepts: the rate is held as an
	// integer number of nano-tokens per second, and anything smaller would round to zero.
	MinRatePerSec = 1e-9
	// MaxRatePerSec is the largest refill rate a TokenBucket accepts. It is above MongoDB's
	// default rate (INT32_MAX), which is meant as "no limit".
	MaxRatePerSec = 1e10
	// MaxCapacity is the largest capacity, in tokens, a TokenBucket holds (2^62 nano-tokens).
	// Larger products RatePerSec×BurstCapacitySecs, MongoDB's default burst of DBL_MAX seconds
	// among them, are held at this value.
	MaxCapacity = float64(maxCapacityNano) / nanoPerToken
)

const (
	nanoPerToken    = 1_000_000_000 // the balance is counted in nano-tokens
	subPerNano      = 1_000_000_000 // the remainder is counted in 1e-18 token
	maxCapacityNano = 1 << 62       // leaves room below MaxInt64 for borrowed tokens
)

// Config is a TokenBucket's configuration, with the meaning of the MongoDB server parameters it
// mirrors (ingressRequestAdmission* and ingressConnectionEstablishment*). The zero Config is not
// valid: MongoDB's own defaults mean "no limit", which a caller represents by having no bucket.
type Config struct {
	// RatePerSec is the refill rate in tokens per second (ingressRequestAdmissionRatePerSec).
	// It must be finite and in [MinRatePerSec, MaxRatePerSec]; fractional rates are allowed.
	RatePerSec float64
	// BurstCapacitySecs is the capacity expressed in seconds of refill
	// (ingressRequestAdmissionBurstCapacitySecs): the bucket holds RatePerSec×BurstCapacitySecs
	// tokens at most. It must be finite and > 0. A capacity below one token admits nothing.
	BurstCapacitySecs float64
	// MaxQueueDepth is how many callers of Acquire may wait for a token at once
	// (ingressRequestAdmissionMaxQueueDepth). Zero, the server default, means never queue:
	// a caller that would have to wait is rejected. It must be ≥ 0. TryAcquire ignores it.
	MaxQueueDepth int64
}

// invalid is the error for one invalid configuration value: a *field.Error naming the field as
// the Go code does (RatePerSec, RetryBudgetConfig.Capacity), its value and the rule, after
// "ratelimiter: ".
func invalid(name, value, rule string) error {
	return fmt.Errorf("ratelimiter: %w", &field.Error{Field: name, Value: value, Rule: rule})
}

const (
	ruleFinitePositive = "must be a finite number > 0"
	ruleNonNegative    = "must be ≥ 0"
)

var ruleRateRange = "must be between " + formatFloat(MinRatePerSec) + " and " + formatFloat(MaxRatePerSec) + " tokens/s"

func formatFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func finitePositive(v float64) bool { return v > 0 && !math.IsInf(v, 1) } // NaN fails v > 0

// checkFinitePositive returns a field error unless v is a finite number > 0.
func checkFinitePositive(name string, v float64) error {
	if finitePositive(v) {
		return nil
	}
	return invalid(name, formatFloat(v), ruleFinitePositive)
}

// Validate reports every invalid field of c, each holding a *field.Error, joined with errors.Join.
// It returns nil for a valid Config.
func (c Config) Validate() error {
	var errs []error
	switch {
	case !finitePositive(c.RatePerSec):
		errs = append(errs, invalid("RatePerSec", formatFloat(c.RatePerSec), ruleFinitePositive))
	case c.RatePerSec < MinRatePerSec || c.RatePerSec > MaxRatePerSec:
		errs = append(errs, invalid("RatePerSec", formatFloat(c.RatePerSec), ruleRateRange))
	}
	if err := checkFinitePositive("BurstCapacitySecs", c.BurstCapacitySecs); err != nil {
		errs = append(errs, err)
	}
	if c.MaxQueueDepth < 0 {
		errs = append(errs, invalid("MaxQueueDepth", strconv.FormatInt(c.MaxQueueDepth, 10), ruleNonNegative))
	}
	return errors.Join(errs...)
}

// String returns c in a canonical form for run headers: keys sorted, floats in shortest form.
func (c Config) String() string {
	return "burstCapacitySecs=" + formatFloat(c.BurstCapacitySecs) +
		" maxQueueDepth=" + strconv.FormatInt(c.MaxQueueDepth, 10) +
		" ratePerSec=" + formatFloat(c.RatePerSec)
}

// quantize returns the rate in nano-tokens per second (equivalently, 1e-18 token per
// nanosecond) and the capacity in nano-tokens. c must be valid.
func (c Config) quantize() (rateN uint64, capN int64) {
	rateN = uint64(math.Round(c.RatePerSec * 1e9))
	// float64(rateN)·B is the capacity in nano-tokens; an infinite product saturates too.
	capF := math.Round(float64(rateN) * c.BurstCapacitySecs)
	if capF >= maxCapacityNano {
		return rateN, maxCapacityNano
	}
	return rateN, int64(capF)
}
