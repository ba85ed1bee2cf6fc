package calibrate

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/overloadsim/overloadsim/bench"
	"github.com/overloadsim/overloadsim/record"
	"github.com/overloadsim/overloadsim/results/serverstatus"
	"github.com/overloadsim/overloadsim/scenarios"
)

// perCommandWorld runs a standalone whose finds take 1 ms and aggregates 4 ms, three finds to an
// aggregate, and returns its export as Inputs.
func perCommandWorld(t *testing.T) *Inputs {
	t.Helper()
	sc, err := scenarios.Parse("per-command.yaml", []byte(`
name: per-command
duration: 60s
topology:
  nodes:
    - name: db
      workers: 8
      service: exp(1ms)
      serviceByCommand: {aggregate: exp(4ms)}
clients:
  - name: app
    count: 10
    workload: {rate: 400/s}
    mix: {find: 3, aggregate: 1}
`))
	if err != nil {
		t.Fatal(err)
	}
	var log record.StatusLog
	if _, err := bench.RunWith(sc, sc.Seed, 0, bench.RunOptions{ServerStatus: &log}); err != nil {
		t.Fatal(err)
	}
	in, err := StatusInputs(&log)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// slowLog is n logged operations of each command, their CPU times exponential with the given
// means (seconds), from a fixed seed.
func slowLog(n int, means map[string]float64) []serverstatus.LogEntry {
	rng := rand.New(rand.NewPCG(7, 11))
	var out []serverstatus.LogEntry
	for _, c := range sortedKeys(means) {
		for range n {
			ns := int64(rng.ExpFloat64()*means[c]*1e9) + 1
			out = append(out, serverstatus.LogEntry{ID: serverstatus.LogSlowQuery, Component: "COMMAND", Command: c, CPUNanos: &ns})
		}
	}
	return out
}

// TestPerCommandServiceFromLog: a command whose logged operations differ from its pool's gets its
// own serviceByCommand entry, the logged means weighted by the commands' rates, not by how many
// of each the log holds (docs/calibration.md §3.2): equal numbers of finds and aggregates are
// logged, but finds are three in four of the traffic.
func TestPerCommandServiceFromLog(t *testing.T) {
	in := perCommandWorld(t)
	in.Nodes[0].Log = slowLog(400, map[string]float64{"find": 0.001, "aggregate": 0.004})
	in.Nodes[0].LogFrom = "db.log"
	res, err := Calibrate(in, Options{Name: "pc"})
	if err != nil {
		t.Fatal(err)
	}
	n := res.Scenario.Topology.Nodes[0]
	for cmd, want := range map[string]float64{"find": 0.001, "aggregate": 0.004} {
		d, ok := n.ServiceByCommand[cmd]
		if !ok {
			t.Fatalf("no serviceByCommand.%s in\n%s", cmd, res.YAML)
		}
		checkWithin(t, cmd+" service mean", distMean(t, d), want, 0.10)
	}
}

// TestSlowTailLogNotUsed: a log of the slow tail only (slowms at its default) averages far above
// the pool's processing time; it is not used for the shape, and a note says why.
func TestSlowTailLogNotUsed(t *testing.T) {
	in := perCommandWorld(t)
	in.Nodes[0].Log = slowLog(100, map[string]float64{"find": 0.150, "aggregate": 0.300})
	in.Nodes[0].LogFrom = "db.log"
	res, err := Calibrate(in, Options{Name: "tail"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "holds the slow tail") {
		t.Errorf("no slow-tail note in %q", res.Notes)
	}
	if _, ok := res.Scenario.Topology.Nodes[0].ServiceByCommand["aggregate"]; ok {
		t.Errorf("a slow-tail log gave aggregate its own service time:\n%s", res.YAML)
	}
	checkWithin(t, "read service mean", distMean(t, res.Scenario.Topology.Nodes[0].Service), 0.00175, 0.05)
}
