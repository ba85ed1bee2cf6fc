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

var comparePage = template.Must(template.New(CompareFile).Parse(compareTemplate))

type compareView struct {
	Title   string
	Result  string
	Results []compare.Compared
	Rows    []compareRow
	Figures []figure
}

type compareRow struct {
	Point, Metric string
	Cells         []compareCell
}

type compareCell struct {
	Text        string
	Significant bool
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
	v := compareView{Result: m.ResultDigest(), Results: c.Results}
	for i, r := range c.Results {
		if i > 0 {
			v.Title += " vs "
		}
		v.Title += r.Label
	}
	for _, row := range c.Rows {
		cr := compareRow{Point: row.Point, Metric: row.Metric}
		if cr.Point == "" {
			cr.Point = "–"
		}
		for i, val := range row.Values {
			cr.Cells = append(cr.Cells, compareCell{Text: compareText(val, i == 0), Significant: val.Significant})
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

// compareText formats one value of a comparison: "1000 ± 2.1 (n 5)", and for the others
// "+3.2 % (p 0.01)".
func compareText(v compare.Value, ref bool) string {
	if math.IsNaN(v.Mean) {
		return noValue
	}
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', 4, 64) }
	s := g(v.Mean)
	if !math.IsNaN(v.CI95) {
		s += " ± " + g(v.CI95)
	}
	if ref || math.IsNaN(v.Delta) {
		return s
	}
	d := g(v.Delta)
	if v.Delta >= 0 {
		d = "+" + d
	}
	if !math.IsNaN(v.DeltaRel) {
		d = fmt.Sprintf("%+.1f %%", 100*v.DeltaRel)
	}
	s += " (" + d
	if !math.IsNaN(v.P) {
		s += ", p " + g(v.P)
	}
	return s + ")"
}
