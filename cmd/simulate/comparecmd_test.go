package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/overloadsim/overloadsim/results"
)

// TestCompareCommand: two runs side by side, with the figure and the report; json output;
// refusals.
func TestCompareCommand(t *testing.T) {
	base := t.TempDir()
	a, b := filepath.Join(base, "a"), filepath.Join(base, "b")
	runOK(t, "run", "spike", "--set", "duration=12s", "--out", a)
	runOK(t, "run", "spike", "--set", "duration=12s", "--set", "clients[1].driver.retryPolicy=mongodb-2026-07", "--out", b)
	out := filepath.Join(base, "cmp")
	text := runOK(t, "compare", a, b, "--report", "--out", out)
	for _, want := range []string{"[0] " + a + ": run spike", "[1] " + b, "total.amplification", "%"} {
		if !strings.Contains(text, want) {
			t.Errorf("compare prints no %q:\n%s", want, text)
		}
	}
	m, err := results.ReadManifestOf(out, results.KindCompare)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"compare.json", "compare.csv", "compare.svg", "compare.png", "compare.html"} {
		if !m.Has(f) {
			t.Errorf("the comparison's manifest lacks %s", f)
		}
	}
	page, _ := os.ReadFile(filepath.Join(out, "compare.html"))
	if !strings.Contains(string(page), "<svg") || !strings.Contains(string(page), "Welch") || results.MarkedResult(page) != m.ResultDigest() {
		t.Error("compare.html lacks the figure, the method, or its result mark")
	}
	js := runOK(t, "compare", a, b, "--format", "json", "--out", filepath.Join(base, "cmp2"))
	if !strings.HasPrefix(js, "{") || !strings.Contains(js, `"deltaRel"`) {
		t.Errorf("--format json: %.200s", js)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"compare", a}, "give at least two result folders"},
		{[]string{"compare", a, out}, "holds a compare: compare takes runs and sweeps"},
		{[]string{"compare", a, b, "--out", filepath.Join(a, "x")}, "inside the compared folder"},
		{[]string{"compare", a, b, "--format", "xml"}, `--format "xml"`},
	} {
		if s, _, errb := runStatus(tc.args...); s == exitOK || !strings.Contains(errb, tc.want) {
			t.Errorf("%v: exit %d %s; want a refusal saying %q", tc.args, s, errb, tc.want)
		}
	}
}
