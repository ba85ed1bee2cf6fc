package client

import (
	"math"
	"time"

	"github.com/overloadsim/overloadsim/client/retry"
)

//go:generate go run github.com/overloadsim/overloadsim/internal/countergen -type=Stats

// Stats are a client's cumulative counters (a recorder takes differences per interval with
// Sub) and gauges taken by Snapshot (tagged counter:"gauge": Add and Sub keep the receiver's).
// Attempts are command-monitoring events: every started attempt has exactly one succeeded or
// failed event, so AttemptsStarted = AttemptsSucceeded + AttemptsFailed once nothing is on the
// wire.
type Stats struct {
	OpsIssued, OpsSucceeded, OpsFailed uint64
	IssuedByKind                       [NumOpKinds]uint64
	FailedByClass                      [NumErrClasses]uint64

	AttemptsStarted, AttemptsSucceeded, AttemptsFailed uint64
	OverloadReplies                                    uint64 // attempts answered with SystemOverloadedError or a Couchbase overload status
	Retries                                            uint64 // retries the policy allowed
	RetriesRefusedNoToken                              uint64 // retries refused by a token bucket, budget, quota, throttle or breaker
	WritesLost                                         uint64 // writes reported as succeeded that the server refused (a release's NoWritesPerformed bug)
	RetriesCancelled                                   uint64 // Couchbase: retries capped to the deadline, then cancelled
	// RetriedByReason and NotRetriedByReason log a Couchbase policy's decisions by retry reason
	// (RFC 0049: "log failed and succeeded retry attempts including the reason").
	RetriedByReason, NotRetriedByReason [retry.NumReasons]uint64
	BackoffTotal                        time.Duration // sum of backoff sleeps
	// LocallyRejected counts attempts the policy's own throttle rejected before sending
	// (sre-throttle); AdmitDelay sums the time its client-side rate limiter held attempts
	// back (aws-adaptive).
	LocallyRejected uint64
	AdmitDelay      time.Duration
	// HedgedCopies counts the copies a hedging policy sent beyond each operation's first;
	// AttemptsCancelled the copies cancelled on the wire (counted in AttemptsFailed too).
	HedgedCopies, AttemptsCancelled uint64

	// WaitsBegun and WaitsEnded count the operations that entered and left one of the driver's
	// wait queues (a connection pool's, server selection's, the client-side limiter's): their
	// difference is how many wait in the driver now (Group.DriverQueue).
	WaitsBegun, WaitsEnded uint64

	CheckedOut, CheckedIn, CheckoutFailed uint64 // CMAP connection events
	PoolClears                            uint64
	ConnectionsOpened                     uint64 // establishment attempts
	ConnectionsCreated                    uint64 // established
	ConnectionEstablishFailed             uint64
	ConnectionsClosed                     uint64

	RetryTokens float64 `counter:"gauge"` // the retry token bucket's level, NaN without a bucket
}

// KeepStats gives a client whose group does not keep its clients' counters (Workload.ClientStats)
// counters of its own, counting from now on, for Snapshot: for a tool or a test that looks at
// one client of a large group. It does nothing for a client that has them.
func (c *Client) KeepStats() {
	if g := c.group; g != nil && c.stats == &g.sink {
		c.stats = new(Stats)
	}
}

// Snapshot returns the client's statistics. A client in a group that does not keep its clients'
// counters (Workload.ClientStats) has none unless KeepStats gave it some: Snapshot panics, and
// its group's DriverStats holds the sum.
func (c *Client) Snapshot() Stats {
	if g := c.group; g != nil && c.stats == &g.sink {
		panic("client " + c.name + ": its own counters are not kept (Workload.ClientStats is off): read its group's DriverStats")
	}
	st := *c.stats
	st.RetryTokens = math.NaN()
	if c.bucket != nil {
		st.RetryTokens = c.bucket.Tokens()
	}
	return st
}
