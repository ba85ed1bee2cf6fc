// Package ratelimiter models the token buckets that decide, on both sides of a MongoDB
// connection, whether work may proceed:
//
//   - [TokenBucket]: the server's admission::RateLimiter, behind the ingress request rate
//     limiter (ingressRequestAdmission*) and the connection-establishment rate limiter
//     (ingressConnectionEstablishment*). A lazy folly-style bucket: refill rate R tokens/s,
//     capacity R×B tokens for a burst of B seconds, starts full, costs one token per admission.
//   - [RetryTokenBucket]: the per-MongoClient retry token bucket of the driver Client
//     Backpressure specification (2026-03 text, adaptiveRetries=true).
//   - [RetryBudget]: the per-shard RetryBudget of the server's AdaptiveRetryStrategy, which
//     mongos uses when it retries a shard that answered with SystemOverloadedError.
//
// # Units
//
// Time is [sim.Time] (integer nanoseconds of virtual time) and every time-dependent method takes
// now as an argument; successive calls on one bucket must not go back in time (a decrease is a
// bug in the model and panics). Rates are tokens per second, burst capacity is seconds of
// refill, balances are tokens.
//
// # TokenBucket: the algorithm
//
// folly's TokenBucket keeps one number, a zero time z, and derives the balance from it:
//
//	balance(t) = min(C, (t − z)·R)        C = R·B, the capacity
//
// Consuming a token moves z later by 1/R; returning one moves it earlier. Nothing refills in the
// background: the balance is computed when someone asks. The balance may go negative: a caller
// that borrows a token it does not have is told to wait until the debt is repaid, which is how
// the server's queueing mode serves waiters in reservation order at exactly R per second.
//
//	balance
//	   C ┤‾‾‾‾‾╲    ╱‾‾‾‾‾‾‾‾      slope R while below C; flat at C (accrual is lost)
//	     │      ╲  ╱               each admission: −1
//	   0 ┼───────╲╱──────── t      below 0: tokens borrowed by queued waiters
//
// This package computes the same function exactly. R is held as an integer number of
// nano-tokens per second (round(R·1e9)), so the refill over d nanoseconds, d·R·1e-9 tokens, is an
// integer in units of 1e-18 token; the balance is an int64 count of nano-tokens plus that
// sub-unit remainder, and the capacity is rounded to a nano-token. Refill, consumption, borrow
// and the wait for a borrowed token (a ceiling division, 128-bit intermediate) are integer
// operations with no rounding, so a bucket driven for hours of virtual time admits exactly
// C + ⌊R·T⌋ requests when offered more than it can take, with no drift.
//
// Two acquisition modes mirror the server's two calls:
//
//   - [TokenBucket.TryAcquire] (tryAcquireToken, the 8.2 ingress request limiter): admit if at
//     least one token is available, otherwise reject at once.
//   - [TokenBucket.Acquire] (acquireToken, the connection limiter and the newest request
//     limiter with ingressRequestAdmissionMaxQueueDepth > 0): borrow a token; if the borrow is
//     valid now, admit; if it becomes valid later and fewer than MaxQueueDepth callers are
//     waiting, queue the caller until then; otherwise give the token back and reject. A waiter
//     that gives up ([TokenBucket.CancelWait]) gives its token back.
//
// Counters mirror serverStatus (network.ingressRequestRateLimiter and
// queues.ingressSessionEstablishment): see [Stats].
//
// Invariants, for every bucket and every window [t, t+T] of virtual time:
//
//	balance(t) ≤ C
//	admissions in [t, t+T] ≤ C + R·T + k  (an Acquire admission counts at its reservation time)
//	attempted = successful + rejected + interruptedInQueue + queued
//
// where k is the number of waiters that gave up. A waiter that gives up returns its token, but
// those queued behind it keep the times they were promised, as sleeping threads do in the
// server, so a later caller can be promised the same time as one of them. Without
// cancellations (k = 0) the envelope is the classic one. A rate change forgives outstanding
// debt and restarts the envelope.
//
// A capacity below one token never admits anything (a server jstest relies on rate=1/s with
// burst=0.001 s to reject every request deterministically).
//
// An unlimited or disabled limiter is not a bucket: MongoDB's defaults (rate INT32_MAX, burst
// DBL_MAX) make its limiter inert, and a disabled limiter (ingressRequestRateLimiterEnabled or
// ingressConnectionEstablishmentRateLimiterEnabled false) is never consulted. A caller models
// both by holding no TokenBucket and admitting without asking, as the server does for exempt
// clients; [TokenBucket.RecordExemption] counts such admissions when a bucket exists.
//
// # Where this model departs from the server, and why
//
//   - The server truncates a queued caller's nap to whole milliseconds and admits at once when
//     the truncated nap is zero; here the waiter is admitted at the exact nanosecond its borrowed
//     token becomes valid, so queued admissions are spaced exactly 1/R apart. That nanosecond is
//     rounded up, and the refill accrued in the fraction rounded is held, like any balance, to
//     what the bucket can hold besides the waiter's token (C − 1). A capacity below 1 + R·1 ns
//     then spaces admissions at least (2 − C)/R apart (⌈1/R⌉ for C = 1) in both modes alike,
//     and the envelope above holds.
//   - In queueing mode with a capacity below one token, folly's consumeWithBorrowNonBlocking
//     returns "none", which the server turns into a wait of zero: every caller is admitted
//     without consuming a token. Here every caller is rejected, as in try mode, so that a
//     capacity below one means "admit nothing" in both modes.
//   - Rates are held to 1e-9 token/s and capacities to 1e-9 token. Rates outside
//     [MinRatePerSec, MaxRatePerSec] are rejected, and capacities above [MaxCapacity] tokens are
//     held at MaxCapacity, which no simulated load can drain. The server's own validator requires
//     an integer rate >= 1; fractional rates are accepted here so experiments can go lower.
//
// # RetryTokenBucket and RetryBudget
//
// Both are plain float balances with no time dependence, exactly as their sources compute them
// (including the float rounding of repeated 0.1 deposits). The driver bucket starts full at
// capacity 1000; each overload retry consumes [RetryCost] = 1 token and is refused if that is
// not available; a success deposits [RetryTokenReturn] = 0.1 (+1 if it was a retry), and a retry
// that fails without the overload label deposits 1; deposits are clamped to the capacity.
// The server's budget starts full at shardRetryTokenBucketCapacity (1000); an overloaded attempt
// takes one token if the balance is at least 1 (no token, no retry); any other outcome deposits
// shardRetryTokenReturnRate (0.1), plus 1 if the operation's previous attempt was overloaded,
// clamped to the capacity.
//
// # References
//
//   - MongoDB server, src/mongo/db/admission/rate_limiter.h and rate_limiter.cpp @6c1955e4
//     (RateLimiter: initial fill, acquireToken, tryAcquireToken, updateRateParameters, Stats).
//   - folly/TokenBucket.h as vendored by MongoDB (github.com/mongodb-forks/folly):
//     BasicDynamicTokenBucket (consume, consumeWithBorrowNonBlocking, returnTokens) and
//     BasicTokenBucket::reset.
//   - MongoDB server, src/mongo/db/admission/README.md @b9097506,
//     ingress_request_rate_limiter.idl @0b22cf9c, transport/session_establishment_rate_limiter.cpp
//     @1c287af4 (parameters, defaults, where each limiter runs).
//   - MongoDB driver specifications, source/client-backpressure/client-backpressure.md, 2026-03
//     text, sections "Adaptive retry policy", "Pseudocode" and "Token Bucket"; PyMongo
//     _TokenBucket (pymongo/asynchronous/helpers.py @e7a5247be); Node src/token_bucket.ts
//     @4fb0a0abe8.
//   - MongoDB server, src/mongo/client/retry_strategy.h and retry_strategy.cpp
//     (AdaptiveRetryStrategy::RetryBudget), shard_retry_server_parameters.idl @4c4aaf14, and the
//     architecture guide "Internal Client" (AdaptiveRetryStrategy).
package ratelimiter
