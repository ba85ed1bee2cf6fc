package plot

import (
	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/chart"
)

// SweepFigures are the base names of the figures WriteSweepFigures draws, in order.
var SweepFigures = chart.Names(results.KindSweep)

// WriteSweepFigures draws the figures of the sweep in dir (sweep.json, as
// sweep.WriteSweepDir writes it), as chart.SweepFigures builds them, and writes each as
// NAME.svg and NAME.png into dir. It returns the base names written, in the order of
// SweepFigures.
func WriteSweepFigures(dir string, opts chart.SweepOptions) ([]string, error) {
	figs, err := sweepFigures(dir, opts)
	if err != nil {
		return nil, err
	}
	return writeFigures(dir, figs)
}

// sweepFigures renders the sweep figures of the sweep in dir.
func sweepFigures(dir string, opts chart.SweepOptions) ([]*figure, error) {
	cfs, err := chart.SweepFigures(dir, opts)
	if err != nil {
		return nil, err
	}
	var figs []*figure
	for _, cf := range cfs {
		figs = append(figs, render(cf))
	}
	return figs, nil
}
