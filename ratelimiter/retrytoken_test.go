package ratelimiter

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func mustRetryTokenBucket(t *testing.T, capacity float64) *RetryTokenBucket {
	t.Helper()
	b, err := NewRetryTokenBucket(capacity)
	if err != nil {
		t.Fatalf("NewRetryTokenBucket(%v): %v", capacity, err)
	}
	return b
}

// Rule (client-backpressure.md 2026-03, "Token Bucket": "The token bucket starts at its maximum
// capacity of 1000 for consistency with the server").
func TestRetryTokenBucketStartsFull(t *testing.T) {
	b := mustRetryTokenBucket(t, DefaultRetryTokenCapacity)
	if b.Tokens() != 1000 || b.Capacity() != 1000 {
		t.Errorf("new bucket: Tokens %v, Capacity %v; want 1000, 1000", b.Tokens(), b.Capacity())
	}
}

// Rule (client-backpressure tests/README.md 2026-03, prose test 2 "Token bucket capacity": a
// successful command must not push a full bucket above capacity; the pseudocode's deposit is
// min(capacity, tokens + n)).
func TestRetryTokenBucketDepositClamps(t *testing.T) {
	cases := []struct {
		name    string
		set     float64
		deposit float64
		want    float64
	}{
		{"success on a full bucket", 1000, RetryTokenReturn, 1000},
		{"success on a retry, one token short", 999, RetryTokenReturn + 1, 1000},
		{"non-overload retry failure, half empty", 500, RetryCost, 501},
		{"success below capacity", 10, RetryTokenReturn, 10.1},
	}
	for _, tc := range cases {
		b := mustRetryTokenBucket(t, DefaultRetryTokenCapacity)
		b.Set(tc.set)
		b.Deposit(tc.deposit)
		if got := b.Tokens(); got != tc.want {
			t.Errorf("%s: Set(%v); Deposit(%v) -> Tokens %v, want %v", tc.name, tc.set, tc.deposit, got, tc.want)
		}
	}
}

// Rule (client-backpressure tests/README.md 2026-03, prose test 4 "Adaptive retries are
// limited by token bucket tokens": with the bucket set to 2 tokens, two overload retries are
// allowed and the third is refused; "A retry attempt consumes 1 token", and is "only permitted
// if a token can be consumed").
func TestRetryTokenBucketTwoTokensAllowTwoRetries(t *testing.T) {
	b := mustRetryTokenBucket(t, DefaultRetryTokenCapacity)
	b.Set(2)
	var got []bool
	for range 3 {
		got = append(got, b.Consume(RetryCost))
	}
	if want := []bool{true, true, false}; !slices.Equal(got, want) || b.Tokens() != 0 {
		t.Errorf("Consume ×3 from 2 tokens = %v, Tokens %v; want %v, 0", got, b.Tokens(), want)
	}
}

// Rule (client-backpressure.md 2026-03, TokenBucket pseudocode: consume takes n only
// "if self.tokens >= n"): a refused consume takes nothing. Deposits are float additions, as in
// the drivers, so ten deposits of 0.1 fall just short of one token.
func TestRetryTokenBucketConsumeNeedsWholeAmount(t *testing.T) {
	b := mustRetryTokenBucket(t, DefaultRetryTokenCapacity)
	b.Set(0)
	want := 0.0
	for range 10 {
		b.Deposit(RetryTokenReturn)
		want += 0.1
	}
	if b.Tokens() != want || want >= 1 {
		t.Fatalf("ten deposits of 0.1: Tokens %v, want the float sum %v (< 1)", b.Tokens(), want)
	}
	if b.Consume(RetryCost) || b.Tokens() != want {
		t.Errorf("Consume(1) with %v tokens succeeded or took tokens (now %v)", want, b.Tokens())
	}
	b.Deposit(RetryTokenReturn)
	if !b.Consume(RetryCost) {
		t.Errorf("Consume(1) with %v tokens refused", b.Tokens())
	}
}

// Rule (docs/conventions.md §7): a bad capacity is an error naming the field, value and rule.
func TestNewRetryTokenBucketRejectsInvalidCapacity(t *testing.T) {
	for _, c := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), -1, 0} {
		b, err := NewRetryTokenBucket(c)
		want := "ratelimiter: RetryTokenBucket.Capacity: " + formatFloat(c) + ": must be a finite number > 0"
		if got := fieldErrors(t, err); b != nil || len(got) != 1 || got[0] != want {
			t.Errorf("NewRetryTokenBucket(%v) = %v, %q; want nil, %q", c, b, got, want)
		}
	}
}

// Rule (RetryTokenBucket docs): negative or NaN amounts and out-of-range Set values are model
// bugs and panic with a package-prefixed message.
func TestRetryTokenBucketPanicsOnBadAmounts(t *testing.T) {
	calls := map[string]func(b *RetryTokenBucket){
		"Consume(-1)":  func(b *RetryTokenBucket) { b.Consume(-1) },
		"Consume(NaN)": func(b *RetryTokenBucket) { b.Consume(math.NaN()) },
		"Deposit(NaN)": func(b *RetryTokenBucket) { b.Deposit(math.NaN()) },
		"Deposit(-1)":  func(b *RetryTokenBucket) { b.Deposit(-1) },
		"Set(1001)":    func(b *RetryTokenBucket) { b.Set(1001) },
		"Set(-1)":      func(b *RetryTokenBucket) { b.Set(-1) },
	}
	for name, call := range calls {
		b := mustRetryTokenBucket(t, DefaultRetryTokenCapacity)
		func() {
			defer func() {
				if msg, _ := recover().(string); !strings.HasPrefix(msg, "ratelimiter: RetryTokenBucket.") {
					t.Errorf("%s: panic %q, want a ratelimiter panic", name, msg)
				}
			}()
			call(b)
		}()
		if b.Tokens() != 1000 {
			t.Errorf("%s changed the balance to %v", name, b.Tokens())
		}
	}
}
