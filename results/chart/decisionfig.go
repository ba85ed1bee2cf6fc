package chart

import (
	"fmt"
	"math"
	"slices"

	"github.com/overloadsim/overloadsim/results/sweep"
)

// DecisionFigure is a policy decision (sweep.Decision) drawn: four panels over the decided
// scope — the share of operations that failed beside goodput, then retry amplification and the
// p99 latency of every operation — each per policy with its 95 % confidence interval, against
// the load (× today's, the decision's loads) or, without a load axis, a category per policy.
// Failures are drawn beside goodput so that a policy that fails fast does not look best on
// goodput alone. Lines are named by the policies (sweep.PolicyName), not by the YAML path.
func DecisionFigure(d *sweep.Decision) *Figure {
	byLoad := d.LoadPath != ""
	var levels []string
	var xs []float64
	for _, r := range d.Rows {
		if r.Scope == d.Decides && !slices.Contains(levels, r.Level) {
			levels = append(levels, r.Level)
			x := r.Factor
			if x == 0 {
				x = r.Offered
			}
			xs = append(xs, x)
		}
	}
	xLabel := "load (× today's)"
	if byLoad && len(xs) > 0 && d.Rows[0].Factor == 0 {
		xLabel = "offered load (operations/s)"
	}
	x := Axis{Label: xLabel, Cover: xs}
	if byLoad && xLabel == "load (× today's)" { // a tick at each load of the table, named
		for i, v := range xs {
			x.Ticks = append(x.Ticks, Tick{Value: v, Label: levels[i]})
		}
	}
	if !byLoad {
		x = Axis{Label: "policy", Categorical: true, Cover: []float64{-0.5, float64(len(d.Policies)) - 0.5}}
		for i, p := range d.Policies {
			x.Ticks = append(x.Ticks, Tick{Value: float64(i), Label: p})
		}
	}
	who := "all groups' operations"
	if d.Decides != "total" {
		who = "the operations of group " + d.Decides + ", whose policy varies"
	}
	type metric struct {
		title, label string
		value        func(sweep.DecisionRow) sweep.Estimate
		k            float64
	}
	latUnit, latK := "ms", 1000.0
	for _, r := range d.Rows {
		if r.Scope == d.Decides && r.P99All.Mean >= 1 {
			latUnit, latK = "s", 1
		}
	}
	metrics := []metric{
		{"Failed operations", "failed (% of offered)", func(r sweep.DecisionRow) sweep.Estimate { return r.FailureShare }, 100},
		{"Goodput", "goodput (operations/s)", func(r sweep.DecisionRow) sweep.Estimate { return r.Goodput }, 1},
		{"Retry amplification", "attempts per operation", func(r sweep.DecisionRow) sweep.Estimate { return r.Amplification }, 1},
		{"p99 latency of all operations", fmt.Sprintf("p99 latency, successes and failures (%s)", latUnit),
			func(r sweep.DecisionRow) sweep.Estimate { return r.P99All }, latK},
	}
	f := &Figure{Name: SweepDecision, Title: "Policy decision: " + decisionTitle(d),
		Subtitle: fmt.Sprintf("%s; mean over replications with its 95 %% confidence interval; loads: %s", who, d.Loads), Rows: []int{2, 2}}
	for mi, m := range metrics {
		pn := Panel{Title: m.title, X: x, Y: Axis{Label: m.label, Cover: fromZero}}
		if mi == 2 {
			pn.Refs = []Ref{noRetries}
		}
		for pi, p := range d.Policies {
			col := PaletteColour(pi)
			fill := WithAlpha(col, 0x38)
			g := Glyph{Shape: []Shape{Circle, Box, Pyramid, Square, Triangle, Cross}[pi%6], Radius: 4.5}
			var px, y, lo, hi []float64
			for _, r := range d.Rows {
				if r.Policy != p || r.Scope != d.Decides {
					continue
				}
				e := m.value(r)
				xv := r.Factor
				if xv == 0 {
					xv = r.Offered
				}
				if !byLoad {
					xv = float64(pi) // the policy's category
				}
				px = append(px, xv)
				y = append(y, e.Mean*m.k)
				ci := e.CI95
				if math.IsNaN(ci) {
					ci = 0
				}
				lo, hi = append(lo, (e.Mean-ci)*m.k), append(hi, (e.Mean+ci)*m.k)
			}
			sty := Style{Colour: col, Width: Medium}
			pn.Layers = append(pn.Layers, Interval{Style: sty, Fill: fill, Glyph: g, X: px, Y: y, Lo: lo, Hi: hi, Whiskers: !byLoad})
			if mi == 1 { // the legend once, beside the first row
				kind := KeyBand
				if !byLoad {
					kind = KeyWhisker
				}
				pn.Keys = append(pn.Keys, Key{Label: p, Kind: kind, Style: sty, Glyph: &g, Fill: fill})
			}
		}
		if mi == 3 {
			pn.Keys = append(pn.Keys, noRetriesKey())
		}
		if !slices.ContainsFunc(d.Rows, func(r sweep.DecisionRow) bool { return r.Scope == d.Decides && finite(m.value(r).Mean) }) {
			pn.Empty = "no value: the sweep's points lack the metric"
		}
		f.Panels = append(f.Panels, pn)
	}
	return f
}

// decisionTitle names what the decision varies in words: "retryPolicy of group plain",
// "ingressRequestAdmissionRatePerSec".
func decisionTitle(d *sweep.Decision) string {
	field := d.Parameter
	for i := len(field) - 1; i >= 0; i-- {
		if field[i] == '.' {
			field = field[i+1:]
			break
		}
	}
	if d.Group != "" {
		return field + " of group " + d.Group
	}
	return field
}
