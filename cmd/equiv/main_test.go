package main

import (
	"bytes"
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestUsage checks that bad command lines are refused before any run, with the flag named.
func TestUsage(t *testing.T) {
	for _, tc := range []struct {
		gloss string
		args  []string
		want  string
	}{
		{"no binaries", nil, "--old: missing"},
		{"no new binary", []string{"--old", "x"}, "--new: missing"},
		{"one seed", []string{"--old", "x", "--new", "x", "--seeds", "1"}, "--seeds: 1: must be from 2"},
		{"alpha of one", []string{"--old", "x", "--new", "x", "--alpha", "1"}, "--alpha: 1: must be between 0 and 1"},
		{"no workers", []string{"--old", "x", "--new", "x", "-j", "0"}, "-j: 0: must be from 1 to 64"},
		{"set without a value", []string{"--old", "x", "--new", "x", "--new-set", "duration"}, `"duration": want PATH=VALUE`},
		{"scenario twice", []string{"--old", "x", "--new", "x", "--scenarios", "healthy,healthy"}, "given once"},
		{"a stray argument", []string{"--old", "x", "--new", "x", "healthy"}, "unexpected arguments"},
		{"report and JSON in one file", []string{"--old", "x", "--new", "x", "--report", "r", "--json", "r"}, "is also --report"},
		{"a binary that is not there", []string{"--old", filepath.Join(t.TempDir(), "none"), "--new", "x"}, "--old: "},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), tc.args, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%s: run(%q) = %d, stderr %q; want 2 and %q", tc.gloss, tc.args, code, stderr.String(), tc.want)
		}
		if stdout.Len() > 0 {
			t.Errorf("%s: run(%q) wrote %q on stdout, want nothing", tc.gloss, tc.args, stdout.String())
		}
	}
}

// TestCompareMetric checks the classification of one metric's values: identical, continuous,
// indicator, and NaN counts.
func TestCompareMetric(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		gloss     string
		name      string
		old, new  []float64
		identical bool
		tests     []string
	}{
		{"same values, NaN included", "total.goodput", []float64{1, nan, 3}, []float64{1, nan, 3}, true, nil},
		{"one seed moved", "total.goodput", []float64{1, 2, 3}, []float64{1, 2, 3.5}, false, []string{testWelch, testKS}},
		{"indicator shares", "fault.cut.stuck", []float64{0, 1, 1}, []float64{0, 0, 1}, false, []string{testFisher}},
		{"indicator without a baseline on one seed", "fault.cut.recovered", []float64{nan, 1, 1}, []float64{0, 1, 1}, false, []string{testFisher, testNaN}},
		{"NaN counts differ", "fault.cut.recovery_time", []float64{1.5, 2, nan}, []float64{1.5, nan, nan}, false, []string{testKS, testNaN}},
		{"not 0/1: tested as continuous", "fault.x.stuck", []float64{0, 0.5, 1}, []float64{0, 1, 1}, false, []string{testWelch, testKS}},
	} {
		m := compareMetric(tc.name, tc.old, tc.new)
		var got []string
		for _, x := range m.Tests {
			got = append(got, x.Name)
		}
		if m.Identical != tc.identical || strings.Join(got, ",") != strings.Join(tc.tests, ",") {
			t.Errorf("%s: compareMetric(%s, %v, %v) = identical %v, tests %v; want %v, %v", tc.gloss, tc.name, tc.old, tc.new, m.Identical, got, tc.identical, tc.tests)
		}
	}
}

// TestEndToEnd runs the protocol on the healthy scenario with a freshly built simulate: against
// itself nothing differs; with a slower node (exp(7ms) for healthy's exp(5ms)) the latency
// metrics are rejected.
func TestEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds simulate and runs it 40 times")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "simulate")
	build := exec.Command("go", "build", "-o", bin, "github.com/overloadsim/overloadsim/cmd/simulate")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build simulate: %v\n%s", err, out)
	}
	ctx := context.Background()
	base := []string{"--old", bin, "--new", bin, "--scenarios", "healthy", "--seeds", "5"}

	// The same binary against itself: every metric identical, exit 0; the report's bytes do
	// not depend on the number of workers.
	var one, four, stderr bytes.Buffer
	if code := run(ctx, append(base, "-j", "1"), &one, &stderr); code != 0 {
		t.Fatalf("run(old = new) = %d, want 0; stderr:\n%s", code, stderr.String())
	}
	if !strings.Contains(one.String(), "1 scenario × 5 seeds:") || !strings.Contains(one.String(), "0 differ in bytes, 0 rejected") {
		t.Errorf("run(old = new) report:\n%s\nwant every metric identical", one.String())
	}
	if code := run(ctx, append(base, "-j", "4"), &four, &stderr); code != 0 || four.String() != one.String() {
		t.Errorf("run(old = new, -j 4) = %d with report\n%s\nwant 0 and the -j 1 report\n%s", code, four.String(), one.String())
	}

	// A slower node: the latency metrics are rejected, exit 1; the report file and the JSON
	// are written.
	report, js := filepath.Join(dir, "report.md"), filepath.Join(dir, "report.json")
	var stdout bytes.Buffer
	stderr.Reset()
	args := append(base, "--new-set", "topology.nodes[0].service=exp(7ms)", "--report", report, "--json", js)
	if code := run(ctx, args, &stdout, &stderr); code != 1 {
		t.Fatalf("run(slower node) = %d, want 1; stderr:\n%s", code, stderr.String())
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)
	for _, metric := range []string{"total.latency_ok_mean", "total.latency_ok_p99", "server.db.utilisation"} {
		row := lineOf(md, "| "+metric+" |")
		if !strings.Contains(row, "**rejected**") {
			t.Errorf("run(slower node): row of %s = %q, want it rejected; report:\n%s", metric, row, md)
		}
	}
	if row := lineOf(md, "| total.offered |"); strings.Contains(row, "rejected") {
		t.Errorf("run(slower node): the offered load, which a service time does not change, is %q", row)
	}
	if _, err := os.Stat(js); err != nil {
		t.Errorf("run(--json %s): %v", js, err)
	}

	// More runs than --max-runs are refused up front.
	stderr.Reset()
	if code := run(ctx, append(base, "--max-runs", "9"), &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "10 runs (1 scenario × 5 seeds × 2 sides) exceed --max-runs 9") {
		t.Errorf("run(--max-runs 9) = %d, stderr %q; want 2 and the count", code, stderr.String())
	}
}

// lineOf is the first line of s that contains sub, or "".
func lineOf(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}
