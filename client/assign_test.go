package client

import (
	"math"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/client/workload"
	"github.com/overloadsim/overloadsim/dist"
	"github.com/overloadsim/overloadsim/server"
	"github.com/overloadsim/overloadsim/sim"
)

// TestRandomAssign (docs/model.md §13): an open loop hands arrivals to its clients in turn by default (equal shares,
// TestOpenLoopHealthy) or, with AssignRandom, each to a client drawn uniformly from the group's
// own stream: each client's count is then Binomial(n, 1/k), within 4σ of n/k, and the arrivals
// themselves are the same as round-robin's, since they come from another stream.
func TestRandomAssign(t *testing.T) {
	p, _ := workload.Constant(200)
	mix, kinds := finds()
	node := server.Config{Address: "db", Workers: 8, Service: dist.Const(time.Millisecond), RejectCost: server.DefaultRejectCost, HandshakeCost: server.DefaultHandshakeCost}
	run := func(a Assign) *world {
		w := newWorld(t, node, DefaultOptions(), 4, Workload{ClientStats: true, Arrivals: workload.Poisson(p), Assign: a, Mix: mix, Kinds: kinds,
			Stop: sim.Time(60 * time.Second)}, 500*time.Microsecond)
		w.loop.RunUntil(sim.Time(61 * time.Second))
		return w
	}
	rr, rnd := run(AssignRoundRobin), run(AssignRandom)
	n := rnd.group.Stats().Issued
	if n != rr.group.Stats().Issued {
		t.Errorf("random assignment issued %d, round-robin %d: the arrivals should not change", n, rr.group.Stats().Issued)
	}
	mean, sd := float64(n)/4, math.Sqrt(float64(n)*0.25*0.75)
	equal := true
	for _, c := range rnd.clients {
		got := float64(c.Snapshot().OpsIssued)
		if math.Abs(got-mean) > 4*sd {
			t.Errorf("%s issued %.0f of %d, want %.0f ± 4σ (σ = %.1f)", c.Name(), got, n, mean, sd)
		}
		equal = equal && math.Abs(got-mean) <= 1
	}
	if equal {
		t.Error("random assignment gave every client an equal share, as round-robin does")
	}
}
