// Package client models the application side of an overload: MongoClient instances (connection
// pool, server selection with an EWMA RTT view, deprioritised servers, command monitoring) that
// run a named retry policy — the Client Backpressure retry loop of the 2026-03 and 2026-07 spec
// revisions, legacy retryable reads/writes, or none — driven by open- or closed-loop workloads.
//
// Units: virtual time is sim.Time (nanoseconds); rates are per second. A client never calls a
// server: requests and replies are messages scheduled on the sim loop with a network delay.
// Invariant: every attempt put on the wire has exactly one succeeded or failed outcome.
package client
