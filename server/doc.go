// Package server models a MongoDB node that can be overloaded, and the replica set it belongs to.
//
// # A request's path through a node
//
//	client ──link──▶ arrive ─▶ [down? closed conn?] ─▶ network error
//	                   │
//	                   ├─ connect ─▶ connection limiter (acquire-with-queue) ─▶ handshake ─▶ OK
//	                   │                 └─ full queue ─▶ connection closed (network error)
//	                   ├─ monitoring hello (unauthenticated) ─▶ answered at once
//	                   ▼
//	         ingress request limiter (try-acquire, or acquire-with-queue)
//	                   │   └─ no token ─▶ 462 (reject cost on a worker, ahead of work)
//	                   ▼
//	         failCommand failpoint (block, close, error)
//	                   ▼
//	         role check (10107 / 13435 on a secondary)
//	                   ▼
//	         worker queue: FIFO, optional max depth ─▶ 433 beyond it
//	                   ▼
//	         worker: service time × USL(n) + k·n, ÷ speed; maxTimeMS aborts with 50
//	                   ▼
//	         reply ──link──▶ client
//
// The admission order follows the server: the request limiter runs right after a message is
// read, before parsing; failCommand runs when the command runs. Rejections are cheap, not free:
// each holds a worker for RejectCost, ahead of queued work, so a storm of rejections takes
// capacity from real work.
//
// # Queueing discipline
//
// Workers are execution tickets: Workers commands execute at once, the rest wait in one FIFO
// queue. A command's service time is drawn when it gets a worker, from the distribution of its
// command, and slowed by concurrency: with n commands executing (itself included) it takes
// base × (1 + σ(n−1) + κn(n−1)) + k·n, divided by the node's speed factor. Work for a client that
// has given up is still done unless the command carries maxTimeMS; that work is counted as wasted.
//
// # Units and invariants
//
// Virtual time is sim.Time (nanoseconds); rates are per second. A node never calls a client:
// replies are events scheduled for Request.ReplyTo after a delay drawn from the connection's link.
// Every request a node receives gets exactly one reply, except connection attempts and requests
// whose client has already gone (a connect that timed out in the queue, a disconnect). Over any
// run that starts and ends with a queue empty, ∫ queue length dt equals the sum of its waits
// (Little's law in sample-path form), which the tests check on every queue.
//
// Faults are data (Fault): failpoints, node down/up, stepdown and election, capacity and
// speed changes, network delay, runtime limiter changes and pauses, scheduled by a Cluster.
//
// # Pauses
//
// A pause (Server.Pause, FaultPause) is a stop-the-world freeze of the node's process — a long
// GC, a VM or container stall — for a fixed time. The node neither works nor answers:
//
//	work on a worker      frozen; at resume it runs for the time it had left, so it ends
//	                      exactly the pause's length later (maxTimeMS deadlines are wall-clock:
//	                      one that passed meanwhile aborts the command at resume)
//	messages that arrive  held: requests, connects, hellos and heartbeats, disconnects
//	its own timers        held when they fall due: limiter-queue admissions, handshakes,
//	                      failpoint blocks, a queued connect's timeout
//	connections           stay open; nothing is sent, so clients see silence and time out
//	                      by their own rules
//
// At resume everything held goes through the normal path above, at that instant, in the order
// it arrived or fell due: the limiters, failpoint and role in force at resume decide its fate.
// Paused time counts as neither busy nor capacity, so utilisation stays the share of the
// capacity the node really had that it used (a node that is down is treated the same way).
// Overlapping pauses of one node merge: a pause begun while paused extends it to the later
// end. Going down ends a pause (the held messages get network errors); a node that is down
// cannot be paused. A mongos's router keeps running during its node's pause; its answers are
// held like messages. Nothing about a pause costs anything when no pause is active: the node
// checks one flag per event.
//
// # Observing commands
//
// A CommandObserver (SetCommandObserver, none by default) hears each command the node admits
// in the terms serverStatus counts it in: admitted past the ingress request limiter, queued
// for a worker, started on one, answered (latency from admission, processing on the worker,
// failed or not). It listens only, so a run with one is the run without it; without one the
// node pays a nil check at each point it would be called. Package record turns what it
// hears into serverStatus documents.
package server
