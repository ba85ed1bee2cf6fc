package client

import (
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/client/retry"
	"github.com/overloadsim/overloadsim/client/selection"
	"github.com/overloadsim/overloadsim/dist"
	"github.com/overloadsim/overloadsim/ratelimiter"
	"github.com/overloadsim/overloadsim/server"
	"github.com/overloadsim/overloadsim/server/failpoint"
	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
)

// constJitter pins the backoff jitter, as the spec's prose tests do (0, or as close to 1 as
// possible).
type constJitter float64

func (j constJitter) Float64() float64 { return float64(j) }

// env is one client against a real node or replica set on one loop.
type env struct {
	t       *testing.T
	loop    *sim.Loop
	cluster *server.Cluster
	client  *Client
	results []Result
	want    int // stop the loop when this many operations have finished
}

func (e *env) OperationDone(now sim.Time, r *Result) {
	e.results = append(e.results, *r)
	if len(e.results) == e.want {
		e.loop.Stop()
	}
}

type envConfig struct {
	nodes  []server.Config
	kind   selection.TopologyKind
	opts   Options
	delay  time.Duration // one-way network delay
	jitter float64       // < 0: use the client's stream
}

func standalone(mod func(*server.Config)) []server.Config {
	c := server.Config{Address: "db", Workers: 8, Service: dist.Const(time.Millisecond), RejectCost: server.DefaultRejectCost, HandshakeCost: server.DefaultHandshakeCost}
	if mod != nil {
		mod(&c)
	}
	return []server.Config{c}
}

func replicaSet3() []server.Config {
	svc := dist.Const(time.Millisecond)
	return []server.Config{
		{Address: "a", Role: wire.Primary, Service: svc, RejectCost: server.DefaultRejectCost, HandshakeCost: server.DefaultHandshakeCost},
		{Address: "b", Role: wire.Secondary, Service: svc, RejectCost: server.DefaultRejectCost, HandshakeCost: server.DefaultHandshakeCost},
		{Address: "c", Role: wire.Secondary, Service: svc, RejectCost: server.DefaultRejectCost, HandshakeCost: server.DefaultHandshakeCost},
	}
}

func newEnv(t *testing.T, cfg envConfig) *env {
	t.Helper()
	loop := sim.NewLoop()
	cl, err := server.NewCluster(loop, server.ClusterConfig{Nodes: cfg.nodes}, 1)
	if err != nil {
		t.Fatal(err)
	}
	var nodes []Node
	for i, s := range cl.Nodes() {
		nodes = append(nodes, Node{Address: s.Address(), Handler: s,
			Link: wire.NewLink(dist.Const(cfg.delay), sim.NewStream(1, "link/"+string(rune('0'+i))))})
	}
	c, err := New(loop, cfg.opts, cfg.kind, nodes, 1, "client/test/0")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.jitter >= 0 {
		c.jitter = constJitter(cfg.jitter)
	}
	return &env{t: t, loop: loop, cluster: cl, client: c}
}

// arm sets a failCommand failpoint on the node.
func (e *env) arm(addr string, cfg failpoint.Config) {
	e.t.Helper()
	fp, err := failpoint.New(cfg)
	if err != nil {
		e.t.Fatal(err)
	}
	e.cluster.Node(addr).SetFailPoint(e.loop.Now(), fp)
}

// run executes the operations at time at (after discovery) and runs until they finish or the
// horizon passes.
func (e *env) run(at sim.Time, specs ...Spec) []Result {
	e.t.Helper()
	e.want = len(specs)
	h := sim.HandlerFunc(func(now sim.Time, _ int, _ any) {
		for _, s := range specs {
			e.client.Execute(now, s, e)
		}
	})
	e.loop.At(at, h, 0, nil)
	e.loop.RunUntil(at + sim.Time(5*time.Minute))
	if len(e.results) != len(specs) {
		e.t.Fatalf("%d of %d operations finished", len(e.results), len(specs))
	}
	e.checkMonitoring()
	return e.results
}

// checkMonitoring asserts the Command Monitoring rule the Client Backpressure spec repeats:
// every CommandStartedEvent has exactly one succeeded or failed event.
func (e *env) checkMonitoring() {
	e.t.Helper()
	st := e.client.Snapshot()
	if st.AttemptsStarted != st.AttemptsSucceeded+st.AttemptsFailed {
		e.t.Errorf("command monitoring: %d started, %d succeeded + %d failed",
			st.AttemptsStarted, st.AttemptsSucceeded, st.AttemptsFailed)
	}
}

// overloadLabels are the labels the spec tests' failpoints set.
var overloadLabels = []string{"RetryableError", "SystemOverloadedError"}

// discovered is a time by which the monitors have found the servers.
var discovered = sim.Time(100 * time.Millisecond)

// retryTokenBucket returns the client's retry token bucket (2026-03 with adaptiveRetries).
func retryTokenBucket(c *Client) *ratelimiter.RetryTokenBucket { return retry.TokenBucket(c.policy) }
