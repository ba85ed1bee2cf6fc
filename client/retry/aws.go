package retry

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/overloadsim/overloadsim/sim"
)

// The aws-standard and aws-adaptive policies are the AWS SDKs' standard and adaptive retry
// modes as botocore implements them (boto/botocore botocore/retries/standard.py, quota.py,
// adaptive.py, throttling.py and bucket.py; the SDKs' shared description is
// https://docs.aws.amazon.com/sdkref/latest/guide/feature-retry-behavior.html). Two behaviours
// of the standard mode exist: the one before November 2026 ("legacy") and the one that becomes
// the default then ("2026"; botocore's STANDARD_RETRY_MODE_VERSION 2.1, opt-in with
// AWS_NEW_RETRIES_2026=true). The package documentation and docs/policies.md map the
// simulator's failures to AWS error categories.

// AWS standard-mode behaviours, the values of AWSOptions.Behavior.
const (
	// AWSBehavior2026 is the standard mode that becomes the SDKs' default in November 2026:
	// backoff base 1 s for throttling errors and 50 ms for other transient ones, retry cost 14
	// (5 for throttling errors), x-amz-retry-after honoured.
	AWSBehavior2026 = "2026"
	// AWSBehaviorLegacy is the standard mode before it: backoff base 1 s, retry cost 5 (10 after
	// a timeout), no x-amz-retry-after.
	AWSBehaviorLegacy = "legacy"
)

// How an attempt waits for its send token in the adaptive mode, the values of
// AWSOptions.AdaptiveWait.
const (
	// AWSWaitReserve takes the token when the attempt asks, the balance going negative, and
	// fixes the wait at the fill rate of that moment: a FIFO reservation, returned if the
	// operation ends first.
	AWSWaitReserve = "reserve"
	// AWSWaitRecheck is botocore's blocking TokenBucket.acquire: the attempt takes nothing until
	// a whole token is in the bucket, and looks again when its wait ends or when a response
	// changes the rate (the bucket's condition is notified, waking the attempt that has waited
	// longest).
	AWSWaitRecheck = "recheck"
)

// Presets of the aws block (AWSOptions.Preset): an SDK's default retry behaviour when it is not
// the standard mode. Each fixes the rules; maxAttempts may still be given.
const (
	// AWSPresetBotocoreLegacy is botocore's legacy retry mode (botocore/retryhandler.py with
	// data/_retry.json), boto3's and the AWS CLI v1's default until the 2026 change: 5 attempts,
	// backoff rand × 2^(attempt−1) s with no cap, no retry quota.
	AWSPresetBotocoreLegacy = "botocore-legacy"
	// AWSPresetCPPDefault is aws-sdk-cpp's DefaultRetryStrategy, what ClientConfiguration builds
	// when no retry mode is configured: 11 attempts (maxRetries 10), delays 0 then 2^retries × 25
	// ms with no jitter and no cap, no retry quota.
	AWSPresetCPPDefault = "cpp-default"
	// AWSPresetJavaV2Legacy is aws-sdk-java-v2's RetryMode.LEGACY, the Java SDK's default before
	// the 2026 change: 4 attempts (9 for DynamoDB), full jitter from 100 ms (25 ms for DynamoDB)
	// and equal jitter from 500 ms for throttling errors, both capped at 20 s, and a 500-token
	// bucket where a throttling error costs 0 and any other 5; a success gives back what its last
	// retry took, at least 1.
	AWSPresetJavaV2Legacy = "java-v2-legacy"
	// AWSPresetJSV3 is aws-sdk-js-v3's StandardRetryStrategy (@smithy/core's util-retry) without
	// SMITHY_NEW_RETRIES_2026: 3 attempts, delay ⌊U × min(base × 2^retries, 20 s)⌋ ms with base
	// 100 ms (500 ms for throttling errors), a 500-token quota where a throttling error costs 5
	// and a transient one 10, and x-amz-retry-after honoured as in the 2026 mode.
	AWSPresetJSV3 = "js-v3"
	// AWSServiceDynamoDB selects DynamoDB's service defaults (AWSOptions.Service).
	AWSServiceDynamoDB = "dynamodb"
)

// Constants of the standard mode (botocore standard.py and quota.py).
const (
	// awsDefaultMaxAttempts is DEFAULT_MAX_ATTEMPTS.
	awsDefaultMaxAttempts = 3
	// awsDefaultQuota is RetryQuota.INITIAL_CAPACITY: the quota's capacity and start.
	awsDefaultQuota = 500
	// awsMaxBackoff is ExponentialBackoff's max_backoff (20 s), applied before the jitter.
	awsMaxBackoff = 20 * time.Second
	// awsLegacyBase is the legacy backoff base: rand × min(2^(attempt−1) s, 20 s).
	awsLegacyBase = time.Second
	// awsThrottlingBase and awsTransientBase are the 2026 bases (_THROTTLING_BASE_SCALE 1,
	// _NON_THROTTLING_BASE_SCALE 0.05).
	awsThrottlingBase = time.Second
	awsTransientBase  = 50 * time.Millisecond
	// awsRetryAfterMaxExtra bounds x-amz-retry-after: the delay is clamped to [t, t + 5 s]
	// with t the computed delay (_RETRY_AFTER_MAX_ADDITIONAL).
	awsRetryAfterMaxExtra = 5 * time.Second
	// Retry costs: legacy _RETRY_COST 5 and _TIMEOUT_RETRY_REQUEST 10; 2026 _RETRY_COST_V2 14
	// and _THROTTLING_RETRY_COST 5.
	awsLegacyCost           = 5
	awsLegacyTimeoutCost    = 10 // no failure the simulator retries is a timeout (see cost)
	awsCost2026             = 14
	awsThrottlingCost2026   = 5
	awsNoRetryIncrement     = 1 // _NO_RETRY_INCREMENT: added by a success on the first attempt
	awsDefaultBehavior      = AWSBehavior2026
	awsMaxRateAdjustScale   = 2.0 // ClientRateLimiter._MAX_RATE_ADJUST_SCALE
	awsMinFillRate          = 0.5 // TokenBucket._MIN_RATE, tokens per second
	awsClockerSmoothing     = 0.8 // RateClocker._DEFAULT_SMOOTHING
	awsClockerBucketsPerSec = 2   // 1 / RateClocker._TIME_BUCKET_RANGE (0.5 s)
	awsCubicC               = 0.4 // CubicCalculator._SCALE_CONSTANT
	awsCubicBeta            = 0.7 // CubicCalculator._BETA
	// awsDynamoDBMaxAttempts and awsDynamoDBTransientBase are the 2026 standard mode's DynamoDB
	// defaults (standard.py _SERVICE_MAX_ATTEMPTS and _SERVICE_BACKOFF_CONFIG).
	awsDynamoDBMaxAttempts   = 4
	awsDynamoDBTransientBase = 25 * time.Millisecond
	// botocore's legacy mode (data/_retry.json): max_attempts 5, base "rand", growth factor 2;
	// for DynamoDB max_attempts 10 and the fixed base 0.05 s.
	legacyAttempts         = 5
	legacyDynamoDBAttempts = 10
	legacyDynamoDBBase     = 50 * time.Millisecond
	// aws-sdk-cpp's DefaultRetryStrategy(maxRetries = 10, scaleFactor = 25).
	cppDefaultAttempts = 11
	cppScaleFactor     = 25 * time.Millisecond
	// aws-sdk-java-v2's RetryMode.LEGACY (DefaultRetryStrategy.Legacy, SdkDefaultRetrySetting and
	// DynamoDbRetryPolicy): MAX_ATTEMPTS 4, BASE_DELAY 100 ms, THROTTLED_BASE_DELAY 500 ms,
	// MAX_BACKOFF 20 s (awsMaxBackoff), DEFAULT_EXCEPTION_TOKEN_COST 5,
	// THROTTLE_EXCEPTION_TOKEN_COST 0, TOKEN_BUCKET_SIZE 500 (awsDefaultQuota); for DynamoDB
	// MAX_ATTEMPTS_V20 9 and BASE_DELAY 25 ms.
	javaLegacyAttempts         = 4
	javaLegacyDynamoDBAttempts = 9
	javaLegacyBase             = 100 * time.Millisecond
	javaLegacyDynamoDBBase     = 25 * time.Millisecond
	javaLegacyThrottledBase    = 500 * time.Millisecond
	javaLegacyCost             = 5
	javaLegacyThrottlingCost   = 0
	// aws-sdk-js-v3's standard mode before 2026 (util-retry constants.ts and config.ts):
	// DEFAULT_MAX_ATTEMPTS 3 (awsDefaultMaxAttempts), DEFAULT_RETRY_DELAY_BASE 100 ms,
	// THROTTLING_RETRY_DELAY_BASE 500 ms, MAXIMUM_RETRY_DELAY 20 s (awsMaxBackoff),
	// INITIAL_RETRY_TOKENS 500 (awsDefaultQuota), RETRY_COST 5 (charged for a throttling error),
	// TIMEOUT_RETRY_COST 10 (charged for every TRANSIENT error), NO_RETRY_INCREMENT 1.
	jsBase           = 100 * time.Millisecond
	jsThrottlingBase = 500 * time.Millisecond
	jsThrottlingCost = 5
	jsTransientCost  = 10
	// awsMaxDoubling bounds the uncapped delays of the legacy presets (about 146 years), so that a
	// large maxAttempts cannot overflow a time.Duration.
	awsMaxDoubling = time.Duration(1) << 62
)

// AWSOptions are the aws-standard and aws-adaptive policies' options.
type AWSOptions struct {
	// Behavior selects the standard mode's rules: "2026" (the default from November 2026) or
	// "legacy" (before it).
	Behavior string `yaml:"behavior"`
	// MaxAttempts is max_attempts, the first attempt included; ≥ 0, where 0 means the SDK's
	// default (the default: 3 in the standard mode, 4 for DynamoDB in 2026; 5 under
	// botocore-legacy, 10 for DynamoDB; 11 under cpp-default), and 1 means no retries.
	MaxAttempts int `yaml:"maxAttempts"`
	// RetryQuota is the client's retry quota in tokens: its capacity and starting balance
	// (default 500); ≥ 0, and 0 means no retries. botocore-legacy and cpp-default have no quota:
	// leave it at 500; java-v2-legacy's token bucket and js-v3's quota take it.
	RetryQuota int `yaml:"retryQuota"`
	// Preset is "" (the standard or adaptive mode, by Behavior) or an SDK's default retry
	// behaviour that is not botocore's standard mode: "botocore-legacy", "cpp-default",
	// "java-v2-legacy" or "js-v3". aws-standard only; a preset fixes the rules, so Behavior keeps
	// its default, and so does RetryQuota under the presets without a quota.
	Preset string `yaml:"preset"`
	// Service is "" or "dynamodb": the SDK's service defaults for DynamoDB, which exist in the
	// 2026 behaviour and under botocore-legacy and java-v2-legacy.
	Service string `yaml:"service"`
	// AdaptiveWait is how an attempt held back by the adaptive mode's send token bucket waits:
	// "reserve" (the default; AWSWaitReserve) or "recheck" (botocore's re-checking wait;
	// AWSWaitRecheck). aws-adaptive only; docs/policies.md §3.8, "Blocking".
	AdaptiveWait string `yaml:"adaptiveWait"`
}

// SetDefaults sets the SDKs' defaults: the 2026 behaviour, its default attempts, a quota of 500,
// no preset, no service, reserved waits.
func (a *AWSOptions) SetDefaults() {
	*a = AWSOptions{Behavior: awsDefaultBehavior, RetryQuota: awsDefaultQuota, AdaptiveWait: AWSWaitReserve}
}

// validate checks the block's own rules, then those that depend on the policy it is given to:
// a preset is not the adaptive mode, and only the adaptive mode waits for send tokens.
func (a *AWSOptions) validate(policy string, bad func(name, value, rule string)) {
	if a.Behavior != AWSBehavior2026 && a.Behavior != AWSBehaviorLegacy {
		bad("behavior", strconv.Quote(a.Behavior), `must be "2026" or "legacy"`)
	}
	if a.MaxAttempts < 0 {
		bad("maxAttempts", strconv.Itoa(a.MaxAttempts), "must be ≥ 0, the first attempt included (0 = the SDK's default, 1 = no retries)")
	}
	if a.RetryQuota < 0 {
		bad("retryQuota", strconv.Itoa(a.RetryQuota), "must be ≥ 0 (0 = no retries)")
	}
	switch a.Preset {
	case "", AWSPresetBotocoreLegacy, AWSPresetCPPDefault, AWSPresetJavaV2Legacy, AWSPresetJSV3:
	default:
		bad("preset", strconv.Quote(a.Preset), `must be "", "botocore-legacy", "cpp-default", "java-v2-legacy" or "js-v3"`)
	}
	if a.Preset != "" && a.Behavior != awsDefaultBehavior {
		bad("behavior", strconv.Quote(a.Behavior), "a standard-mode rule: preset "+a.Preset+" fixes the rules; leave it at "+awsDefaultBehavior)
	}
	if a.Preset != "" && a.Preset != AWSPresetJavaV2Legacy && a.Preset != AWSPresetJSV3 && a.RetryQuota != awsDefaultQuota {
		bad("retryQuota", strconv.Itoa(a.RetryQuota), "preset "+a.Preset+" has no retry quota; leave it at "+strconv.Itoa(awsDefaultQuota))
	}
	switch {
	case a.Service != "" && a.Service != AWSServiceDynamoDB:
		bad("service", strconv.Quote(a.Service), `must be "" or "dynamodb"`)
	case a.Service == "":
	case a.Preset == AWSPresetCPPDefault:
		bad("service", strconv.Quote(a.Service), "aws-sdk-cpp's DefaultRetryStrategy has no service defaults")
	case a.Preset == AWSPresetJSV3:
		bad("service", strconv.Quote(a.Service), "aws-sdk-js-v3's StandardRetryStrategy has no service defaults")
	case a.Preset == "" && a.Behavior == AWSBehaviorLegacy:
		bad("service", strconv.Quote(a.Service), "the standard mode before 2026 has no service defaults")
	}
	if a.AdaptiveWait != AWSWaitReserve && a.AdaptiveWait != AWSWaitRecheck {
		bad("adaptiveWait", strconv.Quote(a.AdaptiveWait), `must be "reserve" or "recheck"`)
	}
	if a.Preset != "" && policy != NameAWSStandard {
		bad("preset", strconv.Quote(a.Preset), "applies only to "+NameAWSStandard+": a preset is not the adaptive mode")
	}
	if a.AdaptiveWait == AWSWaitRecheck && policy != NameAWSAdaptive {
		bad("adaptiveWait", strconv.Quote(a.AdaptiveWait), "applies only to "+NameAWSAdaptive+": the standard mode has no send token bucket; leave it at "+AWSWaitReserve)
	}
}

// attempts is the effective max_attempts: MaxAttempts, or the SDK's default when it is 0.
func (a *AWSOptions) attempts() int {
	switch {
	case a.MaxAttempts > 0:
		return a.MaxAttempts
	case a.Preset == AWSPresetCPPDefault:
		return cppDefaultAttempts
	case a.Preset == AWSPresetBotocoreLegacy && a.Service == AWSServiceDynamoDB:
		return legacyDynamoDBAttempts
	case a.Preset == AWSPresetBotocoreLegacy:
		return legacyAttempts
	case a.Preset == AWSPresetJavaV2Legacy && a.Service == AWSServiceDynamoDB:
		return javaLegacyDynamoDBAttempts
	case a.Preset == AWSPresetJavaV2Legacy:
		return javaLegacyAttempts
	case a.Service == AWSServiceDynamoDB:
		return awsDynamoDBMaxAttempts
	}
	return awsDefaultMaxAttempts
}

// awsStandard is an AWS SDK client's standard retry mode: the retry conditions, the backoff
// and the client-wide retry quota. Per operation it keeps, in State: attempt (failed attempts
// so far: botocore's 1-based attempt_number of the failed attempt), retries, allowed
// (max_attempts − 1) and the latest error, whose cost is the one the last retry acquired.
type awsStandard struct {
	name     string
	legacy   bool
	preset   string // "" or a preset (awsQuotaless says which have no quota)
	attempts int
	capacity int
	quota    int // available capacity
	// transient is the 2026 backoff base of non-throttling errors (java-v2-legacy's too); fixed, botocore-legacy's
	// fixed (unjittered) base, 0 for the random one.
	transient, fixed time.Duration
}

func newAWSStandardPolicy(name string, o Options) awsStandard {
	a := own[AWSOptions](o)
	p := awsStandard{name: name, legacy: a.Behavior == AWSBehaviorLegacy, preset: a.Preset, attempts: a.attempts(),
		capacity: a.RetryQuota, quota: a.RetryQuota, transient: awsTransientBase}
	if a.Service == AWSServiceDynamoDB {
		p.transient = awsDynamoDBTransientBase
		if a.Preset == AWSPresetBotocoreLegacy {
			p.fixed = legacyDynamoDBBase
		}
	}
	if a.Preset == AWSPresetJavaV2Legacy {
		p.transient = javaLegacyBase
		if a.Service == AWSServiceDynamoDB {
			p.transient = javaLegacyDynamoDBBase
		}
	}
	return p
}

func newAWSStandard(o Options) Policy {
	p := newAWSStandardPolicy(NameAWSStandard, o)
	return &p
}

func (p *awsStandard) Name() string { return p.name }

// Begin starts an operation. A deadline other than sim.Never (the operation's timeout) is
// honoured: no retry starts after it.
func (p *awsStandard) Begin(st *State, c Class, _, deadline sim.Time) {
	st.begin(c, deadline, true)
	st.allowed = p.attempts - 1
}

// Succeeded releases quota (botocore quota.py via RetryQuotaChecker.release_retry_quota): 1
// token when the operation was never retried, else what its last retry acquired; never above
// the capacity. js-v3 releases the same (StandardRetryStrategy.recordSuccess); java-v2-legacy
// releases what the last retry acquired but at least 1 (BaseRetryStrategy's
// releaseTokenBucketCapacity), so a retry after a throttling error, which cost 0, gives back 1.
func (p *awsStandard) Succeeded(st *State, _ sim.Time) {
	if awsQuotaless(p.preset) {
		return // no quota
	}
	n := awsNoRetryIncrement
	if st.retries > 0 {
		n = p.cost(st.kept)
	}
	if p.preset == AWSPresetJavaV2Legacy {
		n = max(n, awsNoRetryIncrement)
	}
	p.quota = min(p.quota+n, p.capacity)
}

// awsRetryable reports whether f is retryable in the standard mode, and whether it is a
// throttling error: throttling errors (KindOverload), and transient ones: network errors and
// timeouts, failures before the request was sent, and error replies whose code is transient
// (wire.Code.IsRetryableRead, the analogue of 500/502/503/504 and RequestTimeout).
func awsRetryable(f Failure) (retryable, throttling bool) {
	switch Kind(f) {
	case KindOverload:
		return true, true
	case KindNetwork, KindDispatch:
		return true, false
	case KindServer:
		return f.Code.IsRetryableRead(), false
	}
	return false, false // KindThrottled: no AWS SDK throttles its own retries this way
}

// cost is what a retry after f acquires from the quota: nothing under a preset (no quota);
// legacy 5 (botocore charges 10 only for a ConnectTimeoutError or ReadTimeoutError, and no
// failure the simulator retries is one: a network error is a connection closed in flight, an
// attempt that runs out of time ends its operation, and a failed connection establishment does
// not say whether it timed out or was refused — docs/policies.md §3.3); 2026 14, or 5 after a
// throttling error.
func (p *awsStandard) cost(f Failure) int {
	k := Kind(f)
	switch {
	case p.preset == AWSPresetJavaV2Legacy && k == KindOverload:
		return javaLegacyThrottlingCost
	case p.preset == AWSPresetJavaV2Legacy:
		return javaLegacyCost
	case p.preset == AWSPresetJSV3 && k == KindOverload:
		return jsThrottlingCost
	case p.preset == AWSPresetJSV3:
		return jsTransientCost
	case p.preset != "":
		return 0 // a preset has no quota
	case p.legacy:
		return awsLegacyCost
	case k == KindOverload:
		return awsThrottlingCost2026
	}
	return awsCost2026
}

// Failed runs botocore's RetryHandler.needs_retry: a retryable error (NotRetryable otherwise)
// on an attempt below max_attempts (MaxRetries otherwise) is retried if the quota has the
// retry's cost (Budget otherwise: the error is returned at once), after the backoff. The quota
// is charged last, so that a retry the deadline refuses costs nothing.
func (p *awsStandard) Failed(st *State, f Failure, now sim.Time, j Jitter) Decision {
	st.kept, st.hasKept = f, true // the application gets the latest error
	retryable, throttling := awsRetryable(f)
	if !retryable {
		return st.stop(NotRetryable)
	}
	st.attempt++
	cost := p.cost(f)
	switch {
	case st.attempt > st.allowed:
		return st.stop(MaxRetries)
	case cost > p.quota:
		return st.stop(Budget)
	case st.expired(now):
		return st.stop(Deadline)
	}
	d := Decision{Backoff: p.delay(st.attempt, throttling, f, j)}
	if st.pastDeadline(now, d.Backoff) {
		return st.stop(Deadline)
	}
	p.quota -= cost
	return st.grant(d)
}

// delay is ExponentialBackoff.delay_amount for the retry after the attempt-th attempt failed
// (attempt is 1-based): t = j × min(base × 2^(attempt−1), 20 s), base 1 s in legacy, 1 s for a
// throttling error and 50 ms otherwise in 2026. In 2026 a pushback of N ≥ 0 ms
// (x-amz-retry-after) makes it max(t, min(N ms, t + 5 s)); a negative one, like botocore's
// parse of a negative header, changes nothing, and legacy ignores the header.
func (p *awsStandard) delay(attempt int, throttling bool, f Failure, j Jitter) time.Duration {
	switch {
	case p.preset == AWSPresetCPPDefault:
		return cppDelay(attempt - 1)
	case p.preset == AWSPresetBotocoreLegacy && p.fixed > 0:
		return awsDoubling(p.fixed, attempt-1)
	case p.preset == AWSPresetBotocoreLegacy:
		return time.Duration(awsJitter(j) * float64(awsDoubling(time.Second, attempt-1)))
	case p.preset == AWSPresetJavaV2Legacy:
		return javaLegacyDelay(p.transient, attempt, throttling, j)
	case p.preset == AWSPresetJSV3:
		return jsDelay(attempt, throttling, f, j)
	}
	base := awsLegacyBase
	if !p.legacy && !throttling {
		base = p.transient
	}
	t := time.Duration(awsJitter(j) * float64(awsCeiling(base, attempt-1)))
	if !p.legacy && f.Pushback && f.PushbackMS >= 0 {
		ra := time.Duration(min(f.PushbackMS, math.MaxInt64/int64(time.Millisecond))) * time.Millisecond
		return max(t, min(ra, t+awsRetryAfterMaxExtra))
	}
	return t
}

// awsCeiling is min(base × 2^exp, 20 s).
func awsCeiling(base time.Duration, exp int) time.Duration {
	c := base
	for i := 0; i < exp && c < awsMaxBackoff; i++ {
		c *= 2
	}
	return min(c, awsMaxBackoff)
}

// awsDoubling is base × 2^exp with no cap but awsMaxDoubling: botocore's legacy delay_exponential
// (base × growth_factor^(attempts−1)).
func awsDoubling(base time.Duration, exp int) time.Duration {
	d := base
	for i := 0; i < exp && d < awsMaxDoubling; i++ {
		d *= 2
	}
	return min(d, awsMaxDoubling)
}

// cppDelay is DefaultRetryStrategy::CalculateDelayBeforeNextRetry for the retry after the
// retries-th retry (AWSClient counts retries from 0): 0 first, then 2^retries × 25 ms.
func cppDelay(retries int) time.Duration {
	if retries == 0 {
		return 0
	}
	return awsDoubling(cppScaleFactor, retries)
}

// javaLegacyDelay is aws-sdk-java-v2's legacy backoff for the retry after the attempt-th attempt
// failed (the token's attempt is then attempt+1): with c = min(base × 2^(attempt−1), 20 s) in
// whole milliseconds (BackoffStrategiesConstants.calculateExponentialDelay), full jitter
// nextInt(c), an integer in [0, c) ms, with base 100 ms (25 ms for DynamoDB)
// (ExponentialDelayWithJitter), and for a throttling error equal jitter c/2 + nextInt(c/2 + 1),
// in [c/2, c], from 500 ms (ExponentialDelayWithHalfJitter). A jitter j draws ⌊j × n⌋ of
// nextInt(n), n − 1 at j = 1. The SDK's suggested delay is not modelled (docs/policies.md §3.8).
func javaLegacyDelay(transient time.Duration, attempt int, throttling bool, j Jitter) time.Duration {
	if throttling {
		half := awsCeiling(javaLegacyThrottledBase, attempt-1).Milliseconds() / 2
		return time.Duration(half+javaNextInt(half+1, j)) * time.Millisecond
	}
	return time.Duration(javaNextInt(awsCeiling(transient, attempt-1).Milliseconds(), j)) * time.Millisecond
}

// javaNextInt is Random.nextInt(n) for a jitter j: ⌊j × n⌋, at most n − 1.
func javaNextInt(n int64, j Jitter) int64 {
	return min(int64(math.Floor(awsJitter(j)*float64(n))), n-1)
}

// jsDelay is aws-sdk-js-v3's StandardRetryStrategy delay for the retry after the attempt-th
// attempt failed (retry count attempt−1): ⌊j × min(base × 2^(attempt−1), 20 s)⌋ in whole
// milliseconds (DefaultRetryBackoffStrategy.computeNextBackoffDelay), base 100 ms or 500 ms for
// a throttling error; a retry-after hint of N ≥ 0 ms (x-amz-retry-after) makes it
// max(t, min(N ms, t + 5 s)), and a negative one changes nothing, as in the 2026 mode.
func jsDelay(attempt int, throttling bool, f Failure, j Jitter) time.Duration {
	base := jsBase
	if throttling {
		base = jsThrottlingBase
	}
	ms := math.Floor(awsJitter(j) * float64(awsCeiling(base, attempt-1).Milliseconds()))
	t := time.Duration(ms) * time.Millisecond
	if f.Pushback && f.PushbackMS >= 0 {
		ra := time.Duration(min(f.PushbackMS, math.MaxInt64/int64(time.Millisecond))) * time.Millisecond
		return max(t, min(ra, t+awsRetryAfterMaxExtra))
	}
	return t
}

// awsQuotaless reports whether preset has no retry quota: botocore-legacy and cpp-default.
func awsQuotaless(preset string) bool {
	return preset == AWSPresetBotocoreLegacy || preset == AWSPresetCPPDefault
}

// awsJitter draws one jitter value, which must be in [0, 1].
func awsJitter(j Jitter) float64 {
	x := j.Float64()
	if !(x >= 0 && x <= 1) {
		panic(fmt.Sprintf(panicJitter, x))
	}
	return x
}

// failureClass names f's error category and retry cost for transcripts.
func (p *awsStandard) failureClass(f Failure) string {
	switch retryable, throttling := awsRetryable(f); {
	case !retryable:
		return "not retryable"
	case awsQuotaless(p.preset) && throttling:
		return "throttling error"
	case awsQuotaless(p.preset):
		return "transient error"
	case throttling:
		return "throttling error, retry cost " + strconv.Itoa(p.cost(f))
	}
	return "transient error, retry cost " + strconv.Itoa(p.cost(f))
}

// clientState describes the quota for transcripts.
func (p *awsStandard) clientState() string {
	if awsQuotaless(p.preset) {
		return "no quota"
	}
	return "quota=" + strconv.Itoa(p.quota) + "/" + strconv.Itoa(p.capacity)
}

// awsAdaptive is the adaptive mode: the standard mode plus botocore's ClientRateLimiter, a
// Gate that holds each attempt back until the client-side send token bucket has a token, once
// a throttling response has enabled it. With recheck set (adaptiveWait: recheck) an attempt's
// wait reserves nothing and is a Notifier's: Admit is asked again when it ends, and every
// response, which sets the bucket's rate, calls wake (botocore's notify).
type awsAdaptive struct {
	awsStandard
	lim     awsLimiter
	recheck bool
	wake    func() // the driver's, from Notify; nil until then
}

func newAWSAdaptive(o Options) Policy {
	return &awsAdaptive{awsStandard: newAWSStandardPolicy(NameAWSAdaptive, o), lim: newAWSLimiter(),
		recheck: own[AWSOptions](o).AdaptiveWait == AWSWaitRecheck}
}

// Notify implements Notifier: with recheck, waits are re-checked and wake is called on every
// response; with reserve, Delays are final.
func (p *awsAdaptive) Notify(wake func()) bool {
	if !p.recheck {
		return false
	}
	p.wake = wake
	return true
}

// response feeds a response to the rate limiter. Setting the bucket's rate notifies its
// condition (bucket.py, the max_rate setter's notify(), which runs on every response): with
// recheck, the attempt that has waited longest wakes and looks at the bucket again.
func (p *awsAdaptive) response(now sim.Time, throttling bool) {
	p.lim.response(now, throttling)
	if p.recheck && p.wake != nil {
		p.wake()
	}
}

// Succeeded feeds the response to the rate limiter, then releases quota as the standard mode.
func (p *awsAdaptive) Succeeded(st *State, now sim.Time) {
	p.response(now, false)
	p.awsStandard.Succeeded(st, now)
}

// Failed feeds the response to the rate limiter (a throttling error lowers the rate), then
// decides as the standard mode. A failure before the request was sent (KindDispatch, and
// KindThrottled, which this policy never causes) is no response and does not reach the limiter;
// network errors do, as botocore's needs-retry event fires for them too.
func (p *awsAdaptive) Failed(st *State, f Failure, now sim.Time, j Jitter) Decision {
	if k := Kind(f); k != KindDispatch && k != KindThrottled {
		p.response(now, k == KindOverload)
	}
	return p.awsStandard.Failed(st, f, now, j)
}

// Admit holds the attempt back until a send token is available, once the limiter is enabled
// (ClientRateLimiter.on_sending_request). It never rejects. With reserve the token is taken
// now and the Delay is the whole wait; with recheck a token is taken only if one is there, and
// the Delay is one wait on the condition, after which the driver asks again.
func (p *awsAdaptive) Admit(_ *State, now sim.Time, _ Jitter) Admission {
	if p.recheck {
		return Admission{Delay: p.lim.take(now)}
	}
	return Admission{Delay: p.lim.acquire(now)}
}

// Withdraw returns the token an attempt reserved in Admit when its operation ends before the
// attempt's turn (the application's deadline): the reservation leaves the queue, as a
// cancelled call's would. botocore's acquire blocks a thread that cannot be cancelled, so a
// Python client would send the attempt late instead; an SDK whose waits can be cancelled
// behaves as modelled here (docs/policies.md, "Where the model departs").
// With recheck nothing was reserved and nothing is returned.
func (p *awsAdaptive) Withdraw(_ *State, _ sim.Time) {
	if p.lim.enabled && !p.recheck {
		p.lim.tokens++
	}
}

// clientState describes the quota and the limiter for transcripts.
func (p *awsAdaptive) clientState() string {
	return p.awsStandard.clientState() + " " + p.lim.String()
}

// awsLimiter is botocore's ClientRateLimiter with its TokenBucket, RateClocker and
// CubicCalculator, on virtual time in seconds; the client starts at time 0.
type awsLimiter struct {
	enabled bool
	// The send token bucket (bucket.py): fill rate max(rate, 0.5) per second, capacity
	// max(rate, 1), starting empty. Acquisition is a FIFO reservation: tokens may go negative,
	// and an attempt waits until its reservation is paid.
	fill, capacity, tokens, last float64
	// The rate clocker (adaptive.py): responses counted in 0.5 s buckets, the rate smoothed.
	measured, lastBucket, count float64
	// The CUBIC calculator (throttling.py): W_max, K and the time of the last throttle.
	wMax, k, lastFail float64
}

// newAWSLimiter is register_retry_handler's set-up at time 0: TokenBucket(max_rate=1),
// CubicCalculator(starting_max_rate=0, start_time=0), RateClocker with its last bucket at 0.
func newAWSLimiter() awsLimiter {
	var l awsLimiter
	l.setRate(1, 0)
	l.k = l.cubicK()
	return l
}

// setRate is TokenBucket's max_rate setter: refill at the old rate, then fill rate max(v,
// 0.5), capacity max(v, 1), and no more tokens than the capacity.
func (l *awsLimiter) setRate(v, t float64) {
	l.refill(t)
	l.fill = max(v, awsMinFillRate)
	l.capacity = max(v, 1)
	l.tokens = min(l.tokens, l.capacity)
}

// refill adds the tokens earned since the last refill, up to the capacity. (Here and below,
// explicit conversions keep products unfused, so that every platform rounds alike.)
func (l *awsLimiter) refill(t float64) {
	if t > l.last {
		l.tokens = min(l.capacity, l.tokens+float64((t-l.last)*l.fill))
		l.last = t
	}
}

// acquire takes one token at now when the limiter is enabled and returns how long the attempt
// waits for it: the deficit over the fill rate.
func (l *awsLimiter) acquire(now sim.Time) time.Duration {
	if !l.enabled {
		return 0
	}
	l.refill(now.Seconds())
	l.tokens--
	if l.tokens >= 0 {
		return 0
	}
	return time.Duration(math.Ceil(-l.tokens / l.fill * float64(time.Second)))
}

// take is one look of bucket.py's blocking TokenBucket._acquire, for recheck: when the limiter
// is enabled and a whole token is in the bucket, take it; otherwise take nothing and return
// _sleep_amount, the time until there is one at the current fill rate, after which the caller
// looks again (sooner if the rate changes: Notify).
func (l *awsLimiter) take(now sim.Time) time.Duration {
	if !l.enabled {
		return 0
	}
	l.refill(now.Seconds())
	if l.tokens >= 1 {
		l.tokens--
		return 0
	}
	return time.Duration(math.Ceil((1 - l.tokens) / l.fill * float64(time.Second)))
}

// record is RateClocker.record: count the response; when it falls in a later 0.5 s bucket than
// the last update, the rate is the count over the buckets' distance, smoothed 0.8 new, 0.2 old.
func (l *awsLimiter) record(t float64) float64 {
	bucket := float64(math.Floor(t*awsClockerBucketsPerSec) / awsClockerBucketsPerSec)
	l.count++
	if bucket > l.lastBucket {
		rate := l.count / (bucket - l.lastBucket)
		l.measured = float64(rate*awsClockerSmoothing) + float64(l.measured*(1-awsClockerSmoothing))
		l.count, l.lastBucket = 0, bucket
	}
	return l.measured
}

// cubicK is K = cbrt(W_max (1 − β) / C): the time after a throttle at which the rate is back
// at W_max.
func (l *awsLimiter) cubicK() float64 { return math.Cbrt(l.wMax * (1 - awsCubicBeta) / awsCubicC) }

// cubicSuccess is CubicCalculator.success_received: C (t − last_fail − K)^3 + W_max.
func (l *awsLimiter) cubicSuccess(t float64) float64 {
	x := t - l.lastFail - l.k
	return float64(awsCubicC*x*x*x) + l.wMax
}

// cubicThrottle is CubicCalculator.error_received: W_max = rate, K recomputed, last_fail = t;
// the new rate is β × rate.
func (l *awsLimiter) cubicThrottle(rate, t float64) float64 {
	l.wMax, l.lastFail = rate, t
	l.k = l.cubicK()
	return float64(rate * awsCubicBeta)
}

// response is ClientRateLimiter.on_receiving_response: measure the send rate; on a throttling
// response take W_max from the measured rate (before the limiter is enabled) or the smaller of
// it and the bucket's fill rate, compute β × it and enable the limiter; on any other response
// take the CUBIC rate at now; the bucket's new rate is the result, at most twice the measured
// rate.
func (l *awsLimiter) response(now sim.Time, throttling bool) {
	t := now.Seconds()
	measured := l.record(t)
	var rate float64
	if !throttling {
		rate = l.cubicSuccess(t)
	} else {
		use := measured
		if l.enabled {
			use = min(measured, l.fill)
		}
		rate = l.cubicThrottle(use, t)
		l.enabled = true
	}
	l.setRate(min(rate, awsMaxRateAdjustScale*measured), t)
}

// String describes the limiter for transcripts.
func (l *awsLimiter) String() string {
	g := func(v float64) string {
		if math.Abs(v) < 1e-9 {
			v = 0 // a reservation repaid to the nanosecond, give or take rounding
		}
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
	s := "limiter="
	if l.enabled {
		s += "on"
	} else {
		s += "off"
	}
	return s + " fill=" + g(l.fill) + "/s capacity=" + g(l.capacity) + " tokens=" + g(l.tokens) +
		" measured=" + g(l.measured) + "/s wMax=" + g(l.wMax) + " K=" + g(l.k) + " lastFail=" + g(l.lastFail) + "s"
}
