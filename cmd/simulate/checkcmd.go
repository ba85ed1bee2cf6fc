package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/sweep"

	"github.com/spf13/pflag"
)

var checkCommand = command{
	summary: "compare a run or sweep with a baseline; exit 1 on a regression",
	usage: `Usage: simulate check --baseline FILE [--tolerance metric=x,...] RESULT_DIR
       simulate check --write-baseline FILE RESULT_DIR

Compares the run or sweep in RESULT_DIR with the baseline and names every metric and point
that regressed: goodput below the baseline's confidence band, amplification or p99 latency
above it, each widened by its relative tolerance, with its unit and its change from the
baseline. --junit FILE also writes every comparison as a JUnit XML report, which CI systems show
test by test. --write-baseline makes a baseline instead.

Examples:
  simulate run spike --out out/spike
  simulate check --baseline results/baselines/spike.json out/spike
  simulate check --baseline results/baselines/spike.json --junit out/check.xml out/spike`,
	flags: func(fs *pflag.FlagSet) func([]string, io.Writer, io.Writer) error {
		baseline := fs.String("baseline", "", "baseline file to compare with")
		write := fs.String("write-baseline", "", "write a baseline of RESULT_DIR to this file")
		tol := fs.StringToString("tolerance", nil, "relative tolerances: "+toleranceText())
		format := fs.String("format", "text", "text, or json: {result, baseline, ok, note, partial, regressions}")
		junit := fs.String("junit", "", "also write every comparison to this file as a JUnit XML report")
		return func(args []string, stdout, _ io.Writer) error {
			if len(args) != 1 {
				return usageErrorf("want exactly one RESULT_DIR")
			}
			if err := checkFormat(*format); err != nil {
				return err
			}
			if (*baseline == "") == (*write == "") {
				return usageErrorf("give exactly one of --baseline and --write-baseline")
			}
			dir := args[0]
			hdr, partial, got, err := readResult(dir)
			if err != nil {
				return err
			}
			if *write != "" {
				if partial != "" {
					return fmt.Errorf("%s is a partial sweep (%s): it is no baseline", dir, partial)
				}
				b := sweep.NewBaseline(hdr, got)
				if err := b.Validate(); err != nil {
					return fmt.Errorf("%s: %w", dir, err)
				}
				if err := os.MkdirAll(filepath.Dir(*write), 0o755); err != nil {
					return fmt.Errorf("writing %s: %w", *write, err)
				}
				if err := sweep.WriteBaseline(*write, b); err != nil {
					return err
				}
				fmt.Fprintf(stdout, "wrote baseline %s (%d points)\n", *write, len(got))
				return nil
			}
			t, err := parseTolerance(*tol)
			if err != nil {
				return err
			}
			b, err := sweep.LoadBaseline(*baseline)
			if err != nil {
				return err
			}
			if err := b.Validate(); err != nil {
				return fmt.Errorf("%s: %w", *baseline, err)
			}
			if err := b.SameScenario(hdr); err != nil {
				return fmt.Errorf("%s against %s: %w", dir, *baseline, err)
			}
			if d := b.ConfigDiff(hdr); d != "" && *format == "text" {
				fmt.Fprintf(stdout, "note: %s\n", d)
			}
			cmps := sweep.Compare(b, got, t)
			var regs []sweep.Regression
			for _, c := range cmps {
				if !c.Pass {
					regs = append(regs, c.Regression)
				}
			}
			if *junit != "" {
				if err := writeCheckJUnit(*junit, dir, *baseline, b.ConfigDiff(hdr), partial, cmps); err != nil {
					return err
				}
			}
			if *format == "json" {
				if err := printCheckJSON(stdout, dir, *baseline, b.ConfigDiff(hdr), partial, regs); err != nil {
					return err
				}
				if len(regs) > 0 {
					return fmt.Errorf("%d regressions against %s", len(regs), *baseline)
				}
				return nil
			}
			for _, r := range regs {
				fmt.Fprintln(stdout, r)
			}
			if partial != "" {
				fmt.Fprintf(stdout, "%s is a partial sweep (%s)\n", dir, partial)
			}
			if len(regs) > 0 {
				return fmt.Errorf("%d regressions against %s", len(regs), *baseline)
			}
			fmt.Fprintf(stdout, "ok: %s matches %s within tolerance\n", dir, *baseline)
			return nil
		}
	},
}

// readResult reads a run folder (one point, one replication) or a sweep folder, whichever its
// manifest says it holds, and only from files the manifest lists (sweep.ReadChecked); partial
// says why a sweep is incomplete.
func readResult(dir string) (hdr results.Header, partial string, points []sweep.PointStats, err error) {
	return sweep.ReadChecked(dir)
}

// toleranceText is the default tolerance as --tolerance takes it:
// "goodput=0.05,amplification=0.05,p99=0.10".
func toleranceText() string {
	var parts []string
	for _, m := range results.Checked() {
		parts = append(parts, fmt.Sprintf("%s=%.2f", m.Short, m.Tolerance))
	}
	return strings.Join(parts, ",")
}

// parseTolerance reads --tolerance SHORT=X,…: the default tolerance, with each metric named
// by its short name (results.Roles.Short) set to X.
func parseTolerance(m map[string]string) (sweep.Tolerance, error) {
	t, checked := sweep.DefaultTolerance(), results.Checked()
	for k, v := range m {
		x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || x < 0 || math.IsNaN(x) || math.IsInf(x, 0) {
			return t, usageErrorf("--tolerance %s=%s: must be a finite number ≥ 0", k, v)
		}
		i := slices.IndexFunc(checked, func(c results.MetricInfo) bool { return c.Short == k })
		if i < 0 {
			return t, usageErrorf("--tolerance %s: unknown metric (%s)", k, sweep.CheckedNames(", ", ", "))
		}
		t[checked[i].Name] = x
	}
	return t, nil
}

// printCheckJSON prints check's outcome as JSON: the folder, the baseline, whether it passed, the
// configuration note and partial-sweep note (when any) and every regression (a missing value is
// null).
func printCheckJSON(w io.Writer, dir, baseline, note, partial string, regs []sweep.Regression) error {
	type regression struct {
		Point    string   `json:"point"`
		Metric   string   `json:"metric"`
		Baseline *float64 `json:"baseline"`
		Got      *float64 `json:"got"`
		Limit    *float64 `json:"limit"`
		Text     string   `json:"text"`
	}
	num := func(x float64) *float64 {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil
		}
		return &x
	}
	out := struct {
		Result      string       `json:"result"`
		Baseline    string       `json:"baseline"`
		OK          bool         `json:"ok"`
		Note        string       `json:"note,omitempty"`
		Partial     string       `json:"partial,omitempty"`
		Regressions []regression `json:"regressions"`
	}{Result: dir, Baseline: baseline, OK: len(regs) == 0, Note: note, Partial: partial, Regressions: []regression{}}
	for _, r := range regs {
		out.Regressions = append(out.Regressions, regression{r.Point, r.Metric, num(r.Baseline), num(r.Got), num(r.Limit), r.String()})
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// writeCheckJUnit writes check's comparisons to path as a JUnit XML report (sweep.WriteJUnit),
// atomically, with the configuration and partial-sweep notes as the suite's output.
func writeCheckJUnit(path, dir, baseline, note, partial string, cmps []sweep.Comparison) error {
	var notes []string
	if note != "" {
		notes = append(notes, "note: "+note)
	}
	if partial != "" {
		notes = append(notes, fmt.Sprintf("%s is a partial sweep (%s)", dir, partial))
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return results.WriteFileAtomic(path, func(w io.Writer) error {
		return sweep.WriteJUnit(w, dir+" against "+baseline, strings.Join(notes, "\n"), cmps)
	})
}
