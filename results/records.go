package results

import (
	"math"
	"slices"
	"time"

	"github.com/overloadsim/overloadsim/sim"
)

// The interval records. A record holds counters (differences of a source's cumulative counters
// between the interval's two ends, so that intervals add up exactly to the run's totals), gauges
// (levels at End) and, for groups, latency histograms. A source reports the same record with its
// counters cumulative since time 0; the recorder takes differences with Sub.
//
// Every record type has Add and Sub. Add sums the counters (and merges the latencies) of
// another record of the same name into this one, for totals over a window; Sub subtracts an
// earlier cumulative reading, turning a reading into the interval between the two. Neither
// touches the name; Sub sets Start to the earlier reading's End and keeps this record's gauges.
// A counter added to a record needs a line in its Add and Sub: TestRecordsAddSubEveryField
// fails until it has them.

// GroupInterval is what one client group did in one interval [Start, End). Rates are methods,
// per second of the interval's length.
type GroupInterval struct {
	Start, End sim.Time
	Name       string

	// Application operations.
	Issued, Succeeded, Failed uint64
	// FailedByClass counts the failed operations by error class, indexed like the series'
	// ErrClasses.
	FailedByClass []uint64
	AppRetries    uint64 // driver operations the application re-issued

	// Driver counters summed over the group's clients.
	DriverOps      uint64        // driver operations started (application retries included)
	Attempts       uint64        // commands put on the wire (CommandStartedEvent)
	Retries        uint64        // retries the retry policy allowed
	RetriesRefused uint64        // retries refused by a token bucket, budget, quota, throttle or breaker
	WritesLost     uint64        // writes the driver reported as succeeded that the server refused (a release's bug)
	Backoff        time.Duration // backoff slept by the driver
	CheckoutFailed uint64
	PoolClears     uint64
	// A Couchbase policy's decisions by retry reason, indexed like the series' RetryReasons,
	// and its retries capped and cancelled.
	RetriedByReason, NotRetriedByReason []uint64
	RetriesCancelled                    uint64
	// LocallyRejected counts attempts the policy's own throttle refused to send; AdmitDelay
	// is the time its client-side rate limiter held attempts back; HedgedCopies the copies
	// a hedging policy sent beyond each operation's first; AttemptsCancelled the copies it
	// cancelled on the wire.
	LocallyRejected, HedgedCopies, AttemptsCancelled uint64
	AdmitDelay                                       time.Duration
	// DriverQueue is a gauge at End: the operations waiting in the group's drivers for a
	// pooled connection (the pools' wait queues), for a suitable server (server selection) or
	// for the policy's client-side limiter — the backlog the drivers hold, which the servers'
	// worker queues do not show. Add sums it (across groups, the total at one instant).
	DriverQueue int

	// Retry token bucket levels at End over the clients that have a bucket: the minimum, and
	// the sum and count for the mean. TokensMin is NaN and TokensN 0 when no client has one.
	// Gauges: Add keeps the lowest minimum and sums the rest, so that a window's mean is over
	// every interval end in it.
	TokensMin float64
	TokensSum float64
	TokensN   int

	// Latency from issue to final result of the operations that finished in the interval,
	// successes and failures apart. Read-only once the interval is closed.
	Success, Failure Histogram
	// Attempt is per-attempt latency, from sending a command to its reply (or to the deadline
	// that abandoned it), of every attempt that ended in the interval.
	Attempt Histogram
}

// Add adds o's counters and latencies to g, and folds in its retry-token levels.
func (g *GroupInterval) Add(o *GroupInterval) {
	g.Issued += o.Issued
	g.Succeeded += o.Succeeded
	g.Failed += o.Failed
	g.FailedByClass = addCounts(g.FailedByClass, o.FailedByClass)
	g.AppRetries += o.AppRetries
	g.DriverOps += o.DriverOps
	g.Attempts += o.Attempts
	g.Retries += o.Retries
	g.RetriesRefused += o.RetriesRefused
	g.WritesLost += o.WritesLost
	g.Backoff += o.Backoff
	g.CheckoutFailed += o.CheckoutFailed
	g.PoolClears += o.PoolClears
	g.RetriedByReason = addCounts(g.RetriedByReason, o.RetriedByReason)
	g.NotRetriedByReason = addCounts(g.NotRetriedByReason, o.NotRetriedByReason)
	g.RetriesCancelled += o.RetriesCancelled
	g.LocallyRejected += o.LocallyRejected
	g.HedgedCopies += o.HedgedCopies
	g.AttemptsCancelled += o.AttemptsCancelled
	g.AdmitDelay += o.AdmitDelay
	g.DriverQueue += o.DriverQueue
	if o.TokensN > 0 && (g.TokensN == 0 || o.TokensMin < g.TokensMin) {
		g.TokensMin = o.TokensMin
	}
	g.TokensSum += o.TokensSum
	g.TokensN += o.TokensN
	g.Success.Merge(&o.Success)
	g.Failure.Merge(&o.Failure)
	g.Attempt.Merge(&o.Attempt)
}

// Sub makes g, a cumulative reading, the interval from the earlier reading o to g: counters
// become differences and Start becomes o.End. Gauges and latencies stay g's. The count slices
// are g's own afterwards (never shared with o).
func (g *GroupInterval) Sub(o *GroupInterval) {
	g.Start = o.End
	g.Issued -= o.Issued
	g.Succeeded -= o.Succeeded
	g.Failed -= o.Failed
	g.FailedByClass = subCounts(g.FailedByClass, o.FailedByClass)
	g.AppRetries -= o.AppRetries
	g.DriverOps -= o.DriverOps
	g.Attempts -= o.Attempts
	g.Retries -= o.Retries
	g.RetriesRefused -= o.RetriesRefused
	g.WritesLost -= o.WritesLost
	g.Backoff -= o.Backoff
	g.CheckoutFailed -= o.CheckoutFailed
	g.PoolClears -= o.PoolClears
	g.RetriedByReason = subCounts(g.RetriedByReason, o.RetriedByReason)
	g.NotRetriedByReason = subCounts(g.NotRetriedByReason, o.NotRetriedByReason)
	g.RetriesCancelled -= o.RetriesCancelled
	g.LocallyRejected -= o.LocallyRejected
	g.HedgedCopies -= o.HedgedCopies
	g.AttemptsCancelled -= o.AttemptsCancelled
	g.AdmitDelay -= o.AdmitDelay
}

// addCounts returns a + b elementwise, grown to the longer of the two (a is reused when it is
// long enough).
func addCounts(a, b []uint64) []uint64 {
	if len(a) < len(b) {
		a = append(a, make([]uint64, len(b)-len(a))...)
	}
	for i, v := range b {
		a[i] += v
	}
	return a
}

// subCounts returns a fresh a − b elementwise (a reading's slices may be kept as the previous
// reading, so they are never changed in place).
func subCounts(a, b []uint64) []uint64 {
	out := slices.Clone(a)
	for i := range min(len(a), len(b)) {
		out[i] -= b[i]
	}
	return out
}

// Seconds returns the interval's length in seconds.
func (g *GroupInterval) Seconds() float64 { return g.End.Sub(g.Start).Seconds() }

// Offered returns the operations issued by the application per second.
func (g *GroupInterval) Offered() float64 { return rate(g.Issued, g.Seconds()) }

// AttemptRate returns the commands put on the wire per second.
func (g *GroupInterval) AttemptRate() float64 { return rate(g.Attempts, g.Seconds()) }

// Amplification returns attempts ÷ operations issued (1 = no retries), NaN when none was issued.
func (g *GroupInterval) Amplification() float64 { return ratio(g.Attempts, g.Issued) }

// Goodput returns the operations that completed successfully per second.
func (g *GroupInterval) Goodput() float64 { return rate(g.Succeeded, g.Seconds()) }

// FailureRate returns the operations that returned an error to the application per second.
func (g *GroupInterval) FailureRate() float64 { return rate(g.Failed, g.Seconds()) }

// TokensMean returns the mean retry-token level over the clients with a bucket, NaN without.
func (g *GroupInterval) TokensMean() float64 {
	if g.TokensN == 0 {
		return math.NaN()
	}
	return g.TokensSum / float64(g.TokensN)
}

// ServerInterval is what one server did in one interval [Start, End): differences of its
// cumulative serverStatus-like counters and time integrals, and gauges at End.
type ServerInterval struct {
	Start, End sim.Time
	Name       string // the node's address

	Completed          uint64 // commands that executed to the end
	RejectedAdmissions uint64 // ingress request limiter rejections (462)
	QueueOverflows     uint64 // admission queue overflows (433)
	ConnRejected       uint64 // connections the establishment limiter closed

	BusyArea     float64       // ∫ busy workers dt, worker-seconds
	CapacityArea float64       // ∫ workers dt while up, worker-seconds
	QueueArea    float64       // ∫ worker-queue length dt
	RejectBusy   time.Duration // worker time spent rejecting
	WastedBusy   time.Duration // worker time spent rejecting or on work whose client had given up

	// Gauges at End.
	Workers     int
	Connections int
	Tokens      float64 // the request limiter's available tokens; +Inf when it is off
	Down        bool
}

// Add adds o's counters and time integrals to s; the gauges stay s's.
func (s *ServerInterval) Add(o *ServerInterval) {
	s.Completed += o.Completed
	s.RejectedAdmissions += o.RejectedAdmissions
	s.QueueOverflows += o.QueueOverflows
	s.ConnRejected += o.ConnRejected
	s.BusyArea += o.BusyArea
	s.CapacityArea += o.CapacityArea
	s.QueueArea += o.QueueArea
	s.RejectBusy += o.RejectBusy
	s.WastedBusy += o.WastedBusy
}

// Sub makes s, a cumulative reading, the interval from the earlier reading o to s: counters and
// time integrals become differences, Start becomes o.End, the gauges stay s's.
func (s *ServerInterval) Sub(o *ServerInterval) {
	s.Start = o.End
	s.Completed -= o.Completed
	s.RejectedAdmissions -= o.RejectedAdmissions
	s.QueueOverflows -= o.QueueOverflows
	s.ConnRejected -= o.ConnRejected
	s.BusyArea -= o.BusyArea
	s.CapacityArea -= o.CapacityArea
	s.QueueArea -= o.QueueArea
	s.RejectBusy -= o.RejectBusy
	s.WastedBusy -= o.WastedBusy
}

// Seconds returns the interval's length in seconds.
func (s *ServerInterval) Seconds() float64 { return s.End.Sub(s.Start).Seconds() }

// Rejections returns the attempts and connections refused by a limiter per second: request
// limiter, admission queue and connection-establishment limiter together.
func (s *ServerInterval) Rejections() float64 {
	return rate(s.RejectedAdmissions+s.QueueOverflows+s.ConnRejected, s.Seconds())
}

// Utilisation returns busy worker time ÷ worker capacity while up, NaN if the node was down for
// the whole interval.
func (s *ServerInterval) Utilisation() float64 { return fratio(s.BusyArea, s.CapacityArea) }

// RejectShare returns the share of the node's capacity spent on rejections.
func (s *ServerInterval) RejectShare() float64 { return fratio(s.RejectBusy.Seconds(), s.CapacityArea) }

// WastedShare returns the share of the node's capacity spent on wasted work: rejections and
// requests whose client had already given up.
func (s *ServerInterval) WastedShare() float64 { return fratio(s.WastedBusy.Seconds(), s.CapacityArea) }

// ShardInterval is what one mongos did toward one shard in one interval [Start, End): the
// differences of its per-shard statistics (serverStatus shardingStatistics.shards.<id>) between
// the two ends, and the shard's retry budget balance at End.
type ShardInterval struct {
	Start, End sim.Time
	Mongos     string // the mongos's address
	Shard      string // the shard's name

	Attempted         uint64        // numOperationsAttempted
	RetriedOverload   uint64        // numOperationsRetriedAtLeastOnceDueToOverload
	RetriedOverloadOK uint64        // …AndSucceeded
	OverloadRetries   uint64        // numRetriesDueToOverloadAttempted
	Retargeted        uint64        // numRetriesRetargetedDueToOverload
	OverloadErrors    uint64        // numOverloadErrorsReceived
	Backoff           time.Duration // totalBackoffTimeMillis
	// Balance is the retryBudgetTokenBucketBalance at End (+Inf without a budget). A gauge:
	// Add keeps the lower of the two, so that a window's sum holds its lowest balance.
	Balance float64
}

// Add adds o's counters to s and keeps the lower balance.
func (s *ShardInterval) Add(o *ShardInterval) {
	s.Attempted += o.Attempted
	s.RetriedOverload += o.RetriedOverload
	s.RetriedOverloadOK += o.RetriedOverloadOK
	s.OverloadRetries += o.OverloadRetries
	s.Retargeted += o.Retargeted
	s.OverloadErrors += o.OverloadErrors
	s.Backoff += o.Backoff
	s.Balance = min(s.Balance, o.Balance)
}

// Sub makes s, a cumulative reading, the interval from the earlier reading o to s: counters
// become differences, Start becomes o.End, the balance stays s's.
func (s *ShardInterval) Sub(o *ShardInterval) {
	s.Start = o.End
	s.Attempted -= o.Attempted
	s.RetriedOverload -= o.RetriedOverload
	s.RetriedOverloadOK -= o.RetriedOverloadOK
	s.OverloadRetries -= o.OverloadRetries
	s.Retargeted -= o.Retargeted
	s.OverloadErrors -= o.OverloadErrors
	s.Backoff -= o.Backoff
}

// Seconds returns the interval's length in seconds.
func (s *ShardInterval) Seconds() float64 { return s.End.Sub(s.Start).Seconds() }

// Amplification returns the mongos's overload retries per routed command plus one: the factor by
// which overload retries multiply what reaches the shard (1 = none). NaN when nothing was routed.
func (s *ShardInterval) Amplification() float64 {
	if s.Attempted == 0 {
		return ratio(0, 0)
	}
	return float64(s.Attempted+s.OverloadRetries) / float64(s.Attempted)
}

// summable is a record that sums into a window total.
type summable[R any] interface {
	*R
	Add(*R)
}

// windowSums sums, by key, the records that start at or after from: keys in the order they first
// appear, and each key's total (zero with every record in the window added). It is the one "sum
// by name over a window" of groups, servers and shards.
func windowSums[R any, P summable[R], K comparable](rows []R, from sim.Time, zero R, start func(*R) sim.Time, key func(*R) K) ([]K, map[K]*R) {
	var keys []K
	sums := map[K]*R{}
	for i := range rows {
		r := &rows[i]
		if start(r) < from {
			continue
		}
		k := key(r)
		acc := sums[k]
		if acc == nil {
			acc = new(R)
			*acc = zero
			sums[k] = acc
			keys = append(keys, k)
		}
		P(acc).Add(r)
	}
	return keys, sums
}
