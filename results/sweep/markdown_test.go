package sweep

import (
	"bytes"
	"encoding/xml"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/overloadsim/overloadsim/internal/golden"
)

// markdownFixture is a check of a sweep with one comparison of every kind: band gates passed
// and failed (a goodput below, a p99 with a band above), a failure share, a stuck share of a
// sweep, a recovery time without a value, and a missing point; with a configuration note of
// two fields, and a point whose name needs escaping in a table (a pipe).
func markdownFixture() (notes []Note, cmps []Comparison) {
	notes = []Note{
		{Text: "the result's configuration differs from the baseline's in 2 fields:", Items: []string{
			"seed: baseline 1, result 2", "clients[0].workload.rate: baseline 250/s, result 300/s"}},
		{Text: "not gated, as the baseline has no value to compare with: total.failure_share"},
	}
	cmps = []Comparison{
		{Regression{Point: "rate=300/s", Metric: "total.goodput", Baseline: 1000, Band: 20, Got: 990, Limit: 931, N: 10, BaselineN: 10}, true},
		{Regression{Point: "rate=300/s", Metric: "total.latency_ok_p99", Baseline: 0.0112, Band: 0.0004, Got: 0.0216, Limit: 0.01276, N: 10, BaselineN: 10}, false},
		{Regression{Point: "rate=300/s", Metric: "total.failure_share", Baseline: 0.0071, Got: 0.035, Limit: 0.0121, N: 10, BaselineN: 10}, false},
		{Regression{Point: "rate=300/s", Metric: "fault.cut.stuck", Baseline: 0.1, Got: 0.2, Limit: 0.404, N: 10, BaselineN: 10}, true},
		{Regression{Point: "rate=300/s", Metric: "fault.cut.recovery_time", Baseline: 2, Got: math.NaN(), Limit: 3.2, N: 0, BaselineN: 9}, false},
		{Regression{Point: "rate=600/s", Metric: "fault.cut.stuck", Baseline: 0, Got: 0.3, Limit: 0, N: 10, BaselineN: 10}, false},
		{Regression{Point: "mode=a|b", Baseline: math.NaN(), Got: math.NaN(), Limit: math.NaN()}, false},
		{Regression{Point: "rate=600/s", Metric: "total.amplification", Baseline: 1.2, Got: 1.2, Limit: 1.26, N: 10, BaselineN: 10}, true},
	}
	return notes, cmps
}

// TestWriteMarkdown pins the Markdown summary of a check (golden file): the verdict on the
// first line, the notes as a list, then a table of every comparison with the baseline and its
// band, the result, the limit and the change in each gate's unit, failures first and each group
// in the comparisons' order. The same comparisons make the JUnit report's cases, with the same
// counts and each failure's line.
func TestWriteMarkdown(t *testing.T) {
	notes, cmps := markdownFixture()
	var b bytes.Buffer
	if err := WriteMarkdown(&b, "out/sweep against baselines/cut.json", notes, cmps); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", t.Name()+".md"), b.Bytes())
	md := b.String()
	if first, _, _ := strings.Cut(md, "\n"); !strings.HasPrefix(first, "**FAIL**: 5 of 8 comparisons regressed") {
		t.Errorf("verdict line %q", first)
	}
	// Rows: the five failures, then the three passes.
	var verdicts []string
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "| `") || strings.HasPrefix(l, "| (") {
			cells := strings.Split(strings.TrimSuffix(l, " |"), " | ")
			verdicts = append(verdicts, cells[len(cells)-1])
		}
	}
	if got := strings.Join(verdicts, ","); got != "**FAIL**,**FAIL**,**FAIL**,**FAIL**,**FAIL**,PASS,PASS,PASS" {
		t.Errorf("row verdicts %s, want the failures first", got)
	}
	var j bytes.Buffer
	if err := WriteJUnit(&j, "out/sweep against baselines/cut.json", notes, cmps); err != nil {
		t.Fatal(err)
	}
	var rep junitSuites
	if err := xml.Unmarshal(j.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Tests != len(cmps) || rep.Fails != 5 {
		t.Errorf("JUnit %d tests, %d failures; the Markdown summary %d and 5", rep.Tests, rep.Fails, len(cmps))
	}
	for _, c := range rep.Suites[0].Cases {
		if c.Failure != nil && !strings.Contains(md, "| `"+c.Name+"` |") && c.Name != "point" {
			t.Errorf("JUnit failure %s is no row of the Markdown summary", c.Name)
		}
	}
	// A check that passes says so on its first line.
	var ok bytes.Buffer
	if err := WriteMarkdown(&ok, "r against b", nil, cmps[:1]); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ok.String(), "**PASS**: all 1 comparisons within their limits, r against b\n\n| metric |") {
		t.Errorf("a passing summary:\n%s", ok.String())
	}
}
