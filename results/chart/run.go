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

// Charts is the figure of the run's interactive charts in a report, with the titles, axis
// labels, shaded windows and reference lines the renderer draws as given: the rates of all
// groups (goodput, failures, attempts, offered) and of all servers (rejections) in the panel
// "rates", with the configured ceiling when it is known, the retry amplification in the panel
// "amplification", one above the other (Weights: the rates the taller). Each value holds for
// the interval that ends at its x (seconds). The series come in drawing order, as in the
// timeseries figure: goodput widest and first, offered dashed and last, so that where they
// coincide (nothing fails, nothing retries) both show.
func (r *Run) Charts() *Figure {
	ts := r.TS
	x := r.Ends
	// The rejections are every refusal the servers counted (requests, queue overflows and
	// connections), where the timeseries figure draws the operations' (requests and queue).
	rates := r.timePanel("All client groups: rates per second", "per second", true)
	rates.Name = "rates"
	rates.Series = []Series{
		{Label: "goodput", Style: goodputStyle, X: x, Y: GroupsSum(ts, "goodput")},
		{Label: "failures", Style: Style{Failures, Medium, Solid}, X: x, Y: GroupsSum(ts, "failures")},
		{Label: "rejections (servers)", Style: Style{Rejections, Medium, Solid}, X: x, Y: Sum(ts, results.KindServer, r.Servers, "rejections")},
		{Label: "attempts", Style: attemptsStyle, X: x, Y: GroupsSum(ts, "attempts")},
		{Label: "offered", Style: offeredStyle, X: x, Y: GroupsSum(ts, "offered")},
	}
	r.addCeiling(&rates)
	amp := r.timePanel("Retry amplification: attempts ÷ operations", "attempts ÷ operation", false)
	amp.Name = "amplification"
	amp.Refs = []Ref{noRetries}
	amp.Series = []Series{{Label: "amplification", Style: Style{Palette[0], Medium, Solid}, X: x, Y: RetryAmplification(ts)}}
	return &Figure{Name: "interactive", Panels: []Panel{rates, amp}, Weights: []float64{1.6, 1.4}}
}
