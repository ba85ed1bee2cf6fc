package main

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/compare"
	"github.com/overloadsim/overloadsim/results/plot"
	"github.com/overloadsim/overloadsim/results/report"
	"github.com/overloadsim/overloadsim/results/sweep"
)

var compareCommand = command{
	summary: "compare runs or sweeps side by side: differences and their significance",
	usage: `Usage: simulate compare RESULT_DIR RESULT_DIR... [options]

Puts the results of runs or sweeps side by side, the first as the reference: for every point
(matched by its parameters) the offered load, goodput, amplification, p99 latency of successes,
failures and each trigger's share stuck and recovery time, with each result's difference from
the reference and, where both have two or more replications, the two-sided p-value of Welch's
t-test on the two means (significant below 0.05, marked *). Writes compare.json and compare.csv
into --out; --plot draws their goodput and amplification overlaid (over time for runs, over the
swept parameter for sweeps), --report also writes compare.html.

Examples:
  simulate sweep spike --set 'clients[1].driver.retryPolicy=mongodb-2026-07' --replications 5 --out out/07
  simulate sweep spike --replications 5 --out out/03
  simulate compare out/03 out/07 --report`,
	flags: func(fs *pflag.FlagSet) func([]string, io.Writer, io.Writer) error {
		out := fs.String("out", "", "output folder (default: out/compare)")
		plotToo := fs.Bool("plot", false, "also draw the comparison figure")
		reportToo := fs.Bool("report", false, "also write compare.html (with the figure)")
		format := fs.String("format", "text", "what to print: text or json (compare.json)")
		return func(args []string, stdout, stderr io.Writer) error {
			if len(args) < 2 {
				return usageErrorf("compare: give at least two result folders (runs or sweeps), the first the reference")
			}
			if *format != "text" && *format != "json" {
				return usageErrorf("--format %q: want text or json", *format)
			}
			var in []compare.Input
			for _, dir := range args {
				m, err := results.ReadManifest(dir)
				if err != nil {
					return err
				}
				if m.Kind != results.KindRun && m.Kind != results.KindSweep {
					return fmt.Errorf("%s holds a %s: compare takes runs and sweeps%s", dir, m.Kind, results.MergeHint(m.Kind))
				}
				pts, err := sweep.ReadPoints(dir)
				if err != nil {
					return err
				}
				hdr, err := readHeaderOf(dir, m.Kind)
				if err != nil {
					return err
				}
				in = append(in, compare.Input{Label: dir, Kind: m.Kind, Digest: m.Digest, Header: hdr, Points: pts})
			}
			dir := *out
			if dir == "" {
				dir = filepath.Join("out", "compare")
			}
			for _, a := range args {
				if inside(dir, a) {
					return usageErrorf("--out %s: it is inside the compared folder %s; write the comparison elsewhere", dir, a)
				}
			}
			if err := prepareOut(dir); err != nil {
				return err
			}
			c := compare.Compare(in)
			if err := compare.Write(dir, compare.Header(c, label().Tool, label().Version), c); err != nil {
				return err
			}
			fmt.Fprintf(stderr, "wrote %s\n", dir)
			if *plotToo || *reportToo {
				names, err := plot.WriteCompareFigures(dir, args, args)
				if err != nil {
					return err
				}
				var files []string
				for _, n := range names {
					files = append(files, n+".svg", n+".png")
				}
				if len(files) == 0 {
					fmt.Fprintln(stderr, "no comparison figure: the results are of different kinds, or sweeps whose points do not line up")
				} else if err := results.AddFiles(dir, files...); err != nil {
					return err
				}
			}
			if *reportToo {
				path, err := report.WriteCompare(dir)
				if err != nil {
					return err
				}
				fmt.Fprintf(stderr, "wrote %s\n", path)
			}
			if *format == "json" {
				return writeFileTo(stdout, filepath.Join(dir, results.CompareFile))
			}
			printCompare(stdout, c)
			return nil
		}
	},
}

// readHeaderOf reads the header of a run or sweep folder.
func readHeaderOf(dir, kind string) (results.Header, error) {
	if kind == results.KindSweep {
		hdr, _, err := sweep.ReadSweep(dir)
		return hdr, err
	}
	return results.ReadHeader(dir)
}

// printCompare prints the comparison as a table, one line per point and metric.
func printCompare(w io.Writer, c compare.Comparison) {
	fmt.Fprintln(w, "the first result is the reference; each value: mean ± 95 % half-width; others: (difference, p-value of Welch's t-test; * p < 0.05)")
	for i, r := range c.Results {
		fmt.Fprintf(w, "  [%d] %s: %s %s, seed %d\n", i, r.Label, r.Kind, r.Scenario, r.Seed)
	}
	point := "\x00"
	for _, row := range c.Rows {
		if row.Point != point {
			point = row.Point
			name := point
			if name == "" {
				name = "(run)"
			}
			fmt.Fprintf(w, "\n%s\n", name)
		}
		cells := make([]string, len(row.Values))
		for i, v := range row.Values {
			cells[i] = compareCell(v, i == 0)
		}
		fmt.Fprintf(w, "  %-28s %s\n", row.Metric, strings.Join(cells, " | "))
	}
}

func compareCell(v compare.Value, ref bool) string {
	if math.IsNaN(v.Mean) {
		return "-"
	}
	s := fmt.Sprintf("%.4g", v.Mean)
	if !math.IsNaN(v.CI95) {
		s += fmt.Sprintf(" ± %.2g", v.CI95)
	}
	if ref || math.IsNaN(v.Delta) {
		return s
	}
	if !math.IsNaN(v.DeltaRel) {
		s += fmt.Sprintf(" (%+.1f %%", 100*v.DeltaRel)
	} else {
		s += fmt.Sprintf(" (%+.4g", v.Delta)
	}
	if !math.IsNaN(v.P) {
		s += fmt.Sprintf(", p %.2g", v.P)
		if v.Significant {
			s += " *"
		}
	}
	return s + ")"
}
