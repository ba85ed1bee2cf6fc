package record

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/serverstatus"
	"github.com/overloadsim/overloadsim/server"
	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
)

// collectTiny is the tiny world with its node's serverStatus collected from time 0.
func collectTiny(t *testing.T) (*tinyWorld, *StatusLog) {
	t.Helper()
	w := newTinyWorld(t)
	log := &StatusLog{}
	if err := w.rec.CollectStatus(w.cluster, log); err != nil {
		t.Fatal(err)
	}
	return w, log
}

// Rule (StatusLog's doc): a document is taken at time 0 and at every interval end, its
// counters are the node's own (server.Stats) and what its observer heard, and the differences
// of consecutive documents are the interval's: per interval, metrics.commands.find.total and
// opcounters.query grow by the finds the limiter admitted, rejectedAdmissions by the
// interval's rejections, opLatencies.reads.ops by the finds answered; the ticket pool's
// processing and queue times are the node's busy time (less rejections) and queue wait,
// truncated to µs; unanswered commands are connections.active.
func TestStatusMatchesCounters(t *testing.T) {
	w, log := collectTiny(t)
	p := &probe{w: w}
	p.seen = append(p.seen, p.read(0))
	w.loop.After(time.Second, p, 0, nil)
	w.loop.RunUntil(sim.Time(tinyHorizon))
	s := w.rec.Finish(sim.Time(tinyHorizon))
	p.seen = append(p.seen, p.read(sim.Time(tinyHorizon)))

	if len(log.Nodes) != 1 || log.Nodes[0].Name != "db" {
		t.Fatalf("nodes %+v, want db alone", log.Nodes)
	}
	docs := log.Nodes[0].Docs
	if len(docs) != 7 {
		t.Fatalf("%d documents, want 7: time 0, five interval ends and the half interval's", len(docs))
	}
	var answered uint64
	for i, d := range docs {
		at := p.seenAt(i)
		if got := time.Duration(d.UptimeMillis) * time.Millisecond; got != at || !d.LocalTime.Equal(StatusEpoch.Add(at)) || d.Host != "db:27017" {
			t.Errorf("document %d: uptime %v, localTime %v, host %s; want %v, %v, db:27017", i, got, d.LocalTime, d.Host, at, StatusEpoch.Add(at))
		}
		st := p.seen[i].node
		find := d.Metrics.Commands["find"]
		reads := d.OpLatencies.Reads
		pool := d.Queues.Execution.Read.NormalPriority
		checks := []struct {
			name      string
			got, want int64
		}{
			{"find.total = admitted", find.Total, int64(st.SuccessfulAdmissions)},
			{"opcounters.query = find.total", d.Opcounters.Query, find.Total},
			// The node's error replies less its 462s, which are never admitted.
			{"find.failed", find.Failed, int64(st.Errors - st.RejectedAdmissions)},
			{"rejectedAdmissions", d.Network.IngressRequestRateLimiter.RejectedAdmissions, int64(st.RejectedAdmissions)},
			{"unanswered = active", find.Total - reads.Ops, d.Connections.Active},
			{"histogram = ops", histogramCount(reads), reads.Ops},
			{"startedProcessing − finishedProcessing = processing", pool.StartedProcessing - pool.FinishedProcessing, pool.Processing},
			{"addedToQueue − removedFromQueue = queueLength", pool.AddedToQueue - pool.RemovedFromQueue, pool.QueueLength},
			{"queueLength = the node's queue", pool.QueueLength, int64(st.Queued)},
			// Both count a command's worker time when it ends.
			{"totalTimeProcessingMicros = busy time − rejections'", pool.TotalTimeProcessingMicros, (st.BusyTime - st.RejectBusyTime).Microseconds()},
			{"totalTimeQueuedMicros = queue wait", *pool.TotalTimeQueuedMicros, st.QueueWait.Microseconds()},
			{"connections.current", d.Connections.Current, int64(st.ConnectionsCurrent)},
		}
		for _, c := range checks {
			if c.got != c.want {
				t.Errorf("document %d (%v): %s = %d, want %d", i, at, c.name, c.got, c.want)
			}
		}
		if i > 0 {
			prev := docs[i-1]
			row := s.Servers[i-1]
			if got := d.Network.IngressRequestRateLimiter.RejectedAdmissions - prev.Network.IngressRequestRateLimiter.RejectedAdmissions; got != int64(row.RejectedAdmissions) {
				t.Errorf("interval %d: rejectedAdmissions grew by %d, the interval's record says %d", i-1, got, row.RejectedAdmissions)
			}
			answered += uint64(reads.Ops - prev.OpLatencies.Reads.Ops)
		}
	}
	last := docs[len(docs)-1]
	if last.Metrics.Commands["find"].Total == 0 || last.Network.IngressRequestRateLimiter.RejectedAdmissions == 0 || answered == 0 {
		t.Errorf("the world admits, rejects and answers finds: find %+v, limiter %+v, answered %d",
			last.Metrics.Commands["find"], last.Network.IngressRequestRateLimiter, answered)
	}
}

// seenAt is the instant of the probe's i-th reading: interval ends, then the horizon.
func (p *probe) seenAt(i int) time.Duration {
	return min(time.Duration(i)*time.Second, tinyHorizon)
}

// histogramCount adds up a latency histogram's ranges.
func histogramCount(l *serverstatus.Latency) int64 {
	var n int64
	for _, b := range l.Histogram {
		n += b.Count
	}
	return n
}

// Rule (CollectStatus's doc: the run is the run without it): the tiny world writes the same
// bytes with its node's serverStatus collected.
func TestStatusChangesNothing(t *testing.T) {
	var outs []map[string][]byte
	for _, collect := range []bool{false, true} {
		w := newTinyWorld(t)
		if collect {
			if err := w.rec.CollectStatus(w.cluster, &StatusLog{}); err != nil {
				t.Fatal(err)
			}
		}
		w.loop.RunUntil(sim.Time(tinyHorizon))
		run := results.NewRun(results.Header{Tool: "overloadsim", Scenario: "tiny", Seed: tinySeed, Duration: tinyHorizon, WarmupAuto: true},
			w.rec.Finish(sim.Time(tinyHorizon)))
		dir := t.TempDir()
		if err := results.WriteRunDir(dir, run); err != nil {
			t.Fatal(err)
		}
		outs = append(outs, readDir(t, dir))
	}
	for name, a := range outs[0] {
		if !bytes.Equal(a, outs[1][name]) {
			t.Errorf("%s differs with serverStatus collected", name)
		}
	}
}

// Rule (CollectStatus's doc): collection starts where the recorder's readings of every node
// start, once.
func TestCollectStatusRefuses(t *testing.T) {
	t.Run("after the loop ran", func(t *testing.T) {
		w := newTinyWorld(t)
		w.loop.RunUntil(sim.Time(time.Millisecond))
		if err := w.rec.CollectStatus(w.cluster, &StatusLog{}); err == nil || !strings.Contains(err.Error(), `node "db" is not recorded since now`) {
			t.Errorf("CollectStatus at 1ms = %v, want the node named", err)
		}
	})
	t.Run("a node the recorder does not record", func(t *testing.T) {
		w := newTinyWorld(t)
		other, err := server.NewCluster(w.loop, server.ClusterConfig{Nodes: []server.Config{{Address: "x"}}}, 1)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.rec.CollectStatus(other, &StatusLog{}); err == nil || !strings.Contains(err.Error(), `node "x"`) {
			t.Errorf("CollectStatus(unrecorded) = %v, want node x named", err)
		}
	})
	t.Run("twice", func(t *testing.T) {
		w := newTinyWorld(t)
		if err := w.rec.CollectStatus(w.cluster, &StatusLog{}); err != nil {
			t.Fatal(err)
		}
		if err := w.rec.CollectStatus(w.cluster, &StatusLog{}); err == nil {
			t.Error("a second CollectStatus was accepted")
		}
	})
}

// Rule (NodeStatus.Params's doc): getParameter says the configured limiters, MongoDB's
// defaults for one that is off, the rate as a whole number, and a mongod's tickets.
func TestStatusParams(t *testing.T) {
	on := server.RequestLimiterConfig{Enabled: true, AdmissionRatePerSec: 999.6, AdmissionBurstCapacitySecs: 0.5,
		AdmissionMaxQueueDepth: 7, ApplicationExemptions: []string{"batch"}}
	tests := []struct {
		gloss  string
		cfg    server.Config
		mongos bool
		want   string
	}{
		{"limiters off: MongoDB's defaults; the tickets are the workers",
			server.Config{Workers: 8}, false,
			`{"ingressRequestRateLimiterEnabled":false,"ingressRequestAdmissionRatePerSec":2147483647,"ingressRequestAdmissionBurstCapacitySecs":1.7976931348623157e+308,` +
				`"ingressRequestAdmissionMaxQueueDepth":0,"ingressRequestRateLimiterApplicationExemptions":{"appNames":[]},` +
				`"ingressConnectionEstablishmentRateLimiterEnabled":false,"ingressConnectionEstablishmentRatePerSec":2147483647,` +
				`"ingressConnectionEstablishmentBurstCapacitySecs":1.7976931348623157e+308,"ingressConnectionEstablishmentMaxQueueDepth":0,` +
				`"externalClientBaseBackoffMS":0,"executionControlConcurrentReadTransactions":8,"executionControlConcurrentWriteTransactions":8,` +
				`"executionControlConcurrencyAdjustmentAlgorithm":"fixedConcurrentTransactions","ok":1}`},
		{"limiters on, the rate rounded; a mongos has no tickets",
			server.Config{Workers: 8, RequestLimiter: on, ExternalClientBaseBackoffMS: 100,
				ConnLimiter: server.ConnLimiterConfig{Enabled: true, RatePerSec: 5e12, BurstCapacitySecs: 1, MaxQueueDepth: 3}}, true,
			`{"ingressRequestRateLimiterEnabled":true,"ingressRequestAdmissionRatePerSec":1000,"ingressRequestAdmissionBurstCapacitySecs":0.5,` +
				`"ingressRequestAdmissionMaxQueueDepth":7,"ingressRequestRateLimiterApplicationExemptions":{"appNames":["batch"]},` +
				`"ingressConnectionEstablishmentRateLimiterEnabled":true,"ingressConnectionEstablishmentRatePerSec":2147483647,` +
				`"ingressConnectionEstablishmentBurstCapacitySecs":1,"ingressConnectionEstablishmentMaxQueueDepth":3,` +
				`"externalClientBaseBackoffMS":100,"ok":1}`},
	}
	for _, tc := range tests {
		var b bytes.Buffer
		if err := serverstatus.Write(&b, params(tc.cfg, tc.mongos)); err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(b.String()); got != tc.want {
			t.Errorf("%s: params =\n%s\nwant\n%s", tc.gloss, got, tc.want)
		}
	}
}

// Rule (StatusLog's doc: units and truncation): an operation falls in the last histogram range
// whose bound is at or below its latency truncated to whole microseconds.
func TestStatusBucket(t *testing.T) {
	for _, c := range []struct {
		gloss string
		d     time.Duration
		want  int64 // the range's lower bound, µs
	}{
		{"no time at all", 0, 0},
		{"999 ns truncates to 0 µs", 999, 0},
		{"1 µs", time.Microsecond, 0},
		{"2 µs opens the second range", 2 * time.Microsecond, 2},
		{"2047.9 µs", 2047900, 1024},
		{"2048 µs", 2048 * time.Microsecond, 2048},
		{"a half-step: 3072 µs", 3072 * time.Microsecond, 3072},
		{"1 s", time.Second, 786432},
		{"beyond the last bound", 2_000_000 * time.Second, 1099511627776},
	} {
		if got := serverstatus.LowerBounds[bucket(c.d)]; got != c.want {
			t.Errorf("%s: bucket(%v) = range %d µs, want %d µs", c.gloss, c.d, got, c.want)
		}
	}
}

// Rule (StatusLog's doc: how commands count): the opLatencies kind, opcounter and ticket pool
// of every command follow serverStatus.
func TestStatusCategories(t *testing.T) {
	kinds := [...]string{"reads", "writes", "commands", "transactions"}
	ops := [...]string{"query", "insert", "update", "delete", "getmore", "command"}
	pools := [...]string{"read", "write"}
	for _, c := range []struct {
		cmd              wire.Command
		kind, op, poolOf string
	}{
		{wire.Find, "reads", "query", "read"},
		{wire.GetMore, "reads", "getmore", "read"},
		{wire.Aggregate, "reads", "command", "read"},
		{wire.Insert, "writes", "insert", "write"},
		{wire.Update, "writes", "update", "write"},
		{wire.Delete, "writes", "delete", "write"},
		{wire.FindAndModify, "writes", "command", "write"},
		{wire.CommitTransaction, "transactions", "command", "write"},
		{wire.AbortTransaction, "transactions", "command", "write"},
		{wire.Ping, "commands", "command", "read"},
		{wire.Hello, "commands", "command", "read"},
		{wire.KillCursors, "commands", "command", "read"},
	} {
		if k, o, p := kinds[kindOf(c.cmd)], ops[opOf(c.cmd)], pools[poolOf(c.cmd)]; k != c.kind || o != c.op || p != c.poolOf {
			t.Errorf("%v: kind %s, opcounter %s, pool %s; want %s, %s, %s", c.cmd, k, o, p, c.kind, c.op, c.poolOf)
		}
	}
	if math.MaxInt32 != defaultRate {
		t.Errorf("defaultRate %d, want INT32_MAX", defaultRate)
	}
}
