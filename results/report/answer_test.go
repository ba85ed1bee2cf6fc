package report

import (
	"math"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/sim"
)

// TestRunAnswer: what a run's report leads with (newRunAnswer): where today's load sits, in
// simulate run's words; each trigger's verdict in a few words, coloured by outcome, continued by
// its evidence (results.Recovery.Describe) unless it recovered; the failure share and
// attempts per operation while the trigger lasted, against before it (results.Phases), and
// nothing of the kind for an instant trigger; a run without triggers, its measured window.
func TestRunAnswer(t *testing.T) {
	sec := func(s float64) sim.Time { return sim.Time(time.Duration(s * float64(time.Second))) }
	stuck := results.StuckState{GoodputShare: 0.05, Amplification: 2.5, Backlog: 6000, DriverBacklog: math.NaN(), SustainedBy: []string{"retries"}}
	phases := []results.Phase{
		{Name: "before cut", Start: 0, End: sec(10), Offered: 1000, Goodput: 1000, FailureShare: 0, Amplification: 1},
		{Name: "during cut", Start: sec(10), End: sec(15), Offered: 1000, Goodput: 400, FailureShare: 0.25, Amplification: 2.5},
		{Name: "after cut", Start: sec(15), End: sec(30), Offered: 1000, Goodput: 50, FailureShare: 0.9, Amplification: 3},
	}
	capacity := results.Capacity{Today: 1000, Ceiling: 4000, Source: "ingress request limiter 4000/s on rs0"}
	const today = "Today's load 1000/s (the scenario as configured, averaged over the run) = 25 % of the configured ceiling 4000/s (ingress request limiter 4000/s on rs0)."
	const during = "While it lasted, 25.0 % of the operations failed and each made 2.500 attempts (before it: 0.0 % failed, 1.000 attempts); goodput 400.0/s of 1000.0/s offered."
	for _, c := range []struct {
		gloss                  string
		rec                    results.Recovery
		verdict, class, detail string
		during                 string
	}{
		{"recovered", results.Recovery{Fault: "cut", Start: sec(10), End: sec(15), Outcome: results.Recovered, Seconds: 2.5, PreGoodput: 1000, Band: 10},
			"recovered 2.5 s after it ended", "recovered", "", during},
		{"stuck", results.Recovery{Fault: "cut", Start: sec(10), End: sec(15), Outcome: results.Stuck, Stuck: stuck},
			"stuck", "failed", " at 5 % of pre-trigger goodput, amplification 2.50, backlog 6000; sustained by retries", during},
		{"relapsed", results.Recovery{Fault: "cut", Start: sec(10), End: sec(15), Outcome: results.Relapsed, RecoveredSeconds: 1, RelapseSeconds: 7, Stuck: stuck},
			"relapsed", "failed", ": recovered 1 s after it ended, then relapsed 7 s after it: stuck at 5 % of pre-trigger goodput, amplification 2.50, backlog 6000; sustained by retries", during},
		{"undecided", results.Recovery{Fault: "cut", Start: sec(10), End: sec(15), Outcome: results.Undecided, MoreSeconds: 20, RelapseSeconds: math.NaN()},
			"undecided", "undecided", ": run about 20 s longer to tell", during},
		{"an instant trigger: no phase during it", results.Recovery{Fault: "kill", Start: sec(10), End: sec(10), Outcome: results.Stuck, Stuck: stuck},
			"stuck", "failed", " at 5 % of pre-trigger goodput, amplification 2.50, backlog 6000; sustained by retries", ""},
	} {
		a := newRunAnswer(&results.Summary{Capacity: capacity, Recoveries: []results.Recovery{c.rec}, Phases: phases})
		if a.Today != today {
			t.Errorf("%s: today %q, want %q", c.gloss, a.Today, today)
		}
		if len(a.Triggers) != 1 || a.Steady != "" {
			t.Fatalf("%s: triggers %+v, steady %q: want the one trigger", c.gloss, a.Triggers, a.Steady)
		}
		got := a.Triggers[0]
		if got.Verdict != c.verdict || got.Class != c.class || got.Detail != c.detail || got.During != c.during {
			t.Errorf("%s: %+v\nwant verdict %q, class %q, detail %q, during %q", c.gloss, got, c.verdict, c.class, c.detail, c.during)
		}
	}

	// No trigger: the measured window in a sentence; no ceiling known: nothing said of it.
	total := results.GroupSummary{Issued: 1000, Failed: 10, Offered: 100, Goodput: 99, Amplification: 1.02,
		Success: results.Latency{P99: 0.0123}}
	a := newRunAnswer(&results.Summary{Total: total, Capacity: results.Capacity{Today: 100}})
	const steady = "No trigger: over the measured window, goodput 99.0/s of 100.0/s offered, 1.0 % of the operations failed, 1.020 attempts each, p99 of successes 12.3 ms."
	if a.Today != "" || len(a.Triggers) != 0 || a.Steady != steady {
		t.Errorf("no trigger, no ceiling: %+v, want no today and steady %q", a, steady)
	}
}
