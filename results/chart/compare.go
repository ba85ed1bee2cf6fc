package chart

import (
	"fmt"
	"strings"

	"github.com/overloadsim/overloadsim/results"
)

// CompareFigure builds the comparison of the result folders inputs (all runs, or all sweeps),
// labelled labels: for runs, total goodput and amplification over time, one line per run; for
// sweeps, the same against the first sweep's x parameter (SweepOptions), one line per sweep.
// Results of different kinds, and sweeps over categories or with lines of a second parameter,
// which need not line up, are not drawn together: no figure and no error.
func CompareFigure(inputs, labels []string) (*Figure, error) {
	var kinds []string
	for _, in := range inputs {
		m, err := results.ReadManifest(in)
		if err != nil {
			return nil, fmt.Errorf("plot: %w", err)
		}
		kinds = append(kinds, m.Kind)
	}
	f := &Figure{Name: Compare, Subtitle: strings.Join(labels, " vs ") + " · lines in the order given; the first is the reference"}
	goodLabel, _ := MetricAxis("goodput", nil, false)
	ampLabel, _ := MetricAxis("amplification", nil, false)
	good := Panel{Title: "All client groups", Y: Axis{Label: goodLabel, Cover: fromZero}}
	amp := Panel{Y: Axis{Label: ampLabel, Cover: fromZero}}
	switch {
	case allKind(kinds, results.KindRun):
		f.Title = "Goodput and retry amplification over time"
		good.X.Label, amp.X.Label = "time (s)", "time (s)"
		for i, in := range inputs {
			r, err := ReadRun(in)
			if err != nil {
				return nil, err
			}
			sty := Style{PaletteColour(i), Medium, Solid}
			good.Series = append(good.Series, r.Steps(labels[i], GroupsSum(r.TS, "goodput"), sty))
			amp.Series = append(amp.Series, r.Steps(labels[i], RetryAmplification(r.TS), sty))
			good.Keys = append(good.Keys, Key{Label: labels[i], Style: sty})
		}
	case allKind(kinds, results.KindSweep):
		f.Title = "Goodput and retry amplification, sweep against sweep"
		for i, in := range inputs {
			s, err := ReadSweep(in, SweepOptions{})
			if err != nil {
				return nil, err
			}
			if s.X.Categorical() || s.By != "" {
				return nil, nil // categories, or lines of a second parameter, need not line up
			}
			if i == 0 {
				var xs []float64
				for _, v := range s.X.Values {
					xs = append(xs, s.X.Pos[v])
				}
				good.X = Axis{Label: s.X.Label, Cover: xs}
				amp.X = good.X
			}
			all := s.Lines[0] // all groups, in x order
			sty := Style{PaletteColour(i), Medium, Solid}
			g := s.Glyph(0)
			gm, _, _ := all.Metric("goodput")
			am, _, _ := all.Metric("amplification")
			good.Series = append(good.Series, Series{Label: labels[i], Style: sty, X: all.X, Y: gm, Glyph: &g})
			amp.Series = append(amp.Series, Series{Label: labels[i], Style: sty, X: all.X, Y: am, Glyph: &g})
			good.Keys = append(good.Keys, Key{Label: labels[i], Style: sty, Glyph: &g})
		}
	default:
		return nil, nil
	}
	f.Panels = []Panel{good, amp}
	f.Weights = []float64{1.4, 1}
	return f, nil
}

func allKind(kinds []string, kind string) bool {
	for _, k := range kinds {
		if k != kind {
			return false
		}
	}
	return len(kinds) > 0
}
