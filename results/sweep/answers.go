package sweep

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/overloadsim/overloadsim/results"
)

// KneeShortfall is how far below the offered load goodput may fall at a point served in full.
const KneeShortfall = 0.05

// FailureAllowance is the largest share of a point's offered operations that may fail at a point
// served in full. Goodput alone can stay within KneeShortfall of offered while a few per cent of
// operations fail: that point is already shedding load, and counting it as served would put the
// knee, and the headroom, a step too high.
const FailureAllowance = 0.01

// DefaultLatencyFactor is the latency knee's rule without an SLO: the first point whose mean p99
// latency of successes exceeds this multiple of the p99 at the lowest offered load.
const DefaultLatencyFactor = 2

// RefineWidth is how wide, relative to its lower end, the knee's bracket may be before the
// answers give the sweep that narrows it (LoadAnswers.Refine): a bracket of [2×, 3×] today's
// load is an answer only to the nearest step.
const RefineWidth = 0.05

// RefineSteps is how many steps the narrowing sweep takes across the bracket, before its step is
// rounded down to 1, 2 or 5 times a power of ten.
const RefineSteps = 10

// LoadContext is what a sweep's answers are judged against, taken from the scenario's
// configuration before it runs (it is recorded in sweep.json): the load the scenario offers
// unchanged, the capacity it is configured with, and the latency objective.
type LoadContext struct {
	// Today is the offered load of the scenario as configured, without the sweep's values
	// (operations/s, averaged over the run); 0 when unknown.
	Today float64 `json:"today"`
	// Ceiling is the configured capacity (operations/s): for each node that takes the clients'
	// commands (a standalone, a primary), the lesser of its ingress request limiter's rate
	// (when enabled) and its workers ÷ mean service time; summed. 0 when unknown.
	Ceiling float64 `json:"ceiling"`
	// CeilingSource says where the ceiling comes from ("ingress request limiter 1000/s on db").
	CeilingSource string `json:"ceilingSource,omitempty"`
	// SLO is the p99 latency objective (seconds) of the latency knee; 0 means none, and the
	// knee is where p99 exceeds DefaultLatencyFactor × its value at the lowest load.
	SLO float64 `json:"slo,omitempty"`
	// Ceilings holds each point's own ceiling, in the sweep's point order, when the sweep
	// varies something that changes it (a limiter's rate, the workers): then Ceiling is the
	// scenario's as configured, and each line of the sweep has its own.
	Ceilings []PointCeiling `json:"ceilings,omitempty"`
	// Groups are the scenario's client groups' names in the order of clients[], for a policy
	// decision's varied group (Decide); not recorded (the decision records its group).
	Groups []string `json:"-"`
}

// PointCeiling is one sweep point's configured ceiling.
type PointCeiling struct {
	Point   string  `json:"point"` // the point's key (PointStats.Key)
	Ceiling float64 `json:"ceiling"`
}

// CeilingAt returns the ceiling at the point with key: its own, else the scenario's.
func (c LoadContext) CeilingAt(key string) float64 {
	for _, pc := range c.Ceilings {
		if pc.Point == key {
			return pc.Ceiling
		}
	}
	return c.Ceiling
}

// LoadPoint is one sweep point as the answers read it: its mean offered load and goodput, the
// share of its offered operations that failed, and its mean p99 latency of successes (seconds;
// NaN when no operation succeeded).
type LoadPoint struct {
	Offered      float64 `json:"offered"`
	Goodput      float64 `json:"goodput"`
	FailureShare float64 `json:"failureShare"`
	P99          float64 `json:"p99"`
}

// served reports whether the point was served in full: goodput within KneeShortfall of offered
// and at most FailureAllowance of its operations failed.
func (p LoadPoint) served() bool {
	return p.Goodput >= (1-KneeShortfall)*p.Offered && !(p.FailureShare > FailureAllowance)
}

// LoadAnswers answer the planner's questions about one line of a load sweep: up to which load it
// is safe, what happens beyond it, where goodput stops keeping up with the offered load (the
// knee) and where latency gives out, each as far as the sweep's points can tell.
type LoadAnswers struct {
	// Line names the points answered: "" for the whole sweep, else the value of the sweep's
	// other parameter ("mongodb-2026-03") or a client group.
	Line string `json:"line,omitempty"`
	// Ceiling is the line's own configured ceiling (LoadContext.CeilingAt its first point) when
	// the sweep varies the ceiling (LoadContext.Ceilings); 0 otherwise.
	Ceiling float64 `json:"ceiling,omitempty"`
	// LastServed is the offered load of the last point served in full (goodput within
	// KneeShortfall of offered, at most FailureAllowance failed) before the knee, and Knee that
	// of the knee, the first point not served in full: the knee lies between them. 0 when there
	// is no such point (KneeFound false: every point was served in full; LastServed 0 with a
	// knee: the lowest load was not served in full already).
	LastServed float64 `json:"lastServed"`
	Knee       float64 `json:"knee"`
	KneeFound  bool    `json:"kneeFound"`
	// LatencyKnee is the offered load of the first point whose p99 latency of successes
	// breaks LatencyRule; LatencyFound false when none does.
	LatencyKnee  float64 `json:"latencyKnee"`
	LatencyFound bool    `json:"latencyFound"`
	LatencyRule  string  `json:"latencyRule"`
	// Safe is the last point before the first that is not served in full or breaks the latency
	// rule: the highest load the sweep shows served in full within the latency rule, and Beyond
	// is that first point, what happens past it. Safe.Offered is 0 when the lowest point already
	// fails either test; Beyond.Offered is 0 when no point does.
	Safe   LoadPoint `json:"safe"`
	Beyond LoadPoint `json:"beyond"`
	// Headroom is Safe.Offered ÷ Today: how far today's load can grow with the sweep showing it
	// served in full within the latency rule. 0 when today's load is unknown or no point is safe.
	Headroom float64 `json:"headroom"`
	// KneeBracket is [LastServed, Knee] ÷ Today, and LatencyBracket the last point within the
	// latency rule and LatencyKnee ÷ Today: each true knee lies within its bracket, as precise as
	// the sweep's step. An end is 0 when unknown: no today, no such point, or the knee at the
	// lowest point swept (it lies somewhere below the sweep).
	KneeBracket    [2]float64 `json:"kneeBracket"`
	LatencyBracket [2]float64 `json:"latencyBracket"`
	// Refine is the --vary that narrows the knee's bracket when it is wider than RefineWidth
	// ("clients[0].workload.rate=1000/s:1500/s:50/s"): the swept rate between the values of
	// the two points that bracket it. "" when the bracket is narrow enough or not known.
	Refine string `json:"refine,omitempty"`
}

// AnswerLoad finds the safe load, the knee and the latency knee of points (one line of a sweep,
// in any order: they are taken in order of mean offered load), using the prefix's metrics
// ("total." or "group.NAME."), and the headroom from ctx.Today. load is the swept rate's path,
// for Refine ("" gives none).
func AnswerLoad(points []*PointStats, prefix, load string, ctx LoadContext) LoadAnswers {
	type pt struct {
		LoadPoint
		rate string // the swept rate's value at the point
	}
	var pts []pt
	for _, p := range points {
		o, _ := p.Metric(prefix + "offered")
		g, _ := p.Metric(prefix + "goodput")
		f, ok := p.Metric(prefix + "failures")
		if !ok {
			f.Mean = 0
		}
		l, ok := p.Metric(prefix + "latency_ok_p99")
		if !ok {
			l.Mean = math.NaN()
		}
		if o.N == 0 || g.N == 0 || math.IsNaN(o.Mean) || math.IsNaN(g.Mean) {
			continue
		}
		share := 0.0
		if o.Mean > 0 {
			share = f.Mean / o.Mean
		}
		q := pt{LoadPoint: LoadPoint{Offered: o.Mean, Goodput: g.Mean, FailureShare: share, P99: l.Mean}}
		for _, pr := range p.Params {
			if pr.Path == load {
				q.rate = pr.Value
			}
		}
		pts = append(pts, q)
	}
	slices.SortStableFunc(pts, func(a, b pt) int { return cmp.Compare(a.Offered, b.Offered) })
	var a LoadAnswers
	if len(points) > 0 && len(ctx.Ceilings) > 0 {
		a.Ceiling = ctx.CeilingAt(points[0].Key())
	}
	knee := -1
	for i, p := range pts {
		if !p.served() {
			a.Knee, a.KneeFound, knee = p.Offered, true, i
			if i > 0 {
				a.LastServed = pts[i-1].Offered
			}
			break
		}
	}
	limit := ctx.SLO
	a.LatencyRule = fmt.Sprintf("p99 latency above the %s SLO", FormatDuration(ctx.SLO))
	if limit <= 0 {
		limit = math.NaN()
		for _, p := range pts {
			if !math.IsNaN(p.P99) {
				limit = DefaultLatencyFactor * p.P99
				a.LatencyRule = fmt.Sprintf("p99 latency above %g × its %s at the lowest load", float64(DefaultLatencyFactor), FormatDuration(p.P99))
				break
			}
		}
	}
	latency := -1
	for i, p := range pts {
		if p.P99 > limit {
			a.LatencyKnee, a.LatencyFound, latency = p.Offered, true, i
			break
		}
	}
	// The safe point is the last before the first trouble of either kind.
	first := -1
	for _, i := range []int{knee, latency} {
		if i >= 0 && (first < 0 || i < first) {
			first = i
		}
	}
	switch {
	case first < 0 && len(pts) > 0:
		a.Safe = pts[len(pts)-1].LoadPoint
	case first > 0:
		a.Safe, a.Beyond = pts[first-1].LoadPoint, pts[first].LoadPoint
	case first == 0:
		a.Beyond = pts[0].LoadPoint
	}
	if today := ctx.Today; today > 0 {
		a.Headroom = a.Safe.Offered / today
		// A knee at the lowest point swept lies somewhere below it: no bracket end is claimed.
		if knee > 0 {
			a.KneeBracket = [2]float64{a.LastServed / today, a.Knee / today}
		}
		if latency > 0 {
			a.LatencyBracket = [2]float64{pts[latency-1].Offered / today, a.LatencyKnee / today}
		}
	}
	if knee > 0 && a.Knee > (1+RefineWidth)*a.LastServed {
		a.Refine = refine(load, pts[knee-1].rate, pts[knee].rate)
	}
	return a
}

// refine returns the --vary value that sweeps path's rate from lo to hi in about RefineSteps
// steps of 1, 2 or 5 times a power of ten; "" when either value is not a rate.
func refine(path, lo, hi string) string {
	nums, kind, _, ok := results.ParseValues([]string{lo, hi})
	if path == "" || !ok || kind != results.ValueRate || !(nums[1] > nums[0]) {
		return ""
	}
	raw := (nums[1] - nums[0]) / RefineSteps
	step := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{5, 2} {
		if m*step <= raw {
			step *= m
			break
		}
	}
	rate := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) + "/s" }
	return fmt.Sprintf("%s=%s:%s:%s", path, rate(nums[0]), rate(nums[1]), rate(step))
}

// FormatDuration prints seconds as a duration ("25ms", "1.2s").
func FormatDuration(s float64) string {
	if math.IsNaN(s) {
		return "no value"
	}
	return time.Duration(s * float64(time.Second)).Round(100 * time.Microsecond).String()
}

// roundDuration prints seconds as a duration to three significant figures ("24.6ms", "1.95s"),
// for a sentence that compares two latencies.
func roundDuration(s float64) string {
	if math.IsNaN(s) || s <= 0 {
		return FormatDuration(s)
	}
	unit := time.Duration(math.Pow(10, math.Floor(math.Log10(s*float64(time.Second)))-2))
	return time.Duration(s * float64(time.Second)).Round(max(unit, 1)).String()
}

// Sentence says the context in words: the configured ceiling and today's load.
func (c LoadContext) Sentence() string {
	var parts []string
	switch {
	case c.Ceiling > 0 && len(c.Ceilings) > 0:
		parts = append(parts, fmt.Sprintf("The sweep varies the configured ceiling (%.0f/s as configured: %s).", c.Ceiling, c.CeilingSource))
	case c.Ceiling > 0:
		parts = append(parts, fmt.Sprintf("The configured ceiling is %.0f/s (%s).", c.Ceiling, c.CeilingSource))
	}
	if c.Today > 0 {
		parts = append(parts, fmt.Sprintf("Today's load (the scenario as configured) is %.0f/s.", c.Today))
	}
	return strings.Join(parts, " ")
}

// Sentences says the answers in words, the one to act on first: up to which load it is safe and
// what happens beyond it; then the knee and the latency knee, each as a bracket; the sweep that
// narrows a wide bracket; the configured ceiling.
func (a LoadAnswers) Sentences() []string {
	var out []string
	times := func(x float64) string { // "2.00× today's load, " or nothing without today
		if x == 0 {
			return ""
		}
		return fmt.Sprintf("%.2f×, ", x)
	}
	switch {
	case a.Safe.Offered == 0 && a.Beyond.Offered > 0:
		out = append(out, fmt.Sprintf("No load swept is safe: at the lowest, %.0f/s, %s. No headroom is claimed: today's load may be past the knee too; sweep lower loads to find it.", a.Beyond.Offered, a.trouble()))
	case a.Beyond.Offered == 0 && a.Headroom > 0:
		out = append(out, fmt.Sprintf("Safe to at least %.2f× today's load (%.0f/s): every load swept was served in full within the latency rule, so the knee is beyond the sweep.", a.Headroom, a.Safe.Offered))
	case a.Beyond.Offered == 0:
		out = append(out, fmt.Sprintf("Every load swept, up to %.0f/s, was served in full within the latency rule: the knee is beyond the sweep.", a.Safe.Offered))
	case a.Headroom > 0 && a.Headroom < 1:
		out = append(out, fmt.Sprintf("Today's load may already be past the safe load: safe only to %.0f/s (%.2f× today's load); beyond it, at %.0f/s, %s.", a.Safe.Offered, a.Headroom, a.Beyond.Offered, a.trouble()))
	case a.Headroom > 0:
		out = append(out, fmt.Sprintf("Safe to %.2f× today's load (%.0f/s): beyond it, at %.0f/s, %s.", a.Headroom, a.Safe.Offered, a.Beyond.Offered, a.trouble()))
	default:
		out = append(out, fmt.Sprintf("Safe to %.0f/s: beyond it, at %.0f/s, %s.", a.Safe.Offered, a.Beyond.Offered, a.trouble()))
	}
	switch {
	case !a.KneeFound:
	case a.LastServed == 0:
		out = append(out, fmt.Sprintf("The knee is below the sweep: the lowest load, %.0f/s, was not served in full.", a.Knee))
	default:
		out = append(out, fmt.Sprintf("The knee is between %.0f/s (%sserved in full: goodput within %.0f %% of offered, at most %.0f %% failed) and %.0f/s (%snot served in full).",
			a.LastServed, times(a.KneeBracket[0]), 100*KneeShortfall, 100*FailureAllowance, a.Knee, times(a.KneeBracket[1])))
	}
	if a.LatencyFound {
		out = append(out, fmt.Sprintf("Latency gives out at %.0f/s (%s%s).", a.LatencyKnee, times(a.LatencyBracket[1]), a.LatencyRule))
	} else {
		out = append(out, fmt.Sprintf("Latency holds at every load swept (no %s).", a.LatencyRule))
	}
	if a.Refine != "" {
		out = append(out, fmt.Sprintf("To narrow the knee, sweep --vary '%s'.", a.Refine))
	}
	if a.Ceiling > 0 {
		out = append(out, fmt.Sprintf("Configured ceiling: %.0f/s.", a.Ceiling))
	}
	return out
}

// trouble says what goes wrong at Beyond, the first point past the safe load: the latency, the
// goodput and the failures, each where it breaks its rule.
func (a LoadAnswers) trouble() string {
	b := a.Beyond
	var parts []string
	if a.LatencyFound && a.LatencyKnee == b.Offered {
		if a.Safe.Offered > 0 && !math.IsNaN(a.Safe.P99) {
			parts = append(parts, fmt.Sprintf("p99 jumps from %s to %s", roundDuration(a.Safe.P99), roundDuration(b.P99)))
		} else {
			parts = append(parts, fmt.Sprintf("p99 is %s", roundDuration(b.P99)))
		}
	}
	if b.Goodput < (1-KneeShortfall)*b.Offered {
		parts = append(parts, fmt.Sprintf("goodput falls %.0f %% short of offered", 100*(1-b.Goodput/b.Offered)))
	}
	if b.FailureShare > FailureAllowance {
		if a.Safe.Offered > 0 && a.Safe.FailureShare == 0 {
			parts = append(parts, fmt.Sprintf("failures begin (%s of operations)", percent(b.FailureShare)))
		} else {
			parts = append(parts, fmt.Sprintf("%s of operations fail", percent(b.FailureShare)))
		}
	}
	if len(parts) == 0 {
		return "the answers' rules break"
	}
	return results.JoinAnd(parts)
}

// percent prints a share as a percentage to two significant figures, whole numbers from 10 %
// ("0.42 %", "3.5 %", "26 %", "100 %").
func percent(x float64) string {
	if 100*x >= 10 {
		return fmt.Sprintf("%.0f %%", 100*x)
	}
	return strconv.FormatFloat(100*x, 'g', 2, 64) + " %"
}

// IsLoadPath reports whether a sweep parameter is a workload's rate, or the scenario's load
// factor (load, plain numbers: every open-loop group's rate × the factor), so that the sweep is
// a load sweep: its x is the offered load, and today's load and the headroom mean something.
func IsLoadPath(path string, values []string) bool {
	_, kind, _, ok := results.ParseValues(values)
	return ok && (kind == results.ValueRate && strings.Contains(path, "workload") || kind == results.ValueNumber && path == "load")
}

// AnswerBlock is the answers of one or more lines of a load sweep printed once: the lines it
// applies to, in sweep order, and its sentences. A sentence that differs between the lines is
// given once per line, prefixed with the line's name.
type AnswerBlock struct {
	Lines     []string `json:"lines"`
	Sentences []string `json:"sentences"`
}

// kneeKey is what makes two lines' answers coincide: the same safe load, the same first load
// beyond it, the same knee bracket and latency knee, and the same number of sentences.
type kneeKey struct {
	safe, beyond, lastServed, knee, latency float64
	kneeFound, latencyFound                 bool
	sentences                               int
}

// MergeAnswers groups the lines whose answers coincide (the same safe load, knee and latency
// knee, as kneeKey) into one block naming them all, in order of first appearance: a sentence
// the lines share word for word is given once, the others once per line. A sweep whose lines
// all reach the same knee (a policy that does not move it) thus says so once, not once per
// line.
func MergeAnswers(answers []LoadAnswers) []AnswerBlock {
	var keys []kneeKey
	groups := map[kneeKey][]LoadAnswers{}
	for _, a := range answers {
		k := kneeKey{a.Safe.Offered, a.Beyond.Offered, a.LastServed, a.Knee, a.LatencyKnee, a.KneeFound, a.LatencyFound, len(a.Sentences())}
		if _, seen := groups[k]; !seen {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], a)
	}
	var out []AnswerBlock
	for _, k := range keys {
		g := groups[k]
		var b AnswerBlock
		sentences := make([][]string, len(g))
		for i, a := range g {
			b.Lines = append(b.Lines, a.Line)
			sentences[i] = a.Sentences()
		}
		for j := range sentences[0] {
			same := true
			for i := range sentences {
				same = same && sentences[i][j] == sentences[0][j]
			}
			if same || len(g) == 1 {
				b.Sentences = append(b.Sentences, sentences[0][j])
				continue
			}
			for i := range sentences {
				b.Sentences = append(b.Sentences, g[i].Line+": "+sentences[i][j])
			}
		}
		out = append(out, b)
	}
	return out
}
