package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/overloadsim/overloadsim/internal/yamlstrict"
	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/compare"
	"github.com/overloadsim/overloadsim/results/sweep"
	"github.com/overloadsim/overloadsim/scenarios"
)

// TestCompareCommand: two runs side by side, with the figure and the report; json output;
// refusals.
func TestCompareCommand(t *testing.T) {
	base := t.TempDir()
	a, b := filepath.Join(base, "a"), filepath.Join(base, "b")
	runOK(t, "run", "spike", "--set", "duration=12s", "--out", a)
	runOK(t, "run", "spike", "--set", "duration=12s", "--set", "clients[1].driver.retryPolicy=mongodb-2026-07", "--set", "load=1.2", "--out", b)
	out := filepath.Join(base, "cmp")
	text := runOK(t, "compare", a, b, "--report", "--out", out)
	// Every difference names the result, not the first alone nor its folder (issue 28 item 8).
	for _, want := range []string{"[0] reference (" + a + "): run spike", "[1] clients[1].driver.retryPolicy=mongodb-2026-07, load=1.2: run spike (" + b + ")",
		"total.amplification", "attempts/op", "/s", "untested"} {
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
	for _, want := range []string{"<code>load=1.2</code>", "clients[1].driver.retryPolicy=mongodb-2026-07, load=1.2"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("compare.html does not name the result by what differs: no %q", want)
		}
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

// TestCompareOnePointSweeps: the help's own example, sweeps of one point each compared, gets a
// figure (each result's values with their intervals) and names the other sweep by its
// difference; its text says better or worse by the metric's direction.
func TestCompareOnePointSweeps(t *testing.T) {
	base := t.TempDir()
	a, b := filepath.Join(base, "03"), filepath.Join(base, "07")
	runOK(t, "sweep", "spike", "--set", "duration=12s", "--replications", "3", "--out", a)
	runOK(t, "sweep", "spike", "--set", "duration=12s", "--set", "clients[1].driver.retryPolicy=mongodb-2026-07", "--replications", "3", "--out", b)
	out := filepath.Join(base, "cmp")
	text := runOK(t, "compare", a, b, "--plot", "--report", "--out", out)
	for _, want := range []string{"[1] clients[1].driver.retryPolicy=mongodb-2026-07: sweep spike", "[1] against the reference: ", ": better"} {
		if !strings.Contains(text, want) {
			t.Errorf("compare prints no %q:\n%s", want, text)
		}
	}
	m, err := results.ReadManifestOf(out, results.KindCompare)
	if err != nil {
		t.Fatal(err)
	}
	if !m.Has("compare.svg") || !m.Has("compare.png") {
		t.Errorf("a comparison of one-point sweeps has no figure: manifest %v", m.Files)
	}
	// The page colours each difference by its verdict (green better, red worse, grey the rest).
	page, _ := os.ReadFile(filepath.Join(out, "compare.html"))
	for _, want := range []string{`<span class="delta better">`, `<span class="better">p99 latency of successes`, "<figure id=\"figure-1\">"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("compare.html has no %q", want)
		}
	}
}

// TestScenarioDifferences pins how compare names a result: every setting in which its
// canonical scenario differs from the reference's, in the scenario's order, as the --set that
// makes one into the other; prose and expectations left out, a sweep block only between
// sweeps, a removed setting and a list's new item said as such.
func TestScenarioDifferences(t *testing.T) {
	hdr := func(name string, sets ...string) results.Header {
		sc, err := scenarios.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := sc.SetAll(sets...); err != nil {
			t.Fatal(err)
		}
		return results.Header{Scenario: sc.Name, Canonical: sc.String()}
	}
	ref := hdr("spike")
	for _, tc := range []struct {
		other  results.Header
		sweeps bool
		want   []string
	}{
		{hdr("spike"), false, nil},
		{hdr("spike", "load=1.5", "clients[1].driver.retryPolicy=mongodb-2026-07"), false,
			[]string{"clients[1].driver.retryPolicy=mongodb-2026-07", "load=1.5"}},
		{hdr("spike", "clients[0].workload.rate.peak=2000/s", "duration=60s"), false,
			[]string{"duration=1m0s", "clients[0].workload.rate.peak=2000/s"}},
		{hdr("spike", "sweep.replications=3"), false, nil},
		{hdr("spike", "sweep.replications=3"), true, []string{"sweep.replications=3"}},
	} {
		got, err := scenarioDifferences("x", ref, tc.other, tc.sweeps)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(got, "; ") != strings.Join(tc.want, "; ") {
			t.Errorf("differences %q, want %q", got, tc.want)
		}
	}
	a, b := &yamlstrict.Node{Kind: yamlstrict.MapKind}, &yamlstrict.Node{Kind: yamlstrict.MapKind}
	a.Keys, a.Vals = []*yamlstrict.Node{yamlstrict.NewScalar("x"), yamlstrict.NewScalar("l")}, []*yamlstrict.Node{yamlstrict.NewScalar("1"), {Kind: yamlstrict.SeqKind}}
	b.Keys, b.Vals = []*yamlstrict.Node{yamlstrict.NewScalar("l")}, []*yamlstrict.Node{{Kind: yamlstrict.SeqKind, Items: []*yamlstrict.Node{yamlstrict.NewScalar("a")}}}
	var got []string
	for _, d := range yamlstrict.Diff(a, b) {
		got = append(got, differenceText(d))
	}
	if strings.Join(got, "; ") != "x removed; l[0]=a" {
		t.Errorf("a removed setting and a longer list: %q", got)
	}
}

// TestCompareDecision pins when a comparison gets a policy decision (compareDecision, item 7
// of the policy decision: "when a sweep or compare varies a policy or limiter"): only when
// every other result differs from the reference in the same policy or limiter settings and
// nothing else, each result one policy named by its value.
func TestCompareDecision(t *testing.T) {
	input := func(sets ...string) compare.Input {
		sc, err := scenarios.Lookup("spike")
		if err != nil {
			t.Fatal(err)
		}
		if err := sc.SetAll(sets...); err != nil {
			t.Fatal(err)
		}
		return compare.Input{Kind: results.KindRun, Header: results.Header{Scenario: sc.Name, Canonical: sc.String()},
			Points: []sweep.PointStats{{Replications: 1}}}
	}
	ref := input()
	p07 := input("clients[1].driver.retryPolicy=mongodb-2026-07")
	legacy := input("clients[1].driver.retryPolicy=mongodb-legacy")
	for _, tc := range []struct {
		name     string
		in       []compare.Input
		policies []string // nil: no decision
	}{
		{"one policy", []compare.Input{ref, p07}, []string{"mongodb-2026-03", "mongodb-2026-07"}},
		{"three policies", []compare.Input{ref, p07, legacy}, []string{"mongodb-2026-03", "mongodb-2026-07", "mongodb-legacy"}},
		{"a load, not a policy", []compare.Input{ref, input("load=1.5")}, nil},
		{"a policy and a duration", []compare.Input{ref, input("clients[1].driver.retryPolicy=mongodb-2026-07", "duration=60s")}, nil},
		{"another policy setting in another result", []compare.Input{ref, p07, input("clients[0].driver.adaptiveRetries=false")}, nil},
		{"the same policy twice", []compare.Input{ref, p07, p07}, nil},
		{"the same scenario", []compare.Input{ref, ref}, nil},
	} {
		d := compareDecision(tc.in, sweep.LoadContext{})
		switch {
		case tc.policies == nil && d != nil:
			t.Errorf("%s: a decision over %v, want none", tc.name, d.Policies)
		case tc.policies != nil && d == nil:
			t.Errorf("%s: no decision, want one over %v", tc.name, tc.policies)
		case d != nil && (!slices.Equal(d.Policies, tc.policies) || d.Group != "plain" || d.Parameter != "clients[1].driver.retryPolicy"):
			t.Errorf("%s: decision over %v of group %q by %q, want %v of plain by clients[1].driver.retryPolicy", tc.name, d.Policies, d.Group, d.Parameter, tc.policies)
		}
	}
}
