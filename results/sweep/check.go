package sweep

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/phasemap"
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

// Tolerance is each gate's allowance (results.Gate.Tolerance), by the name in the catalogue of
// the metric it judges ("latency_ok_p99", "failures"): relative to the edge of the baseline's
// band for a band gate, an absolute rise of the share for a share gate; a metric it lacks has
// none (0). A no-new-stuck gate takes none.
type Tolerance map[string]float64

// DefaultTolerance returns the tolerance the check uses unless told otherwise: the catalogue's
// (results.Gate.Tolerance). A run is deterministic, so an unchanged model reproduces its
// baseline exactly; the slack is for baselines of a single replication, which have no
// confidence band: 5 % on goodput and amplification, whose run-to-run spread at a fixed
// scenario is a few percent, 10 % on the p99 and the recovery time, tail statistics with
// roughly twice that spread, and half a percentage point on the failure share.
func DefaultTolerance() Tolerance {
	t := Tolerance{}
	for _, m := range results.Checked() {
		t[m.Name] = m.Gate.Tolerance
	}
	return t
}

// shareOf is the metric a share gate takes its metric's share of, in the same group
// (results.GateShare): the offered load.
const shareOf = "offered"

// Regression is one gated value at one point that moved beyond its limit (or a point that is
// missing).
type Regression struct {
	Point string // PointStats.Key; "" for a single run
	// Metric is the gated value's full name: a metric of Summary.Metrics ("total.goodput",
	// "fault.spike.stuck"), or for a share gate its group's prefix and the gate's name
	// ("total.failure_share", results.Gate.Name); "" when the whole point is missing.
	Metric   string
	Baseline float64 // the baseline's mean (its share for a share gate)
	// Band is the half-width of the baseline's 95 % confidence band in the same unit, 0 for a
	// baseline of one replication.
	Band  float64
	Got   float64 // the compared mean; NaN when missing or without a value
	Limit float64 // the bound it crossed
	// N and BaselineN are how many replications the result's value and the baseline's count
	// (MetricStats.N): a no-new-stuck gate says its shares as "k of n".
	N, BaselineN int
	// Missing says the result lacks the metric, or one its value is computed from.
	Missing bool
}

// gate returns the catalogue's row of the metric r judges, and its gate.
func (r Regression) gate() (results.MetricInfo, results.Gate) {
	if m, ok := results.LookupGate(r.Metric); ok && m.Gate.Rule == results.GateShare {
		return m, m.Gate
	}
	m, _ := results.LookupMetric(r.Metric)
	return m, m.Gate
}

// String describes the regression in one line, in the gated value's unit, with the bound it
// crossed and how far it moved from the baseline: "run: total.latency_ok_p99 = 21.6 ms, above
// the limit 12.3 ms (baseline 11.2 ms, +93 %)"; a share in per cent, its change in percentage
// points; a stuck outcome in runs ("run: fault.spike.stuck: 1 of 1 runs stuck, where the
// baseline had none (0 of 1)").
func (r Regression) String() string {
	point := r.Point
	if point == "" {
		point = "run"
	}
	_, g := r.gate()
	switch {
	case r.Metric == "":
		return fmt.Sprintf("%s: point missing", point)
	case r.Missing:
		return fmt.Sprintf("%s: %s missing (baseline %s)", point, r.Metric, r.Value(r.Baseline))
	case math.IsNaN(r.Got):
		return fmt.Sprintf("%s: %s has no value (baseline %s)", point, r.Metric, r.Value(r.Baseline))
	case g.Rule == results.GateNoNewStuck && r.Limit == 0:
		return fmt.Sprintf("%s: %s: %s runs stuck, where the baseline had none (%s)", point, r.Metric, outOf(r.Got, r.N), outOf(r.Baseline, r.BaselineN))
	case g.Rule == results.GateNoNewStuck:
		return fmt.Sprintf("%s: %s: %s runs stuck (%s), above the limit %s, the top of the baseline's 95 %% interval (baseline %s, %s)",
			point, r.Metric, outOf(r.Got, r.N), r.Value(r.Got), r.Value(r.Limit), outOf(r.Baseline, r.BaselineN), r.Value(r.Baseline))
	}
	side := "above"
	if r.Got < r.Limit {
		side = "below"
	}
	change := ""
	if c := r.Change(); c != "" {
		change = ", " + c
	}
	return fmt.Sprintf("%s: %s = %s, %s the limit %s (baseline %s%s)", point, r.Metric, r.Value(r.Got), side, r.Value(r.Limit), r.Value(r.Baseline), change)
}

// Value prints x, a value of the gated metric, in its unit (withUnit); a share (a share gate's,
// or a no-new-stuck gate's share of runs) in per cent.
func (r Regression) Value(x float64) string {
	m, g := r.gate()
	if g.Rule == results.GateShare || g.Rule == results.GateNoNewStuck {
		return sharePercent(x)
	}
	return withUnit(x, m.Unit, r.scale())
}

// scale is the value whose size chooses the unit of a regression's numbers (withUnit): the
// baseline, or, when the baseline is 0 or has no value, the larger of the result and the
// limit (a recovery in 2 s against a baseline of 0 s reads in seconds).
func (r Regression) scale() float64 {
	if r.Baseline != 0 && !math.IsNaN(r.Baseline) {
		return r.Baseline
	}
	return max(math.Abs(r.Got), math.Abs(r.Limit))
}

// Change prints the move from the baseline to the result: a signed percentage of the baseline
// for a band gate ("+93 %"), a difference in percentage points for a share ("+2.8 points");
// for a stuck outcome of single runs, "now stuck" or "no longer stuck"; "" when there is none
// to print (no value, no change of outcome, or a baseline of 0 for a relative change).
func (r Regression) Change() string {
	_, g := r.gate()
	switch {
	case math.IsNaN(r.Got) || math.IsNaN(r.Baseline):
		return ""
	case g.Rule == results.GateNoNewStuck && r.N <= 1 && r.BaselineN <= 1 && r.Got > r.Baseline:
		return "now stuck"
	case g.Rule == results.GateNoNewStuck && r.N <= 1 && r.BaselineN <= 1 && r.Got < r.Baseline:
		return "no longer stuck"
	case g.Rule == results.GateNoNewStuck && r.N <= 1 && r.BaselineN <= 1:
		return ""
	case g.Rule == results.GateShare || g.Rule == results.GateNoNewStuck:
		return signed(100*(r.Got-r.Baseline)) + " points"
	case r.Baseline == 0:
		return ""
	}
	return relChange((r.Got - r.Baseline) / math.Abs(r.Baseline))
}

// outOf says a share of n runs as their count: "3 of 10".
func outOf(share float64, n int) string {
	return fmt.Sprintf("%d of %d", int(math.Round(share*float64(n))), n)
}

// sharePercent prints a share in per cent at the files' six significant digits: "0.71 %".
func sharePercent(x float64) string {
	if math.IsNaN(x) {
		return "no value"
	}
	return results.FormatFloat(round6(100*x)) + " %"
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
func relChange(x float64) string { return signed(100*x) + " %" }

// signed prints x with its sign, two significant digits below 10 in magnitude, none after the
// point above ("+93", "-4.5"); 0 without one.
func signed(x float64) string {
	if x == 0 {
		return "0"
	}
	sign := "+"
	if x < 0 {
		sign, x = "-", -x
	}
	if x >= 10 {
		return fmt.Sprintf("%s%.0f", sign, x)
	}
	return sign + strconv.FormatFloat(x, 'g', 2, 64)
}

// gatedMetric returns the catalogue's row of a metric named in full that check watches (one
// with a gate: results.Checked), and whether it is one.
func gatedMetric(name string) (results.MetricInfo, bool) {
	m, ok := results.LookupMetric(name)
	if !ok || !strings.Contains(name, ".") || m.Gate.Rule == results.GateNone {
		return results.MetricInfo{}, false
	}
	return m, true
}

// CheckedNames lists the names of the gates check applies (results.Checked, results.Gate.Name),
// joined with sep and the last with last: "goodput, amplification, p99, failure_share, stuck
// or recovery_time".
func CheckedNames(sep, last string) string {
	var names []string
	for _, m := range results.Checked() {
		names = append(names, m.Gate.Name)
	}
	if len(names) < 2 {
		return strings.Join(names, sep)
	}
	return strings.Join(names[:len(names)-1], sep) + last + names[len(names)-1]
}

// Check compares got with the baseline, point by point (matched by Key) and reports every
// regression, in the baseline's point and metric order, by each metric's gate
// (results.Gate, docs/metrics.md §16):
//
//   - a band gate (goodput, amplification, the success p99, a trigger's recovery time): a metric
//     whose higher values are better below (mean − ci95)·(1 − tol[name]), one whose lower
//     values are better above (mean + ci95)·(1 + tol[name]);
//   - a share gate (failures): the group's failures ÷ its offered load above the baseline's
//     (mean + ci95) ÷ offered + tol[name], an absolute allowance; it is not gated where the
//     baseline's offered load is 0 or missing;
//   - a no-new-stuck gate (a trigger's stuck share): a stuck replication where the baseline had
//     none, or a share above the upper end of the 95 % Wilson interval of the baseline's
//     (phasemap.Wilson of its stuck count and n);
//   - a baseline point missing from got, or a gated metric missing from it or without a value
//     where the baseline has one (for a recovery time: no recovery).
//
// mean and ci95 are the baseline's; a baseline without a band (one replication) counts ci95 as 0.
// The compared value is got's mean. Both sides are compared at the six significant digits the
// files carry, so a result read back from its folder equals the same result held in memory.
// Metrics whose baseline mean has no value, or that the baseline lacks, are not checked
// (Ungated lists the latter). A result equal to its baseline passes, whatever the tolerance.
func Check(b Baseline, got []PointStats, tol Tolerance) []Regression {
	var out []Regression
	for _, c := range Compare(b, got, tol) {
		if !c.Pass {
			out = append(out, c.Regression)
		}
	}
	return out
}

// Comparison is one check Compare made: a gated value at a point, or a point, and whether it
// passed; a failed one is a Regression.
type Comparison struct {
	Regression
	Pass bool
}

// Compare makes every check Check makes, passed or not, in the same order: what a CI report
// lists as its test cases (a JUnit file, a Markdown summary), where Check gives only the
// failures.
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
			m, gated := gatedMetric(bm.Name)
			if !gated || math.IsNaN(bm.Mean) {
				continue
			}
			switch m.Gate.Rule {
			case results.GateShare:
				if c, ok := compareShare(&bp, gp, bm, tol[m.Name]); ok {
					out = append(out, c)
				}
			case results.GateNoNewStuck:
				out = append(out, compareStuck(key, gp, bm))
			default:
				slack := 0.0
				if m.Gate.Interval {
					slack = b.Header.Interval.Seconds()
				}
				out = append(out, compareBand(key, gp, bm, m.Better == results.BetterHigher, tol[m.Name], slack))
			}
		}
	}
	return out
}

// compared returns got's value of the metric named like bm at six significant digits, NaN
// when it has none, and whether got lacks it.
func compared(gp *PointStats, name string) (v float64, n int, missing bool) {
	gm, ok := gp.Metric(name)
	if !ok {
		return math.NaN(), 0, true
	}
	return round6(gm.Mean), gm.N, false
}

// compareBand is a band gate's comparison of bm, the baseline's metric, with got's
// (results.GateBand); slack widens the limit further, by one sampling interval for a metric
// measured in whole intervals (results.Gate.Interval), 0 for the others.
func compareBand(key string, gp *PointStats, bm results.MetricStats, higherIsBetter bool, rel, slack float64) Comparison {
	mean, half := round6(bm.Mean), band(bm)
	v, n, missing := compared(gp, bm.Name)
	reg := Regression{Point: key, Metric: bm.Name, Baseline: mean, Band: half, Got: v, N: n, BaselineN: bm.N, Missing: missing}
	if higherIsBetter {
		reg.Limit = float64((mean - half) * (1 - rel))
		return Comparison{reg, !(math.IsNaN(v) || v < reg.Limit)}
	}
	reg.Limit = float64((mean+half)*(1+rel)) + slack
	return Comparison{reg, !(math.IsNaN(v) || v > reg.Limit)}
}

// compareShare is a share gate's comparison (results.GateShare): bm is a group's rate of
// operations (GROUP.failures) in the baseline, judged as a share of the same group's offered
// load; false when the baseline has no offered load to take a share of.
func compareShare(bp, gp *PointStats, bm results.MetricStats, abs float64) (Comparison, bool) {
	m, _ := results.LookupMetric(bm.Name)
	prefix := strings.TrimSuffix(bm.Name, m.Name)
	bo, ok := bp.Metric(prefix + shareOf)
	offered := round6(bo.Mean)
	if !ok || math.IsNaN(offered) || offered == 0 {
		return Comparison{}, false
	}
	// The shares at six significant digits too, as the files carry every value.
	reg := Regression{Point: bp.Key(), Metric: prefix + m.Gate.Name, Baseline: round6(round6(bm.Mean) / offered),
		Band: round6(band(bm) / offered), BaselineN: bm.N}
	reg.Limit = reg.Baseline + reg.Band + abs
	f, n, missingF := compared(gp, bm.Name)
	o, _, missingO := compared(gp, prefix+shareOf)
	reg.Got, reg.N, reg.Missing = round6(f/o), n, missingF || missingO
	if o == 0 || reg.Missing {
		reg.Got = math.NaN()
	}
	return Comparison{reg, !(math.IsNaN(reg.Got) || reg.Got > reg.Limit)}, true
}

// compareStuck is a no-new-stuck gate's comparison (results.GateNoNewStuck): bm's mean is the
// baseline's share of replications stuck, of bm.N.
func compareStuck(key string, gp *PointStats, bm results.MetricStats) Comparison {
	v, n, missing := compared(gp, bm.Name)
	reg := Regression{Point: key, Metric: bm.Name, Baseline: round6(bm.Mean), Got: v, N: n, BaselineN: bm.N, Missing: missing}
	bn := max(bm.N, 1) // a baseline file without counts: one replication
	if k := int(math.Round(bm.Mean * float64(bn))); k > 0 {
		_, hi := phasemap.Wilson(k, bn)
		reg.Limit = max(round6(hi), reg.Baseline)
	}
	return Comparison{reg, !math.IsNaN(v) && v <= reg.Limit}
}

// band is the half-width of the baseline metric's confidence band at six significant digits, 0
// for a baseline of one replication (which has none).
func band(bm results.MetricStats) float64 {
	if h := round6(bm.CI95); !math.IsNaN(h) {
		return h
	}
	return 0
}

// Ungated lists, in full and in the order found, the gated metrics (results.Checked) that got
// has at a point the baseline has, but that point of the baseline lacks: a baseline written
// before a gate existed, or of a configuration with fewer groups or triggers. They are not
// gated, and check says so.
func Ungated(b Baseline, got []PointStats) []string {
	byKey := map[string]*PointStats{}
	for i := range b.Points {
		byKey[b.Points[i].Key()] = &b.Points[i]
	}
	var out []string
	for _, gp := range got {
		bp := byKey[gp.Key()]
		if bp == nil {
			continue
		}
		for _, gm := range gp.Metrics {
			m, gated := gatedMetric(gm.Name)
			if !gated || math.IsNaN(gm.Mean) {
				continue
			}
			name := gm.Name
			_, has := bp.Metric(gm.Name)
			if m.Gate.Rule == results.GateShare {
				prefix := strings.TrimSuffix(gm.Name, m.Name)
				_, offered := bp.Metric(prefix + shareOf)
				has, name = has && offered, prefix+m.Gate.Name
			}
			if !has && !slices.Contains(out, name) {
				out = append(out, name)
			}
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

// Note is what a check's reader must know besides its comparisons: a sentence, and the items it
// lists, one a line (the configuration's differences, field by field).
type Note struct {
	Text  string
	Items []string
}

// String is the note as check prints it: "note: " and the sentence, then each item on a line of
// its own, indented.
func (n Note) String() string {
	var b strings.Builder
	b.WriteString("note: " + n.Text)
	for _, it := range n.Items {
		b.WriteString("\n  " + it)
	}
	return b.String()
}

// UngatedNote is the note that says, once, which gated values the baseline has none of
// (Ungated); none when it has them all.
func UngatedNote(names []string) []Note {
	if len(names) == 0 {
		return nil
	}
	return []Note{{Text: "not gated, as the baseline has no value to compare with (a baseline written by this version's check --write-baseline has them): " + strings.Join(names, ", ")}}
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
			if _, gated := gatedMetric(m.Name); gated && !math.IsNaN(m.Mean) {
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
