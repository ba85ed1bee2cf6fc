package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/overloadsim/overloadsim/internal/golden"
)

func runOK(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if s := run(args, &out, &errb); s != exitOK {
		t.Fatalf("simulate %s: exit %d\n%s", strings.Join(args, " "), s, errb.String())
	}
	return out.String()
}

func readAll(t *testing.T, dir string, names ...string) map[string][]byte {
	t.Helper()
	m := map[string][]byte{}
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		m[n] = b
	}
	return m
}

// TestRunDefaultDeterministic: `simulate run` on the default scenario writes run.json,
// timeseries.csv and summary.json; two runs give identical bytes; summary.json at seed 1 matches
// its golden file (go test ./cmd/simulate -update rewrites it).
func TestRunDefaultDeterministic(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	out := runOK(t, "run", "--out", a)
	runOK(t, "run", "--out", b)
	for _, want := range []string{"spike (seed 1)", "goodput/s", "ampl", "server"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	files := []string{"run.json", "timeseries.csv", "summary.json"}
	fa, fb := readAll(t, a, files...), readAll(t, b, files...)
	for _, f := range files {
		if !bytes.Equal(fa[f], fb[f]) {
			t.Errorf("%s differs between two runs of the same scenario and seed", f)
		}
	}
	golden.Check(t, filepath.Join("testdata", "spike-seed1-summary.json"), fa["summary.json"])
}

// TestSweepWorkersIdentical: a sweep writes the same bytes with 1 worker and with 4.
func TestSweepWorkersIdentical(t *testing.T) {
	args := func(dir, workers string) []string {
		return []string{"sweep", "healthy", "--set", "duration=6s", "--set", "warmup=1s",
			"--vary", "clients[0].workload.rate=300/s,400/s", "--replications", "3", "--workers", workers, "--out", dir}
	}
	a, b := t.TempDir(), t.TempDir()
	runOK(t, args(a, "1")...)
	runOK(t, args(b, "4")...)
	fa, fb := readAll(t, a, "points.csv", "sweep.json"), readAll(t, b, "points.csv", "sweep.json")
	for f := range fa {
		if !bytes.Equal(fa[f], fb[f]) {
			t.Errorf("%s differs between --workers 1 and --workers 4", f)
		}
	}
	if lines := strings.Count(string(fa["points.csv"]), "\n"); lines != 3 {
		t.Errorf("points.csv has %d lines, want a header and 2 points", lines)
	}
}

// TestCheckGate: a baseline written from a run accepts the same run and rejects a worse one,
// naming the metric with its unit and limit, and --junit writes every comparison for CI.
func TestCheckGate(t *testing.T) {
	dir := t.TempDir()
	good, worse := filepath.Join(dir, "good"), filepath.Join(dir, "worse")
	base := filepath.Join(dir, "healthy.json")
	runOK(t, "run", "healthy", "--set", "duration=10s", "--out", good)
	runOK(t, "check", "--write-baseline", base, good)
	if out := runOK(t, "check", "--baseline", base, good); !strings.Contains(out, "ok:") {
		t.Errorf("check of the baseline's own run: %s", out)
	}
	// Halve the node's capacity: goodput cannot keep up with the same offered load.
	runOK(t, "run", "healthy", "--set", "duration=10s", "--set", "topology.nodes[0].workers=1", "--out", worse)
	var out, errb bytes.Buffer
	junit := filepath.Join(dir, "ci", "check.xml")
	if s := run([]string{"check", "--baseline", base, "--junit", junit, worse}, &out, &errb); s != exitFailure ||
		!strings.Contains(out.String(), "total.goodput = ") || !strings.Contains(out.String(), "/s, below the limit ") {
		t.Errorf("check of a worse run: exit %d\n%s%s", s, out.String(), errb.String())
	}
	// The JUnit report lists every comparison, the regressed ones failed with their line.
	b, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	report := string(b)
	if !strings.HasPrefix(report, "<?xml") || !strings.Contains(report, `classname="run" name="total.goodput"`) ||
		!strings.Contains(report, `<failure message="run: total.goodput = `) || !strings.Contains(report, `name="total.amplification"`) {
		t.Errorf("the JUnit report:\n%s", report)
	}
}

// TestValidateReportsFileLine: validate names the file, line, field, value and rule.
func TestValidateReportsFileLine(t *testing.T) {
	f := filepath.Join(t.TempDir(), "bad.yaml")
	src := "name: bad\nduration: -5s\nnosuchfield: 1\n"
	if err := os.WriteFile(f, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if s := run([]string{"validate", f}, &out, &errb); s != exitFailure {
		t.Fatalf("exit %d, want 1", s)
	}
	for _, want := range []string{"bad.yaml:2", "duration", "-5s", "bad.yaml:3", "nosuchfield"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("validate output lacks %q:\n%s", want, errb.String())
		}
	}
}

// TestRunTraceAndFigures: --trace writes a trace-event JSON with events for the sampled clients;
// --plot draws the run's figures; report writes a self-contained report.html.
func TestRunTraceAndFigures(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "trace.json")
	out := filepath.Join(dir, "run")
	runOK(t, "run", "healthy", "--set", "duration=5s", "--out", out, "--plot",
		"--trace", tr, "--trace-clients", "1", "--trace-window", "1s:2s")
	var doc struct {
		TraceEvents []struct {
			Name string `json:"name"`
			Ph   string `json:"ph"`
		} `json:"traceEvents"`
	}
	data, err := os.ReadFile(tr)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("trace is not JSON: %v", err)
	}
	attempts := 0
	for _, e := range doc.TraceEvents {
		if e.Name == "attempt" && e.Ph == "X" {
			attempts++
		}
	}
	if attempts == 0 {
		t.Errorf("trace has %d events but no attempt slices", len(doc.TraceEvents))
	}
	for _, f := range []string{"timeseries.svg", "timeseries.png", "amplification.svg", "latency.svg", "servers.svg"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("--plot did not write %s", f)
		}
	}
	if got := strings.TrimSpace(runOK(t, "report", out)); got != filepath.Join(out, "report.html") {
		t.Errorf("report printed %q", got)
	}
	html, _ := os.ReadFile(filepath.Join(out, "report.html"))
	if !bytes.Contains(html, []byte("<svg")) {
		t.Errorf("report.html has no inline figure")
	}
	// Self-contained: no scripts, stylesheets or images fetched from elsewhere (an SVG's
	// xmlns attribute names a URL but fetches nothing); the charts' scripts are inline.
	for _, ext := range []string{"<script src", `<link`, `src="http`, `href="http`, "@import"} {
		if bytes.Contains(html, []byte(ext)) {
			t.Errorf("report.html contains %q", ext)
		}
	}
	// --trace -: the trace on stdout, the summary on stderr.
	var to, te bytes.Buffer
	if s := run([]string{"run", "healthy", "--set", "duration=3s", "--trace", "-", "--out", filepath.Join(filepath.Dir(out), "stdout")}, &to, &te); s != exitOK {
		t.Fatalf("--trace -: exit %d\n%s", s, te.String())
	}
	var traceDoc struct{ TraceEvents []any }
	if err := json.Unmarshal(to.Bytes(), &traceDoc); err != nil || len(traceDoc.TraceEvents) == 0 || !strings.Contains(te.String(), "goodput") {
		t.Errorf("--trace -: stdout is no trace (%v), or the summary is not on stderr:\n%.300s", err, te.String())
	}
	var o, e bytes.Buffer
	if s := run([]string{"run", "healthy", "--trace", tr, "--trace-window", "5s:1s"}, &o, &e); s != exitUsage {
		t.Errorf("a backwards --trace-window: exit %d, want 2\n%s", s, e.String())
	}
}
