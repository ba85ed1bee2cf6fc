package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/overloadsim/overloadsim/lab/experiment"
	"github.com/overloadsim/overloadsim/lab/simreplay"
)

// TestCheckRecorded: check compares a release's committed records with the preset's replay and
// exits 1 naming the experiment when they differ; records that agree exit 0; a release without a
// preset needs --policy.
func TestCheckRecorded(t *testing.T) {
	const name = "overload-then-ok"
	e, err := experiment.Load(filepath.Join("..", "..", "experiments", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	// The "real" record is the replay of another seed: the same rules, other draws.
	rec, err := simreplay.Replay(e, simreplay.Options{Policy: "go-2.10.0", Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	recs := t.TempDir()
	write := func() {
		b, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(recs, "go-2.10.0"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(recs, "go-2.10.0", name+".json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	check := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		args = append([]string{"check", "--recorded", "--experiments", filepath.Join("..", "..", "experiments"), "--records", recs}, args...)
		return dispatch(append(args, name), &out, &errb), out.String(), errb.String()
	}
	write()
	if st, out, errb := check("--release", "go-2.10.0"); st != 0 || !strings.Contains(out, "agree on all 1 experiments") {
		t.Errorf("agreeing records: status %d\n%s%s", st, out, errb)
	}
	// One attempt fewer for one operation is a difference.
	rec.Ops[0].Attempts = rec.Ops[0].Attempts[:2]
	write()
	if st, out, errb := check("--release", "go-2.10.0"); st != 1 || !strings.Contains(errb, "differ on 1 of 1 experiments: "+name) {
		t.Errorf("differing records: status %d\n%s%s", st, out, errb)
	}
	if st, _, errb := check("--release", "node-7.1.1"); st != 2 || !strings.Contains(errb, "no preset of this release") {
		t.Errorf("a release without a preset: status %d, %s", st, errb)
	}
}
