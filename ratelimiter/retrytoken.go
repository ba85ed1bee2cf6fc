package ratelimiter

import (
	"fmt"
	"math"
)

// Constants of the driver Client Backpressure specification, 2026-03 text
// (source/client-backpressure/client-backpressure.md).
const (
	// DefaultRetryTokenCapacity is DEFAULT_RETRY_TOKEN_CAPACITY: the bucket's capacity, and its
	// initial balance ("starts at its maximum capacity of 1000 for consistency with the server").
	DefaultRetryTokenCapacity = 1000
	// RetryTokenReturn is RETRY_TOKEN_RETURN_RATE: deposited after every successful command,
	// plus one more token if the success came on a retry. Not configurable.
	RetryTokenReturn = 0.1
	// RetryCost is the number of tokens an overload retry consumes; a retry that fails with an
	// error that is not an overload error deposits the same amount back.
	RetryCost = 1
)

const panicBadAmount = "ratelimiter: RetryTokenBucket.%s(%v): the amount must be a finite number ≥ 0"

// RetryTokenBucket is the driver's per-MongoClient retry token bucket (adaptiveRetries=true):
// a float balance between 0 and a capacity, with no time-based refill. It follows the spec's
// TokenBucket pseudocode, PyMongo's _TokenBucket and Node's TokenBucket, float arithmetic
// included. When and how much the retry loop consumes and deposits is the caller's business;
// the spec's amounts are RetryCost and RetryTokenReturn.
type RetryTokenBucket struct {
	capacity float64
	tokens   float64
}

// NewRetryTokenBucket returns a full bucket of the given capacity (DefaultRetryTokenCapacity in
// the spec). The capacity must be finite and > 0; otherwise it returns an error holding a *field.Error.
func NewRetryTokenBucket(capacity float64) (*RetryTokenBucket, error) {
	if err := checkFinitePositive("RetryTokenBucket.Capacity", capacity); err != nil {
		return nil, err
	}
	return &RetryTokenBucket{capacity: capacity, tokens: capacity}, nil
}

// Consume takes n tokens and returns true if at least n are in the bucket; otherwise it takes
// nothing and returns false. A negative, infinite or NaN n panics.
func (b *RetryTokenBucket) Consume(n float64) bool {
	checkAmount("Consume", n)
	if b.tokens >= n {
		b.tokens -= n
		return true
	}
	return false
}

// Deposit adds n tokens, holding the balance at the capacity. A negative, infinite or NaN n
// panics.
func (b *RetryTokenBucket) Deposit(n float64) {
	checkAmount("Deposit", n)
	b.tokens = min(b.capacity, b.tokens+n)
}

// Tokens returns the balance.
func (b *RetryTokenBucket) Tokens() float64 { return b.tokens }

// Capacity returns the capacity.
func (b *RetryTokenBucket) Capacity() float64 { return b.capacity }

// Set puts the balance at tokens, as the spec's prose tests do ("set the bucket to 2 tokens").
// tokens must be in [0, Capacity]; anything else panics.
func (b *RetryTokenBucket) Set(tokens float64) {
	if !(tokens >= 0 && tokens <= b.capacity) {
		panic(fmt.Sprintf("ratelimiter: RetryTokenBucket.Set(%v): must be in [0, %v]", tokens, b.capacity))
	}
	b.tokens = tokens
}

func checkAmount(method string, n float64) {
	if !(n >= 0) || math.IsInf(n, 1) {
		panic(fmt.Sprintf(panicBadAmount, method, n))
	}
}
