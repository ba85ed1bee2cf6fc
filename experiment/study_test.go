package experiment_test

import (
	"errors"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/overloadsim/overloadsim/experiment"
	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/scenarios"
)

// TestTrigger: the trigger judged is the one named, else the scenario's first; a scenario with
// none, or without the one named, is a *TriggerError that lists what there is.
func TestTrigger(t *testing.T) {
	cut, err := scenarios.Lookup("cpu-cut-storm")
	if err != nil {
		t.Fatal(err)
	}
	first := cut.FaultWindows()[0].Name
	if name, err := experiment.Trigger(cut, ""); err != nil || name != first {
		t.Errorf("Trigger(\"\") = %q, %v; want the first, %q", name, err, first)
	}
	if name, err := experiment.Trigger(cut, first); err != nil || name != first {
		t.Errorf("Trigger(%q) = %q, %v", first, name, err)
	}
	var te *experiment.TriggerError
	if _, err := experiment.Trigger(cut, "no-such"); !errors.As(err, &te) || te.Want != "no-such" || len(te.Names) == 0 {
		t.Errorf("Trigger(no-such): %v; want a *TriggerError listing the triggers", err)
	}
	healthy, err := scenarios.Lookup("healthy")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := experiment.Trigger(healthy, ""); !errors.As(err, &te) || len(te.Names) != 0 {
		t.Errorf("Trigger on a scenario without triggers: %v; want a *TriggerError with no names", err)
	}
}

// TestRecovery: the recovery after a trigger is the first of its name.
func TestRecovery(t *testing.T) {
	s := results.Summary{Recoveries: []results.Recovery{{Fault: "a", Seconds: 1}, {Fault: "b", Seconds: 2}, {Fault: "b", Seconds: 3}}}
	if r, ok := experiment.Recovery(&s, "b"); !ok || r.Seconds != 2 {
		t.Errorf("Recovery(b) = %v, %v; want the first b", r, ok)
	}
	if _, ok := experiment.Recovery(&s, "c"); ok {
		t.Errorf("Recovery(c) found a recovery after a trigger the run does not have")
	}
}

// TestWholeNumbers: a worker count takes whole numbers; a fraction-valued field, or ends that are not
// whole, do not make an integer search.
func TestWholeNumbers(t *testing.T) {
	sc, err := scenarios.Lookup("cpu-cut-storm")
	if err != nil {
		t.Fatal(err)
	}
	text := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	if _, err := sc.With("topology.nodes[0].workers", "2"); err != nil {
		t.Fatalf("the field tried is not one: %v", err)
	}
	if !experiment.WholeNumbers(sc, "topology.nodes[0].workers", 1, 8, text) {
		t.Errorf("workers: not read as whole numbers")
	}
	if experiment.WholeNumbers(sc, "faults[0].speed", 0, 1, text) {
		t.Errorf("speed: read as whole numbers")
	}
	if experiment.WholeNumbers(sc, "topology.nodes[0].workers", 1.5, 8, text) {
		t.Errorf("workers from 1.5: read as whole numbers")
	}
}

// TestHooks: hooks left out do nothing; Start counts a run until its end is called.
func TestHooks(t *testing.T) {
	var none experiment.Hooks
	none.Logf("nowhere %d\n", 1)
	if none.Progress("x") != nil {
		t.Errorf("Progress without a Bar is not nil")
	}
	none.Start()()
	var running atomic.Int64
	h := experiment.Hooks{Running: &running}
	end := h.Start()
	if running.Load() != 1 {
		t.Errorf("running %d after Start; want 1", running.Load())
	}
	end()
	if running.Load() != 0 {
		t.Errorf("running %d after the end; want 0", running.Load())
	}
}
