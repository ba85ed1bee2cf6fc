package main

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// editBaseline rewrites the metrics of a baseline file's single point: set gives a metric's new
// mean (NaN as null), drop removes the metrics whose names it matches.
func editBaseline(t *testing.T, path string, set map[string]any, drop func(string) bool) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var b map[string]any
	if err := json.Unmarshal(data, &b); err != nil {
		t.Fatal(err)
	}
	point := b["points"].([]any)[0].(map[string]any)
	var kept []any
	for _, m := range point["metrics"].([]any) {
		m := m.(map[string]any)
		name := m["name"].(string)
		if drop != nil && drop(name) {
			continue
		}
		if v, ok := set[name]; ok {
			m["mean"] = v
			delete(set, name)
		}
		kept = append(kept, m)
	}
	if len(set) > 0 {
		t.Fatalf("the baseline has no metric %v", set)
	}
	point["metrics"] = kept
	if data, err = json.Marshal(b); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCheckNewGates: check flags, end to end, what the band gates let through (docs/metrics.md
// §16): against a baseline in which the same run had fewer failures (goodput unchanged), was
// not stuck after its surge and recovered in 3 s, the spike-collapse run — stuck — regresses on
// its failure share, its stuck outcome and its recovery time, and on nothing else; the JUnit
// report and the Markdown summary list the same comparisons, the failures first in the
// summary, which is appended to a file that holds one already.
func TestCheckNewGates(t *testing.T) {
	dir := t.TempDir()
	res, base := filepath.Join(dir, "collapse"), filepath.Join(dir, "base.json")
	runOK(t, "run", "spike-collapse", "--out", res)
	runOK(t, "check", "--write-baseline", base, res)
	var sum struct {
		Total struct {
			FailureRate float64 `json:"failureRate"`
		} `json:"total"`
	}
	data, err := os.ReadFile(filepath.Join(res, "summary.json"))
	if err != nil || json.Unmarshal(data, &sum) != nil || sum.Total.FailureRate <= 0 {
		t.Fatalf("summary.json: %v, failure rate %v", err, sum.Total.FailureRate)
	}
	editBaseline(t, base, map[string]any{
		"total.failures": sum.Total.FailureRate / 2, "group.app.failures": sum.Total.FailureRate / 2,
		"fault.surge.stuck": 0, "fault.surge.recovered": 1, "fault.surge.recovery_time": 3,
	}, nil)
	summary, junit := filepath.Join(dir, "ci", "summary.md"), filepath.Join(dir, "ci", "check.xml")
	if err := os.MkdirAll(filepath.Dir(summary), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(summary, []byte("# earlier step\n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, out, errb := runStatus("check", "--baseline", base, "--junit", junit, "--markdown", summary, res)
	var flagged []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.HasPrefix(l, "note:") && !strings.HasPrefix(l, "  ") {
			flagged = append(flagged, strings.Fields(l)[1])
		}
	}
	want := "total.failure_share group.app.failure_share fault.surge.stuck: fault.surge.recovery_time"
	if s != exitFailure || strings.Join(flagged, " ") != want || !strings.Contains(errb, "4 regressions") {
		t.Fatalf("check: exit %d, flagged %q, want %q\n%s%s", s, flagged, want, out, errb)
	}
	for _, line := range []string{
		"run: fault.surge.stuck: 1 of 1 runs stuck, where the baseline had none (0 of 1)",
		"run: fault.surge.recovery_time has no value (baseline 3 s)",
	} {
		if !strings.Contains(out, line+"\n") {
			t.Errorf("check's output lacks %q:\n%s", line, out)
		}
	}
	md, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(md), "# earlier step\n\n**FAIL**: 4 of ") || strings.Count(string(md), "| **FAIL** |") != 4 {
		t.Errorf("the Markdown summary, appended:\n%s", md)
	}
	var rep struct {
		Tests int `xml:"tests,attr"`
		Fails int `xml:"failures,attr"`
	}
	if data, err := os.ReadFile(junit); err != nil || xml.Unmarshal(data, &rep) != nil {
		t.Fatalf("the JUnit report: %v", err)
	}
	if rows := strings.Count(string(md), "\n| `"); rep.Fails != 4 || rep.Tests != rows {
		t.Errorf("JUnit: %d tests, %d failures; the Markdown summary: %d rows, 4 failures", rep.Tests, rep.Fails, rows)
	}
}

// TestCheckListsEveryDifference: when the result's scenario differs from the baseline's, check
// names every field that changed with both values, not only the first line that differs; in
// text, in JSON and in the JUnit report's output.
func TestCheckListsEveryDifference(t *testing.T) {
	dir := t.TempDir()
	good, changed, base := filepath.Join(dir, "good"), filepath.Join(dir, "changed"), filepath.Join(dir, "base.json")
	short := []string{"--set", "duration=4s", "--set", "warmup=1s"}
	runOK(t, append([]string{"run", "healthy", "--out", good}, short...)...)
	runOK(t, "check", "--write-baseline", base, good)
	runOK(t, append([]string{"run", "healthy", "--out", changed, "--set", "seed=2", "--set", "topology.nodes[0].workers=6",
		"--set", "clients[0].driver.maxPoolSize=50"}, short...)...)
	loose := []string{"--tolerance", "goodput=1,amplification=10,p99=100,failure_share=1,recovery_time=100"}
	out := runOK(t, append([]string{"check", "--baseline", base, changed}, loose...)...)
	want := "note: the result's configuration differs from the baseline's in 3 fields:\n" +
		"  seed: baseline 1, result 2\n" +
		"  topology.nodes[0].workers: baseline 8, result 6\n" +
		"  clients[0].driver.maxPoolSize: baseline 100, result 50\n"
	if !strings.HasPrefix(out, want) {
		t.Errorf("check of a changed configuration:\n%s\nwant it to start\n%s", out, want)
	}
	var js struct {
		Note        string `json:"note"`
		Differences []struct {
			Path, Baseline, Result string
		} `json:"differences"`
	}
	if err := json.Unmarshal([]byte(runOK(t, append([]string{"check", "--baseline", base, changed, "--format", "json"}, loose...)...)), &js); err != nil {
		t.Fatal(err)
	}
	if len(js.Differences) != 3 || js.Differences[1].Path != "topology.nodes[0].workers" || js.Differences[1].Baseline != "8" ||
		js.Differences[1].Result != "6" || !strings.Contains(js.Note, "3 fields") {
		t.Errorf("check --format json: %+v", js)
	}
	junit := filepath.Join(dir, "check.xml")
	runOK(t, append([]string{"check", "--baseline", base, changed, "--junit", junit}, loose...)...)
	if data, err := os.ReadFile(junit); err != nil || !strings.Contains(string(data), "clients[0].driver.maxPoolSize: baseline 100, result 50</system-out>") {
		t.Errorf("the JUnit report's output lacks the last difference: %v\n%s", err, data)
	}
	// The same configuration says nothing of it.
	if out := runOK(t, "check", "--baseline", base, good); strings.Contains(out, "note:") {
		t.Errorf("check of the baseline's own run has a note:\n%s", out)
	}
}

// TestCheckOldBaseline: a baseline that predates the failure-share, stuck and recovery-time
// gates (no offered load, failures or fault metrics) still gates goodput, amplification and
// p99, and says once which gated values it cannot judge.
func TestCheckOldBaseline(t *testing.T) {
	dir := t.TempDir()
	res, base := filepath.Join(dir, "spike"), filepath.Join(dir, "base.json")
	runOK(t, "run", "spike-backpressure", "--out", res)
	runOK(t, "check", "--write-baseline", base, res)
	editBaseline(t, base, nil, func(name string) bool {
		return strings.HasPrefix(name, "fault.") || strings.HasSuffix(name, ".failures") || strings.HasSuffix(name, ".offered")
	})
	out := runOK(t, "check", "--baseline", base, res)
	want := "note: not gated, as the baseline has no value to compare with (a baseline written by this version's check --write-baseline has them): " +
		"total.failure_share, group.app.failure_share, fault.surge.stuck, fault.surge.recovery_time\n"
	if !strings.HasPrefix(out, want) || strings.Count(out, "not gated") != 1 || !strings.Contains(out, "ok: ") {
		t.Errorf("check against an old baseline:\n%s\nwant it to start\n%s", out, want)
	}
	// A regression of what it has is still one.
	editBaseline(t, base, map[string]any{"total.goodput": 1e6}, nil)
	if s, out, _ := runStatus("check", "--baseline", base, res); s != exitFailure || !strings.Contains(out, "total.goodput = ") {
		t.Errorf("an old baseline's goodput gate: exit %d\n%s", s, out)
	}
}

// TestCheckToleranceFlag: --tolerance takes each gate by its catalogue name, the share's as an
// absolute allowance, and refuses one for the stuck gate (which takes none) and an unknown name,
// listing the gates.
func TestCheckToleranceFlag(t *testing.T) {
	tol, err := parseTolerance(map[string]string{"failure_share": "0.02", "recovery_time": "0.5", "p99": "0.2"})
	if err != nil || tol["failures"] != 0.02 || tol["recovery_time"] != 0.5 || tol["latency_ok_p99"] != 0.2 || tol["goodput"] != 0.05 {
		t.Errorf("parseTolerance = %v, %v", tol, err)
	}
	for _, c := range []struct{ k, want string }{
		{"stuck", "the stuck gate takes no tolerance"},
		{"failures", "unknown gate (goodput, amplification, p99, failure_share, stuck, recovery_time)"},
	} {
		if _, err := parseTolerance(map[string]string{c.k: "0.1"}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("--tolerance %s=0.1: %v, want it to say %q", c.k, err, c.want)
		}
	}
	if got, want := toleranceText(), "goodput=0.05,amplification=0.05,p99=0.1,failure_share=0.005,recovery_time=0.1 (stuck takes none: a stuck run where the baseline had none is a regression)"; got != want {
		t.Errorf("toleranceText() = %q, want %q", got, want)
	}
}

// TestConfigDifferences: a canonical scenario that does not parse is compared line by line,
// every differing line listed; a side without a scenario is one difference, not every field of
// the other.
func TestConfigDifferences(t *testing.T) {
	for _, c := range []struct {
		name, a, b string
		want       []string // path: a → b
	}{
		{"the same", "seed: 1\n", "seed: 1\n", nil},
		{"fields", "seed: 1\nduration: 4s\nload: 1\n", "seed: 2\nduration: 5s\nload: 1\n", []string{"seed: 1 → 2", "duration: 4s → 5s"}},
		{"text that does not parse", "a: [\nb: 1\nc: 2\n", "a: [\nb: 2\nc: 3\n", []string{"line 2: b: 1 → b: 2", "line 3: c: 2 → c: 3"}},
		{"no scenario in the baseline", "", "seed: 1\nduration: 4s\n", []string{"(the whole scenario, header.canonical): not recorded → recorded"}},
	} {
		var got []string
		for _, d := range configDifferences(c.a, c.b) {
			got = append(got, d.Path+": "+d.A+" → "+d.B)
		}
		if strings.Join(got, "; ") != strings.Join(c.want, "; ") {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
