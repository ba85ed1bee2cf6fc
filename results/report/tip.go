package report

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/chart"
	"github.com/overloadsim/overloadsim/results/plot"
	"github.com/overloadsim/overloadsim/results/tip"
)

//go:embed tip.html.tmpl
var tipTemplate string

var tipPage = template.Must(template.New(File).Parse(tipTemplate))

// tipFigure is the figure of a tipping-point search.
var tipFigure = chart.Lookup(chart.Tip)

// tipView is what the tip page shows, already formatted.
type tipView struct {
	Result    string // the result's digest, in a <meta>
	Name      string // the scenario's
	Header    results.Header
	Lead      string // tip.Result.Lead
	Estimate  string // tip.Result.Describe: the estimate, its interval and how the search ended
	Param     string // the parameter's words and path
	Partial   string
	Facts     []fact
	Rows      []tipRow
	Figure    *figure
	Warnings  []string
	Canonical string
}

// tipRow is one value tested, formatted; Safe marks the last value up to which every run
// recovered, FirstStuck the first value where a run stuck (tip.Result.Bound).
type tipRow struct {
	Value, Runs, Stuck, Undecided, PStuck, Interval, Verdict string
	Safe, FirstStuck, StuckSide                              bool
}

// WriteTip renders the tipping-point search in dir (tip.Write) into dir/report.html, with its
// figure inline (tip.svg when the folder lists it as drawn from this result, else drawn in
// memory), and lists the page in the folder's manifest.
func WriteTip(dir string) (string, error) {
	m, err := results.ReadManifestOf(dir, results.KindTip)
	if err != nil {
		return "", err
	}
	if err := results.CheckDrawn(dir, &m, File); err != nil {
		return "", fmt.Errorf("report: %w", err)
	}
	var b bytes.Buffer
	if err := RenderTip(&b, dir); err != nil {
		return "", err
	}
	path := filepath.Join(dir, File)
	if err := writeBytes(path, b.Bytes()); err != nil {
		return "", err
	}
	return path, results.AddFiles(dir, File)
}

// RenderTip writes the page of the tipping-point search in dir to w: the lead sentence, the
// estimate, the table of the values tested and the figure on the first screen, then the
// search's facts and the scenario. It writes nothing into dir.
func RenderTip(w io.Writer, dir string) error {
	m, err := results.ReadManifestOf(dir, results.KindTip)
	if err != nil {
		return err
	}
	t, err := tip.Read(dir)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	v := tipPageView(&t)
	v.Result = m.ResultDigest()
	var data []byte
	if m.Has(tipFigure.File()) {
		data, err = os.ReadFile(filepath.Join(dir, tipFigure.File()))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("report: %w", err)
		}
		if data != nil && results.MarkedResult(data) != v.Result {
			return fmt.Errorf("report: %s: %w: draw the figures again with simulate plot %s", filepath.Join(dir, tipFigure.File()), ErrStaleFigure, dir)
		}
	}
	if data == nil {
		svg, err := plot.TipSVG(&t)
		if err != nil {
			return fmt.Errorf("report: %w", err)
		}
		data = results.MarkSVG(svg, v.Result)
	}
	svg, err := inlineSVG(data, "fig1-")
	if err != nil {
		return fmt.Errorf("report: %s: %w", tipFigure.File(), err)
	}
	v.Figure = &figure{Number: 1, File: tipFigure.File(), Caption: tipFigure.Caption, SVG: svg}
	return tipPage.Execute(w, v)
}

// tipPageView formats the search t for the page.
func tipPageView(t *tip.Result) *tipView {
	h := t.Header
	v := &tipView{Name: h.Scenario, Header: h, Lead: sentence(t.Lead()), Param: chart.TipAxisLabel(t), Warnings: t.Warnings,
		Canonical: strings.TrimRight(h.Canonical, "\n")}
	if v.Name == "" {
		v.Name = "unnamed scenario"
	}
	if t.NoFlip == nil {
		v.Estimate = sentence(t.Describe())
	}
	if t.Partial {
		v.Partial = "The search was interrupted: the bracket is the narrowest reached, and the values below are the evidence so far."
	}
	v.Facts = []fact{
		{"tool", toolText(h)},
		{"trigger", t.Trigger},
		{"parameter", t.Param},
		{"runs stick", t.Sticks + " the boundary"},
		{"values tested", strconv.Itoa(len(t.Probes))},
		{"runs", strconv.Itoa(t.Replications)},
		{"base seed", strconv.FormatUint(h.Seed, 10)},
		{"horizon", seconds(h.Duration)},
	}
	b := t.Bound()
	ps := make([]*tip.Probe, len(t.Probes))
	for i := range t.Probes {
		ps[i] = &t.Probes[i]
	}
	slices.SortStableFunc(ps, func(a, b *tip.Probe) int {
		switch {
		case a.X < b.X:
			return -1
		case a.X > b.X:
			return 1
		}
		return 0
	})
	for _, p := range ps {
		r := tipRow{Value: t.Tested(p.X), Runs: strconv.Itoa(p.Replications), Stuck: strconv.Itoa(p.Stuck),
			Undecided: strconv.Itoa(p.Undecided), Verdict: p.Verdict,
			Safe: p == b.Safe, FirstStuck: p == b.Stuck, PStuck: noValue}
		if d := p.Decided(); d > 0 {
			r.PStuck = fmt.Sprintf("%d/%d = %s", p.Stuck, d, fixed(float64(p.Stuck)/float64(d), 2))
			r.Interval = fixed(p.Lo95, 2) + "–" + fixed(p.Hi95, 2)
			r.StuckSide = 2*p.Stuck >= d
		}
		v.Rows = append(v.Rows, r)
	}
	return v
}
