package ratelimiter

import (
	"math"
	"slices"
	"testing"
)

func mustRetryBudget(t *testing.T, cfg RetryBudgetConfig) *RetryBudget {
	t.Helper()
	b, err := NewRetryBudget(cfg)
	if err != nil {
		t.Fatalf("NewRetryBudget(%+v): %v", cfg, err)
	}
	return b
}

// Rule (docs/model.md §4.4; retry_strategy.h: RetryBudget starts with balance = capacity;
// shard_retry_server_parameters.idl defaults 1000 and 0.1).
func TestRetryBudgetStartsFull(t *testing.T) {
	b := mustRetryBudget(t, DefaultRetryBudgetConfig())
	if b.Balance() != 1000 || b.Config() != (RetryBudgetConfig{Capacity: 1000, ReturnRate: 0.1}) {
		t.Errorf("new budget: Balance %v, Config %+v; want 1000 and the defaults", b.Balance(), b.Config())
	}
}

// Rule (retry_strategy.cpp: tryAcquireToken takes 1 only if balance >= 1; recordNotOverloaded
// deposits returnRate, +1 if the previous attempt was overloaded, min(capacity, ...), and does
// nothing at capacity). Each row starts from a set balance and applies one step.
func TestRetryBudgetArithmetic(t *testing.T) {
	cases := []struct {
		name    string
		balance float64
		step    func(b *RetryBudget) bool // returns the step's result, true if none
		wantOK  bool
		want    float64
	}{
		{"overloaded attempt takes a token", 5, (*RetryBudget).TryAcquireToken, true, 4},
		{"exactly one token is enough", 1, (*RetryBudget).TryAcquireToken, true, 0},
		{"less than one token: no retry, nothing taken", 0.95, (*RetryBudget).TryAcquireToken, false, 0.95},
		{"success after a success deposits the return rate", 5, notOverloaded(false), true, 5.1},
		{"success after an overloaded attempt returns its token too", 5, notOverloaded(true), true, 6.1},
		{"deposit is clamped at the capacity", 999.5, notOverloaded(true), true, 1000},
		{"full budget stays full", 1000, notOverloaded(false), true, 1000},
	}
	for _, tc := range cases {
		b := mustRetryBudget(t, DefaultRetryBudgetConfig())
		b.balance = tc.balance
		if ok := tc.step(b); ok != tc.wantOK || math.Abs(b.Balance()-tc.want) > 1e-12 { // float deposits, as on the server
			t.Errorf("%s: from %v -> %v, balance %v; want %v, %v", tc.name, tc.balance, ok, b.Balance(), tc.wantOK, tc.want)
		}
	}
}

func notOverloaded(prev bool) func(*RetryBudget) bool {
	return func(b *RetryBudget) bool { b.RecordNotOverloaded(prev); return true }
}

// Rule (internal-client.md, AdaptiveRetryStrategy: "On any other result ... any token taken
// from the bucket to perform the retry plus a configurable amount is replenished"): one
// operation that is overloaded three times and then succeeds costs the budget 3 − 1.1 tokens.
func TestRetryBudgetOperationSequence(t *testing.T) {
	b := mustRetryBudget(t, DefaultRetryBudgetConfig())
	var allowed []bool
	prevOverloaded := false
	for range 3 { // three overloaded failures, each asking for a retry
		prevOverloaded = true
		allowed = append(allowed, b.TryAcquireToken())
	}
	b.RecordNotOverloaded(prevOverloaded) // the fourth attempt succeeds
	if want := []bool{true, true, true}; !slices.Equal(allowed, want) || math.Abs(b.Balance()-998.1) > 1e-9 {
		t.Errorf("retries %v, balance %v; want %v, 998.1", allowed, b.Balance(), want)
	}
}

// Rule (retry_strategy.cpp updateRateParameters): lowering the capacity clamps the balance;
// raising it adds no tokens; deposits then fill up to the new capacity.
func TestRetryBudgetSetCapacity(t *testing.T) {
	b := mustRetryBudget(t, DefaultRetryBudgetConfig())
	if err := b.SetCapacity(10); err != nil || b.Balance() != 10 {
		t.Fatalf("SetCapacity(10) = %v, balance %v; want nil, 10", err, b.Balance())
	}
	if err := b.SetCapacity(100); err != nil || b.Balance() != 10 {
		t.Fatalf("SetCapacity(100) = %v, balance %v; want nil, 10 (not refilled)", err, b.Balance())
	}
	if err := b.SetReturnRate(50); err != nil {
		t.Fatal(err)
	}
	b.RecordNotOverloaded(false)
	b.RecordNotOverloaded(false)
	if b.Balance() != 100 {
		t.Errorf("two deposits of 50 from 10 under capacity 100: balance %v, want 100", b.Balance())
	}
}

// Rule (docs/conventions.md §7; idl validators: capacity > 0, return rate > 0): invalid values are
// errors naming field, value and rule, and change nothing.
func TestRetryBudgetRejectsInvalidValues(t *testing.T) {
	const rule = ": must be a finite number > 0"
	cases := []struct {
		cfg  RetryBudgetConfig
		want []string
	}{
		{RetryBudgetConfig{Capacity: math.NaN(), ReturnRate: 0.1}, []string{"ratelimiter: RetryBudgetConfig.Capacity: NaN" + rule}},
		{RetryBudgetConfig{Capacity: math.Inf(1), ReturnRate: 0.1}, []string{"ratelimiter: RetryBudgetConfig.Capacity: +Inf" + rule}},
		{RetryBudgetConfig{Capacity: 1000, ReturnRate: -0.1}, []string{"ratelimiter: RetryBudgetConfig.ReturnRate: -0.1" + rule}},
		{RetryBudgetConfig{}, []string{"ratelimiter: RetryBudgetConfig.Capacity: 0" + rule, "ratelimiter: RetryBudgetConfig.ReturnRate: 0" + rule}},
	}
	for _, tc := range cases {
		b, err := NewRetryBudget(tc.cfg)
		if got := fieldErrors(t, err); b != nil || !slices.Equal(got, tc.want) {
			t.Errorf("NewRetryBudget(%+v) = %v, %q; want nil, %q", tc.cfg, b, got, tc.want)
		}
	}
	b := mustRetryBudget(t, DefaultRetryBudgetConfig())
	if err := b.SetCapacity(math.NaN()); err == nil || b.Config().Capacity != 1000 {
		t.Errorf("SetCapacity(NaN) = %v, capacity %v; want an error and no change", err, b.Config().Capacity)
	}
	if err := b.SetReturnRate(0); err == nil || b.Config().ReturnRate != 0.1 {
		t.Errorf("SetReturnRate(0) = %v, rate %v; want an error and no change", err, b.Config().ReturnRate)
	}
}
