package main

import (
	"fmt"
	"io"
	"os"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/chart"
	"github.com/overloadsim/overloadsim/results/plot"
)

// writeFigures draws the figures of the run, sweep or map in dir next to its files and lists
// them in the folder's manifest. A folder without an intact manifest is refused: its files may
// be another result's, or unfinished.
func writeFigures(dir string, stderr io.Writer) error { return writeFiguresX(dir, "", stderr) }

// writeFiguresX is writeFigures with the parameter on a sweep's x axis (chart.SweepOptions.X).
func writeFiguresX(dir, x string, stderr io.Writer) error {
	return writeFiguresWith(dir, chart.SweepOptions{X: x}, stderr)
}

// writeFiguresWith is writeFigures with a sweep's options: the parameter on its x axis and the
// parameters' names (--x, --label).
func writeFiguresWith(dir string, opts chart.SweepOptions, stderr io.Writer) error {
	x := opts.X
	m, err := results.ReadManifest(dir)
	if err != nil {
		return err
	}
	if len(opts.Labels) > 0 && m.Kind != results.KindSweep && m.Kind != results.KindMap {
		return usageErrorf("--label: %s holds a %s: --label names a sweep's or a map's parameters", dir, m.Kind)
	}
	var names []string
	switch m.Kind {
	case results.KindMap:
		names, err = plot.WriteMapFigures(dir, opts.Labels)
	case results.KindSweep:
		names, err = plot.WriteSweepFigures(dir, opts)
	case results.KindRun:
		names, err = plot.WriteRunFigures(dir)
	case results.KindTune:
		names, err = plot.WriteTuneFigures(dir)
	case results.KindTip:
		names, err = plot.WriteTipFigures(dir)
	default:
		if x != "" {
			return usageErrorf("--x %s: %s holds a %s: --x is for sweeps", x, dir, m.Kind)
		}
		return fmt.Errorf("%s holds a %s, which has no figures (run, sweep, map, tune or tip)%s", dir, m.Kind, results.MergeHint(m.Kind))
	}
	if err != nil {
		return err
	}
	var files []string
	for _, n := range names {
		files = append(files, n+".svg", n+".png")
	}
	if err := results.AddFiles(dir, files...); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "wrote %d figures (SVG and PNG) in %s\n", len(names), dir)
	return nil
}

// resultDirArg is the RESULT_DIR argument of plot and report, which draw into it: it must be a
// folder, and its lock is taken (lockResult), so they never draw while another simulate writes.
func resultDirArg(args []string) (string, error) {
	if len(args) != 1 {
		return "", usageErrorf("want exactly one RESULT_DIR, got %d arguments", len(args))
	}
	if st, err := os.Stat(args[0]); err != nil || !st.IsDir() {
		return "", usageErrorf("%q is not a folder of results", args[0])
	}
	return args[0], lockResult(args[0])
}
