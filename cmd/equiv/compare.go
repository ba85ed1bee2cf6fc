package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	"gonum.org/v1/gonum/stat"

	"github.com/overloadsim/overloadsim/results"
)

// The tests the protocol runs, by the name the report gives them.
const (
	testWelch  = "Welch"  // Welch's t-test on the means of the finite values
	testKS     = "KS"     // two-sample Kolmogorov–Smirnov on the finite values
	testFisher = "Fisher" // Fisher's exact test on an indicator's shares of 1
	testNaN    = "NaN"    // Fisher's exact test on the shares of NaN values
)

// Test is one hypothesis test of a metric: its p-value, its Holm-adjusted p-value and the
// verdict at the run's alpha.
type Test struct {
	Name     string  `json:"name"`
	P        float64 `json:"p"`
	Adjusted float64 `json:"holmP"`
	Rejected bool    `json:"rejected"`
}

// Side is one side's values of a metric: finite values' count, mean and standard deviation (an
// indicator's share of 1 and its Wilson 95 % interval instead), and how many seeds gave NaN
// (or no value).
type Side struct {
	N    int      `json:"n"`
	NaN  int      `json:"nan"`
	Mean *float64 `json:"mean"`
	SD   *float64 `json:"sd,omitempty"`
	Ones *int     `json:"ones,omitempty"`
	Lo   *float64 `json:"wilsonLo,omitempty"`
	Hi   *float64 `json:"wilsonHi,omitempty"`
}

// MetricResult is one metric of one scenario.
type MetricResult struct {
	Name      string  `json:"name"`
	Identical bool    `json:"identical"`
	Indicator bool    `json:"indicator,omitempty"`
	Old       *Side   `json:"old,omitempty"`
	New       *Side   `json:"new,omitempty"`
	Tests     []*Test `json:"tests,omitempty"`
	Rejected  bool    `json:"rejected"`
}

// ScenarioResult is one scenario's metrics, in the order its summaries list them.
type ScenarioResult struct {
	Name       string          `json:"name"`
	OldVersion string          `json:"oldVersion"`
	NewVersion string          `json:"newVersion"`
	Metrics    []*MetricResult `json:"metrics"`
}

// Report is the whole comparison.
type Report struct {
	Old       string            `json:"old"`
	New       string            `json:"new"`
	OldSet    []string          `json:"oldSet"`
	NewSet    []string          `json:"newSet"`
	Seeds     int               `json:"seeds"`
	Alpha     float64           `json:"alpha"`
	Tests     int               `json:"tests"` // the size of Holm's family
	Identical int               `json:"identical"`
	Differ    int               `json:"differ"`
	Rejected  int               `json:"rejected"`
	Scenarios []*ScenarioResult `json:"scenarios"`
}

// compare tests every metric of every scenario and applies Holm's correction over all the tests.
func compare(o options, runs []scenarioRuns) *Report {
	r := &Report{Old: o.oldBin, New: o.newBin, OldSet: nonNil(o.oldSet), NewSet: nonNil(o.newSet), Seeds: o.seeds, Alpha: o.alpha}
	var family []*Test
	for _, sr := range runs {
		sc := &ScenarioResult{Name: sr.name, OldVersion: sr.version[0], NewVersion: sr.version[1]}
		for _, name := range metricNames(sr) {
			m := compareMetric(name, values(sr.runs[0], name), values(sr.runs[1], name))
			family = append(family, m.Tests...)
			sc.Metrics = append(sc.Metrics, m)
		}
		r.Scenarios = append(r.Scenarios, sc)
	}
	ps := make([]float64, len(family))
	for i, t := range family {
		ps[i] = t.P
	}
	adj, rej := holm(ps, o.alpha)
	for i, t := range family {
		t.Adjusted, t.Rejected = adj[i], rej[i]
	}
	r.Tests = len(family)
	for _, sc := range r.Scenarios {
		for _, m := range sc.Metrics {
			for _, t := range m.Tests {
				m.Rejected = m.Rejected || t.Rejected
			}
			switch {
			case m.Identical:
				r.Identical++
			default:
				r.Differ++
			}
			if m.Rejected {
				r.Rejected++
			}
		}
	}
	return r
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// metricNames is every metric name of a scenario's runs, in the order first seen: the old
// side's seeds in order, then the new side's.
func metricNames(sr scenarioRuns) []string {
	var names []string
	seen := map[string]bool{}
	for _, side := range sr.runs {
		for _, run := range side {
			for _, m := range run {
				if !seen[m.Name] {
					seen[m.Name] = true
					names = append(names, m.Name)
				}
			}
		}
	}
	return names
}

// values is a metric's value per seed; NaN where a run does not have it.
func values(runs []runResult, name string) []float64 {
	out := make([]float64, len(runs))
	for i, run := range runs {
		out[i] = math.NaN()
		for _, m := range run {
			if m.Name == name {
				out[i] = m.Value
				break
			}
		}
	}
	return out
}

// isIndicator reports whether a metric is a fault's verdict indicator: 1 for the outcome, 0 for
// the others, NaN without a baseline (results.Summary.Metrics).
func isIndicator(name string) bool {
	if !strings.HasPrefix(name, "fault.") {
		return false
	}
	for _, s := range []string{".recovered", ".stuck", ".undecided"} {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

// compareMetric tests one metric's values, seed by seed, on the two sides.
func compareMetric(name string, old, new []float64) *MetricResult {
	m := &MetricResult{Name: name, Identical: true}
	for i := range old {
		same := math.Float64bits(old[i]) == math.Float64bits(new[i]) || (math.IsNaN(old[i]) && math.IsNaN(new[i]))
		m.Identical = m.Identical && same
	}
	if m.Identical {
		return m
	}
	fo, no := finite(old)
	fn, nn := finite(new)
	m.Indicator = isIndicator(name) && zeroOne(fo) && zeroOne(fn)
	m.Old, m.New = describe(fo, no, m.Indicator), describe(fn, nn, m.Indicator)
	switch {
	case m.Indicator:
		if len(fo) > 0 && len(fn) > 0 {
			k1, k2 := *m.Old.Ones, *m.New.Ones
			m.Tests = append(m.Tests, &Test{Name: testFisher, P: fisherExact(k1, len(fo)-k1, k2, len(fn)-k2)})
		}
	default:
		if len(fo) >= 2 && len(fn) >= 2 {
			_, _, p := welch(fo, fn)
			m.Tests = append(m.Tests, &Test{Name: testWelch, P: p})
		}
		if len(fo) >= 1 && len(fn) >= 1 {
			_, p := ksTest(fo, fn)
			m.Tests = append(m.Tests, &Test{Name: testKS, P: p})
		}
	}
	if no > 0 || nn > 0 {
		m.Tests = append(m.Tests, &Test{Name: testNaN, P: fisherExact(no, len(fo), nn, len(fn))})
	}
	return m
}

// finite returns the finite values of xs and how many were not finite.
func finite(xs []float64) ([]float64, int) {
	var out []float64
	for _, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			out = append(out, x)
		}
	}
	return out, len(xs) - len(out)
}

func zeroOne(xs []float64) bool {
	for _, x := range xs {
		if x != 0 && x != 1 {
			return false
		}
	}
	return true
}

func describe(xs []float64, nans int, indicator bool) *Side {
	s := &Side{N: len(xs), NaN: nans}
	if len(xs) == 0 {
		return s
	}
	if indicator {
		k := 0
		for _, x := range xs {
			if x == 1 {
				k++
			}
		}
		lo, hi := wilson(k, len(xs), z95)
		share := float64(k) / float64(len(xs))
		s.Ones, s.Mean, s.Lo, s.Hi = &k, &share, &lo, &hi
		return s
	}
	mean, sd := stat.MeanStdDev(xs, nil)
	if len(xs) < 2 {
		sd = math.NaN()
	}
	s.Mean = &mean
	if !math.IsNaN(sd) {
		s.SD = &sd
	}
	return s
}

// summaryLine is the report's first line.
func (r *Report) summaryLine() string {
	return fmt.Sprintf("%s × %d seeds: %s identical, %d differ in bytes, %d rejected at α = %g (Holm, %s)",
		plural(len(r.Scenarios), "scenario"), r.Seeds, plural(r.Identical, "metric"), r.Differ, r.Rejected, r.Alpha, plural(r.Tests, "test"))
}

func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// markdown writes the report: the summary line, what was compared and how, then per scenario
// a table of the metrics that are not identical.
func (r *Report) markdown(w io.Writer) {
	fmt.Fprintf(w, "# Equivalence report\n\n%s.\n\n", r.summaryLine())
	side := func(label, bin string, set []string) {
		fmt.Fprintf(w, "- %s: `%s`", label, bin)
		for _, s := range set {
			fmt.Fprintf(w, " `--set %s`", s)
		}
		fmt.Fprintln(w)
	}
	side("old", r.Old, r.OldSet)
	side("new", r.New, r.NewSet)
	fmt.Fprintf(w, "- seeds 1 to %d on each side; every summary metric (the names `expect:` accepts)\n", r.Seeds)
	fmt.Fprintf(w, "- tests: Welch's t on the means and two-sample Kolmogorov–Smirnov (KS) on the finite values; "+
		"Fisher's exact test on the fault indicators' shares (share [Wilson 95 %% interval] (ones/n)) and on the NaN counts where a side has any; "+
		"Holm–Bonferroni over all %s of the run at family-wise α = %g\n", plural(r.Tests, "test"), r.Alpha)
	fmt.Fprintln(w, "- p: the test's own p-value; a metric is rejected when one of its tests' Holm-adjusted p-values is at most α (the tests named)")
	for _, sc := range r.Scenarios {
		fmt.Fprintf(w, "\n## %s\n\n", sc.Name)
		if sc.OldVersion != sc.NewVersion {
			fmt.Fprintf(w, "Versions: old %s, new %s.\n\n", sc.OldVersion, sc.NewVersion)
		}
		var differ, rejected int
		for _, m := range sc.Metrics {
			if !m.Identical {
				differ++
			}
			if m.Rejected {
				rejected++
			}
		}
		if differ == 0 {
			fmt.Fprintf(w, "All %d metrics identical seed by seed.\n", len(sc.Metrics))
			continue
		}
		fmt.Fprintf(w, "%d metrics: %d identical, %d differ in bytes, %d rejected.\n\n", len(sc.Metrics), len(sc.Metrics)-differ, differ, rejected)
		fmt.Fprintln(w, "| metric | old | new | NaN old/new | Welch p | KS p | Fisher p | NaN p | verdict |")
		fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|")
		for _, m := range sc.Metrics {
			if m.Identical {
				continue
			}
			p := map[string]string{testWelch: "–", testKS: "–", testFisher: "–", testNaN: "–"}
			var why []string
			for _, t := range m.Tests {
				p[t.Name] = fmtP(t.P)
				if t.Rejected {
					why = append(why, t.Name)
				}
			}
			verdict := "kept"
			switch {
			case m.Rejected:
				verdict = "**rejected**: " + strings.Join(why, ", ")
			case len(m.Tests) == 0:
				verdict = "untested (too few finite values)"
			}
			fmt.Fprintf(w, "| %s | %s | %s | %d/%d | %s | %s | %s | %s | %s |\n", m.Name, fmtSide(m.Old), fmtSide(m.New),
				m.Old.NaN, m.New.NaN, p[testWelch], p[testKS], p[testFisher], p[testNaN], verdict)
		}
	}
}

func fmtSide(s *Side) string {
	switch {
	case s.Mean == nil:
		return "no finite value"
	case s.Ones != nil:
		return fmt.Sprintf("%.3g [%.3g, %.3g] (%d/%d)", *s.Mean, *s.Lo, *s.Hi, *s.Ones, s.N)
	case s.SD == nil:
		return fmt.Sprintf("%.6g (n=1)", *s.Mean)
	}
	return fmt.Sprintf("%.6g ± %.3g", *s.Mean, *s.SD)
}

func fmtP(p float64) string {
	if p < 1e-4 {
		return fmt.Sprintf("%.1e", p)
	}
	return fmt.Sprintf("%.4f", p)
}

// write writes the Markdown report to o.report (stdout without it) and the JSON to o.jsonOut,
// each file whole or not at all (results.WriteFileAtomic).
func (r *Report) write(o options, stdout io.Writer) error {
	var md bytes.Buffer
	r.markdown(&md)
	if o.report == "" {
		if _, err := stdout.Write(md.Bytes()); err != nil {
			return err
		}
	} else if err := results.WriteFileAtomic(o.report, func(w io.Writer) error { _, err := w.Write(md.Bytes()); return err }); err != nil {
		return err
	}
	if o.jsonOut == "" {
		return nil
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return results.WriteFileAtomic(o.jsonOut, func(w io.Writer) error { _, err := w.Write(append(b, '\n')); return err })
}
