package results_test

import (
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/sim"
)

// TestPhases pins how a run is cut around its triggers (results.Phases): at each trigger's
// start and end, moved to the end of the interval that holds it, from the warm-up's end to the
// run's; each stretch named before, during or after the trigger, and summarised on its own —
// the surge's failures in its own phase, not averaged into the run.
func TestPhases(t *testing.T) {
	at := func(s float64) sim.Time { return sim.Time(time.Duration(s * float64(time.Second))) }
	s := series(100, 100, 40, 60, 100, 100, 100, 100)
	for i := range s.Groups {
		s.Groups[i].Failed = s.Groups[i].Issued - s.Groups[i].Succeeded // every operation ends, within its interval
	}
	s.Faults = []results.FaultWindow{{Name: "spike", Start: at(2), End: at(3.5)}}
	got := results.Phases(s, time.Second)
	type phase struct {
		name       string
		start, end sim.Time
		goodput    float64
		failed     float64
	}
	var ps []phase
	for _, p := range got {
		ps = append(ps, phase{p.Name, p.Start, p.End, p.Goodput, p.FailureShare})
	}
	want := []phase{
		{"before spike", at(1), at(2), 100, 0},  // from the warm-up's end
		{"during spike", at(2), at(4), 50, 0.5}, // 3.5 s moves to the end of its interval
		{"after spike", at(4), at(8), 100, 0},
	}
	if len(ps) != len(want) {
		t.Fatalf("phases %+v, want %+v", ps, want)
	}
	for i := range want {
		if ps[i] != want[i] {
			t.Errorf("phase %d: %+v, want %+v", i, ps[i], want[i])
		}
	}
	if p := results.Phases(series(100, 100), 0); p != nil {
		t.Errorf("a run without triggers has phases %+v", p)
	}
}
