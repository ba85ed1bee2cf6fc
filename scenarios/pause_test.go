package scenarios

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/server"
	"github.com/overloadsim/overloadsim/sim"
)

// Rule (pause fault in a scenario): kind pause with node and for is accepted, becomes a
// server.FaultPause of that length, reads back from its canonical text, and its window in the
// results is [at, at+for].
func TestPauseFault(t *testing.T) {
	sc, err := Parse("pause.yaml", []byte(pauseScenario))
	if err != nil {
		t.Fatal(err)
	}
	f := sc.Faults[0].ServerFault()
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
