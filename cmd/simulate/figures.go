package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"overloadsim/results"
	"overloadsim/results/plot"
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
