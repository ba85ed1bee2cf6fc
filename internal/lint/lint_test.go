package lint

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func moduleRoot(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// TestDeterminismRules is the lint-as-test of docs/model.md §2 and docs/conventions.md §13: the model packages
// never read the wall clock, use global randomness, start goroutines or draw plots.
func TestDeterminismRules(t *testing.T) {
	findings, err := CheckTree(moduleRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range findings {
		t.Errorf("%s", f)
	}
}

// TestPlotImportsOnlyInPlot: gonum/plot may be imported in results/plot only; results/chart,
// which builds the figures as data, and results/report, which renders them for the browser, may
// not.
func TestPlotImportsOnlyInPlot(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filepath.Join("testdata", "bad", "bad.go"), nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	for rel, want := range map[string]bool{"results/plot/run.go": false, "results/chart/sweep.go": true, "results/report/report.go": true} {
		if got := len(CheckPlotImports(fset, f, rel)) > 0; got != want {
			t.Errorf("CheckPlotImports(%s): a finding %v, want %v", rel, got, want)
		}
	}
}

// TestRulesCatchViolations runs the rules on a fixture full of violations, so that a rule that
// silently stopped matching fails here rather than letting bad code through.
func TestRulesCatchViolations(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filepath.Join("testdata", "bad", "bad.go"), nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, x := range append(CheckModelFile(fset, f), CheckPlotImports(fset, f, "server/bad.go")...) {
		got = append(got, x.Message)
	}
	want := []string{
		"imports math/rand (v1)",
		"imports sync",
		"imports gonum.org/v1/plot: only results/plot may draw",
		"calls time.Now (wall clock)",
		"calls time.Sleep (wall clock)",
		"calls rand.IntN (the global generator)",
		"starts a goroutine",
		"uses a channel type",
		"uses select",
		"imports gonum.org/v1/plot: only results/plot may import",
	}
	for _, w := range want {
		found := false
		for _, g := range got {
			if strings.Contains(g, w) {
				found = true
			}
		}
		if !found {
			t.Errorf("no finding containing %q; got:\n%s", w, strings.Join(got, "\n"))
		}
	}
	for _, g := range got {
		if strings.Contains(g, "time.Since") || strings.Contains(g, "rand.New") || strings.Contains(g, "time.Duration") {
			t.Errorf("false positive or ignored line reported: %s", g)
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %d findings, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
}
