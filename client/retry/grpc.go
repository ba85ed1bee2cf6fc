package retry

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/overloadsim/overloadsim/sim"
)

// The grpc policy is a gRPC channel's retry support as proposal A6 specifies it
// (grpc/proposal:A6-client-retries.md): a method's retryPolicy or hedgingPolicy and the
// channel's retryThrottling. The package documentation and docs/policies.md map the
// simulator's failures to gRPC status codes and list every rule; the comments below cite A6's
// sections and the implementations whose reading of them the policy follows (grpc/grpc-go
// stream.go and clientconn.go, grpc/grpc src/core/client_channel/retry_throttle.cc).

// GRPCOptions are the grpc policy's options: a gRPC method config's retryPolicy or
// hedgingPolicy and the channel's retryThrottling (gRPC proposal A6), with A6's names. The
// zero value is not the defaults: start from SetDefaults.
type GRPCOptions struct {
	// MaxAttempts is retryPolicy.maxAttempts, the first attempt included: ≥ 2, and a value
	// above 5 is treated as 5 (A6 "Limits on Retries and Hedges": clients clamp it).
	MaxAttempts int `yaml:"maxAttempts"`
	// InitialBackoff is retryPolicy.initialBackoff, > 0: the base of the first retry's delay.
	// The delay before retry n is min(InitialBackoff × BackoffMultiplier^(n−1), MaxBackoff)
	// × U(0.8, 1.2) (A6 "Exponential Backoff" as revised 2024-08-23), or, with BackoffJitter
	// GRPCJitterGRPCGo168, U[0, that ceiling].
	InitialBackoff time.Duration `yaml:"initialBackoff"`
	// MaxBackoff is retryPolicy.maxBackoff, > 0: no delay's base exceeds it (the jitter may
	// take a delay up to 1.2 × MaxBackoff, as A6 notes).
	MaxBackoff time.Duration `yaml:"maxBackoff"`
	// BackoffMultiplier is retryPolicy.backoffMultiplier: each retry's ceiling is the previous
	// one's times this, a finite number > 0.
	BackoffMultiplier float64 `yaml:"backoffMultiplier"`
	// RetryableStatusCodes are retryPolicy.retryableStatusCodes: the status codes retried, as
	// gRPC names them (UNAVAILABLE, RESOURCE_EXHAUSTED, ...); at least one, never OK.
	RetryableStatusCodes []string `yaml:"retryableStatusCodes"`
	// RetryThrottling, when given, throttles retries and hedges per client (A6 "Throttling
	// Retry Attempts and Hedged RPCs"); nil means no throttling. A client is one channel, and
	// the count is the channel's, as grpc-go (per ClientConn), grpc-java and gRPC core (since
	// grpc/grpc#39659, May 2025; a per-server-name count shared by a process's channels
	// before) keep it: docs/policies.md §2.8.
	RetryThrottling *GRPCThrottling `yaml:"retryThrottling"`
	// HedgingPolicy, when given, replaces the retry policy: copies are sent every
	// HedgingDelay (A6: a method config has one or the other, so the retry policy's fields
	// must then keep their defaults).
	HedgingPolicy *GRPCHedging `yaml:"hedgingPolicy"`
	// BackoffJitter names the release whose rule draws a retry's delay from its base:
	// GRPCJitterGRPCGo169 (the default) or GRPCJitterGRPCGo168. Not an A6 field: it picks the
	// client's version.
	BackoffJitter string `yaml:"backoffJitter"`
}

// The values of GRPCOptions.BackoffJitter.
const (
	// GRPCJitterGRPCGo169 is the rule of A6 as revised on 2024-08-23: the base × U(0.8, 1.2).
	// grpc-go implements it since v1.69.0 (stream.go, shouldRetry; grpc/grpc-go#7869).
	GRPCJitterGRPCGo169 = "grpc-go-1.69"
	// GRPCJitterGRPCGo168 is A6's rule of 2017, full jitter: U[0, base]. grpc-go up to v1.68.x
	// draws it (rand.Int63n of the base, in nanoseconds).
	GRPCJitterGRPCGo168 = "grpc-go-1.68"
)

// GRPCThrottling is A6's retryThrottling. A given block starts from SetDefaults.
type GRPCThrottling struct {
	// MaxTokens is the token count's ceiling and start: in (0, 1000] (grpc-go's range), with at
	// most 3 decimals (counts are kept in thousandths of a token, as gRPC core keeps them).
	MaxTokens float64 `yaml:"maxTokens"`
	// TokenRatio is what a success adds: > 0, with at most 3 decimals (A6).
	TokenRatio float64 `yaml:"tokenRatio"`
}

// SetDefaults sets A6's example: maxTokens 10, tokenRatio 0.1.
func (g *GRPCThrottling) SetDefaults() { *g = GRPCThrottling{MaxTokens: 10, TokenRatio: 0.1} }

// GRPCHedging is A6's hedgingPolicy. A given block starts from SetDefaults.
type GRPCHedging struct {
	// MaxAttempts is the most copies sent, the first included: ≥ 2, clamped to 5.
	MaxAttempts int `yaml:"maxAttempts"`
	// HedgingDelay is the wait before each further copy, ≥ 0; 0 sends every copy at once.
	HedgingDelay time.Duration `yaml:"hedgingDelay"`
	// NonFatalStatusCodes are the codes after which the next copy goes at once; any other
	// failure cancels the outstanding copies and fails the call. At least one, never OK.
	NonFatalStatusCodes []string `yaml:"nonFatalStatusCodes"`
}

// SetDefaults sets A6's example hedging policy: 4 copies 0.5 s apart, UNAVAILABLE, INTERNAL
// and ABORTED non-fatal.
func (g *GRPCHedging) SetDefaults() {
	*g = GRPCHedging{MaxAttempts: 4, HedgingDelay: 500 * time.Millisecond,
		NonFatalStatusCodes: []string{"UNAVAILABLE", "INTERNAL", "ABORTED"}}
}

// SetDefaults sets the options a scenario's grpc block starts from: A6's example retry policy
// (maxAttempts 4, initialBackoff 0.1 s, maxBackoff 1 s, backoffMultiplier 2) retrying
// UNAVAILABLE and RESOURCE_EXHAUSTED, without throttling or hedging, with the current jitter
// rule (grpc-go-1.69).
func (g *GRPCOptions) SetDefaults() {
	*g = GRPCOptions{MaxAttempts: 4, InitialBackoff: 100 * time.Millisecond, MaxBackoff: time.Second,
		BackoffMultiplier: 2, RetryableStatusCodes: []string{"UNAVAILABLE", "RESOURCE_EXHAUSTED"},
		BackoffJitter: GRPCJitterGRPCGo169}
}

// grpcMaxAttemptsLimit is the client-side cap on maxAttempts of both policies (A6 "Limits on
// Retries and Hedges": "by default, a client-side maximum value of 5").
const grpcMaxAttemptsLimit = 5

// grpcMaxTokensLimit is the largest maxTokens grpc-go accepts (service_config.go: "out of range
// (0, 1000]").
const grpcMaxTokensLimit = 1000

func (g *GRPCOptions) validate(_ string, bad func(name, value, rule string)) {
	if g.HedgingPolicy == nil {
		if g.MaxAttempts < 2 {
			bad("maxAttempts", strconv.Itoa(g.MaxAttempts), "must be ≥ 2, the first attempt included (A6); values above 5 are treated as 5")
		}
		if g.InitialBackoff <= 0 {
			bad("initialBackoff", g.InitialBackoff.String(), "must be > 0 (A6)")
		}
		if g.MaxBackoff <= 0 {
			bad("maxBackoff", g.MaxBackoff.String(), "must be > 0 (A6)")
		}
		if m := g.BackoffMultiplier; !(m > 0) || math.IsInf(m, 1) {
			bad("backoffMultiplier", formatFloat(m), "must be a finite number > 0 (A6)")
		}
		grpcValidateCodes("retryableStatusCodes", g.RetryableStatusCodes, bad)
		if j := g.BackoffJitter; j != GRPCJitterGRPCGo169 && j != GRPCJitterGRPCGo168 {
			bad("backoffJitter", strconv.Quote(j), "must be "+GRPCJitterGRPCGo169+" (A6 as revised 2024-08-23: base × U(0.8, 1.2)) or "+
				GRPCJitterGRPCGo168+" (A6 of 2017: U[0, base])")
		}
	} else {
		// A6: "Only one of retryPolicy or hedgingPolicy may be set." The retry policy's fields
		// start from their defaults; with a hedging policy they must stay there.
		var d GRPCOptions
		d.SetDefaults()
		const rule = "a retryPolicy field, which hedgingPolicy replaces (A6: a method has one or the other); leave it at its default "
		if g.MaxAttempts != d.MaxAttempts {
			bad("maxAttempts", strconv.Itoa(g.MaxAttempts), rule+strconv.Itoa(d.MaxAttempts)+" and set hedgingPolicy.maxAttempts")
		}
		if g.InitialBackoff != d.InitialBackoff {
			bad("initialBackoff", g.InitialBackoff.String(), rule+d.InitialBackoff.String())
		}
		if g.MaxBackoff != d.MaxBackoff {
			bad("maxBackoff", g.MaxBackoff.String(), rule+d.MaxBackoff.String())
		}
		if g.BackoffMultiplier != d.BackoffMultiplier {
			bad("backoffMultiplier", formatFloat(g.BackoffMultiplier), rule+formatFloat(d.BackoffMultiplier))
		}
		if g.BackoffJitter != d.BackoffJitter {
			bad("backoffJitter", strconv.Quote(g.BackoffJitter), rule+d.BackoffJitter)
		}
		if !slices.Equal(g.RetryableStatusCodes, d.RetryableStatusCodes) {
			bad("retryableStatusCodes", strings.Join(g.RetryableStatusCodes, ","), rule+strings.Join(d.RetryableStatusCodes, ",")+
				" and set hedgingPolicy.nonFatalStatusCodes")
		}
		h := g.HedgingPolicy
		if h.MaxAttempts < 2 {
			bad("hedgingPolicy.maxAttempts", strconv.Itoa(h.MaxAttempts), "must be ≥ 2, the first copy included (A6); values above 5 are treated as 5")
		}
		if h.HedgingDelay < 0 {
			bad("hedgingPolicy.hedgingDelay", h.HedgingDelay.String(), "must be ≥ 0 (0 sends every copy at once)")
		}
		grpcValidateCodes("hedgingPolicy.nonFatalStatusCodes", h.NonFatalStatusCodes, bad)
	}
	if t := g.RetryThrottling; t != nil {
		if m := t.MaxTokens; !(m > 0 && m <= grpcMaxTokensLimit) {
			bad("retryThrottling.maxTokens", formatFloat(m), "must be in (0, 1000] (A6; grpc-go's range)")
		} else if !grpcMilliExact(m) {
			bad("retryThrottling.maxTokens", formatFloat(m), "at most 3 decimals (token counts are kept in thousandths)")
		}
		if r := t.TokenRatio; !(r > 0) || math.IsInf(r, 1) {
			bad("retryThrottling.tokenRatio", formatFloat(r), "must be a finite number > 0 (A6)")
		} else if !grpcMilliExact(r) {
			bad("retryThrottling.tokenRatio", formatFloat(r), "at most 3 decimals (A6: \"Up to 3 decimal places are supported\")")
		}
	}
}

// grpcValidateCodes checks a list of status code names: at least one, each a gRPC code, not OK.
func grpcValidateCodes(field string, names []string, bad func(name, value, rule string)) {
	if len(names) == 0 {
		bad(field, "[]", "must name at least one status code (A6: required and non-empty)")
	}
	for _, n := range names {
		switch c, ok := grpcParseCode(n); {
		case !ok:
			bad(field, strconv.Quote(n), "not a gRPC status code; known: "+strings.Join(grpcCodeNames[1:], ", "))
		case c == grpcOK:
			bad(field, strconv.Quote(n), "OK is a success, not a failure to retry")
		}
	}
}

// grpcMilliExact reports whether v is a whole number of thousandths.
func grpcMilliExact(v float64) bool {
	m := float64(v * 1000)
	return math.Abs(m-math.Round(m)) <= 1e-9*math.Max(1, m)
}

// grpcMilli returns v in thousandths, rounded.
func grpcMilli(v float64) int64 { return int64(math.Round(v * 1000)) }

// grpcCode is a gRPC status code, numbered as gRPC numbers them (grpc/grpc doc/statuscodes.md).
type grpcCode uint8

const (
	grpcOK                grpcCode = 0
	grpcResourceExhausted grpcCode = 8
	grpcInternal          grpcCode = 13
	grpcUnavailable       grpcCode = 14
	numGRPCCodes                   = 17
	// grpcNoCode is the status of a failure that has none: the client's own throttle.
	grpcNoCode grpcCode = numGRPCCodes
)

// grpcCodeNames are the 17 status codes' names, by number.
var grpcCodeNames = [numGRPCCodes]string{"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT",
	"DEADLINE_EXCEEDED", "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED",
	"FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE",
	"DATA_LOSS", "UNAUTHENTICATED"}

func (c grpcCode) String() string {
	if c < numGRPCCodes {
		return grpcCodeNames[c]
	}
	return "(no status)"
}

func grpcParseCode(name string) (grpcCode, bool) {
	for i, n := range grpcCodeNames {
		if n == name {
			return grpcCode(i), true
		}
	}
	return 0, false
}

// grpcCodeSet is a set of status codes, bit c for code c.
type grpcCodeSet uint32

func grpcCodesOf(names []string) grpcCodeSet {
	var s grpcCodeSet
	for _, n := range names {
		if c, ok := grpcParseCode(n); ok {
			s |= 1 << c
		}
	}
	return s
}

func (s grpcCodeSet) has(c grpcCode) bool { return c < numGRPCCodes && s&(1<<c) != 0 }

// grpcTransparent reports whether f is a request that was given a connection but never written
// to it: the pool was cleared, or the connection closed, before the command left the client
// (PoolClearedError). It is A6's second case, "load balancing succeeds but the RPC never leaves
// the client" — grpc-go's NewStream on a transport that is closing or draining, which sets
// AllowTransparentRetry, or a picked subchannel whose transport is no longer ready, picked again
// — and is retried transparently. A connection that could not be established (Network is set
// too) is A6's first case instead: the subchannel goes to TRANSIENT_FAILURE and the pick of a
// fail-fast RPC fails with UNAVAILABLE, which the retry policy handles like any other status.
func grpcTransparent(f Failure) bool { return f.PoolCleared && !f.Network }

// grpcCodeOf maps a failed attempt to the status the gRPC client would see:
//
//	overload reply (SystemOverloadedError, a rate limiter's 462)  RESOURCE_EXHAUSTED
//	network error (connection closed or timed out in flight)      UNAVAILABLE
//	dispatch failure (no connection, no node, breaker open)       UNAVAILABLE
//	another error reply whose code is transient                   UNAVAILABLE
//	  (wire.Code.IsRetryableRead: not primary, shutting down, ...)
//	any other error reply                                         INTERNAL
//
// A failure the client's own throttle caused (Failure.Throttled) has no status: gRPC has no
// such throttle, and it is never retried.
func grpcCodeOf(f Failure) grpcCode {
	switch Kind(f) {
	case KindOverload:
		return grpcResourceExhausted
	case KindNetwork, KindDispatch:
		return grpcUnavailable
	case KindThrottled:
		return grpcNoCode
	}
	if f.Code.IsRetryableRead() {
		return grpcUnavailable
	}
	return grpcInternal
}

// GRPCStatus returns the name of the gRPC status code the grpc policy maps f to (see the
// package documentation), or "" for a failure of the client's own throttle, which has none.
func GRPCStatus(f Failure) string {
	if c := grpcCodeOf(f); c < numGRPCCodes {
		return c.String()
	}
	return ""
}

// grpcPolicy is one gRPC client's retry or hedging policy with its throttle. Per operation it
// keeps, in State: attempt (failed attempts or copies so far), retries (retries granted, or the
// copies sent after the first), allowed (maxAttempts − 1) and, in retry mode, the ceiling of
// the next retry's backoff in last (A6's current backoff, which pushback resets; grpc-java
// keeps it the same way as nextBackoffIntervalNanos).
type grpcPolicy struct {
	maxAttempts int // clamped to grpcMaxAttemptsLimit
	codes       grpcCodeSet
	// retry mode
	initial, maxBackoff time.Duration
	multiplier          float64
	fullJitter          bool // GRPCJitterGRPCGo168: U[0, base] instead of base × U(0.8, 1.2)
	// hedging mode
	hedging    bool
	hedgeDelay time.Duration
	// throttling, in thousandths of a token (gRPC core's milli-tokens); max 0 = off
	maxMilli, ratioMilli, milli int64
}

func newGRPC(o Options) Policy {
	g := own[GRPCOptions](o)
	p := &grpcPolicy{maxAttempts: min(g.MaxAttempts, grpcMaxAttemptsLimit), codes: grpcCodesOf(g.RetryableStatusCodes),
		initial: g.InitialBackoff, maxBackoff: g.MaxBackoff, multiplier: g.BackoffMultiplier,
		fullJitter: g.BackoffJitter == GRPCJitterGRPCGo168}
	if h := g.HedgingPolicy; h != nil {
		p.hedging, p.hedgeDelay = true, h.HedgingDelay
		p.maxAttempts, p.codes = min(h.MaxAttempts, grpcMaxAttemptsLimit), grpcCodesOf(h.NonFatalStatusCodes)
	}
	if t := g.RetryThrottling; t != nil {
		p.maxMilli, p.ratioMilli = grpcMilli(t.MaxTokens), grpcMilli(t.TokenRatio)
		p.milli = p.maxMilli // token_count starts at maxTokens
	}
	return p
}

func (p *grpcPolicy) Name() string { return NameGRPC }

// Begin starts a call: deadline (the call's deadline, sim.Never without one) spans all its
// attempts (A6 "Maximum Number of Retries"), whatever Options.CSOT says.
func (p *grpcPolicy) Begin(st *State, c Class, _, deadline sim.Time) {
	st.begin(c, deadline, true)
	st.allowed = p.maxAttempts - 1
	st.last = min(p.initial, p.maxBackoff)
}

// Succeeded adds tokenRatio to the token count, up to maxTokens (A6: "Every successful RPC
// will increment the token_count by tokenRatio").
func (p *grpcPolicy) Succeeded(*State, sim.Time) {
	if p.maxMilli > 0 {
		p.milli = min(p.milli+p.ratioMilli, p.maxMilli)
	}
}

// throttleFailure subtracts one token, down to 0 (A6: "Every failed RPC will decrement the
// token_count by 1"; grpc-go and gRPC core count only the failures A6 qualifies).
func (p *grpcPolicy) throttleFailure() {
	if p.maxMilli > 0 {
		p.milli = max(p.milli-1000, 0)
	}
}

// throttleAllows reports whether a retry or hedge may go: token_count > maxTokens/2 (A6; gRPC
// core compares milli_tokens with max_milli_tokens / 2).
func (p *grpcPolicy) throttleAllows() bool { return p.maxMilli == 0 || p.milli > p.maxMilli/2 }

// tokens returns the token count (for tests and transcripts).
func (p *grpcPolicy) tokens() float64 { return float64(p.milli) / 1000 }

// Failed decides what follows a failed attempt (retry mode) or a failed copy (hedging).
//
// In retry mode a request that was given a connection but never written (grpcTransparent) is
// first retried transparently: at once, without a delay, whatever its code and the retry
// policy, not counted as an attempt (State.Attempt stays) nor by the throttle, as often as it
// happens until the call's deadline (Deadline) — A6 "Transparent Retries", second case, as
// grpc-go (stream.go, shouldRetry: a NewStream error that allows a transparent retry) and gRPC
// core (a stream kNotSentOnWire: its end-to-end test RetryTransparentNotSentOnWire) do.
//
// Retry mode, in grpc-go's order (stream.go, shouldRetry): a pushback telling not to retry
// counts as a throttling failure and stops (PushbackStop); a code not in retryableStatusCodes
// stops (NotRetryable) without counting; a retryable code counts one failure; then the attempt
// limit (MaxRetries), the throttle (Budget: token_count ≤ maxTokens/2, judged after this
// failure's decrement, and the failure is returned at once), the deadline, and the delay: a
// pushback of N ≥ 0 ms exactly (and the next backoff restarts from initialBackoff), otherwise
// the current ceiling × (0.8 + 0.4j) (grpcDelay; j × the ceiling under GRPCJitterGRPCGo168),
// and the ceiling is then multiplied by backoffMultiplier up to maxBackoff.
func (p *grpcPolicy) Failed(st *State, f Failure, now sim.Time, j Jitter) Decision {
	st.kept, st.hasKept = f, true // the application gets the latest error
	code := grpcCodeOf(f)
	if code == grpcNoCode {
		return st.stop(NotRetryable)
	}
	if !p.hedging && grpcTransparent(f) {
		// A6 "Transparent Retries": whatever the retry policy says, at once, not counted as an
		// attempt nor by the throttle, for as long as the deadline lasts.
		if st.expired(now) {
			return st.stop(Deadline)
		}
		return st.grant(Decision{})
	}
	listed := p.codes.has(code)
	stop := f.Pushback && f.PushbackMS < 0
	// A6: the only failures counted are those with a retryable (or non-fatal) code, or with
	// pushback saying not to retry.
	if listed || stop {
		p.throttleFailure()
	}
	if p.hedging {
		return p.hedgeFailed(st, f, now, listed, stop)
	}
	switch {
	case stop:
		return st.stop(PushbackStop)
	case !listed:
		return st.stop(NotRetryable)
	}
	st.attempt++
	switch {
	case st.attempt > st.allowed:
		return st.stop(MaxRetries)
	case !p.throttleAllows():
		return st.stop(Budget)
	case st.expired(now):
		return st.stop(Deadline)
	}
	var d Decision
	if f.Pushback {
		// A6 "Summary": retry in n ms; if this attempt also fails, the delay resets to the
		// initial backoff for the following retry.
		d.Backoff = grpcPushback(f.PushbackMS)
		st.last = min(p.initial, p.maxBackoff)
	} else {
		d.Backoff = grpcDelay(st.last, grpcJitter(j), p.fullJitter)
		st.last = grpcNextCeiling(st.last, p.multiplier, p.maxBackoff)
	}
	if st.pastDeadline(now, d.Backoff) {
		return st.stop(Deadline)
	}
	return st.grant(d)
}

// hedgeFailed decides what follows a failed copy: a fatal code (not in nonFatalStatusCodes)
// ends the call, cancelling the outstanding copies (NotRetryable); pushback not to retry sends
// no further copy (PushbackStop, and allowed drops to the copies already sent, so that later
// failures and Hedge refuse too); a non-fatal code sends the next copy at once, or after a
// pushback of N ≥ 0 ms (A6 "Hedging Policy" and "Summary of Retry and Hedging Logic"), unless
// every copy was sent (MaxRetries), the throttle refuses (Budget) or the deadline forbids it.
// The next copy deprioritizes the servers tried, as A6 asks the load balancer to prefer
// backends the call has not used.
func (p *grpcPolicy) hedgeFailed(st *State, f Failure, now sim.Time, nonFatal, stop bool) Decision {
	switch {
	case !nonFatal:
		return st.stop(NotRetryable)
	case stop:
		// "No further hedged requests should be issued for the call": no copy is allowed
		// beyond those already sent.
		st.allowed = st.retries
		return st.stop(PushbackStop)
	}
	st.attempt++
	switch {
	case st.retries >= st.allowed:
		return st.stop(MaxRetries)
	case !p.throttleAllows():
		return st.stop(Budget)
	case st.expired(now):
		return st.stop(Deadline)
	}
	d := Decision{Deprioritize: true}
	if f.Pushback {
		d.Backoff = grpcPushback(f.PushbackMS)
	}
	if st.pastDeadline(now, d.Backoff) {
		return st.stop(Deadline)
	}
	return st.grant(d)
}

// Hedging returns hedgingDelay and the clamped maxAttempts when the policy hedges.
func (p *grpcPolicy) Hedging() (time.Duration, int, bool) {
	if !p.hedging {
		return 0, 0, false
	}
	return p.hedgeDelay, p.maxAttempts, true
}

// Hedge lets the next copy go while fewer than maxAttempts copies were sent, the throttle
// allows (A6: "subsequent hedged RPCs will only be sent if token_count is greater than the
// threshold") and the call's deadline has not passed; it counts the copy.
func (p *grpcPolicy) Hedge(st *State, now sim.Time) bool {
	if !p.hedging || st.retries >= st.allowed || !p.throttleAllows() || st.expired(now) {
		return false
	}
	st.retries++
	return true
}

// failureClass names f's status code for transcripts.
func (p *grpcPolicy) failureClass(f Failure) string {
	if c := GRPCStatus(f); c != "" {
		return c
	}
	return "no status: never retried"
}

// clientState describes the throttle for transcripts.
func (p *grpcPolicy) clientState() string {
	if p.maxMilli == 0 {
		return ""
	}
	return "token_count=" + formatFloat(p.tokens()) + " (retries while > " + formatFloat(float64(p.maxMilli/2)/1000) + ")"
}

// grpcPushback converts a pushback of ms ≥ 0 milliseconds, capped at the int32 range
// (grpc-retry-pushback-ms is a signed 32-bit integer, A6 "Pushback").
func grpcPushback(ms int64) time.Duration {
	return time.Duration(min(ms, math.MaxInt32)) * time.Millisecond
}

// grpcNextCeiling is A6's next backoff ceiling: min(ceil × multiplier, maxBackoff).
func grpcNextCeiling(ceil time.Duration, multiplier float64, maxBackoff time.Duration) time.Duration {
	next := float64(ceil) * multiplier
	if next >= float64(maxBackoff) {
		return maxBackoff
	}
	return time.Duration(next)
}

// grpcDelay is the delay drawn from the base ceil (min(initialBackoff × multiplier^(n−1),
// maxBackoff)) with u in [0, 1]: ceil × (0.8 + 0.4u), A6 as revised 2024-08-23 and grpc-go
// since v1.69.0 (stream.go, shouldRetry: "a random factor between 0.8 and 1.2"); or, with
// full (GRPCJitterGRPCGo168), u × ceil, A6's rule of 2017 that grpc-go drew up to v1.68.x.
// The product 0.4u is converted explicitly so that no platform fuses it with the sum.
func grpcDelay(ceil time.Duration, u float64, full bool) time.Duration {
	if full {
		return time.Duration(u * float64(ceil))
	}
	return time.Duration((0.8 + float64(0.4*u)) * float64(ceil))
}

// grpcJitter draws one jitter value, which must be in [0, 1].
func grpcJitter(j Jitter) float64 {
	x := j.Float64()
	if !(x >= 0 && x <= 1) {
		panic(fmt.Sprintf(panicJitter, x))
	}
	return x
}
