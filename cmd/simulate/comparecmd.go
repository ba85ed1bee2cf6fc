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
	summary: "compare runs or sweeps side by side: what differs, better or worse, figure and report",
	usage: `Usage: simulate compare RESULT_DIR RESULT_DIR... [options]

Puts the results of runs or sweeps side by side, the first as the reference, each other named
by every setting in which its scenario differs from the reference's
("clients[1].driver.retryPolicy=mongodb-2026-07, load=1.2"): for every point (matched by its
parameters) the offered load, goodput, amplification, p99 latency of successes, failures and
each trigger's share stuck and recovery time, in their units, with each result's difference
from the reference and, where both have two or more replications, the two-sided p-value of
Welch's t-test on the two means: a difference with p < 0.05 is better or worse by the metric's
direction (goodput up, failures down), else not significant. Writes compare.json and
compare.csv into --out; --plot draws the figure: for runs, goodput over time and each run's
difference from the reference in goodput, failures, p99 latency and amplification, the
triggers' windows shaded; for sweeps, the same over the swept parameter with the difference's
95 % interval; for sweeps of one point, each result's value with its 95 % interval.
--report also writes compare.html.

Examples:
  simulate sweep spike --set 'clients[1].driver.retryPolicy=mongodb-2026-07' --replications 5 --out out/07
  simulate sweep spike --replications 5 --out out/03
  simulate compare out/03 out/07 --plot --report`,
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
			for i := 1; i < len(in); i++ {
				d, err := scenarioDifferences(in[i].Label, in[0].Header, in[i].Header, in[0].Kind == results.KindSweep && in[i].Kind == results.KindSweep)
				if err != nil {
					return err
				}
				in[i].Differences = d
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
			ctx, err := compareContext(args[0], in[0].Kind)
			if err != nil {
				return err
			}
			c.Decision = compareDecision(in, ctx)
			if err := compare.Write(dir, compare.Header(c, label().Tool, label().Version), c); err != nil {
				return err
			}
			fmt.Fprintf(stderr, "wrote %s\n", dir)
			if *plotToo || *reportToo {
				names, err := plot.WriteCompareFigures(dir, args)
				if err != nil {
					return err
				}
				var files []string
				for _, n := range names {
					files = append(files, n+".svg", n+".png")
				}
				if len(files) == 0 {
					fmt.Fprintln(stderr, "no comparison figure: the results are of different kinds, or sweeps over categories or two parameters, whose points do not line up")
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
			if c.Decision != nil {
				writeDecision(stdout, c.Decision)
			}
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

// printCompare prints the comparison as a table, one line per point and metric, each value in
// its unit and each difference with its verdict in words (better, worse, not significant).
func printCompare(w io.Writer, c compare.Comparison) {
	fmt.Fprintln(w, "the first result is the reference; each value: mean ± 95 % half-width; each other result: its difference from the reference,")
	fmt.Fprintln(w, "the p-value of Welch's t-test, and better or worse by the metric's direction where p < 0.05 (else not significant)")
	for i, r := range c.Results {
		folder := " (" + r.Folder + ")"
		if i == 0 {
			folder = "" // the reference's label names its folder
		}
		fmt.Fprintf(w, "  [%d] %s: %s %s%s, seed %d\n", i, r.Label, r.Kind, r.Scenario, folder, r.Seed)
	}
	for i := 1; i < len(c.Results); i++ {
		var parts []string
		for _, it := range compare.Headline(c, i) {
			parts = append(parts, it.Text)
		}
		if len(parts) > 0 {
			fmt.Fprintf(w, "\n[%d] against the reference: %s\n", i, strings.Join(parts, "; "))
		}
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
			cells[i] = fmt.Sprintf("[%d] %s", i, compareCell(row.Metric, v, i == 0))
		}
		fmt.Fprintf(w, "  %-28s %s\n", row.Metric, strings.Join(cells, " | "))
	}
}

// compareCell writes one value: "750.8/s ± 5.4/s", and for a result other than the reference
// its difference, "(-13.7/s, -1.8 %, p 0.00091: worse)".
func compareCell(metric string, v compare.Value, ref bool) string {
	s := compare.FormatCI(metric, v.Mean, v.CI95)
	if ref || math.IsNaN(v.Delta) {
		return s
	}
	s += " (" + compare.FormatDelta(metric, v.Delta)
	if !math.IsNaN(v.DeltaRel) && v.Delta != 0 {
		s += fmt.Sprintf(", %+.1f %%", 100*v.DeltaRel)
	}
	if !math.IsNaN(v.P) {
		s += fmt.Sprintf(", p %.2g", v.P)
	}
	if v.Verdict != compare.NoVerdict && v.Verdict != compare.Neutral {
		s += ": " + string(v.Verdict)
	}
	return s + ")"
}
