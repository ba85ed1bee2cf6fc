package report

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/internal/golden"
	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/tip"
)

// tipFolder writes a tipping-point search in the README's shape into a folder: a cut's length
// where 2 s and 5.5 s recovered in every run, 7.25 s stuck in 26 of 32, and the search ended at
// a tie at 6.375 s with one run undecided.
func tipFolder(t *testing.T) string {
	t.Helper()
	p := func(value string, x float64, stuck, recovered, undecided int, lo, hi float64, verdict string) tip.Probe {
		return tip.Probe{Value: value, X: x, Replications: stuck + recovered + undecided, Stuck: stuck, Recovered: recovered,
			Undecided: undecided, Lo95: lo, Hi95: hi, Verdict: verdict}
	}
	r := tip.Result{Header: results.Header{Tool: "overloadsim", Version: "test", Scenario: "cpu-cut-storm", Seed: 1,
		Description: "A mongod at 60 % load loses half its CPU.", Canonical: "name: cpu-cut-storm\n", Duration: 60 * time.Second},
		Trigger: "cpu-cut", Param: "faults[0].for", Name: "cut length", Unit: "s", Sticks: "above",
		Boundary: 6.375, Lo: 5.5, Hi: 7.25, Confidence: 0.95, Replications: 119, FitX50: math.NaN(), FitLo: math.NaN(), FitHi: math.NaN(),
		Probes: []tip.Probe{p("2s", 2, 0, 12, 0, 0, 0.2646, "recovered"), p("16s", 16, 12, 0, 0, 0.7354, 1, "stuck"),
			p("9s", 9, 12, 0, 0, 0.7354, 1, "stuck"), p("5.5s", 5.5, 0, 12, 0, 0, 0.2646, "recovered"),
			p("7.25s", 7.25, 26, 6, 0, 0.6356, 0.9279, "stuck"), p("6.375s", 6.375, 19, 19, 1, 0.3338, 0.6662, "tie")},
		Warnings: []string{"stopped at a tie at x=6.375"}}
	dir := t.TempDir()
	if err := tip.Write(dir, r); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestGoldenTip renders the tip page of tipFolder (its figure drawn in memory) and compares the
// bytes with testdata/TestGoldenTip/report.html. Regenerate with -run TestGoldenTip -update and
// review.
func TestGoldenTip(t *testing.T) {
	dir := tipFolder(t)
	path, err := WriteTip(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "TestGoldenTip", "report.html"), got)
}

// TestTipPage checks the first screen of a tip's page, in order: the answer (the conservative
// bound, then the estimate), the table of the values tested in ascending order with k/n and
// the exact interval, the last all-recovered value and the first stuck one marked, and the
// figure.
func TestTipPage(t *testing.T) {
	var b bytes.Buffer
	if err := RenderTip(&b, tipFolder(t)); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	order := []string{
		`<span class="kind">tipping point</span>`,
		`<div id="lead" class="lead"><strong>Answer</strong>After cpu-cut, cut length up to 5.5 s: recovered in every run (12 of 12, P(stuck) ≤ 27 % at 95 %); at 6.375 s, 19 of 39 runs stuck (1 undecided).</div>`,
		`<p id="estimate" class="estimate">After cpu-cut, runs stick above faults[0].for = 6.38 s (95 % interval 5.5 s to 7.25 s;`,
		`<table id="values">`,
		`<td class="num">2 s</td><td class="num">12</td><td class="num">0</td><td class="num">0</td><td class="num"><span>0/12 = 0.00</span><span class="ci"> (0.00–0.26)</span></td><td>recovered</td>`,
		`<tr class="safe"><td class="num">5.5 s</td>`,
		`<tr class="first-stuck"><td class="num">6.375 s</td><td class="num">39</td><td class="num">19</td><td class="num">1</td><td class="num"><span class="stuck">19/38 = 0.50</span><span class="ci"> (0.33–0.67)</span></td><td>tie</td>`,
		`<td class="num">7.25 s</td><td class="num">32</td><td class="num">26</td>`,
		`<td class="num">16 s</td>`,
		`<figure id="figure-1">`,
		`<li>stopped at a tie at x=6.375</li>`,
		`<pre class="canonical">name: cpu-cut-storm</pre>`,
	}
	at := 0
	for _, s := range order {
		i := strings.Index(page[at:], s)
		if i < 0 {
			t.Fatalf("the page lacks, after what came before, %q", s)
		}
		at += i + len(s)
	}
	if strings.Count(page, `class="safe"`) != 1 || strings.Count(page, `class="first-stuck"`) != 1 {
		t.Error("want exactly one last all-recovered row and one first-stuck row")
	}
}

// TestTipPageStaleFigure: a tip.svg drawn from another result is refused, not shown.
func TestTipPageStaleFigure(t *testing.T) {
	dir := tipFolder(t)
	if err := os.WriteFile(filepath.Join(dir, "tip.svg"), []byte(`<svg xmlns="http://www.w3.org/2000/svg"></svg>`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := results.AddFiles(dir, "tip.svg"); err != nil {
		t.Fatal(err)
	}
	if err := RenderTip(&bytes.Buffer{}, dir); err == nil || !strings.Contains(err.Error(), "not drawn from this folder's result") {
		t.Errorf("RenderTip with a stale tip.svg: %v", err)
	}
}
