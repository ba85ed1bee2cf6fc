package harness

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/overloadsim/overloadsim/lab/experiment"
)

// TestRealGoDriver runs overload-then-ok against the Go driver release the runner's go.mod pins:
// every operation is rejected twice with 462, retried, and succeeds on its third attempt, each
// retry after a backoff no longer than the ceiling any release draws from (100 ms × 2^k, with
// room for the round trip). It is skipped only when the runner cannot be built because the
// module proxy is out of reach.
func TestRealGoDriver(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the real Go driver: not in -short")
	}
	lab, err := FindLab(".")
	if err != nil {
		t.Fatal(err)
	}
	e, err := experiment.Load(filepath.Join(lab, "experiments", "overload-then-ok.json"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Release(lab, "go-2.10.0")
	if err != nil {
		t.Fatal(err)
	}
	rec, err := Run(context.Background(), e, r)
	var be *BuildError
	if errors.As(err, &be) && be.Offline {
		t.Skipf("the Go runner cannot be built without the module proxy: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if rec.Runner != "go" || rec.Release != "go-2.10.0" || len(rec.Ops) != e.Count {
		t.Fatalf("record %s %s with %d ops", rec.Runner, rec.Release, len(rec.Ops))
	}
	for _, op := range rec.Ops {
		var answers []string
		for _, a := range op.Attempts {
			answers = append(answers, a.Answer)
		}
		if !slices.Equal(answers, []string{"error 462", "error 462", "ok"}) || op.Outcome.Class != "ok" {
			t.Errorf("op %d: attempts %v, outcome %s; want 462, 462, ok and ok", op.Index, answers, op.Outcome.Class)
			continue
		}
		for k, g := range op.Gaps() {
			if ceiling := float64(int(100)<<(k+1)) + 100; g < 0 || g > ceiling {
				t.Errorf("op %d: gap %d is %.1f ms, beyond %.0f ms", op.Index, k+1, g, ceiling)
			}
		}
	}
	if len(rec.Handshakes) == 0 {
		t.Error("no application handshake logged")
	}
}
