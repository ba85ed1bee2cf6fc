// Package mongos models a mongos's routing layer: the server-internal client that sends each
// command a mongos admits on to a shard (a replica set) and retries it by the server's own
// strategies (docs/model.md §7, after the server's Internal Client guide). A Router implements server.Router; a
// server.Server with role mongos hands it every command that passed the mongos's own ingress
// path, and the router answers through the server.RouteToken once its retries end.
//
// # A routed command
//
//	Route ─▶ shard (uniform draw) ─▶ target a member ─▶ connection ─▶ attempt ──▶ OK ─▶ answer
//	                                    ▲    │ none eligible: look again every 500ms,     │
//	                                    │    └ 133 after FindHostTimeout (50 at maxTimeMS)│
//	                                    │                                             error
//	                                    │                                                 ▼
//	                                    └── sleep BackoffWithJitter ◀── retry? ── no ─▶ answer
//
// Shard choice: each command targets one shard, drawn uniformly from the stream
// "mongos/<address>/shard" (no draw with one shard). This models single-shard operations
// targeted by a hashed shard key; scatter-gather operations are not modelled.
//
// Host targeting (internal-client.md, "Replica set monitoring and host targeting"): writes go to
// the primary; reads follow the read preference the driver forwarded (primary; primaryPreferred:
// the primary, else the secondaries; secondary; secondaryPreferred: the secondaries, else the
// primary; nearest: all). Members that are down or of unknown role are not eligible. The router
// reads each member's Role and IsDown when it targets: this stands for the streamable replica
// set monitor (awaitable hello), which learns of elections and stepdowns almost at once. A
// standalone member counts as a primary. RTT comes from a ping (an unauthenticated hello, exempt
// from the member's limiters) every HeartbeatFrequency, starting when the router is created,
// averaged with weight 0.2 on the newest sample (the first as is); a member without a sample
// counts as 0. Candidates are the eligible members within LocalThreshold of the fastest; one is
// drawn uniformly from "mongos/<address>/target" (no draw for one candidate). When none is
// eligible, targeting looks again every 500ms (a model choice: the server waits for its monitor
// to report a topology change) until FindHostTimeout, when the attempt fails with
// FailedToSatisfyReadPreference (133), or until the command's maxTimeMS deadline, when it fails
// with MaxTimeMSExpired (50).
//
// TargetingMetadata: the members whose overload errors this command retried are its
// deprioritised set. With OverloadAwareServerSelection (overloadAwareServerSelectionEnabled)
// targeting first leaves them out and falls back to all eligible members if that leaves none —
// so a primaryPreferred read skips an overloaded primary for a secondary, and with secondary,
// secondaryPreferred or nearest each overload retry walks to a member that has not failed yet.
// Without the flag the set is kept but ignored: primary and primaryPreferred retries all hit the
// primary (jstest id 56418682936).
//
// Connections: per member, an unbounded pool (ShardingTaskExecutorPoolMaxSize's default) of
// idle authenticated internal connections (appName "mongos"; failCommand skips them unless
// failInternalCommands). A command takes an idle one or opens one through the member's
// connection limiter and handshake; a connection the member refuses or closes fails the attempt
// with HostUnreachable (6), a retryable error that is not an overload. Idle connections are
// never closed by the mongos. An attempt carries the time left to the command's maxTimeMS
// deadline (when the router received it + the driver's maxTimeMS) as its own maxTimeMS, and the
// driver's give-up time, which members use only to count work done for nobody: a mongos does
// not know when a driver gives up and keeps routing until its retries end or maxTimeMS passes.
//
// # Retry strategy
//
// Each attempt's outcome goes through Shard::RetryStrategy (shard.cpp), which wraps an
// AdaptiveRetryStrategy with the shard's RetryBudget around a DefaultRetryStrategy
// (retry_strategy.h/.cpp, shard_shared_state_cache.h/.cpp, shard_retry_server_parameters.idl,
// retry_strategy_server_parameters.idl, backoff_with_jitter.h):
//
//  1. AdaptiveRetryStrategy (only with Config.RetryBudget): on an error labelled
//     SystemOverloadedError, mark the command's previous attempt overloaded and take a token
//     from the shard's budget; none means no retry (and a token taken is kept even if step 2
//     declines). On an error without the label, and on success, return ReturnRate tokens (+1
//     if the previous attempt was overloaded), capped at the capacity, and clear the mark.
//  2. DefaultRetryStrategy: retry only if retryAttemptCount < MaxRetryAttempts and the error
//     meets the Shard::RetryPolicy criteria. Reads (kIdempotent): a code in the RetriableError
//     category (6, 7, 89, 91, 189, 262, 462, 9001, 10107, 11600, 11602, 13435, 13436) or the
//     label RetryableError or RetryableWriteError. Writes (kNotIdempotent): only the NotPrimary
//     errors (10107, 13435, 13436, 11602, 189, 91, 11600) or the RetryableError label, which an
//     overload rejection carries with NoWritesPerformed (the write did not happen); a write's
//     network or connection error is not retried (kNotIdempotent never retries local errors). On a retried overload error, the
//     failing member joins the deprioritised set, the backoff counter i grows by one, and the
//     error's baseBackoffMS (externalClientBaseBackoffMS) becomes the backoff base if > 0.
//  3. BackoffWithJitter: sleep a uniform integer number of milliseconds in
//     [0, min(MaxBackoff, base·2^i)] drawn from "mongos/<address>/jitter" — 0 with no draw
//     while no overload error has been seen, so other retryable errors are retried at once;
//     after overloads the current i is reused. The sleep is interruptible: if maxTimeMS would
//     pass during it, the command fails with MaxTimeMSExpired at the deadline — at once if
//     the failed attempt's reply came back after the deadline (the model does not interrupt
//     the wait for a reply; the attempt carries the time left as its own maxTimeMS). Then
//     target again and resend.
//
// Giving up, the router answers the last error: an overload error's code with Config.
// ExhaustedLabels in place of its labels (docs/model.md §7.4: the label set is a scenario's
// choice), any other error's code and labels as received; a final connection failure answers
// HostUnreachable.
//
// # Statistics
//
// Stats mirrors serverStatus shardingStatistics.shards.<id>, counted the way
// Shard::RetryStrategy counts (shard.cpp) and its jstest (id 56418682936) checks: an operation
// per routed command; an overload error received per reply labelled SystemOverloadedError; a
// retry due to overload per retry decided after one; "retried at least once due to overload"
// whenever an overload error follows an attempt that was not overloaded (so also for a command
// that was not retried: the jstest's zero-retries case expects 1), and "…and succeeded" whenever
// an attempt that was not overloaded follows an overloaded one; a retargeted retry when
// overload-aware targeting sends a retry after an overload error to a member outside the
// deprioritised set; and the backoff slept. The budget balance is read when Stats is called
// (+Inf without budgets).
//
// # Determinism and allocation
//
// The router draws only from its three streams, "mongos/<address>/shard", "…/target" and
// "…/jitter" (Streams lists them); the links draw their own delays. Command records are pooled
// and carry their wire request, so routing a command allocates nothing in steady state; only a
// new connection does.
package mongos
