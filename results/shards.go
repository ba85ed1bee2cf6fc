package results

import (
	"cmp"
	"encoding/csv"
	"io"
	"slices"
	"time"

	"overloadsim/server/mongos"
	"overloadsim/sim"
)

// ShardInterval is what one mongos did toward one shard in one interval [Start, End): the
// differences of its per-shard statistics (serverStatus shardingStatistics.shards.<id>, MODEL-FACTS
// §4) between the two ends, and the shard's retry budget balance at End.
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
	Balance           float64       // retryBudgetTokenBucketBalance at End (+Inf without a budget)
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

type routerRec struct {
	name string
	r    *mongos.Router
	prev []mongos.ShardStats
}

// AddRouter starts recording the per-shard statistics of the mongos called name; its counters
// count from now.
func (r *Recorder) AddRouter(name string, rt *mongos.Router) {
	r.routers = append(r.routers, &routerRec{name: name, r: rt, prev: rt.Stats()})
	slices.SortStableFunc(r.routers, func(a, b *routerRec) int { return cmp.Compare(a.name, b.name) })
}

// closeShards records the interval [from, now) of every router, shards in configuration order.
func (r *Recorder) closeShards(from, now sim.Time) {
	for _, rr := range r.routers {
		cur := rr.r.Stats()
		for i := range cur {
			c, p := &cur[i], &rr.prev[i]
			r.series.Shards = append(r.series.Shards, ShardInterval{
				Start: from, End: now, Mongos: rr.name, Shard: c.Shard,
				Attempted:         c.NumOperationsAttempted - p.NumOperationsAttempted,
				RetriedOverload:   c.NumOperationsRetriedAtLeastOnceDueToOverload - p.NumOperationsRetriedAtLeastOnceDueToOverload,
				RetriedOverloadOK: c.NumOperationsRetriedAtLeastOnceDueToOverloadAndSucceeded - p.NumOperationsRetriedAtLeastOnceDueToOverloadAndSucceeded,
				OverloadRetries:   c.NumRetriesDueToOverloadAttempted - p.NumRetriesDueToOverloadAttempted,
				Retargeted:        c.NumRetriesRetargetedDueToOverload - p.NumRetriesRetargetedDueToOverload,
				OverloadErrors:    c.NumOverloadErrorsReceived - p.NumOverloadErrorsReceived,
				Backoff:           c.TotalBackoffTime - p.TotalBackoffTime,
				Balance:           c.RetryBudgetTokenBucketBalance,
			})
		}
		rr.prev = cur
	}
}

// ShardsFile is the per-shard time series of a run with mongos nodes.
const ShardsFile = "shards.csv"

// shardColumns are the columns of shards.csv after time, mongos and shard: counters as rates
// per second, the backoff as seconds slept per second, the balance as a level.
var shardColumns = []struct {
	name  string
	value func(s *ShardInterval) float64
}{
	{"attempted", func(s *ShardInterval) float64 { return rate(s.Attempted, s.Seconds()) }},
	{"retried_overload", func(s *ShardInterval) float64 { return rate(s.RetriedOverload, s.Seconds()) }},
	{"retried_overload_ok", func(s *ShardInterval) float64 { return rate(s.RetriedOverloadOK, s.Seconds()) }},
	{"overload_retries", func(s *ShardInterval) float64 { return rate(s.OverloadRetries, s.Seconds()) }},
	{"retargeted", func(s *ShardInterval) float64 { return rate(s.Retargeted, s.Seconds()) }},
	{"overload_errors", func(s *ShardInterval) float64 { return rate(s.OverloadErrors, s.Seconds()) }},
	{"backoff", func(s *ShardInterval) float64 { return fratio(s.Backoff.Seconds(), s.Seconds()) }},
	{"amplification", (*ShardInterval).Amplification},
	{"budget_balance", func(s *ShardInterval) float64 { return s.Balance }},
}

// ShardColumns returns the header row of shards.csv.
func ShardColumns() []string {
	out := []string{"time", "mongos", "shard"}
	for _, c := range shardColumns {
		out = append(out, c.name)
	}
	return out
}

// WriteShards writes s.Shards as CSV: the header row ShardColumns, then one row per interval per
// mongos per shard, in (time, mongos, shard order) order; time is the interval's end in seconds.
func WriteShards(w io.Writer, s *Series) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(ShardColumns()); err != nil {
		return err
	}
	row := make([]string, 3+len(shardColumns))
	for i := range s.Shards {
		v := &s.Shards[i]
		row[0], row[1], row[2] = formatSeconds(int64(v.End)), v.Mongos, v.Shard
		for k, c := range shardColumns {
			row[3+k] = formatFloat(c.value(v))
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// ShardSummary is one mongos's traffic to one shard over the measured window.
type ShardSummary struct {
	Mongos            string  `json:"mongos"`
	Shard             string  `json:"shard"`
	Attempted         uint64  `json:"numOperationsAttempted"`
	RetriedOverload   uint64  `json:"numOperationsRetriedAtLeastOnceDueToOverload"`
	RetriedOverloadOK uint64  `json:"numOperationsRetriedAtLeastOnceDueToOverloadAndSucceeded"`
	OverloadRetries   uint64  `json:"numRetriesDueToOverloadAttempted"`
	Retargeted        uint64  `json:"numRetriesRetargetedDueToOverload"`
	OverloadErrors    uint64  `json:"numOverloadErrorsReceived"`
	Backoff           float64 `json:"totalBackoffSeconds"`
	Amplification     float64 `json:"amplification"`    // (attempted + overload retries) ÷ attempted
	BalanceMin        float64 `json:"budgetBalanceMin"` // the lowest balance at an interval end
}

// summarizeShards sums the shard intervals that start at or after from, by (mongos, shard) in
// the order they first appear.
func summarizeShards(s *Series, from sim.Time) []ShardSummary {
	var out []ShardSummary
	var backoff []time.Duration // summed exactly, converted once
	index := map[[2]string]int{}
	for i := range s.Shards {
		v := &s.Shards[i]
		if v.Start < from {
			continue
		}
		k := [2]string{v.Mongos, v.Shard}
		j, ok := index[k]
		if !ok {
			j = len(out)
			index[k] = j
			out = append(out, ShardSummary{Mongos: v.Mongos, Shard: v.Shard, BalanceMin: v.Balance})
			backoff = append(backoff, 0)
		}
		o := &out[j]
		o.Attempted += v.Attempted
		o.RetriedOverload += v.RetriedOverload
		o.RetriedOverloadOK += v.RetriedOverloadOK
		o.OverloadRetries += v.OverloadRetries
		o.Retargeted += v.Retargeted
		o.OverloadErrors += v.OverloadErrors
		backoff[j] += v.Backoff
		o.BalanceMin = min(o.BalanceMin, v.Balance)
	}
	for i := range out {
		o := &out[i]
		o.Amplification = ratio(o.Attempted+o.OverloadRetries, o.Attempted)
		o.Backoff = backoff[i].Seconds()
	}
	return out
}
