package chart

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/overloadsim/overloadsim/results"
)

// Run is what the run figures show of a run folder: its header, its timeseries, its interval
// bounds, and the windows to shade (the warm-up and the faults, with their outcomes).
type Run struct {
	Header  results.Header
	TS      *results.Timeseries
	Starts  []float64 // each interval's start and end, seconds: a rate holds over its interval
	Ends    []float64
	End     float64 // the end of the last interval, seconds
	Groups  []string
	Servers []string
	Windows []Window
	// Capacity is where the run's load sits against its configured ceiling (the summary's;
	// zero when unknown): the rates panels draw the ceiling as a reference line.
	Capacity results.Capacity
}

// ReadRun reads the run in dir (run.json, timeseries.csv and summary.json, as
// results.WriteRunDir writes them).
func ReadRun(dir string) (*Run, error) {
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
	if len(ts.Ends()) == 0 {
		return nil, fmt.Errorf("plot: %s: %s has no rows", dir, results.TimeseriesFile)
	}
	return NewRun(hdr, ts, &sum), nil
}

// NewRun is what the run figures show of a run read already: its header, its timeseries (at
// least one interval) and its summary (the faults' windows and outcomes).
func NewRun(hdr results.Header, ts *results.Timeseries, sum *results.Summary) *Run {
	r := &Run{Header: hdr, TS: ts, Groups: ts.Names(results.KindGroup), Servers: ts.Names(results.KindServer)}
	r.Capacity = sum.Capacity
	ends := ts.Ends()
	prev := max(0, ends[0].Seconds()-hdr.Interval.Seconds())
	for _, e := range ends {
		s := e.Seconds()
		r.Starts, r.Ends = append(r.Starts, prev), append(r.Ends, s)
		prev = s
	}
	r.End = prev
	if hdr.Warmup > 0 {
		r.Windows = append(r.Windows, Window{Start: 0, End: hdr.Warmup.Seconds(), Label: "warm-up", Fill: WarmupFill, Edge: Reference})
	}
	for _, rec := range sum.Recoveries {
		label := rec.Fault
		switch rec.Outcome {
		case results.Recovered:
			label += ": recovered in " + formatSecs(rec.Seconds)
		case results.Stuck:
			label += ": stuck"
		case results.Relapsed:
			label += ": relapsed"
		case results.Undecided:
			label += ": undecided"
		}
		r.Windows = append(r.Windows, Window{Start: rec.Start.Seconds(), End: rec.End.Seconds(), Label: label, Fill: FaultFill, Edge: FaultEdge})
	}
	return r
}

// formatSecs writes a number of seconds briefly: "5 s", "0.25 s".
func formatSecs(s float64) string { return strconv.FormatFloat(s, 'g', 3, 64) + " s" }

// Subtitle says what the run figures show: the scenario, the seed, the run's length and
// intervals, and its warm-up.
func (r *Run) Subtitle() string {
	s := fmt.Sprintf("scenario %s · seed %d", r.Header.Scenario, r.Header.Seed)
	if r.Header.Replication > 0 {
		s += fmt.Sprintf(" · replication %d", r.Header.Replication)
	}
	s += fmt.Sprintf(" · %v run, %v intervals (rates as steps over their interval, levels at its end)", r.Header.Duration, r.Header.Interval)
	if r.Header.Warmup > 0 {
		s += fmt.Sprintf(" · warm-up %v", r.Header.Warmup)
	}
	return s
}

// RunFigures builds the figures of the run in dir, in the registry's order: timeseries,
// amplification, latency and servers, and shards for a run with mongos routers (shards.csv).
func RunFigures(dir string) ([]*Figure, error) {
	r, err := ReadRun(dir)
	if err != nil {
		return nil, err
	}
	figs := []*Figure{r.TimeseriesFigure(), r.AmplificationFigure(), r.LatencyFigure(), r.ServersFigure()}
	if _, err := os.Stat(filepath.Join(dir, results.ShardsFile)); err == nil {
		rows, err := results.ReadShards(dir)
		if err != nil {
			return nil, fmt.Errorf("plot: %w", err)
		}
		figs = append(figs, r.ShardsFigure(rows))
	}
	return figs, nil
}

// timePanel returns a panel over the run's time axis with the windows shaded (and labelled,
// when labels is set).
func (r *Run) timePanel(title, ylabel string, labels bool) Panel {
	return Panel{Title: title, X: Axis{Label: "time (s)", Cover: []float64{0, r.End}},
		Y: Axis{Label: ylabel}, Windows: r.Windows, WindowLabels: labels && len(r.Windows) > 0}
}

// fromZero is a y axis's cover from 0.
var fromZero = []float64{0}

// windowKeys are the legend entries of the kinds of window the run has.
func (r *Run) windowKeys() []Key {
	var warm, span, instant bool
	for _, w := range r.Windows {
		switch {
		case w.Fill == WarmupFill:
			warm = true
		case w.End > w.Start:
			span = true
		default:
			instant = true
		}
	}
	var out []Key
	if warm {
		out = append(out, Key{Label: "warm-up", Kind: KeyFill, Style: Style{Colour: WarmupFill}})
	}
	if span {
		out = append(out, Key{Label: "fault window", Kind: KeyFill, Style: Style{Colour: FaultFill}})
	}
	if instant {
		out = append(out, Key{Label: "fault (instant)", Kind: KeyInstant, Style: Style{Colour: FaultEdge, Width: Medium}})
	}
	return out
}

// noRetries is the reference line of an amplification panel, with its key.
var noRetries = Ref{Y: 1, Style: Style{Colour: Reference, Width: Thin, Dash: Dotted}, Label: "1 = no retries"}

func noRetriesKey() Key { return Key{Label: "1 = no retries", Style: noRetries.Style} }

// GroupWidth is the line width (points) of the i-th of n groups (or servers): narrowing from
// the first to the last, so that lines that coincide (two policies that never retry) show as
// stripes.
func GroupWidth(i, n int) float64 {
	if n == 1 {
		return Medium
	}
	return max(Thin, 2.75-float64(0.4*float64(i)))
}

// groupStyle is the style of the i-th of n groups (or servers): its palette colour and width.
func groupStyle(i, n int) Style { return Style{Colour: PaletteColour(i), Width: GroupWidth(i, n)} }

func (r *Run) group(name, column string) []float64 {
	return r.TS.Metric(results.KindGroup, name, column)
}

// Steps is a per-interval series (a rate, an average) as points of steps: each value held from
// its interval's start to its end, so that a dip starts where its fault does.
func (r *Run) Steps(label string, ys []float64, sty Style) Series {
	s := Series{Label: label, Style: sty}
	for i, y := range ys {
		s.X = append(s.X, r.Starts[i], r.Ends[i])
		s.Y = append(s.Y, y, y)
	}
	return s
}

// levels is a series of levels read at each interval's end (tokens, connections).
func (r *Run) levels(label string, ys []float64, sty Style) Series {
	return Series{Label: label, Style: sty, X: r.Ends, Y: ys}
}

// addSteps adds a series of steps to pn, with its key unless label is "".
func (r *Run) addSteps(pn *Panel, label string, ys []float64, sty Style) {
	s := r.Steps(label, ys, sty)
	pn.Series = append(pn.Series, s)
	if label != "" {
		pn.Keys = append(pn.Keys, Key{Label: label, Style: sty})
	}
}

// ShardsFigure: each mongos's attempts per operation toward each shard (its own retries
// included), and its retry budget's balance toward that shard, a line per (mongos, shard).
func (r *Run) ShardsFigure(rows results.ShardRows) *Figure {
	f := &Figure{Name: Shards, Title: "Mongos routers: attempts per operation and retry budget, per shard", Subtitle: r.Subtitle()}
	ampLabel, _ := MetricAxis("amplification", nil, false)
	amp := r.timePanel("Shard attempts per operation (the mongos's own retries included)", ampLabel, true)
	bud := r.timePanel("Retry budget balance toward the shard, at interval end", "tokens", false)
	amp.Y.Cover, bud.Y.Cover = fromZero, fromZero
	amp.Refs = []Ref{noRetries}
	for i, t := range rows.Tracks {
		sty := groupStyle(i, len(rows.Tracks))
		a := Series{Style: sty}
		for j, end := range t.Ends {
			start := math.Max(0, end-r.Header.Interval.Seconds())
			a.X, a.Y = append(a.X, start, end), append(a.Y, t.Values["amplification"][j], t.Values["amplification"][j])
		}
		amp.Series = append(amp.Series, a)
		bud.Series = append(bud.Series, Series{Style: sty, X: t.Ends, Y: t.Values["budget_balance"]})
		amp.Keys = append(amp.Keys, Key{Label: t.Mongos + " → " + t.Shard, Style: sty})
	}
	amp.Keys = append(amp.Keys, noRetriesKey())
	amp.Keys = append(amp.Keys, r.windowKeys()...)
	f.Panels = []Panel{amp, bud}
	return f
}

// The styles of the rates over time. Offered, attempts and goodput coincide while nothing fails
// or retries; drawn widest first (goodput, then attempts, then offered dashed on top), the three
// show as stripes where they coincide, and none hides another.
var (
	offeredStyle  = Style{Offered, Thin, Dashed}
	attemptsStyle = Style{Attempts, Medium, Solid}
	goodputStyle  = Style{Goodput, Thick + 1, Solid}
)

// ceilingStyle is the configured ceiling's reference line: dotted, so that it is not taken for
// the offered load's dashes, and darker than the "1 = no retries" line.
var ceilingStyle = Style{Colour: Total, Width: Medium, Dash: Dotted}

// maxRefSource is the longest source of the ceiling (results.Capacity.Source, in bytes) that the
// ceiling's line names: one node's limiter or workers fit along a chart; a sum over several
// nodes does not, and is left to the report's answer.
const maxRefSource = 60

// ceilingRef is the configured ceiling as a reference line, named on it with its source when
// that is short ("configured ceiling 1000/s (ingress request limiter 1000/s on db)"), and its
// key, named briefly ("configured ceiling 1000/s") so that the legend stays narrow; ok is false
// when the run's ceiling is unknown.
func (r *Run) ceilingRef() (ref Ref, key Key, ok bool) {
	label := r.Capacity.CeilingLabel()
	if label == "" {
		return Ref{}, Key{}, false
	}
	ref = Ref{Y: r.Capacity.Ceiling, Style: ceilingStyle, Label: label}
	if src := r.Capacity.Source; src != "" && len(src) <= maxRefSource {
		ref.Label += " (" + src + ")"
	}
	return ref, Key{Label: label, Style: ceilingStyle}, true
}

// addCeiling draws the configured ceiling across a rates panel, its y axis covering it.
func (r *Run) addCeiling(pn *Panel) {
	ref, key, ok := r.ceilingRef()
	if !ok {
		return
	}
	pn.Refs = append(pn.Refs, ref)
	pn.Keys = append(pn.Keys, key)
	pn.Y.Cover = append(pn.Y.Cover, 0, ref.Y)
}

// TimeseriesFigure: the rates of all groups together over time (rejections of all servers),
// with the configured ceiling, and, with more than one group, goodput and failures per group.
func (r *Run) TimeseriesFigure() *Figure {
	f := &Figure{Name: Timeseries, Title: "Offered load, attempts, goodput, rejections and failures over time", Subtitle: r.Subtitle()}
	top := r.timePanel("All client groups (request rejections: all servers)", "per second", true)
	top.Y.Cover = fromZero
	// Requests refused (limiter, queue overflow); refused connections are not operations and
	// have their panel in the servers figure.
	requests := Sum(r.TS, results.KindServer, r.Servers, "rejected_request")
	for i, q := range Sum(r.TS, results.KindServer, r.Servers, "rejected_queue") {
		if !math.IsNaN(q) {
			requests[i] = math.Max(0, nanZero(requests[i])) + q
		}
	}
	// The keys in reading order; the series drawn widest first, offered last, on top.
	offered := r.Steps("offered load (operations)", GroupsSum(r.TS, "offered"), offeredStyle)
	attempts := r.Steps("attempts (commands sent)", GroupsSum(r.TS, "attempts"), attemptsStyle)
	goodput := r.Steps("goodput (successes)", GroupsSum(r.TS, "goodput"), goodputStyle)
	rejections := r.Steps("request rejections (servers)", requests, Style{Rejections, Medium, Solid})
	failures := r.Steps("failures (errors to app)", GroupsSum(r.TS, "failures"), Style{Failures, Medium, Solid})
	top.Series = []Series{goodput, rejections, failures, attempts, offered}
	for _, s := range []Series{offered, attempts, goodput, rejections, failures} {
		top.Keys = append(top.Keys, Key{Label: s.Label, Style: s.Style})
	}
	r.addCeiling(&top)
	top.Keys = append(top.Keys, r.windowKeys()...)
	f.Panels = []Panel{top}
	if len(r.Groups) > 1 {
		good := r.timePanel("Goodput by group", "operations per second", false)
		fail := r.timePanel("Failures by group", "operations per second", false)
		for i, g := range r.Groups {
			sty := groupStyle(i, len(r.Groups))
			r.addSteps(&good, "", r.group(g, "goodput"), sty)
			r.addSteps(&fail, g, r.group(g, "failures"), sty)
		}
		// Side by side, one scale: a reader compares the heights.
		hi := 0.0
		for _, g := range r.Groups {
			for _, col := range []string{"goodput", "failures"} {
				for _, y := range r.group(g, col) {
					if !math.IsNaN(y) && !math.IsInf(y, 0) {
						hi = math.Max(hi, y)
					}
				}
			}
		}
		good.Y.Cover, fail.Y.Cover = fromZero, fromZero
		if hi > 0 {
			good.Y.Cover, fail.Y.Cover = []float64{0, hi}, []float64{0, hi}
		}
		f.Panels = append(f.Panels, good, fail)
		f.Rows = []int{1, 2}
		f.Weights = []float64{1.35, 1}
	}
	return f
}

// AmplificationFigure: retry amplification above, the retry-token level below.
func (r *Run) AmplificationFigure() *Figure {
	f := &Figure{Name: Amplification, Title: "Retry amplification and retry-token level over time", Subtitle: r.Subtitle()}
	ampLabel, _ := MetricAxis("amplification", nil, false)
	amp := r.timePanel("Retry amplification: attempts ÷ operations issued", ampLabel, true)
	amp.Y.Cover = fromZero
	amp.Refs = []Ref{noRetries}
	total := RetryAmplification(r.TS)
	if len(r.Groups) > 1 {
		r.addSteps(&amp, "all groups", total, Style{Total, Thick, Solid})
		for i, g := range r.Groups {
			r.addSteps(&amp, g, r.group(g, "amplification"), groupStyle(i, len(r.Groups)))
		}
	} else {
		r.addSteps(&amp, r.groupName(), total, Style{PaletteColour(0), Thick, Solid})
	}
	amp.Keys = append(amp.Keys, noRetriesKey())
	amp.Keys = append(amp.Keys, r.windowKeys()...)

	tok := r.timePanel("Retry-token level over the clients with a token bucket", "tokens", false)
	tok.Y.Cover = fromZero
	drawnTokens := false
	for i, g := range r.Groups {
		mean, lo := r.group(g, "retry_tokens_mean"), r.group(g, "retry_tokens_min")
		if allMissing(mean) && allMissing(lo) {
			continue
		}
		drawnTokens = true
		sty := Style{PaletteColour(i), Medium, Solid}
		tok.Series = append(tok.Series, r.levels(g, mean, sty), r.levels("", lo, Style{PaletteColour(i), Medium, Dashed}))
		tok.Keys = append(tok.Keys, Key{Label: g, Style: sty})
	}
	if drawnTokens {
		tok.Keys = append(tok.Keys, Key{Label: "mean over clients", Style: Style{Total, Medium, Solid}},
			Key{Label: "min over clients", Style: Style{Total, Medium, Dashed}})
	} else {
		tok.Empty = "no client has a retry token bucket (adaptive retries off)"
	}
	f.Panels = []Panel{amp, tok}
	return f
}

func nanZero(x float64) float64 {
	if math.IsNaN(x) {
		return 0
	}
	return x
}

// groupName is the legend text of the only group (or "all groups").
func (r *Run) groupName() string {
	if len(r.Groups) == 1 {
		return r.Groups[0]
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

// percentiles of the latency figure: column suffix, legend text, line width and pattern, and
// the colour when there is one group (with several, the group's).
var percentiles = []struct {
	suffix, name string
	width        float64
	dash         Dash
	colour       int // index into Palette
}{
	{"p50", "p50", Thick + 0.5, Solid, 0},
	{"p99", "p99", Medium, Dashed, 1},
	{"p999", "p99.9", Thin, Dotted, 3},
}

func scaled(xs []float64, k float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = x * k
	}
	return out
}

// LatencyFigure: latency percentiles of successes above, of failures below; a log axis when
// the range needs one.
func (r *Run) LatencyFigure() *Figure {
	f := &Figure{Name: Latency, Title: "Operation latency (issue to final result, retries and backoff included)", Subtitle: r.Subtitle()}
	var all [][]float64
	for _, g := range r.Groups {
		for _, pc := range percentiles {
			all = append(all, r.group(g, "latency_ok_"+pc.suffix), r.group(g, "latency_fail_"+pc.suffix))
		}
	}
	// One scale for both panels, log when either needs it, over both panels' range: a reader
	// compares successes with failures.
	bothLog, bothLo, hi := LogScale(all...)
	unit, k := LatencyUnit(hi)
	for pi, kind := range []struct{ title, prefix, empty string }{
		{"Successful operations", "latency_ok_", "no successful operations"},
		{"Failed operations", "latency_fail_", "no failed operations"},
	} {
		pn := r.timePanel(kind.title, "latency ("+unit+")", pi == 0)
		var series [][]float64
		for _, g := range r.Groups {
			for _, pc := range percentiles {
				series = append(series, scaled(r.group(g, kind.prefix+pc.suffix), k))
			}
		}
		if _, lo, _ := LogScale(series...); math.IsNaN(lo) {
			pn.Empty = kind.empty
			f.Panels = append(f.Panels, pn)
			continue
		}
		if bothLog {
			pn.Y = Axis{Label: "latency (" + unit + ", log scale)", Log: true, Cover: []float64{bothLo * k, hi * k}}
		} else {
			pn.Y.Cover = []float64{0, hi * k}
		}
		n := 0
		for gi, g := range r.Groups {
			for _, pc := range percentiles {
				// Dashes tell the percentiles apart, and widths narrowing from p50 to p99.9
				// keep lines that coincide (every failure at the same timeout) visible.
				sty := Style{PaletteColour(gi), pc.width, pc.dash}
				if len(r.Groups) == 1 {
					sty.Colour = Palette[pc.colour]
				}
				pn.Series = append(pn.Series, r.Steps("", series[n], sty))
				n++
				if len(r.Groups) == 1 {
					pn.Keys = append(pn.Keys, Key{Label: pc.name, Style: sty})
				}
			}
			if len(r.Groups) > 1 {
				pn.Keys = append(pn.Keys, Key{Label: g, Style: Style{PaletteColour(gi), Medium, Solid}})
			}
		}
		if len(r.Groups) > 1 {
			for _, pc := range percentiles {
				pn.Keys = append(pn.Keys, Key{Label: pc.name, Style: Style{Total, pc.width, pc.dash}})
			}
		}
		if pi == 0 {
			pn.Keys = append(pn.Keys, r.windowKeys()...)
		}
		f.Panels = append(f.Panels, pn)
	}
	return f
}

// ServersFigure: a panel each, a line per server, for what the run is about: utilisation and
// queue length always; the request limiter's tokens when a limiter ran; the share of work
// wasted on requests whose client had given up when there was any; open connections; and the
// connections refused when the connection limiter refused any. No panel stands empty. The
// panels stand two to a row.
func (r *Run) ServersFigure() *Figure {
	f := &Figure{Name: Servers, Title: "Servers: utilisation, queue, and what limited them", Subtitle: r.Subtitle()}
	type metric struct {
		title, ylabel, column string
		scale                 float64
		level                 bool // read at interval end, not over the interval
	}
	used := func(column string) bool {
		for _, s := range r.Servers {
			for _, v := range r.TS.Metric(results.KindServer, s, column) {
				if !math.IsNaN(v) && !math.IsInf(v, 0) && v != 0 {
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
	for mi, m := range metrics {
		pn := r.timePanel(m.title, m.ylabel, mi == 0)
		pn.Y.Cover = fromZero
		if m.column == "utilisation" {
			// 0 to 100 %, with room above a saturated server's line.
			pn.Y.Cover = []float64{0, 104}
			pn.Y.Ticks = []Tick{{0, "0"}, {20, "20"}, {40, "40"}, {60, "60"}, {80, "80"}, {100, "100"}}
		}
		drawn := false
		for i, s := range r.Servers {
			ys := scaled(r.TS.Metric(results.KindServer, s, m.column), m.scale)
			drawn = drawn || !allMissing(ys)
			sty := groupStyle(i, len(r.Servers))
			l := r.Steps(s, ys, sty)
			if m.level {
				l = r.levels(s, ys, sty)
			}
			pn.Series = append(pn.Series, l)
			if mi == 1 {
				pn.Keys = append(pn.Keys, Key{Label: s, Style: sty})
			}
		}
		if !drawn {
			pn.Empty = "no server reported " + m.column
		}
		if mi == 1 {
			pn.Keys = append(pn.Keys, r.windowKeys()...)
		}
		f.Panels = append(f.Panels, pn)
	}
	for i := 0; i < len(f.Panels); i += 2 {
		f.Rows = append(f.Rows, min(2, len(f.Panels)-i))
	}
	return f
}
