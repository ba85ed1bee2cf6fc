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
