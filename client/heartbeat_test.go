package client

import (
	"testing"
	"time"
	"unsafe"

	"github.com/overloadsim/overloadsim/client/selection"
	"github.com/overloadsim/overloadsim/dist"
	"github.com/overloadsim/overloadsim/server"
	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
)

// TestFleetHeartbeatsShareOneLine: a group's monitors check every heartbeatFrequencyMS (10 s)
// and time their checks out after connectTimeoutMS, both from the group's delay lines, so that
// a fleet's checks due at one instant are one loop event, not one each: in a quiet 10 s the loop
// handles each monitor's hello at the node and its reply (2 events per client) and a few line
// events, where one timer per check and per timeout would add a third event per client.
func TestFleetHeartbeatsShareOneLine(t *testing.T) {
	const n = 500
	mix, kinds := finds()
	w := newWorld(t, server.Config{Address: "db", Workers: 8, Service: dist.Const(time.Millisecond), RejectCost: server.DefaultRejectCost, HandshakeCost: server.DefaultHandshakeCost},
		DefaultOptions(), n, Workload{Mix: mix, Kinds: kinds, Threads: 1, Think: dist.Const(time.Hour), Stop: 0}, 500*time.Microsecond)
	w.loop.RunUntil(sim.Time(55 * time.Second))
	before := w.loop.Fired()
	w.loop.RunUntil(sim.Time(65 * time.Second))
	if got := w.loop.Fired() - before; got > 2*n+10 {
		t.Errorf("%d loop events in a quiet 10 s for %d monitors, want at most %d", got, n, 2*n+10)
	}
	for _, c := range w.clients {
		m := c.servers[0].mon
		// The first check at 0 (the handshake's hello right after it), then one every 10 s
		// after the last reply: the sixth regular check falls in [60 s, 61 s).
		if m.lastCheck < sim.Time(60*time.Second) || m.lastCheck >= sim.Time(61*time.Second) {
			t.Fatalf("%s: last check at %v, want in [60s, 61s)", c.Name(), m.lastCheck)
		}
		if !m.wait.Pending() || m.next != (sim.Timer{}) {
			t.Fatalf("%s: the next regular check is not on the group's line", c.Name())
		}
	}
}

// TestMonitorSize: a monitor stays within 64 bytes (next and wait share what the monitor waits
// for), since a fleet of a million clients of four mongos nodes has four million of them.
func TestMonitorSize(t *testing.T) {
	if n := unsafe.Sizeof(monitor{}); n > 64 {
		t.Errorf("a monitor is %d bytes, want at most 64", n)
	}
}

// TestMixedHeartbeatsInOneGroup: a client whose heartbeatFrequencyMS differs from the group's
// line (made by the first client to schedule a check) keeps its own period on the loop, and
// the line's clients keep theirs.
func TestMixedHeartbeatsInOneGroup(t *testing.T) {
	loop := sim.NewLoop()
	cl, err := server.NewCluster(loop, server.ClusterConfig{Nodes: []server.Config{{Address: "db", Workers: 1, Service: dist.Const(time.Millisecond),
		RejectCost: server.DefaultRejectCost, HandshakeCost: server.DefaultHandshakeCost}}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	s := cl.Nodes()[0]
	var clients []*Client
	for i, every := range []time.Duration{10 * time.Second, 3 * time.Second} {
		o := DefaultOptions()
		o.HeartbeatFrequency = every
		name := "client/app/" + string(rune('a'+i))
		c, err := New(loop, o, selection.Single, []Node{{Address: "db", Handler: s, Link: wire.NewLink(dist.Const(time.Millisecond), sim.NewStream(1, "link/"+name))}}, 1, name)
		if err != nil {
			t.Fatal(err)
		}
		clients = append(clients, c)
	}
	mix, kinds := finds()
	if _, err := NewGroup(loop, "app", clients, Workload{Mix: mix, Kinds: kinds, Threads: 1, Think: dist.Const(time.Hour)}, 1); err != nil {
		t.Fatal(err)
	}
	loop.RunUntil(sim.Time(31 * time.Second))
	// The handshake's hello goes out at 4 ms; then a check every period after the last reply,
	// each 2 ms later than the period for the round trip: 3 of them for the first client by
	// 30 s, 10 for the second.
	for i, want := range []sim.Time{sim.Time(30*time.Second + 10*time.Millisecond), sim.Time(30*time.Second + 24*time.Millisecond)} {
		if got := clients[i].servers[0].mon.lastCheck; got != want {
			t.Errorf("client %d (heartbeat %v): last check at %v, want %v", i, clients[i].opts.HeartbeatFrequency, got, want)
		}
	}
}
