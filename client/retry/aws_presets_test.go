package retry

import (
	"reflect"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/wire"
)

// awsPreset returns a modifier that selects preset and service.
func awsPreset(preset, service string) func(*AWSOptions) {
	return func(a *AWSOptions) { a.Preset, a.Service = preset, service }
}

// establishFailed is a failed connection establishment as the pool reports it: a network error
// before anything was sent, labelled as CMAP (backpressure) labels it.
var establishFailed = Failure{Network: true, Dispatch: true, Labels: wire.SystemOverloadedError | wire.RetryableError}

// TestAWSBotocoreLegacyDefault replays botocore's legacy retry mode, boto3's default until the
// 2026 change (boto/botocore 1.43.67: configprovider.py _DEFAULT_RETRY_MODE 'legacy';
// data/_retry.json __default__ max_attempts 5, delay base "rand", growth_factor 2;
// retryhandler.py MaxAttemptsDecorator and delay_exponential). Its own tests:
// tests/unit/test_retryhandler.py TestRetryCheckers.test_max_attempts (the failure of attempt
// max_attempts is not retried), TestDelayExponential.test_delay_with_rand_string (rand ×
// 2^(attempts−1), in [0, 4] at attempts 3) and test_delay_with_numeric_base. 200 calls that
// always fail make 1000 attempts (the standard mode's 3 attempts would make 600, and its quota
// stops them at 300 when it is exhausted); the delay doubles from rand × 1 s with no 20 s cap;
// nothing is charged, so nothing runs out.
func TestAWSBotocoreLegacyDefault(t *testing.T) {
	attempts := func(mod func(*AWSOptions)) (n int, why GiveUp) {
		p := newAWS(t, NameAWSStandard, mod)
		for range 200 {
			tr := run(t, p, Class{}, alwaysOn(code(wire.ShutdownInProgress, 0)), env{jitter: constJitter(0)})
			n, why = n+tr.attempts, tr.why
		}
		return n, why
	}
	if n, why := attempts(awsPreset(AWSPresetBotocoreLegacy, "")); n != 1000 || why != MaxRetries {
		t.Errorf("botocore-legacy: 200 failing calls = %d attempts (last %v), want 1000 (MaxRetries)", n, why)
	}
	if n, why := attempts(awsLegacy); n != 300 || why != Budget {
		t.Errorf("standard mode, legacy: 200 failing calls = %d attempts (last %v), want 300 (Budget)", n, why)
	}
	tests := []struct {
		gloss    string
		mod      func(*AWSOptions)
		f        Failure
		jitter   float64
		backoffs []time.Duration
	}{
		{"5 attempts, rand × 2^(attempt−1) s", nil, rejected, 1, sec(1, 2, 4, 8)},
		{"rand 0.5", nil, netErr, 0.5, sec(0.5, 1, 2, 4)},
		{"a refused connection", nil, establishFailed, 1, sec(1, 2, 4, 8)},
		{"no 20 s cap", func(a *AWSOptions) { a.MaxAttempts = 8 }, rejected, 1, sec(1, 2, 4, 8, 16, 32, 64)},
		{"maxAttempts 1: no retry", func(a *AWSOptions) { a.MaxAttempts = 1 }, rejected, 1, sec()},
	}
	for _, tc := range tests {
		mod := func(a *AWSOptions) {
			awsPreset(AWSPresetBotocoreLegacy, "")(a)
			if tc.mod != nil {
				tc.mod(a)
			}
		}
		tr := run(t, newAWS(t, NameAWSStandard, mod), Class{}, alwaysOn(tc.f), env{jitter: constJitter(tc.jitter)})
		if len(tr.backoffs)+len(tc.backoffs) > 0 && !reflect.DeepEqual(tr.backoffs, tc.backoffs) || tr.why != MaxRetries {
			t.Errorf("run(%s) = %v then %v, want %v then MaxRetries", tc.gloss, tr.backoffs, tr.why, tc.backoffs)
		}
	}
	if got := awsDoubling(time.Second, 200); got != awsMaxDoubling {
		t.Errorf("awsDoubling(1s, 200) = %v, want %v", got, awsMaxDoubling)
	}
	tr := run(t, newAWS(t, NameAWSStandard, awsPreset(AWSPresetBotocoreLegacy, "")), Class{}, alwaysOn(code(wire.BadValue, 0)), env{})
	if tr.attempts != 1 || tr.why != NotRetryable {
		t.Errorf("run(an error reply that is not transient) = %d attempts (%v), want 1 (NotRetryable)", tr.attempts, tr.why)
	}
}

// TestAWSBotocoreLegacyDynamoDB replays data/_retry.json's dynamodb entry (boto/botocore 1.43.67):
// max_attempts 10 and the fixed base 0.05 s, growth factor 2, so the delays are 50 ms × 2^(n−1)
// with no jitter drawn (delay_exponential with a numeric base, as
// TestDelayExponential.test_delay_with_numeric_base in tests/unit/test_retryhandler.py).
func TestAWSBotocoreLegacyDynamoDB(t *testing.T) {
	p := newAWS(t, NameAWSStandard, awsPreset(AWSPresetBotocoreLegacy, AWSServiceDynamoDB))
	tr := run(t, p, Class{}, alwaysOn(rejected), env{jitter: noDraw{t}})
	want := ms(50, 100, 200, 400, 800, 1600, 3200, 6400, 12800)
	if tr.attempts != 10 || !reflect.DeepEqual(tr.backoffs, want) || tr.why != MaxRetries {
		t.Errorf("run(DynamoDB, always throttled) = %d attempts after %v (%v), want 10 after %v (MaxRetries)", tr.attempts, tr.backoffs, tr.why, want)
	}
}

// TestAWSCPPDefault replays aws-sdk-cpp's DefaultRetryStrategy (aws/aws-sdk-cpp,
// src/aws-cpp-sdk-core/include/aws/core/client/DefaultRetryStrategy.h: maxRetries 10,
// scaleFactor 25; src/aws-cpp-sdk-core/source/client/DefaultRetryStrategy.cpp: ShouldRetry stops
// at attemptedRetries ≥ maxRetries, CalculateDelayBeforeNextRetry is 0 for retries 0 and
// 2^retries × scaleFactor ms after; ClientConfiguration.cpp InitRetryStrategy builds it when
// no retry mode is configured; AWSClient::AttemptExhaustively counts retries from 0). The SDK
// has no test of these numbers; the delays are the source's. 11 attempts, delays 0, 50 ms, …,
// 12.8 s, no jitter, no quota: 200 calls that always fail make 2200 attempts.
func TestAWSCPPDefault(t *testing.T) {
	p := newAWS(t, NameAWSStandard, awsPreset(AWSPresetCPPDefault, ""))
	want := ms(0, 50, 100, 200, 400, 800, 1600, 3200, 6400, 12800)
	n := 0
	for i := range 200 {
		tr := run(t, p, Class{}, alwaysOn(netErr), env{jitter: noDraw{t}})
		n += tr.attempts
		if i == 0 && (tr.attempts != 11 || !reflect.DeepEqual(tr.backoffs, want) || tr.why != MaxRetries) {
			t.Errorf("run(cpp-default, always failing) = %d attempts after %v (%v), want 11 after %v (MaxRetries)", tr.attempts, tr.backoffs, tr.why, want)
		}
	}
	if n != 2200 {
		t.Errorf("cpp-default: 200 failing calls = %d attempts, want 2200", n)
	}
	for _, c := range []struct {
		retries int
		want    time.Duration
	}{{0, 0}, {1, 50 * time.Millisecond}, {3, 200 * time.Millisecond}, {9, 12800 * time.Millisecond}} {
		if got := cppDelay(c.retries); got != c.want {
			t.Errorf("cppDelay(%d) = %v, want %v", c.retries, got, c.want)
		}
	}
}

// TestAWSTimeoutCost replays the legacy quota's cost rule: 10 tokens only for a timeout
// (boto/botocore 1.43.67 botocore/retries/standard.py RetryQuotaChecker._TIMEOUT_EXCEPTIONS =
// ConnectTimeoutError, ReadTimeoutError; tests/unit/retries/test_standard.py
// TestRetryQuotaChecker.test_can_acquire_quota_non_timeout_error and
// test_can_acquire_quota_for_timeout_error; aws/aws-sdk-cpp
// tests/aws-cpp-sdk-core-tests/aws/client/RetryStrategyTest.cpp
// RetryStrategyTest.TestDefaultRetryQuotaContainer: NETWORK_CONNECTION 5, REQUEST_TIMEOUT 10).
// No failure the simulator retries is a timeout: a network error is a connection closed in
// flight (botocore's ConnectionClosedError), a failed establishment is refused or reset as
// often as it times out and does not say which, and an attempt that runs out of time ends its
// operation. So every legacy retry costs 5.
func TestAWSTimeoutCost(t *testing.T) {
	p := standardOf(newAWS(t, NameAWSStandard, awsLegacy))
	for _, f := range []Failure{netErr, establishFailed, rejected, code(wire.ShutdownInProgress, 0)} {
		if got := p.cost(f); got != awsLegacyCost {
			t.Errorf("cost(%v) = %d, want %d", f, got, awsLegacyCost)
		}
	}
}

// TestAWSDynamoDB2026 replays the 2026 standard mode's DynamoDB defaults (boto/botocore 1.43.67
// botocore/retries/standard.py _SERVICE_MAX_ATTEMPTS dynamodb 4 and _SERVICE_BACKOFF_CONFIG
// non_throttling_base_scale 0.025; aws/aws-sdk-cpp
// tests/aws-cpp-sdk-core-tests/aws/client/RetryStrategyTest.cpp
// NewRetriesStrategyTest.DynamoDBBackoffBase: 25 ms for transient errors, 1 s still for
// throttling ones). Both modes that read the aws block take them.
func TestAWSDynamoDB2026(t *testing.T) {
	for _, name := range []string{NameAWSStandard, NameAWSAdaptive} {
		for _, tc := range []struct {
			f    Failure
			want []time.Duration
		}{{netErr, ms(25, 50, 100)}, {rejected, sec(1, 2, 4)}} {
			tr := run(t, newAWS(t, name, awsPreset("", AWSServiceDynamoDB)), Class{}, alwaysOn(tc.f), env{})
			if tr.attempts != 4 || !reflect.DeepEqual(tr.backoffs, tc.want) || tr.why != MaxRetries {
				t.Errorf("run(%s DynamoDB, %v) = %d attempts after %v (%v), want 4 after %v", name, tc.f, tr.attempts, tr.backoffs, tr.why, tc.want)
			}
		}
	}
}

// sec is durations in seconds.
func sec(v ...float64) []time.Duration {
	out := make([]time.Duration, len(v))
	for i, x := range v {
		out[i] = time.Duration(x * float64(time.Second))
	}
	return out
}
