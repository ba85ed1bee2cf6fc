// Package client models the application side of an overload: MongoClient instances that run the
// drivers' specs literally, and the application groups that drive them.
//
// # A MongoClient
//
// Each Client has, per server, a connection pool (CMAP: maxPoolSize, maxConnecting, a FIFO wait
// queue, generations and clears) and a monitor (SDAM: an unauthenticated connection whose hello
// every heartbeatFrequencyMS learns the role and feeds an EWMA RTT, α = 0.2). Operations select
// a server (client/selection: read preference, latency window, two random choices by in-flight
// count, deprioritised addresses with fallback), check out a connection, send the command, and
// hand every failure to the client's retry policy (client/retry), which answers "retry after d,
// deprioritising this server" or "give up with this error":
//
//	Execute ─▶ select ─▶ check out ─▶ send ─▶ reply ─▶ check in ─┬─▶ success
//	   ▲          │ none: wait for the topology              │    └─▶ policy.Failed
//	   │          │ (serverSelectionTimeoutMS)                │          │ retry: deprioritise,
//	   └──────────┴────────────── backoff ◀──────────────────┘          │ back off, select again
//	                                                                     └─▶ give up: the error
//
// The connection is checked back in before the backoff sleep, as the Client Backpressure
// connection check-in test requires. Errors a connection establishment meets (network errors and
// timeouts during TCP, TLS and hello, including the server's connection limiter closing it) carry
// SystemOverloadedError and RetryableError, so they neither mark the server Unknown nor clear the
// pool; other network errors and the shutdown codes do (SDAM error handling).
//
// Command monitoring is counted: every started attempt has exactly one succeeded or failed event.
// Timeouts: timeoutMS (CSOT) gives every operation a deadline, sends the remaining time as
// maxTimeMS, and closes the connection of an attempt still on the wire when it passes; an
// application's own deadline (Spec.Timeout) ends the operation the same way without CSOT's retry
// semantics. A server still working on an abandoned attempt counts it as wasted work.
//
// Options holds the options the retry policy reads as one retry.Options (Options.Retry), not
// as fields of its own; the client adds what it alone knows, CSOT (from Timeout) and Sharded
// (from the topology), when it builds the policy. Defaults follow one rule, the retry package's
// ("Options" in its doc): an option whose zero value is a setting has an explicit default in
// DefaultOptions; one whose zero value is not a setting takes 0 to mean its default.
//
// A Tracer (SetTracer) hears each operation's steps as they happen — issue, checkout, attempt,
// backoff, result — with their start times and outcomes, for the timelines record/trace writes;
// without one the hooks cost a nil check and allocate nothing.
//
// # Applications
//
// A Group is an application tier: several clients and one Workload, open loop (arrivals that
// never wait for replies, handed to the clients in turn) or closed loop (threads that issue their
// next operation a think time after the previous one), an operation mix, and an optional
// application retry wrapper stacked on the driver's retries.
//
// # Units and invariants
//
// Virtual time is sim.Time (nanoseconds). A client never calls a server: requests are events
// scheduled for the server's handler after the link's one-way delay. Operation records are
// pooled and the wire request is embedded in them, so steady state allocates nothing per attempt.
package client
