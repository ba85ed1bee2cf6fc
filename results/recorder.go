package results

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"overloadsim/client"
	"overloadsim/client/retry"
	"overloadsim/server"
	"overloadsim/sim"
)

// GroupInterval is what one client group did in one interval [Start, End). Counters are the
// differences of the group's and its clients' cumulative counters between the two ends, so they
// add up exactly to the run's totals. Rates are methods, per second of the interval's length.
type GroupInterval struct {
	Start, End sim.Time
	Name       string

	// Application operations (client.GroupStats).
	Issued, Succeeded, Failed uint64
	FailedByClass             [client.NumErrClasses]uint64
	AppRetries                uint64 // driver operations the application re-issued

	// Driver counters summed over the group's clients (client.Stats).
	DriverOps      uint64        // driver operations started (application retries included)
	Attempts       uint64        // commands put on the wire (CommandStartedEvent)
	Retries        uint64        // retries the retry policy allowed
	RetriesRefused uint64        // overload retries refused for want of a retry token
	Backoff        time.Duration // backoff slept by the driver
	CheckoutFailed uint64
	PoolClears     uint64
	// Couchbase policies' decisions by retry reason, and retries capped and cancelled.
	RetriedByReason, NotRetriedByReason [retry.NumReasons]uint64
	RetriesCancelled                    uint64

	// Retry token bucket levels at End over the clients that have a bucket: the minimum, and
	// the sum and count for the mean. TokensMin is NaN and TokensN 0 when no client has one.
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
// cumulative serverStatus-like counters and time integrals (server.Stats), and gauges at End.
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

// FaultWindow is a trigger: a fault active from Start to End (End = Start for an instantaneous
// fault such as a stepdown).
type FaultWindow struct {
	Name       string
	Start, End sim.Time
}

// Series is a run's time series. Groups and Servers are in (End, Name) order; every interval
// but possibly the last is Interval long. Faults are in (Start, Name) order.
type Series struct {
	Interval time.Duration
	Groups   []GroupInterval
	Servers  []ServerInterval
	// Shards holds each mongos's per-shard statistics, in (End, mongos, shard order) order;
	// empty without mongos nodes.
	Shards []ShardInterval
	Faults []FaultWindow
	// Recovery is the rule Recoveries judges the triggers by (zero: the defaults).
	Recovery RecoveryRule
}

// End returns the end of the last interval (0 for an empty series).
func (s *Series) End() sim.Time {
	var end sim.Time
	if n := len(s.Groups); n > 0 {
		end = s.Groups[n-1].End
	}
	if n := len(s.Servers); n > 0 {
		end = max(end, s.Servers[n-1].End)
	}
	return end
}

// Recorder samples client groups and servers every interval of virtual time and collects the
// latency of every application operation. It implements client.Observer (pass it to
// client.NewGroup) and sim.Handler (for its own sampling events).
//
// Use: NewRecorder, NewGroup(…, rec) and AddGroup for each group, AddNode for each server,
// AddFault for each trigger, Start, run the loop, Finish.
type Recorder struct {
	loop     *sim.Loop
	interval time.Duration
	groups   []*groupRec
	byGroup  map[*client.Group]*groupRec
	byClient map[*client.Client]*groupRec
	last     *groupRec // AppOperationDone's cache
	nodes    []*nodeRec
	routers  []*routerRec
	faults   []FaultWindow
	from     sim.Time // start of the interval being recorded
	finished bool
	series   Series
}

type clientTotals struct {
	driverOps, attempts, retries, refused, checkoutFailed, poolClears uint64
	backoff                                                           time.Duration
	cancelled                                                         uint64
	retried, notRetried                                               [retry.NumReasons]uint64
}

type groupRec struct {
	g                *client.Group
	prev             client.GroupStats
	prevC            clientTotals
	success, failure Histogram
	attempt          Histogram
}

type nodeRec struct {
	s    *server.Server
	prev server.Stats
}

// NewRecorder returns a recorder that samples every interval on loop. It panics if interval is
// not positive.
func NewRecorder(loop *sim.Loop, interval time.Duration) *Recorder {
	if interval <= 0 {
		panic(fmt.Sprintf("results: NewRecorder: interval %v must be > 0", interval))
	}
	return &Recorder{loop: loop, interval: interval, byGroup: map[*client.Group]*groupRec{},
		byClient: map[*client.Client]*groupRec{}, from: loop.Now(), series: Series{Interval: interval}}
}

// AddGroup starts recording g; its counters count from now. A group whose first operation
// finishes before AddGroup is added then.
func (r *Recorder) AddGroup(g *client.Group) {
	if _, ok := r.byGroup[g]; ok {
		return
	}
	gr := &groupRec{g: g, prev: g.Stats(), prevC: sumClients(g)}
	r.byGroup[g] = gr
	for _, c := range g.Clients() {
		r.byClient[c] = gr
		c.SetAttemptObserver(r)
	}
	r.groups = append(r.groups, gr)
	slices.SortStableFunc(r.groups, func(a, b *groupRec) int { return cmp.Compare(a.g.Name(), b.g.Name()) })
}

// AddNode starts recording s; its counters count from now.
func (r *Recorder) AddNode(s *server.Server) {
	r.nodes = append(r.nodes, &nodeRec{s: s, prev: s.Snapshot(r.loop.Now())})
	slices.SortStableFunc(r.nodes, func(a, b *nodeRec) int { return cmp.Compare(a.s.Address(), b.s.Address()) })
}

// AddFault records a trigger window, for shading in plots and for recovery times. end = start
// for an instantaneous fault.
func (r *Recorder) AddFault(name string, start, end sim.Time) {
	r.faults = append(r.faults, FaultWindow{Name: name, Start: start, End: max(start, end)})
}

// Start schedules the sampling: one event every interval from now (at interval, 2·interval, …
// when started at time 0), each closing the interval that ends there.
func (r *Recorder) Start() {
	r.from = r.loop.Now()
	r.loop.After(r.interval, r, 0, nil)
}

// HandleEvent implements sim.Handler: it closes the interval ending now and schedules the next.
func (r *Recorder) HandleEvent(now sim.Time, _ int, _ any) {
	if r.finished {
		return
	}
	r.close(now)
	r.loop.After(r.interval, r, 0, nil)
}

// AppOperationDone implements client.Observer: it files the operation's latency under the
// interval in which it finished.
func (r *Recorder) AppOperationDone(now sim.Time, g *client.Group, res *client.AppResult) {
	gr := r.last
	if gr == nil || gr.g != g {
		if gr = r.byGroup[g]; gr == nil {
			r.AddGroup(g)
			gr = r.byGroup[g]
		}
		r.last = gr
	}
	d := res.Done.Sub(res.Issued)
	if res.OK {
		gr.success.Record(d)
	} else {
		gr.failure.Record(d)
	}
}

// AttemptDone implements client.AttemptObserver: it files an attempt's latency under the
// interval in which it ended.
func (r *Recorder) AttemptDone(now sim.Time, c *client.Client, sent sim.Time, ok bool) {
	if gr := r.byClient[c]; gr != nil {
		gr.attempt.Record(now.Sub(sent))
	}
}

// SoFar returns the series of the intervals closed so far, for a caller that steps the loop and
// watches the run as it goes (a rare-event estimator's score). It is the recorder's own series:
// read it between loop steps, never keep it across one.
func (r *Recorder) SoFar() *Series { return &r.series }

// Finish closes the last, possibly partial, interval at now and returns the series. Later
// sampling events do nothing; calling Finish again returns the same series.
func (r *Recorder) Finish(now sim.Time) *Series {
	if !r.finished {
		if now > r.from {
			r.close(now)
		}
		r.finished = true
		faults := slices.Clone(r.faults)
		slices.SortStableFunc(faults, func(a, b FaultWindow) int {
			return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.Name, b.Name))
		})
		r.series.Faults = faults
	}
	return &r.series
}

func sumClients(g *client.Group) clientTotals {
	var t clientTotals
	for _, c := range g.Clients() {
		st := c.Snapshot()
		t.driverOps += st.OpsIssued
		t.attempts += st.AttemptsStarted
		t.retries += st.Retries
		t.refused += st.RetriesRefusedNoToken
		t.checkoutFailed += st.CheckoutFailed
		t.poolClears += st.PoolClears
		t.backoff += st.BackoffTotal
		t.cancelled += st.RetriesCancelled
		for i := range st.RetriedByReason {
			t.retried[i] += st.RetriedByReason[i]
			t.notRetried[i] += st.NotRetriedByReason[i]
		}
	}
	return t
}

// close ends the interval [r.from, now).
func (r *Recorder) close(now sim.Time) {
	from := r.from
	for _, gr := range r.groups {
		st, ct := gr.g.Stats(), sumClients(gr.g)
		row := GroupInterval{
			Start: from, End: now, Name: gr.g.Name(),
			Issued: st.Issued - gr.prev.Issued, Succeeded: st.Succeeded - gr.prev.Succeeded,
			Failed: st.Failed - gr.prev.Failed, AppRetries: st.AppRetries - gr.prev.AppRetries,
			DriverOps: ct.driverOps - gr.prevC.driverOps, Attempts: ct.attempts - gr.prevC.attempts,
			Retries: ct.retries - gr.prevC.retries, RetriesRefused: ct.refused - gr.prevC.refused,
			Backoff:        ct.backoff - gr.prevC.backoff,
			CheckoutFailed: ct.checkoutFailed - gr.prevC.checkoutFailed, PoolClears: ct.poolClears - gr.prevC.poolClears,
			TokensMin: math.NaN(),
			Success:   gr.success, Failure: gr.failure, Attempt: gr.attempt,
		}
		for i := range st.FailedByClass {
			row.FailedByClass[i] = st.FailedByClass[i] - gr.prev.FailedByClass[i]
		}
		row.RetriesCancelled = ct.cancelled - gr.prevC.cancelled
		for i := range ct.retried {
			row.RetriedByReason[i] = ct.retried[i] - gr.prevC.retried[i]
			row.NotRetriedByReason[i] = ct.notRetried[i] - gr.prevC.notRetried[i]
		}
		for _, c := range gr.g.Clients() {
			if tok := c.Snapshot().RetryTokens; !math.IsNaN(tok) {
				if row.TokensN == 0 || tok < row.TokensMin {
					row.TokensMin = tok
				}
				row.TokensSum += tok
				row.TokensN++
			}
		}
		gr.success, gr.failure, gr.attempt = Histogram{}, Histogram{}, Histogram{}
		gr.prev, gr.prevC = st, ct
		r.series.Groups = append(r.series.Groups, row)
	}
	for _, n := range r.nodes {
		st, p := n.s.Snapshot(now), &n.prev
		r.series.Servers = append(r.series.Servers, ServerInterval{
			Start: from, End: now, Name: n.s.Address(),
			Completed:          st.Completed - p.Completed,
			RejectedAdmissions: st.RejectedAdmissions - p.RejectedAdmissions,
			QueueOverflows:     st.QueueOverflows - p.QueueOverflows,
			ConnRejected:       st.ConnRejected - p.ConnRejected,
			BusyArea:           st.BusyArea - p.BusyArea,
			CapacityArea:       st.CapacityArea - p.CapacityArea,
			QueueArea:          st.QueueArea - p.QueueArea,
			RejectBusy:         st.RejectBusyTime - p.RejectBusyTime,
			WastedBusy:         st.WastedBusyTime - p.WastedBusyTime,
			Workers:            st.Workers, Connections: st.ConnectionsCurrent,
			Tokens: st.RequestLimiterTokens, Down: st.Down,
		})
		n.prev = st
	}
	r.closeShards(from, now)
	r.from = now
}

// rate returns n per second over secs seconds.
func rate(n uint64, secs float64) float64 {
	if secs <= 0 {
		return math.NaN()
	}
	return float64(n) / secs
}

// ratio returns a ÷ b, NaN when b is 0.
func ratio(a, b uint64) float64 {
	if b == 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}

// fratio returns a ÷ b, NaN when b is not positive.
func fratio(a, b float64) float64 {
	if !(b > 0) {
		return math.NaN()
	}
	return a / b
}
