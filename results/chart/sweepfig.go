package chart

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// SweepFigures builds the figures of the sweep in dir (sweep.json, as sweep.WriteSweepDir
// writes it), in the registry's order: goodput, retry amplification and p99 latency against the
// swept parameter (SweepOptions), then, for a sweep that varies a policy or a limiter, its
// decision (DecisionFigure).
func SweepFigures(dir string, opts SweepOptions) ([]*Figure, error) {
	s, err := ReadSweep(dir, opts)
	if err != nil {
		return nil, err
	}
	figs := []*Figure{s.GoodputFigure(), s.AmplificationFigure(), s.P99Figure()}
	if d := s.Decision; d != nil { // a sweep that varies a policy or a limiter
		figs = append(figs, DecisionFigure(d))
	}
	return figs, nil
}

// xAxis is the figures' x axis: over numbers, reaching every swept value, whether or not a
// metric has a value there; over categories, a tick per value, half a category either side.
func (s *Sweep) xAxis() Axis {
	a := Axis{Label: s.X.Label}
	if s.X.Categorical() {
		a.Categorical = true
		for _, v := range s.X.Values {
			a.Ticks = append(a.Ticks, Tick{Value: s.X.Pos[v], Label: v})
		}
		a.Cover = []float64{-0.5, float64(len(s.X.Values)) - 0.5}
		return a
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	var at []float64
	for _, v := range s.X.Values {
		at = append(at, s.X.Pos[v])
	}
	for _, l := range s.Lines {
		at = append(at, l.X...) // a load axis's lines at their own offered loads
	}
	for _, x := range at {
		if !slices.Contains(a.Cover, x) {
			a.Cover = append(a.Cover, x)
		}
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	// A margin either side, so that the first and last points, and a mark at either (today's
	// load at the lowest point), stand clear of the frame rather than on it; never below 0 for
	// values that are not.
	if pad := float64(xMargin * (hi - lo)); pad > 0 {
		low := lo - pad
		if lo >= 0 {
			low = math.Max(low, 0)
		}
		a.Cover = append(a.Cover, low, hi+pad)
	}
	return a
}

// xMargin is the margin either side of a numeric x axis, as a fraction of its values' range.
const xMargin = 0.03

// panel is a sweep figure's one panel, its y axis labelled y.
func (s *Sweep) panel(y Axis) Panel {
	return Panel{Title: s.PanelTitle(), X: s.xAxis(), Y: y}
}

// absentGlyph marks where a line has no value; kneeGlyph rings a knee on its line (KneeGlyph),
// and kneeKeyGlyph in the key.
var (
	absentGlyph  = Glyph{Shape: Cross, Radius: 5}
	kneeGlyph    = Glyph{Shape: Ring, Radius: 7}
	kneeKeyGlyph = Glyph{Shape: Ring, Radius: 5}
)

// KneeGlyph is the ring around line i's knee: kneeGlyph, wider for the lines before the last
// by 1.5 points each, so that the knees of lines at the same point (policies that all break at
// the same load) stand as nested rings in every line's colour, none hidden under another.
func (s *Sweep) KneeGlyph(i int) Glyph {
	g := kneeGlyph
	g.Radius += float64(1.5 * float64(len(s.Lines)-1-i))
	return g
}

// addLines adds every line's mean of metric, scaled by k, with its confidence interval: a line
// over a band over numbers, a glyph with whiskers over categories, side by side (Dodge). On a
// log axis (logY) an interval whose low end is not positive runs off the bottom of the axis.
// The x positions where a line has no value are marked along the bottom (Absent), keyed
// absentText.
func (s *Sweep) addLines(pn *Panel, metric string, k float64, logY bool, absentText string) {
	var absent []float64
	for i, l := range s.Lines {
		col, fill := s.LineColour(i)
		mean, lo, hi := l.Metric(metric)
		mean, lo, hi = scaled(mean, k), scaled(lo, k), scaled(hi, k)
		for j, m := range mean {
			if !finite(m) && !slices.Contains(absent, l.X[j]) {
				absent = append(absent, l.X[j])
			}
		}
		if logY {
			for j := range lo {
				if !(lo[j] > 0) && mean[j] > 0 {
					lo[j] = mean[j] * 1e-6 // the band runs off the bottom of the axis
				}
			}
		}
		sty, g := Style{Colour: col, Width: Medium}, s.Glyph(i)
		if s.X.Categorical() {
			xs := make([]float64, len(l.X))
			for j, x := range l.X {
				xs[j] = x + s.Dodge(i)
			}
			pn.Layers = append(pn.Layers, Interval{Style: sty, Glyph: g, X: xs, Y: mean, Lo: lo, Hi: hi, Whiskers: true})
			pn.Keys = append(pn.Keys, Key{Label: s.LineName(i), Kind: KeyWhisker, Style: sty, Glyph: &g})
			continue
		}
		pn.Layers = append(pn.Layers, Interval{Style: sty, Fill: fill, Glyph: g, X: l.X, Y: mean, Lo: lo, Hi: hi})
		pn.Keys = append(pn.Keys, Key{Label: s.LineName(i), Kind: KeyBand, Style: sty, Glyph: &g, Fill: fill})
	}
	if len(absent) > 0 {
		pn.Layers = append(pn.Layers, Absent{Colour: Total, Glyph: absentGlyph, X: absent})
		pn.Keys = append(pn.Keys, Key{Label: absentText, Kind: KeyGlyph, Style: Style{Colour: Total}, Glyph: &absentGlyph})
	}
}

// GoodputFigure is goodput against the swept parameter, with the ideal min(offered, capacity)
// (Ideals), each line's knee ringed (Knees) and a load sweep's marks (LoadMarks).
func (s *Sweep) GoodputFigure() *Figure {
	label, _ := MetricAxis("goodput", nil, false)
	pn := s.panel(Axis{Label: label, Cover: fromZero})
	s.addLines(&pn, "goodput", 1, false, "no value")
	ideal := Style{Colour: Total, Width: Thin, Dash: Dashed}
	for _, id := range s.Ideals() {
		switch {
		case id.Line >= 0:
			// The sweep varies the ceiling: each line its own ideal, in its colour.
			col, _ := s.LineColour(id.Line)
			pn.Layers = append(pn.Layers, Series{Style: Style{Colour: col, Width: Thin, Dash: Dashed}, X: id.X, Y: id.Y})
		case s.X.Categorical():
			pn.Layers = append(pn.Layers, Levels{Style: ideal, X: id.X, Y: id.Y, HalfWidth: 0.3})
		default:
			pn.Layers = append(pn.Layers, Series{Style: ideal, X: id.X, Y: id.Y})
		}
		if id.Drawn {
			pn.Keys = append(pn.Keys, Key{Label: id.Key, Style: ideal})
		}
	}
	knees := s.Knees()
	for _, k := range knees {
		// A ring in the line's colour, without a text label: many lines' labels would pile up
		// at the same load; the key says what the ring is.
		col, _ := s.LineColour(k.Line)
		pn.Layers = append(pn.Layers, Markers{Colour: col, Glyph: s.KneeGlyph(k.Line), X: []float64{k.X}, Y: []float64{k.Y}})
	}
	if len(knees) > 0 {
		pn.Keys = append(pn.Keys, Key{Label: "knee: first load not served in full", Kind: KeyGlyph, Style: Style{Colour: Total}, Glyph: &kneeKeyGlyph})
	}
	s.addLoadMarks(&pn, false, 1)
	return &Figure{Name: SweepGoodput, Title: "Goodput vs " + s.Versus(), Subtitle: s.Subtitle(), Panels: []Panel{pn}, KeysBelow: true}
}

// addLoadMarks adds a load sweep's marks (LoadMarks) to a panel whose x is the offered load:
// vertical lines in the marks' colours, today's dotted, the safe load solid, the knees dashed. latency also adds
// the latency knee's threshold (LatencyThreshold), on the p99 panel, latencies scaled by k.
func (s *Sweep) addLoadMarks(pn *Panel, latency bool, k float64) {
	var marks VMarks
	for _, m := range s.LoadMarks() {
		sty := Style{Colour: m.Colour, Width: Thin, Dash: Dashed}
		switch m.Kind {
		case TodayMark:
			sty.Dash = Dotted
		case SafeMark:
			sty.Dash = Solid
		}
		marks = append(marks, VMark{X: m.X, Label: m.Label, Style: sty})
		pn.Keys = append(pn.Keys, Key{Label: m.Key, Style: sty})
	}
	if len(marks) > 0 {
		pn.Layers = append(pn.Layers, marks)
	}
	if limit, ok := s.LatencyThreshold(); latency && ok {
		ref := Ref{Y: limit * k, Style: Style{Colour: Rejections, Width: Thin, Dash: Dotted}}
		pn.Layers = append(pn.Layers, ref)
		pn.Keys = append(pn.Keys, Key{Label: fmt.Sprintf("latency knee threshold %.0f %s", limit*k, unitOf(pn.Y.Label)), Style: ref.Style})
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

// AmplificationFigure is retry amplification against the swept parameter, with the line
// 1 = no retries.
func (s *Sweep) AmplificationFigure() *Figure {
	label, _ := MetricAxis("amplification", nil, false)
	pn := s.panel(Axis{Label: label, Cover: fromZero})
	pn.Refs = []Ref{noRetries}
	s.addLines(&pn, "amplification", 1, false, "no value: nothing issued")
	pn.Keys = append(pn.Keys, noRetriesKey())
	return &Figure{Name: SweepAmplification, Title: "Retry amplification vs " + s.Versus(), Subtitle: s.Subtitle(), Panels: []Panel{pn}, KeysBelow: true}
}

// P99Figure is the p99 latency of successful operations against the swept parameter, on a log
// axis when it spans more than LogScale allows, with a load sweep's marks and latency knee
// threshold.
func (s *Sweep) P99Figure() *Figure {
	var all [][]float64
	for _, l := range s.Lines {
		mean, lo, hi := l.Metric("latency_ok_p99")
		all = append(all, mean, lo, hi)
	}
	useLog, lo, hi := LogScale(all...)
	label, k := MetricAxis("latency_ok_p99", []float64{hi}, useLog)
	y := Axis{Label: label}
	switch {
	case math.IsNaN(lo):
	case useLog:
		y.Log, y.Cover = true, []float64{lo * k, hi * k}
	default:
		y.Cover = fromZero
	}
	pn := s.panel(y)
	if math.IsNaN(lo) {
		pn.Empty = "no successful operations"
	}
	s.addLines(&pn, "latency_ok_p99", k, useLog, "no value: no operation succeeded")
	s.addLoadMarks(&pn, true, k)
	return &Figure{Name: SweepP99, Title: "p99 latency of successful operations vs " + s.Versus(), Subtitle: s.Subtitle(), Panels: []Panel{pn}, KeysBelow: true}
}
