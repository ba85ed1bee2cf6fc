package chart

import (
	"math"
	"strings"

	"github.com/overloadsim/overloadsim/results"
)

// LatencyUnit picks milliseconds or seconds for latencies up to hi seconds: the unit's name
// and the factor from seconds to it.
func LatencyUnit(hi float64) (name string, scale float64) {
	if hi >= 10 {
		return "s", 1
	}
	return "ms", 1000
}

// LogScale decides the y scale of values: a log axis when the positive values span more than
// a factor of 50, else linear from 0. It returns the positive extremes (NaN when none).
func LogScale(series ...[]float64) (useLog bool, lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, ys := range series {
		for _, y := range ys {
			if !math.IsNaN(y) && !math.IsInf(y, 0) && y > 0 {
				lo, hi = math.Min(lo, y), math.Max(hi, y)
			}
		}
	}
	if math.IsInf(lo, 1) {
		return false, math.NaN(), math.NaN()
	}
	return hi/lo > 50, lo, hi
}

// figureWords are the figures' words for the metrics whose axis they do not name by the
// catalogue's label (results.MetricInfo.Label): amplification is read as attempts per
// operation, and a sweep's p99 latency is of successes by its title.
var figureWords = map[string]string{
	"amplification":  "attempts per operation",
	"latency_ok_p99": "p99 latency",
}

// unitWords is how an axis writes the unit of metric (a summary metric's name), from the
// metric catalogue (results.LookupMetric): milliseconds or seconds for a latency, chosen by
// the largest of values, "operations/s" for a rate, "attempts per operation" for an
// amplification, none for the rest; and the factor from the metric's unit to the one shown.
func unitWords(metric string, values []float64) (unit string, k float64) {
	m, ok := results.LookupMetric(metric)
	if !ok || !m.InSummary() {
		return "", 1
	}
	switch {
	case m.Unit == "s":
		hi := 0.0
		for _, x := range values {
			if !math.IsNaN(x) && !math.IsInf(x, 0) {
				hi = math.Max(hi, x)
			}
		}
		return LatencyUnit(hi)
	case m.Unit == "/s":
		return "operations/s", 1
	case m.Name == "amplification":
		return figureWords[m.Name], 1
	}
	return "", 1
}

// MetricAxis labels a figure's y axis that shows metric (a summary metric's name): the
// figure's words for it (the catalogue's label, or figureWords), then in brackets its unit
// (unitWords, where the words do not already say it) and "log scale" on a log axis:
// "goodput (operations/s)", "attempts per operation", "p99 latency (ms, log scale)". It
// returns the factor from the metric's unit to the one shown.
func MetricAxis(metric string, values []float64, log bool) (label string, k float64) {
	m, _ := results.LookupMetric(metric)
	words, ok := figureWords[m.Name]
	if !ok {
		words = m.Label
	}
	unit, k := unitWords(metric, values)
	var parts []string
	if unit != "" && unit != words {
		parts = append(parts, unit)
	}
	if log {
		parts = append(parts, "log scale")
	}
	if len(parts) > 0 {
		words += " (" + strings.Join(parts, ", ") + ")"
	}
	return words, k
}

// AxisLabel labels an axis that shows metric (a summary metric's name, "group.a.latency_ok_p99"):
// words, then in brackets its unit (unitWords: read from the metric catalogue) and better,
// which way is better when known ("higher is better"). It returns the factor from the metric's
// unit to the one shown; values are every value the axis shows, which pick a latency's unit.
func AxisLabel(words, metric, better string, values []float64) (label string, k float64) {
	unit, k := unitWords(metric, values)
	var parts []string
	if unit != "" {
		parts = append(parts, unit)
	}
	if better != "" {
		parts = append(parts, better)
	}
	label = words
	if len(parts) > 0 {
		label += "\n(" + strings.Join(parts, ", ") + ")"
	}
	return label, k
}
