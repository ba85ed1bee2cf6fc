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
// # Figures
//
// A Figure is a figure as data: its title, its panels by row, and for each panel its axes
// (labels, the range they must cover, log or linear, fixed ticks, categories), its shaded
// windows, its reference lines, its series (points, colour, width, dashes, point markers), its
// layers and its legend's keys, in order. Layers are the elements of a figure whose order of
// drawing interleaves (Layer): series and reference lines, confidence intervals (Interval: a
// band under a line, or whiskers), levels per category, glyphs at points (Markers), absent
// values along the bottom (Absent) and labelled vertical lines (VMarks). A scatter of estimates
// (the tuning's) adds its crosses (points with an interval both ways), labelled bound lines, an
// outline, rings and point labels, and may fix an axis's extent (Axis.Range). results/plot
// renders one with gonum/plot and chooses nothing of it.
//
// # Runs
//
// Sum and GroupsSum add a column of timeseries.csv over groups or servers; RetryAmplification
// is attempts ÷ offered of all groups. RunFigures builds a run folder's figures (timeseries,
// amplification, latency, servers and, with mongos routers, shards): rates as steps over their
// interval, levels at its end, the warm-up and the faults as shaded windows labelled with their
// outcome. Run.Charts is the figure of a report's interactive charts: the rates of all groups
// and servers, and the amplification, with their titles, labels, windows and reference line. CompareFigure builds the comparison of several runs, or
// of several sweeps over the same numeric parameter.
//
// # Maps
//
// BuildMap builds a metastability map's figure (MapFigure): one panel per value of its third
// axis, each an equal cell per pair of values (numbers in ascending order), filled by
// P(stuck) on a fixed scale (StuckColour, ColorBrewer's YlOrRd interpolated; InkOn picks the
// text colour that reads on it), labelled with the median recovery time (RecoveryText), the
// 50 % boundary of phasemap.Boundary as polylines in the panels' positions, and the legend's
// keys.
//
// # Sweeps
//
// ReadSweep arranges a sweep's points into lines over its x axis (the first numeric parameter,
// or SweepOptions.X): one line per value of the other parameter or, with one parameter, all
// groups together and each group. SweepFigures builds a sweep folder's figures whole (goodput,
// retry amplification and p99 latency against x): each line's mean with its confidence band,
// or over categories with whiskers side by side (Dodge); the x positions where a line has no
// value; the ideal goodput (Ideals); the knees; a load sweep's marks (LoadMarks: today's load
// and, for one line, its knee and latency knee) and latency knee threshold; a log p99 axis
// when LogScale chooses one. Knees gives each line's knee, to ring on the goodput figure:
// for a load sweep the knee the sweep already answered (sweep.SweepAnswers, recorded in
// sweep.json), never found again; for a line the answers do not cover (another parameter on x,
// a sweep without answers), the first point in x order whose mean goodput is more than
// sweep.KneeShortfall below its mean offered load, the answers' rule.
//
// # Tunings
//
// TuneFigure builds a tuning's Pareto figure: each candidate at its means with its intervals,
// the front of the feasible ones as steps, the constraints' bounds, the recommendation and its
// runners-up ringed, the points labelled; and, when the feasible candidates crowd a corner, a
// close-up of them beside the whole, which outlines its area. Whether they crowd it depends on
// the whole panel's extent, so that extent is computed here (the range of its elements, as
// gonum/plot's autoscale takes it, widened a little) and handed to the renderer, not left to it.
//
// # Scales and labels
//
// LogScale chooses between a linear and a log axis for latencies, the run's and the sweep's
// alike. An axis of a summary metric is labelled from the metric catalogue
// (results.LookupMetric): its unit (milliseconds or seconds for a latency, chosen by
// LatencyUnit; operations/s for a rate) and, for a tuning, which way is better (AxisLabel);
// MetricAxis labels the sweep, run and comparison figures' metric axes with the catalogue's
// words, or the figure's own where they differ (one table, figureWords).
//
// A load sweep's latency knee threshold (Sweep.LatencyThreshold) is not in its answers, which
// give the rule in words only: it is taken again here, by the answers' rule, in one place.
package chart
