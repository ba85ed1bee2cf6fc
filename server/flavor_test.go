package server

import (
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
)

// Rule (docs/model.md §9.10, a node can speak Couchbase): under overload a Couchbase node's ingress limiter
// answers KV TemporaryFailure (0x86) for data-service requests and HTTP 429 for search, where a
// MongoDB node answers 462 with its three labels; Couchbase replies carry no labels.
func TestCouchbaseOverloadCodes(t *testing.T) {
	tests := []struct {
		flavor Flavor
		cmd    wire.Command
		code   wire.Code
		labels wire.Labels
	}{
		{FlavorMongoDB, wire.Find, wire.IngressRequestRateLimitExceeded,
			wire.SystemOverloadedError | wire.RetryableError | wire.NoWritesPerformed},
		{FlavorCouchbase, wire.KVGet, wire.KVTemporaryFailure, 0},
		{FlavorCouchbase, wire.KVUpsert, wire.KVTemporaryFailure, 0},
		{FlavorCouchbase, wire.Search, wire.HTTPTooManyRequests, 0},
		{FlavorCouchbase, wire.Query, wire.QueryRequestQueueFull, 0},
	}
	for _, tc := range tests {
		loop := sim.NewLoop()
		// A capacity below one token rejects every non-exempt request (docs/model.md §4.1).
		s, err := New(loop, Config{Address: "n", Flavor: tc.flavor, RequestLimiter: RequestLimiterConfig{
			Enabled: true, AdmissionRatePerSec: 1, AdmissionBurstCapacitySecs: 0.001}}, 1)
		if err != nil {
			t.Fatal(err)
		}
		p := newProbe(loop, s, true)
		p.Send(0, tc.cmd, nil)
		loop.Run()
		if len(p.Replies) != 1 {
			t.Fatalf("%v %v: %d replies", tc.flavor, tc.cmd, len(p.Replies))
		}
		if r := p.Replies[0].Reply; r.Code != tc.code || r.Labels != tc.labels {
			t.Errorf("%v node, %v rejected: %v %v, want %v %v", tc.flavor, tc.cmd, r.Code, r.Labels, tc.code, tc.labels)
		}
	}
}

// Rule (model): during a rebalance a Couchbase node answers KV requests NotMyVbucket (0x07)
// before any work; other services are unaffected, and the fault ends after For.
func TestRebalance(t *testing.T) {
	loop := sim.NewLoop()
	c, err := NewCluster(loop, ClusterConfig{Nodes: []Config{{Address: "cb", Flavor: FlavorCouchbase}}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Schedule([]Fault{{At: time.Second, Kind: FaultRebalance, Node: "cb", For: time.Second}}); err != nil {
		t.Fatal(err)
	}
	p := newProbe(loop, c.Node("cb"), true)
	for _, at := range []time.Duration{500 * time.Millisecond, 1500 * time.Millisecond, 2500 * time.Millisecond} {
		loop.At(sim.Time(at), sim.HandlerFunc(func(now sim.Time, _ int, _ any) {
			p.Send(now, wire.KVGet, nil)
			p.Send(now, wire.Search, nil)
		}), 0, nil)
	}
	loop.Run()
	want := map[sim.Time][2]wire.Code{
		sim.Time(500 * time.Millisecond):  {wire.OK, wire.OK},
		sim.Time(1500 * time.Millisecond): {wire.KVNotMyVbucket, wire.OK},
		sim.Time(2500 * time.Millisecond): {wire.OK, wire.OK},
	}
	for _, r := range p.Replies {
		i := 0
		if r.Cmd == wire.Search {
			i = 1
		}
		if w := want[r.Sent][i]; r.Code != w {
			t.Errorf("%v sent at %v: %v, want %v", r.Cmd, r.Sent, r.Code, w)
		}
	}
	if n := c.Node("cb").Snapshot(loop.Now()).NotMyVbucket; n != 1 {
		t.Errorf("NotMyVbucket = %d, want 1", n)
	}
	mongo, _ := NewCluster(sim.NewLoop(), ClusterConfig{Nodes: []Config{{Address: "m"}}}, 1)
	if err := mongo.Schedule([]Fault{{Kind: FaultRebalance, Node: "m", For: time.Second}}); err == nil {
		t.Error("a rebalance of a MongoDB node must be refused")
	}
}

// echoRouter answers every routed command after a fixed delay with a fixed reply.
type echoRouter struct {
	loop  *sim.Loop
	delay time.Duration
	reply wire.Reply
	seen  []wire.ReadMode
}

func (e *echoRouter) Route(now sim.Time, req *wire.Request, back RouteToken) {
	e.seen = append(e.seen, req.ReadPref)
	e.loop.At(now.Add(e.delay), sim.HandlerFunc(func(now sim.Time, _ int, _ any) { back.Done(now, e.reply) }), 0, nil)
}

// Rule: a mongos runs the ingress path and then hands admitted commands to its router, not to
// its workers; the router's answer reaches the driver; an answer for a command the mongos no
// longer holds (it went down) is ignored.
func TestMongosRoutes(t *testing.T) {
	loop := sim.NewLoop()
	er := &echoRouter{loop: loop, delay: 10 * time.Millisecond,
		reply: wire.Reply{Code: wire.IngressRequestRateLimitExceeded, Labels: wire.SystemOverloadedError}}
	s, err := New(loop, Config{Address: "mongos", Role: wire.Mongos, Router: er}, 1)
	if err != nil {
		t.Fatal(err)
	}
	p := newProbe(loop, s, true)
	p.Send(0, wire.Find, func(r *wire.Request) { r.ReadPref = wire.ReadSecondaryPreferred })
	p.Send(0, wire.Hello, nil) // an authenticated hello is a command like any other
	loop.Run()
	if len(p.Replies) != 2 {
		t.Fatalf("%d replies, want 2", len(p.Replies))
	}
	for _, r := range p.Replies {
		if r.Code != wire.IngressRequestRateLimitExceeded || r.Labels != wire.SystemOverloadedError || r.Role != wire.Mongos {
			t.Errorf("%v: reply %+v, want the router's 462 labelled SystemOverloadedError from a mongos", r.Cmd, r.Reply)
		}
		if r.Got != sim.Time(10*time.Millisecond) {
			t.Errorf("%v answered at %v, want after the router's 10ms", r.Cmd, r.Got)
		}
	}
	if er.seen[0] != wire.ReadSecondaryPreferred {
		t.Errorf("router saw read preference %v, want the driver's secondaryPreferred", er.seen[0])
	}
	st := s.Snapshot(loop.Now())
	if st.Routed != 2 || st.RoutedAnswered != 2 || st.RoutedErrors != 2 || st.Enqueued != 0 {
		t.Errorf("stats: routed %d answered %d errors %d enqueued %d", st.Routed, st.RoutedAnswered, st.RoutedErrors, st.Enqueued)
	}

	// Down while routing: the driver gets a network error at once; the late answer is ignored.
	p.Replies = nil
	p.Send(loop.Now(), wire.Find, nil)
	loop.At(loop.Now().Add(5*time.Millisecond), sim.HandlerFunc(func(now sim.Time, _ int, _ any) { s.GoDown(now) }), 0, nil)
	loop.Run()
	if len(p.Replies) != 1 || !p.Replies[0].NetErr {
		t.Fatalf("replies after going down: %+v, want one network error", p.Replies)
	}
}

// A sharded cluster's shards are replica sets told apart by replSetName; each holds its own
// elections. Several standalones are independent deployments. A stepdown in a cluster of
// several sets must name its member.
func TestClusterShape(t *testing.T) {
	loop := sim.NewLoop()
	c, err := NewCluster(loop, ClusterConfig{ElectionTime: time.Second, Nodes: []Config{
		{Address: "s0a", Role: wire.Primary, ReplSetName: "s0"}, {Address: "s0b", Role: wire.Secondary, ReplSetName: "s0"},
		{Address: "s1a", Role: wire.Primary, ReplSetName: "s1"}, {Address: "s1b", Role: wire.Secondary, ReplSetName: "s1"},
	}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if sets := c.ReplicaSets(); len(sets) != 2 || sets[0].Name() != "s0" || sets[1].Primary().Address() != "s1a" {
		t.Fatalf("replica sets: %v", sets)
	}
	if _, err := c.AddMongos(Config{Address: "m", Role: wire.Mongos, Router: &echoRouter{loop: loop}}); err != nil {
		t.Fatal(err)
	}
	if err := c.Schedule([]Fault{{Kind: FaultStepDown}}); err == nil || !strings.Contains(err.Error(), "name the shard primary") {
		t.Errorf("anonymous stepdown in a sharded cluster: %v", err)
	}
	if err := c.Schedule([]Fault{{Kind: FaultStepDown, Node: "m"}}); err == nil {
		t.Error("stepping down a mongos must be refused")
	}
	if err := c.Schedule([]Fault{{At: time.Second, Kind: FaultDown, Node: "s1a", For: 5 * time.Second}}); err != nil {
		t.Fatal(err)
	}
	loop.RunUntil(sim.Time(1500 * time.Millisecond))
	if c.ReplicaSets()[1].Primary() != nil || c.ReplicaSets()[0].Primary() == nil {
		t.Error("shard s1 electing; s0 must keep its primary")
	}
	loop.RunUntil(sim.Time(2500 * time.Millisecond))
	if p := c.ReplicaSets()[1].Primary(); p == nil || p.Address() != "s1b" {
		t.Errorf("after s1's election: primary %v, want s1b", p)
	}
	if _, err := NewCluster(sim.NewLoop(), ClusterConfig{Nodes: []Config{{Address: "x"}, {Address: "y"}}}, 1); err != nil {
		t.Errorf("two independent standalones: %v", err)
	}
	if _, err := NewCluster(sim.NewLoop(), ClusterConfig{Nodes: []Config{{Address: "x"}, {Address: "y", Role: wire.Primary}}}, 1); err == nil {
		t.Error("a standalone beside a replica set must be refused")
	}
}
