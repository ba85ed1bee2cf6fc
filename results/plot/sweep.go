package plot

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/overloadsim/overloadsim/results"
)

// SweepFigures are the base names of the figures WriteSweepFigures draws, in order.
var SweepFigures = []string{"sweep-goodput", "sweep-amplification", "sweep-p99"}

// KneeShortfall is results.KneeShortfall: the one rule for a knee, in the figures as in the
// answers.
const KneeShortfall = results.KneeShortfall

// SweepOptions choose how a sweep is drawn.
type SweepOptions struct {
	// X is the parameter on the x axis; "" is the first numeric parameter in the sweep's order
	// (the first parameter when none is numeric). The other parameter, if any, is one line per
	// value.
	X string
}

// WriteSweepFigures draws the figures of the sweep in dir (sweep.json, as
// results.WriteSweepDir writes it) and writes each as NAME.svg and NAME.png into dir. It
// returns the base names written, in the order of SweepFigures.
func WriteSweepFigures(dir string, opts SweepOptions) ([]string, error) {
	figs, err := sweepFigures(dir, opts)
	if err != nil {
		return nil, err
	}
	return writeFigures(dir, figs)
}

// axisKind is how a swept parameter's values read as numbers (results.ValueKind).
type axisKind = results.ValueKind

const (
	axisCategory = results.ValueText // not numbers: one position per value
	axisNumber   = results.ValueNumber
	axisRate     = results.ValueRate     // "1000/s"
	axisDuration = results.ValueDuration // "250ms"
)

// xAxis maps a swept parameter's values to positions on the x axis.
type xAxis struct {
	path   string
	kind   axisKind
	values []string // in order of first appearance
	pos    map[string]float64
	label  string
	ticks  plot.Ticker // nil for nice linear ticks
}

// parseValue reads a parameter value as a number of its kind (results.ParseValue).
func parseValue(s string) (float64, axisKind, bool) { return results.ParseValue(s) }

// newXAxis reads the values of the parameter path. All values of one numeric kind make a
// numeric axis (durations in the unit that suits the largest); anything else is one position
// per value, in order of first appearance.
func newXAxis(path string, values []string) *xAxis {
	a := &xAxis{path: path, values: values, pos: map[string]float64{}}
	kind := axisCategory
	nums := make([]float64, len(values))
	for i, v := range values {
		x, k, ok := parseValue(v)
		if !ok || i > 0 && k != kind {
			kind = axisCategory
			break
		}
		kind, nums[i] = k, x
	}
	a.kind = kind
	if path == "" {
		a.label = "(no swept parameter)"
	}
	switch kind {
	case axisCategory:
		ticks := make(plot.ConstantTicks, len(values))
		for i, v := range values {
			a.pos[v] = float64(i)
			ticks[i] = plot.Tick{Value: float64(i), Label: v}
		}
		a.ticks = ticks
		if path != "" {
			a.label = path
		}
		return a
	case axisRate:
		a.label = path + " (operations/s)"
	case axisDuration:
		unit, k := results.ValueUnit(axisDuration, nums)
		for i := range nums {
			nums[i] *= k
		}
		a.label = path + " (" + unit + ")"
	default:
		a.label = path
	}
	for i, v := range values {
		a.pos[v] = nums[i]
	}
	return a
}

// isLoad reports whether the parameter is a workload's rate, so that x is the offered load.
func (a *xAxis) isLoad() bool {
	return a.kind == axisRate && strings.Contains(a.path, "workload")
}

// categorySlack is the part of a figure's width that is not the x axis: the y axis and its
// label, and the legend beside the plot.
const categorySlack = 3.5 * vg.Inch

// apply labels p's x axis and sets its range to cover every value, whether or not a metric
// has a value there.
func (a *xAxis) apply(p *plot.Plot) {
	p.X.Label.Text = a.label
	if a.ticks != nil {
		p.X.Tick.Marker = a.ticks
		p.X.Min, p.X.Max = -0.5, float64(len(a.values))-0.5
		// Category names wider than their share of the axis would run into each other:
		// slant them so that each ends under its own category.
		slot := (figWidth - categorySlack) / vg.Length(len(a.values))
		for _, v := range a.values {
			if p.X.Tick.Label.Width(v) > 0.9*slot {
				p.X.Tick.Label.Rotation = math.Pi / 6
				p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YTop
				break
			}
		}
		return
	}
	for _, v := range a.values {
		p.X.Min, p.X.Max = math.Min(p.X.Min, a.pos[v]), math.Max(p.X.Max, a.pos[v])
	}
}

// sweepLine is one line of a sweep figure: the points of one value of the second parameter,
// or one group (or all of them), sorted by x.
type sweepLine struct {
	name   string
	prefix string // metric prefix: "total." or "group.NAME."
	pts    []*results.PointStats
	xs     []float64
}

func (l *sweepLine) metric(name string) (mean, lo, hi []float64) {
	for _, p := range l.pts {
		m, ok := p.Metric(l.prefix + name)
		if !ok {
			m = results.MetricStats{Mean: math.NaN(), CI95: math.NaN()}
		}
		mean = append(mean, m.Mean)
		ci := m.CI95
		if math.IsNaN(ci) {
			ci = 0 // one replication: no band, the line alone
		}
		lo, hi = append(lo, m.Mean-ci), append(hi, m.Mean+ci)
	}
	return
}

// sweep is what the sweep figures read from a sweep folder.
type sweep struct {
	hdr     results.Header
	ctx     *results.LoadContext  // a load sweep's context, nil otherwise
	answers []results.LoadAnswers // a load sweep's answers, by line
	pts     []results.PointStats
	x       *xAxis
	by      string // the second parameter's path, "" if none
	lines   []*sweepLine
}

func param(p *results.PointStats, path string) string {
	for _, pr := range p.Params {
		if pr.Path == path {
			return pr.Value
		}
	}
	return ""
}

func readSweep(dir string, opts SweepOptions) (*sweep, error) {
	b, err := results.LoadBaseline(filepath.Join(dir, results.SweepFile))
	if err != nil {
		return nil, fmt.Errorf("plot: %w", err)
	}
	pts := b.Points
	if len(pts) == 0 {
		return nil, fmt.Errorf("plot: %s: the sweep has no points", dir)
	}
	s := &sweep{hdr: b.Header, pts: pts, ctx: b.Context, answers: b.Answers}
	var paths []string
	for _, p := range pts {
		for _, pr := range p.Params {
			if !slices.Contains(paths, pr.Path) {
				paths = append(paths, pr.Path)
			}
		}
	}
	valuesOf := func(path string) []string {
		var vs []string
		for i := range pts {
			if v := param(&pts[i], path); !slices.Contains(vs, v) {
				vs = append(vs, v)
			}
		}
		return vs
	}
	xPath := ""
	switch {
	case opts.X != "":
		if !slices.Contains(paths, opts.X) {
			return nil, fmt.Errorf("plot: --x %s: not a parameter of the sweep in %s (its parameters: %s)", opts.X, dir, strings.Join(paths, ", "))
		}
		xPath = opts.X
	case len(paths) > 0:
		// The first numeric parameter, so that a categorical one (a policy, a mode) becomes
		// the lines, never a dodge of many lines within a category.
		xPath = paths[0]
		for _, p := range paths {
			if _, _, _, ok := results.ParseValues(valuesOf(p)); ok {
				xPath = p
				break
			}
		}
	}
	for _, p := range paths {
		if p != xPath {
			s.by = p
		}
	}
	s.x = newXAxis(xPath, valuesOf(xPath))

	newLine := func(name, prefix string, keep func(*results.PointStats) bool) *sweepLine {
		l := &sweepLine{name: name, prefix: prefix}
		for i := range pts {
			if keep(&pts[i]) {
				l.pts = append(l.pts, &pts[i])
			}
		}
		slices.SortStableFunc(l.pts, func(a, b *results.PointStats) int {
			return cmp.Compare(s.x.pos[param(a, xPath)], s.x.pos[param(b, xPath)])
		})
		for _, p := range l.pts {
			l.xs = append(l.xs, s.x.pos[param(p, xPath)])
		}
		return l
	}
	if s.by != "" {
		var values []string
		for i := range pts {
			if v := param(&pts[i], s.by); !slices.Contains(values, v) {
				values = append(values, v)
			}
		}
		for _, v := range values {
			s.lines = append(s.lines, newLine(v, "total.", func(p *results.PointStats) bool { return param(p, s.by) == v }))
		}
		return s, nil
	}
	all := func(*results.PointStats) bool { return true }
	groups := s.groups()
	if len(groups) <= 1 {
		s.lines = []*sweepLine{newLine("all groups", "total.", all)}
		if len(groups) == 1 {
			s.lines[0].name = groups[0]
		}
		return s, nil
	}
	s.lines = append(s.lines, newLine("all groups", "total.", all))
	for _, g := range groups {
		s.lines = append(s.lines, newLine(g, "group."+g+".", all))
	}
	return s, nil
}

// groups returns the client groups of the sweep, from its metric names, in order.
func (s *sweep) groups() []string {
	var out []string
	for _, m := range s.pts[0].Metrics {
		if name, ok := strings.CutPrefix(m.Name, "group."); ok {
			if g, ok := strings.CutSuffix(name, ".goodput"); ok {
				out = append(out, g)
			}
		}
	}
	return out
}

func (s *sweep) subtitle() string {
	reps := s.pts[0].Replications
	if reps == 1 {
		return fmt.Sprintf("scenario %s · %d points × 1 replication (no confidence intervals)", s.hdr.Scenario, len(s.pts))
	}
	what := "lines: mean; bands: 95 % confidence interval (Student t)"
	if s.x.kind == axisCategory {
		what = "points: mean; bars: 95 % confidence interval (Student t)"
	}
	return fmt.Sprintf("scenario %s · %d points × %d replications · %s", s.hdr.Scenario, len(s.pts), reps, what)
}

// panelTitle names what the lines are: the second parameter's values, or the client groups.
func (s *sweep) panelTitle() string {
	switch {
	case s.by != "":
		return "one line per value of " + s.by + " (all groups)"
	case len(s.lines) > 1:
		return "all client groups and each group"
	}
	return ""
}

// versus is the x part of a title: "offered load" or the parameter.
func (s *sweep) versus() string {
	switch {
	case s.x.isLoad():
		return "offered load"
	case s.x.path == "":
		return "the single point"
	}
	return s.x.path
}

func (s *sweep) lineColour(i int) (sty draw.LineStyle, fill draw.LineStyle) {
	col := paletteColour(i)
	if s.by == "" && len(s.lines) > 1 {
		// All groups in black, then each group in its colour of the run figures.
		col = totalColour
		if i > 0 {
			col = paletteColour(i - 1)
		}
	}
	alpha := uint8(0x38)
	if col == totalColour {
		alpha = 0x22
	}
	return lineStyle(col, medium, nil), lineStyle(withAlpha(col, alpha), 0, nil)
}

// addLines draws every line's mean of metric, scaled by k (and as log10 on a log axis), with
// its confidence band: a line and a band over a numeric x, glyphs with whiskers, side by side,
// over categories. The x positions where a line has no value are marked along the bottom.
func (s *sweep) addLines(pn *panel, metric string, k float64, logY bool, absentText string) {
	var absent []float64
	for i, l := range s.lines {
		sty, fill := s.lineColour(i)
		mean, lo, hi := l.metric(metric)
		mean, lo, hi = scaled(mean, k), scaled(lo, k), scaled(hi, k)
		for j, m := range mean {
			if !valid(m) && !slices.Contains(absent, l.xs[j]) {
				absent = append(absent, l.xs[j])
			}
		}
		if logY {
			for j := range lo {
				if !(lo[j] > 0) && mean[j] > 0 {
					lo[j] = mean[j] * 1e-6 // the band runs off the bottom of the axis
				}
			}
			mean, lo, hi = logValues(mean), logValues(lo), logValues(hi)
		}
		g := s.glyph(i, sty.Color)
		if s.x.kind == axisCategory {
			xs := make([]float64, len(l.xs))
			for j, x := range l.xs {
				xs[j] = x + s.dodge(i)
			}
			w := &whiskers{xs: xs, ys: mean, lo: lo, hi: hi, style: sty, glyph: g}
			pn.p.Add(w)
			pn.key(s.lineName(i), w)
			continue
		}
		b := &band{xs: l.xs, lo: lo, hi: hi, fill: fill.Color}
		ln := &line{xs: l.xs, ys: mean, style: sty, glyph: &g}
		pn.p.Add(b, ln)
		pn.key(s.lineName(i), b, ln)
	}
	if len(absent) > 0 {
		m := &missing{xs: absent, glyph: draw.GlyphStyle{Color: totalColour, Radius: vg.Points(5), Shape: draw.CrossGlyph{}}}
		pn.p.Add(m)
		pn.key(absentText, m)
	}
}

// glyph is line i's point marker: a shape of its own, and smaller than the lines' before it,
// drawn on top of them, so that lines that coincide (policies that all reach the same plateau)
// show as nested markers in every colour rather than as the last line alone.
func (s *sweep) glyph(i int, c color.Color) draw.GlyphStyle {
	// No ring: a ring marks a knee.
	shapes := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.CrossGlyph{}}
	r := 3.5
	if n := len(s.lines); n > 1 {
		r = 5.5 - 2.5*float64(i)/float64(n-1)
	}
	return draw.GlyphStyle{Color: c, Radius: vg.Points(r), Shape: shapes[i%len(shapes)]}
}

// dodge is the x offset of line i over categories, so that the lines' points stand side by
// side.
func (s *sweep) dodge(i int) float64 {
	step := math.Min(0.12, maxDodge/float64(max(len(s.lines)-1, 1)))
	return float64(step * (float64(i) - float64(float64(len(s.lines)-1)/2)))
}

// maxDodge is how far apart the outermost lines' points stand within a category (categories
// are 1 apart), however many lines there are: the points of one category never reach the next.
const maxDodge = 0.6

func sweepFigures(dir string, opts SweepOptions) ([]*figure, error) {
	s, err := readSweep(dir, opts)
	if err != nil {
		return nil, err
	}
	return []*figure{s.goodputFigure(), s.amplificationFigure(), s.p99Figure()}, nil
}

// goodputFigure: goodput against the first parameter, with the ideal min(offered, capacity)
// and each line's knee.
func (s *sweep) goodputFigure() *figure {
	f := &figure{name: "sweep-goodput", title: "Goodput vs " + s.versus(), subtitle: s.subtitle()}
	pn := newPanel(s.panelTitle(), "", "goodput (operations/s)")
	s.x.apply(pn.p)
	pn.p.Y.Min = 0

	// The capacity is the configured ceiling when the sweep knows it, else the plateau: the
	// highest mean goodput of all groups at any point.
	capacity, capLabel := math.Inf(-1), ""
	for i := range s.pts {
		if m, ok := s.pts[i].Metric("total.goodput"); ok && !math.IsNaN(m.Mean) {
			capacity = math.Max(capacity, m.Mean)
		}
	}
	capLabel = "ideal: min(offered, highest goodput " + strconv.FormatFloat(capacity, 'f', 0, 64) + "/s)"
	if s.ctx != nil && s.ctx.Ceiling > 0 {
		capacity = s.ctx.Ceiling
		capLabel = "ideal: min(offered, configured ceiling " + strconv.FormatFloat(capacity, 'f', 0, 64) + "/s)"
	}
	s.addLines(pn, "goodput", 1, false, "no value")
	if s.ctx != nil && len(s.ctx.Ceilings) > 0 {
		// The sweep varies the ceiling: each line its own ideal, in its colour.
		for i, a := range s.answers {
			if i >= len(s.lines) || a.Ceiling <= 0 {
				continue
			}
			sty, _ := s.lineColour(i)
			if ix, iy := s.ideal(a.Ceiling); len(ix) > 0 && s.x.kind != axisCategory {
				id := &line{xs: ix, ys: iy, style: lineStyle(sty.Color, thin, dashed)}
				pn.p.Add(id)
				if i == 0 {
					pn.key("ideal: min(offered, each line's configured ceiling)", &line{style: lineStyle(totalColour, thin, dashed)})
				}
			}
		}
		capLabel = ""
	}
	if ix, iy := s.ideal(capacity); len(ix) > 0 && capLabel != "" {
		var id interface {
			plot.Plotter
			plot.Thumbnailer
		} = &line{xs: ix, ys: iy, style: lineStyle(totalColour, thin, dashed)}
		if s.x.kind == axisCategory {
			id = &levels{xs: ix, ys: iy, halfWidth: 0.3, style: lineStyle(totalColour, thin, dashed)}
		}
		pn.p.Add(id)
		pn.key(capLabel, id)
	}

	knee := false
	for i, l := range s.lines {
		if s.oneLoadLine() {
			break // the knee is a vertical line (loadMarks)
		}
		good, _, _ := l.metric("goodput")
		offered, _, _ := l.metric("offered")
		for j := range good {
			if good[j] < (1-KneeShortfall)*offered[j] {
				sty, _ := s.lineColour(i)
				x := l.xs[j]
				if s.x.kind == axisCategory {
					x += s.dodge(i)
				}
				// A ring in the line's colour, without a text label: many lines' labels would
				// pile up at the same load; the key says what the ring is.
				k := &markers{xs: []float64{x}, ys: []float64{good[j]},
					glyph: draw.GlyphStyle{Color: sty.Color, Radius: vg.Points(7), Shape: draw.RingGlyph{}}}
				pn.p.Add(k)
				knee = true
				break
			}
		}
	}
	if knee {
		pn.key("knee: goodput < 95 % of offered", &markers{glyph: draw.GlyphStyle{Color: totalColour, Radius: vg.Points(5), Shape: draw.RingGlyph{}}})
	}
	s.loadMarks(pn, false, false, 1)
	f.rows = [][]*panel{{pn}}
	return f
}

// Styles of the load sweep's markers.
var (
	todayStyle       = lineStyle(totalColour, thin, dotted)
	kneeStyle        = lineStyle(faultEdge, thin, dashed)
	latencyKneeStyle = lineStyle(metricRejections, thin, dashed)
)

// loadMarks marks a load sweep's answers on a panel whose x is the offered load: today's load
// (with the headroom) and, for a sweep of one line, the knee and the latency knee as vertical
// lines; with several lines, each line's knee and headroom go into its key instead. latency
// also draws the latency knee's threshold, on the p99 panel (latencies scaled by k, as log10
// when logY).
func (s *sweep) loadMarks(pn *panel, latency, logY bool, k float64) {
	if s.ctx == nil || len(s.answers) == 0 || !s.x.isLoad() {
		return
	}
	v := &vlines{}
	if s.ctx.Today > 0 {
		label := fmt.Sprintf("today %.0f/s", s.ctx.Today)
		if len(s.answers) == 1 && s.answers[0].Headroom > 0 {
			label += fmt.Sprintf(" · headroom %.2f×", s.answers[0].Headroom)
		}
		v.marks = append(v.marks, vmark{x: s.ctx.Today, label: label, style: todayStyle})
		pn.key("today's load (the scenario as configured)", vlineKey{todayStyle})
	}
	if s.oneLoadLine() {
		a := s.answers[0]
		if a.KneeFound {
			v.marks = append(v.marks, vmark{x: a.Knee, label: fmt.Sprintf("knee %.0f/s", a.Knee), style: kneeStyle})
			pn.key("knee: first load served < 95 %", vlineKey{kneeStyle})
		}
		if a.LatencyFound {
			v.marks = append(v.marks, vmark{x: a.LatencyKnee, label: fmt.Sprintf("latency knee %.0f/s", a.LatencyKnee), style: latencyKneeStyle})
			pn.key("latency knee: "+a.LatencyRule, vlineKey{latencyKneeStyle})
		}
	}
	pn.p.Add(v)
	if latency && len(s.answers) == 1 {
		limit := s.ctx.SLO
		if limit <= 0 {
			if l, ok := s.lowestLoadP99(); ok {
				limit = results.DefaultLatencyFactor * l
			}
		}
		if limit > 0 {
			y := limit * k
			if logY {
				y = math.Log10(y)
			}
			h := &hline{y: y, style: lineStyle(metricRejections, thin, dotted)}
			pn.p.Add(h)
			pn.key(fmt.Sprintf("latency knee threshold %.0f %s", limit*k, unitOf(pn.p.Y.Label.Text)), h)
		}
	}
}

// unitOf returns the unit in a label such as "p99 latency (ms, log scale)": "ms".
func unitOf(label string) string {
	_, rest, ok := strings.Cut(label, "(")
	if !ok {
		return ""
	}
	unit, _, _ := strings.Cut(strings.TrimSuffix(rest, ")"), ",")
	return unit
}

// oneLoadLine reports whether the sweep is a load sweep of one line with its answers, whose
// knees loadMarks draws as vertical lines.
func (s *sweep) oneLoadLine() bool {
	return s.ctx != nil && len(s.answers) == 1 && s.x.isLoad()
}

// lowestLoadP99 is the mean p99 latency of successes at the lowest offered load.
func (s *sweep) lowestLoadP99() (float64, bool) {
	best, p99 := math.Inf(1), math.NaN()
	for i := range s.pts {
		o, ok1 := s.pts[i].Metric("total.offered")
		l, ok2 := s.pts[i].Metric("total.latency_ok_p99")
		if ok1 && ok2 && !math.IsNaN(l.Mean) && o.Mean < best {
			best, p99 = o.Mean, l.Mean
		}
	}
	return p99, !math.IsNaN(p99)
}

// lineName is line i's name in the keys: for a load sweep of several lines, with its knee and
// headroom.
func (s *sweep) lineName(i int) string {
	l := s.lines[i]
	if s.by == "" || s.ctx == nil || !s.x.isLoad() {
		return l.name
	}
	for _, a := range s.answers {
		if a.Line != l.name {
			continue
		}
		switch {
		case !a.KneeFound:
			return l.name + " (no knee)"
		case a.Headroom > 0:
			return fmt.Sprintf("%s (knee %.0f/s, %.2f×)", l.name, a.Knee, a.Headroom)
		default:
			return fmt.Sprintf("%s (knee %.0f/s)", l.name, a.Knee)
		}
	}
	return l.name
}

// ideal returns the ideal goodput line min(offered, capacity) over the x positions, offered
// being the mean total offered load of the points there, with the corner where offered
// crosses capacity put in between two points (by linear interpolation in x).
func (s *sweep) ideal(capacity float64) (xs, ys []float64) {
	if math.IsInf(capacity, -1) {
		return nil, nil
	}
	type pt struct{ x, offered float64 }
	var pts []pt
	for _, v := range s.x.values {
		var sum float64
		var n int
		for i := range s.pts {
			if param(&s.pts[i], s.x.path) != v {
				continue
			}
			if m, ok := s.pts[i].Metric("total.offered"); ok && !math.IsNaN(m.Mean) {
				sum += m.Mean
				n++
			}
		}
		if n > 0 {
			pts = append(pts, pt{s.x.pos[v], sum / float64(n)})
		}
	}
	slices.SortStableFunc(pts, func(a, b pt) int { return cmp.Compare(a.x, b.x) })
	for i, p := range pts {
		if i > 0 {
			q := pts[i-1]
			if s.x.kind != axisCategory && (q.offered-capacity)*(p.offered-capacity) < 0 {
				t := (capacity - q.offered) / (p.offered - q.offered)
				xs, ys = append(xs, q.x+float64(t*(p.x-q.x))), append(ys, capacity)
			}
		}
		xs, ys = append(xs, p.x), append(ys, math.Min(p.offered, capacity))
	}
	return xs, ys
}

// amplificationFigure: retry amplification against the first parameter.
func (s *sweep) amplificationFigure() *figure {
	f := &figure{name: "sweep-amplification", title: "Retry amplification vs " + s.versus(), subtitle: s.subtitle()}
	pn := newPanel(s.panelTitle(), "", "attempts per operation")
	s.x.apply(pn.p)
	pn.p.Y.Min = 0
	ref := &hline{y: 1, style: lineStyle(refColour, thin, dotted)}
	pn.p.Add(ref)
	s.addLines(pn, "amplification", 1, false, "no value: nothing issued")
	pn.key("1 = no retries", ref)
	f.rows = [][]*panel{{pn}}
	return f
}

// p99Figure: the p99 latency of successful operations against the first parameter.
func (s *sweep) p99Figure() *figure {
	f := &figure{name: "sweep-p99", title: "p99 latency of successful operations vs " + s.versus(), subtitle: s.subtitle()}
	var all [][]float64
	for _, l := range s.lines {
		mean, lo, hi := l.metric("latency_ok_p99")
		all = append(all, mean, lo, hi)
	}
	useLog, lo, hi := logRange(all...)
	unit, k := latencyUnit(hi)
	pn := newPanel(s.panelTitle(), "", "p99 latency ("+unit+")")
	s.x.apply(pn.p)
	switch {
	case math.IsNaN(lo):
		pn.empty("no successful operations")
	case useLog:
		logAxis(pn.p, lo*k, hi*k)
		pn.p.Y.Label.Text = "p99 latency (" + unit + ", log scale)"
	default:
		pn.p.Y.Min = 0
	}
	s.addLines(pn, "latency_ok_p99", k, useLog, "no value: no operation succeeded")
	s.loadMarks(pn, true, useLog, k)
	f.rows = [][]*panel{{pn}}
	return f
}
