package sweep

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/overloadsim/overloadsim/results"
)

// Baseline is a committed reference result: a header and the aggregated points of a sweep (a
// single run is one point without parameters). Its file is JSON with the same shape as
// sweep.json: {"header": …, "points": [{"params", "replications", "metrics": [{"name", "mean",
// "ci95", "n"}]}]}.
type Baseline struct {
	Header results.Header `json:"header"`
	// Partial says why a sweep is incomplete ("" when whole); a partial sweep is no baseline.
	Partial string `json:"partial,omitempty"`
	// Context and Answers are a load sweep's (SweepAnswers): what it is judged against, and
	// the knee, latency knee and headroom of each line. Absent for other results.
	Context *LoadContext  `json:"context,omitempty"`
	Answers []LoadAnswers `json:"answers,omitempty"`
	// Decision is a sweep's policy decision (Decide), when it varies a policy or a limiter.
	Decision *Decision `json:"decision,omitempty"`
	// Verdicts are a sweep's judgements of its scenario's expectations, point by point.
	Verdicts []results.Verdict `json:"expectations,omitempty"`
	Points   []PointStats      `json:"points"`
}

// NewBaseline returns a baseline of points. For a single run, pass SinglePoint(summary); to give
// it a confidence band, aggregate several replications of the run into one point instead.
func NewBaseline(hdr results.Header, points []PointStats) Baseline {
	return Baseline{Header: hdr, Points: points}
}

// WriteBaseline writes b to path atomically (temporary name, then rename).
func WriteBaseline(path string, b Baseline) error {
	return results.WriteFileAtomic(path, func(w io.Writer) error { return results.WriteJSON(w, b) })
}

// LoadBaseline reads a baseline file (or a sweep.json). A run's summary.json, which has a
// header too, is refused as what it is.
func LoadBaseline(path string) (Baseline, error) {
	var b Baseline
	if err := results.ReadJSON(path, &b); err != nil {
		return b, err
	}
	var s struct {
		Header *results.SummaryHeader `json:"header"`
	}
	if results.ReadJSON(path, &s) == nil && s.Header != nil && s.Header.Schema == results.SummarySchema {
		return Baseline{}, fmt.Errorf("%s: not a baseline: it is a run's summary.json (a baseline is what check --write-baseline writes, or a sweep.json)", path)
	}
	return b, nil
}

// ReadChecked reads the run or the sweep in dir as check compares it: its header, why it is
// partial ("" when whole) and its points. The folder is read only through its manifest
// (ReadManifest), and every file read must be one the manifest lists, and so verified: a run's
// run.json and summary.json, a sweep's sweep.json. A folder holding another kind of result is
// refused.
func ReadChecked(dir string) (hdr results.Header, partial string, points []PointStats, err error) {
	m, err := results.ReadManifest(dir)
	if err != nil {
		return hdr, "", nil, err
	}
	switch m.Kind {
	case results.KindSweep:
		if err = m.RequireListed(dir, results.SweepFile); err == nil {
			hdr, points, err = ReadSweep(dir)
		}
	case results.KindRun:
		if err = m.RequireListed(dir, results.RunFile, results.SummaryFile); err != nil {
			break
		}
		if hdr, err = results.ReadHeader(dir); err == nil {
			var s results.Summary
			if s, err = results.ReadSummary(dir); err == nil {
				points = SinglePoint(s)
			}
		}
	default:
		err = fmt.Errorf("%s holds a %s: check compares runs and sweeps%s", dir, m.Kind, results.MergeHint(m.Kind))
	}
	return hdr, m.Partial, points, err
}

// Tolerance is how far, relative to the edge of the baseline's confidence band, each metric
// check watches (results.Checked) may move in its bad direction before Check reports it, by
// its name in the catalogue ("latency_ok_p99"); a metric it lacks may not move at all.
type Tolerance map[string]float64

// DefaultTolerance returns the tolerance the check uses unless told otherwise: the catalogue's
// (results.Roles.Tolerance). A run is deterministic, so an unchanged model reproduces its
// baseline exactly; the slack is for baselines of a single replication, which have no
// confidence band: 5 % on goodput and amplification, whose run-to-run spread at a fixed
// scenario is a few percent, and 10 % on the p99, a tail statistic with roughly twice that
// spread.
func DefaultTolerance() Tolerance {
	t := Tolerance{}
	for _, m := range results.Checked() {
		t[m.Name] = m.Tolerance
	}
	return t
}

// Regression is one metric at one point that moved beyond its limit.
type Regression struct {
	Point    string  // PointStats.Key; "" for a single run
	Metric   string  // as in Summary.Metrics; "" when the whole point is missing
	Baseline float64 // the baseline's mean
	Got      float64 // the compared mean; NaN when missing
	Limit    float64 // the bound it crossed
}

// String describes the regression in one line, in the metric's unit, with the bound it crossed
// and how far it moved from the baseline: "run: total.latency_ok_p99 = 21.6 ms, above the
// limit 12.3 ms (baseline 11.2 ms, +93 %)".
func (r Regression) String() string {
	point := r.Point
	if point == "" {
		point = "run"
	}
	unit := ""
	if m, ok := results.LookupMetric(r.Metric); ok {
		unit = m.Unit
	}
	v := func(x float64) string { return withUnit(x, unit, r.Baseline) }
	switch {
	case r.Metric == "":
		return fmt.Sprintf("%s: point missing", point)
	case math.IsNaN(r.Got):
		return fmt.Sprintf("%s: %s missing (baseline %s)", point, r.Metric, v(r.Baseline))
	}
	side := "above"
	if r.Got < r.Limit {
		side = "below"
	}
	change := ""
	if r.Baseline != 0 && !math.IsNaN(r.Baseline) {
		change = ", " + relChange((r.Got-r.Baseline)/math.Abs(r.Baseline))
	}
	return fmt.Sprintf("%s: %s = %s, %s the limit %s (baseline %s%s)", point, r.Metric, v(r.Got), side, v(r.Limit), v(r.Baseline), change)
}

// withUnit prints x of a metric in unit ("s", "/s" or none) at the files' six significant
// digits: seconds as milliseconds when the baseline is under a second, so that a regression
// and its limit read in the unit of the number they are compared with.
func withUnit(x float64, unit string, baseline float64) string {
	switch {
	case math.IsNaN(x):
		return "no value"
	case unit == "s" && math.Abs(baseline) < 1:
		return results.FormatFloat(round6(1000*x)) + " ms"
	case unit == "s":
		return results.FormatFloat(x) + " s"
	case unit == "/s":
		return results.FormatFloat(x) + "/s"
	}
	return results.FormatFloat(x)
}

// relChange prints a relative change as a signed percentage, two significant digits below
// 10 % ("+93 %", "-4.5 %").
func relChange(x float64) string {
	sign := "+"
	if x < 0 {
		sign, x = "-", -x
	}
	if 100*x >= 10 {
		return fmt.Sprintf("%s%.0f %%", sign, 100*x)
	}
	return sign + strconv.FormatFloat(100*x, 'g', 2, 64) + " %"
}

// checkedMetric says whether a metric is checked (one the catalogue gives a tolerance:
// results.Checked), in which direction (its catalogue's better one) and with which tolerance.
func checkedMetric(name string, tol Tolerance) (checked, lowerIsWorse bool, rel float64) {
	m, ok := results.LookupMetric(name)
	if !ok || !strings.Contains(name, ".") || m.Tolerance == 0 {
		return false, false, 0
	}
	return true, m.Better == results.BetterHigher, tol[m.Name]
}

// CheckedNames lists the short names of the metrics check watches (results.Checked), joined
// with sep and the last with last: "goodput, amplification or p99".
func CheckedNames(sep, last string) string {
	var names []string
	for _, m := range results.Checked() {
		names = append(names, m.Short)
	}
	if len(names) < 2 {
		return strings.Join(names, sep)
	}
	return strings.Join(names[:len(names)-1], sep) + last + names[len(names)-1]
}

// Check compares got with the baseline, point by point (matched by Key) and reports every
// regression, in the baseline's point and metric order:
//
//   - a metric check watches (results.Checked: goodput, amplification and the success p99)
//     whose higher values are better below (mean − ci95)·(1 − tol[name]), and one whose lower
//     values are better above (mean + ci95)·(1 + tol[name]);
//   - a baseline point missing from got, or a checked metric missing (or without a value for
//     one whose higher values are better).
//
// mean and ci95 are the baseline's; a baseline without a band (one replication) counts ci95 as 0.
// The compared value is got's mean. Both sides are compared at the six significant digits the
// files carry, so a result read back from its folder equals the same result held in memory.
// Metrics whose baseline mean has no value are not checked. A result equal to its baseline
// passes, whatever the tolerance.
func Check(b Baseline, got []PointStats, tol Tolerance) []Regression {
	var out []Regression
	for _, c := range Compare(b, got, tol) {
		if !c.Pass {
			out = append(out, c.Regression)
		}
	}
	return out
}

// Comparison is one check Compare made: a checked metric at a point, or a point, and whether it
// passed; a failed one is a Regression.
type Comparison struct {
	Regression
	Pass bool
}

// Compare makes every check Check makes, passed or not, in the same order: what a CI report
// lists as its test cases (a JUnit file), where Check gives only the failures.
func Compare(b Baseline, got []PointStats, tol Tolerance) []Comparison {
	byKey := map[string]*PointStats{}
	for i := range got {
		byKey[got[i].Key()] = &got[i]
	}
	var out []Comparison
	for _, bp := range b.Points {
		key := bp.Key()
		gp := byKey[key]
		if gp == nil {
			out = append(out, Comparison{Regression: Regression{Point: key, Baseline: math.NaN(), Got: math.NaN(), Limit: math.NaN()}})
			continue
		}
		for _, bm := range bp.Metrics {
			checked, lowerIsWorse, rel := checkedMetric(bm.Name, tol)
			if !checked || math.IsNaN(bm.Mean) {
				continue
			}
			mean, half := round6(bm.Mean), round6(bm.CI95)
			if math.IsNaN(half) {
				half = 0
			}
			gm, ok := gp.Metric(bm.Name)
			v := round6(gm.Mean)
			if !ok {
				v = math.NaN()
			}
			reg := Regression{Point: key, Metric: bm.Name, Baseline: mean, Got: v}
			if lowerIsWorse {
				reg.Limit = float64((mean - half) * (1 - rel))
				out = append(out, Comparison{reg, !(math.IsNaN(v) || v < reg.Limit)})
				continue
			}
			reg.Limit = float64((mean + half) * (1 + rel))
			out = append(out, Comparison{reg, !(!ok || v > reg.Limit)})
		}
	}
	return out
}

// round6 rounds x to the six significant digits of formatFloat; NaN and ±Inf stay as they are.
func round6(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	r, _ := strconv.ParseFloat(results.FormatFloat(x), 64)
	return r
}

// Validate refuses a baseline that would compare nothing or the wrong thing: one without a
// header naming its tool and scenario (an empty file, or a summary.json rather than a
// baseline), a partial sweep, one without points, or a point without a checked metric
// (results.Checked) that has a value.
func (b *Baseline) Validate() error {
	switch {
	case b.Header.Tool == "" || b.Header.Scenario == "":
		return errors.New("not a baseline: it has no header naming its tool and scenario (a baseline is what check --write-baseline writes, or a sweep.json)")
	case b.Partial != "":
		return fmt.Errorf("a partial sweep is no baseline (%s)", b.Partial)
	case len(b.Points) == 0:
		return errors.New("the baseline has no points: it would compare nothing")
	}
	for _, p := range b.Points {
		n := 0
		for _, m := range p.Metrics {
			if checked, _, _ := checkedMetric(m.Name, Tolerance{}); checked && !math.IsNaN(m.Mean) {
				n++
			}
		}
		if n == 0 {
			key := p.Key()
			if key == "" {
				key = "the run"
			}
			return fmt.Errorf("point %s has no %s metric with a value: it would compare nothing", key, CheckedNames(", ", " or "))
		}
	}
	return nil
}

// SameScenario refuses comparing a result of scenario got (its header) with a baseline of
// another scenario (another name).
func (b *Baseline) SameScenario(got results.Header) error {
	if b.Header.Scenario != got.Scenario {
		return fmt.Errorf("the baseline is of scenario %q, the result of %q", b.Header.Scenario, got.Scenario)
	}
	return nil
}

// ConfigDiff describes where the result's configuration (got's canonical form) first differs
// from the baseline's, "" when they are the same: a check of a changed configuration against
// its old baseline is legitimate (does the change regress?), but must say so.
func (b *Baseline) ConfigDiff(got results.Header) string {
	if b.Header.Canonical == got.Canonical {
		return ""
	}
	bl, gl := strings.Split(b.Header.Canonical, "\n"), strings.Split(got.Canonical, "\n")
	for i := 0; i < max(len(bl), len(gl)); i++ {
		var x, y string
		if i < len(bl) {
			x = bl[i]
		}
		if i < len(gl) {
			y = gl[i]
		}
		if x != y {
			return fmt.Sprintf("the result's configuration differs from the baseline's at line %d of the canonical scenario: baseline %q, result %q", i+1, x, y)
		}
	}
	return ""
}
