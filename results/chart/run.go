package chart

import (
	"math"

	"github.com/overloadsim/overloadsim/results"
)

// Sum adds column over the rows of kind named names, interval by interval, skipping missing
// values: NaN where every one is missing.
func Sum(ts *results.Timeseries, kind string, names []string, column string) []float64 {
	out := make([]float64, len(ts.Ends()))
	for i := range out {
		out[i] = math.NaN()
	}
	for _, n := range names {
		for i, v := range ts.Metric(kind, n, column) {
			if !math.IsNaN(v) {
				if math.IsNaN(out[i]) {
					out[i] = 0
				}
				out[i] += v
			}
		}
	}
	return out
}

// GroupsSum is Sum over every client group.
func GroupsSum(ts *results.Timeseries, column string) []float64 {
	return Sum(ts, results.KindGroup, ts.Names(results.KindGroup), column)
}

// RetryAmplification is the retry amplification of all groups together, interval by interval:
// attempts ÷ operations offered, NaN where nothing was offered.
func RetryAmplification(ts *results.Timeseries) []float64 {
	attempts, offered := GroupsSum(ts, "attempts"), GroupsSum(ts, "offered")
	out := make([]float64, len(offered))
	for i := range out {
		out[i] = math.NaN()
		if offered[i] > 0 {
			out[i] = attempts[i] / offered[i]
		}
	}
	return out
}

// RunCharts is the figure of a run's interactive charts in a report: the rates of all groups
// (offered, attempts, goodput, failures) and of all servers (rejections) in the panel "rates",
// the retry amplification in the panel "amplification". Each value holds for the interval
// that ends at its x (seconds). A run without intervals has no charts: nil.
func RunCharts(ts *results.Timeseries) *Figure {
	ends := ts.Ends()
	if len(ends) == 0 {
		return nil
	}
	x := make([]float64, len(ends))
	for i, e := range ends {
		x[i] = e.Seconds()
	}
	servers := ts.Names(results.KindServer)
	// The rejections are every refusal the servers counted (requests, queue overflows and
	// connections), where the timeseries figure draws the operations' (requests and queue).
	rates := []Series{
		{Label: "offered", Style: Style{Colour: Offered}, X: x, Y: GroupsSum(ts, "offered")},
		{Label: "attempts", Style: Style{Colour: Attempts}, X: x, Y: GroupsSum(ts, "attempts")},
		{Label: "goodput", Style: Style{Colour: Goodput}, X: x, Y: GroupsSum(ts, "goodput")},
		{Label: "rejections (servers)", Style: Style{Colour: Rejections}, X: x, Y: Sum(ts, results.KindServer, servers, "rejections")},
		{Label: "failures", Style: Style{Colour: Failures}, X: x, Y: GroupsSum(ts, "failures")},
	}
	amp := []Series{{Label: "amplification", Style: Style{Colour: Palette[0]}, X: x, Y: RetryAmplification(ts)}}
	return &Figure{Name: "interactive", Panels: []Panel{{Name: "rates", Series: rates}, {Name: "amplification", Series: amp}}}
}
