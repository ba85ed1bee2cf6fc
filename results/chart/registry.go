package chart

import "github.com/overloadsim/overloadsim/results"

// Spec is one figure of the registry: its file's base name (NAME.svg, NAME.png), the kind of
// result it is drawn for, and the caption a report shows under it.
type Spec struct {
	Name    string
	Kind    string // results.KindRun, KindSweep, KindMap, KindTune, KindCompare or KindTip
	Caption string
}

// File is the figure's SVG file, the one a report embeds.
func (s Spec) File() string { return s.Name + ".svg" }

// The figures' base names.
const (
	Timeseries         = "timeseries"
	Amplification      = "amplification"
	Latency            = "latency"
	Shards             = "shards" // a run with mongos routers (shards.csv) only
	Servers            = "servers"
	SweepGoodput       = "sweep-goodput"
	SweepAmplification = "sweep-amplification"
	SweepP99           = "sweep-p99"
	SweepDecision      = "sweep-decision" // a sweep that varies a policy or a limiter only
	Map                = "map"
	TunePareto         = "tune-pareto"
	Compare            = "compare"
	Tip                = "tip"
)

// Registry is every figure, in the order a report shows them. results/plot draws them under
// these names, results/report embeds them with these captions in this order, and cmd/simulate
// lists the files drawn in the folder's manifest.
var Registry = []Spec{
	{Timeseries, results.KindRun, "Offered load, attempts, goodput, rejections and failures over virtual time."},
	{Amplification, results.KindRun, "Retry amplification (attempts ÷ operations issued; 1 means no retries) and the retry-token level over time."},
	{Latency, results.KindRun, "Operation latency over time, from issue to final result with retries and backoff included: successful and failed operations."},
	{Shards, results.KindRun, "Mongos routers over time: attempts per operation toward each shard, and each retry budget's balance."},
	{Servers, results.KindRun, "Servers over time: utilisation and queue, and what limited them: request-limiter tokens, work wasted on abandoned requests, connections open and refused (each when the run has any)."},
	{SweepGoodput, results.KindSweep, "Goodput against the swept parameter: mean over replications with its 95 % confidence interval."},
	{SweepAmplification, results.KindSweep, "Retry amplification against the swept parameter: mean over replications with its 95 % confidence interval."},
	{SweepP99, results.KindSweep, "p99 latency of successful operations against the swept parameter: mean over replications with its 95 % confidence interval."},
	{SweepDecision, results.KindSweep, "Policy decision: per policy, the share of operations that failed beside goodput, retry amplification and the p99 latency of all operations (successes and failures), at today's load, 1.5× and 2× (or the loads swept), with 95 % confidence intervals."},
	{Map, results.KindMap, "Metastability map: the share of replications stuck after the trigger " +
		"(colour, on a fixed 0–1 scale), the 50 % boundary (bold line, interpolated between cells), the median recovery time in " +
		"seconds of the replications that recovered (numbers), k/n stuck of the decided replications (along each cell's foot), cells with undecided replications (?), " +
		"cells whose 95 % interval for P(stuck) holds ½, which do not say on which side of the boundary they lie (dashed frame), and cells not run (hatched)."},
	{TunePareto, results.KindTune, ""}, // no report embeds it: docs/tune.md describes it
	{Compare, results.KindCompare, "What changed: goodput of every result, and each result's difference from the reference (result − reference) in goodput, failures, p99 latency of successes and retry amplification, over time with the fault windows shaded (runs) or over the swept parameter with the difference's 95 % interval (sweeps); for sweeps of one point, each result's value with its 95 % interval. Green better, red worse (p < 0.05), grey not significant or untested."},
	{Tip, results.KindTip, "P(stuck) against the searched parameter: each value tested at the share of its decided runs that stuck (k/n) with its exact 95 % interval, the tipping point where P(stuck) crosses ½ with its confidence band, and the conservative bound: the last value up to which every run recovered (green) and the first where a run stuck (red)."},
}

// Lookup returns the registry's figure named name; it panics on a name not in Registry, which
// is a programming error.
func Lookup(name string) Spec {
	for _, s := range Registry {
		if s.Name == name {
			return s
		}
	}
	panic("chart: no figure " + name + " in the registry")
}

// Names returns the base names of the figures of kind, in the registry's order.
func Names(kind string) []string {
	var out []string
	for _, s := range Registry {
		if s.Kind == kind {
			out = append(out, s.Name)
		}
	}
	return out
}
