package report

import (
	"bufio"
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"html/template"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/chart"
	"github.com/overloadsim/overloadsim/results/sweep"
	"github.com/overloadsim/overloadsim/sim"
)

// File is the name of the report Write writes into a result folder.
const File = "report.html"

// ErrNoResult means a folder holds no finished result: no intact manifest (results.ReadManifest)
// of a run, a sweep or a metastability map.
var ErrNoResult = results.ErrNoResult

// figureSpecs are the figures a report shows, in the registry's order (chart.Registry): a run's,
// a sweep's and a map's. Any that exists is shown, whatever the folder's kind; the kind only
// decides which names the report lists when there is none.
func figureSpecs() []chart.Spec {
	var out []chart.Spec
	for _, f := range chart.Registry {
		if f.Kind == results.KindRun || f.Kind == results.KindSweep || f.Kind == results.KindMap {
			out = append(out, f)
		}
	}
	return out
}

//go:embed report.html.tmpl
var templateText string

var page = template.Must(template.Must(template.New(File).Parse(templateText)).Parse(decisionTemplate))

// Write renders the report of the result folder dir (see Render) into dir/report.html and
// returns that path. The file is written under a temporary name (".report.html.tmp") and renamed
// when complete, so a report.html is never partial; on error the previous one, if any, is left
// as it was. A map folder without map.svg gets its figure drawn first (map.svg and map.png,
// plot.WriteMapFigures), as `simulate report` draws a run's or a sweep's.
func Write(dir string) (path string, err error) {
	m, err := results.ReadManifest(dir)
	if err != nil {
		return "", err
	}
	if err := results.CheckDrawn(dir, &m, File); err != nil {
		return "", fmt.Errorf("report: %w", err)
	}
	if m.Kind == results.KindMap {
		if err := drawMapFigure(dir, &m); err != nil {
			return "", err
		}
	}
	var b bytes.Buffer
	if err := Render(&b, dir); err != nil {
		return "", err
	}
	path = filepath.Join(dir, File)
	if err := writeBytes(path, b.Bytes()); err != nil {
		return "", err
	}
	return path, results.AddFiles(dir, File)
}

// Render writes the report of the result folder dir to w: a metastability map when dir holds
// map.json, a sweep when it holds sweep.json, otherwise a run (run.json and summary.json). The
// bytes depend only on the folder's files. A map folder without its figure (map.svg) gets it
// drawn in memory; Render writes nothing into dir.
func Render(w io.Writer, dir string) error {
	v, err := load(dir)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	if err := page.Execute(bw, v); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return bw.Flush()
}

// ErrStaleFigure is returned (wrapped) for a figure that was not drawn from the folder's result:
// it carries another result's mark (results.ResultMark), or none.
var ErrStaleFigure = errors.New("the figure was not drawn from this folder's result")

// view is everything the template shows, already formatted.
type view struct {
	Result      string // the result's digest (results.Manifest.ResultDigest), in a <meta>
	Name        string // the scenario's
	Kind        string // "run" or "sweep"
	Header      results.Header
	Facts       []fact
	Canonical   string
	CanonLines  int
	Streams     []stream
	Replay      string
	Run         *runView
	Sweep       *sweepView
	Map         *mapView
	Figures     []figure
	FigureFiles []string // the names looked for, when none was found
	Partial     string   // why the result is incomplete ("" when whole)
	Verdict     *verdictView
	Interactive *interactiveView // a run's interactive charts
	Decision    *decisionView    // a sweep's policy decision, first on the page (decision.go)
	Answer      *runAnswer       // what a run's report leads with
}

// verdictView is the verdict on the scenario's expect: block, which opens the report.
type verdictView struct {
	Holds         bool
	Failed, Total int
	Lines         []verdictLine
}

type verdictLine struct {
	Pass bool
	Text string
}

// newVerdict returns the verdict on vs; nil without expectations.
func newVerdict(vs []results.Verdict) *verdictView {
	if len(vs) == 0 {
		return nil
	}
	v := &verdictView{Failed: results.Failed(vs), Total: len(vs)}
	v.Holds = v.Failed == 0
	for _, x := range vs {
		v.Lines = append(v.Lines, verdictLine{Pass: x.Pass, Text: strings.TrimPrefix(strings.TrimPrefix(x.String(), "PASS "), "FAIL ")})
	}
	return v
}

type fact struct{ Label, Value string }

type stream struct{ Name, S1, S2 string }

type runView struct {
	Window      string
	FailClasses []string
	FailSpan    int // columns under "failures/s": all, then one per class
	Groups      []groupRow
	Total       groupRow
	Servers     []serverRow
	Shards      []shardRow // runs with mongos nodes only
	Recoveries  []recoveryRow
	Phases      []phaseRow // before, during and after each trigger (results.Phases)
}

type phaseRow struct {
	Name, Window, Offered, Goodput, Failed, Amplification, P99 string
}

type shardRow struct {
	Mongos, Shard                                       string
	Routed, OverloadErrors, OverloadRetries, Retargeted string
	Amplification, Backoff, BalanceMin                  string
}

type groupRow struct {
	Name                            string
	Offered, Goodput, Amplification string
	P50, P99, P999                  string
	Failed                          string
	ByClass                         []string
}

type serverRow struct {
	Name                                  string
	Utilisation, RejectShare, WastedShare string
	Throughput, RejectionRate, MeanQueue  string
}

type recoveryRow struct {
	Fault, Window, PreGoodput, Result string
	Recovered                         bool
}

type sweepView struct {
	Params  []string
	Metrics []string
	Rows    []sweepRow
	// Context and Answers say a load sweep's answers in words (sweep.SweepAnswers).
	Context string
	Answers []answerView
}

type answerView struct {
	Line      string
	Sentences []string
}

type sweepRow struct {
	Params       []string
	Replications string
	Values       []meanCI
}

// meanCI is a cell of the sweep table: a mean and its confidence half-width, or a text (Text:
// a trigger's outcomes, which may wrap).
type meanCI struct {
	Mean, CI string
	Text     bool
}

type figure struct {
	Number  int
	File    string
	Caption string
	SVG     template.HTML
}

func load(dir string) (*view, error) {
	m, err := results.ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	var v *view
	switch m.Kind {
	case results.KindMap:
		return loadMap(dir, &m)
	case results.KindSweep:
		b, err := sweep.LoadBaseline(filepath.Join(dir, results.SweepFile))
		if err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
		v = sweepPage(b.Header, b.Points)
		v.Partial = m.Partial
		v.Verdict = newVerdict(b.Verdicts)
		v.Decision = newDecision(b.Decision)
		if b.Context != nil && len(b.Answers) > 0 {
			v.Sweep.Context = b.Context.Sentence()
			for _, a := range b.Answers {
				v.Sweep.Answers = append(v.Sweep.Answers, answerView{Line: a.Line, Sentences: a.Sentences()})
			}
		}
	case results.KindRun:
		hdr, err := results.ReadHeader(dir)
		if err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
		sum, err := results.ReadSummary(dir)
		if err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
		v = runPage(hdr, sum)
		v.Verdict = newVerdict(sum.Verdicts)
		if m.Has(results.TimeseriesFile) {
			ts, err := results.ReadTimeseries(dir)
			if err != nil {
				return nil, fmt.Errorf("report: %w", err)
			}
			if len(ts.Ends()) > 0 { // a run without intervals has no charts
				if v.Interactive, err = newInteractive(chart.NewRun(hdr, ts, &sum)); err != nil {
					return nil, err
				}
			}
		}
	default:
		return nil, fmt.Errorf("report: %s holds a %s, which has no report (run, sweep or map)", dir, m.Kind)
	}
	figs, err := loadFigures(dir, &m)
	if err != nil {
		return nil, err
	}
	v.Result = m.ResultDigest()
	v.Figures = figs
	if len(figs) == 0 {
		for _, f := range figureSpecs() {
			if f.Kind == v.Kind {
				v.FigureFiles = append(v.FigureFiles, f.File())
			}
		}
	}
	return v, nil
}

func commonPage(h results.Header, kind string) *view {
	name := h.Scenario
	if name == "" {
		name = "unnamed scenario"
	}
	canon := strings.TrimRight(h.Canonical, "\n")
	v := &view{
		Name: name, Kind: kind, Header: h, Canonical: canon,
		CanonLines: strings.Count(canon, "\n") + 1,
	}
	for _, s := range h.Streams {
		if s.Count > 0 { // a family: its seeds follow from the rule
			v.Streams = append(v.Streams, stream{s.Name, strconv.Itoa(s.Count) + " streams", "seeds by the rule below"})
			continue
		}
		v.Streams = append(v.Streams, stream{s.Name, strconv.FormatUint(s.S1, 10), strconv.FormatUint(s.S2, 10)})
	}
	return v
}

func warmupText(h results.Header) string {
	if h.WarmupAuto {
		return seconds(h.Warmup) + " (chosen by MSER-5)"
	}
	return seconds(h.Warmup) + " (fixed)"
}

func toolText(h results.Header) string {
	return strings.TrimSpace(h.Tool + " " + h.Version)
}

func runPage(h results.Header, s results.Summary) *view {
	v := commonPage(h, "run")
	seed := strconv.FormatUint(h.Seed, 10)
	v.Facts = []fact{
		{"tool", toolText(h)},
		{"seed", seed},
		{"replication", strconv.Itoa(h.Replication)},
		{"duration", seconds(h.Duration)},
		{"interval", seconds(h.Interval)},
		{"warm-up", warmupText(h)},
		{"measured window", seconds(s.Measured)},
	}
	v.Replay = "simulate run scenario.yaml --seed " + seed
	rv := &runView{
		Window: fmt.Sprintf("Measured over %s after a %s warm-up.", seconds(s.Measured), seconds(s.Warmup)),
	}
	// A column for every error class that failed an operation anywhere (the total covers all
	// groups), in the series' ErrClasses order.
	var classes []int
	for i, c := range s.Total.Failures {
		if c.Count > 0 {
			classes = append(classes, i)
			rv.FailClasses = append(rv.FailClasses, c.Class)
		}
	}
	rv.FailSpan = 1 + len(classes)
	row := func(g results.GroupSummary) groupRow {
		r := groupRow{
			Name: g.Name, Offered: rate(g.Offered), Goodput: rate(g.Goodput),
			Amplification: ratio(g.Amplification),
			P50:           latency(g.Success.P50), P99: latency(g.Success.P99), P999: latency(g.Success.P999),
			Failed: rate(g.FailureRate),
		}
		for _, i := range classes {
			if i < len(g.Failures) {
				r.ByClass = append(r.ByClass, rate(g.Failures[i].Rate))
			} else {
				r.ByClass = append(r.ByClass, noValue)
			}
		}
		return r
	}
	for _, g := range s.Groups {
		rv.Groups = append(rv.Groups, row(g))
	}
	rv.Total = row(s.Total)
	rv.Total.Name = "all groups"
	for _, sv := range s.Servers {
		rv.Servers = append(rv.Servers, serverRow{
			Name: sv.Name, Utilisation: share(sv.Utilisation), RejectShare: share(sv.RejectShare),
			WastedShare: share(sv.WastedShare), Throughput: rate(sv.Throughput),
			RejectionRate: rate(sv.RejectionRate), MeanQueue: fixed(sv.MeanQueue, 1),
		})
	}
	for _, sh := range s.Shards {
		rv.Shards = append(rv.Shards, shardRow{
			Mongos: sh.Mongos, Shard: sh.Shard, Routed: strconv.FormatUint(sh.Attempted, 10),
			OverloadErrors: strconv.FormatUint(sh.OverloadErrors, 10), OverloadRetries: strconv.FormatUint(sh.OverloadRetries, 10),
			Retargeted: strconv.FormatUint(sh.Retargeted, 10), Amplification: ratio(sh.Amplification),
			Backoff: fixed(sh.Backoff, 1), BalanceMin: fixed(sh.BalanceMin, 1),
		})
	}
	for _, r := range s.Recoveries {
		rr := recoveryRow{Fault: r.Fault, PreGoodput: rate(r.PreGoodput)}
		if r.End > r.Start {
			rr.Window = simTime(r.Start) + " – " + simTime(r.End)
		} else {
			rr.Window = "at " + simTime(r.Start)
		}
		rr.Result, rr.Recovered = r.Describe(), r.Outcome == results.Recovered
		rv.Recoveries = append(rv.Recoveries, rr)
	}
	for _, p := range s.Phases {
		rv.Phases = append(rv.Phases, phaseRow{Name: p.Name, Window: simTime(p.Start) + " – " + simTime(p.End),
			Offered: rate(p.Offered), Goodput: rate(p.Goodput), Failed: share(p.FailureShare),
			Amplification: ratio(p.Amplification), P99: latency(p.P99)})
	}
	v.Run = rv
	v.Answer = newRunAnswer(&s)
	return v
}

// headline is a metric of the sweep table: its name in Summary.Metrics, its column label and
// how its numbers are formatted.
type headline struct {
	name, label string
	format      func(mean, ci float64) meanCI
}

// headlines are the sweep table's metrics, all over every client group.
var headlines = []headline{
	{"total.offered", "offered/s", fixedPair(1)},
	{"total.goodput", "goodput/s", fixedPair(1)},
	{"total.amplification", "amplification", fixedPair(3)},
	{"total.latency_ok_p99", "p99 (successes)", latencyPair},
	{"total.failures", "failed/s", fixedPair(1)},
}

func sweepPage(h results.Header, points []sweep.PointStats) *view {
	v := commonPage(h, "sweep")
	seed := strconv.FormatUint(h.Seed, 10)
	reps := "–"
	if len(points) > 0 {
		reps = strconv.Itoa(points[0].Replications)
		for _, p := range points[1:] {
			if p.Replications != points[0].Replications {
				reps = "varies"
			}
		}
	}
	v.Facts = []fact{
		{"tool", toolText(h)},
		{"base seed", seed},
		{"points", strconv.Itoa(len(points))},
		{"replications per point", reps},
		{"duration", seconds(h.Duration)},
		{"interval", seconds(h.Interval)},
		{"warm-up", warmupText(h)},
	}
	v.Replay = "simulate sweep scenario.yaml --seed " + seed
	sv := &sweepView{}
	for _, p := range points {
		for _, pr := range p.Params {
			if !slices.Contains(sv.Params, pr.Path) {
				sv.Params = append(sv.Params, pr.Path)
			}
		}
	}
	for _, m := range headlines {
		sv.Metrics = append(sv.Metrics, m.label)
	}
	var triggers []string // one column per trigger: how the replications came out after it
	if len(points) > 0 {
		for _, o := range points[0].Outcomes() {
			triggers = append(triggers, o.Trigger)
			sv.Metrics = append(sv.Metrics, "after "+o.Trigger)
		}
	}
	for _, p := range points {
		row := sweepRow{Replications: strconv.Itoa(p.Replications)}
		for _, path := range sv.Params {
			cell := noValue
			for _, pr := range p.Params {
				if pr.Path == path {
					cell = pr.Value
				}
			}
			row.Params = append(row.Params, cell)
		}
		for _, m := range headlines {
			st, ok := p.Metric(m.name)
			if !ok {
				row.Values = append(row.Values, meanCI{Mean: noValue})
				continue
			}
			row.Values = append(row.Values, m.format(st.Mean, st.CI95))
		}
		outcomes := p.Outcomes()
		for _, name := range triggers {
			cell := meanCI{Mean: noValue}
			for _, o := range outcomes {
				if o.Trigger == name {
					text := fmt.Sprintf("%d/%d recovered", o.Recovered, o.N)
					if o.Recovered > 0 {
						text += " (in " + fixed(o.RecoveryMean, 1) + " s)"
					}
					cell = meanCI{Mean: text + fmt.Sprintf(", %d stuck, %d undecided", o.Stuck, o.Undecided), Text: true}
				}
			}
			row.Values = append(row.Values, cell)
		}
		sv.Rows = append(sv.Rows, row)
	}
	v.Sweep = sv
	return v
}

// Number formatting: fixed verbs only (docs/conventions.md §9), and noValue for NaN and ±Inf.

const noValue = "–"

func missing(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) }

func fixed(x float64, decimals int) string {
	if missing(x) {
		return noValue
	}
	if x == 0 {
		x = 0 // no "-0.0"
	}
	s := strconv.FormatFloat(x, 'f', decimals, 64)
	if strings.TrimLeft(s, "-0.") == "" {
		s = strings.TrimPrefix(s, "-")
	}
	return s
}

func rate(x float64) string  { return fixed(x, 1) }
func ratio(x float64) string { return fixed(x, 3) }

// share formats a fraction as a percentage.
func share(x float64) string {
	if missing(x) {
		return noValue
	}
	return fixed(x*100, 1) + " %"
}

// latencyUnit picks the unit a latency of x seconds reads best in, and the decimals for three
// significant figures in it.
func latencyUnit(x float64) (scale float64, unit string, decimals int) {
	ax := math.Abs(x)
	switch {
	case ax < 1e-3:
		scale, unit = 1e6, "µs"
	case ax < 1:
		scale, unit = 1e3, "ms"
	default:
		scale, unit = 1, "s"
	}
	switch v := ax * scale; {
	case v < 10:
		decimals = 2
	case v < 100:
		decimals = 1
	}
	return scale, unit, decimals
}

// latency formats x seconds with a unit that fits it: "850 µs", "12.3 ms", "1.25 s".
func latency(x float64) string {
	if missing(x) {
		return noValue
	}
	scale, unit, d := latencyUnit(x)
	return fixed(x*scale, d) + " " + unit
}

func fixedPair(decimals int) func(mean, ci float64) meanCI {
	return func(mean, ci float64) meanCI {
		p := meanCI{Mean: fixed(mean, decimals)}
		if !missing(mean) && !missing(ci) {
			p.CI = fixed(ci, decimals)
		}
		return p
	}
}

// latencyPair formats a mean latency and its confidence half-width in the mean's unit.
func latencyPair(mean, ci float64) meanCI {
	if missing(mean) {
		return meanCI{Mean: noValue}
	}
	scale, unit, d := latencyUnit(mean)
	p := meanCI{Mean: fixed(mean*scale, d) + " " + unit}
	if !missing(ci) {
		p.CI = fixed(ci*scale, d) + " " + unit
	}
	return p
}

// seconds formats a duration exactly, in seconds: "45 s", "0.25 s".
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " s"
}

func simTime(t sim.Time) string { return seconds(time.Duration(t)) }

// SVG inlining.

var (
	svgStart = regexp.MustCompile(`<svg[\s>]`)
	// Anything that would run code or fetch over the network has no place in a
	// self-contained, static report.
	svgScript   = regexp.MustCompile(`(?i)<script|<[^>]*\son[a-z]+\s*=`)
	svgExternal = regexp.MustCompile(`(?i)(href|src)\s*=\s*["']?\s*(https?:|//)|url\(\s*["']?\s*(https?:|//)|@import`)
	svgID       = regexp.MustCompile(`(\sid\s*=\s*["'])([^"']+)(["'])`)
	svgURLRef   = regexp.MustCompile(`url\(\s*#([^)\s]+)\s*\)`)
	svgHrefRef  = regexp.MustCompile(`(href\s*=\s*["'])#([^"']+)(["'])`)
	svgRootTag  = regexp.MustCompile(`^<svg[^>]*>`)
	svgViewBox  = regexp.MustCompile(`\sviewBox\s*=`)
	svgWidth    = regexp.MustCompile(`\swidth\s*=\s*["']([0-9.]+)(px)?["']`)
	svgHeight   = regexp.MustCompile(`\sheight\s*=\s*["']([0-9.]+)(px)?["']`)
)

// loadFigures reads the figures of figureSpecs that exist in dir, in order.
func loadFigures(dir string, m *results.Manifest) ([]figure, error) {
	var out []figure
	for _, f := range figureSpecs() {
		if !m.Has(f.File()) {
			continue // not drawn from this result, whatever file of that name is there
		}
		data, err := os.ReadFile(filepath.Join(dir, f.File()))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
		n := len(out) + 1
		svg, err := inlineSVG(data, "fig"+strconv.Itoa(n)+"-")
		if err != nil {
			return nil, fmt.Errorf("report: %s: %w", filepath.Join(dir, f.File()), err)
		}
		if got := results.MarkedResult(data); got != m.ResultDigest() {
			if got == "" {
				got = "none"
			}
			return nil, fmt.Errorf("report: %s: %w (its mark: %s): draw the figures again with simulate plot %s", filepath.Join(dir, f.File()), ErrStaleFigure, got, dir)
		}
		out = append(out, figure{Number: n, File: f.File(), Caption: f.Caption, SVG: svg})
	}
	return out, nil
}

// inlineSVG turns an SVG file into markup that embeds in HTML: everything before the <svg>
// element (XML declaration, doctype, comments) is dropped; ids, and the url(#…) and href="#…"
// references to them, get prefix, so that figures sharing an id (clip paths, gradients) do not
// capture each other's references; a root element with a width and height in pixels but no
// viewBox gets one, so that CSS can scale it. An SVG with scripts, event handlers or external
// references is refused.
func inlineSVG(data []byte, prefix string) (template.HTML, error) {
	s := string(data)
	loc := svgStart.FindStringIndex(s)
	if loc == nil {
		return "", errors.New("no <svg> element")
	}
	s = strings.TrimSpace(s[loc[0]:])
	if svgScript.MatchString(s) {
		return "", errors.New("contains a script or an event handler; the report embeds static SVG only")
	}
	if svgExternal.MatchString(s) {
		return "", errors.New("refers to an external resource; the report must be self-contained")
	}
	s = svgID.ReplaceAllString(s, "${1}"+prefix+"${2}${3}")
	s = svgURLRef.ReplaceAllString(s, "url(#"+prefix+"${1})")
	s = svgHrefRef.ReplaceAllString(s, "${1}#"+prefix+"${2}${3}")
	if root := svgRootTag.FindString(s); root != "" && !svgViewBox.MatchString(root) {
		w, h := svgWidth.FindStringSubmatch(root), svgHeight.FindStringSubmatch(root)
		if w != nil && h != nil {
			fixedRoot := strings.TrimSuffix(root, ">")
			fixedRoot = strings.TrimSuffix(fixedRoot, "/") // a self-closing, empty <svg/>
			fixedRoot += ` viewBox="0 0 ` + w[1] + " " + h[1] + `"`
			if strings.HasSuffix(root, "/>") {
				fixedRoot += "/"
			}
			s = fixedRoot + ">" + s[len(root):]
		}
	}
	return template.HTML(s), nil // trusted: from the folder's own plotter, and checked above
}

// writeBytes writes data to path with results.WriteFileAtomic.
func writeBytes(path string, data []byte) error {
	return results.WriteFileAtomic(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}
