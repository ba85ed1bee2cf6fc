package results

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/sim"
)

// shardSeries is two intervals of one mongos toward two shards, one of them without a budget.
func shardSeries() *Series {
	at := func(s float64) sim.Time { return sim.Time(s * 1e9) }
	row := func(start, end float64, shard string, attempted, retries uint64, bal float64) ShardInterval {
		return ShardInterval{Start: at(start), End: at(end), Mongos: "m1", Shard: shard, Attempted: attempted,
			RetriedOverload: retries / 2, OverloadRetries: retries, OverloadErrors: retries + 1,
			Retargeted: retries / 3, Backoff: time.Duration(retries) * 10 * time.Millisecond, Balance: bal}
	}
	return &Series{Interval: time.Second, Shards: []ShardInterval{
		row(0, 1, "s0", 100, 60, 940), row(0, 1, "s1", 50, 0, math.Inf(1)),
		row(1, 2, "s0", 200, 30, 910.5), row(1, 2, "s1", 0, 0, math.Inf(1)),
	}}
}

// shards.csv: one row per interval per mongos per shard, rates per second, the amplification
// (attempted + overload retries) ÷ attempted, and an empty balance without a budget.
func TestWriteShards(t *testing.T) {
	var b bytes.Buffer
	if err := WriteShards(&b, shardSeries()); err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"time,mongos,shard,attempted,retried_overload,retried_overload_ok,overload_retries,retargeted,overload_errors,backoff,amplification,budget_balance",
		"1,m1,s0,100,30,0,60,20,61,0.6,1.6,940",
		"1,m1,s1,50,0,0,0,0,1,0,1,",
		"2,m1,s0,200,15,0,30,10,31,0.3,1.15,910.5",
		"2,m1,s1,0,0,0,0,0,1,0,,",
		"",
	}, "\n")
	if b.String() != want {
		t.Errorf("shards.csv:\n%s\nwant\n%s", b.String(), want)
	}
}

// The summary sums the measured window by (mongos, shard) and keeps the lowest balance; a run
// without mongos nodes has no shards in summary.json at all.
func TestSummarizeShards(t *testing.T) {
	s := shardSeries()
	sum := summarizeShards(s, sim.Time(time.Second))
	if len(sum) != 2 || sum[0].Attempted != 200 || sum[0].BalanceMin != 910.5 || sum[0].Amplification != 1.15 {
		t.Errorf("after the 1s warm-up: %+v", sum)
	}
	all := summarizeShards(s, 0)
	if all[0].Attempted != 300 || all[0].OverloadRetries != 90 || all[0].Backoff != 0.9 || !math.IsInf(all[1].BalanceMin, 1) {
		t.Errorf("whole run: %+v", all)
	}
	js, err := marshalJSON(Summarize(&Series{Interval: time.Second}, 0))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(js), "shards") || strings.Contains(string(js), "retryReasons") {
		t.Errorf("summary.json of a run without mongos or Couchbase clients mentions them:\n%s", js)
	}
}
