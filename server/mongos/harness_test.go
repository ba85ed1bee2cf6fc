package mongos

import (
	"fmt"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/dist"
	"github.com/overloadsim/overloadsim/server"
	"github.com/overloadsim/overloadsim/server/failpoint"
	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
	"github.com/overloadsim/overloadsim/wire/wiretest"
)

// maxJitter is a jitterer that always draws the top of its range: every backoff is the cap
// (backoff_with_jitter's returnMaxBackoffDelay failpoint, which the server's tests use).
type maxJitter struct{}

func (maxJitter) Int64N(n int64) int64 { return n - 1 }

// countJitter counts the draws of another jitterer.
type countJitter struct {
	j     jitterer
	draws int
}

func (c *countJitter) Int64N(n int64) int64 { c.draws++; return c.j.Int64N(n) }

// world is one mongos routing to one or more shards of real server.Server nodes, driven by a
// test client (drv) that records the mongos's replies.
type world struct {
	t      testing.TB
	loop   *sim.Loop
	seed   uint64
	shards [][]*server.Server
	router *Router
	mongos *server.Server
	drv    *wiretest.Client // the application: sends to the mongos, records its replies
}

// memberSpec describes one shard member: its role and the one-way delay of its link.
type memberSpec struct {
	role  wire.Role
	delay time.Duration
	mod   func(*server.Config) // optional changes to the member's configuration
}

// rs returns the specs of a replica set: a primary then n−1 secondaries, with 1ms links.
func rs(n int) []memberSpec {
	out := []memberSpec{{role: wire.Primary, delay: time.Millisecond}}
	for i := 1; i < n; i++ {
		out = append(out, memberSpec{role: wire.Secondary, delay: time.Millisecond})
	}
	return out
}

// newWorld builds the shards (shard i is "rs<i>", member j is "rs<i>-<j>"), the router with
// cfg (Address "mongos" if empty), and the mongos node. Members execute every command in 1ms.
func newWorld(t testing.TB, cfg Config, seed uint64, shards ...[]memberSpec) *world {
	t.Helper()
	w := &world{t: t, loop: sim.NewLoop(), seed: seed}
	if cfg.Address == "" {
		cfg.Address = "mongos"
	}
	var specs []Shard
	for i, members := range shards {
		name := fmt.Sprintf("rs%d", i)
		sh := Shard{Name: name}
		var nodes []*server.Server
		for j, m := range members {
			addr := fmt.Sprintf("%s-%d", name, j)
			sc := server.Config{Address: addr, Role: m.role, ReplSetName: name, Service: dist.Const(time.Millisecond),
				RejectCost: server.DefaultRejectCost, HandshakeCost: server.DefaultHandshakeCost}
			if m.mod != nil {
				m.mod(&sc)
			}
			n, err := server.New(w.loop, sc, seed)
			if err != nil {
				t.Fatal(err)
			}
			nodes = append(nodes, n)
			link := wire.NewLink(dist.Const(m.delay), sim.NewStream(seed, "link/"+cfg.Address+"/"+addr))
			sh.Members = append(sh.Members, Member{Address: addr, Node: n, Link: link})
		}
		w.shards = append(w.shards, nodes)
		specs = append(specs, sh)
	}
	r, err := New(w.loop, cfg, specs, seed)
	if err != nil {
		t.Fatal(err)
	}
	w.router = r
	m, err := server.New(w.loop, server.Config{Address: cfg.Address, Role: wire.Mongos, Router: r,
		RejectCost: server.DefaultRejectCost, HandshakeCost: server.DefaultHandshakeCost}, seed)
	if err != nil {
		t.Fatal(err)
	}
	w.mongos = m
	w.drv = wiretest.NewClient(w.loop, m)
	w.drv.Conn = wiretest.NewConn("app", true)
	w.drv.MarkWrites = true
	return w
}

// failAll arms an alwaysOn failpoint that fails cmd with code on every member of shard i,
// internal commands included.
func (w *world) failAll(i int, cmd string, code wire.Code, mode failpoint.Mode) {
	for j := range w.shards[i] {
		w.fail(i, j, cmd, code, mode)
	}
}

// fail arms a failpoint on member j of shard i.
func (w *world) fail(i, j int, cmd string, code wire.Code, mode failpoint.Mode) {
	w.t.Helper()
	p, err := failpoint.New(failpoint.Config{
		Mode: mode, FailCommands: []string{cmd}, ErrorCode: int(code), FailInternalCommands: true,
	})
	if err != nil {
		w.t.Fatal(err)
	}
	w.shards[i][j].SetFailPoint(w.loop.Now(), p)
}

// attempts returns the commands (not connections or pings) member j of shard i answered.
func (w *world) attempts(i, j int) uint64 {
	st := w.shards[i][j].Snapshot(w.loop.Now())
	return st.Completed + st.Errors
}

// run advances the loop by d.
func (w *world) run(d time.Duration) { w.loop.RunUntil(w.loop.Now().Add(d)) }

func read(mode wire.ReadMode) func(*wire.Request) {
	return func(r *wire.Request) {
		r.ReadPref = mode
		r.SecondaryOK = mode != wire.ReadPrimary
	}
}

func withMaxTime(d time.Duration) func(*wire.Request) {
	return func(r *wire.Request) { r.MaxTime = d }
}

// testConfig is DefaultConfig with overload-aware selection as given.
func testConfig(overloadAware bool) Config {
	c := DefaultConfig()
	c.OverloadAwareServerSelection = overloadAware
	return c
}
