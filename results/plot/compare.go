package plot

import (
	"fmt"
	"strings"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/chart"
)

// WriteCompareFigures draws the comparison of the result folders inputs (all runs, or all
// sweeps) into dir, a comparison folder (compare.Write): for runs, total goodput and
// amplification over time, one line per run; for sweeps, the same against the first sweep's x
// parameter (SweepOptions), one line per sweep. Results of different kinds are not drawn
// together: it returns no figure and no error. It returns the base names written.
func WriteCompareFigures(dir string, inputs []string, labels []string) ([]string, error) {
	var kinds []string
	for _, in := range inputs {
		m, err := results.ReadManifest(in)
		if err != nil {
			return nil, fmt.Errorf("plot: %w", err)
		}
		kinds = append(kinds, m.Kind)
	}
	f := &figure{name: chart.Compare, subtitle: strings.Join(labels, " vs ") + " · lines in the order given; the first is the reference"}
	switch {
	case allKind(kinds, results.KindRun):
		f.title = "Goodput and retry amplification over time"
		good := newPanel("All client groups", "time (s)", "goodput (operations/s)")
		amp := newPanel("", "time (s)", "attempts per operation")
		good.p.Y.Min, amp.p.Y.Min = 0, 0
		for i, in := range inputs {
			r, err := readRun(in)
			if err != nil {
				return nil, err
			}
			sty := lineStyle(chart.PaletteColour(i), medium, nil)
			g := r.steps(chart.GroupsSum(r.ts, "goodput"), sty)
			al := r.steps(chart.RetryAmplification(r.ts), sty)
			good.p.Add(g)
			amp.p.Add(al)
			good.key(labels[i], g)
		}
		f.rows = [][]*panel{{good}, {amp}}
	case allKind(kinds, results.KindSweep):
		f.title = "Goodput and retry amplification, sweep against sweep"
		var good, amp *panel
		for i, in := range inputs {
			s, err := readSweep(in, chart.SweepOptions{})
			if err != nil {
				return nil, err
			}
			if s.X.Categorical() || s.By != "" {
				return nil, nil // categories, or lines of a second parameter, need not line up
			}
			if good == nil {
				good = newPanel("All client groups", "", "goodput (operations/s)")
				amp = newPanel("", "", "attempts per operation")
				applyX(good.p, s.X)
				applyX(amp.p, s.X)
				good.p.Y.Min, amp.p.Y.Min = 0, 0
			}
			all := s.Lines[0] // all groups, in x order
			sty := lineStyle(chart.PaletteColour(i), medium, nil)
			g := s.glyph(0, sty.Color)
			gm, _, _ := all.Metric("goodput")
			am, _, _ := all.Metric("amplification")
			gl := &line{xs: all.X, ys: gm, style: sty, glyph: &g}
			al := &line{xs: all.X, ys: am, style: sty, glyph: &g}
			good.p.Add(gl)
			amp.p.Add(al)
			good.key(labels[i], gl)
		}
		f.rows = [][]*panel{{good}, {amp}}
	default:
		return nil, nil
	}
	f.weights = []float64{1.4, 1}
	return writeFigures(dir, []*figure{f})
}

func allKind(kinds []string, kind string) bool {
	for _, k := range kinds {
		if k != kind {
			return false
		}
	}
	return len(kinds) > 0
}
