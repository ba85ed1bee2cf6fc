package sweep

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/overloadsim/overloadsim/results"
)

// KneeShortfall is how far below the offered load goodput must fall for a sweep point to be the
// knee: the first point, in order of offered load, whose mean goodput is below
// (1 − KneeShortfall) × its mean offered load.
const KneeShortfall = 0.05

// DefaultLatencyFactor is the latency knee's rule without an SLO: the first point whose mean p99
// latency of successes exceeds this multiple of the p99 at the lowest offered load.
const DefaultLatencyFactor = 2

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

// LoadAnswers answer the planner's questions about one line of a load sweep: where goodput
// stops keeping up with the offered load (the knee), where latency gives out, and how far
// today's load is from both.
type LoadAnswers struct {
	// Line names the points answered: "" for the whole sweep, else the value of the sweep's
	// other parameter ("mongodb-2026-03") or a client group.
	Line string `json:"line,omitempty"`
	// Ceiling is the line's own configured ceiling (LoadContext.CeilingAt its first point) when
	// the sweep varies the ceiling (LoadContext.Ceilings); 0 otherwise.
	Ceiling float64 `json:"ceiling,omitempty"`
	// LastServed is the offered load of the last point served in full (goodput within
	// KneeShortfall of offered) before the knee, and Knee that of the knee: the knee lies
	// between them. 0 when there is no such point (KneeFound false: goodput kept up
	// everywhere; LastServed 0 with a knee: it fell short at the lowest load already).
	LastServed float64 `json:"lastServed"`
	Knee       float64 `json:"knee"`
	KneeFound  bool    `json:"kneeFound"`
	// LatencyKnee is the offered load of the first point whose p99 latency of successes
	// breaks LatencyRule; LatencyFound false when none does.
	LatencyKnee  float64 `json:"latencyKnee"`
	LatencyFound bool    `json:"latencyFound"`
	LatencyRule  string  `json:"latencyRule"`
	// Headroom is Knee ÷ Today, LatencyHeadroom LatencyKnee ÷ Today; 0 when either is unknown,
	// and 0 when the knee (or latency knee) is the lowest point swept: it lies somewhere below
	// that point, so no headroom figure can be claimed.
	Headroom        float64 `json:"headroom"`
	LatencyHeadroom float64 `json:"latencyHeadroom"`
}

// AnswerLoad finds the knee and the latency knee of points (one line of a sweep, in any
// order: they are taken in order of mean offered load), using the prefix's metrics ("total."
// or "group.NAME."), and the headroom from ctx.Today.
func AnswerLoad(points []*PointStats, prefix string, ctx LoadContext) LoadAnswers {
	type pt struct{ offered, goodput, p99 float64 }
	var pts []pt
	for _, p := range points {
		o, _ := p.Metric(prefix + "offered")
		g, _ := p.Metric(prefix + "goodput")
		l, ok := p.Metric(prefix + "latency_ok_p99")
		if !ok {
			l.Mean = math.NaN()
		}
		if o.N == 0 || g.N == 0 || math.IsNaN(o.Mean) || math.IsNaN(g.Mean) {
			continue
		}
		pts = append(pts, pt{o.Mean, g.Mean, l.Mean})
	}
	slices.SortStableFunc(pts, func(a, b pt) int { return cmp.Compare(a.offered, b.offered) })
	var a LoadAnswers
	if len(points) > 0 && len(ctx.Ceilings) > 0 {
		a.Ceiling = ctx.CeilingAt(points[0].Key())
	}
	for i, p := range pts {
		if p.goodput < (1-KneeShortfall)*p.offered {
			a.Knee, a.KneeFound = p.offered, true
			if i > 0 {
				a.LastServed = pts[i-1].offered
			}
			break
		}
	}
	limit := ctx.SLO
	a.LatencyRule = fmt.Sprintf("p99 latency above the %s SLO", FormatDuration(ctx.SLO))
	if limit <= 0 {
		limit = math.NaN()
		for _, p := range pts {
			if !math.IsNaN(p.p99) {
				limit = DefaultLatencyFactor * p.p99
				a.LatencyRule = fmt.Sprintf("p99 latency above %g × its %s at the lowest load", float64(DefaultLatencyFactor), FormatDuration(p.p99))
				break
			}
		}
	}
	for _, p := range pts {
		if p.p99 > limit {
			a.LatencyKnee, a.LatencyFound = p.offered, true
			break
		}
	}
	// A knee at the lowest point swept lies somewhere below it: Knee ÷ Today would claim more
	// headroom than there is, so none is given (Sentences says why).
	if ctx.Today > 0 && len(pts) > 0 {
		if a.KneeFound && a.Knee > pts[0].offered {
			a.Headroom = a.Knee / ctx.Today
		}
		if a.LatencyFound && a.LatencyKnee > pts[0].offered {
			a.LatencyHeadroom = a.LatencyKnee / ctx.Today
		}
	}
	return a
}

// FormatDuration prints seconds as a duration ("25ms", "1.2s").
func FormatDuration(s float64) string {
	if math.IsNaN(s) {
		return "no value"
	}
	return time.Duration(s * float64(time.Second)).Round(100 * time.Microsecond).String()
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

// Sentences says the answers in words, one finding per sentence: the knee, the latency knee,
// the headroom.
func (a LoadAnswers) Sentences() []string {
	var out []string
	switch {
	case !a.KneeFound:
		out = append(out, "Goodput kept up with every load swept: the knee is beyond the sweep.")
	case a.LastServed == 0:
		out = append(out, fmt.Sprintf("Goodput already falls more than %.0f %% short of the lowest load swept (%.0f/s): the knee is below the sweep.", 100*KneeShortfall, a.Knee))
	default:
		out = append(out, fmt.Sprintf("The knee is between %.0f/s (served in full) and %.0f/s (goodput more than %.0f %% short of offered).", a.LastServed, a.Knee, 100*KneeShortfall))
	}
	if a.LatencyFound {
		out = append(out, fmt.Sprintf("Latency gives out at %.0f/s (%s).", a.LatencyKnee, a.LatencyRule))
	} else {
		out = append(out, fmt.Sprintf("Latency holds at every load swept (no %s).", a.LatencyRule))
	}
	if a.Ceiling > 0 {
		out = append(out, fmt.Sprintf("Configured ceiling: %.0f/s.", a.Ceiling))
	}
	var hs []string
	if a.Headroom > 0 {
		hs = append(hs, fmt.Sprintf("%.2f× to the knee", a.Headroom))
	}
	if a.LatencyHeadroom > 0 {
		hs = append(hs, fmt.Sprintf("%.2f× to the latency knee", a.LatencyHeadroom))
	}
	if len(hs) > 0 {
		out = append(out, "Headroom over today's load: "+strings.Join(hs, ", ")+".")
	}
	if a.KneeFound && a.LastServed == 0 {
		out = append(out, "No headroom is claimed: the lowest load swept is already past the knee, so today's load may be too; sweep lower loads to find the knee.")
	}
	return out
}

// IsLoadPath reports whether a sweep parameter is a workload's rate, or the scenario's load
// factor (load, plain numbers: every open-loop group's rate × the factor), so that the sweep is
// a load sweep: its x is the offered load, and today's load and the headroom mean something.
func IsLoadPath(path string, values []string) bool {
	_, kind, _, ok := results.ParseValues(values)
	return ok && (kind == results.ValueRate && strings.Contains(path, "workload") || kind == results.ValueNumber && path == "load")
}
