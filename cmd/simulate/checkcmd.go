package main

import (
	"fmt"
	"io"
	"os"
	"overloadsim/results"
	"path/filepath"

	"github.com/spf13/pflag"
)

var checkCommand = command{
	summary: "compare a run or sweep with a baseline; exit 1 on a regression",
	usage: `Usage: simulate check --baseline FILE [--tolerance metric=x,...] RESULT_DIR
       simulate check --write-baseline FILE RESULT_DIR

Compares the run or sweep in RESULT_DIR with the baseline and names every metric and point
that regressed: goodput below the baseline's confidence band, amplification or p99 latency
above it, each widened by its relative tolerance. --write-baseline makes a baseline instead.

Examples:
  simulate run spike --out out/spike
  simulate check --baseline results/baselines/spike.json out/spike`,
	flags: func(fs *pflag.FlagSet) func([]string, io.Writer, io.Writer) error {
		baseline := fs.String("baseline", "", "baseline file to compare with")
		write := fs.String("write-baseline", "", "write a baseline of RESULT_DIR to this file")
		tol := fs.StringToString("tolerance", nil, "relative tolerances: goodput=0.05,amplification=0.05,p99=0.10")
		return func(args []string, stdout, _ io.Writer) error {
			if len(args) != 1 {
				return usageErrorf("want exactly one RESULT_DIR")
			}
			if (*baseline == "") == (*write == "") {
				return usageErrorf("give exactly one of --baseline and --write-baseline")
			}
			dir := args[0]
			hdr, got, err := readResult(dir)
			if err != nil {
				return err
			}
			if *write != "" {
				if err := results.WriteBaseline(*write, results.NewBaseline(hdr, got)); err != nil {
					return err
				}
				fmt.Fprintf(stdout, "wrote baseline %s (%d points)\n", *write, len(got))
				return nil
			}
			t, err := parseTolerance(*tol)
			if err != nil {
				return err
			}
			b, err := results.LoadBaseline(*baseline)
			if err != nil {
				return err
			}
			regs := results.Check(b, got, t)
			for _, r := range regs {
				fmt.Fprintln(stdout, r)
			}
			if len(regs) > 0 {
				return fmt.Errorf("%d regressions against %s", len(regs), *baseline)
			}
			fmt.Fprintf(stdout, "ok: %s matches %s within tolerance\n", dir, *baseline)
			return nil
		}
	},
}

// readResult reads a run folder (one point, one replication) or a sweep folder.
func readResult(dir string) (results.Header, []results.PointStats, error) {
	if _, err := os.Stat(filepath.Join(dir, "sweep.json")); err == nil {
		return results.ReadSweep(dir)
	}
	hdr, err := results.ReadHeader(dir)
	if err != nil {
		return results.Header{}, nil, err
	}
	pts, err := results.ReadPoints(dir)
	return hdr, pts, err
}

func parseTolerance(m map[string]string) (results.Tolerance, error) {
	t := results.DefaultTolerance
	for k, v := range m {
		var x float64
		if _, err := fmt.Sscan(v, &x); err != nil || x < 0 {
			return t, usageErrorf("--tolerance %s=%s: must be a number ≥ 0", k, v)
		}
		switch k {
		case "goodput":
			t.Goodput = x
		case "amplification":
			t.Amplification = x
		case "p99":
			t.P99 = x
		default:
			return t, usageErrorf("--tolerance %s: unknown metric (goodput, amplification, p99)", k)
		}
	}
	return t, nil
}
