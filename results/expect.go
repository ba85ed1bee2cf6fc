package results

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/overloadsim/overloadsim/sim"
)

// Expectation is one claim about a run, as data (a scenario's expect: block): a metric of
// Summary.Metrics, measured over the run's measured window or over a window of its own, and a
// bound on it. In a sweep it applies to the points whose parameters match At (every point when
// At is empty), and Over says how the replications of a point are judged.
type Expectation struct {
	// Metric is a name of Summary.Metrics: "total.goodput", "group.adaptive.amplification",
	// "server.db.reject_share", "fault.cpu-cut.recovery_time", …
	Metric string `json:"metric"`
	// From and To, when To > 0, measure the metric over the intervals within [From, To) of the
	// run instead of its measured window (group, total and server metrics only).
	From time.Duration `json:"from,omitempty"`
	To   time.Duration `json:"to,omitempty"`
	// At selects sweep points by parameter values ("faults[0].for" = "8s").
	At []Param `json:"at,omitempty"`
	// Over is how a sweep point's replications are judged: "each" (the default: every
	// replication must pass) or "mean" (the mean over the replications must: a share of
	// replications for the fault.NAME.recovered, stuck and undecided indicators).
	Over string `json:"over,omitempty"`
	// The bound: exactly one of Below (<), Above (>), AtMost (≤), AtLeast (≥), Between (the
	// closed interval [Between[0], Between[1]]), or Within, a relative tolerance around a
	// reference. The reference is Of (a number) or OfMetric (another metric of the same run,
	// measured over the same window); with another bound, a reference makes it relative: below
	// 0.005 of total.offered is below 0.005 × total.offered.
	Below    *float64  `json:"below,omitempty"`
	Above    *float64  `json:"above,omitempty"`
	AtMost   *float64  `json:"atMost,omitempty"`
	AtLeast  *float64  `json:"atLeast,omitempty"`
	Between  []float64 `json:"between,omitempty"`
	Within   *float64  `json:"within,omitempty"`
	Of       *float64  `json:"of,omitempty"`
	OfMetric string    `json:"ofMetric,omitempty"`
}

// Window says the expectation's window: "" for the run's measured window.
func (e *Expectation) Window() string {
	if e.To <= 0 {
		return ""
	}
	return fmt.Sprintf("%s–%s", e.From, e.To)
}

// String says the expectation in one line: "group.adaptive.amplification over 10s–30s < 1.5",
// with " at PATH=VALUE" for one that selects sweep points.
func (e *Expectation) String() string {
	s := e.claim()
	if len(e.At) > 0 {
		s += " at " + ParamsText(e.At)
	}
	return s
}

// claim is String without the points it applies at.
func (e *Expectation) claim() string {
	var b strings.Builder
	b.WriteString(e.Metric)
	if w := e.Window(); w != "" {
		b.WriteString(" over " + w)
	}
	b.WriteString(" " + e.boundText())
	if e.Over == "mean" {
		b.WriteString(" (mean over replications)")
	}
	return b.String()
}

func (e *Expectation) boundText() string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	ref := ""
	switch {
	case e.OfMetric != "":
		ref = " × " + e.OfMetric
	case e.Of != nil:
		ref = " × " + f(*e.Of)
	}
	switch {
	case e.Below != nil:
		return "< " + f(*e.Below) + ref
	case e.Above != nil:
		return "> " + f(*e.Above) + ref
	case e.AtMost != nil:
		return "≤ " + f(*e.AtMost) + ref
	case e.AtLeast != nil:
		return "≥ " + f(*e.AtLeast) + ref
	case len(e.Between) == 2:
		return "in [" + f(e.Between[0]) + ", " + f(e.Between[1]) + "]" + ref
	case e.Within != nil && e.OfMetric != "":
		return "within " + strconv.FormatFloat(100**e.Within, 'g', 6, 64) + " % of " + e.OfMetric
	case e.Within != nil && e.Of != nil:
		return "within " + strconv.FormatFloat(100**e.Within, 'g', 6, 64) + " % of " + f(*e.Of)
	}
	return "(no bound)"
}

// reference returns the bound's scale: the reference for a relative bound, 1 without one, NaN
// when the reference metric has no value.
func (e *Expectation) reference(of float64) float64 {
	switch {
	case e.Of != nil:
		return *e.Of
	case e.OfMetric != "":
		return of
	}
	return 1
}

// Check reports whether a measured value (and, for Within OfMetric, the measured reference)
// meets the bound. A NaN value meets no bound.
func (e *Expectation) Check(value, of float64) bool {
	k := e.reference(of)
	if math.IsNaN(value) || math.IsNaN(k) {
		return false
	}
	switch {
	case e.Below != nil:
		return value < *e.Below*k
	case e.Above != nil:
		return value > *e.Above*k
	case e.AtMost != nil:
		return value <= *e.AtMost*k
	case e.AtLeast != nil:
		return value >= *e.AtLeast*k
	case len(e.Between) == 2:
		return value >= e.Between[0]*k && value <= e.Between[1]*k
	case e.Within != nil:
		return math.Abs(value-k) <= *e.Within*math.Abs(k)
	}
	return false
}

// Matches reports whether the expectation applies at a sweep point with params (every At
// parameter has the point's value); with no At, it applies everywhere.
func (e *Expectation) Matches(params []Param) bool {
	for _, a := range e.At {
		if !slices.Contains(params, a) {
			return false
		}
	}
	return true
}

// Measured is what one run measured for one expectation: the metric's value and, for Within
// OfMetric, the reference's. Both NaN when the run has no such metric.
type Measured struct {
	Value float64 `json:"value"`
	Of    float64 `json:"of"`
	// Skip says why the run cannot judge the expectation ("the run ends at 4s, before the
	// window 10s–30s does"): a scenario shortened by an override keeps its claims about a
	// longer run, and they are skipped, not failed.
	Skip string `json:"skip,omitempty"`
}

// Measure measures every expectation on one run: its summary, and its series for windows.
// A metric the run does not have measures NaN (and so fails).
func Measure(exps []Expectation, sum *Summary, series *Series) []Measured {
	out := make([]Measured, len(exps))
	windows := map[[2]time.Duration]*Summary{}
	for i := range exps {
		e := &exps[i]
		s := sum
		if e.To > 0 && series != nil && e.To > time.Duration(series.End()) {
			out[i] = Measured{Value: math.NaN(), Of: math.NaN(),
				Skip: fmt.Sprintf("the run ends at %s, before the window %s does", time.Duration(series.End()), e.Window())}
			continue
		}
		if e.To > 0 && series != nil {
			key := [2]time.Duration{e.From, e.To}
			if windows[key] == nil {
				w := windowSummary(series, e.From, e.To)
				windows[key] = &w
			}
			s = windows[key]
		}
		out[i] = Measured{Value: metricOf(s, e.Metric), Of: math.NaN()}
		if e.OfMetric != "" {
			out[i].Of = metricOf(s, e.OfMetric)
		}
	}
	return out
}

func metricOf(s *Summary, name string) float64 {
	for _, m := range s.Metrics() {
		if m.Name == name {
			return m.Value
		}
	}
	return math.NaN()
}

// windowSummary summarises the intervals of series within [from, to).
func windowSummary(series *Series, from, to time.Duration) Summary {
	w := *series
	w.Groups = slices.DeleteFunc(slices.Clone(series.Groups), func(g GroupInterval) bool { return g.End > sim.Time(to) })
	w.Servers = slices.DeleteFunc(slices.Clone(series.Servers), func(v ServerInterval) bool { return v.End > sim.Time(to) })
	w.Shards = slices.DeleteFunc(slices.Clone(series.Shards), func(v ShardInterval) bool { return v.End > sim.Time(to) })
	return Summarize(&w, from)
}

// Verdict is an expectation judged: at one sweep point (Params; none for a run), with the
// value measured (for Over "each", the worst replication's), and whether it passed.
type Verdict struct {
	// Index is the expectation's place in the scenario's expect: block, from 0.
	Index       int     `json:"index"`
	Expectation string  `json:"expectation"`
	Params      []Param `json:"params,omitempty"`
	Value       float64 `json:"value"`
	Pass        bool    `json:"pass"`
	// Detail says more when there is more to say: "2 of 5 replications fail", "no such metric".
	Detail string `json:"detail,omitempty"`
}

// String is "PASS group.adaptive.amplification over 10s–30s < 1.5: 1.21".
func (v Verdict) String() string {
	word := "FAIL"
	if v.Pass {
		word = "PASS"
	}
	s := fmt.Sprintf("%s %s: %s", word, v.Expectation, strconv.FormatFloat(v.Value, 'g', 4, 64))
	if len(v.Params) > 0 {
		s = fmt.Sprintf("%s %s at %s: %s", word, v.Expectation, ParamsText(v.Params), strconv.FormatFloat(v.Value, 'g', 4, 64))
	}
	if v.Detail != "" {
		s += " (" + v.Detail + ")"
	}
	return s
}

// JudgeRun judges the expectations that apply to a single run: not those of sweep points
// (At) nor means over replications (Over "mean"), which only a sweep judges, nor a recovery
// time when the trigger did not recover (it has none: another expectation says whether it
// must).
func JudgeRun(exps []Expectation, m []Measured) []Verdict {
	return slices.DeleteFunc(Judge(exps, nil, [][]Measured{m}), func(v Verdict) bool {
		return exps[v.Index].Over == "mean" || NoRecoveryTime(&exps[v.Index], m[v.Index])
	})
}

// NoRecoveryTime reports whether the expectation is on a recovery time that the run does not
// have, because its trigger did not recover.
func NoRecoveryTime(e *Expectation, m Measured) bool {
	return strings.HasPrefix(e.Metric, "fault.") && strings.HasSuffix(e.Metric, ".recovery_time") && math.IsNaN(m.Value)
}

// Judge judges every expectation that applies at a point (params; nil for a single run) over
// its replications' measurements (reps[r][i] is replication r's of expectation i).
func Judge(exps []Expectation, params []Param, reps [][]Measured) []Verdict {
	var out []Verdict
	for i := range exps {
		e := &exps[i]
		if !e.Matches(params) || len(reps) == 0 {
			continue
		}
		v := Verdict{Index: i, Expectation: e.claim(), Params: slices.Clone(params)}
		// A replication where the metric has no value (the recovery time of one that did not
		// recover) is left out, as in a sweep's means; one must have a value.
		var vs, ofs, bad []float64
		skipped := 0
		for _, r := range reps {
			if i >= len(r) || r[i].Skip != "" {
				skipped++ // measured before the expectation existed, or not judgeable
				continue
			}
			if math.IsNaN(r[i].Value) {
				continue
			}
			vs, ofs = append(vs, r[i].Value), append(ofs, r[i].Of)
			if !e.Check(r[i].Value, r[i].Of) {
				bad = append(bad, r[i].Value)
			}
		}
		if skipped == len(reps) {
			continue // no replication can judge it: the caller says why (Measured.Skip)
		}
		missing := ""
		if n := len(reps) - len(vs); n > 0 && len(vs) > 0 {
			missing = fmt.Sprintf("; %d of %d replications have no value", n, len(reps))
		}
		if len(vs) == 0 {
			v.Value, v.Pass = math.NaN(), false
			v.Detail = "no replication has a value"
			if len(reps) == 1 {
				v.Detail = "the run has no value"
			}
		} else if e.Over == "mean" {
			v.Value = meanOf(vs)
			v.Pass = e.Check(v.Value, meanOf(ofs))
			if len(vs) > 1 {
				v.Detail = fmt.Sprintf("mean of %d replications", len(vs)) + missing
			}
		} else {
			v.Value, v.Pass = meanOf(vs), len(bad) == 0
			g := func(x float64) string { return strconv.FormatFloat(x, 'g', 4, 64) }
			switch {
			case len(vs) > 1 && len(bad) > 0:
				var bs []string
				for _, x := range bad {
					bs = append(bs, g(x))
				}
				v.Detail = fmt.Sprintf("mean of %d replications; %d fail: %s", len(vs), len(bad), strings.Join(bs, ", ")) + missing
			case len(vs) > 1:
				v.Detail = fmt.Sprintf("mean of %d replications, each from %s to %s", len(vs), g(slices.Min(vs)), g(slices.Max(vs))) + missing
			default:
				v.Detail = strings.TrimPrefix(missing, "; ")
			}
		}
		out = append(out, v)
	}
	return out
}

func meanOf(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	if len(xs) == 0 {
		return math.NaN()
	}
	return s / float64(len(xs))
}

// Failed counts the verdicts that did not pass.
func Failed(vs []Verdict) int {
	n := 0
	for _, v := range vs {
		if !v.Pass {
			n++
		}
	}
	return n
}

// ParamsText says a point's parameters: "path=value, path=value", in their order.
func ParamsText(ps []Param) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.Path + "=" + p.Value
	}
	return strings.Join(parts, ", ")
}
