package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// lostWrites is a rate-limited replica set written to under retryWrites=false by two tiers that
// differ only in their driver release: go-2.9.1 reports a write refused with NoWritesPerformed
// and not retried as a success, go-2.9.2 returns the error (docs/drivers.md §2).
const lostWrites = `name: lost-writes
seed: 1
duration: 5s
warmup: 1s
topology:
  kind: replicaset
  nodes:
    - name: a
      role: primary
      service: exp(2ms)
      ingressRequestRateLimiterEnabled: true
      ingressRequestAdmissionRatePerSec: 200
      ingressRequestAdmissionBurstCapacitySecs: 0.1
clients:
  - name: buggy
    count: 2
    driver: {retryPolicy: go-2.9.1, retryWrites: false}
    workload: {rate: 200/s}
    mix: {insert: 1}
  - name: fixed
    count: 2
    driver: {retryPolicy: go-2.9.2, retryWrites: false}
    workload: {rate: 200/s}
    mix: {insert: 1}
`

// TestRunSaysWritesLost: the writes a buggy release reports as succeeded are counted apart in
// summary.json (writesLost) and said in the summary, and only for that release; its goodput
// includes them, as the application saw them.
func TestRunSaysWritesLost(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "lost.yaml")
	if err := os.WriteFile(file, []byte(lostWrites), 0o644); err != nil {
		t.Fatal(err)
	}
	out := runOK(t, "run", file, "--out", filepath.Join(dir, "out"))
	if !strings.Contains(out, "buggy: ") || !strings.Contains(out, "writes reported as succeeded were refused by the server") {
		t.Errorf("the summary does not say the buggy tier lost writes:\n%s", out)
	}
	if strings.Contains(out, "fixed: ") {
		t.Errorf("the summary says the fixed release lost writes:\n%s", out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "out", "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum struct {
		Groups []struct {
			Name       string  `json:"name"`
			WritesLost uint64  `json:"writesLost"`
			Failed     uint64  `json:"failed"`
			Goodput    float64 `json:"goodput"`
		} `json:"groups"`
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	got := map[string]uint64{}
	failed := map[string]uint64{}
	for _, g := range sum.Groups {
		got[g.Name], failed[g.Name] = g.WritesLost, g.Failed
	}
	if got["buggy"] == 0 || got["fixed"] != 0 {
		t.Errorf("writesLost buggy %d, fixed %d; want > 0 and 0", got["buggy"], got["fixed"])
	}
	// The fixed release surfaces those rejections as failures; the buggy one hides them.
	if failed["fixed"] == 0 || failed["buggy"] >= failed["fixed"] {
		t.Errorf("failed: buggy %d, fixed %d; want the fixed release to fail more", failed["buggy"], failed["fixed"])
	}
	if !strings.Contains(string(b), `"writesLost"`) {
		t.Error("summary.json has no writesLost")
	}
}
