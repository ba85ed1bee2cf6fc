package scenarios

import (
	"slices"
	"testing"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/sim"
)

// TestLoadTriggers: load changes are triggers (FaultWindows). A load fault lasts from at to
// at+for; a spike in a rate lasts its duration; a step or a ramp lasts to the end of the run;
// groups with the same change make one trigger; triggers past the horizon are left out.
func TestLoadTriggers(t *testing.T) {
	s := func(secs float64) sim.Time { return sim.FromSeconds(secs) }
	tests := []struct {
		name, clients, faults string
		want                  []results.FaultWindow
	}{
		{"a load fault", `[{name: a, workload: {rate: 100/s}}]`, `[{kind: load, at: 5s, for: 2s, factor: 2}]`,
			[]results.FaultWindow{{Name: "load", Start: s(5), End: s(7)}}},
		{"a named load fault on one group", `[{name: a, workload: {rate: 100/s}}, {name: b, workload: {rate: 50/s}}]`,
			`[{name: surge, kind: load, group: b, at: 5s, for: 2s, factor: 2}]`,
			[]results.FaultWindow{{Name: "surge", Start: s(5), End: s(7)}}},
		{"a spike, shared by two groups", `[{name: a, workload: {rate: {kind: spike, base: 10/s, peak: 30/s, start: 4s, duration: 3s}}},
		  {name: b, workload: {rate: {kind: spike, base: 10/s, peak: 30/s, start: 4s, duration: 3s}}}]`, `[]`,
			[]results.FaultWindow{{Name: "spike", Start: s(4), End: s(7)}}},
		{"a step lasts to the end", `[{name: a, workload: {rate: {kind: step, before: 10/s, after: 30/s, at: 8s}}}]`, `[]`,
			[]results.FaultWindow{{Name: "step", Start: s(8), End: s(20)}}},
		{"a ramp lasts to the end", `[{name: a, workload: {rate: {kind: ramp, from: 10/s, to: 30/s, start: 2s, end: 6s}}}]`, `[]`,
			[]results.FaultWindow{{Name: "ramp", Start: s(2), End: s(20)}}},
		{"a spike after the horizon", `[{name: a, workload: {rate: {kind: spike, base: 10/s, peak: 30/s, start: 25s, duration: 3s}}}]`, `[]`, nil},
		{"a constant rate is no trigger", `[{name: a, workload: {rate: 100/s}}]`, `[]`, nil},
	}
	for _, tc := range tests {
		sc, err := Parse("t", []byte("name: t\nduration: 20s\nclients: "+tc.clients+"\nfaults: "+tc.faults+"\n"))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := sc.FaultWindows(); !slices.Equal(got, tc.want) {
			t.Errorf("%s: FaultWindows = %v, want %v", tc.name, got, tc.want)
		}
	}
}
