// Package retry holds the retry policies a simulated MongoClient runs: small state machines fed
// the outcome of each attempt, answering "retry after this backoff, deprioritizing the failed
// server or not" or "give up, and here is the error the application receives". They never
// schedule events; the driver carries out their decisions.
//
// One Policy serves one MongoClient (it owns the client's retry token bucket, if any); one
// State, a value the driver embeds in its pooled operation record, carries one operation. Per
// operation the driver calls Begin, then Failed after each failed attempt until it says stop,
// or Succeeded once. Virtual time is sim.Time; backoffs are time.Duration; jitter comes from
// an injected Jitter (a seeded stream in runs, a constant in tests). Failed and Succeeded
// allocate nothing.
//
// # Policies
//
//	name             what it is
//	mongodb-2026-03  Client Backpressure, 2026-03 text: MAX_RETRIES 5; backoff
//	                 jitter·min(10 s, 100 ms·2^(attempt−1)); optional adaptiveRetries token bucket
//	mongodb-2026-07  the later text: MAX_RETRIES = maxAdaptiveRetries (default 2, 0 = none);
//	                 backoff jitter·min(10 s, BASE·2^attempt), BASE = the error's baseBackoffMS
//	                 when > 0, else 100 ms; enableOverloadRetargeting; no token bucket
//	mongodb-legacy   a driver before backpressure: Retryable Reads and Writes only (one immediate
//	                 retry, or retries until the CSOT deadline); overload labels mean nothing, so
//	                 462 surfaces to the application
//	none             never retries
//	couchbase-besteffort  Couchbase SDK3 (RFC 0049): the RetryOrchestrator with the BestEffort
//	                 strategy; retries until the request's timeout (KV 2.5 s, query and search 75 s)
//	couchbase-failfast    the orchestrator with a FailFast strategy: only always-retry reasons
//	grpc             gRPC proposal A6: a retryPolicy (maxAttempts clamped to 5, delay
//	                 U[0, min(initialBackoff·multiplier^(n−1), maxBackoff)], retryableStatusCodes)
//	                 or a hedgingPolicy, with optional retryThrottling and server pushback
//	aws-standard     the AWS SDKs' standard mode as botocore runs it: 3 attempts, delay
//	                 U[0,1)·min(base·2^(attempt−1), 20 s), a client-wide retry quota of 500; the
//	                 "2026" behaviour (the default) or the "legacy" one
//	aws-adaptive     aws-standard plus botocore's client-side rate limiter (a Gate): a send token
//	                 bucket enabled by the first throttling response, its rate set by CUBIC
//
// # Options
//
// Options are the MongoClient's options a policy reads (retryReads, adaptiveRetries, ...; each
// read only by the policies that name it in their registry entry, the others kept at their
// defaults) and the policy's own option block (Block): the options of another stack's policy,
// of the type in the policy's file. The policy's registry entry names the block's key in a
// scenario (BlockKeys), creates it with its defaults (NewBlock), validates it, and gives the
// policy its defaults when none is given. Adding a policy is its file, a registry line, its
// section of docs/policies.md and its transcript.
//
// Options is the one struct of these options: client.Options holds it (Retry) rather than
// repeating its fields, and a scenario's driver fills it. CSOT and Sharded are facts about the
// client, not options: the client derives them from timeoutMS and its topology. One rule says
// what a value means, in the model and in a scenario alike (docs/policies.md §1):
//
//   - an option whose zero value is a setting (retryReads false, maxAdaptiveRetries 0 = no
//     overload retries) has an explicit default, and DefaultOptions is the only place it is
//     written: client.DefaultOptions includes it, and a scenario's driver starts from that;
//   - an option whose zero value is not a setting (retryTokenCapacity, kvTimeout, queryTimeout,
//     searchTimeout) takes 0 to mean its default, and a scenario leaves 0 out of its text;
//   - a block (the policy's Block, a Couchbase client's circuit breaker) absent is its defaults
//     (the breaker: off), and a block given starts from its type's defaults (SetDefaults; the
//     breaker's client.DefaultCircuitBreaker);
//   - a duration is a time.Duration on both sides: a scenario key ending in MS only lets the text
//     spell it as a bare number of milliseconds.
//
// So a scenario's driver options cross into the model unchanged, field for field.
//
// # Couchbase SDK3
//
// The Couchbase policies speak to a Couchbase node's services, whose statuses (wire.Service)
// ReasonOf maps to the RFC's RetryReason, by stage: a request that never left the client
// (Failure.Dispatch) is SOCKET_NOT_AVAILABLE, one whose socket closed in flight
// SOCKET_CLOSED_WHILE_IN_FLIGHT, a response by the "Response Code Retry List", anything else
// UNKNOWN. The orchestrator runs the RFC's maybeRetry: an always-retry reason (KV_NOT_MY_VBUCKET,
// KV_COLLECTION_OUTDATED, VIEWS_NO_ACTIVE_PARTITION) is retried after the controlled ladder 1,
// 10, 50, 100, 500, then 1000 ms whatever the strategy; otherwise BestEffort retries a request
// that is idempotent (Class.Idempotent) or whose reason allows non-idempotent retry, after
// BestEffortBackoff (0, 1, 2, 4, … 256, 512 ms, then 500 ms, and 500 ms after any delay of 500 ms
// or more, as the reference calculator gives; no jitter, no attempt limit), and FailFast never
// does. A response the RFC does not list (UNKNOWN) is never handed to the orchestrator: the
// request fails at once. Every delay is capped at the request's deadline (Decision.Cancel: the
// request is cancelled as a timeout when the capped delay ends). Each Decision names its Reason,
// retried or not, for the client to log. The application receives the latest error.
//
// # Eligibility
//
// The pseudocode's is_retryable is the disjunction of
//
//   - a retryable read: the operation is one Retryable Reads supports, retryReads is on, it is
//     not in a transaction, and the error is a network error, a code of the Retryable Reads
//     table (wire.Code.IsRetryableRead) or PoolClearedError;
//   - a retryable write: the operation is one Retryable Writes supports, retryWrites is on, it
//     is not in a transaction, and the error carries RetryableWriteError, is a network error or
//     PoolClearedError;
//   - a retryable overload error (SystemOverloadedError and RetryableError; backpressure
//     policies only), for any command, provided rule 2.4 holds: retryWrites for writes,
//     retryReads for reads, both for runCommand. Transactions do not disable it.
//
// is_overload is the SystemOverloadedError label alone.
//
// # The 2026-03 order
//
// mongodb-2026-03 runs the except-branch of the spec's execute_command_retryable in its order:
//
//  1. compute is_retryable and is_overload;
//  2. if adaptive and attempt > 0 and not is_overload: deposit 1 token;
//  3. if not is_retryable: raise;
//  4. attempt++;
//  5. if is_overload: allowed_retries = MAX_RETRIES (and so it stays for the operation);
//  6. if attempt > allowed_retries: raise;
//  7. deprioritize the failed server (see below);
//  8. if is_overload: draw jitter, backoff = jitter × min(MAX_BACKOFF, BASE_BACKOFF ×
//     2^(attempt−1)); if CSOT and now + backoff > deadline: raise; if adaptive and a token
//     cannot be consumed: raise; sleep backoff.
//
// allowed_retries starts at 1 without CSOT and unlimited with it. On success, if adaptive,
// deposit RETRY_TOKEN_RETURN_RATE (0.1), plus 1 if attempt > 0. The one addition is between
// steps 6 and 7: under CSOT, an operation whose deadline has passed is not retried (CSOT's
// isExpired, which Retryable Reads 3c and Retryable Writes check before each retry and the
// backpressure pseudocode leaves to the CSOT machinery). The token is consumed last, so a retry
// refused for time never spends one. mongodb-2026-07 runs the same order without steps 2 and the
// token check, with its own MAX_RETRIES, exponent and BASE; mongodb-legacy runs steps 1, 3, 4, 6
// and 7 with no overload disjunct, no step 5 and no backoff.
//
// # Deprioritization
//
// A Decision's Deprioritize is
//
//	mongodb-2026-03  Sharded || is_overload
//	mongodb-2026-07  Sharded || (is_overload && enableOverloadRetargeting)
//	mongodb-legacy   Sharded
//
// The 2026-03 pseudocode appends the failed server to the deprioritized list on every retry.
// Its rule 4, though, deprioritizes "if the request is eligible for retry (as outlined in step 2
// above …)", and step 2 is the overload retry policy, whose first condition is "the error is a
// retryable overload error". A retry granted for any other reason falls under Retryable Reads 3a
// and Retryable Writes, which deprioritize only "in a sharded cluster"; and the retryable reads
// prose test 3.2 expects a non-overload retryable error in a replica set to be retried on the
// same server. So 2026-03 deprioritizes overload retries everywhere and other retries only in
// sharded clusters, which is also what the Node driver of that time does (Sharded or overload).
//
// # Error propagation
//
// When a policy gives up, Decision.Err is the error the application receives, chosen as the
// State documentation describes (Client Backpressure rule 6, which runCommand follows as a
// write): reads return the latest server or network error, writes the latest one without
// NoWritesPerformed, or the first if all carried it. The policies of other stacks (grpc, aws-*)
// return the latest error: those stacks have no NoWritesPerformed rule.
//
// # gRPC (A6)
//
// grpc is a channel's retry support as gRPC proposal A6 specifies it
// (grpc/proposal:A6-client-retries.md; docs/policies.md §2). Failures map to status codes:
//
//	overload reply (SystemOverloadedError, a limiter's 462)   RESOURCE_EXHAUSTED (HTTP 429's code)
//	network error                                             UNAVAILABLE
//	request never sent (no connection, node, breaker open)    UNAVAILABLE
//	  (PoolClearedError: retried transparently, see below)
//	error reply with a transient code (IsRetryableRead:       UNAVAILABLE
//	  not primary, shutting down, interrupted, ...)
//	any other error reply                                     INTERNAL
//	the client's own throttle (Failure.Throttled)             no status: never retried
//
// In retry mode a request given a connection that closed, or a pool that was cleared, before it
// was written (PoolClearedError) never left the client: it is retried at once, whatever its
// code, counted neither as an attempt nor by the throttle, until the deadline (A6 "Transparent
// Retries", as grpc-go and gRPC core do). Any other failure is retried when its code is in
// retryableStatusCodes, fewer than maxAttempts (at most 5) attempts were made, the throttle
// allows, and the delay ends before the call's deadline (the deadline given to Begin, CSOT or
// not). The delay before retry n is min(initialBackoff·multiplier^(n−1), maxBackoff)·(0.8 +
// 0.4j) (A6 as revised 2024-08-23, grpc-go since v1.69.0; backoffJitter grpc-go-1.68 draws
// A6's 2017 rule, j times that base), or exactly N ms after a pushback of N ≥ 0
// (grpc-retry-pushback-ms), after which the ceiling restarts from initialBackoff; a negative
// pushback stops (PushbackStop). With retryThrottling the client keeps token_count, starting at
// maxTokens, in thousandths of a token: each failure with a retryable code or a pushback not to
// retry takes 1, each success adds tokenRatio, within [0, maxTokens]; a retry or hedge goes only
// while token_count > maxTokens/2, judged after the failure's decrement, and a refused retry
// returns at once (Budget). With a hedgingPolicy the policy is a Hedger: the driver sends a copy
// every hedgingDelay up to maxAttempts (Hedge counts each and consults the throttle); a failed
// copy with a non-fatal code sends the next at once (after a pushback of N ≥ 0 ms), deprioritizing
// the servers tried; a fatal code ends the call (NotRetryable); a pushback not to retry stops
// further copies (PushbackStop).
//
// # AWS SDKs
//
// aws-standard is the standard retry mode as botocore implements it (boto/botocore
// botocore/retries/standard.py and quota.py; docs/policies.md §3). Failures map to its categories:
//
//	overload reply                              throttling error
//	network error                               transient error (treated as a timeout: legacy cost 10)
//	request never sent                          transient error
//	error reply with a transient code           transient error (as 500/502/503/504 are)
//	any other error reply                       not retryable
//	the client's own throttle                   not retryable
//
// A retryable error on an attempt below maxAttempts is retried if the client's retry quota holds
// the retry's cost, which it then pays (else Budget, at once): legacy 5, or 10 after a network
// error; 2026 14, or 5 after a throttling error. The delay is j·min(base·2^(attempt−1), 20 s),
// attempt 1-based, base 1 s (legacy; 2026 throttling errors) or 50 ms (2026 transient errors).
// In 2026 a pushback of N ≥ 0 ms (x-amz-retry-after) makes the delay max(t, min(N ms, t + 5 s)),
// t the computed delay; a negative pushback is ignored, and legacy ignores the header. A success
// releases 1 token to the quota if the operation was never retried, else what its last retry
// paid, up to the capacity. A deadline given to Begin is honoured, and a retry refused for it
// pays nothing.
//
// aws-adaptive adds botocore's client-side rate limiter (adaptive.py, bucket.py, throttling.py)
// as a Gate. Every response (a success, or a failure other than a request never sent) is counted
// in 0.5 s buckets, the measured rate smoothed 0.8 new, 0.2 old. A throttling response enables
// the limiter and sets W_max to the measured rate (once enabled, the smaller of it and the
// bucket's fill rate), K = cbrt(W_max(1 − β)/C), the new rate β·W_max; any other response sets
// the rate C(t − t_throttle − K)³ + W_max (C 0.4, β 0.7). The bucket's rate becomes that, at most
// twice the measured rate: fill rate max(rate, 0.5/s), capacity max(rate, 1). Once enabled, each
// attempt takes a token at Admit, waiting deficit / fill rate when there is none (reservations
// queue in order).
package retry
