package scenarios

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/server"
	"github.com/overloadsim/overloadsim/sim"
)

const pauseScenario = `
duration: 8s
topology:
  nodes:
    - name: db
      workers: 4
      service: exp(2ms)
      ingressRequestRateLimiterEnabled: true
      ingressRequestAdmissionRatePerSec: 1500/s
      ingressRequestAdmissionBurstCapacitySecs: 0.2
clients:
  - name: app
    count: 4
    driver: {timeoutMS: 500}
    workload: {rate: 1000/s}
faults:
  - {at: 2s, kind: pause, node: db, for: 1500ms}
  - {at: 3s, kind: pause, node: db, for: 1s}
`

// Rule (pause fault in a scenario): kind pause with node and for is accepted, becomes a
// server.FaultPause of that length, reads back from its canonical text, and its window in the
// results is [at, at+for].
func TestPauseFault(t *testing.T) {
	sc, err := Parse("pause.yaml", []byte(pauseScenario))
	if err != nil {
		t.Fatal(err)
	}
	f := sc.Faults[0].serverFault()
	if f.Kind != server.FaultPause || f.Node != "db" || f.For != 1500*time.Millisecond || f.At != 2*time.Second {
		t.Errorf("server fault %+v, want a 1.5s pause of db at 2s", f)
	}
	if !strings.Contains(sc.String(), "kind: pause") {
		t.Errorf("canonical text has no pause:\n%s", sc.String())
	}
	again, err := Parse("again.yaml", []byte(sc.String()))
	if err != nil || again.String() != sc.String() {
		t.Errorf("canonical text does not read back to itself: %v", err)
	}
	want := []results.FaultWindow{
		{Name: "pause db", Start: sim.Time(2 * time.Second), End: sim.Time(3500 * time.Millisecond)},
		{Name: "pause db", Start: sim.Time(3 * time.Second), End: sim.Time(4 * time.Second)},
	}
	if got := sc.FaultWindows(); !slices.Equal(got, want) {
		t.Errorf("FaultWindows() = %+v, want %+v", got, want)
	}
}

// Rule (determinism): the same scenario and seed, pauses included, give identical results — the
// time series, the summary and every node's final statistics.
func TestPauseFaultDeterminism(t *testing.T) {
	sc, err := Parse("pause.yaml", []byte(pauseScenario))
	if err != nil {
		t.Fatal(err)
	}
	run := func() (string, []server.Stats) {
		var w *World
		r, err := RunWith(sc, sc.Seed, 0, RunOptions{Attach: func(world *World) { w = world }})
		if err != nil {
			t.Fatal(err)
		}
		var stats []server.Stats
		for _, n := range w.Cluster.Nodes() {
			stats = append(stats, n.Snapshot(sim.Time(sc.Duration)))
		}
		var ts bytes.Buffer
		if err := results.WriteTimeseries(&ts, r.Series); err != nil {
			t.Fatal(err)
		}
		return ts.String() + fmt.Sprintf("%#v", r.Summary), stats
	}
	s1, st1 := run()
	s2, st2 := run()
	if st1[0].PausedTime != 2*time.Second || st1[0].HeldMessages == 0 {
		t.Fatalf("paused %v, held %d: want the union of the pauses, 2s, and held messages", st1[0].PausedTime, st1[0].HeldMessages)
	}
	if s1 != s2 {
		t.Error("same scenario and seed, different time series or summary")
	}
	if !reflect.DeepEqual(st1, st2) {
		t.Errorf("same scenario and seed, different node statistics:\n%+v\n%+v", st1, st2)
	}
}
