package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"

	"overloadsim/results"
	"overloadsim/results/plot"
	"overloadsim/results/report"
)

// isSweepDir reports whether dir holds a sweep (sweep.json) rather than a run.
func isSweepDir(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, results.SweepFile))
	return err == nil
}

// isMapDir reports whether dir holds a metastability map (map.json).
func isMapDir(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, results.MapFile))
	return err == nil
}

// writeFigures draws the figures of the run, sweep or map in dir next to its files.
func writeFigures(dir string, stderr io.Writer) error {
	var names []string
	var err error
	switch {
	case isMapDir(dir):
		names, err = plot.WriteMapFigures(dir)
	case isSweepDir(dir):
		names, err = plot.WriteSweepFigures(dir)
	default:
		names, err = plot.WriteRunFigures(dir)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "wrote %d figures (SVG and PNG) in %s\n", len(names), dir)
	return nil
}

func resultDirArg(args []string) (string, error) {
	if len(args) != 1 {
		return "", usageErrorf("want exactly one RESULT_DIR, got %d arguments", len(args))
	}
	if st, err := os.Stat(args[0]); err != nil || !st.IsDir() {
		return "", usageErrorf("%q is not a folder of results", args[0])
	}
	return args[0], nil
}

var plotCommand = command{
	summary: "draw the figures of a run, sweep or map (SVG and PNG) next to its files",
	usage: `Usage: simulate plot RESULT_DIR

For a run: timeseries, amplification, latency and servers. For a sweep: sweep-goodput (with the
95 % band, the ideal line and the knee), sweep-amplification and sweep-p99. For a map: the heat
map of P(stuck) with the 50 % boundary and the median recovery times.

Examples:
  simulate run spike --out out/spike && simulate plot out/spike`,
	flags: func(fs *pflag.FlagSet) func([]string, io.Writer, io.Writer) error {
		return func(args []string, _, stderr io.Writer) error {
			dir, err := resultDirArg(args)
			if err != nil {
				return err
			}
			return writeFigures(dir, stderr)
		}
	},
}

var reportCommand = command{
	summary: "write a self-contained report.html of a run, sweep or map",
	usage: `Usage: simulate report RESULT_DIR

Writes RESULT_DIR/report.html: the scenario's description and claim, the run header, the
summary (and for a sweep the table of points with confidence intervals) and the figures inline.
Draws the figures first if they are missing. The file needs no network to open.

Examples:
  simulate run spike --out out/spike && simulate report out/spike`,
	flags: func(fs *pflag.FlagSet) func([]string, io.Writer, io.Writer) error {
		return func(args []string, stdout, stderr io.Writer) error {
			dir, err := resultDirArg(args)
			if err != nil {
				return err
			}
			first := "timeseries.svg"
			switch {
			case isMapDir(dir):
				first = "map.svg"
			case isSweepDir(dir):
				first = "sweep-goodput.svg"
			}
			if _, err := os.Stat(filepath.Join(dir, first)); err != nil {
				if err := writeFigures(dir, stderr); err != nil {
					return err
				}
			}
			path, err := report.Write(dir)
			if err != nil {
				return err
			}
			fmt.Fprintln(stdout, path)
			return nil
		}
	},
}
