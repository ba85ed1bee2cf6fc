package main

import (
	"io"

	"github.com/overloadsim/overloadsim/results/chart"

	"github.com/spf13/pflag"
)

var plotCommand = command{
	summary: "draw the figures of a run, sweep, map or tuning (SVG and PNG) next to its files",
	usage: `Usage: simulate plot RESULT_DIR [--x PATH] [--label PATH=NAME]...

For a run: timeseries, amplification, latency and servers. For a sweep: sweep-goodput (with the
95 % band, the ideal line and the knee), sweep-amplification and sweep-p99, with the first
numeric parameter on x (or --x) and one line per value of the other; a load sweep's x is the
total offered load of all groups. Parameters are named by a short name read from the scenario
("web rate", "cut length", "CPU left") or by --label. For a map: the heat map of
P(stuck) with the 50 % boundary and the median recovery times. For a tuning: tune-pareto, the
candidates' goodput against amplification with the feasible ones filled and the recommendation
ringed. For a tipping-point search: tip, P(stuck) at every value tested with its interval, the
tipping point and the last value where every run recovered.

Examples:
  simulate run spike --out out/spike && simulate plot out/spike
  simulate plot out/policies --x 'clients[0].driver.retryPolicy'
  simulate plot out/policies --label 'clients[1].driver.retryPolicy=policy'`,
	flags: func(fs *pflag.FlagSet) func([]string, io.Writer, io.Writer) error {
		x := fs.String("x", "", "a sweep's parameter on the x axis (default: its first numeric parameter)")
		labels := labelFlag(fs)
		return func(args []string, _, stderr io.Writer) error {
			names, err := labels()
			if err != nil {
				return err
			}
			dir, err := resultDirArg(args)
			if err != nil {
				return err
			}
			return writeFiguresWith(dir, chart.SweepOptions{X: *x, Labels: names}, stderr)
		}
	},
}
