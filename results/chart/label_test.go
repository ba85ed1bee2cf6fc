package chart

import (
	"slices"
	"testing"
)

// TestParamLabel: a parameter's short name (ParamLabel) is the name given for it, else one
// built from its path and the scenario — a group's field by the group's name, a fault's
// length and start by the fault's noun, its speed as the CPU left, a node's field by the node —
// and the path itself when the scenario has no such group, node or fault.
func TestParamLabel(t *testing.T) {
	info := ParamInfo{Groups: []string{"web", "batch"}, Nodes: []string{"db"}, Faults: []string{"capacity", "pause", "load", "rebalance"}}
	for _, c := range []struct {
		path, want string
	}{
		{"load", "load (× today)"},
		{"clients[0].workload.rate", "web rate"},
		{"clients[1].driver.retryPolicy", "batch retry policy"},
		{"clients[1].driver.adaptiveRetries", "batch adaptive retries"},
		{"clients[0].count", "web count"},
		{"faults[0].for", "cut length"},
		{"faults[1].for", "pause length"},
		{"faults[2].for", "surge length"},
		{"faults[2].factor", "surge factor"},
		{"faults[0].speed", "CPU left"},
		{"faults[0].workers", "workers left"},
		{"faults[1].at", "pause start"},
		{"faults[3].for", "rebalance length"},
		{"topology.nodes[0].ingressRequestAdmissionRatePerSec", "db limiter rate"},
		{"topology.nodes[0].workers", "db workers"},
		{"clients[2].workload.rate", "clients[2].workload.rate"}, // no such group
		{"faults[4].for", "faults[4].for"},
		{"duration", "duration"},
	} {
		if got := ParamLabel(c.path, info, nil); got != c.want {
			t.Errorf("ParamLabel(%s) = %q, want %q", c.path, got, c.want)
		}
	}
	if got := ParamLabel("faults[0].for", info, map[string]string{"faults[0].for": "CPU cut length"}); got != "CPU cut length" {
		t.Errorf("with a name given: %q", got)
	}
	if got := ParamLabel("faults[0].for", ParamInfo{}, nil); got != "faults[0].for" {
		t.Errorf("without a scenario: %q, want the path", got)
	}
}

// TestParamInfoOf: the groups, nodes and faults are read from a scenario's canonical text;
// a text that does not parse gives none.
func TestParamInfoOf(t *testing.T) {
	got := ParamInfoOf("name: x\ntopology:\n  nodes:\n    - name: db\nclients:\n  - name: web\n  - name: batch\nfaults:\n  - {kind: pause, for: 2s}\n")
	if !slices.Equal(got.Groups, []string{"web", "batch"}) || !slices.Equal(got.Nodes, []string{"db"}) || !slices.Equal(got.Faults, []string{"pause"}) {
		t.Errorf("ParamInfoOf = %+v", got)
	}
	if got := ParamInfoOf("clients: [: nope"); len(got.Groups)+len(got.Nodes)+len(got.Faults) != 0 {
		t.Errorf("a text that does not parse: %+v, want nothing", got)
	}
}

// TestValueNames: values that are YAML flow maps are named by the fields that differ between
// them; other values, maps that differ in nothing, and names that would coincide are kept whole.
func TestValueNames(t *testing.T) {
	for _, c := range []struct {
		gloss  string
		values []string
		want   []string
	}{
		{"one field differs", []string{"{retryPolicy: mongodb-2026-03, adaptiveRetries: true}", "{retryPolicy: mongodb-2026-07, adaptiveRetries: true}"},
			[]string{"mongodb-2026-03", "mongodb-2026-07"}},
		{"two fields differ", []string{"{retryPolicy: none, adaptiveRetries: false}", "{retryPolicy: mongodb-2026-07, adaptiveRetries: true}"},
			[]string{"retryPolicy=none adaptiveRetries=false", "retryPolicy=mongodb-2026-07 adaptiveRetries=true"}},
		{"a field missing from one", []string{"{retryPolicy: none}", "{retryPolicy: none, adaptiveRetries: true}"},
			[]string{"(unset)", "true"}},
		{"plain values", []string{"mongodb-legacy", "mongodb-2026-07"}, []string{"mongodb-legacy", "mongodb-2026-07"}},
		{"one map among plain values", []string{"none", "{retryPolicy: none}"}, []string{"none", "{retryPolicy: none}"}},
		{"nested maps are kept whole", []string{"{a: {b: 1}}", "{a: {b: 2}}"}, []string{"{a: {b: 1}}", "{a: {b: 2}}"}},
	} {
		if got := ValueNames(c.values); !slices.Equal(got, c.want) {
			t.Errorf("%s: ValueNames(%q) = %q, want %q", c.gloss, c.values, got, c.want)
		}
	}
}
