// Package chart builds the figures of a result as data, once: which series a figure shows and
// how they are summed, their colours, labels and marks, and each figure's name, caption and
// order. The renderers only draw what it builds: results/plot with gonum/plot (SVG and PNG),
// results/report as the uPlot charts of a report. It draws nothing and imports no plotting
// library (internal/lint enforces it); it reads result files through package results.
//
// # Registry
//
// Registry lists every figure, in the order a report shows them, with its file's base name,
// the kind of result it is drawn for, and its caption: results/plot draws under these names,
// results/report embeds the SVGs with these captions in this order, and cmd/simulate lists the
// files drawn in the folder's manifest.
//
// # Colours
//
// Each rate over time has a fixed colour (Offered, Attempts, Goodput, Failures, Rejections);
// groups, servers and the lines of a sweep take Palette's colours in order. The gonum figures
// and the report's interactive charts use the same values.
//
// # Runs
//
// Sum and GroupsSum add a column of timeseries.csv over groups or servers; RetryAmplification
// is attempts ÷ offered of all groups. RunCharts is the figure of a report's interactive
// charts: the rates of all groups and servers, and the amplification.
//
// # Sweeps
//
// ReadSweep arranges a sweep's points into lines over its x axis (the first numeric parameter,
// or SweepOptions.X): one line per value of the other parameter or, with one parameter, all
// groups together and each group. Knees gives each line's knee, to ring on the goodput figure:
// for a load sweep the knee the sweep already answered (results.SweepAnswers, recorded in
// sweep.json), never found again; for a line the answers do not cover (another parameter on x,
// a sweep without answers), the first point in x order whose mean goodput is more than
// results.KneeShortfall below its mean offered load, the answers' rule.
//
// # Scales and labels
//
// LogScale chooses between a linear and a log axis for latencies, the run's and the sweep's
// alike. AxisLabel is the one place an axis of a summary metric is labelled: its words, its unit
// (milliseconds or seconds for a latency, chosen by LatencyUnit; operations/s for a rate) and
// which way is better. It reads the unit from results.MetricUnit, and is where the metric
// catalogue's unit, label and direction will be read.
package chart
