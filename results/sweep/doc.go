// Package sweep is what a sweep's result is: its record (PointStats, one point aggregated over
// its replications), its files (points.csv and sweep.json, written and read through package
// results' manifest discipline), its pure analyses (the knee, latency knee and headroom of a
// load sweep: AnswerLoad, SweepAnswers) and the baseline check (Check), which reads a run as a
// sweep of one point (SinglePoint). experiment/sweep produces sweeps; the views (results/chart,
// results/plot, results/report) and cmd/simulate call this package.
//
// # Files
//
// A sweep folder (WriteSweepDir):
//
//   - points.csv — one row per point: a column per swept parameter path, replications, then
//     NAME_mean, NAME_ci95 and NAME_n for every metric of Summary.Metrics (the mean over
//     replications, the half-width of its Student-t 95 % confidence interval,
//     internal/stats.MeanCI, and the number of replications where the metric has a value). A
//     numeric parameter is a number with its unit in the column's name: PATH_per_s (a rate),
//     PATH_s, PATH_ms or PATH_us (a duration), PATH (a plain number); any other is its text.
//   - sweep.json — {"header", "partial", "context", "answers", "expectations", "points":
//     [{"params": [{"path", "value"}], "replications", "metrics": [{"name", "mean", "ci95",
//     "n"}]}]}, which is also the baseline format (docs/schemas/sweep.schema.json); a parameter's
//     value there is its text, as the scenario writes it. partial (absent when whole) says why an interrupted sweep holds only the points
//     that finished; points.csv then starts with a "# partial: …" line.
//   - units/ — while the sweep is unfinished (see package results).
//   - manifest.json — last.
//
// # Check
//
// Check compares a run (SinglePoint) or a sweep with a Baseline and lists every regression, by
// each metric's gate in the catalogue (results.Gate): goodput below the baseline's confidence
// band, amplification, success p99 latency or a trigger's recovery time above it, each beyond
// a relative Tolerance (DefaultTolerance); a group's failure share (failures ÷ offered) above
// the baseline's by more than an absolute allowance; a trigger stuck where the baseline had no
// stuck run, or more often than the baseline's interval allows; and baseline points that are
// missing. Compare gives every comparison, passed or not, which WriteJUnit and WriteMarkdown
// write for a CI job; Ungated names the gated values a baseline has none of.
package sweep
