// Package plot draws the figures of a run, a sweep or a metastability map from its result
// files: SVG for tests and reports, PNG (1200 × 800 px) for people. It is the only package of
// the module that imports gonum.org/v1/plot (internal/lint enforces it); it reads only files,
// through package results. What a figure shows is chosen in results/chart, once for every
// renderer: the figures' names (chart.Registry), the colours, the sums over groups and servers,
// a sweep's lines and its knees. The run, sweep and comparison figures come whole as data
// (chart.Figure: panels, axes, series, windows, reference lines, layers, keys), which render
// draws without choosing anything, and so does the map figure (chart.MapFigure: cells, colours,
// texts, boundary lines, keys); this package lays them out and draws them.
//
// # Run figures
//
// WriteRunFigures draws a run folder's figures as chart.RunFigures builds them from run.json,
// timeseries.csv and summary.json, and writes, next to them, NAME.svg and NAME.png for each
// of RunFigures:
//
//	timeseries     offered load, attempts, goodput, failures (all groups) and rejections (all
//	               servers), per second; below, with more than one group, goodput and
//	               failures per group
//	amplification  retry amplification (all groups, each group, the line 1 = no retries);
//	               below, the retry-token level per group: mean (solid) and minimum (dashed)
//	               over the clients with a token bucket
//	latency        p50, p99 and p99.9 latency of successful operations; below, of failed ones;
//	               a log axis when the values span more than a factor of 50
//	servers        per server: utilisation, worker queue length, request-limiter tokens and
//	               open connections, a panel each
//
// Every value of timeseries.csv is a rate or a percentile over one interval, drawn at the
// middle of the interval; a missing value (an interval without failures has no failure
// latency) leaves a gap. Each figure shades the warm-up in grey and every trigger in red: a
// window as a band, an instantaneous fault (a stepdown) as a dashed line. The first panel
// labels them with the fault's name and its recovery ("recovered in 5 s", "did not recover").
// The windows come from summary.json, whose recoveries hold one entry per trigger of the run
// (results.FaultWindows).
//
// # Sweep figures
//
// WriteSweepFigures draws a sweep folder's figures as chart.SweepFigures builds them from
// sweep.json, and writes NAME.svg and NAME.png for each of SweepFigures: sweep-goodput,
// sweep-amplification and sweep-p99 (the p99 latency of successful operations), and, for a
// sweep that varies a policy or a limiter, sweep-decision (chart.DecisionFigure). The x axis
// is the first numeric swept parameter (the first when none is, or chart.SweepOptions.X):
// rates ("1000/s") in operations per second, durations in s, ms or µs, plain numbers as they
// are, and anything else (a policy name, a driver block) as one position per value, in the
// order of the sweep, its names slanted when they are too wide to stand level. Each line is
// one value of the second swept parameter, or, with one parameter, all groups together and
// each group (with more than one). A line is the mean over the replications with its 95 %
// confidence band (Student t, sweep.Aggregate); over categories, points with bars side by
// side. A point where a metric has no value (no operation succeeded, so no p99) is marked with
// a cross along the bottom.
//
// sweep-goodput adds the ideal goodput min(offered, capacity), offered being the mean total
// offered load at each x, and rings each line's knee (chart.Sweep.Knees): for a load sweep the
// knee its answers hold, the first point whose mean goodput is more than sweep.KneeShortfall
// (5 %) below its mean offered load; for any other sweep the first such point in x order. A
// load sweep of one line has its knee as a vertical line instead. The capacity is the
// plateau the sweep reached: the highest mean total goodput at any point. It is measured rather
// than parsed from the scenario because the ceiling is not always a limiter's rate (a sweep may
// vary the limiter, or the workers may saturate first); where the limiter is the ceiling, the
// plateau sits at its rate, a little above when the token bucket's burst counts in.
//
// # Map figure
//
// WriteMapFigures reads a metastability map's folder (map.json, phasemap.Write) and writes
// map.svg and map.png (MapSVG gives the SVG without writing), drawing chart.BuildMap's
// figure. Each cell of the grid is drawn
// as an equal square, x the map's second axis and y its first, their values in numeric order
// (upwards) and every value a tick label, so that uneven steps do not squeeze cells. A cell is
// coloured by P(stuck) on a fixed 0–1 scale (ColorBrewer's YlOrRd, interpolated; its lightness
// falls monotonically, so it reads in greyscale), with a colour bar; a cell not run is grey and
// hatched. The number in a cell is the median recovery time, in seconds, of the replications
// that recovered (none where none did), and "?" marks a cell where some replications were
// undecided. Numbers are written in rather than recovery-time contours: the grids are coarse,
// a contour over them is mostly interpolation, and a planner reads a number off a cell. The
// bold line is the 50 % boundary of phasemap.Boundary along the second axis (the first when
// the second is not numeric): a bar across each line of cells where P(stuck) crosses ½, the
// bars of neighbouring lines joined when the lines are numbers. A third axis gives one panel
// per value, side by side, on the same colour scale.
//
// # Tuning figure
//
// WriteTuneFigures reads a tuning's folder (tune.json) and writes tune-pareto.svg and
// tune-pareto.png (TuneSVG gives the SVG without writing), drawing chart.TuneFigure's figure
// with render: its crosses, bounds, outline, rings and point labels are drawn by the plotters
// of tune.go, the labels placed where they cover no other label or point.
//
// # Files
//
// Every file is written to ".NAME.tmp" in the folder and renamed, so a file with its final
// name is complete. The SVG is byte-stable: no time stamps, numbers at five significant digits,
// one font (Liberation Sans, embedded in gonum/plot and named, not embedded, in the SVG), the
// same layout for the same data, so tests compare it byte for byte (testdata/, regenerated
// with go test ./results/plot -update). The PNG is for looking at.
package plot
