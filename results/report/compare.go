package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/chart"
	"github.com/overloadsim/overloadsim/results/compare"
)

// CompareFile is the name of a comparison's report.
const CompareFile = "compare.html"

//go:embed compare.html.tmpl
var compareTemplate string

var comparePage = template.Must(template.Must(template.New(CompareFile).Parse(compareTemplate)).Parse(decisionTemplate))

type compareView struct {
	Title     string
	Result    string
	Results   []compare.Compared
	Headlines []compareHeadline
	Rows      []compareRow
	Figures   []figure
	Decision  *decisionView // the policy decision, when the results differ only in a policy
}

// compareHeadline is what the page says first of a compared result (compare.Headline).
type compareHeadline struct {
	Index int
	Label string
	Items []compareItem
}

type compareItem struct{ Text, Verdict string }

type compareRow struct {
	Point, Metric string
	Cells         []compareCell
}

type compareCell struct {
	Text    string
	Delta   string // the difference from the reference, with its p-value and verdict
	Verdict string // the verdict's class: better, worse, ns (not significant or untested), or ""
}

// WriteCompare renders the comparison folder dir (compare.Write) into
// dir/compare.html, with its figure inline when drawn, and lists it in the folder's manifest.
func WriteCompare(dir string) (string, error) {
	m, err := results.ReadManifestOf(dir, results.KindCompare)
	if err != nil {
		return "", err
	}
	c, err := compare.Read(dir)
	if err != nil {
		return "", fmt.Errorf("report: %w", err)
	}
	v := compareView{Result: m.ResultDigest(), Results: c.Results, Decision: newDecision(c.Decision)}
	for i, r := range c.Results {
		if i > 0 {
			v.Title += " vs "
		}
		v.Title += r.Label
	}
	for i := 1; i < len(c.Results); i++ {
		h := compareHeadline{Index: i, Label: c.Results[i].Label}
		for _, t := range compare.Headline(c, i) {
			h.Items = append(h.Items, compareItem{Text: t.Text, Verdict: verdictClass(t.Verdict)})
		}
		v.Headlines = append(v.Headlines, h)
	}
	for _, row := range c.Rows {
		cr := compareRow{Point: row.Point, Metric: row.Metric}
		if cr.Point == "" {
			cr.Point = "–"
		}
		for i, val := range row.Values {
			cr.Cells = append(cr.Cells, compareCellOf(row.Metric, val, i == 0))
		}
		v.Rows = append(v.Rows, cr)
	}
	if fig := chart.Lookup(chart.Compare); m.Has(fig.File()) {
		data, err := os.ReadFile(filepath.Join(dir, fig.File()))
		if err != nil {
			return "", fmt.Errorf("report: %w", err)
		}
		if results.MarkedResult(data) != v.Result {
			return "", fmt.Errorf("report: %s: %w", filepath.Join(dir, fig.File()), ErrStaleFigure)
		}
		svg, err := inlineSVG(data, "fig1-")
		if err != nil {
			return "", fmt.Errorf("report: %s: %w", filepath.Join(dir, fig.File()), err)
		}
		v.Figures = []figure{{Number: 1, File: fig.File(), SVG: svg, Caption: fig.Caption}}
	}
	var b bytes.Buffer
	if err := comparePage.Execute(&b, v); err != nil {
		return "", fmt.Errorf("report: %w", err)
	}
	if err := results.CheckDrawn(dir, &m, CompareFile); err != nil {
		return "", fmt.Errorf("report: %w", err)
	}
	path := filepath.Join(dir, CompareFile)
	if err := writeBytes(path, b.Bytes()); err != nil {
		return "", err
	}
	return path, results.AddFiles(dir, CompareFile)
}

// compareCellOf formats one value of a comparison in its metric's unit: "764.5/s ± 5/s", and
// for the others their difference, "-13.7/s, -1.8 %, p 0.00091: worse", with the verdict's class
// (compare.Judge) that colours it.
func compareCellOf(metric string, v compare.Value, ref bool) compareCell {
	c := compareCell{Text: compare.FormatCI(metric, v.Mean, v.CI95)}
	if math.IsNaN(v.Mean) {
		c.Text = noValue
	}
	if ref || math.IsNaN(v.Delta) {
		return c
	}
	c.Delta = compare.FormatDelta(metric, v.Delta)
	if !math.IsNaN(v.DeltaRel) && v.Delta != 0 {
		c.Delta += fmt.Sprintf(", %+.1f %%", 100*v.DeltaRel)
	}
	if !math.IsNaN(v.P) {
		c.Delta += ", p " + strconv.FormatFloat(v.P, 'g', 2, 64)
	}
	if v.Verdict != compare.NoVerdict && v.Verdict != compare.Neutral {
		c.Delta += ": " + string(v.Verdict)
	}
	c.Verdict = verdictClass(v.Verdict)
	return c
}

// verdictClass is the page's class of a verdict, which colours it: better, worse, or ns (not
// significant or untested); none for the rest.
func verdictClass(v compare.Verdict) string {
	switch v {
	case compare.Better, compare.Worse:
		return string(v)
	case compare.NotSignificant, compare.Untested:
		return "ns"
	}
	return ""
}
