package results

import (
	"cmp"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/overloadsim/overloadsim/internal/stats"
)

// A tuning searches a scenario's parameters for the setting that optimises one metric subject to
// bounds on others: "how large a retry budget, how many overload retries?" The metrics are the
// ones a scenario's expect: block names (Summary.Metrics), measured the same way (Measure), over
// the measured window or a window [from, to) of the run.
//
// The search (Tuning.Search) runs a coarse grid over every tuned parameter (DefaultTuneLevels
// levels each unless the range says otherwise), each candidate Replications times with common
// random numbers: replication r of every candidate runs with the same seed, ReplicationSeed(seed,
// r) of package scenarios, as a sweep's points do, so that the candidates differ by their
// parameters and not by their luck. Per candidate it keeps the mean of every measured metric and
// the half-width of its 95 % Student-t confidence interval (as Aggregate does). A candidate is
// feasible when every constraint holds for its mean. Then Refine rounds each put a finer grid
// between the best feasible candidate's neighbours along each parameter (the nearest values
// evaluated on either side), and run the candidates not run before. The recommendation is the
// feasible candidate with the best objective mean, ties going to the smaller parameter values
// in order; the runners-up are the other feasible candidates whose objective interval overlaps
// the recommendation's: the evidence does not tell them apart.

// Names of a tuning's result.
const (
	// KindTune is the manifest kind of a tuning's folder.
	KindTune = "tune"
	// TuneFile is the whole tuning: what was tuned, every candidate and the recommendation.
	TuneFile = "tune.json"
	// TuneCandidatesFile is one row per candidate.
	TuneCandidatesFile = "candidates.csv"
	// TuneSchema names the layout of tune.json (docs/schemas/tune.schema.json); it changes when
	// a field changes meaning or goes away.
	TuneSchema = "overloadsim/tune/1"
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

// Grid returns the coarse grid's values of the parameter, in increasing order.
func (p *TuneParam) Grid() []float64 { return p.span(p.Lo, p.Hi, p.Levels) }

// span returns n values from lo to hi, both included, spread as the parameter's are, rounded
// (round) and each taken once.
func (p *TuneParam) span(lo, hi float64, n int) []float64 {
	var out []float64
	for i := 0; i < n; i++ {
		f := float64(i) / float64(n-1)
		x := lo + float64(f*(hi-lo))
		if p.Log {
			x = lo * math.Pow(hi/lo, f)
		}
		switch i {
		case 0:
			x = lo
		case n - 1:
			x = hi
		}
		if x = p.round(x); !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// round returns x as a candidate takes it: a whole number for an integer field, else four
// significant digits (so that a value reads as it is written, and a refinement does not split
// hairs).
func (p *TuneParam) round(x float64) float64 {
	if p.Integer {
		return math.Round(x)
	}
	r, err := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 4, 64), 64)
	if err != nil {
		return x
	}
	return r
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

// refineLevels is how many values a refinement round spans each gap with, from the best
// candidate to a neighbour: half the coarse grid's levels, at least 3 (a new value in the
// middle).
func (p *TuneParam) refineLevels() int { return max(3, (p.Levels+1)/2) }

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

// better reports whether objective value a is better than b.
func (o TuneObjective) better(a, b float64) bool {
	if o.Maximize() {
		return a > b
	}
	return a < b
}

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

// upper reports whether the constraint bounds its metric from above (<=, <).
func (c TuneConstraint) upper() bool { return c.Op == "<=" || c.Op == "<" }

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

// TuneShard is a tuning as its shards carry it (ShardInfo.Tune): what to search and what to
// measure. Sharded, a tuning runs its coarse grid only, since each refinement round depends on
// the results of the one before; Merge's caller finishes it with Search on the units' measures.
type TuneShard struct {
	Params      []TuneParam      `json:"params"`
	Objective   TuneObjective    `json:"objective"`
	Constraints []TuneConstraint `json:"constraints"`
}

// key is the text that tells two shards' tunings apart ("" for none).
func (ts *TuneShard) key() string {
	if ts == nil {
		return ""
	}
	b, _ := json.Marshal(ts) // plain data: it always encodes
	return string(b)
}

// TuneCandidate is one setting a tuning ran: its parameters' values and what its replications
// measured.
type TuneCandidate struct {
	// Params are the tuned fields' values as the scenario takes them, in the tuning's order.
	Params []Param `json:"params"`
	// Values are the same values as numbers, in each parameter's Unit.
	Values []float64 `json:"values"`
	// Round is the round the candidate came from: 0 for the coarse grid, k for the k-th
	// refinement.
	Round        int `json:"round"`
	Replications int `json:"replications"`
	// Metrics are the mean and 95 % confidence half-width of every measure (Tuning.Measures, in
	// its order, named by TuneMeasure.Name) over the replications where it has a value.
	Metrics  []MetricStats `json:"metrics"`
	Feasible bool          `json:"feasible"`
	// Failed names the constraints the candidate's means break (TuneConstraint.String), and the
	// objective when it has no value.
	Failed []string `json:"failed"`
}

// Metric returns the candidate's statistics of the measure named name (TuneMeasure.Name).
func (c *TuneCandidate) Metric(name string) MetricStats {
	for _, m := range c.Metrics {
		if m.Name == name {
			return m
		}
	}
	return MetricStats{Name: name, Mean: math.NaN(), CI95: math.NaN()}
}

// Label names the candidate by its parameters: "clients[0].driver.maxAdaptiveRetries=1".
func (c *TuneCandidate) Label() string { return ParamsText(c.Params) }

// TunePick is a candidate the tuning points to: the recommendation or a runner-up.
type TunePick struct {
	Candidate int           `json:"candidate"` // its index in Tuning.Candidates
	Params    []Param       `json:"params"`
	Objective MetricStats   `json:"objective"`
	Metrics   []MetricStats `json:"metrics"`
}

// TuneExclusion is what one constraint did to the candidates.
type TuneExclusion struct {
	Constraint string `json:"constraint"` // TuneConstraint.String
	// Excluded counts the candidates whose mean breaks the constraint (others may break it too).
	Excluded int `json:"excluded"`
	// Best is the value closest to meeting the constraint, or deepest inside it, over every
	// candidate: the least mean for an upper bound, the greatest for a lower one; NaN when no
	// candidate has a value. BestAt is that candidate's parameters.
	Best   float64 `json:"best"`
	BestAt []Param `json:"bestAt"`
}

// Tuning is a tuning's whole result: what was tuned, against what, every candidate it ran and
// what it recommends (tune.json).
type Tuning struct {
	Schema string `json:"schema"` // TuneSchema
	Header Header `json:"header"`
	// Digest is the SHA-256 of the scenario's canonical form (ScenarioDigest), as tuned: the
	// candidates change only the tuned fields.
	Digest       string `json:"digest"`
	Seed         uint64 `json:"seed"`
	Replications int    `json:"replications"`
	// Refine is how many refinement rounds were asked for; Rounds how many ran, the coarse grid
	// included.
	Refine      int              `json:"refine"`
	Rounds      int              `json:"rounds"`
	Params      []TuneParam      `json:"params"`
	Objective   TuneObjective    `json:"objective"`
	Constraints []TuneConstraint `json:"constraints"`
	// Measures are the metrics every candidate's Metrics hold, in order: the objective, the
	// constraints', then those of the Pareto figure (ParetoX, ParetoY) when not among them.
	Measures []TuneMeasure `json:"measures"`
	// ParetoX and ParetoY name the measures of the Pareto figure: x the objective (or, when the
	// objective is an amplification, the first other metric), y an amplification.
	ParetoX    string          `json:"paretoX"`
	ParetoY    string          `json:"paretoY"`
	Candidates []TuneCandidate `json:"candidates"`
	// Recommendation is the feasible candidate with the best objective mean; nil when no
	// candidate is feasible.
	Recommendation *TunePick `json:"recommendation"`
	// RunnersUp are the other feasible candidates whose objective confidence interval overlaps
	// the recommendation's, best objective first.
	RunnersUp  []TunePick      `json:"runnersUp"`
	Exclusions []TuneExclusion `json:"exclusions"`
	// Pareto lists the feasible candidates on the Pareto front of ParetoX and ParetoY (none
	// better in both, one better in either), in increasing ParetoX.
	Pareto []int `json:"pareto"`
	// Notes say what a reader should know about the recommendation: a value at an end of its
	// range, beyond which a better one may lie.
	Notes []string `json:"notes"`
	// Partial says why the search is incomplete (it was interrupted); "" for a whole result.
	Partial string `json:"partial,omitempty"`
}

// NewTuning sets up a tuning of the scenario in hdr (its seed the base seed of every
// candidate's replications) before it runs: what it measures and what its Pareto figure shows.
func NewTuning(hdr Header, params []TuneParam, obj TuneObjective, cons []TuneConstraint, reps, refine int) *Tuning {
	t := &Tuning{Schema: TuneSchema, Header: hdr, Digest: ScenarioDigest(hdr.Canonical), Seed: hdr.Seed,
		Replications: reps, Refine: refine, Params: slices.Clone(params), Objective: obj,
		Constraints: slices.Clone(cons)}
	add := func(m TuneMeasure) string {
		if !slices.ContainsFunc(t.Measures, func(x TuneMeasure) bool { return x.Name() == m.Name() }) {
			t.Measures = append(t.Measures, m)
		}
		return m.Name()
	}
	add(obj.Measure())
	for _, c := range cons {
		add(c.Measure())
	}
	om := obj.Measure()
	y := TuneMeasure{}
	for _, m := range t.Measures {
		if isAmplification(m.Metric) {
			y = m
			break
		}
	}
	if y.Metric == "" {
		y = TuneMeasure{Metric: metricPrefix(om.Metric) + "amplification", From: om.From, To: om.To}
	}
	x := om
	if isAmplification(om.Metric) {
		x = TuneMeasure{Metric: metricPrefix(om.Metric) + "goodput", From: om.From, To: om.To}
		for _, m := range t.Measures[1:] {
			if m.Name() != y.Name() {
				x = m
				break
			}
		}
	}
	t.ParetoY = add(y)
	t.ParetoX = add(x)
	return t
}

// isAmplification reports whether metric is a group's or the total's amplification.
func isAmplification(metric string) bool {
	return strings.HasSuffix(metric, ".amplification") && !strings.HasPrefix(metric, "server.")
}

// metricPrefix is the group of metric: "group.NAME." for a group's, else "total.".
func metricPrefix(metric string) string {
	if strings.HasPrefix(metric, "group.") {
		if i := strings.LastIndex(metric, "."); i > len("group.") {
			return metric[:i+1]
		}
	}
	return "total."
}

// Grid returns the coarse grid's candidates, every combination of the parameters' grid values,
// the first parameter varying slowest.
func (t *Tuning) Grid() []TuneCandidate {
	axes := make([][]float64, len(t.Params))
	for i := range t.Params {
		axes[i] = t.Params[i].Grid()
	}
	return t.product(axes, 0, nil)
}

// GridSize is how many candidates the coarse grid has at most (before an integer field's
// rounded values are taken once each), computed without building it.
func (t *Tuning) GridSize() float64 {
	n := 1.0
	for _, p := range t.Params {
		n *= float64(p.Levels)
	}
	return n
}

// RefineSize is how many new candidates one refinement round runs at most.
func (t *Tuning) RefineSize() float64 {
	n := 1.0
	for _, p := range t.Params {
		n *= float64(2*p.refineLevels() - 1)
	}
	return n - 1
}

// product returns the candidates of round round at every combination of axes' values (the
// first varying slowest) that no candidate of t has, each once.
func (t *Tuning) product(axes [][]float64, round int, have map[string]bool) []TuneCandidate {
	combos := [][]float64{nil}
	for _, ax := range axes {
		var next [][]float64
		for _, c := range combos {
			for _, x := range ax {
				next = append(next, append(slices.Clone(c), x))
			}
		}
		combos = next
	}
	var out []TuneCandidate
	for _, vs := range combos {
		c := t.candidate(vs, round)
		if key := c.Label(); !have[key] {
			out = append(out, c)
		}
	}
	return out
}

// candidate returns the candidate with values vs (in the parameters' units) of round round.
func (t *Tuning) candidate(vs []float64, round int) TuneCandidate {
	c := TuneCandidate{Values: slices.Clone(vs), Round: round}
	for i := range t.Params {
		c.Params = append(c.Params, Param{Path: t.Params[i].Path, Value: t.Params[i].Text(vs[i])})
	}
	return c
}

// refinement returns the candidates of refinement round round: along each parameter, from the
// best feasible candidate to its neighbours (the nearest values any candidate has on either
// side, the range's end where there is none), a finer grid; every combination not run before.
// None without a feasible candidate.
func (t *Tuning) refinement(round int) []TuneCandidate {
	if t.Recommendation == nil {
		return nil
	}
	best := t.Candidates[t.Recommendation.Candidate]
	axes := make([][]float64, len(t.Params))
	for d := range t.Params {
		p := &t.Params[d]
		var seen []float64
		for _, c := range t.Candidates {
			if !slices.Contains(seen, c.Values[d]) {
				seen = append(seen, c.Values[d])
			}
		}
		slices.Sort(seen)
		b := best.Values[d]
		i := slices.Index(seen, b)
		lo, hi := seen[max(i-1, 0)], seen[min(i+1, len(seen)-1)]
		ax := []float64{b}
		if lo < b {
			ax = append(ax, p.span(lo, b, p.refineLevels())...)
		}
		if hi > b {
			ax = append(ax, p.span(b, hi, p.refineLevels())...)
		}
		slices.Sort(ax)
		axes[d] = slices.Compact(ax)
	}
	have := map[string]bool{}
	for i := range t.Candidates {
		have[t.Candidates[i].Label()] = true
	}
	return t.product(axes, round, have)
}

// TuneEval runs the candidates of one round: values[c][m][r] is what replication r of candidate
// c measured of measure m (Tuning.Measures; NaN for no value), and done[c] whether every
// replication of candidate c finished. An error stops the search: the candidates done are kept.
type TuneEval func(round int, cands []TuneCandidate) (values [][][]float64, done []bool, err error)

// Search runs the tuning: the coarse grid, then up to Refine refinement rounds, each around the
// best feasible candidate so far (a round with no new candidate ends the search early), and
// selects the recommendation (Select). When eval fails, the candidates it finished are kept,
// the tuning is marked Partial, and the error is returned.
func (t *Tuning) Search(eval TuneEval) error {
	next := t.Grid()
	for round := 0; len(next) > 0; round++ {
		values, done, err := eval(round, next)
		finished := 0
		for i := range next {
			if i < len(done) && done[i] && i < len(values) {
				t.add(next[i], values[i])
				finished++
			}
		}
		t.Rounds = round + 1
		t.Select()
		if err != nil {
			t.Partial = fmt.Sprintf("stopped in round %d (%s): %d of its %d candidates finished", round, roundName(round), finished, len(next))
			return err
		}
		if round >= t.Refine {
			break
		}
		next = t.refinement(round + 1)
	}
	return nil
}

// roundName says what a round is: "the coarse grid" or "refinement 2".
func roundName(round int) string {
	if round == 0 {
		return "the coarse grid"
	}
	return fmt.Sprintf("refinement %d", round)
}

// add keeps a finished candidate with the statistics of its replications' values (per measure;
// NaN values left out, as Aggregate does).
func (t *Tuning) add(c TuneCandidate, values [][]float64) {
	c.Replications = t.Replications
	c.Metrics = nil
	for m := range t.Measures {
		var vs []float64
		if m < len(values) {
			for _, v := range values[m] {
				if !math.IsNaN(v) {
					vs = append(vs, v)
				}
			}
		}
		mean, half := stats.MeanCI(vs, ConfidenceLevel)
		c.Metrics = append(c.Metrics, MetricStats{Name: t.Measures[m].Name(), Mean: mean, CI95: half, N: len(vs)})
	}
	t.Candidates = append(t.Candidates, c)
}

// AddCandidate keeps a candidate measured elsewhere: its statistics per measure (Metrics, named
// by TuneMeasure.Name), for tools and tests that have them without running (Select decides the
// rest).
func (t *Tuning) AddCandidate(c TuneCandidate) { t.Candidates = append(t.Candidates, c) }

// Select judges every candidate: feasible when its objective has a value and every
// constraint holds for its mean; then the recommendation (the feasible candidate with the best
// objective mean, ties to the smaller parameter values in order), the runners-up (the other
// feasible candidates whose objective confidence interval overlaps the recommendation's), what
// each constraint excluded, and the Pareto front.
func (t *Tuning) Select() {
	objName := t.Objective.Measure().Name()
	for i := range t.Candidates {
		c := &t.Candidates[i]
		c.Failed = nil
		if math.IsNaN(c.Metric(objName).Mean) {
			c.Failed = append(c.Failed, t.Objective.Measure().String()+": no value")
		}
		for _, k := range t.Constraints {
			if !k.Holds(c.Metric(k.Measure().Name()).Mean) {
				c.Failed = append(c.Failed, k.String())
			}
		}
		c.Feasible = len(c.Failed) == 0
	}
	best := -1
	for i := range t.Candidates {
		c := &t.Candidates[i]
		if !c.Feasible {
			continue
		}
		if best < 0 || t.before(c, &t.Candidates[best]) {
			best = i
		}
	}
	t.Recommendation, t.RunnersUp = nil, nil
	if best >= 0 {
		r := t.pick(best)
		t.Recommendation = &r
		bo := r.Objective
		var ups []int
		for i := range t.Candidates {
			c := &t.Candidates[i]
			if i == best || !c.Feasible {
				continue
			}
			o := c.Metric(objName)
			if math.Abs(o.Mean-bo.Mean) <= halfWidth(o)+halfWidth(bo) {
				ups = append(ups, i)
			}
		}
		slices.SortStableFunc(ups, func(a, b int) int {
			ca, cb := &t.Candidates[a], &t.Candidates[b]
			if t.before(ca, cb) {
				return -1
			}
			if t.before(cb, ca) {
				return 1
			}
			return 0
		})
		for _, i := range ups {
			t.RunnersUp = append(t.RunnersUp, t.pick(i))
		}
	}
	t.Exclusions = nil
	for _, k := range t.Constraints {
		ex := TuneExclusion{Constraint: k.String(), Best: math.NaN()}
		for i := range t.Candidates {
			c := &t.Candidates[i]
			x := c.Metric(k.Measure().Name()).Mean
			if !k.Holds(x) {
				ex.Excluded++
			}
			if math.IsNaN(x) {
				continue
			}
			if math.IsNaN(ex.Best) || k.upper() && x < ex.Best || !k.upper() && x > ex.Best {
				ex.Best, ex.BestAt = x, slices.Clone(c.Params)
			}
		}
		t.Exclusions = append(t.Exclusions, ex)
	}
	t.Pareto = t.paretoFront()
	t.Notes = nil
	if t.Recommendation != nil {
		c := &t.Candidates[t.Recommendation.Candidate]
		for d := range t.Params {
			p := &t.Params[d]
			end := ""
			switch c.Values[d] {
			case p.round(p.Lo):
				end = "lower"
			case p.round(p.Hi):
				end = "upper"
			}
			if end != "" {
				t.Notes = append(t.Notes, fmt.Sprintf("the recommendation is at the %s end of %s's range (%s): a better setting may lie beyond it; widen the range to look",
					end, p.Path, c.Params[d].Value))
			}
		}
	}
}

// halfWidth is a confidence half-width, 0 when there is none (one replication).
func halfWidth(m MetricStats) float64 {
	if math.IsNaN(m.CI95) || math.IsInf(m.CI95, 0) {
		return 0
	}
	return m.CI95
}

// before reports whether candidate a ranks before b: a better objective mean, or an equal one
// and smaller parameter values, compared in order.
func (t *Tuning) before(a, b *TuneCandidate) bool {
	name := t.Objective.Measure().Name()
	oa, ob := a.Metric(name).Mean, b.Metric(name).Mean
	switch {
	case t.Objective.better(oa, ob):
		return true
	case t.Objective.better(ob, oa):
		return false
	}
	return slices.Compare(a.Values, b.Values) < 0
}

// pick returns candidate i as a TunePick.
func (t *Tuning) pick(i int) TunePick {
	c := &t.Candidates[i]
	return TunePick{Candidate: i, Params: slices.Clone(c.Params), Objective: c.Metric(t.Objective.Measure().Name()),
		Metrics: slices.Clone(c.Metrics)}
}

// ParetoXMaximize reports whether a larger ParetoX is better: for the objective, its sense; for
// a constrained metric, the direction its first constraint pushes; otherwise for a rate of
// successes (goodput), yes.
func (t *Tuning) ParetoXMaximize() bool {
	if t.ParetoX == t.Objective.Measure().Name() {
		return t.Objective.Maximize()
	}
	for _, k := range t.Constraints {
		if k.Measure().Name() == t.ParetoX {
			return !k.upper()
		}
	}
	for _, m := range t.Measures {
		if m.Name() == t.ParetoX {
			return strings.HasSuffix(m.Metric, ".goodput")
		}
	}
	return false
}

// paretoFront returns the feasible candidates that no other feasible candidate dominates on
// (ParetoX, ParetoY), ParetoY an amplification to minimise, in increasing ParetoX (ties by
// ParetoY, then index).
func (t *Tuning) paretoFront() []int {
	type pt struct {
		i    int
		x, y float64
	}
	sign := -1.0 // a larger x is better when maximising: compare -x
	if !t.ParetoXMaximize() {
		sign = 1
	}
	var pts []pt
	for i := range t.Candidates {
		c := &t.Candidates[i]
		x, y := c.Metric(t.ParetoX).Mean, c.Metric(t.ParetoY).Mean
		if c.Feasible && valid(x) && valid(y) {
			pts = append(pts, pt{i, x, y})
		}
	}
	var front []int
	for _, a := range pts {
		dominated := false
		for _, b := range pts {
			if sign*b.x <= sign*a.x && b.y <= a.y && (sign*b.x < sign*a.x || b.y < a.y) {
				dominated = true
				break
			}
		}
		if !dominated {
			front = append(front, a.i)
		}
	}
	slices.SortStableFunc(front, func(a, b int) int {
		ca, cb := &t.Candidates[a], &t.Candidates[b]
		return cmp.Or(cmp.Compare(ca.Metric(t.ParetoX).Mean, cb.Metric(t.ParetoX).Mean),
			cmp.Compare(ca.Metric(t.ParetoY).Mean, cb.Metric(t.ParetoY).Mean), cmp.Compare(a, b))
	})
	return front
}

// valid reports whether x is a finite number.
func valid(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// Infeasible says why there is no recommendation, "" when there is one (or no candidate ran):
// each constraint that excluded every candidate, with the closest any candidate came ("no
// candidate met total.amplification ≤ 1.05: the least was 1.21 at
// clients[0].driver.maxAdaptiveRetries=0"); when none did alone, what each excluded.
func (t *Tuning) Infeasible() string {
	if t.Recommendation != nil || len(t.Candidates) == 0 {
		return ""
	}
	n := len(t.Candidates)
	var all []string
	for i, k := range t.Constraints {
		if ex := t.Exclusions[i]; ex.Excluded == n {
			all = append(all, fmt.Sprintf("no candidate met %s: %s", k, t.closest(k, ex)))
		}
	}
	if len(all) > 0 {
		return strings.Join(all, "; ")
	}
	obj := t.Objective.Measure()
	withObj := 0
	for i := range t.Candidates {
		if !math.IsNaN(t.Candidates[i].Metric(obj.Name()).Mean) {
			withObj++
		}
	}
	if withObj == 0 {
		return fmt.Sprintf("no candidate has a value of the objective %s", obj)
	}
	var parts []string
	for i, k := range t.Constraints {
		ex := t.Exclusions[i]
		parts = append(parts, fmt.Sprintf("%s excluded %d of %d (%s)", k, ex.Excluded, n, t.closest(k, ex)))
	}
	return fmt.Sprintf("no candidate met every constraint at once: %s", strings.Join(parts, "; "))
}

// closest says the closest the candidates came to meeting constraint k: "the least was 1.21 at
// PATH=VALUE".
func (t *Tuning) closest(k TuneConstraint, ex TuneExclusion) string {
	if math.IsNaN(ex.Best) {
		return "no candidate has a value"
	}
	word := "most"
	if k.upper() {
		word = "least"
	}
	return fmt.Sprintf("the %s was %s at %s", word, FormatMetric(k.Metric, ex.Best), ParamsText(ex.BestAt))
}

// Describe says the recommendation in lines: the setting, then each measure's mean ± its
// confidence half-width (with the constraint it meets).
func (t *Tuning) Describe() []string {
	if t.Recommendation == nil {
		return nil
	}
	c := &t.Candidates[t.Recommendation.Candidate]
	lines := []string{"recommended: " + c.Label()}
	width := 0
	for _, m := range t.Measures {
		width = max(width, len([]rune(m.String())))
	}
	for i, m := range t.Measures {
		st := c.Metric(m.Name())
		line := fmt.Sprintf("  %s%s  %s", m.String(), strings.Repeat(" ", width-len([]rune(m.String()))), FormatMetricCI(m.Metric, st))
		switch {
		case i == 0:
			line += "  (objective: " + t.Objective.Sense + ")"
		default:
			var ks []string
			for _, k := range t.Constraints {
				if k.Measure().Name() == m.Name() {
					ks = append(ks, strings.TrimSpace(strings.TrimPrefix(k.String(), m.String())))
				}
			}
			if len(ks) > 0 {
				line += "  (constraint " + strings.Join(ks, ", ") + ")"
			}
		}
		lines = append(lines, line)
	}
	return lines
}

// PickText says a pick in one line: its parameters and its objective's mean ± half-width.
func (t *Tuning) PickText(p TunePick) string {
	return fmt.Sprintf("%s: %s %s", ParamsText(p.Params), t.Objective.Metric, FormatMetricCI(t.Objective.Metric, p.Objective))
}

// WriteTuneDir writes candidates.csv and tune.json into dir (created if needed), replacing the
// result it held (see WriteRunDir); a partial tuning is marked so in the manifest and in a first
// comment line of candidates.csv.
func WriteTuneDir(dir string, t *Tuning) error {
	m := newManifest(KindTune, t.Header)
	m.Partial = t.Partial
	return writeResult(dir, m, []outputFile{
		{TuneCandidatesFile, func(w io.Writer) error {
			if t.Partial != "" {
				if _, err := fmt.Fprintf(w, "# partial: %s\n", t.Partial); err != nil {
					return err
				}
			}
			return WriteTuneCandidates(w, t)
		}},
		{TuneFile, func(w io.Writer) error { return writeJSON(w, t) }}})
}

// ReadTune reads tune.json from a tuning's folder.
func ReadTune(dir string) (Tuning, error) {
	var t Tuning
	return t, readJSON(filepath.Join(dir, TuneFile), &t)
}

// WriteTuneCandidates writes the candidates as CSV, one row each in the order they ran: the
// round; one column per tuned parameter, its value as a number (PATH_per_s for a rate, PATH_s
// for a duration in seconds, PATH for a plain number); replications; feasible (true or false);
// choice ("recommended", "runner-up" or empty); failed (the constraints broken, joined by "; ");
// then NAME_mean, NAME_ci95 and NAME_n per measure (TuneMeasure.Name). An empty cell is "no
// value".
func WriteTuneCandidates(w io.Writer, t *Tuning) error {
	header := []string{"round"}
	for _, p := range t.Params {
		col := p.Path
		switch p.Unit {
		case "/s":
			col += "_per_s"
		case "s":
			col += "_s"
		}
		header = append(header, col)
	}
	header = append(header, "replications", "feasible", "choice", "failed")
	for _, m := range t.Measures {
		header = append(header, m.Name()+"_mean", m.Name()+"_ci95", m.Name()+"_n")
	}
	choice := map[int]string{}
	for _, r := range t.RunnersUp {
		choice[r.Candidate] = "runner-up"
	}
	if t.Recommendation != nil {
		choice[t.Recommendation.Candidate] = "recommended"
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return err
	}
	for i := range t.Candidates {
		c := &t.Candidates[i]
		row := []string{itoa(c.Round)}
		for _, v := range c.Values {
			row = append(row, formatFloat(v))
		}
		row = append(row, itoa(c.Replications), strconv.FormatBool(c.Feasible), choice[i], strings.Join(c.Failed, "; "))
		for _, m := range t.Measures {
			st := c.Metric(m.Name())
			row = append(row, formatFloat(st.Mean), formatFloat(st.CI95), itoa(st.N))
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
