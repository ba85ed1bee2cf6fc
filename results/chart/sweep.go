package chart

import (
	"cmp"
	"fmt"
	"image/color"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/sweep"
)

// SweepOptions choose how a sweep is drawn.
type SweepOptions struct {
	// X is the parameter on the x axis; "" is the first numeric parameter in the sweep's order
	// (the first parameter when none is numeric). The other parameter, if any, is one line per
	// value.
	X string
	// Labels are the short names given to parameters (--label PATH=NAME), over the automatic
	// ones (ParamLabel).
	Labels map[string]string
}

// XAxis maps a swept parameter's values to positions on the x axis.
type XAxis struct {
	Path   string
	Kind   results.ValueKind // results.ValueText: not numbers, one position per value
	Values []string          // in order of first appearance
	Pos    map[string]float64
	Label  string
	// Offered says that the positions are the total offered load at each value (OnOffered),
	// not the values themselves: a load sweep's axis, on which its marks are drawn.
	Offered bool
}

// NewXAxis reads the values of the parameter path. All values of one numeric kind make a
// numeric axis (durations in the unit that suits the largest); anything else is one position
// per value, in order of first appearance.
func NewXAxis(path string, values []string) *XAxis {
	a := &XAxis{Path: path, Values: values, Pos: map[string]float64{}}
	kind := results.ValueText
	nums := make([]float64, len(values))
	for i, v := range values {
		x, k, ok := results.ParseValue(v)
		if !ok || i > 0 && k != kind {
			kind = results.ValueText
			break
		}
		kind, nums[i] = k, x
	}
	a.Kind = kind
	if path == "" {
		a.Label = "(no swept parameter)"
	}
	switch kind {
	case results.ValueText:
		for i, v := range values {
			a.Pos[v] = float64(i)
		}
		if path != "" {
			a.Label = path
		}
		return a
	case results.ValueRate:
		a.Label = path + " (operations/s)"
	case results.ValueDuration:
		unit, k := results.ValueUnit(results.ValueDuration, nums)
		for i := range nums {
			nums[i] *= k
		}
		a.Label = path + " (" + unit + ")"
	default:
		a.Label = path
	}
	for i, v := range values {
		a.Pos[v] = nums[i]
	}
	return a
}

// Categorical reports whether the axis is one position per value rather than numbers.
func (a *XAxis) Categorical() bool { return a.Kind == results.ValueText }

// IsLoad reports whether the axis is the total offered load (OnOffered): the parameter is a
// workload's rate or the load factor (sweep.IsLoadPath), and each value's position is the
// offered load of all groups measured there, so that a load sweep's answers and marks, which
// are in total offered load, sit where they belong.
func (a *XAxis) IsLoad() bool { return a.Offered }

// OnOffered puts a load parameter's values (sweep.IsLoadPath) at the total offered load of
// all groups measured at each: the mean over the points of that value of total.offered, the
// mean over their replications. Each line's points then stand at their own total offered load
// (SweepLine.X), which differs from the value's mean when the lines are another load. A sweep of one group's rate, where the other groups offer
// their own load, or of the load factor is then drawn in the same operations/s as its answers
// (sweep.LoadAnswers: the knee, the safe load) and today's load. The axis is unchanged, and
// not a load axis, when the parameter is no load or a value has no offered load.
func (a *XAxis) OnOffered(points []sweep.PointStats, name string) {
	if !sweep.IsLoadPath(a.Path, a.Values) {
		return
	}
	pos := map[string]float64{}
	for _, v := range a.Values {
		var sum float64
		var n int
		for i := range points {
			if param(&points[i], a.Path) != v {
				continue
			}
			m, ok := points[i].Metric("total.offered")
			if !ok || math.IsNaN(m.Mean) {
				return
			}
			sum += m.Mean
			n++
		}
		if n == 0 {
			return
		}
		pos[v] = sum / float64(n)
	}
	a.Pos, a.Kind, a.Offered = pos, results.ValueRate, true
	a.Label = "total offered load, all groups (operations/s) · swept: " + name
}

// SweepLine is one line of a sweep figure: the points of one value of the second parameter,
// or one group (or all of them), sorted by x.
type SweepLine struct {
	Name   string // the value of the second parameter, or the group
	Label  string // its name in the keys: the value named by what differs (ValueNames)
	Prefix string // metric prefix: "total." or "group.NAME."
	Points []*sweep.PointStats
	X      []float64
}

// Metric returns the line's mean of the metric name at each point and its 95 % confidence
// band; with one replication the band is the mean alone.
func (l *SweepLine) Metric(name string) (mean, lo, hi []float64) {
	for _, p := range l.Points {
		m, ok := p.Metric(l.Prefix + name)
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

// Sweep is what the sweep figures show of a sweep folder: its x axis, its lines, and a load
// sweep's context and answers.
type Sweep struct {
	Header  results.Header
	Context *sweep.LoadContext  // a load sweep's context, nil otherwise
	Answers []sweep.LoadAnswers // a load sweep's answers, by line
	// Decision is the sweep's policy decision (sweep.Decide), nil when it varies no policy.
	Decision *sweep.Decision
	Points   []sweep.PointStats
	X        *XAxis
	By       string // the second parameter's path, "" if none
	Lines    []*SweepLine
	// Info and Labels name the parameters (Label): the scenario's groups, nodes and faults,
	// and the names given (SweepOptions.Labels).
	Info   ParamInfo
	Labels map[string]string
}

// Label is the short name of a parameter of the sweep (ParamLabel).
func (s *Sweep) Label(path string) string { return ParamLabel(path, s.Info, s.Labels) }

func param(p *sweep.PointStats, path string) string {
	for _, pr := range p.Params {
		if pr.Path == path {
			return pr.Value
		}
	}
	return ""
}

// ReadSweep reads the sweep in dir (sweep.json, as sweep.WriteSweepDir writes it) and
// arranges it into lines over the x axis.
func ReadSweep(dir string, opts SweepOptions) (*Sweep, error) {
	b, err := sweep.LoadBaseline(filepath.Join(dir, results.SweepFile))
	if err != nil {
		return nil, fmt.Errorf("plot: %w", err)
	}
	pts := b.Points
	if len(pts) == 0 {
		return nil, fmt.Errorf("plot: %s: the sweep has no points", dir)
	}
	s := &Sweep{Header: b.Header, Points: pts, Context: b.Context, Answers: b.Answers, Decision: b.Decision,
		Info: ParamInfoOf(b.Header.Canonical), Labels: opts.Labels}
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
	for _, path := range slices.Sorted(maps.Keys(opts.Labels)) {
		if !slices.Contains(paths, path) {
			return nil, fmt.Errorf("plot: --label %s=%s: not a parameter of the sweep in %s (its parameters: %s)", path, opts.Labels[path], dir, strings.Join(paths, ", "))
		}
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
			s.By = p
		}
	}
	s.X = NewXAxis(xPath, valuesOf(xPath))
	if xPath != "" && s.X.Label != "" {
		s.X.Label = s.Label(xPath) + strings.TrimPrefix(s.X.Label, xPath)
	}
	s.X.OnOffered(pts, s.Label(xPath))

	newLine := func(name, prefix string, keep func(*sweep.PointStats) bool) *SweepLine {
		l := &SweepLine{Name: name, Label: name, Prefix: prefix}
		for i := range pts {
			if keep(&pts[i]) {
				l.Points = append(l.Points, &pts[i])
			}
		}
		slices.SortStableFunc(l.Points, func(a, b *sweep.PointStats) int {
			return cmp.Compare(s.X.Pos[param(a, xPath)], s.X.Pos[param(b, xPath)])
		})
		for _, p := range l.Points {
			x := s.X.Pos[param(p, xPath)]
			if m, ok := p.Metric("total.offered"); ok && s.X.IsLoad() {
				// The point's own offered load: lines by another load (a second group's rate)
				// are offered different totals at one swept value.
				x = m.Mean
			}
			l.X = append(l.X, x)
		}
		return l
	}
	if s.By != "" {
		var values []string
		for i := range pts {
			if v := param(&pts[i], s.By); !slices.Contains(values, v) {
				values = append(values, v)
			}
		}
		names := ValueNames(values)
		for i, v := range values {
			s.Lines = append(s.Lines, newLine(v, "total.", func(p *sweep.PointStats) bool { return param(p, s.By) == v }))
			s.Lines[i].Label = names[i]
		}
		return s, nil
	}
	all := func(*sweep.PointStats) bool { return true }
	groups := s.groups()
	if len(groups) <= 1 {
		s.Lines = []*SweepLine{newLine("all groups", "total.", all)}
		if len(groups) == 1 {
			s.Lines[0].Name, s.Lines[0].Label = groups[0], groups[0]
		}
		return s, nil
	}
	s.Lines = append(s.Lines, newLine("all groups", "total.", all))
	for _, g := range groups {
		s.Lines = append(s.Lines, newLine(g, "group."+g+".", all))
	}
	return s, nil
}

// groups returns the client groups of the sweep, from its metric names, in order.
func (s *Sweep) groups() []string {
	var out []string
	for _, m := range s.Points[0].Metrics {
		if name, ok := strings.CutPrefix(m.Name, "group."); ok {
			if g, ok := strings.CutSuffix(name, ".goodput"); ok {
				out = append(out, g)
			}
		}
	}
	return out
}

// Subtitle says what the figure shows: the scenario, the points and replications, and what
// the lines and bands are.
func (s *Sweep) Subtitle() string {
	reps := s.Points[0].Replications
	if reps == 1 {
		return fmt.Sprintf("scenario %s · %d points × 1 replication (no confidence intervals)", s.Header.Scenario, len(s.Points))
	}
	what := "lines: mean; bands: 95 % confidence interval (Student t)"
	if s.X.Categorical() {
		what = "points: mean; bars: 95 % confidence interval (Student t)"
	}
	return fmt.Sprintf("scenario %s · %d points × %d replications · %s", s.Header.Scenario, len(s.Points), reps, what)
}

// PanelTitle names what the lines are: the second parameter's values, or the client groups.
func (s *Sweep) PanelTitle() string {
	switch {
	case s.By != "":
		return "one line per value of " + s.Label(s.By) + " (all groups)"
	case len(s.Lines) > 1:
		return "all client groups and each group"
	}
	return ""
}

// Versus is the x part of a title: "offered load" or the parameter.
func (s *Sweep) Versus() string {
	switch {
	case s.X.IsLoad():
		return "offered load"
	case s.X.Path == "":
		return "the single point"
	}
	return s.Label(s.X.Path)
}

// LineColour is line i's colour, and its band's fill: the palette in order; with the groups
// as lines, all groups in black, then each group in its colour of the run figures.
func (s *Sweep) LineColour(i int) (line, fill color.NRGBA) {
	col := PaletteColour(i)
	if s.By == "" && len(s.Lines) > 1 {
		col = Total
		if i > 0 {
			col = PaletteColour(i - 1)
		}
	}
	alpha := uint8(0x38)
	if col == Total {
		alpha = 0x22
	}
	return col, WithAlpha(col, alpha)
}

// Dodge is the x offset of line i over categories, so that the lines' points stand side by
// side.
func (s *Sweep) Dodge(i int) float64 {
	step := math.Min(0.12, maxDodge/float64(max(len(s.Lines)-1, 1)))
	return float64(step * (float64(i) - float64(float64(len(s.Lines)-1)/2)))
}

// maxDodge is how far apart the outermost lines' points stand within a category (categories
// are 1 apart), however many lines there are: the points of one category never reach the next.
const maxDodge = 0.6

// OneLoadLine reports whether the sweep is a load sweep of one line with its answers, whose
// knee and latency knee are drawn as vertical lines at the answers' loads rather than ringed
// on the line (Knees).
func (s *Sweep) OneLoadLine() bool {
	return s.Context != nil && len(s.Answers) == 1 && s.X.IsLoad()
}

// Knee is the knee of one line of a sweep: the point where its goodput first falls more than
// sweep.KneeShortfall short of its offered load.
type Knee struct {
	Line int     // the line's index
	X, Y float64 // the point's x position (dodged over categories) and its mean goodput
}

// Knees returns each line's knee, for the goodput figure to ring on its line; none for a
// sweep of one load line (OneLoadLine). A load sweep's lines are
// answered (sweep.SweepAnswers): their knees are the answers', never found again. Any other
// sweep's lines (another parameter on x, or a sweep.json without answers) have none in the
// answers, and their knee is the first point in x order that the rule of sweep.KneeShortfall
// picks.
func (s *Sweep) Knees() []Knee {
	if s.OneLoadLine() {
		return nil
	}
	var out []Knee
	for i, l := range s.Lines {
		good, _, _ := l.Metric("goodput")
		offered, _, _ := l.Metric("offered")
		j := -1
		if a, ok := s.answer(l); ok {
			if a.KneeFound {
				j = slices.Index(offered, a.Knee)
			}
		} else {
			for k := range good {
				if good[k] < (1-sweep.KneeShortfall)*offered[k] {
					j = k
					break
				}
			}
		}
		if j < 0 {
			continue
		}
		x := l.X[j]
		if s.X.Categorical() {
			x += s.Dodge(i)
		}
		out = append(out, Knee{Line: i, X: x, Y: good[j]})
	}
	return out
}

// answer returns the answers of line l: a line of a load sweep drawn over the offered load,
// one per value of the other parameter (sweep.SweepAnswers). When both parameters are
// workloads' rates the answers may be by either, so no line is taken for answered.
func (s *Sweep) answer(l *SweepLine) (sweep.LoadAnswers, bool) {
	if s.Context == nil || s.By == "" || !s.X.IsLoad() {
		return sweep.LoadAnswers{}, false
	}
	var byValues []string
	for _, line := range s.Lines {
		byValues = append(byValues, line.Name)
	}
	if sweep.IsLoadPath(s.By, byValues) {
		return sweep.LoadAnswers{}, false
	}
	for _, a := range s.Answers {
		if a.Line == l.Name {
			return a, true
		}
	}
	return sweep.LoadAnswers{}, false
}

// LineName is line i's name in the keys: for a load sweep of several lines, with its knee and
// headroom (the safe load ÷ today, sweep.LoadAnswers.Headroom).
func (s *Sweep) LineName(i int) string {
	l := s.Lines[i]
	if s.By == "" || s.Context == nil || !s.X.IsLoad() {
		return l.Label
	}
	for _, a := range s.Answers {
		if a.Line != l.Name {
			continue
		}
		switch {
		case !a.KneeFound:
			return l.Label + " (no knee)"
		case a.Headroom > 0:
			return fmt.Sprintf("%s (knee %.0f/s, safe to %.2f×)", l.Label, a.Knee, a.Headroom)
		default:
			return fmt.Sprintf("%s (knee %.0f/s)", l.Label, a.Knee)
		}
	}
	return l.Label
}

// LowestLoadP99 is the mean p99 latency of successes at the lowest offered load.
func (s *Sweep) LowestLoadP99() (float64, bool) {
	best, p99 := math.Inf(1), math.NaN()
	for i := range s.Points {
		o, ok1 := s.Points[i].Metric("total.offered")
		l, ok2 := s.Points[i].Metric("total.latency_ok_p99")
		if ok1 && ok2 && !math.IsNaN(l.Mean) && o.Mean < best {
			best, p99 = o.Mean, l.Mean
		}
	}
	return p99, !math.IsNaN(p99)
}

// Ideal returns the ideal goodput line min(offered, capacity) over the x positions, offered
// being the mean total offered load of the points there, with the corner where offered
// crosses capacity put in between two points (by linear interpolation in x).
func (s *Sweep) Ideal(capacity float64) (xs, ys []float64) {
	if math.IsInf(capacity, -1) {
		return nil, nil
	}
	type pt struct{ x, offered float64 }
	var pts []pt
	for _, v := range s.X.Values {
		var sum float64
		var n int
		for i := range s.Points {
			if param(&s.Points[i], s.X.Path) != v {
				continue
			}
			if m, ok := s.Points[i].Metric("total.offered"); ok && !math.IsNaN(m.Mean) {
				sum += m.Mean
				n++
			}
		}
		if n > 0 {
			pts = append(pts, pt{s.X.Pos[v], sum / float64(n)})
		}
	}
	slices.SortStableFunc(pts, func(a, b pt) int { return cmp.Compare(a.x, b.x) })
	for i, p := range pts {
		if i > 0 {
			q := pts[i-1]
			if !s.X.Categorical() && (q.offered-capacity)*(p.offered-capacity) < 0 {
				t := (capacity - q.offered) / (p.offered - q.offered)
				xs, ys = append(xs, q.x+float64(t*(p.x-q.x))), append(ys, capacity)
			}
		}
		xs, ys = append(xs, p.x), append(ys, math.Min(p.offered, capacity))
	}
	return xs, ys
}

// Ideal is the ideal goodput of a sweep's goodput figure, min(offered, capacity), as a line
// over the x positions (Sweep.Ideal), with its key.
type Ideal struct {
	Line  int // the line whose ceiling it is; -1 for the sweep's one capacity
	X, Y  []float64
	Key   string
	Drawn bool // whether the key is shown: once for the lines' own ideals
}

// Ideals returns the goodput figure's ideal lines. The capacity is the configured ceiling when
// the sweep knows it, else the plateau: the highest mean goodput of all groups at any point.
// When the sweep varies the ceiling, each line has its own ideal instead (over numbers only),
// the first one keyed for all.
func (s *Sweep) Ideals() []Ideal {
	capacity := math.Inf(-1)
	for i := range s.Points {
		if m, ok := s.Points[i].Metric("total.goodput"); ok && !math.IsNaN(m.Mean) {
			capacity = math.Max(capacity, m.Mean)
		}
	}
	key := "ideal: min(offered, highest goodput " + strconv.FormatFloat(capacity, 'f', 0, 64) + "/s)"
	if s.Context != nil && s.Context.Ceiling > 0 {
		capacity = s.Context.Ceiling
		key = "ideal: min(offered, configured ceiling " + strconv.FormatFloat(capacity, 'f', 0, 64) + "/s)"
	}
	if s.Context != nil && len(s.Context.Ceilings) > 0 {
		var out []Ideal
		for i, a := range s.Answers {
			if i >= len(s.Lines) || a.Ceiling <= 0 {
				continue
			}
			if xs, ys := s.Ideal(a.Ceiling); len(xs) > 0 && !s.X.Categorical() {
				out = append(out, Ideal{Line: i, X: xs, Y: ys, Key: "ideal: min(offered, each line's configured ceiling)", Drawn: i == 0})
			}
		}
		return out
	}
	if xs, ys := s.Ideal(capacity); len(xs) > 0 {
		return []Ideal{{Line: -1, X: xs, Y: ys, Key: key, Drawn: true}}
	}
	return nil
}

// MarkKind is what a vertical mark of a load sweep shows.
type MarkKind int

// The vertical marks of a load sweep.
const (
	TodayMark       MarkKind = iota // today's load: the scenario as configured
	SafeMark                        // the safe load of a sweep of one line
	KneeMark                        // the knee of a sweep of one line (and its latency knee, at the same load)
	LatencyKneeMark                 // the latency knee of a sweep of one line, at another load than the knee
)

// Mark is a vertical mark at a load of a load sweep, with its label beside the line and its
// key.
type Mark struct {
	Kind       MarkKind
	X          float64
	Colour     color.NRGBA
	Label, Key string
}

// LoadMarks returns the vertical marks of a load sweep, from its context and answers: today's
// load (with the headroom, for one line) and, for a sweep of one line, the safe load, the knee
// and the latency knee — one mark for both knees when they are the same point, so that neither
// hides the other; with several lines each line's knee and headroom are in its name (LineName)
// instead. None for a sweep whose x is not the offered load, or without answers.
func (s *Sweep) LoadMarks() []Mark {
	if s.Context == nil || len(s.Answers) == 0 || !s.X.IsLoad() {
		return nil
	}
	var out []Mark
	if s.Context.Today > 0 {
		label := fmt.Sprintf("today %.0f/s", s.Context.Today)
		if len(s.Answers) == 1 && s.Answers[0].Headroom > 0 {
			label += fmt.Sprintf(" · safe to %.2f×", s.Answers[0].Headroom)
		}
		out = append(out, Mark{TodayMark, s.Context.Today, Total, label, "today's load (the scenario as configured)"})
	}
	if s.OneLoadLine() {
		a := s.Answers[0]
		if a.Safe.Offered > 0 && a.Beyond.Offered > 0 {
			out = append(out, Mark{SafeMark, a.Safe.Offered, Goodput, fmt.Sprintf("safe %.0f/s", a.Safe.Offered), "safe: served in full within the latency rule"})
		}
		both := a.KneeFound && a.LatencyFound && a.Knee == a.LatencyKnee
		switch {
		case both:
			out = append(out, Mark{KneeMark, a.Knee, FaultEdge, fmt.Sprintf("knees %.0f/s", a.Knee), "knee and latency knee, at the same load"})
		case a.KneeFound:
			out = append(out, Mark{KneeMark, a.Knee, FaultEdge, fmt.Sprintf("knee %.0f/s", a.Knee), "knee: first load not served in full"})
		}
		if a.LatencyFound && !both {
			out = append(out, Mark{LatencyKneeMark, a.LatencyKnee, Rejections, fmt.Sprintf("latency knee %.0f/s", a.LatencyKnee), "latency knee: " + a.LatencyRule})
		}
	}
	return out
}

// LatencyThreshold is the p99 latency (seconds) above which a load sweep of one line has its
// latency knee: the SLO, else sweep.DefaultLatencyFactor × the p99 at the lowest load. The
// answers give the rule in words only, so the threshold is taken again by the same rule.
func (s *Sweep) LatencyThreshold() (float64, bool) {
	if s.Context == nil || len(s.Answers) != 1 || !s.X.IsLoad() {
		return 0, false
	}
	limit := s.Context.SLO
	if limit <= 0 {
		if l, ok := s.LowestLoadP99(); ok {
			limit = sweep.DefaultLatencyFactor * l
		}
	}
	return limit, limit > 0
}

// Glyph is line i's point marker: a shape of its own, and smaller than the lines' before it,
// drawn on top of them, so that lines that coincide (policies that all reach the same plateau)
// show as nested markers in every colour rather than as the last line alone. No ring: a ring
// marks a knee.
func (s *Sweep) Glyph(i int) Glyph {
	shapes := []Shape{Circle, Box, Pyramid, Square, Triangle, Cross}
	r := 3.5
	if n := len(s.Lines); n > 1 {
		r = 5.5 - 2.5*float64(i)/float64(n-1)
	}
	return Glyph{Shape: shapes[i%len(shapes)], Radius: r}
}
