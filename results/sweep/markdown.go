package sweep

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/overloadsim/overloadsim/results"
)

// WriteMarkdown writes the comparisons of a check as a GitHub-flavoured Markdown summary, for a
// CI job's summary page ($GITHUB_STEP_SUMMARY) or a pull request comment, as a load tester's
// thresholds summary reads:
//
//   - a one-line verdict first: PASS or FAIL, how many comparisons regressed of how many, and
//     what was compared with what (title, "RESULT against BASELINE");
//   - the notes (the configuration's differences, what is not gated, a partial sweep), as check
//     prints them, as a list;
//   - a table of every comparison (Compare) — the gated value, the point, the baseline with
//     its band, the result, the limit, the change, PASS or FAIL — the failures first, each
//     group in Compare's order.
//
// The rows and their words are the JUnit report's (WriteJUnit) and check's lines
// (Regression.String), from the same comparisons.
func WriteMarkdown(w io.Writer, title string, notes []Note, cmps []Comparison) error {
	var b strings.Builder
	fails := 0
	for _, c := range cmps {
		if !c.Pass {
			fails++
		}
	}
	if fails > 0 {
		fmt.Fprintf(&b, "**FAIL**: %d of %d comparisons regressed, %s\n\n", fails, len(cmps), mdEscape(title))
	} else {
		fmt.Fprintf(&b, "**PASS**: all %d comparisons within their limits, %s\n\n", len(cmps), mdEscape(title))
	}
	for _, n := range notes {
		fmt.Fprintf(&b, "- %s\n", mdEscape(n.Text))
		for _, it := range n.Items {
			fmt.Fprintf(&b, "  - %s\n", mdEscape(it))
		}
	}
	if len(notes) > 0 {
		b.WriteString("\n")
	}
	b.WriteString("| metric | point | baseline | result | limit | change | verdict |\n")
	b.WriteString("|---|---|---|---:|---|---:|---|\n")
	rows := slices.Clone(cmps)
	// Failures first: what a reader of a failed job looks for.
	slices.SortStableFunc(rows, func(x, y Comparison) int { return cmp.Compare(boolRank(x.Pass), boolRank(y.Pass)) })
	for _, c := range rows {
		verdict := "PASS"
		if !c.Pass {
			verdict = "**FAIL**"
		}
		cells := c.mdCells()
		fmt.Fprintf(&b, "| %s | %s |\n", strings.Join(cells[:], " | "), verdict)
	}
	// A blank line ends the table, so that a summary appended after it starts afresh.
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// boolRank orders false before true.
func boolRank(pass bool) int {
	if pass {
		return 1
	}
	return 0
}

// mdCells are a comparison's cells in a Markdown summary, escaped: the gated value, the point,
// the baseline with its band, the result, the limit and the change.
func (c Comparison) mdCells() [6]string {
	r := c.Regression
	point := r.Point
	if point == "" {
		point = "run"
	}
	if r.Metric == "" {
		return [6]string{"(the whole point)", mdCode(point), "—", "missing", "—", "—"}
	}
	_, g := r.gate()
	base, got, limit := r.Value(r.Baseline), r.Value(r.Got), ""
	switch {
	case g.Rule == results.GateNoNewStuck:
		base = outOf(r.Baseline, r.BaselineN) + " stuck"
		if r.BaselineN > 1 {
			base += " (" + r.Value(r.Baseline) + ")"
		}
		got = outOf(r.Got, r.N) + " stuck"
		if r.N > 1 {
			got += " (" + r.Value(r.Got) + ")"
		}
		limit = "≤ " + r.Value(r.Limit)
		if r.Limit == 0 {
			limit = "none stuck"
		}
	case r.Band > 0:
		base += " ± " + r.Value(r.Band)
	}
	if limit == "" {
		limit = "≤ " + r.Value(r.Limit)
		if r.lowerIsWorse() {
			limit = "≥ " + r.Value(r.Limit)
		}
	}
	switch {
	case r.Missing:
		got = "missing"
	case math.IsNaN(r.Got):
		got = "no value"
	}
	change := r.Change()
	if change == "" {
		change = "—"
	}
	return [6]string{mdCode(r.Metric), mdCode(point), mdEscape(base), mdEscape(got), mdEscape(limit), mdEscape(change)}
}

// lowerIsWorse says whether the gated value regresses downwards (a band gate of a metric whose
// higher values are better: goodput).
func (r Regression) lowerIsWorse() bool {
	m, g := r.gate()
	return g.Rule == results.GateBand && m.Better == results.BetterHigher
}

// mdCode is s as code in a table cell (a metric's or a point's name, read as written): a pipe
// escaped, as GitHub's tables want even inside code; escaped text instead for a name with a
// backtick, which would end the code.
func mdCode(s string) string {
	if strings.Contains(s, "`") {
		return mdEscape(s)
	}
	return "`" + strings.ReplaceAll(s, "|", `\|`) + "`"
}

// mdEscape makes text safe in a Markdown table cell or list item: a pipe would end the cell,
// and a backslash, backtick, asterisk, underscore or angle bracket would start markup (a
// parameter's value, a folder's name).
func mdEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune("|\\`*_<>[]", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
