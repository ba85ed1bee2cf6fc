package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// A tuning's spec: the parameters it tunes, the measures it takes, its objective and its
// constraints, as parsed from the command line and as a tuning's record (package results/tune)
// and its shards (experiment.ShardInfo.Tune) carry them. It lives here, not in results/tune, because a
// shard's description carries it and results/tune imports results. The search itself is
// package analysis/tuning's; the record of a tuning, its files and what it says are package
// results/tune's.

// Names of a tuning's result.
const (
	// KindTune is the manifest kind of a tuning's folder.
	KindTune = "tune"
	// TuneFile is the whole tuning: what was tuned, every candidate and the recommendation.
	TuneFile = "tune.json"
	// TuneCandidatesFile is one row per candidate.
	TuneCandidatesFile = "candidates.csv"
)

// DefaultTuneLevels is how many values of each tuned parameter the coarse grid takes when its
// range does not say.
const DefaultTuneLevels = 5

func init() {
	// A new result written into a folder removes a tuning's files like any other result's.
	resultFiles = append(resultFiles, TuneFile, TuneCandidatesFile)
}

// TuneParam is one tuned parameter: a scenario field path and the range its candidates span.
type TuneParam struct {
	Path string `json:"path"`
	// Range is the range as given: LO:HI, LO:HI:STEPS, LO:HI:log or LO:HI:STEPS:log.
	Range string `json:"range"`
	// Unit is the unit of Lo, Hi and every candidate's value: "" for a plain number, "/s" for
	// a rate (operations/s), "s" for a duration (seconds).
	Unit string  `json:"unit"`
	Lo   float64 `json:"lo"`
	Hi   float64 `json:"hi"`
	// Levels is how many values the coarse grid takes from Lo to Hi, both included (fewer for
	// an integer field, whose rounded values are taken once each).
	Levels int `json:"levels"`
	// Log spreads the values geometrically (Lo > 0), else evenly.
	Log bool `json:"log"`
	// Integer is set for a field that takes whole numbers: every value is rounded.
	Integer bool `json:"integer"`
}

// ParseTuneParam reads PATH=LO:HI[:STEPS][:log]: LO and HI numbers of one kind (plain, rates
// such as 2000/s, durations such as 5s) with LO < HI, STEPS a whole number ≥ 2 (default
// DefaultTuneLevels), log for a geometric spacing (LO > 0). The error says which rule the spec
// breaks, without the flag it came from.
func ParseTuneParam(spec string) (TuneParam, error) {
	const want = "want PATH=LO:HI[:STEPS|log]"
	path, rng, ok := strings.Cut(spec, "=")
	path, rng = strings.TrimSpace(path), strings.TrimSpace(rng)
	if !ok || path == "" || rng == "" {
		return TuneParam{}, errors.New(want)
	}
	parts := strings.Split(rng, ":")
	if len(parts) < 2 || len(parts) > 4 {
		return TuneParam{}, fmt.Errorf("range %q: %s", rng, want)
	}
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	p := TuneParam{Path: path, Range: rng, Levels: DefaultTuneLevels}
	lo, k1, ok1 := ParseValue(parts[0])
	hi, k2, ok2 := ParseValue(parts[1])
	for _, e := range []struct {
		name, text string
		ok         bool
		x          float64
	}{{"LO", parts[0], ok1, lo}, {"HI", parts[1], ok2, hi}} {
		if !e.ok || math.IsNaN(e.x) || math.IsInf(e.x, 0) {
			return TuneParam{}, fmt.Errorf("%s %q is not a number, a rate (2000/s) or a duration (5s)", e.name, e.text)
		}
	}
	if k1 != k2 {
		return TuneParam{}, fmt.Errorf("LO %q and HI %q are of different kinds: give both plain numbers, both rates or both durations", parts[0], parts[1])
	}
	if !(lo < hi) {
		return TuneParam{}, fmt.Errorf("LO %s is not below HI %s: want LO < HI", parts[0], parts[1])
	}
	p.Lo, p.Hi = lo, hi
	p.Unit = map[ValueKind]string{ValueRate: "/s", ValueDuration: "s"}[k1]
	rest := parts[2:]
	if len(rest) > 0 && rest[len(rest)-1] == "log" {
		p.Log, rest = true, rest[:len(rest)-1]
	}
	switch len(rest) {
	case 0:
	case 1:
		n, err := strconv.Atoi(rest[0])
		if err != nil || n < 2 {
			return TuneParam{}, fmt.Errorf("STEPS %q: want a whole number ≥ 2, or log", rest[0])
		}
		p.Levels = n
	default:
		return TuneParam{}, fmt.Errorf("range %q: %s", rng, want)
	}
	if p.Log && lo <= 0 {
		return TuneParam{}, fmt.Errorf("log spacing needs LO > 0, got LO %s", parts[0])
	}
	return p, nil
}

// Text writes x as the scenario field takes it: a duration (150ms), a rate (2000/s), a whole
// number for an integer field, else a plain number.
func (p *TuneParam) Text(x float64) string {
	switch p.Unit {
	case "s":
		return time.Duration(math.Round(x * 1e9)).String()
	case "/s":
		return strconv.FormatFloat(x, 'f', -1, 64) + "/s"
	}
	if p.Integer {
		return strconv.FormatFloat(math.Round(x), 'f', 0, 64)
	}
	return strconv.FormatFloat(x, 'f', -1, 64)
}

// TuneMeasure is one metric a tuning measures on every run: a name of Summary.Metrics, over the
// measured window or, when To > 0, over the intervals within [From, To) (as an Expectation's
// window).
type TuneMeasure struct {
	Metric string        `json:"metric"`
	From   time.Duration `json:"from,omitempty"`
	To     time.Duration `json:"to,omitempty"`
}

// Name names the measure in files: the metric, with "@FROM:TO" for a window of its own
// ("total.amplification@10s:30s").
func (m TuneMeasure) Name() string {
	if m.To <= 0 {
		return m.Metric
	}
	return fmt.Sprintf("%s@%s:%s", m.Metric, m.From, m.To)
}

// String says the measure in words: "total.amplification over 10s–30s".
func (m TuneMeasure) String() string {
	e := m.Expectation()
	if w := e.Window(); w != "" {
		return m.Metric + " over " + w
	}
	return m.Metric
}

// Expectation is the measure as an Expectation without a bound, for Measure.
func (m TuneMeasure) Expectation() Expectation {
	return Expectation{Metric: m.Metric, From: m.From, To: m.To}
}

// ParseTuneWindow reads FROM:TO, two durations with 0 ≤ FROM < TO.
func ParseTuneWindow(s string) (from, to time.Duration, err error) {
	a, b, ok := strings.Cut(s, ":")
	if !ok {
		return 0, 0, fmt.Errorf("window %q: want FROM:TO, two durations such as 10s:30s", s)
	}
	from, e1 := time.ParseDuration(strings.TrimSpace(a))
	to, e2 := time.ParseDuration(strings.TrimSpace(b))
	switch {
	case e1 != nil || e2 != nil:
		return 0, 0, fmt.Errorf("window %q: want FROM:TO, two durations such as 10s:30s", s)
	case from < 0 || to <= from:
		return 0, 0, fmt.Errorf("window %q: want 0s ≤ FROM < TO", s)
	}
	return from, to, nil
}

// ParseTuneMeasure reads METRIC or METRIC@FROM:TO. A measure without a window of its own takes
// [from, to) (to 0: the measured window). The metric's name is not checked against a scenario:
// that is the caller's (scenarios validates it as an expect: block's).
func ParseTuneMeasure(s string, from, to time.Duration) (TuneMeasure, error) {
	metric, win, hasWin := strings.Cut(strings.TrimSpace(s), "@")
	metric = strings.TrimSpace(metric)
	if metric == "" {
		return TuneMeasure{}, errors.New("no metric: want METRIC or METRIC@FROM:TO, METRIC as in expect: blocks (total.goodput, group.NAME.amplification, …)")
	}
	if strings.ContainsAny(metric, " \t<>=") {
		return TuneMeasure{}, fmt.Errorf("metric %q: a metric's name has no spaces or comparisons", metric)
	}
	m := TuneMeasure{Metric: metric, From: from, To: to}
	if hasWin {
		f, t, err := ParseTuneWindow(win)
		if err != nil {
			return TuneMeasure{}, err
		}
		m.From, m.To = f, t
	}
	if m.To > 0 && strings.HasPrefix(m.Metric, "fault.") {
		// A trigger's outcome is judged after the trigger; a window would be ignored.
		m.From, m.To = 0, 0
		if hasWin {
			return TuneMeasure{}, fmt.Errorf("%s: a trigger's outcome has no window: it is judged after the trigger", metric)
		}
	}
	return m, nil
}

// TuneObjective is what a tuning optimises: a measure, maximised or minimised.
type TuneObjective struct {
	Metric string        `json:"metric"`
	From   time.Duration `json:"from,omitempty"`
	To     time.Duration `json:"to,omitempty"`
	// Sense is "maximize" or "minimize".
	Sense string `json:"sense"`
}

// Measure returns the objective's measure.
func (o TuneObjective) Measure() TuneMeasure {
	return TuneMeasure{Metric: o.Metric, From: o.From, To: o.To}
}

// Maximize reports whether the objective is to be maximised.
func (o TuneObjective) Maximize() bool { return o.Sense == "maximize" }

// String says the objective: "maximize total.goodput over 10s–30s".
func (o TuneObjective) String() string { return o.Sense + " " + o.Measure().String() }

// TuneConstraint is a bound a tuning's recommendation must meet, on the mean over a candidate's
// replications.
type TuneConstraint struct {
	Metric string        `json:"metric"`
	From   time.Duration `json:"from,omitempty"`
	To     time.Duration `json:"to,omitempty"`
	// Op is "<=", ">=", "<" or ">".
	Op    string  `json:"op"`
	Bound float64 `json:"bound"` // in the metric's unit (MetricUnit): seconds for a latency
	// Text is the constraint as given ("total.latency_ok_p99<=200ms").
	Text string `json:"text"`
}

// tuneOps are the comparisons a constraint takes, longest first.
var tuneOps = []string{"<=", ">=", "<", ">"}

// ParseTuneConstraint reads METRIC[@FROM:TO] OP BOUND, OP one of <=, >=, < and >, BOUND a number
// in the metric's unit as an expect: block's bounds are (a latency in seconds), or with its unit:
// a duration (200ms) for a latency or a recovery time, a rate (900/s) for a rate. A constraint
// without a window of its own takes [from, to) (to 0: the measured window).
func ParseTuneConstraint(s string, from, to time.Duration) (TuneConstraint, error) {
	const want = "want METRIC<=X, METRIC>=X, METRIC<X or METRIC>X (METRIC@FROM:TO for a window of its own)"
	i := strings.IndexAny(s, "<>=")
	if i < 0 {
		return TuneConstraint{}, errors.New("no comparison: " + want)
	}
	op := ""
	for _, o := range tuneOps {
		if strings.HasPrefix(s[i:], o) {
			op = o
			break
		}
	}
	if op == "" {
		return TuneConstraint{}, fmt.Errorf("comparison %q: %s", s[i:min(len(s), i+2)], want)
	}
	left, right := s[:i], strings.TrimSpace(s[i+len(op):])
	if strings.ContainsAny(right, "<>=") {
		return TuneConstraint{}, fmt.Errorf("more than one comparison: %s", want)
	}
	m, err := ParseTuneMeasure(left, from, to)
	if err != nil {
		return TuneConstraint{}, err
	}
	if right == "" {
		return TuneConstraint{}, errors.New("no bound: " + want)
	}
	x, kind, ok := ParseValue(right)
	if !ok || math.IsNaN(x) || math.IsInf(x, 0) {
		return TuneConstraint{}, fmt.Errorf("bound %q is not a number, a duration (200ms) or a rate (900/s)", right)
	}
	unit := MetricUnit(m.Metric)
	switch {
	case kind == ValueDuration && unit != "s":
		return TuneConstraint{}, fmt.Errorf("bound %q is a duration, but %s is not a latency or a recovery time", right, m.Metric)
	case kind == ValueRate && unit != "/s":
		return TuneConstraint{}, fmt.Errorf("bound %q is a rate, but %s is not a rate", right, m.Metric)
	}
	return TuneConstraint{Metric: m.Metric, From: m.From, To: m.To, Op: op, Bound: x, Text: strings.TrimSpace(s)}, nil
}

// Measure returns the constraint's measure.
func (c TuneConstraint) Measure() TuneMeasure {
	return TuneMeasure{Metric: c.Metric, From: c.From, To: c.To}
}

// Expectation is the constraint as an expect: block's expectation, whose Check it is.
func (c TuneConstraint) Expectation() Expectation {
	e := c.Measure().Expectation()
	b := c.Bound
	switch c.Op {
	case "<=":
		e.AtMost = &b
	case ">=":
		e.AtLeast = &b
	case "<":
		e.Below = &b
	case ">":
		e.Above = &b
	}
	return e
}

// Holds reports whether a candidate's mean x meets the constraint; no value (NaN) meets none.
func (c TuneConstraint) Holds(x float64) bool {
	e := c.Expectation()
	return e.Check(x, math.NaN())
}

// Upper reports whether the constraint bounds its metric from above (<=, <).
func (c TuneConstraint) Upper() bool { return c.Op == "<=" || c.Op == "<" }

// String says the constraint, its bound in the metric's unit: "total.amplification over
// 10s–30s ≤ 1.05", "total.latency_ok_p99 < 200ms", "total.goodput ≥ 900/s".
func (c TuneConstraint) String() string {
	sym := map[string]string{"<=": "≤", ">=": "≥", "<": "<", ">": ">"}[c.Op]
	bound := strconv.FormatFloat(c.Bound, 'g', -1, 64)
	switch MetricUnit(c.Metric) {
	case "s":
		bound = time.Duration(math.Round(c.Bound * 1e9)).String()
	case "/s":
		bound += "/s"
	}
	return c.Measure().String() + " " + sym + " " + bound
}

// MetricUnit returns the unit of a metric of Summary.Metrics, as the catalogue gives it
// (LookupMetric): "s" for a latency or a recovery time, "/s" for a rate, "" for the rest
// (amplification, shares, queue lengths, tokens, indicators) and for a name that is none.
func MetricUnit(metric string) string {
	if m, ok := LookupMetric(metric); ok && m.InSummary() {
		return m.Unit
	}
	return ""
}

// FormatMetric writes a value of metric in its unit, four significant digits: "213.4ms",
// "998.2/s", "1.205"; "no value" for NaN.
func FormatMetric(metric string, x float64) string { return formatMetric(metric, x, 4) }

// formatMetric is FormatMetric with digits significant digits.
func formatMetric(metric string, x float64, digits int) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "no value"
	}
	switch MetricUnit(metric) {
	case "s":
		if x == 0 {
			return "0s"
		}
		step := math.Pow(10, math.Floor(math.Log10(math.Abs(x)*1e9))-float64(digits-1))
		return time.Duration(x * 1e9).Round(time.Duration(math.Max(1, step))).String()
	case "/s":
		return strconv.FormatFloat(x, 'g', digits, 64) + "/s"
	}
	return strconv.FormatFloat(x, 'g', digits, 64)
}

// FormatMetricCI writes a mean with its confidence half-width in the metric's unit, the mean
// to four significant digits and the half-width to two: "998.2/s ± 3.1/s"; the mean alone
// without a half-width, "no value" without a mean.
func FormatMetricCI(metric string, m MetricStats) string {
	if math.IsNaN(m.Mean) || math.IsNaN(m.CI95) || math.IsInf(m.CI95, 0) {
		return FormatMetric(metric, m.Mean)
	}
	return FormatMetric(metric, m.Mean) + " ± " + formatMetric(metric, m.CI95, 2)
}

// TuneShard is a tuning as its shards carry it (experiment.ShardInfo.Tune): what to search and what to
// measure. Sharded, a tuning runs its coarse grid only, since each refinement round depends on
// the results of the one before; Merge's caller finishes it with the Search of package
// experiment/tune on the units' measures.
type TuneShard struct {
	Params      []TuneParam      `json:"params"`
	Objective   TuneObjective    `json:"objective"`
	Constraints []TuneConstraint `json:"constraints"`
}

// Key is the text that tells two shards' tunings apart ("" for none). No constraints is one
// tuning however it is held: the command's nil list and the empty list that shard.json writes
// for it, and reads back, have one key, so a merge finds the units its shards kept.
func (ts *TuneShard) Key() string {
	if ts == nil {
		return ""
	}
	k := *ts
	if len(k.Constraints) == 0 {
		k.Constraints = nil
	}
	b, _ := json.Marshal(k) // plain data: it always encodes
	return string(b)
}
