package client

import (
	"fmt"
	"strings"
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

// TestGetMoreRetryStaysOnItsServer (docs/model.md §8.5): a cursor lives on the server that
// opened it, so a getMore overload retry (the backpressure spec's overload retry policy covers
// getMore) goes back to that server, however deprioritisation would pick: another mongos does
// not know the cursor.
// Both mongoses fail their first two getMores; the retries all go to the first one, which fails
// twice and then answers, and the other never sees the operation.
func TestGetMoreRetryStaysOnItsServer(t *testing.T) {
	for _, policy := range []string{retry.NameMongoDB202603, retry.NameMongoDB202607} {
		e, cl := twoMongoses(t, policy, "getMore", 2)
		r := e.run(discovered, Spec{Kind: GetMore})[0]
		if !r.OK || r.Attempts != 3 {
			t.Errorf("%s: %+v, want success on the third attempt", policy, r)
		}
		a := cl.Node("m1").Snapshot(e.loop.Now()).FailPointErrors
		b := cl.Node("m2").Snapshot(e.loop.Now()).FailPointErrors
		if a+b != 2 || a*b != 0 {
			t.Errorf("%s: failpoint errors m1 %d, m2 %d; want 2 on one mongos and none on the other", policy, a, b)
		}
	}
}

// TestGetMoreWaitsForItsUnknownServer (docs/model.md §8.5: a getMore retry "goes back to that
// server, or waits for it while it is unknown, never to another one"; Client.pick): while the
// server its cursor lives on is Unknown, a getMore retry waits in server selection for the
// monitor to find that server again, rather than going to it or to another mongos (which does
// not know the cursor).
//
// m1 is 1 ms away and m2 20 ms, beyond the 15 ms latency window, so a selection without a pin
// picks m1 while it is known. Times are from the getMore's issue. Its first attempt fails on m1
// with an overload error, which leaves m1 known, and backs off 100 ms (2026-03) or 200 ms
// (2026-07), jitter 1. At 50 ms a find on m1 fails in a way that makes SDAM mark m1 Unknown: a
// closed connection, which also clears m1's pool, or a "node is recovering" code, which leaves
// the pool as it is; the find's retry goes to m2. m1's monitor checks again
// minHeartbeatFrequencyMS (500 ms) after its last check, during discovery; its hello comes back
// at 406 ms. The getMore's retry leaves its backoff while m1 is Unknown, waits, and goes to m1
// then: on a new connection after the clear (4 ms to establish), on the idle one otherwise.
func TestGetMoreWaitsForItsUnknownServer(t *testing.T) {
	causes := []struct {
		name    string
		fp      failpoint.Config // m1's failpoint for the find
		outcome string           // the find's first attempt, as the trace shows it
		connect time.Duration    // the getMore retry's checkout on m1
	}{
		{"network error, pool cleared", failpoint.Config{Mode: failpoint.Times(1), FailCommands: []string{"find"}, CloseConnection: true},
			"code=0 labels=[] network=true poolCleared=false overload=false", 4 * time.Millisecond},
		{"node is recovering, pool kept", failpoint.Config{Mode: failpoint.Times(1), FailCommands: []string{"find"}, ErrorCode: int(wire.NotPrimaryOrSecondary)},
			"code=13436 labels=[] network=false poolCleared=false overload=false", 0},
	}
	policies := []struct {
		name    string
		backoff time.Duration // the first overload retry's, jitter 1
	}{
		{retry.NameMongoDB202603, 100 * time.Millisecond},
		{retry.NameMongoDB202607, 200 * time.Millisecond},
	}
	for _, pc := range policies {
		for _, cause := range causes {
			t.Run(pc.name+"/"+cause.name, func(t *testing.T) {
				e, cl := getMoreAndSlowMongos(t, pc.name)
				tr := &stepTracer{t0: discovered}
				e.client.SetTracer(tr)
				e.want = 2
				e.loop.At(discovered, sim.HandlerFunc(func(now sim.Time, _ int, _ any) {
					e.client.Execute(now, Spec{Kind: GetMore}, e)
				}), 0, nil)
				e.loop.At(discovered.Add(50*time.Millisecond), sim.HandlerFunc(func(now sim.Time, _ int, _ any) {
					e.arm("m1", cause.fp)
					e.client.Execute(now, Spec{Kind: Find}, e)
				}), 0, nil)
				e.loop.RunUntil(discovered.Add(time.Minute))
				if len(e.results) != 2 {
					t.Fatalf("%d of 2 operations finished", len(e.results))
				}
				e.checkMonitoring()
				var getMore, find []string
				for _, l := range tr.lines {
					if strings.Contains(l, " getMore ") {
						getMore = append(getMore, l)
					} else {
						find = append(find, l)
					}
				}
				// The find shows m1 Unknown from 52 ms: a selection without a pin goes to m2.
				checkTranscript(t, find, `
50ms op2 find issued at 50ms
50ms op2 find checkout m1
50ms op2 find checkout m1 ended after 0s: ok
50ms op2 find attempt 1 sent to m1
52ms op2 find attempt 1 to m1 ended after 2ms: `+cause.outcome+`
52ms op2 find checkout m2
94ms op2 find checkout m2 ended after 42ms: ok
94ms op2 find attempt 2 sent to m2
134ms op2 find attempt 2 to m2 ended after 40ms: ok
134ms op2 find done ok=true class=none attempts=2 retries=1`)
				// The getMore's retry leaves its backoff at 106 or 206 ms, and checks out from m1
				// only at 406 ms, when m1 is known again.
				b, c := pc.backoff, cause.connect
				sent := 406*time.Millisecond + c
				checkTranscript(t, getMore, fmt.Sprintf(`
0s op1 getMore issued at 0s
0s op1 getMore checkout m1
4ms op1 getMore checkout m1 ended after 4ms: ok
4ms op1 getMore attempt 1 sent to m1
6ms op1 getMore attempt 1 to m1 ended after 2ms: code=462 labels=[SystemOverloadedError,RetryableError,NoWritesPerformed] network=false poolCleared=false overload=true
6ms op1 getMore backoff 1 for %v
%v op1 getMore backoff 1 ended after %v of %v
406ms op1 getMore checkout m1
%v op1 getMore checkout m1 ended after %v: ok
%v op1 getMore attempt 2 sent to m1
%v op1 getMore attempt 2 to m1 ended after 2ms: ok
%v op1 getMore done ok=true class=none attempts=2 retries=1`,
					b, 6*time.Millisecond+b, b, b, sent, c, sent, sent+2*time.Millisecond, sent+2*time.Millisecond))
				if n := cl.Node("m2").Snapshot(e.loop.Now()).FailPointErrors; n != 0 {
					t.Errorf("m2 FailPointErrors = %d, want 0: the getMore never goes to m2", n)
				}
			})
		}
	}
}

// getMoreAndSlowMongos is a sharded cluster of one shard behind mongoses m1, 1 ms away, which
// fails its first getMore with an overload error, and m2, 20 ms away, which fails every getMore
// with one; and a client of policy with its backoff jitter pinned at 1.
func getMoreAndSlowMongos(t *testing.T, policy string) (*env, *server.Cluster) {
	t.Helper()
	loop := sim.NewLoop()
	cl, err := server.NewCluster(loop, server.ClusterConfig{Nodes: []server.Config{
		{Address: "s0", Role: wire.Primary, ReplSetName: "rs0", RejectCost: server.DefaultRejectCost, HandshakeCost: server.DefaultHandshakeCost}}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	var nodes []Node
	for i, m := range []struct {
		addr  string
		delay time.Duration
		mode  failpoint.Mode
	}{{"m1", time.Millisecond, failpoint.Times(1)}, {"m2", 20 * time.Millisecond, failpoint.AlwaysOn()}} {
		s, err := cl.AddMongos(server.Config{Address: m.addr, Role: wire.Mongos, Router: okRouter{}, RejectCost: server.DefaultRejectCost, HandshakeCost: server.DefaultHandshakeCost})
		if err != nil {
			t.Fatal(err)
		}
		fp, err := failpoint.New(failpoint.Config{Mode: m.mode, FailCommands: []string{"getMore"}, ErrorCode: int(wire.IngressRequestRateLimitExceeded)})
		if err != nil {
			t.Fatal(err)
		}
		s.SetFailPoint(0, fp)
		nodes = append(nodes, Node{Address: m.addr, Handler: s,
			Link: wire.NewLink(dist.Const(m.delay), sim.NewStream(1, "link/"+string(rune('0'+i))))})
	}
	opts := DefaultOptions()
	opts.RetryPolicy = policy
	c, err := New(loop, opts, selection.Sharded, nodes, 1, "client/test/0")
	if err != nil {
		t.Fatal(err)
	}
	c.jitter = constJitter(1)
	return &env{t: t, loop: loop, cluster: cl, client: c}, cl
}
