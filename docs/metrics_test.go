package docs

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/overloadsim/overloadsim/results"
)

// metricsFile is the documentation of every metric, relative to this folder.
const metricsFile = "metrics.md"

// catalogueSection is the section of metricsFile whose table is the metric catalogue.
const catalogueSection = "18"

// scopeNames is how the catalogue's table says a scope: the prefixes of its metrics' full names.
var scopeNames = map[results.Scope]string{
	results.ScopeGroup:  "`total.`, `group.NAME.`",
	results.ScopeServer: "`server.NAME.`",
	results.ScopeFault:  "`fault.NAME.`",
}

// catalogueTable is the table metricsFile's catalogue section must hold: one row per metric of
// results.Catalogue, in its order.
func catalogueTable() []string {
	or := func(s, none string) string {
		if s == "" {
			return none
		}
		return s
	}
	out := []string{
		"| metric | full names | unit | better | summary.json | timeseries.csv | § | meaning | roles |",
		"|---|---|---|---|---|---|---|---|---|",
	}
	for _, m := range results.Catalogue() {
		json := "—"
		if m.JSON != "" {
			json = "`" + m.JSON + "`"
		}
		column := "—"
		if m.InTimeseries() {
			column = "yes"
		}
		out = append(out, fmt.Sprintf("| `%s` | %s | %s | %s | %s | %s | §%s | %s | %s |",
			m.Name, scopeNames[m.Scope], or(m.Unit, "—"), or(string(m.Better), "—"), json, column, m.Section, m.Doc, or(rolesText(m.Roles), "—")))
	}
	return out
}

// rolesText is how the catalogue's table says a metric's roles: "headline 2, short `goodput`,
// gate `goodput`: band 0.05, example 1"; "" for none.
func rolesText(r results.Roles) string {
	var parts []string
	if r.Headline > 0 {
		parts = append(parts, fmt.Sprintf("headline %d", r.Headline))
	}
	if r.Short != "" {
		parts = append(parts, "short `"+r.Short+"`")
	}
	if g := r.Gate; g.Rule != results.GateNone {
		gate := fmt.Sprintf("gate `%s`: %s", g.Name, g.Rule)
		if g.Rule != results.GateNoNewStuck {
			gate += fmt.Sprintf(" %g", g.Tolerance)
		}
		if g.Interval {
			gate += " + 1 interval"
		}
		parts = append(parts, gate)
	}
	if r.Example > 0 {
		parts = append(parts, fmt.Sprintf("example %d", r.Example))
	}
	return strings.Join(parts, ", ")
}

// docSections splits a Markdown file into its numbered sections: the text from a numbered
// heading ("## 9.", "### 9.3") to the next heading of the same or a higher level, subsections
// included.
func docSections(text string) map[string]string {
	lines := strings.Split(text, "\n")
	out := map[string]string{}
	for i, l := range lines {
		m := numberedHeading.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		level := strings.IndexByte(l, ' ')
		end := len(lines)
		for j := i + 1; j < len(lines); j++ {
			if h := strings.IndexByte(lines[j], ' '); h > 0 && strings.Trim(lines[j][:h], "#") == "" && h <= level {
				end = j
				break
			}
		}
		out[m[1]] = strings.Join(lines[i+1:end], "\n")
	}
	return out
}

// codeSpan is a Markdown code span, across a line break too.
var codeSpan = regexp.MustCompile("`([^`]+)`")

// metricSpan is a code span that names metrics: "goodput", "failures_CLASS",
// "latency_ok_{mean,p50,p99,p999}".
var metricSpan = regexp.MustCompile(`^([a-z][a-z0-9_]*)(CLASS|\{([a-z0-9,]+)\})?$`)

// spanNames returns the metric names in the code spans of text, outside tables, a
// NAME_{a,b} span expanded to NAME_a and NAME_b.
func spanNames(text string) []string {
	var out []string
	var prose []string
	for _, l := range strings.Split(text, "\n") {
		if !strings.HasPrefix(l, "|") {
			prose = append(prose, l)
		}
	}
	for _, s := range codeSpan.FindAllStringSubmatch(strings.Join(prose, "\n"), -1) {
		m := metricSpan.FindStringSubmatch(s[1])
		switch {
		case m == nil:
		case m[3] != "":
			for _, x := range strings.Split(m[3], ",") {
				out = append(out, m[1]+x)
			}
		default:
			out = append(out, m[0])
		}
	}
	return out
}

// TestMetricsCatalogue checks metrics.md against the metric catalogue (results.Catalogue): its
// catalogue section's table is the catalogue's, every metric is named in the section the
// catalogue gives for it, and every metric that the sections on metrics (§2 to §10) name is in
// the catalogue.
func TestMetricsCatalogue(t *testing.T) {
	raw, err := os.ReadFile(metricsFile)
	if err != nil {
		t.Fatal(err)
	}
	secs := docSections(string(raw))

	var table []string
	for _, l := range strings.Split(secs[catalogueSection], "\n") {
		if strings.HasPrefix(l, "|") {
			table = append(table, l)
		}
	}
	if want := catalogueTable(); !slices.Equal(table, want) {
		t.Errorf("%s §%s's table is not the catalogue's (results.Catalogue); it should read\n\n%s",
			metricsFile, catalogueSection, strings.Join(want, "\n"))
	}

	cat := results.Catalogue()
	for _, m := range cat {
		text, ok := secs[m.Section]
		if !ok {
			t.Errorf("%s: the catalogue cites %s §%s, which has no such section", m.Name, metricsFile, m.Section)
			continue
		}
		if !slices.Contains(spanNames(text), m.Name) {
			t.Errorf("%s: %s §%s, which the catalogue cites, does not name it in a code span", m.Name, metricsFile, m.Section)
		}
	}

	for n := 2; n <= 10; n++ {
		sec := fmt.Sprint(n)
		for _, name := range spanNames(secs[sec]) {
			if !slices.ContainsFunc(cat, func(m results.MetricInfo) bool { return m.Name == name }) {
				t.Errorf("%s §%s names the metric %s, which the catalogue (results.Catalogue) does not have", metricsFile, sec, name)
			}
		}
	}
}
