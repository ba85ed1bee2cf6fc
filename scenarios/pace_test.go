package scenarios

import (
	"strings"
	"testing"
	"time"
)

// TestPaceField: a closed loop takes pace (client.Workload.Pace) and keeps it in its canonical
// form; an open loop, or a negative pace, is refused naming the field.
func TestPaceField(t *testing.T) {
	const base = "name: p\nduration: 10s\ntopology: {nodes: [{name: db}]}\nclients:\n  - name: app\n    mix: {find: 1}\n"
	sc, err := Parse("p.yaml", []byte(base+"    workload: {threads: 2, pace: 20ms}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := sc.Clients[0].Workload.Pace; got != 20*time.Millisecond {
		t.Errorf("pace = %s, want 20ms", got)
	}
	if !strings.Contains(sc.String(), "pace: 20ms") {
		t.Errorf("canonical form lacks the pace:\n%s", sc)
	}
	for _, bad := range []string{"{rate: 100/s, pace: 20ms}", "{threads: 2, pace: -1ms}"} {
		_, err := Parse("p.yaml", []byte(base+"    workload: "+bad+"\n"))
		if err == nil || !strings.Contains(err.Error(), "clients[0].workload.pace") {
			t.Errorf("workload %s: error %v, want one naming clients[0].workload.pace", bad, err)
		}
	}
}

// TestRejectOrderField: a node's rejectOrder reaches the server (server.Config.RejectOrder),
// ahead by default; an unknown order is refused naming the field and the choices.
func TestRejectOrderField(t *testing.T) {
	const base = "name: r\nduration: 10s\nclients: [{name: app, workload: {rate: 10/s}, mix: {find: 1}}]\n"
	for _, c := range []struct{ node, want string }{{"{name: db}", "ahead"}, {"{name: db, rejectOrder: fifo}", "fifo"}} {
		sc, err := Parse("r.yaml", []byte(base+"topology: {nodes: ["+c.node+"]}\n"))
		if err != nil {
			t.Fatal(err)
		}
		if got := sc.Topology.Nodes[0].ServerConfig().RejectOrder.String(); got != c.want {
			t.Errorf("%s: reject order %s, want %s", c.node, got, c.want)
		}
	}
	_, err := Parse("r.yaml", []byte(base+"topology: {nodes: [{name: db, rejectOrder: last}]}\n"))
	if err == nil || !strings.Contains(err.Error(), "rejectOrder") || !strings.Contains(err.Error(), "must be ahead or fifo") {
		t.Errorf("rejectOrder: last: error %v, want one naming the field and the choices", err)
	}
}

// TestHandshakeWorkField: a node's handshakeWork reaches the server (server.Config.HandshakeWork),
// none by default; a negative one is refused naming the field.
func TestHandshakeWorkField(t *testing.T) {
	const base = "name: h\nduration: 10s\nclients: [{name: app, workload: {rate: 10/s}, mix: {find: 1}}]\n"
	for node, want := range map[string]time.Duration{"{name: db}": 0, "{name: db, handshakeWork: 3ms}": 3 * time.Millisecond} {
		sc, err := Parse("h.yaml", []byte(base+"topology: {nodes: ["+node+"]}\n"))
		if err != nil {
			t.Fatal(err)
		}
		if got := sc.Topology.Nodes[0].ServerConfig().HandshakeWork; got != want {
			t.Errorf("%s: handshake work %v, want %v", node, got, want)
		}
	}
	_, err := Parse("h.yaml", []byte(base+"topology: {nodes: [{name: db, handshakeWork: -1ms}]}\n"))
	if err == nil || !strings.Contains(err.Error(), "handshakeWork") {
		t.Errorf("handshakeWork: -1ms: error %v, want one naming the field", err)
	}
}

// TestExecutionField: a node's execution reaches the server (server.Config.Execution), tickets
// by default; shared with a bounded queue is refused naming maxQueueDepth.
func TestExecutionField(t *testing.T) {
	const base = "name: e\nduration: 10s\nclients: [{name: app, workload: {rate: 10/s}, mix: {find: 1}}]\n"
	for node, want := range map[string]string{"{name: db}": "tickets", "{name: db, execution: shared}": "shared"} {
		sc, err := Parse("e.yaml", []byte(base+"topology: {nodes: ["+node+"]}\n"))
		if err != nil {
			t.Fatal(err)
		}
		if got := sc.Topology.Nodes[0].ServerConfig().Execution.String(); got != want {
			t.Errorf("%s: execution %s, want %s", node, got, want)
		}
	}
	for node, field := range map[string]string{"{name: db, execution: shared, maxQueueDepth: 5}": "maxQueueDepth", "{name: db, execution: fair}": "execution"} {
		_, err := Parse("e.yaml", []byte(base+"topology: {nodes: ["+node+"]}\n"))
		if err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("%s: error %v, want one naming %s", node, err, field)
		}
	}
}

// TestAssignField: an open loop's assign reaches its group (client.Workload.Assign),
// roundRobin by default; a closed loop or an unknown name is refused naming the field.
func TestAssignField(t *testing.T) {
	const base = "name: a\nduration: 10s\ntopology: {nodes: [{name: db}]}\nclients:\n  - name: app\n    mix: {find: 1}\n"
	sc, err := Parse("a.yaml", []byte(base+"    workload: {rate: 100/s, assign: random}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := sc.Clients[0].Workload.Assign.String(); got != "random" || !strings.Contains(sc.String(), "assign: random") {
		t.Errorf("assign = %s, canonical:\n%s", got, sc)
	}
	for _, bad := range []string{"{threads: 2, assign: random}", "{rate: 100/s, assign: sticky}"} {
		_, err := Parse("a.yaml", []byte(base+"    workload: "+bad+"\n"))
		if err == nil || !strings.Contains(err.Error(), "clients[0].workload.assign") {
			t.Errorf("workload %s: error %v, want one naming clients[0].workload.assign", bad, err)
		}
	}
}
