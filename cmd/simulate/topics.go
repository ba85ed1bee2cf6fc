package main

import (
	"errors"
	"fmt"
	"go/doc/comment"
	"go/parser"
	"go/token"
	"io"
	"slices"
	"strings"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/scenarios"
)

// topic is a reference that 'simulate help TOPIC' prints: what a reader of an installed binary,
// which has no source to run go doc on, needs to write a scenario or read a result. Each is
// built from the text the docs hold (a package's documentation, the metric catalogue), not
// written again, so that the two cannot drift apart.
type topic struct {
	summary string
	write   func(w io.Writer) error
}

// topics are the help topics, by name.
var topics = map[string]topic{
	"scenario": {"the scenario format: every field, its default and its units (go doc ./scenarios)", writeScenarioTopic},
	"metrics":  {"every metric: its name, unit, direction and meaning, and the recovery rule", writeMetricsTopic},
}

// topicNames returns the topics' names, sorted.
func topicNames() []string {
	var names []string
	for n := range topics {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// writeScenarioTopic writes the documentation of package scenarios, the reference of the
// format, as go doc prints it.
func writeScenarioTopic(w io.Writer) error {
	d, err := packageDoc(scenarios.DocSource())
	if err != nil {
		return err
	}
	fmt.Fprint(w, "The scenario format: the documentation of package scenarios (go doc ./scenarios).\n\n")
	_, err = w.Write(docText(d))
	return err
}

// writeMetricsTopic writes every metric of the catalogue of package results (docs/metrics.md
// §18 is the same table) by scope, and the recovery rule of the results package's
// documentation (its section # Recovery; docs/metrics.md §13).
func writeMetricsTopic(w io.Writer) error {
	fmt.Fprint(w, `Metrics: every number a run, sweep, map or tuning reports, as the catalogue of package results
lists it (docs/metrics.md §18 is the same table; § names the section of docs/metrics.md that
defines the metric). A metric's full name is its prefix and its name: total.goodput,
group.NAME.goodput, server.NAME.queue, fault.NAME.stuck. Units: /s per second of virtual time,
s seconds, — a ratio, share, count, level or indicator. "in": S, a summary's metric, which
expect: blocks, sweeps, comparisons, checks and tune can name; T, a column of timeseries.csv.
failures_CLASS is one metric per error class.
`)
	scopes := []struct {
		scope results.Scope
		title string
	}{
		{results.ScopeGroup, "Client groups (total.METRIC over all groups, group.NAME.METRIC)"},
		{results.ScopeServer, "Servers (server.NAME.METRIC)"},
		{results.ScopeFault, "Triggers (fault.NAME.METRIC; a trigger is named after its fault or load change)"},
	}
	cat := results.Catalogue()
	for _, s := range scopes {
		fmt.Fprintf(w, "\n%s:\n", s.title)
		fmt.Fprintf(w, "  %-22s %-4s %-6s %-2s %-5s %s\n", "METRIC", "UNIT", "BETTER", "IN", "§", "MEANING")
		for _, m := range cat {
			if m.Scope == s.scope {
				fmt.Fprintln(w, metricLine(m))
			}
		}
	}
	d, err := packageDoc(results.DocSource())
	if err != nil {
		return err
	}
	rec, err := docSection(d, "Recovery")
	if err != nil {
		return err
	}
	fmt.Fprint(w, "\nRecovery after a trigger (docs/metrics.md §13), from the documentation of package results\n(go doc ./results, section Recovery):\n\n")
	_, err = w.Write(docText(rec))
	return err
}

// metricLine is a metric's line in 'simulate help metrics': name, unit, direction, where it
// is, section and meaning.
func metricLine(m results.MetricInfo) string {
	unit, better, in := m.Unit, string(m.Better), ""
	if unit == "" {
		unit = "—"
	}
	if better == "" {
		better = "—"
	}
	if m.InSummary() {
		in += "S"
	}
	if m.InTimeseries() {
		in += "T"
	}
	return fmt.Sprintf("  %-22s %-4s %-6s %-2s %-5s %s", m.Name, unit, better, in, "§"+m.Section, m.Doc)
}

// packageDoc parses the package comment of the Go source src as a doc comment.
func packageDoc(src string) (*comment.Doc, error) {
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", src, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		return nil, err
	}
	if f.Doc == nil {
		return nil, errors.New("the documentation's source has no package comment")
	}
	// Every [Name] is taken for a link to a symbol of the package, as go doc takes the ones
	// that name one: the text prints its name without the brackets.
	p := comment.Parser{LookupSym: func(recv, name string) bool { return true }}
	return p.Parse(f.Doc.Text()), nil
}

// docText prints a doc comment as text, as go doc does.
func docText(d *comment.Doc) []byte {
	var p comment.Printer
	return p.Text(d)
}

// docSection returns the section of d under the heading title, up to the next heading.
func docSection(d *comment.Doc, title string) (*comment.Doc, error) {
	for i, b := range d.Content {
		if h, ok := b.(*comment.Heading); !ok || plainText(h.Text) != title {
			continue
		}
		end := i + 1
		for end < len(d.Content) {
			if _, ok := d.Content[end].(*comment.Heading); ok {
				break
			}
			end++
		}
		return &comment.Doc{Content: d.Content[i+1 : end], Links: d.Links}, nil
	}
	return nil, fmt.Errorf("the documentation has no section # %s", title)
}

// plainText is the text of a heading, without its markup.
func plainText(text []comment.Text) string {
	var b strings.Builder
	for _, t := range text {
		switch t := t.(type) {
		case comment.Plain:
			b.WriteString(string(t))
		case comment.Italic:
			b.WriteString(string(t))
		case *comment.Link:
			b.WriteString(plainText(t.Text))
		case *comment.DocLink:
			b.WriteString(plainText(t.Text))
		}
	}
	return b.String()
}
