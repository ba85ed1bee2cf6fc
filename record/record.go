// Package record connects a built model to results. It reads the model's counters into the
// interval records of package results, one function per source (Group, Server, Shards), and
// hears the latency of every application operation and attempt. It is the only package that
// knows both the model and the records: results knows nothing of clients or servers.
package record

import (
	"time"

	"github.com/overloadsim/overloadsim/client"
	"github.com/overloadsim/overloadsim/client/retry"
	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/server"
	"github.com/overloadsim/overloadsim/server/mongos"
	"github.com/overloadsim/overloadsim/sim"
)

// Names returns the names of the model's error classes (ErrNone left out) and retry reasons
// (ReasonNone left out), in the order Group fills the records' count slices.
func Names() results.Names {
	var n results.Names
	for c := client.ErrClass(1); int(c) < client.NumErrClasses; c++ {
		n.ErrClasses = append(n.ErrClasses, c.String())
	}
	for r := retry.Reason(1); int(r) < retry.NumReasons; r++ {
		n.RetryReasons = append(n.RetryReasons, r.String())
	}
	return n
}

// Group returns g's record, counters cumulative since g was created: what the application saw
// (client.GroupStats) and the driver counters of its clients added together
// (Group.DriverStats), with the retry-token levels of the clients that have a bucket. The cost
// does not depend on the number of clients, save for reading one float per bucket.
func Group(g *client.Group) results.GroupInterval {
	gs := g.Stats()
	cs := g.DriverStats()
	rec := results.GroupInterval{Name: g.Name(),
		Issued: gs.Issued, Succeeded: gs.Succeeded, Failed: gs.Failed, AppRetries: gs.AppRetries,
		FailedByClass: make([]uint64, client.NumErrClasses-1)}
	for i := range rec.FailedByClass {
		rec.FailedByClass[i] = gs.FailedByClass[i+1]
	}
	rec.TokensMin, rec.TokensSum, rec.TokensN = g.RetryTokens()
	rec.DriverOps, rec.Attempts = cs.OpsIssued, cs.AttemptsStarted
	rec.Retries, rec.RetriesRefused, rec.RetriesCancelled = cs.Retries, cs.RetriesRefusedNoToken, cs.RetriesCancelled
	rec.Backoff = cs.BackoffTotal
	rec.WritesLost = cs.WritesLost
	rec.LocallyRejected, rec.HedgedCopies, rec.AttemptsCancelled = cs.LocallyRejected, cs.HedgedCopies, cs.AttemptsCancelled
	rec.AdmitDelay = cs.AdmitDelay
	rec.CheckoutFailed, rec.PoolClears = cs.CheckoutFailed, cs.PoolClears
	rec.RetriedByReason = cs.RetriedByReason[1:]
	rec.NotRetriedByReason = cs.NotRetriedByReason[1:]
	return rec
}

// Server returns s's record at now, counters and time integrals cumulative since s was
// created (server.Stats), with its gauges.
func Server(s *server.Server, now sim.Time) results.ServerInterval {
	st := s.Snapshot(now)
	return serverRecord(s, &st)
}

// serverRecord returns s's record from its statistics st.
func serverRecord(s *server.Server, st *server.Stats) results.ServerInterval {
	return results.ServerInterval{Name: s.Address(),
		Completed: st.Completed, RejectedAdmissions: st.RejectedAdmissions,
		QueueOverflows: st.QueueOverflows, ConnRejected: st.ConnRejected,
		BusyArea: st.BusyArea, CapacityArea: st.CapacityArea, QueueArea: st.QueueArea,
		RejectBusy: st.RejectBusyTime, WastedBusy: st.WastedBusyTime,
		Workers: st.Workers, Connections: st.ConnectionsCurrent, Tokens: st.RequestLimiterTokens, Down: st.Down}
}

// Shards returns one record per shard of rt, in configuration order, counters cumulative since
// rt was created (mongos.ShardStats), with each shard's retry budget balance.
func Shards(rt *mongos.Router) []results.ShardInterval {
	stats := rt.Stats()
	out := make([]results.ShardInterval, len(stats))
	for i := range stats {
		c := &stats[i]
		out[i] = results.ShardInterval{Shard: c.Shard,
			Attempted:         c.NumOperationsAttempted,
			RetriedOverload:   c.NumOperationsRetriedAtLeastOnceDueToOverload,
			RetriedOverloadOK: c.NumOperationsRetriedAtLeastOnceDueToOverloadAndSucceeded,
			OverloadRetries:   c.NumRetriesDueToOverloadAttempted,
			Retargeted:        c.NumRetriesRetargetedDueToOverload,
			OverloadErrors:    c.NumOverloadErrorsReceived,
			Backoff:           c.TotalBackoffTime,
			Balance:           c.RetryBudgetTokenBucketBalance}
	}
	return out
}

// Recorder records a world: a results.Recorder whose sources are the model's groups, servers
// and mongos routers, and the observer of their operations and attempts. Observers are
// attached here and nowhere else.
type Recorder struct {
	loop   *sim.Loop
	rec    *results.Recorder
	groups map[*client.Group]*results.GroupTrack
	// nodes are the nodes recorded, with when each was added; status, their serverStatus
	// collectors, nil unless CollectStatus was called.
	nodes  map[*server.Server]sim.Time
	status map[*server.Server]*statusNode
	// The last group an operation or attempt ended in, and its track: most runs have one group,
	// and a map lookup per attempt would cost more than the rest of recording it.
	lastGroup *client.Group
	lastTrack *results.GroupTrack
}

var (
	_ client.Observer        = (*Recorder)(nil)
	_ client.AttemptObserver = (*Recorder)(nil)
)

// New returns a recorder that samples every interval on loop. It panics if interval is not
// positive.
func New(loop *sim.Loop, interval time.Duration) *Recorder {
	return &Recorder{loop: loop, rec: results.NewRecorder(loop, interval, Names()), groups: map[*client.Group]*results.GroupTrack{},
		nodes: map[*server.Server]sim.Time{}}
}

// AddGroup starts recording g: its counters count from now, and the recorder becomes the
// observer of the group's operations and of its clients' attempts. Adding a group twice does
// nothing.
func (r *Recorder) AddGroup(g *client.Group) {
	if _, ok := r.groups[g]; ok {
		return
	}
	t := r.rec.AddGroup(g.Name(), func() results.GroupInterval { return Group(g) })
	r.groups[g] = t
	g.SetObserver(r)
	for _, c := range g.Clients() {
		c.SetAttemptObserver(r)
	}
}

// AddNode starts recording s; its counters count from now. Each reading of the node also takes
// its serverStatus document, once CollectStatus has been called.
func (r *Recorder) AddNode(s *server.Server) {
	r.nodes[s] = r.loop.Now()
	r.rec.AddServer(s.Address(), func(now sim.Time) results.ServerInterval {
		st := s.Snapshot(now)
		if n := r.status[s]; n != nil {
			n.take(now, &st)
		}
		return serverRecord(s, &st)
	})
}

// AddRouter starts recording the per-shard statistics of the mongos called name; its counters
// count from now.
func (r *Recorder) AddRouter(name string, rt *mongos.Router) {
	r.rec.AddShards(name, func() []results.ShardInterval { return Shards(rt) })
}

// AddFault records a trigger window (results.Recorder.AddFault).
func (r *Recorder) AddFault(name string, start, end sim.Time) { r.rec.AddFault(name, start, end) }

// Start schedules the sampling (results.Recorder.Start).
func (r *Recorder) Start() { r.rec.Start() }

// SoFar returns the intervals closed so far (results.Recorder.SoFar).
func (r *Recorder) SoFar() *results.Series { return r.rec.SoFar() }

// Finish closes the last interval at now and returns the series (results.Recorder.Finish).
func (r *Recorder) Finish(now sim.Time) *results.Series { return r.rec.Finish(now) }

// AppOperationDone implements client.Observer: it files the operation's latency under the
// interval in which it finished.
func (r *Recorder) AppOperationDone(now sim.Time, g *client.Group, res *client.AppResult) {
	if t := r.track(g); t != nil {
		t.Op(res.OK, res.Done.Sub(res.Issued))
	}
}

// track returns the track of g, nil if g is not recorded.
func (r *Recorder) track(g *client.Group) *results.GroupTrack {
	if g != r.lastGroup {
		r.lastGroup, r.lastTrack = g, r.groups[g]
	}
	return r.lastTrack
}

// AttemptDone implements client.AttemptObserver: it files an attempt's latency under the
// interval in which it ended.
func (r *Recorder) AttemptDone(now sim.Time, c *client.Client, sent sim.Time, ok bool) {
	if t := r.track(c.Group()); t != nil {
		t.Attempt(now.Sub(sent))
	}
}
