package plot

import (
	"github.com/overloadsim/overloadsim/results/chart"
)

// RunFigures are the base names of the figures WriteRunFigures draws for every run, in the
// order it draws them; a run with mongos routers (shards.csv) gets chart.Shards after them.
var RunFigures = []string{chart.Timeseries, chart.Amplification, chart.Latency, chart.Servers}

// WriteRunFigures draws the figures of the run in dir (run.json, timeseries.csv and
// summary.json, as results.WriteRunDir writes them), as chart.RunFigures builds them, and
// writes each as NAME.svg and NAME.png into dir. It returns the base names written, in the
// order of RunFigures.
func WriteRunFigures(dir string) ([]string, error) {
	figs, err := runFigures(dir)
	if err != nil {
		return nil, err
	}
	return writeFigures(dir, figs)
}

// runFigures renders the run figures of the run in dir.
func runFigures(dir string) ([]*figure, error) {
	cfs, err := chart.RunFigures(dir)
	if err != nil {
		return nil, err
	}
	var figs []*figure
	for _, cf := range cfs {
		figs = append(figs, render(cf))
	}
	return figs, nil
}
