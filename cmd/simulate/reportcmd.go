package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/chart"
	"github.com/overloadsim/overloadsim/results/report"

	"github.com/spf13/pflag"
)

var reportCommand = command{
	summary: "write a self-contained report.html of a run, sweep, map or tipping-point search",
	usage: `Usage: simulate report RESULT_DIR

Writes RESULT_DIR/report.html: the scenario's description and claim, the run header, the
summary (and for a sweep the table of points with confidence intervals) and the figures inline.
For a tipping-point search the page leads with the answer (the value up to which every run
recovered, the first where runs stuck), then the values tested and the figure.
Draws the figures first unless the folder's manifest lists them as drawn from its result. The file needs no network to open.

Examples:
  simulate run spike --out out/spike && simulate report out/spike
  simulate report out/cpu-cut-storm-tip`,
	flags: func(fs *pflag.FlagSet) func([]string, io.Writer, io.Writer) error {
		return func(args []string, stdout, stderr io.Writer) error {
			dir, err := resultDirArg(args)
			if err != nil {
				return err
			}
			m, err := results.ReadManifest(dir)
			if err != nil {
				return err
			}
			// The kind's first figure in the registry says whether the figures were drawn.
			first := map[string]string{results.KindMap: chart.Map, results.KindSweep: chart.SweepGoodput, results.KindTip: chart.Tip}[m.Kind]
			if first == "" {
				first = chart.Timeseries
			}
			first = chart.Lookup(first).File()
			stale, err := results.StaleFigures(dir, &m)
			if err != nil {
				return err
			}
			// Figures not drawn from this result (another result's, or unmarked) are never
			// reused: they are drawn again.
			if !m.Has(first) || slices.ContainsFunc(stale, func(n string) bool { return n != report.File }) {
				if len(stale) > 0 {
					fmt.Fprintf(stderr, "%s: drawing again %s, not drawn from this result\n", dir, strings.Join(stale, ", "))
				}
				if err := writeFigures(dir, stderr); err != nil {
					return err
				}
			}
			write := report.Write
			if m.Kind == results.KindTip {
				write = report.WriteTip // a page of its own (tip.html.tmpl)
			}
			path, err := write(dir)
			if err != nil {
				return err
			}
			fmt.Fprintln(stdout, path)
			return nil
		}
	},
}
