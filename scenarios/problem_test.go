package scenarios

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/client"
	"github.com/overloadsim/overloadsim/client/selection"
	"github.com/overloadsim/overloadsim/field"
	"github.com/overloadsim/overloadsim/server"
	"github.com/overloadsim/overloadsim/wire"
)

// TestProblemsAreFieldErrors: a scenario's problems name the file, the line, the field, the
// value and the rule; each is the model packages' *field.Error for the field's path, re-attributed
// rather than re-worded (server.Config.Validate's workers rule, server.CheckFault's pause rule).
func TestProblemsAreFieldErrors(t *testing.T) {
	_, err := Parse("p.yaml", []byte(`
duration: 10s
topology:
  nodes:
    - {name: db, workers: 0}
clients:
  - name: app
    workload: {rate: 100/s}
faults:
  - {at: 1s, kind: pause, node: db}
`))
	want := []string{
		"p.yaml:5: topology.nodes[0].workers: 0: must be ≥ 1",
		"p.yaml:10: faults[0].for: 0s: a pause lasts a while: must be > 0",
	}
	if err == nil || err.Error() != strings.Join(want, "\n") {
		t.Fatalf("Parse = %v, want\n%s", err, strings.Join(want, "\n"))
	}
	parts := field.Parts(err)
	if len(parts) != len(want) {
		t.Fatalf("field.Parts = %q, want %d problems", parts, len(want))
	}
	for i, fieldPath := range []string{"topology.nodes[0].workers", "faults[0].for"} {
		var fe *field.Error
		if !errors.As(parts[i], &fe) || fe.Field != fieldPath || parts[i].Error() != want[i] {
			t.Errorf("problem %d = %q (%+v): want the field error of %s", i, parts[i], fe, fieldPath)
		}
	}
	if !errors.Is(err, ErrInvalid) {
		t.Errorf("%v does not match ErrInvalid", err)
	}
}

// TestCosts: zero means zero. A node that does not set rejectCost or handshakeCost has a real
// server's (server.DefaultRejectCost, server.DefaultHandshakeCost); 0s is free, and the server
// is given 0s; a negative cost breaks server.Config.Validate's rule.
func TestCosts(t *testing.T) {
	sc, err := Parse("c.yaml", []byte(minimal+`topology:
  kind: replicaset
  nodes:
    - {name: a}
    - {name: b, rejectCost: 0s, handshakeCost: 0s}
`))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range [][2]time.Duration{{server.DefaultRejectCost, server.DefaultHandshakeCost}, {0, 0}} {
		cfg := sc.Topology.Nodes[i].ServerConfig()
		if cfg.RejectCost != want[0] || cfg.HandshakeCost != want[1] {
			t.Errorf("node %d: server costs %v, %v; want %v, %v", i, cfg.RejectCost, cfg.HandshakeCost, want[0], want[1])
		}
	}
	_, err = Parse("c.yaml", []byte(minimal+"topology: {nodes: [{name: a, rejectCost: -1ms}]}\n"))
	if err == nil || err.Error() != "c.yaml:6: topology.nodes[0].rejectCost: -1ms: must be ≥ 0 (0s = free)" {
		t.Errorf("negative rejectCost: %v", err)
	}
}

// TestTypedValues: kinds, roles, flavors, read preference modes, backoffs and fault kinds decode
// into the model packages' types, read by their own parse functions, and the canonical text
// spells them as the file does; a name they do not know is a problem naming the value quoted
// and the names allowed.
func TestTypedValues(t *testing.T) {
	sc, err := Parse("t.yaml", []byte(`
duration: 10s
topology:
  kind: sharded
  nodes:
    - {name: m, role: mongos}
    - {name: a, shard: s0}
clients:
  - name: app
    driver: {readPreference: secondaryPreferred}
    workload: {rate: 100/s}
    appRetry: {attempts: 2, backoff: fullJitter, base: 1ms}
faults:
  - {at: 1s, kind: stepDown, node: a}
  - {at: 2s, kind: load, factor: 2, for: 1s}
`))
	if err != nil {
		t.Fatal(err)
	}
	n, g, f := sc.Topology.Nodes, sc.Clients[0], sc.Faults
	if sc.Topology.Kind != selection.Sharded || n[0].Role != wire.Mongos || n[1].Role != wire.Primary ||
		n[1].Flavor != server.FlavorMongoDB || g.Driver.ReadPreference != selection.SecondaryPreferred ||
		g.AppRetry.Backoff != client.BackoffFullJitter || f[0].Kind != server.FaultStepDown || f[1].Kind != loadKind {
		t.Errorf("decoded %v %v %v %v %v %v %v %v", sc.Topology.Kind, n[0].Role, n[1].Role, n[1].Flavor,
			g.Driver.ReadPreference, g.AppRetry.Backoff, f[0].Kind, f[1].Kind)
	}
	text := sc.String()
	for _, w := range []string{"kind: sharded\n", "role: mongos\n", "role: primary\n", "readPreference: secondaryPreferred\n",
		"backoff: fullJitter", "kind: stepDown", "kind: load", "name: load\n"} {
		if !strings.Contains(text, w) {
			t.Errorf("canonical text lacks %q:\n%s", w, text)
		}
	}
	_, err = Parse("t.yaml", []byte(minimal+"topology: {nodes: [{name: a, role: arbiter}]}\n"))
	if err == nil || err.Error() != `t.yaml:6: topology.nodes[0].role: "arbiter": must be standalone, primary, secondary or mongos` {
		t.Errorf("unknown role: %v", err)
	}
}
