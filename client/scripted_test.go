package client_test

import (
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/client"
	"github.com/overloadsim/overloadsim/client/selection"
	"github.com/overloadsim/overloadsim/dist"
	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
	"github.com/overloadsim/overloadsim/wire/wiretest"
)

// done records the application's view of finished operations.
type done struct{ results []client.Result }

func (d *done) OperationDone(_ sim.Time, r *client.Result) { d.results = append(d.results, *r) }

// TestRetriesAgainstScriptedNode drives a whole MongoClient (policy mongodb-2026-03, defaults)
// against a node that rejects the first three finds with the rate limiter's 462 and answers the
// fourth: the operation succeeds on its fourth attempt, and the node saw exactly four finds, each
// retry after a backoff within its ceiling (jitter × 100 ms × 2^(attempt−1), Client
// Backpressure, "Overload retry policy"), all on the one pooled connection the client opened
// for them (the monitor's is another).
func TestRetriesAgainstScriptedNode(t *testing.T) {
	loop := sim.NewLoop()
	node := wiretest.NewNode(loop, wire.Standalone).On(wire.Find, wiretest.RateLimited().Times(3)...)
	link := wire.NewLink(dist.Const(time.Millisecond), loop.NewStream(1, "link/app/db"))
	c, err := client.New(loop, client.DefaultOptions(), selection.Single,
		[]client.Node{{Address: "db", Handler: node, Link: link}}, 1, "client/app/0")
	if err != nil {
		t.Fatal(err)
	}
	app := &done{}
	start := sim.Time(100 * time.Millisecond)
	loop.At(start, sim.HandlerFunc(func(now sim.Time, _ int, _ any) {
		c.Execute(now, client.Spec{Kind: client.Find}, app)
	}), 0, nil)
	loop.RunUntil(sim.Time(5 * time.Second))

	if len(app.results) != 1 || !app.results[0].OK || app.results[0].Attempts != 4 {
		t.Fatalf("results %+v, want one success after 4 attempts\nnode saw:\n%s", app.results, node.Transcript())
	}
	var finds []wiretest.Arrival
	for _, a := range node.Arrivals {
		if a.Req.Cmd == wire.Find {
			finds = append(finds, a)
		}
	}
	if len(finds) != 4 {
		t.Fatalf("node received %d finds, want 4:\n%s", len(finds), node.Transcript())
	}
	for i := 1; i < len(finds); i++ {
		// Reply 1 ms back, backoff, request 1 ms out: the gap is the backoff plus 2 ms.
		gap := finds[i].At.Sub(finds[i-1].At) - 2*time.Millisecond
		ceiling := 100 * time.Millisecond << (i - 1)
		if gap < 0 || gap > ceiling {
			t.Errorf("backoff before find %d: %v, want within [0, %v]", i+1, gap, ceiling)
		}
		if finds[i].ConnID != finds[0].ConnID || finds[i].ConnID == 0 {
			t.Errorf("find %d on connection %d, want the first find's pooled connection %d", i+1, finds[i].ConnID, finds[0].ConnID)
		}
	}
	if got := node.Received(wire.Connect); got != 2 {
		t.Errorf("node received %d connects, want 2 (the monitor's and the pool's)", got)
	}
}

// TestAttemptsNameTheirOperation: every attempt carries its operation's number (Request.Op, 1, 2,
// ... in issue order), retries included, and connection establishment and monitoring carry 0, so
// a scripted node can tell one operation's attempts from another's.
func TestAttemptsNameTheirOperation(t *testing.T) {
	loop := sim.NewLoop()
	node := wiretest.NewNode(loop, wire.Standalone).On(wire.Find, wiretest.RateLimited().Times(2)...)
	c, err := client.New(loop, client.DefaultOptions(), selection.Single,
		[]client.Node{{Address: "db", Handler: node, Link: wire.NewLink(nil, nil)}}, 1, "client/app/0")
	if err != nil {
		t.Fatal(err)
	}
	app := &done{}
	loop.At(sim.Time(time.Millisecond), sim.HandlerFunc(func(now sim.Time, _ int, _ any) {
		c.Execute(now, client.Spec{Kind: client.Find}, app)
		c.Execute(now, client.Spec{Kind: client.Find}, app)
	}), 0, nil)
	loop.RunUntil(sim.Time(5 * time.Second))
	if len(app.results) != 2 {
		t.Fatalf("%d results, want 2\nnode saw:\n%s", len(app.results), node.Transcript())
	}
	finds := map[uint64]int{}
	for _, a := range node.Arrivals {
		switch {
		case a.Req.Cmd == wire.Find:
			finds[a.Req.Op]++
		case a.Req.Op != 0:
			t.Errorf("%v carries operation %d, want 0", a, a.Req.Op)
		}
	}
	if len(finds) != 2 || finds[1] != 2 || finds[2] != 2 {
		t.Errorf("finds by operation %v, want operations 1 and 2 with 2 attempts each", finds)
	}
}
