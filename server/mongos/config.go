package mongos

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/overloadsim/overloadsim/field"
	"github.com/overloadsim/overloadsim/ratelimiter"
	"github.com/overloadsim/overloadsim/wire"
)

// Config is one mongos's routing parameters. Fields that are server parameters name them; start
// from DefaultConfig, which holds the server's defaults, and change what a scenario sets. New
// validates it.
type Config struct {
	// Address is the mongos's address. It names the router's random streams
	// ("mongos/<address>/shard", "…/target", "…/jitter"); it must not be empty.
	Address string

	// BaseBackoff is defaultClientBaseBackoffMillis: the base of BackoffWithJitter's exponential
	// backoff. A whole number of milliseconds ≥ 0 (the server parameter is an integer of ms);
	// default 100ms. A shard's baseBackoffMS on an overload error replaces it.
	BaseBackoff time.Duration
	// MaxBackoff is defaultClientMaxBackoffMillis: the cap of one backoff. A whole number of
	// milliseconds ≥ BaseBackoff; default 10s.
	MaxBackoff time.Duration
	// MaxRetryAttempts is defaultClientMaxRetryAttempts: the retries allowed after the first
	// attempt (Shard::runCommand's limit). ≥ 0; default 3, so at most 4 attempts per command.
	MaxRetryAttempts int

	// RetryBudget is a model switch, not a server parameter. True (the default, and what a real
	// mongos always does: Shard::RetryStrategy is an AdaptiveRetryStrategy) wraps the
	// DefaultRetryStrategy in an AdaptiveRetryStrategy with one RetryBudget per shard. False runs
	// the DefaultRetryStrategy alone, which behaves as an infinite budget would; Stats then
	// reports the balance as +Inf.
	RetryBudget bool
	// BudgetCapacity is shardRetryTokenBucketCapacity: each shard's budget capacity and initial
	// balance. A finite number > 0 (an integer on the server); default 1000.
	BudgetCapacity float64
	// BudgetReturnRate is shardRetryTokenReturnRate: the tokens an attempt that was not
	// overloaded returns to its shard's budget. A finite number > 0; default 0.1.
	BudgetReturnRate float64

	// OverloadAwareServerSelection is overloadAwareServerSelectionEnabled: when true, host
	// targeting leaves out the shard members that answered this command with an overload error
	// (unless that leaves none). Default false, as the MongoDB manual states ("By default,
	// overloadAwareServerSelectionEnabled is set to false"; docs/model.md §7.1).
	OverloadAwareServerSelection bool

	// ExhaustedLabels are the labels of the overload error a mongos returns once it stops
	// retrying one (retries exhausted, budget empty, or the error not retryable). Default
	// SystemOverloadedError alone, which drivers do not retry; SystemOverloadedError |
	// RetryableError | NoWritesPerformed makes drivers retry again, layering their retries on
	// the mongos's (docs/model.md §7.4: the server's tests disagree, so this is a scenario's choice).
	// Only labels wire defines are valid.
	ExhaustedLabels wire.Labels

	// LocalThreshold is the latency window of host targeting (localThresholdMS): members whose
	// average RTT is within it of the fastest eligible member are candidates. ≥ 0; default 15ms.
	LocalThreshold time.Duration
	// HeartbeatFrequency is how often the replica set monitor pings each shard member to
	// measure its RTT; the first ping goes out when the router is created. > 0; default 10s.
	HeartbeatFrequency time.Duration
	// FindHostTimeout is how long host targeting waits for an eligible member (during an
	// election, say) before failing the command with FailedToSatisfyReadPreference (133). ≥ 0
	// (0 fails at once); default 20s.
	FindHostTimeout time.Duration
}

// Defaults of DefaultConfig.
const (
	DefaultBaseBackoff        = 100 * time.Millisecond // defaultClientBaseBackoffMillis
	DefaultMaxBackoff         = 10 * time.Second       // defaultClientMaxBackoffMillis
	DefaultMaxRetryAttempts   = 3                      // defaultClientMaxRetryAttempts
	DefaultLocalThreshold     = 15 * time.Millisecond  // localThresholdMS
	DefaultHeartbeatFrequency = 10 * time.Second
	DefaultFindHostTimeout    = 20 * time.Second
)

// DefaultConfig returns the server's defaults, with the retry budget on and overload-aware
// server selection off. Address is left empty.
func DefaultConfig() Config {
	return Config{
		BaseBackoff:        DefaultBaseBackoff,
		MaxBackoff:         DefaultMaxBackoff,
		MaxRetryAttempts:   DefaultMaxRetryAttempts,
		RetryBudget:        true,
		BudgetCapacity:     ratelimiter.DefaultShardRetryTokenBucketCapacity,
		BudgetReturnRate:   ratelimiter.DefaultShardRetryTokenReturnRate,
		ExhaustedLabels:    wire.SystemOverloadedError,
		LocalThreshold:     DefaultLocalThreshold,
		HeartbeatFrequency: DefaultHeartbeatFrequency,
		FindHostTimeout:    DefaultFindHostTimeout,
	}
}

// allLabels is every label wire defines.
const allLabels = wire.SystemOverloadedError | wire.RetryableError | wire.NoWritesPerformed |
	wire.RetryableWriteError | wire.TransientTransactionError

// Validate reports every invalid field at once, each as a *field.Error naming the field by its
// server parameter name, after "mongos: " ("mongos: <field>: <value>: <rule>"), joined with
// errors.Join. It never panics.
func (c *Config) Validate() error {
	var errs []error
	bad := func(name string, v any, rule string) {
		errs = append(errs, fmt.Errorf("mongos: %w", field.New(name, v, rule)))
	}
	if strings.TrimSpace(c.Address) == "" {
		bad("address", `""`, "must not be empty")
	}
	wholeMS := func(name string, d time.Duration) bool {
		switch {
		case d < 0:
			bad(name, d, "must be ≥ 0")
		case d%time.Millisecond != 0:
			bad(name, d, "must be a whole number of milliseconds")
		default:
			return true
		}
		return false
	}
	okBase := wholeMS("defaultClientBaseBackoffMillis", c.BaseBackoff)
	if wholeMS("defaultClientMaxBackoffMillis", c.MaxBackoff) && okBase && c.MaxBackoff < c.BaseBackoff {
		bad("defaultClientMaxBackoffMillis", c.MaxBackoff,
			"must be ≥ defaultClientBaseBackoffMillis ("+c.BaseBackoff.String()+")")
	}
	if c.MaxRetryAttempts < 0 {
		bad("defaultClientMaxRetryAttempts", c.MaxRetryAttempts, "must be ≥ 0")
	}
	if !(c.BudgetCapacity > 0) || math.IsInf(c.BudgetCapacity, 0) {
		bad("shardRetryTokenBucketCapacity", c.BudgetCapacity, "must be a finite number > 0")
	}
	if !(c.BudgetReturnRate > 0) || math.IsInf(c.BudgetReturnRate, 0) {
		bad("shardRetryTokenReturnRate", c.BudgetReturnRate, "must be a finite number > 0")
	}
	if extra := c.ExhaustedLabels &^ allLabels; extra != 0 {
		bad("exhaustedRetryLabels", fmt.Sprintf("%#x", uint16(c.ExhaustedLabels)),
			fmt.Sprintf("has bits %#x that name no label", uint16(extra)))
	}
	if c.LocalThreshold < 0 {
		bad("localThresholdMS", c.LocalThreshold, "must be ≥ 0")
	}
	if c.HeartbeatFrequency <= 0 {
		bad("heartbeatFrequencyMS", c.HeartbeatFrequency, "must be > 0")
	}
	if c.FindHostTimeout < 0 {
		bad("findHostTimeout", c.FindHostTimeout, "must be ≥ 0 (0 fails at once)")
	}
	return errors.Join(errs...)
}
