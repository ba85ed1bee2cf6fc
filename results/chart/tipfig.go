package chart

import (
	"fmt"
	"math"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/tip"
)

// Colours of the tipping-point figure: the probes in the figures' black, the estimate in the
// palette's first colour over a pale band of the same hue, the conservative bound in the
// goodput green (the runs that came back), the first value with a stuck run in the failures
// red.
var (
	tipProbe    = Total
	tipEstimate = Palette[0]
	tipBand     = WithAlpha(Palette[0], 0x24)
	tipSafe     = Goodput
	tipStuck    = Failures
	tipFit      = Palette[3]
)

// tipGlyph is a probe's mark: a filled circle over its whiskers.
var tipGlyph = Glyph{Shape: Circle, Radius: 3.5}

// TipAxisLabel is the x axis of a tipping-point search: the parameter's words and path, and its
// unit ("cut length, faults[0].for (s)"; "clients[0].workload.rate (operations/s)").
func TipAxisLabel(t *tip.Result) string {
	label := t.Param
	if t.Name != "" {
		label = t.Name + ", " + t.Param
	}
	switch t.Unit {
	case "s":
		label += " (s)"
	case "/s":
		label += " (operations/s)"
	}
	return label
}

// TipFigure is a tipping-point search as data (Tip): P(stuck) against the searched parameter.
// Every value tested is a point at the share of its decided runs that stuck, labelled k/n, with
// whiskers over its exact 95 % interval (tip.Probe.Lo95, Hi95); a dashed line at ½, where the
// boundary is defined; the bisection's estimate of the tipping point as a solid vertical line
// over a band of its confidence interval, and a logistic fit's crossing, when there is one, as
// a dotted line; the conservative bound (tip.Result.Bound) as a green line at the last value up
// to which every run recovered and a red one at the first value where a run stuck. The title
// says where the trigger tips, the subtitle leads with the sentence the command leads with.
func TipFigure(t *tip.Result) (*Figure, error) {
	if len(t.Probes) == 0 {
		return nil, fmt.Errorf("the tipping-point search of %s has no probes", t.Header.Scenario)
	}
	name := t.Name
	if name == "" {
		name = t.Param
	}
	v := func(x float64) string { return results.FormatValue(x, t.Unit) }
	// P(stuck) from 0 to 1 only, with room above 1 for the marks' labels; x padded so that no
	// whisker lies on the frame.
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range t.Probes {
		lo, hi = math.Min(lo, p.X), math.Max(hi, p.X)
	}
	pad := float64(0.04 * (hi - lo))
	if !(pad > 0) {
		pad = float64(0.5 * math.Max(math.Abs(lo), 1))
	}
	var yTicks []Tick
	for _, y := range []float64{0, 0.25, 0.5, 0.75, 1} {
		yTicks = append(yTicks, Tick{Value: y, Label: results.FormatValue(y, "")})
	}
	from := lo - pad
	if lo >= 0 {
		from = math.Max(0, from) // a length or a rate is never negative
	}
	pn := Panel{Name: "pstuck", X: Axis{Label: TipAxisLabel(t), Cover: []float64{from, hi + pad}},
		Y: Axis{Label: "P(stuck) after " + t.Trigger, Ticks: yTicks, Range: &Range{Min: -0.03, Max: 1.14}}}
	var xs, ys, los, his []float64
	for i := range t.Probes {
		p := &t.Probes[i]
		xs = append(xs, p.X)
		y := math.NaN()
		if p.Decided() > 0 {
			y = float64(p.Stuck) / float64(p.Decided())
		}
		ys, los, his = append(ys, y), append(los, p.Lo95), append(his, p.Hi95)
		text := fmt.Sprintf("%d/%d", p.Stuck, p.Decided())
		if p.Undecided > 0 {
			text += fmt.Sprintf(" (%d undecided)", p.Undecided)
		}
		pn.Labels = append(pn.Labels, PointLabel{Point: Point{X: p.X, Y: y}, Text: text})
	}
	half := Style{Colour: Reference, Width: Thin, Dash: Dashed}
	pn.Layers = append(pn.Layers, Ref{Y: 0.5, Style: half})
	pn.Keys = append(pn.Keys, Key{Label: "P(stuck) = ½", Style: half})

	var marks VMarks
	if est := t.Estimate(); est != "" {
		pn.Windows = append(pn.Windows, Window{Start: t.Lo, End: t.Hi, Fill: tipBand, Edge: tipBand})
		pn.Keys = append(pn.Keys, Key{Label: fmt.Sprintf("its %g %% interval", 100*t.Confidence), Kind: KeyFill, Style: Style{Colour: tipBand}})
		sty := Style{Colour: tipEstimate, Width: Medium}
		marks = append(marks, VMark{X: t.Boundary, Label: "tipping point " + v(t.Boundary), Style: sty})
		pn.Keys = append(pn.Keys, Key{Label: "tipping point " + v(t.Boundary), Style: sty})
		if finite(t.FitX50) {
			fit := Style{Colour: tipFit, Width: Thin, Dash: Dotted}
			marks = append(marks, VMark{X: t.FitX50, Style: fit})
			pn.Keys = append(pn.Keys, Key{Label: "logistic fit " + v(t.FitX50), Style: fit})
		}
	}
	b := t.Bound()
	toward := map[string]string{"above": "up to", "below": "down to"}[t.Sticks]
	if s := b.Safe; s != nil {
		sty := Style{Colour: tipSafe, Width: Medium, Dash: Dashed}
		marks = append(marks, VMark{X: s.X, Label: "all recovered " + toward + " " + t.Tested(s.X), Style: sty})
		pn.Keys = append(pn.Keys, Key{Label: fmt.Sprintf("all %d runs recovered", s.Replications), Style: sty})
	}
	if s := b.Stuck; s != nil {
		sty := Style{Colour: tipStuck, Width: Thin, Dash: Dashed}
		marks = append(marks, VMark{X: s.X, Style: sty})
		pn.Keys = append(pn.Keys, Key{Label: fmt.Sprintf("first stuck: %d of %d", s.Stuck, s.Replications), Style: sty})
	}
	pn.Layers = append(pn.Layers, marks)
	probe := Style{Colour: tipProbe, Width: Thin}
	pn.Layers = append(pn.Layers, Interval{Style: probe, Glyph: tipGlyph, X: xs, Y: ys, Lo: los, Hi: his, Whiskers: true})
	pn.Keys = append(pn.Keys, Key{Label: "tested: k/n stuck, 95 % interval", Kind: KeyWhisker, Style: probe, Glyph: &tipGlyph})

	title := fmt.Sprintf("Where %s tips: P(stuck) against %s", t.Trigger, name)
	if t.Header.Scenario != "" {
		title = t.Header.Scenario + " — " + title
	}
	sub := fmt.Sprintf("%s · seed %d", t.Lead(), t.Header.Seed)
	if t.Partial {
		sub += " · interrupted: the bracket is the narrowest reached"
	}
	return &Figure{Name: Tip, Title: title, Subtitle: sub, Panels: []Panel{pn}}, nil
}
