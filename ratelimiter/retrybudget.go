package ratelimiter

import "errors"

// Defaults of the server parameters that size a shard's retry budget
// (shard_retry_server_parameters.idl).
const (
	// DefaultShardRetryTokenBucketCapacity is shardRetryTokenBucketCapacity: the budget's
	// capacity and initial balance.
	DefaultShardRetryTokenBucketCapacity = 1000
	// DefaultShardRetryTokenReturnRate is shardRetryTokenReturnRate: the tokens returned per
	// attempt that was not overloaded.
	DefaultShardRetryTokenReturnRate = 0.1
)

// RetryBudgetConfig sizes a RetryBudget.
type RetryBudgetConfig struct {
	// Capacity is the most tokens the budget holds, and its initial balance
	// (shardRetryTokenBucketCapacity, an integer > 0 on the server; any finite number > 0 here).
	Capacity float64
	// ReturnRate is the tokens deposited per attempt that was not overloaded
	// (shardRetryTokenReturnRate, a finite number > 0).
	ReturnRate float64
}

// DefaultRetryBudgetConfig returns the server's defaults: capacity 1000, return rate 0.1.
func DefaultRetryBudgetConfig() RetryBudgetConfig {
	return RetryBudgetConfig{Capacity: DefaultShardRetryTokenBucketCapacity, ReturnRate: DefaultShardRetryTokenReturnRate}
}

// Validate reports every invalid field of c, each holding a *field.Error, joined with errors.Join.
func (c RetryBudgetConfig) Validate() error {
	return errors.Join(
		checkFinitePositive("RetryBudgetConfig.Capacity", c.Capacity),
		checkFinitePositive("RetryBudgetConfig.ReturnRate", c.ReturnRate),
	)
}

// RetryBudget is the token bucket of the server's AdaptiveRetryStrategy (retry_strategy.h,
// AdaptiveRetryStrategy::RetryBudget), shared by every operation a mongos sends to one shard.
// It has no time-based refill: tokens come back only from attempts that were not overloaded.
//
// The strategy that uses it, per operation: on a failure labelled SystemOverloadedError, note
// that the attempt was overloaded and call TryAcquireToken; no token means no retry (and a token
// taken is not given back if the wrapped strategy then declines to retry). On a failure without
// the label, and on success, call RecordNotOverloaded with whether the operation's previous
// attempt was overloaded, then clear that note.
type RetryBudget struct {
	cfg     RetryBudgetConfig
	balance float64
}

// NewRetryBudget returns a full budget. On an invalid cfg it returns the errors of
// cfg.Validate and never panics.
func NewRetryBudget(cfg RetryBudgetConfig) (*RetryBudget, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &RetryBudget{cfg: cfg, balance: cfg.Capacity}, nil
}

// TryAcquireToken takes one token and returns true if the balance is at least 1; otherwise it
// takes nothing and returns false.
func (b *RetryBudget) TryAcquireToken() bool {
	if b.balance < 1 {
		return false
	}
	b.balance--
	return true
}

// RecordNotOverloaded deposits ReturnRate tokens, plus one if the operation's previous attempt
// was overloaded (which gives back the token that attempt's retry took), holding the balance at
// the capacity.
func (b *RetryBudget) RecordNotOverloaded(previousAttemptOverloaded bool) {
	if b.balance >= b.cfg.Capacity {
		return
	}
	amount := b.cfg.ReturnRate
	if previousAttemptOverloaded {
		amount++
	}
	b.balance = min(b.cfg.Capacity, b.balance+amount)
}

// SetCapacity changes the capacity, as a runtime change of shardRetryTokenBucketCapacity does:
// a lower capacity clamps the balance to it, a higher one adds no tokens. A capacity that is
// not a finite number > 0 is an error and changes nothing.
func (b *RetryBudget) SetCapacity(capacity float64) error {
	if err := checkFinitePositive("RetryBudgetConfig.Capacity", capacity); err != nil {
		return err
	}
	b.cfg.Capacity = capacity
	b.balance = min(b.balance, capacity)
	return nil
}

// SetReturnRate changes the return rate for later deposits. A rate that is not a finite
// number > 0 is an error and changes nothing.
func (b *RetryBudget) SetReturnRate(rate float64) error {
	if err := checkFinitePositive("RetryBudgetConfig.ReturnRate", rate); err != nil {
		return err
	}
	b.cfg.ReturnRate = rate
	return nil
}

// Balance returns the tokens in the budget (retryBudgetTokenBucketBalance in serverStatus).
func (b *RetryBudget) Balance() float64 { return b.balance }

// Config returns the budget's current capacity and return rate.
func (b *RetryBudget) Config() RetryBudgetConfig { return b.cfg }
