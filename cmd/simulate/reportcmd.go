package main

import (
	"fmt"
	"io"
	"os"
	"overloadsim/results/report"
	"path/filepath"

	"github.com/spf13/pflag"
)

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
