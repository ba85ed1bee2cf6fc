package retry

import (
	"reflect"
	"testing"
	"time"
)

// TestAWSJavaV2Legacy replays aws-sdk-java-v2's RetryMode.LEGACY, the Java SDK's default before
// the 2026 change (aws/aws-sdk-java-v2: core/retries DefaultRetryStrategy.java, class Legacy:
// MAX_ATTEMPTS 4, BASE_DELAY 100 ms, THROTTLED_BASE_DELAY 500 ms, MAX_BACKOFF 20 s,
// TOKEN_BUCKET_SIZE 500, DEFAULT_EXCEPTION_TOKEN_COST 5, THROTTLE_EXCEPTION_TOKEN_COST 0;
// core/sdk-core SdkDefaultRetrySetting.java maxAttempts(LEGACY) 4; core/retries-spi
// ExponentialDelayWithHalfJitter.java and BackoffStrategiesConstants.java; core/retries
// ExponentialDelayWithJitter.java nextInt(c); BaseRetryStrategy.java
// releaseTokenBucketCapacity, max(capacityAcquired, 1)). The delays are the sources' (jitter 1
// draws nextInt's largest value): full jitter in [0, c) ms, so 99, 199, 399 ms; equal jitter in
// [c/2, c] for a throttling error, so 500, 1000, 2000 ms at jitter 1 and 250, 500, 1000 ms at 0.
// Throttling errors cost nothing, so 200 always-throttled calls make 800 attempts; others cost 5
// and the bucket stops 200 always-failing calls at 300 attempts. A success after a retry that
// cost 0 gives back 1 token, one after a retry that cost 5 gives back 5.
func TestAWSJavaV2Legacy(t *testing.T) {
	java := awsPreset(AWSPresetJavaV2Legacy, "")
	for _, tc := range []struct {
		gloss  string
		f      Failure
		jitter float64
		want   []time.Duration
	}{
		{"transient, jitter 1", netErr, 1, ms(99, 199, 399)},
		{"transient, jitter 0.5", netErr, 0.5, ms(50, 100, 200)},
		{"transient, jitter 0", netErr, 0, ms(0, 0, 0)},
		{"throttling, jitter 1", rejected, 1, ms(500, 1000, 2000)},
		{"throttling, jitter 0", rejected, 0, ms(250, 500, 1000)},
	} {
		tr := run(t, newAWS(t, NameAWSStandard, java), Class{}, alwaysOn(tc.f), env{jitter: constJitter(tc.jitter)})
		if tr.attempts != 4 || !reflect.DeepEqual(tr.backoffs, tc.want) || tr.why != MaxRetries {
			t.Errorf("run(java-v2-legacy, %s) = %d attempts after %v (%v), want 4 after %v (MaxRetries)", tc.gloss, tr.attempts, tr.backoffs, tr.why, tc.want)
		}
	}
	count := func(f Failure) (n int, why GiveUp, quota int) {
		p := newAWS(t, NameAWSStandard, java)
		for range 200 {
			tr := run(t, p, Class{}, alwaysOn(f), env{})
			n, why = n+tr.attempts, tr.why
		}
		return n, why, standardOf(p).quota
	}
	if n, why, q := count(rejected); n != 800 || why != MaxRetries || q != 500 {
		t.Errorf("java-v2-legacy: 200 always-throttled calls = %d attempts (last %v, bucket %d), want 800 (MaxRetries, 500)", n, why, q)
	}
	if n, why, q := count(netErr); n != 300 || why != Budget || q != 0 {
		t.Errorf("java-v2-legacy: 200 always-failing calls = %d attempts (last %v, bucket %d), want 300 (Budget, 0)", n, why, q)
	}
	for _, tc := range []struct {
		f    Failure
		want int
	}{{rejected, 491}, {netErr, 490}} {
		p := newAWS(t, NameAWSStandard, java)
		standardOf(p).quota = 490
		run(t, p, Class{}, times(1, tc.f), env{})
		if got := standardOf(p).quota; got != tc.want {
			t.Errorf("java-v2-legacy: bucket 490, one %v then success = %d, want %d", tc.f, got, tc.want)
		}
	}
}

// TestAWSJavaV2LegacyDynamoDB replays aws-sdk-java-v2's DynamoDB defaults in the legacy mode
// (services/dynamodb DynamoDbRetryPolicy.java resolveRetryStrategy: MAX_ATTEMPTS_V20 9 and
// exponentialDelay(BASE_DELAY 25 ms, MAX_BACKOFF); the throttling backoff stays the legacy
// mode's 500 ms equal jitter).
func TestAWSJavaV2LegacyDynamoDB(t *testing.T) {
	p := newAWS(t, NameAWSStandard, awsPreset(AWSPresetJavaV2Legacy, AWSServiceDynamoDB))
	tr := run(t, p, Class{}, alwaysOn(netErr), env{})
	want := ms(24, 49, 99, 199, 399, 799, 1599, 3199)
	if tr.attempts != 9 || !reflect.DeepEqual(tr.backoffs, want) || tr.why != MaxRetries {
		t.Errorf("run(java-v2-legacy DynamoDB, network errors) = %d attempts after %v (%v), want 9 after %v", tr.attempts, tr.backoffs, tr.why, want)
	}
	tr = run(t, p, Class{}, alwaysOn(rejected), env{})
	want = ms(500, 1000, 2000, 4000, 8000, 16000, 20000, 20000)
	if tr.attempts != 9 || !reflect.DeepEqual(tr.backoffs, want) {
		t.Errorf("run(java-v2-legacy DynamoDB, throttled) = %d attempts after %v, want 9 after %v", tr.attempts, tr.backoffs, want)
	}
}

// TestAWSJSV3 replays aws-sdk-js-v3's StandardRetryStrategy without SMITHY_NEW_RETRIES_2026
// (smithy-lang/smithy-typescript 6815d3e, @smithy/core 3.33.3:
// packages/core/src/submodules/retry/util-retry/retries.integ.spec.ts, "retry timings", cases
// "8x - transient" and "8x - throttling", with Math.random fixed at 1: transient retries cost 10
// and wait 100, 200, …, 6400 ms, leaving 430 tokens; throttling ones cost 5 and wait 500, …,
// 16000, 20000 ms, leaving 465). By default 3 attempts (config.ts DEFAULT_MAX_ATTEMPTS); a success
// gives back what its last retry cost (StandardRetryStrategy.ts recordSuccess); the delay is
// whole milliseconds (DefaultRetryBackoffStrategy.ts Math.floor); x-amz-retry-after is honoured
// within [t, t + 5 s] (StandardRetryStrategy.ts refreshRetryTokenForRetry).
func TestAWSJSV3(t *testing.T) {
	js := awsPreset(AWSPresetJSV3, "")
	eight := func(a *AWSOptions) { js(a); a.MaxAttempts = 8 }
	for _, tc := range []struct {
		name  string
		f     Failure
		want  []time.Duration
		quota int
	}{
		{"8x - transient", netErr, ms(100, 200, 400, 800, 1600, 3200, 6400), 430},
		{"8x - throttling", rejected, ms(500, 1000, 2000, 4000, 8000, 16000, 20000), 465},
	} {
		p := newAWS(t, NameAWSStandard, eight)
		tr := run(t, p, Class{}, alwaysOn(tc.f), env{})
		if !reflect.DeepEqual(tr.backoffs, tc.want) || tr.why != MaxRetries || standardOf(p).quota != tc.quota {
			t.Errorf("%s: %v (%v), %d tokens left, want %v (MaxRetries), %d", tc.name, tr.backoffs, tr.why, standardOf(p).quota, tc.want, tc.quota)
		}
	}
	p := newAWS(t, NameAWSStandard, js)
	if tr := run(t, p, Class{}, alwaysOn(netErr), env{jitter: constJitter(0.5)}); tr.attempts != 3 || !reflect.DeepEqual(tr.backoffs, ms(50, 100)) {
		t.Errorf("js-v3 default, jitter 0.5 = %d attempts after %v, want 3 after [50ms 100ms]", tr.attempts, tr.backoffs)
	}
	if got := standardOf(p).quota; got != 480 {
		t.Errorf("js-v3: two transient retries leave %d tokens, want 480", got)
	}
	run(t, p, Class{}, times(1, netErr), env{})
	if got := standardOf(p).quota; got != 480 {
		t.Errorf("js-v3: a transient retry then success = %d tokens, want 480 (10 taken, 10 back)", got)
	}
	pb := rejected
	pb.Pushback, pb.PushbackMS = true, 3000
	if tr := run(t, p, Class{}, times(1, pb), env{}); !reflect.DeepEqual(tr.backoffs, ms(3000)) {
		t.Errorf("js-v3: x-amz-retry-after 3000 after a throttling error = %v, want [3s]", tr.backoffs)
	}
}
