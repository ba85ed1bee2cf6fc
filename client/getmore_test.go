package client

import (
	"testing"
	"time"

	"overloadsim/client/retry"
	"overloadsim/client/selection"
	"overloadsim/dist"
	"overloadsim/server"
	"overloadsim/server/failpoint"
	"overloadsim/sim"
	"overloadsim/wire"
)

// TestGetMoreRetryStaysOnItsServer (docs/model.md §8.5): a cursor lives on the server that
// opened it, so a getMore overload retry (the backpressure spec's overload retry policy covers
// getMore) goes back to that server, however deprioritisation would pick: another mongos does
// not know the cursor.
// Both mongoses fail their first two getMores; the retries all go to the first one, which fails
// twice and then answers, and the other never sees the operation.
func TestGetMoreRetryStaysOnItsServer(t *testing.T) {
	for _, policy := range []string{retry.NameMongoDB202603, retry.NameMongoDB202607} {
		loop := sim.NewLoop()
		cl, err := server.NewCluster(loop, server.ClusterConfig{Nodes: []server.Config{
			{Address: "s0", Role: wire.Primary, ReplSetName: "rs0", RejectCost: server.DefaultRejectCost, HandshakeCost: server.DefaultHandshakeCost}}}, 1)
		if err != nil {
			t.Fatal(err)
		}
		var nodes []Node
		for i, addr := range []string{"m1", "m2"} {
			m, err := cl.AddMongos(server.Config{Address: addr, Role: wire.Mongos, Router: okRouter{}, RejectCost: server.DefaultRejectCost, HandshakeCost: server.DefaultHandshakeCost})
			if err != nil {
				t.Fatal(err)
			}
			fp, _ := failpoint.New(failpoint.Config{Mode: failpoint.Times(2), FailCommands: []string{"getMore"},
				ErrorCode: int(wire.IngressRequestRateLimitExceeded)})
			m.SetFailPoint(0, fp)
			nodes = append(nodes, Node{Address: addr, Handler: m,
				Link: wire.NewLink(dist.Const(time.Millisecond), sim.NewStream(1, "link/"+string(rune('0'+i))))})
		}
		opts := DefaultOptions()
		opts.RetryPolicy = policy
		c, err := New(loop, opts, selection.Sharded, nodes, 1, "client/test/0")
		if err != nil {
			t.Fatal(err)
		}
		e := &env{t: t, loop: loop, cluster: cl, client: c}
		r := e.run(discovered, Spec{Kind: GetMore})[0]
		if !r.OK || r.Attempts != 3 {
			t.Errorf("%s: %+v, want success on the third attempt", policy, r)
		}
		a := cl.Node("m1").Snapshot(loop.Now()).FailPointErrors
		b := cl.Node("m2").Snapshot(loop.Now()).FailPointErrors
		if a+b != 2 || a*b != 0 {
			t.Errorf("%s: failpoint errors m1 %d, m2 %d; want 2 on one mongos and none on the other", policy, a, b)
		}
	}
}
