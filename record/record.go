// Package record observes a run from inside the loop. Its Recorder reads the model's counters
// into the interval records of package results every interval of virtual time, one function per
// source (Group, Server, Shards), and hears the latency of every application operation and
// attempt. It is the only package that knows both the model and the records: results knows
// nothing of clients or servers.
package record

import (
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
	rec.DriverQueue = g.DriverQueue()
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
