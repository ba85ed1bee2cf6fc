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

// AxisLabel labels an axis that shows metric (a summary metric's name, "group.a.latency_ok_p99"):
// words, then in brackets its unit (milliseconds or seconds for a latency, operations/s for a
// rate, attempts per operation for an amplification) and better, which way is better when
// known ("higher is better"). It returns the factor from the metric's unit to the one shown;
// values are every value the axis shows, which pick a latency's unit. This is the one place a
// metric's axis label is chosen, so that it can read the metric catalogue's unit, label and
// direction.
func AxisLabel(words, metric, better string, values []float64) (label string, k float64) {
	k = 1
	unit := ""
	switch results.MetricUnit(metric) {
	case "s":
		hi := 0.0
		for _, x := range values {
			if !math.IsNaN(x) && !math.IsInf(x, 0) {
				hi = math.Max(hi, x)
			}
		}
		unit, k = LatencyUnit(hi)
	case "/s":
		unit = "operations/s"
	default:
		if strings.HasSuffix(metric, ".amplification") {
			unit = "attempts per operation"
		}
	}
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
