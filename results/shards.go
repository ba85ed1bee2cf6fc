package results

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/overloadsim/overloadsim/sim"
)

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
	keys, sums := windowSums(s.Shards, from, ShardInterval{Balance: math.Inf(1)},
		func(v *ShardInterval) sim.Time { return v.Start },
		func(v *ShardInterval) [2]string { return [2]string{v.Mongos, v.Shard} })
	var out []ShardSummary
	for _, k := range keys {
		v := sums[k]
		out = append(out, ShardSummary{Mongos: k[0], Shard: k[1],
			Attempted: v.Attempted, RetriedOverload: v.RetriedOverload, RetriedOverloadOK: v.RetriedOverloadOK,
			OverloadRetries: v.OverloadRetries, Retargeted: v.Retargeted, OverloadErrors: v.OverloadErrors,
			Backoff:       v.Backoff.Seconds(),
			Amplification: ratio(v.Attempted+v.OverloadRetries, v.Attempted),
			BalanceMin:    v.Balance})
	}
	return out
}

// ShardRows is shards.csv read back: per (mongos, shard) track, in order of first appearance,
// the interval ends (seconds) and each column's values.
type ShardRows struct {
	Tracks []ShardTrack
}

// ShardTrack is one mongos's traffic to one shard over time.
type ShardTrack struct {
	Mongos, Shard string
	Ends          []float64            // interval ends, seconds
	Values        map[string][]float64 // by column of ShardColumns (after time, mongos, shard)
}

// ReadShards reads shards.csv from a run's folder.
func ReadShards(dir string) (ShardRows, error) {
	var out ShardRows
	f, err := openRegular(filepath.Join(dir, ShardsFile), MaxTableBytes, "a "+ShardsFile)
	if err != nil {
		return out, fmt.Errorf("results: %w", err)
	}
	defer f.Close()
	rows, err := csv.NewReader(io.LimitReader(f, MaxTableBytes)).ReadAll()
	if err != nil {
		return out, fmt.Errorf("results: %s: %w", ShardsFile, err)
	}
	if len(rows) == 0 || !slices.Equal(rows[0], ShardColumns()) {
		return out, fmt.Errorf("results: %s: the header is not %v", ShardsFile, ShardColumns())
	}
	index := map[[2]string]int{}
	for n, row := range rows[1:] {
		key := [2]string{row[1], row[2]}
		i, ok := index[key]
		if !ok {
			i = len(out.Tracks)
			index[key] = i
			out.Tracks = append(out.Tracks, ShardTrack{Mongos: row[1], Shard: row[2], Values: map[string][]float64{}})
		}
		t := &out.Tracks[i]
		end, err := strconv.ParseFloat(row[0], 64)
		if err != nil {
			return out, fmt.Errorf("results: %s: row %d: time %q", ShardsFile, n+2, row[0])
		}
		t.Ends = append(t.Ends, end)
		for k, c := range shardColumns {
			v := math.NaN()
			if row[3+k] != "" {
				if v, err = strconv.ParseFloat(row[3+k], 64); err != nil {
					return out, fmt.Errorf("results: %s: row %d: %s %q", ShardsFile, n+2, c.name, row[3+k])
				}
			}
			t.Values[c.name] = append(t.Values[c.name], v)
		}
	}
	return out, nil
}
