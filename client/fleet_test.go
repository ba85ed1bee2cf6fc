package client

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/client/selection"
	"github.com/overloadsim/overloadsim/client/workload"
	"github.com/overloadsim/overloadsim/dist"
	"github.com/overloadsim/overloadsim/server"
	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
)

// fleetRun runs 200 clients at 2000 operations/s against a node that rejects some, made by
// NewFleetGroup or by New and NewGroup, and returns the loop's streams, the events fired, the
// group's driver counters and the first client's own.
func fleetRun(t *testing.T, fleet bool, clientStats bool) ([]sim.Stream, uint64, Stats, Stats) {
	t.Helper()
	loop := sim.NewLoop()
	svc, _ := dist.Exp(5 * time.Millisecond)
	cl, err := server.NewCluster(loop, server.ClusterConfig{Nodes: []server.Config{{Address: "db", Workers: 8, Service: svc,
		RejectCost: server.DefaultRejectCost, HandshakeCost: server.DefaultHandshakeCost,
		RequestLimiter: server.RequestLimiterConfig{Enabled: true, AdmissionRatePerSec: 1000, AdmissionBurstCapacitySecs: 0.1}}}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	s := cl.Nodes()[0]
	o := DefaultOptions()
	o.Retry.AdaptiveRetries = true
	p, _ := workload.Constant(2000)
	mix, kinds := finds()
	wl := Workload{Arrivals: workload.Poisson(p), Mix: mix, Kinds: kinds, Stop: sim.Time(5 * time.Second), ClientStats: clientStats}
	name := func(i int) string { return "client/app/" + strconv.Itoa(i) }
	nodes := func(i int) []Node {
		return []Node{{Address: "db", Handler: s, Link: wire.NewLink(dist.Const(500*time.Microsecond), loop.NewStream(1, "link/app/"+strconv.Itoa(i)))}}
	}
	var g *Group
	if fleet {
		g, err = NewFleetGroup(loop, "app", Fleet{Count: 200, Options: o, Kind: selection.Single, Name: name, Nodes: nodes}, wl, 1)
	} else {
		clients := make([]*Client, 200)
		for i := range clients {
			if clients[i], err = New(loop, o, selection.Single, nodes(i), 1, name(i)); err != nil {
				t.Fatal(err)
			}
		}
		g, err = NewGroup(loop, "app", clients, wl, 1)
	}
	if err != nil {
		t.Fatal(err)
	}
	loop.RunUntil(sim.Time(6 * time.Second))
	var own Stats
	if clientStats {
		own = g.Clients()[0].Snapshot()
	}
	return loop.Streams(), loop.Fired(), g.DriverStats(), own
}

// TestFleetGroupIsNewAndNewGroup: a group made as a fleet runs the same as its clients made one
// by one and then grouped: the same streams in the same order, the same events, the same
// counts, with or without per-client counters.
func TestFleetGroupIsNewAndNewGroup(t *testing.T) {
	for _, clientStats := range []bool{false, true} {
		s1, f1, d1, c1 := fleetRun(t, true, clientStats)
		s2, f2, d2, c2 := fleetRun(t, false, clientStats)
		if !reflect.DeepEqual(s1, s2) {
			t.Errorf("clientStats %v: the fleet drew streams %v…, one by one %v…", clientStats, s1[:3], s2[:3])
		}
		if f1 != f2 || d1.AttemptsStarted != d2.AttemptsStarted || d1.OpsSucceeded != d2.OpsSucceeded || d1.OpsFailed != d2.OpsFailed {
			t.Errorf("clientStats %v: fleet %d events, %+v; one by one %d events, %+v", clientStats, f1, d1, f2, d2)
		}
		if d1.AttemptsStarted == 0 || d1.OpsFailed == 0 {
			t.Errorf("clientStats %v: the run made %d attempts and failed %d operations: it tests nothing", clientStats, d1.AttemptsStarted, d1.OpsFailed)
		}
		if clientStats && (c1.AttemptsStarted == 0 || c1.AttemptsStarted != c2.AttemptsStarted) {
			t.Errorf("client 0 counted %d attempts in the fleet, %d one by one", c1.AttemptsStarted, c2.AttemptsStarted)
		}
	}
}

func TestFleetGroupErrors(t *testing.T) {
	loop := sim.NewLoop()
	mix, kinds := finds()
	p, _ := workload.Constant(1)
	wl := Workload{Arrivals: workload.Poisson(p), Mix: mix, Kinds: kinds}
	node := []Node{{Address: "db", Handler: sim.HandlerFunc(func(sim.Time, int, any) {}), Link: wire.NewLink(dist.Const(0), sim.NewStream(1, "l"))}}
	name := func(i int) string { return "client/app/" + strconv.Itoa(i) }
	bad := DefaultOptions()
	bad.MaxPoolSize = 0
	for _, tc := range []struct {
		name  string
		fleet Fleet
		w     Workload
		want  string
	}{
		{"no clients", Fleet{Count: 0, Options: DefaultOptions(), Name: name, Nodes: func(int) []Node { return node }}, wl, "clients: 0"},
		{"bad options", Fleet{Count: 2, Options: bad, Name: name, Nodes: func(int) []Node { return node }}, wl, "client client/app/0: maxPoolSize: 0"},
		{"a client without servers", Fleet{Count: 3, Options: DefaultOptions(), Name: name, Nodes: func(i int) []Node {
			if i == 2 {
				return nil
			}
			return node
		}}, wl, "client client/app/2: nodes: empty"},
		{"no workload", Fleet{Count: 1, Options: DefaultOptions(), Name: name, Nodes: func(int) []Node { return node }}, Workload{Mix: mix, Kinds: kinds}, "group app: workload: none"},
	} {
		_, err := NewFleetGroup(loop, "app", tc.fleet, tc.w, 1)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}
