package client

import (
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/client/retry"
	"github.com/overloadsim/overloadsim/client/selection"
	"github.com/overloadsim/overloadsim/dist"
	"github.com/overloadsim/overloadsim/server"
	"github.com/overloadsim/overloadsim/server/failpoint"
	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
)

// okRouter answers every routed command with success at once: a mongos whose shards are fine.
type okRouter struct{}

func (okRouter) Route(now sim.Time, _ *wire.Request, back server.RouteToken) {
	back.Done(now, wire.Reply{})
}

// Retryable Reads 3a and Retryable Writes (and every retry policy here): in a sharded cluster the
// retry deprioritises the mongos that failed, so it goes to another one while there is one.
// Each of the two mongoses fails its first find with an overload error; if a retry went back to
// the mongos that failed, that mongos would now succeed and the other's failpoint would never
// fire.
func TestShardedRetryTargetsAnotherMongos(t *testing.T) {
	for _, policy := range []string{retry.NameMongoDB202603, retry.NameMongoDB202607} {
		e, cl := twoMongoses(t, policy, "find", 1)
		r := e.run(discovered, Spec{Kind: Find})[0]
		if !r.OK || r.Attempts != 3 {
			t.Errorf("%s: %+v, want success on the third attempt", policy, r)
		}
		for _, addr := range []string{"m1", "m2"} {
			if n := cl.Node(addr).Snapshot(e.loop.Now()).FailPointErrors; n != 1 {
				t.Errorf("%s: mongos %s failed %d attempts, want 1: the retry after a failure goes to the other mongos", policy, addr, n)
			}
		}
	}
}

// twoMongoses is a sharded cluster of one shard behind mongoses m1 and m2, 1 ms away, each
// failing its first times commands named cmd with an overload error, and a client of policy.
func twoMongoses(t *testing.T, policy, cmd string, times int64) (*env, *server.Cluster) {
	t.Helper()
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
		fp, _ := failpoint.New(failpoint.Config{Mode: failpoint.Times(times), FailCommands: []string{cmd},
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
	return &env{t: t, loop: loop, cluster: cl, client: c}, cl
}
