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

	"github.com/overloadsim/overloadsim/internal/yamlstrict"
	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/sweep"

	"github.com/spf13/pflag"
)

var checkCommand = command{
	summary: "compare a run or sweep with a baseline; exit 1 on a regression",
	usage: `Usage: simulate check --baseline FILE [--tolerance gate=x,...] [--junit FILE] [--markdown FILE] RESULT_DIR
       simulate check --write-baseline FILE RESULT_DIR

Compares the run or sweep in RESULT_DIR with the baseline and names every metric and point
that regressed, each by its gate in the metric catalogue (docs/metrics.md §16): goodput below
the baseline's confidence band, amplification, p99 latency or a trigger's recovery time above
it, each widened by its relative tolerance (a recovery time by one interval more, its
resolution); the failure share (failures ÷ offered, per group and in total) above the
baseline's by more than its tolerance, an absolute allowance; and a stuck trigger where the
baseline had none (for a sweep, a share of stuck runs above the baseline's 95 % interval).
--tolerance sets the tolerances, each gate by its name. Each regression is said in its unit,
with its limit and its change from the baseline. When
the result's scenario differs from the baseline's, every changed field is listed; gated values
the baseline has none of are not gated, and check says so. --junit FILE also writes every
comparison as a JUnit XML report, which CI systems show test by test; --markdown FILE as a
Markdown summary (a verdict, then a table of every comparison, failures first) for a CI job's
summary page. --write-baseline makes a baseline instead.

Examples:
  simulate run spike --out out/spike
  simulate check --baseline results/baselines/spike.json out/spike
  simulate check --baseline results/baselines/spike.json --junit out/check.xml out/spike
  simulate check --baseline results/baselines/spike.json --markdown "$GITHUB_STEP_SUMMARY" out/spike`,
	flags: func(fs *pflag.FlagSet) func([]string, io.Writer, io.Writer) error {
		baseline := fs.String("baseline", "", "baseline file to compare with")
		write := fs.String("write-baseline", "", "write a baseline of RESULT_DIR to this file")
		tol := fs.StringToString("tolerance", nil, "each gate's tolerance: "+toleranceText())
		format := fs.String("format", "text", "text, or json: {result, baseline, ok, note, differences, notGated, partial, regressions}")
		junit := fs.String("junit", "", "also write every comparison to this file as a JUnit XML report")
		markdown := fs.String("markdown", "", "also write every comparison to this file as a Markdown summary, failures first (appended to, for $GITHUB_STEP_SUMMARY)")
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
			diffs := configDifferences(b.Header.Canonical, hdr.Canonical)
			ungated := sweep.Ungated(b, got)
			notes := append(configNote(diffs), sweep.UngatedNote(ungated)...)
			if partial != "" {
				notes = append(notes, sweep.Note{Text: fmt.Sprintf("%s is a partial sweep (%s)", dir, partial)})
			}
			cmps := sweep.Compare(b, got, t)
			var regs []sweep.Regression
			for _, c := range cmps {
				if !c.Pass {
					regs = append(regs, c.Regression)
				}
			}
			title := dir + " against " + *baseline
			if *junit != "" {
				if err := writeCheckReport(*junit, false, func(w io.Writer) error { return sweep.WriteJUnit(w, title, notes, cmps) }); err != nil {
					return err
				}
			}
			if *markdown != "" {
				if err := writeCheckReport(*markdown, true, func(w io.Writer) error { return sweep.WriteMarkdown(w, title, notes, cmps) }); err != nil {
					return err
				}
			}
			if *format == "json" {
				if err := printCheckJSON(stdout, dir, *baseline, diffs, ungated, partial, regs); err != nil {
					return err
				}
			} else {
				for _, n := range notes {
					fmt.Fprintln(stdout, n)
				}
				for _, r := range regs {
					fmt.Fprintln(stdout, r)
				}
			}
			if len(regs) > 0 {
				return fmt.Errorf("%d regressions against %s", len(regs), *baseline)
			}
			if *format == "text" {
				fmt.Fprintf(stdout, "ok: %s matches %s within tolerance\n", dir, *baseline)
			}
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

// toleranceText is the default tolerance as --tolerance takes it, each gate by its name
// (results.Gate): "goodput=0.05,amplification=0.05,p99=0.1,failure_share=0.005,
// recovery_time=0.1 (a no-new-stuck gate, stuck, takes none)".
func toleranceText() string {
	var parts, none []string
	for _, m := range results.Checked() {
		if m.Gate.Rule == results.GateNoNewStuck {
			none = append(none, m.Gate.Name)
			continue
		}
		parts = append(parts, fmt.Sprintf("%s=%g", m.Gate.Name, m.Gate.Tolerance))
	}
	text := strings.Join(parts, ",")
	if len(none) > 0 {
		text += " (" + strings.Join(none, ", ") + " takes none: a stuck run where the baseline had none is a regression)"
	}
	return text
}

// parseTolerance reads --tolerance NAME=X,…: the default tolerance, with each gate named by its
// name (results.Gate.Name) set to X. A gate that takes no tolerance (no-new-stuck) refuses one.
func parseTolerance(m map[string]string) (sweep.Tolerance, error) {
	t, checked := sweep.DefaultTolerance(), results.Checked()
	for k, v := range m {
		x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || x < 0 || math.IsNaN(x) || math.IsInf(x, 0) {
			return t, usageErrorf("--tolerance %s=%s: must be a finite number ≥ 0", k, v)
		}
		i := slices.IndexFunc(checked, func(c results.MetricInfo) bool { return c.Gate.Name == k })
		if i < 0 {
			return t, usageErrorf("--tolerance %s: unknown gate (%s)", k, sweep.CheckedNames(", ", ", "))
		}
		if checked[i].Gate.Rule == results.GateNoNewStuck {
			return t, usageErrorf("--tolerance %s=%s: the %s gate takes no tolerance (a stuck run where the baseline had none is a regression)", k, v, k)
		}
		t[checked[i].Name] = x
	}
	return t, nil
}

// canonicalScenario is the canonical text of a result's scenario as configDifferences reads it.
var canonicalScenario = yamlstrict.Input{What: "a result's canonical scenario"}

// configDifferences lists every field where the result's scenario (its canonical text) differs
// from the baseline's, none when they are the same: a check of a changed configuration against
// its old baseline is legitimate (does the change regress?), but must say what changed, all of
// it. A canonical text that does not parse (a baseline edited by hand) is compared line by
// line instead, each differing line a difference at "line N". A side that records no
// scenario at all (a baseline written by hand) is one difference, of the whole scenario, not
// every field of the other.
func configDifferences(baseline, result string) []yamlstrict.Difference {
	switch {
	case baseline == result:
		return nil
	case baseline == "" || result == "":
		return []yamlstrict.Difference{{Path: "(the whole scenario, header.canonical)", A: recorded(baseline), B: recorded(result)}}
	}
	a, errA := canonicalScenario.ParseCanonical([]byte(baseline))
	b, errB := canonicalScenario.ParseCanonical([]byte(result))
	if errA == nil && errB == nil {
		return yamlstrict.Diff(a, b)
	}
	var out []yamlstrict.Difference
	bl, gl := strings.Split(baseline, "\n"), strings.Split(result, "\n")
	for i := range max(len(bl), len(gl)) {
		var x, y string
		if i < len(bl) {
			x = bl[i]
		}
		if i < len(gl) {
			y = gl[i]
		}
		if x != y {
			out = append(out, yamlstrict.Difference{Path: fmt.Sprintf("line %d", i+1), A: x, B: y})
		}
	}
	return out
}

// recorded says whether a side records its scenario, for a difference of the whole scenario.
func recorded(canonical string) string {
	if canonical == "" {
		return "not recorded"
	}
	return "recorded"
}

// configNote is the note that lists the configuration's differences, one field a line:
// "seed: baseline 1, result 2"; none without a difference.
func configNote(diffs []yamlstrict.Difference) []sweep.Note {
	if len(diffs) == 0 {
		return nil
	}
	n := sweep.Note{Text: fmt.Sprintf("the result's configuration differs from the baseline's in %d %s:", len(diffs), "field"+plural(len(diffs)))}
	for _, d := range diffs {
		n.Items = append(n.Items, fmt.Sprintf("%s: baseline %s, result %s", d.Path, orNone(d.A), orNone(d.B)))
	}
	return []sweep.Note{n}
}

// orNone is a value of a difference, "(none)" where a side has no value.
func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// printCheckJSON prints check's outcome as JSON: the folder, the baseline, whether it passed,
// the configuration's differences (a one-line note, and each field's) and the gated values the
// baseline has none of (when any), the partial-sweep note (when any) and every regression (a
// missing value is null).
func printCheckJSON(w io.Writer, dir, baseline string, diffs []yamlstrict.Difference, ungated []string, partial string, regs []sweep.Regression) error {
	type regression struct {
		Point    string   `json:"point"`
		Metric   string   `json:"metric"`
		Baseline *float64 `json:"baseline"`
		Got      *float64 `json:"got"`
		Limit    *float64 `json:"limit"`
		Text     string   `json:"text"`
	}
	type difference struct {
		Path     string `json:"path"`
		Baseline string `json:"baseline"`
		Result   string `json:"result"`
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
		Differences []difference `json:"differences,omitempty"`
		NotGated    []string     `json:"notGated,omitempty"`
		Partial     string       `json:"partial,omitempty"`
		Regressions []regression `json:"regressions"`
	}{Result: dir, Baseline: baseline, OK: len(regs) == 0, NotGated: ungated, Partial: partial, Regressions: []regression{}}
	for _, n := range configNote(diffs) {
		out.Note = strings.TrimSuffix(n.Text, ":")
	}
	for _, d := range diffs {
		out.Differences = append(out.Differences, difference{d.Path, d.A, d.B})
	}
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

// writeCheckReport writes a report of check's comparisons to path: atomically (a JUnit XML
// report), or appended to what the file holds (a Markdown summary, as $GITHUB_STEP_SUMMARY
// gathers every step's), creating its folder either way.
func writeCheckReport(path string, appendTo bool, write func(io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if !appendTo {
		return results.WriteFileAtomic(path, write)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
