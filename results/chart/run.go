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
		{"offered", Offered, x, GroupsSum(ts, "offered")},
		{"attempts", Attempts, x, GroupsSum(ts, "attempts")},
		{"goodput", Goodput, x, GroupsSum(ts, "goodput")},
		{"rejections (servers)", Rejections, x, Sum(ts, results.KindServer, servers, "rejections")},
		{"failures", Failures, x, GroupsSum(ts, "failures")},
	}
	amp := []Series{{"amplification", Palette[0], x, RetryAmplification(ts)}}
	return &Figure{Name: "interactive", Panels: []Panel{{"rates", rates}, {"amplification", amp}}}
}
