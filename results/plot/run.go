package plot

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/chart"
)

// RunFigures are the base names of the figures WriteRunFigures draws for every run, in the
// order it draws them; a run with mongos routers (shards.csv) gets chart.Shards after them.
var RunFigures = []string{chart.Timeseries, chart.Amplification, chart.Latency, chart.Servers}

// WriteRunFigures draws the figures of the run in dir (run.json, timeseries.csv and
// summary.json, as results.WriteRunDir writes them) and writes each as NAME.svg and NAME.png
// into dir. It returns the base names written, in the order of RunFigures.
func WriteRunFigures(dir string) ([]string, error) {
	figs, err := runFigures(dir)
	if err != nil {
		return nil, err
	}
	return writeFigures(dir, figs)
}

// run is what the run figures read from a run folder.
type run struct {
	hdr     results.Header
	sum     results.Summary
	ts      *results.Timeseries
	x       []float64 // the middle of each interval, seconds
	starts  []float64 // each interval's start and end, seconds: a rate holds over its interval
	ends    []float64
	end     float64 // the end of the last interval, seconds
	groups  []string
	servers []string
	wins    []window // the warm-up and the fault windows
}

func readRun(dir string) (*run, error) {
	hdr, err := results.ReadHeader(dir)
	if err != nil {
		return nil, fmt.Errorf("plot: %w", err)
	}
	ts, err := results.ReadTimeseries(dir)
	if err != nil {
		return nil, fmt.Errorf("plot: %w", err)
	}
	sum, err := results.ReadSummary(dir)
	if err != nil {
		return nil, fmt.Errorf("plot: %w", err)
	}
	r := &run{hdr: hdr, sum: sum, ts: ts, groups: ts.Names(results.KindGroup), servers: ts.Names(results.KindServer)}
	ends := ts.Ends()
	if len(ends) == 0 {
		return nil, fmt.Errorf("plot: %s: %s has no rows", dir, results.TimeseriesFile)
	}
	prev := max(0, ends[0].Seconds()-hdr.Interval.Seconds())
	for _, e := range ends {
		s := e.Seconds()
		r.x = append(r.x, prev+float64((s-prev)/2))
		r.starts, r.ends = append(r.starts, prev), append(r.ends, s)
		prev = s
	}
	r.end = prev
	if hdr.Warmup > 0 {
		r.wins = append(r.wins, window{start: 0, end: hdr.Warmup.Seconds(), label: "warm-up", fill: chart.WarmupFill, edge: chart.Reference})
	}
	for _, rec := range sum.Recoveries {
		label := rec.Fault
		switch rec.Outcome {
		case results.Recovered:
			label += ": recovered in " + formatSecs(rec.Seconds)
		case results.Stuck:
			label += ": stuck"
		case results.Undecided:
			label += ": undecided"
		}
		r.wins = append(r.wins, window{start: rec.Start.Seconds(), end: rec.End.Seconds(), label: label, fill: chart.FaultFill, edge: chart.FaultEdge})
	}
	return r, nil
}

// formatSecs writes a number of seconds briefly: "5 s", "0.25 s".
func formatSecs(s float64) string { return strconv.FormatFloat(s, 'g', 3, 64) + " s" }

func (r *run) subtitle() string {
	s := fmt.Sprintf("scenario %s · seed %d", r.hdr.Scenario, r.hdr.Seed)
	if r.hdr.Replication > 0 {
		s += fmt.Sprintf(" · replication %d", r.hdr.Replication)
	}
	s += fmt.Sprintf(" · %v run, %v intervals (rates as steps over their interval, levels at its end)", r.hdr.Duration, r.hdr.Interval)
	if r.hdr.Warmup > 0 {
		s += fmt.Sprintf(" · warm-up %v", r.hdr.Warmup)
	}
	return s
}

// timePanel returns a panel over the run's time axis with the windows shaded (and labelled,
// when labels is set).
func (r *run) timePanel(title, ylabel string, labels bool) *panel {
	pn := newPanel(title, "time (s)", ylabel)
	pn.p.X.Min, pn.p.X.Max = 0, r.end
	if len(r.wins) > 0 {
		pn.p.Add(&windows{ws: r.wins})
		if labels {
			pn.over = append(pn.over, &windowLabels{ws: r.wins})
		}
	}
	return pn
}

// addWindowLegend adds legend entries for the kinds of window the run has.
func (r *run) addWindowLegend(pn *panel) {
	var warm, span, instant bool
	for _, w := range r.wins {
		switch {
		case w.fill == chart.WarmupFill:
			warm = true
		case w.end > w.start:
			span = true
		default:
			instant = true
		}
	}
	if warm {
		pn.key("warm-up", windowThumb{fill: chart.WarmupFill})
	}
	if span {
		pn.key("fault window", windowThumb{fill: chart.FaultFill})
	}
	if instant {
		pn.key("fault (instant)", windowThumb{edge: chart.FaultEdge, instant: true})
	}
}

// groupColour is the colour of the i-th group (or server) in name order.
func groupColour(i int) color.NRGBA { return chart.PaletteColour(i) }

// groupWidth is the line width of the i-th of n groups (or servers): narrowing from the first
// to the last, so that lines that coincide (two policies that never retry) show as stripes.
func groupWidth(i, n int) vg.Length {
	if n == 1 {
		return medium
	}
	return max(thin, vg.Points(2.75)-vg.Length(vg.Points(0.4)*vg.Length(i)))
}

func (r *run) group(name, column string) []float64 {
	return r.ts.Metric(results.KindGroup, name, column)
}

// steps is a per-interval series (a rate, an average) as a line of steps: each value held
// from its interval's start to its end, so that a dip starts where its fault does.
func (r *run) steps(ys []float64, sty draw.LineStyle) *line {
	l := &line{style: sty}
	for i, y := range ys {
		l.xs = append(l.xs, r.starts[i], r.ends[i])
		l.ys = append(l.ys, y, y)
	}
	return l
}

// levels is a series of levels read at each interval's end (tokens, connections).
func (r *run) levels(ys []float64, sty draw.LineStyle) *line {
	return &line{xs: r.ends, ys: ys, style: sty}
}

func (r *run) addLine(pn *panel, legend string, ys []float64, sty draw.LineStyle) *line {
	l := r.steps(ys, sty)
	pn.p.Add(l)
	if legend != "" {
		pn.key(legend, l)
	}
	return l
}

func runFigures(dir string) ([]*figure, error) {
	r, err := readRun(dir)
	if err != nil {
		return nil, err
	}
	figs := []*figure{r.timeseriesFigure(), r.amplificationFigure(), r.latencyFigure(), r.serversFigure()}
	if _, err := os.Stat(filepath.Join(dir, results.ShardsFile)); err == nil {
		rows, err := results.ReadShards(dir)
		if err != nil {
			return nil, fmt.Errorf("plot: %w", err)
		}
		figs = append(figs, r.shardsFigure(rows))
	}
	return figs, nil
}

// shardsFigure: each mongos's attempts per operation toward each shard (its own retries
// included), and its retry budget's balance toward that shard, a line per (mongos, shard).
func (r *run) shardsFigure(rows results.ShardRows) *figure {
	f := &figure{name: chart.Shards, title: "Mongos routers: attempts per operation and retry budget, per shard", subtitle: r.subtitle()}
	amp := r.timePanel("Shard attempts per operation (the mongos's own retries included)", "attempts per operation", true)
	bud := r.timePanel("Retry budget balance toward the shard, at interval end", "tokens", false)
	amp.p.Y.Min, bud.p.Y.Min = 0, 0
	ref := &hline{y: 1, style: lineStyle(chart.Reference, thin, dotted)}
	amp.p.Add(ref)
	for i, t := range rows.Tracks {
		sty := lineStyle(groupColour(i), groupWidth(i, len(rows.Tracks)), nil)
		a := &line{style: sty}
		for j, end := range t.Ends {
			start := math.Max(0, end-r.hdr.Interval.Seconds())
			a.xs, a.ys = append(a.xs, start, end), append(a.ys, t.Values["amplification"][j], t.Values["amplification"][j])
		}
		b := &line{xs: t.Ends, ys: t.Values["budget_balance"], style: sty}
		amp.p.Add(a)
		bud.p.Add(b)
		amp.key(t.Mongos+" → "+t.Shard, a)
	}
	amp.key("1 = no retries", ref)
	r.addWindowLegend(amp)
	f.rows = [][]*panel{{amp}, {bud}}
	return f
}

// timeseriesFigure: the rates of all groups together over time (rejections of all servers),
// and, with more than one group, goodput and failures per group.
func (r *run) timeseriesFigure() *figure {
	f := &figure{name: chart.Timeseries, title: "Offered load, attempts, goodput, rejections and failures over time", subtitle: r.subtitle()}
	top := r.timePanel("All client groups (request rejections: all servers)", "per second", true)
	top.p.Y.Min = 0
	r.addLine(top, "offered load (operations)", chart.GroupsSum(r.ts, "offered"), lineStyle(chart.Offered, medium, dashed))
	r.addLine(top, "attempts (commands sent)", chart.GroupsSum(r.ts, "attempts"), lineStyle(chart.Attempts, medium, nil))
	r.addLine(top, "goodput (successes)", chart.GroupsSum(r.ts, "goodput"), lineStyle(chart.Goodput, thick, nil))
	// Requests refused (limiter, queue overflow); refused connections are not operations and
	// have their panel in the servers figure.
	requests := chart.Sum(r.ts, results.KindServer, r.servers, "rejected_request")
	for i, q := range chart.Sum(r.ts, results.KindServer, r.servers, "rejected_queue") {
		if !math.IsNaN(q) {
			requests[i] = math.Max(0, nanZero(requests[i])) + q
		}
	}
	r.addLine(top, "request rejections (servers)", requests, lineStyle(chart.Rejections, medium, nil))
	r.addLine(top, "failures (errors to app)", chart.GroupsSum(r.ts, "failures"), lineStyle(chart.Failures, medium, nil))
	r.addWindowLegend(top)
	f.rows = append(f.rows, []*panel{top})
	if len(r.groups) > 1 {
		good := r.timePanel("Goodput by group", "operations per second", false)
		fail := r.timePanel("Failures by group", "operations per second", false)
		for i, g := range r.groups {
			sty := lineStyle(groupColour(i), groupWidth(i, len(r.groups)), nil)
			r.addLine(good, "", r.group(g, "goodput"), sty)
			r.addLine(fail, g, r.group(g, "failures"), sty)
		}
		good.p.Y.Min, fail.p.Y.Min = 0, 0
		// Side by side, one scale: a reader compares the heights.
		hi := 0.0
		for _, g := range r.groups {
			for _, col := range []string{"goodput", "failures"} {
				for _, y := range r.group(g, col) {
					if valid(y) {
						hi = math.Max(hi, y)
					}
				}
			}
		}
		if hi > 0 {
			good.p.Y.Max, fail.p.Y.Max = hi, hi
		}
		f.rows = append(f.rows, []*panel{good, fail})
		f.weights = []float64{1.35, 1}
	}
	return f
}

// amplificationFigure: retry amplification above, the retry-token level below.
func (r *run) amplificationFigure() *figure {
	f := &figure{name: chart.Amplification, title: "Retry amplification and retry-token level over time", subtitle: r.subtitle()}
	amp := r.timePanel("Retry amplification: attempts ÷ operations issued", "attempts per operation", true)
	amp.p.Y.Min = 0
	ref := &hline{y: 1, style: lineStyle(chart.Reference, thin, dotted)}
	amp.p.Add(ref)
	total := chart.RetryAmplification(r.ts)
	if len(r.groups) > 1 {
		r.addLine(amp, "all groups", total, lineStyle(chart.Total, thick, nil))
		for i, g := range r.groups {
			r.addLine(amp, g, r.group(g, "amplification"), lineStyle(groupColour(i), groupWidth(i, len(r.groups)), nil))
		}
	} else {
		r.addLine(amp, r.groupName(), total, lineStyle(groupColour(0), thick, nil))
	}
	amp.key("1 = no retries", ref)
	r.addWindowLegend(amp)

	tok := r.timePanel("Retry-token level over the clients with a token bucket", "tokens", false)
	tok.p.Y.Min = 0
	drawnTokens := false
	for i, g := range r.groups {
		mean, lo := r.group(g, "retry_tokens_mean"), r.group(g, "retry_tokens_min")
		if allMissing(mean) && allMissing(lo) {
			continue
		}
		drawnTokens = true
		ml := r.levels(mean, lineStyle(groupColour(i), medium, nil))
		tok.p.Add(ml, r.levels(lo, lineStyle(groupColour(i), medium, dashed)))
		tok.key(g, ml)
	}
	if drawnTokens {
		tok.key("mean over clients", &line{style: lineStyle(chart.Total, medium, nil)})
		tok.key("min over clients", &line{style: lineStyle(chart.Total, medium, dashed)})
	} else {
		tok.empty("no client has a retry token bucket (adaptive retries off)")
	}
	f.rows = [][]*panel{{amp}, {tok}}
	return f
}

func nanZero(x float64) float64 {
	if math.IsNaN(x) {
		return 0
	}
	return x
}

// groupName is the legend text of the only group (or "all groups").
func (r *run) groupName() string {
	if len(r.groups) == 1 {
		return r.groups[0]
	}
	return "all groups"
}

func allMissing(xs []float64) bool {
	for _, x := range xs {
		if !math.IsNaN(x) {
			return false
		}
	}
	return true
}

// percentiles of the latency figure: column suffix, legend text, line width and dashes, and
// the colour when there is one group (with several, the group's).
var percentiles = []struct {
	suffix, name string
	width        vg.Length
	dashes       []vg.Length
	colour       color.NRGBA
}{
	{"p50", "p50", thick + vg.Points(0.5), nil, chart.Palette[0]},
	{"p99", "p99", medium, dashed, chart.Palette[1]},
	{"p999", "p99.9", thin, dotted, chart.Palette[3]},
}

func scaled(xs []float64, k float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = x * k
	}
	return out
}

// latencyFigure: latency percentiles of successes above, of failures below; a log axis when
// the range needs one.
func (r *run) latencyFigure() *figure {
	f := &figure{name: chart.Latency, title: "Operation latency (issue to final result, retries and backoff included)", subtitle: r.subtitle()}
	var all [][]float64
	for _, g := range r.groups {
		for _, pc := range percentiles {
			all = append(all, r.group(g, "latency_ok_"+pc.suffix), r.group(g, "latency_fail_"+pc.suffix))
		}
	}
	// One scale for both panels, log when either needs it, over both panels' range: a reader
	// compares successes with failures.
	bothLog, bothLo, hi := chart.LogScale(all...)
	unit, k := chart.LatencyUnit(hi)
	for pi, kind := range []struct{ title, prefix, empty string }{
		{"Successful operations", "latency_ok_", "no successful operations"},
		{"Failed operations", "latency_fail_", "no failed operations"},
	} {
		pn := r.timePanel(kind.title, "latency ("+unit+")", pi == 0)
		var series [][]float64
		for _, g := range r.groups {
			for _, pc := range percentiles {
				series = append(series, scaled(r.group(g, kind.prefix+pc.suffix), k))
			}
		}
		_, lo, _ := chart.LogScale(series...)
		if math.IsNaN(lo) {
			pn.empty(kind.empty)
			f.rows = append(f.rows, []*panel{pn})
			continue
		}
		useLog := bothLog
		if useLog {
			logAxis(pn.p, bothLo*k, hi*k)
			pn.p.Y.Label.Text = "latency (" + unit + ", log scale)"
			for i := range series {
				series[i] = logValues(series[i])
			}
		} else {
			pn.p.Y.Min, pn.p.Y.Max = 0, hi*k
		}
		n := 0
		for gi, g := range r.groups {
			for _, pc := range percentiles {
				// Dashes tell the percentiles apart, and widths narrowing from p50 to p99.9
				// keep lines that coincide (every failure at the same timeout) visible.
				sty := lineStyle(groupColour(gi), pc.width, pc.dashes)
				if len(r.groups) == 1 {
					sty.Color = pc.colour
				}
				l := r.steps(series[n], sty)
				n++
				pn.p.Add(l)
				if len(r.groups) == 1 {
					pn.key(pc.name, l)
				}
			}
			if len(r.groups) > 1 {
				pn.key(g, &line{style: lineStyle(groupColour(gi), medium, nil)})
			}
		}
		if len(r.groups) > 1 {
			for _, pc := range percentiles {
				pn.key(pc.name, &line{style: lineStyle(chart.Total, pc.width, pc.dashes)})
			}
		}
		if pi == 0 {
			r.addWindowLegend(pn)
		}
		f.rows = append(f.rows, []*panel{pn})
	}
	return f
}

// serversFigure: a panel each, a line per server, for what the run is about: utilisation and
// queue length always; the request limiter's tokens when a limiter ran; the share of work
// wasted on requests whose client had given up when there was any; open connections; and the
// connections refused when the connection limiter refused any. No panel stands empty.
func (r *run) serversFigure() *figure {
	f := &figure{name: chart.Servers, title: "Servers: utilisation, queue, and what limited them", subtitle: r.subtitle()}
	type metric struct {
		title, ylabel, column string
		scale                 float64
		level                 bool // read at interval end, not over the interval
	}
	used := func(column string) bool {
		for _, s := range r.servers {
			for _, v := range r.ts.Metric(results.KindServer, s, column) {
				if valid(v) && v != 0 {
					return true
				}
			}
		}
		return false
	}
	metrics := []metric{
		{"Utilisation: busy ÷ available worker time", "utilisation (%)", "utilisation", 100, false},
		{"Worker queue length (time average)", "queued requests", "queue", 1, false},
	}
	if used("tokens") {
		metrics = append(metrics, metric{"Request-limiter tokens at interval end", "tokens", "tokens", 1, true})
	}
	if used("wasted_share") {
		metrics = append(metrics, metric{"Work wasted on requests whose client had given up", "share of capacity (%)", "wasted_share", 100, false})
	}
	metrics = append(metrics, metric{"Open connections at interval end", "connections", "connections", 1, true})
	if used("rejected_conn") {
		metrics = append(metrics, metric{"Connections refused by the connection limiter", "per second", "rejected_conn", 1, false})
	}
	var panels []*panel
	for mi, m := range metrics {
		pn := r.timePanel(m.title, m.ylabel, mi == 0)
		pn.p.Y.Min = 0
		if m.column == "utilisation" {
			// 0 to 100 %, with room above a saturated server's line.
			pn.p.Y.Max = 104
			pn.p.Y.Tick.Marker = plot.ConstantTicks{{Value: 0, Label: "0"}, {Value: 20, Label: "20"},
				{Value: 40, Label: "40"}, {Value: 60, Label: "60"}, {Value: 80, Label: "80"}, {Value: 100, Label: "100"}}
		}
		drawn := false
		for i, s := range r.servers {
			ys := scaled(r.ts.Metric(results.KindServer, s, m.column), m.scale)
			drawn = drawn || !allMissing(ys)
			sty := lineStyle(groupColour(i), groupWidth(i, len(r.servers)), nil)
			l := r.steps(ys, sty)
			if m.level {
				l = r.levels(ys, sty)
			}
			pn.p.Add(l)
			if mi == 1 {
				pn.key(s, l)
			}
		}
		if !drawn {
			pn.empty("no server reported " + m.column)
		}
		if mi == 1 {
			r.addWindowLegend(pn)
		}
		panels = append(panels, pn)
	}
	for i := 0; i < len(panels); i += 2 {
		f.rows = append(f.rows, panels[i:min(i+2, len(panels))])
	}
	return f
}
