package record

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/client"
	"github.com/overloadsim/overloadsim/client/retry"
	"github.com/overloadsim/overloadsim/client/selection"
	"github.com/overloadsim/overloadsim/client/workload"
	"github.com/overloadsim/overloadsim/dist"
	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/server"
	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
)

// tinyWorld is two clients of one application group against one node whose ingress request
// limiter (300/s) sits below the offered load (600/s): rejections, retries with the 2026-03
// policy and its retry token bucket, amplification above 1.
type tinyWorld struct {
	loop    *sim.Loop
	cluster *server.Cluster
	node    *server.Server
	clients []*client.Client
	group   *client.Group
	rec     *Recorder
}

const (
	tinySeed    = 42
	tinyStop    = 5 * time.Second
	tinyHorizon = 5500 * time.Millisecond // 5 whole intervals and a half one
)

func newTinyWorld(t testing.TB) *tinyWorld {
	t.Helper()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("tiny world: seed %d, horizon %v; replay: go test ./record -run '^%s$' -v", tinySeed, tinyHorizon, t.Name())
		}
	})
	loop := sim.NewLoop()
	node := server.Config{Address: "db", Workers: 2, Service: dist.Const(4 * time.Millisecond),
		RejectCost: server.DefaultRejectCost, HandshakeCost: server.DefaultHandshakeCost,
		RequestLimiter: server.RequestLimiterConfig{Enabled: true, AdmissionRatePerSec: 300, AdmissionBurstCapacitySecs: 0.1}}
	cl, err := server.NewCluster(loop, server.ClusterConfig{Nodes: []server.Config{node}}, tinySeed)
	if err != nil {
		t.Fatal(err)
	}
	w := &tinyWorld{loop: loop, cluster: cl, node: cl.Nodes()[0], rec: New(loop, time.Second)}
	opts := client.DefaultOptions()
	opts.Retry.AdaptiveRetries = true
	for _, name := range []string{"client/app/0", "client/app/1"} {
		link := wire.NewLink(dist.Const(500*time.Microsecond), sim.NewStream(tinySeed, "link/"+name))
		c, err := client.New(loop, opts, selection.Single, []client.Node{{Address: "db", Handler: w.node, Link: link}}, tinySeed, name)
		if err != nil {
			t.Fatal(err)
		}
		w.clients = append(w.clients, c)
	}
	profile, err := workload.Constant(600)
	if err != nil {
		t.Fatal(err)
	}
	mix, err := workload.NewMix([]workload.Weight{{Kind: "find", Weight: 1}})
	if err != nil {
		t.Fatal(err)
	}
	w.group, err = client.NewGroup(loop, "app", w.clients, client.Workload{ClientStats: true, Arrivals: workload.Poisson(profile),
		Mix: mix, Kinds: []client.OpKind{client.Find}, Stop: sim.Time(tinyStop)}, tinySeed)
	if err != nil {
		t.Fatal(err)
	}
	w.rec.AddGroup(w.group)
	w.rec.AddNode(w.node)
	w.rec.AddFault("limit", sim.Time(2*time.Second), sim.Time(3*time.Second))
	w.rec.Start()
	return w
}

// counters is what the probe reads from the model at an interval boundary.
type counters struct {
	group                      client.GroupStats
	driverOps, attempts, retry uint64
	node                       server.Stats
}

// probe reads the model's own counters at every interval boundary, in the same event slot as
// the recorder (its events are scheduled right after the recorder's).
type probe struct {
	w    *tinyWorld
	seen []counters
}

func (p *probe) read(now sim.Time) counters {
	c := counters{group: p.w.group.Stats(), node: p.w.node.Snapshot(now)}
	for _, cl := range p.w.clients {
		st := cl.Snapshot()
		c.driverOps += st.OpsIssued
		c.attempts += st.AttemptsStarted
		c.retry += st.Retries
	}
	return c
}

func (p *probe) HandleEvent(now sim.Time, _ int, _ any) {
	p.seen = append(p.seen, p.read(now))
	p.w.loop.After(time.Second, p, 0, nil)
}

// TestRecorderMatchesCounters: the sources read the model faithfully. Per interval, offered load, attempts, goodput, failures and the
// node's counters are exactly the differences of the group's, clients' and node's own counters
// between interval ends; the latency histograms hold exactly the operations counted as finished;
// amplification is attempts ÷ issued; the intervals add up to the run's totals.
func TestRecorderMatchesCounters(t *testing.T) {
	w := newTinyWorld(t)
	p := &probe{w: w}
	p.seen = append(p.seen, p.read(0))
	w.loop.After(time.Second, p, 0, nil)
	w.loop.RunUntil(sim.Time(tinyHorizon))
	s := w.rec.Finish(sim.Time(tinyHorizon))
	p.seen = append(p.seen, p.read(sim.Time(tinyHorizon)))

	if len(s.Groups) != 6 || len(s.Servers) != 6 {
		t.Fatalf("got %d group rows and %d server rows, want 6 and 6 (5 whole intervals, 1 partial)", len(s.Groups), len(s.Servers))
	}
	if s.Groups[5].Start != sim.Time(5*time.Second) || s.Groups[5].End != sim.Time(tinyHorizon) {
		t.Errorf("last interval [%v, %v), want [5s, 5.5s)", s.Groups[5].Start, s.Groups[5].End)
	}
	// Every attempt that ended (a reply, or abandoned at a deadline) is in exactly one interval's
	// per-attempt histogram.
	var ended, recorded uint64
	for _, cl := range w.clients {
		st := cl.Snapshot()
		ended += st.AttemptsSucceeded + st.AttemptsFailed
	}
	for i := range s.Groups {
		recorded += s.Groups[i].Attempt.Count()
	}
	if ended == 0 || recorded != ended {
		t.Errorf("per-attempt latencies recorded %d, attempts ended %d", recorded, ended)
	}
	var issued, attempts uint64
	for i := range s.Groups {
		g, v := &s.Groups[i], &s.Servers[i]
		a, b := p.seen[i], p.seen[i+1]
		if want := sim.Time(time.Duration(i) * time.Second); g.Start != want || v.Start != want {
			t.Errorf("interval %d starts at %v/%v, want %v", i, g.Start, v.Start, want)
		}
		checks := []struct {
			name      string
			got, want uint64
		}{
			{"issued", g.Issued, b.group.Issued - a.group.Issued},
			{"succeeded", g.Succeeded, b.group.Succeeded - a.group.Succeeded},
			{"failed", g.Failed, b.group.Failed - a.group.Failed},
			{"failed overload", g.FailedByClass[client.ErrOverload-1], b.group.FailedByClass[client.ErrOverload] - a.group.FailedByClass[client.ErrOverload]},
			{"driver ops", g.DriverOps, b.driverOps - a.driverOps},
			{"attempts", g.Attempts, b.attempts - a.attempts},
			{"retries", g.Retries, b.retry - a.retry},
			{"success latencies", g.Success.Count(), g.Succeeded},
			{"failure latencies", g.Failure.Count(), g.Failed},
			{"completed", v.Completed, b.node.Completed - a.node.Completed},
			{"rejected", v.RejectedAdmissions, b.node.RejectedAdmissions - a.node.RejectedAdmissions},
		}
		for _, c := range checks {
			if c.got != c.want {
				t.Errorf("interval %d: %s = %d, want %d", i, c.name, c.got, c.want)
			}
		}
		secs := g.Seconds()
		if got, want := g.Offered(), float64(g.Issued)/secs; got != want {
			t.Errorf("interval %d: Offered() = %v, want %v", i, got, want)
		}
		if got, want := g.Goodput(), float64(g.Succeeded)/secs; got != want {
			t.Errorf("interval %d: Goodput() = %v, want %v", i, got, want)
		}
		if got, want := g.Amplification(), float64(g.Attempts)/float64(g.Issued); g.Issued > 0 && got != want {
			t.Errorf("interval %d: Amplification() = %v, want attempts/issued = %v", i, got, want)
		}
		if g.TokensN != 2 || !(g.TokensMin <= g.TokensMean()) || g.TokensMean() > 1000 {
			t.Errorf("interval %d: retry tokens n=%d min=%v mean=%v, want 2 clients, min ≤ mean ≤ 1000", i, g.TokensN, g.TokensMin, g.TokensMean())
		}
		issued += g.Issued
		attempts += g.Attempts
	}
	final := p.seen[len(p.seen)-1]
	if issued != final.group.Issued || attempts != final.attempts {
		t.Errorf("intervals add up to issued %d, attempts %d; counters say %d, %d", issued, attempts, final.group.Issued, final.attempts)
	}
	sum := results.Summarize(s, 0)
	if sum.Total.Issued != final.group.Issued || sum.Total.Attempts != final.attempts || sum.Total.Succeeded != final.group.Succeeded {
		t.Errorf("summary issued/attempts/succeeded %d/%d/%d, counters %d/%d/%d", sum.Total.Issued, sum.Total.Attempts,
			sum.Total.Succeeded, final.group.Issued, final.attempts, final.group.Succeeded)
	}
	if got, want := sum.Total.Amplification, float64(final.attempts)/float64(final.group.Issued); got != want || got <= 1 {
		t.Errorf("summary amplification %v, want attempts/issued = %v and > 1 (the limiter rejects)", got, want)
	}
	if sum.Servers[0].Rejections == 0 || !(sum.Servers[0].RejectShare > 0) {
		t.Errorf("server rejections %d, reject share %v: want both > 0", sum.Servers[0].Rejections, sum.Servers[0].RejectShare)
	}
	if len(s.Faults) != 1 || s.Faults[0].Name != "limit" {
		t.Errorf("faults %+v, want the one added", s.Faults)
	}
	if again := w.rec.Finish(sim.Time(tinyHorizon + time.Second)); len(again.Groups) != 6 {
		t.Errorf("a second Finish added rows: %d", len(again.Groups))
	}
}

// TestRunIsByteIdentical: the same tiny world run twice writes byte-identical files.
func TestRunIsByteIdentical(t *testing.T) {
	var outs []map[string][]byte
	for range 2 {
		w := newTinyWorld(t)
		w.loop.RunUntil(sim.Time(tinyHorizon))
		run := results.NewRun(results.Header{Tool: "overloadsim", Scenario: "tiny", Seed: tinySeed, Duration: tinyHorizon, WarmupAuto: true},
			w.rec.Finish(sim.Time(tinyHorizon)))
		dir := t.TempDir()
		if err := results.WriteRunDir(dir, run); err != nil {
			t.Fatal(err)
		}
		outs = append(outs, readDir(t, dir))
	}
	if len(outs[0]) != 4 {
		t.Fatalf("wrote %d files, want 4 (with the manifest)", len(outs[0]))
	}
	for name, a := range outs[0] {
		if !bytes.Equal(a, outs[1][name]) {
			t.Errorf("%s differs between two identical runs", name)
		}
	}
	if n := bytes.Count(outs[0][results.TimeseriesFile], []byte("\n")); n != 1+6*2 {
		t.Errorf("timeseries.csv has %d lines, want a header and 12 rows", n)
	}
}

// readDir returns the files of dir by name.
func readDir(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = b
	}
	return out
}

// TestNamesFollowTheModel: the records' count slices are indexed like the model's error
// classes and retry reasons without their "none" values, and Names names them in that order.
func TestNamesFollowTheModel(t *testing.T) {
	n := Names()
	if len(n.ErrClasses) != client.NumErrClasses-1 || len(n.RetryReasons) != retry.NumReasons-1 {
		t.Fatalf("%d classes, %d reasons; want %d, %d", len(n.ErrClasses), len(n.RetryReasons), client.NumErrClasses-1, retry.NumReasons-1)
	}
	if n.ErrClasses[client.ErrOverload-1] != "overload" || n.ErrClasses[client.ErrServer-1] != "server" {
		t.Errorf("classes %q: overload and server out of place", n.ErrClasses)
	}
	if n.RetryReasons[retry.ReasonKVLocked-1] != retry.ReasonKVLocked.String() {
		t.Errorf("reasons %q: KV_LOCKED out of place", n.RetryReasons)
	}
}
