package tip

import (
	"testing"

	"github.com/overloadsim/overloadsim/scenarios"
)

// TestParamName: the parameters a planner searches get their words, from the fault or group
// the path points at; any other path, or an index out of range, gets none (the path names it).
func TestParamName(t *testing.T) {
	for _, tc := range []struct{ scenario, path, want string }{
		{"cpu-cut-storm", "faults[0].for", "cut length"},
		{"cpu-cut-storm", "faults[0].speed", "CPU left"},
		{"cpu-cut-storm", "faults[0].at", "cut start"},
		{"cpu-cut-storm", "faults[3].for", ""},
		{"cpu-cut-storm", "clients[0].workload.rate", "app rate"},
		{"cpu-cut-storm", "clients[0].appRetry.attempts", "app retry attempts"},
		{"cpu-cut-storm", "clients[0].driver.retryPolicy", "app retry policy"},
		{"cpu-cut-storm", "load", "load scale"},
		{"pause-collapse", "faults[0].for", "pause length"},
		{"spike-collapse", "faults[0].for", "surge length"},
		{"spike-collapse", "faults[0].factor", "surge factor"},
	} {
		sc, err := scenarios.Lookup(tc.scenario)
		if err != nil {
			t.Fatal(err)
		}
		if got := ParamName(sc, tc.path); got != tc.want {
			t.Errorf("%s %s: %q, want %q", tc.scenario, tc.path, got, tc.want)
		}
	}
}
