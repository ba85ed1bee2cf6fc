// Package report renders a result folder (a run's, a sweep's or a metastability map's, see
// package results) as one self-contained HTML page, report.html, next to the result files:
// `simulate report RESULT_DIR`.
//
// # Contents
//
// In this order:
//
//   - The answer, first, so that a planner reading only the first screen knows it. For a run:
//     where today's load sits against the configured ceiling (results.Capacity.Sentence, the
//     words simulate run prints), and each trigger's verdict — recovered so many seconds after
//     it ended, stuck, relapsed or undecided, with the evidence (results.Recovery.Describe) —
//     with the share of operations that failed and the attempts per operation while it lasted,
//     against before it (its phases, results.Phases); a run without triggers says how its
//     measured window went. For a load sweep: the safe load, the knee and the latency knee in
//     words (sweep.LoadAnswers.Sentences), with the ceiling and today's load.
//   - The scenario's name, description and claim (what the run is meant to demonstrate).
//   - A strip of header facts: tool and version, seed (a sweep's base seed), replication (a
//     sweep's points and replications per point), duration, sampling interval, warm-up (fixed
//     or chosen by MSER-5) and, for a run, the measured window.
//   - For a sweep that varies a policy or a limiter (sweep.json's decision, sweep.Decide), the
//     policy decision first: its sentences and its table per policy and load (decision.go).
//   - For a run, the summary over the measured window (results.Summary): per client group and
//     for all groups, offered load, goodput, amplification, p50/p99/p99.9 latency of successes,
//     and failures per second, in total and per error class (a column for each class that
//     failed anything); per server, utilisation, reject share, wasted share, throughput,
//     rejections and mean queue; the recovery after each trigger.
//   - For a sweep (sweep.json), the table of points: a column per swept parameter, the number
//     of replications, and mean ± 95 % confidence half-width of offered load, goodput,
//     amplification, success p99 latency and failure rate over all groups.
//   - For a metastability map (map.json), the outcome: phasemap.Summary's paragraph (where
//     P(stuck) crosses 1/2, which lines never or always stick, undecided replications), what
//     the outcomes mean, and each axis with its values. The header facts are the trigger, the
//     axes, the cells (and how many ran), the replications per cell, the base seed and the
//     horizon.
//   - The figures results/plot draws, each inline with a numbered caption, in the order and
//     with the captions of chart.Registry, and only those that exist: timeseries.svg, amplification.svg, latency.svg, servers.svg (a
//     run), sweep-goodput.svg, sweep-amplification.svg, sweep-p99.svg, sweep-decision.svg (a sweep), map.svg (a
//     map). Without any, the report says so and names the files it looked for. A map's figure
//     is drawn when the folder lacks it: by Write into the folder (map.svg and map.png), by
//     Render in memory.
//   - For a map, the table of cells: a column per axis, the replications, how many recovered,
//     stuck and were undecided (and had no baseline, if any had none), P(stuck) with its 95 %
//     Wilson interval, and the median recovery time of those that recovered; a cell not run
//     says so.
//   - The scenario in canonical form, in a <pre> block (scrollable, long lines wrapped with a
//     hanging indent), with the command that replays it, and the derived random streams
//     (collapsed).
//
// Every wide table (a run's groups, servers, recoveries and phases, a sweep's points) fits the
// page width instead of scrolling sideways: headers and long cells (a trigger's outcomes, a
// mean and its interval) wrap, and on a page narrower than 60rem each row becomes a card, its
// cells in a grid, each under its column's name.
//
// A run's rates — the interactive chart and the timeseries figure — draw the configured
// ceiling (results.Capacity) as a dotted reference line, and goodput, attempts and offered load
// from the widest line to the narrowest, offered dashed on top, so that where they coincide
// (nothing fails, nothing retries) they show as stripes and none hides another.
//
// # Self-contained and deterministic
//
// The page has no external scripts, stylesheets, fonts or images, and fetches nothing: its
// CSS is inline, the figures' SVG markup is embedded, and a run's interactive charts inline
// uPlot (vendor/uplot) and interactive.js, which draws the charts of chart.Run.Charts as they
// are serialised into the page (titles, axis labels, heights, series, shaded windows and
// reference lines), choosing none of them. Before embedding, everything before
// the <svg> element (XML declaration, doctype, comments) is dropped, the SVG's ids and the
// references to them get a per-figure prefix (so two figures' clip paths cannot collide), and
// an SVG with scripts, event handlers or external references is refused with an error.
//
// Text goes through html/template, so names, descriptions and the canonical text are escaped.
// The bytes depend only on the folder's files: no timestamps or paths, floats with fixed
// decimals (rates 0.1/s, amplification 0.001, shares 0.1 %, latencies three significant
// figures in µs, ms or s), "–" for a missing value, and every list in the order of the files.
//
// Write writes report.html atomically (a temporary name, then a rename), like the results
// writers; Render writes the same bytes to any io.Writer.
package report
