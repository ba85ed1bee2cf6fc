package results

import (
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/overloadsim/overloadsim/sim"
)

// Latency summarises the latencies of a set of operations, in seconds. Quantiles come from a
// Histogram (within HistogramRelativeError); the mean is exact. Empty: Count 0, the rest NaN.
type Latency struct {
	Count uint64  `json:"count"`
	Mean  float64 `json:"mean"`
	P50   float64 `json:"p50"`
	P99   float64 `json:"p99"`
	P999  float64 `json:"p999"`
}

func summarizeLatency(h *Histogram) Latency {
	return Latency{Count: h.Count(), Mean: h.Mean(), P50: h.Quantile(0.5), P99: h.Quantile(0.99), P999: h.Quantile(0.999)}
}

// ClassFailures is the failures of one error class.
type ClassFailures struct {
	Class string  `json:"class"` // the error class's name
	Count uint64  `json:"count"`
	Rate  float64 `json:"rate"` // per second
}

// GroupSummary is one client group (or all of them) over the measured window. Counts are totals
// over the window, rates are per second of it.
type GroupSummary struct {
	Name string `json:"name"`

	Issued         uint64 `json:"issued"`         // application operations issued
	Attempts       uint64 `json:"attempts"`       // commands put on the wire
	Succeeded      uint64 `json:"succeeded"`      // operations that completed successfully
	Failed         uint64 `json:"failed"`         // operations that returned an error
	Retries        uint64 `json:"retries"`        // driver retries the policy allowed
	RetriesRefused uint64 `json:"retriesRefused"` // retries refused by a token bucket, budget, quota, throttle or breaker
	AppRetries     uint64 `json:"appRetries"`     // driver operations the application re-issued
	// WritesLost counts writes the driver reported as succeeded although the server refused them
	// with NoWritesPerformed: a release's bug (docs/drivers.md §2). They are in Succeeded and
	// Goodput, as the application saw them. Absent when none.
	WritesLost uint64 `json:"writesLost,omitempty"`

	Offered            float64         `json:"offered"`       // offered load, operations/s
	AttemptRate        float64         `json:"attemptRate"`   // attempts/s
	Amplification      float64         `json:"amplification"` // attempts ÷ issued
	Goodput            float64         `json:"goodput"`       // successful operations/s
	FailureRate        float64         `json:"failureRate"`   // failed operations/s
	Failures           []ClassFailures `json:"failures"`      // by error class, in the series' ErrClasses order
	RetriesRefusedRate float64         `json:"retriesRefusedRate"`

	Success Latency `json:"latencySuccess"` // issue to final result, successes
	Failure Latency `json:"latencyFailure"` // issue to final result, failures
	Attempt Latency `json:"latencyAttempt"` // each attempt, from sending to its end
	// AllP99 is the p99 latency of every operation, successes and failures together (their
	// histograms merged, docs/metrics.md §8.1), seconds; NaN when none finished. A policy that
	// fails fast looks quick by its successes' p99 alone.
	AllP99 float64 `json:"latencyAllP99"`

	// Retry token bucket levels sampled at every interval end over the clients with a bucket:
	// the lowest seen and the mean. NaN when no client has a bucket.
	TokensMin  float64 `json:"retryTokensMin"`
	TokensMean float64 `json:"retryTokensMean"`

	// RetryReasons are a Couchbase policy's decisions by retry reason (RFC 0049 asks that every
	// retry and non-retry be logged with its reason), in reason order; absent for MongoDB
	// policies.
	RetryReasons []ReasonCount `json:"retryReasons,omitempty"`
	// RetriesCancelled counts Couchbase retries capped to the request's deadline and cancelled.
	RetriesCancelled uint64 `json:"retriesCancelled,omitempty"`
	// LocallyRejected counts attempts the policy's own throttle refused to send
	// (sre-throttle); AdmitDelaySeconds is the time its client-side rate limiter held
	// attempts back (aws-adaptive); HedgedCopies the copies a hedging policy sent beyond each
	// operation's first, and AttemptsCancelled those it cancelled on the wire (grpc hedging).
	LocallyRejected   uint64   `json:"locallyRejected,omitempty"`
	AdmitDelaySeconds *float64 `json:"admitDelaySeconds,omitempty"`
	HedgedCopies      uint64   `json:"hedgedCopies,omitempty"`
	AttemptsCancelled uint64   `json:"attemptsCancelled,omitempty"`
}

// ReasonCount is how often a Couchbase policy retried, and declined to retry, for one reason.
type ReasonCount struct {
	Reason     string `json:"reason"`
	Retried    uint64 `json:"retried"`
	NotRetried uint64 `json:"notRetried"`
}

// ServerSummary is one server over the measured window.
type ServerSummary struct {
	Name          string  `json:"name"`
	Completed     uint64  `json:"completed"`     // commands executed to the end
	Rejections    uint64  `json:"rejections"`    // request, admission-queue and connection rejections
	Throughput    float64 `json:"throughput"`    // completed commands/s
	RejectionRate float64 `json:"rejectionRate"` // rejections/s
	Utilisation   float64 `json:"utilisation"`   // busy worker time ÷ worker capacity while up
	RejectShare   float64 `json:"rejectShare"`   // share of capacity spent on rejections
	WastedShare   float64 `json:"wastedShare"`   // share of capacity spent on wasted work
	MeanQueue     float64 `json:"meanQueue"`     // time-average worker-queue length
}

// Summary is a run's result over the measured window (after the warm-up), per group, for all
// groups together, per server, and the recovery after each trigger.
type Summary struct {
	// Header says which run the summary is of, in summary.json (WriteRunDir sets it); nil in
	// memory.
	Header     *SummaryHeader  `json:"header,omitempty"`
	Warmup     time.Duration   `json:"warmup"`   // truncated from the start
	Measured   time.Duration   `json:"measured"` // length of the measured window
	Total      GroupSummary    `json:"total"`    // all groups; Name "total"
	Groups     []GroupSummary  `json:"groups"`   // by name
	Servers    []ServerSummary `json:"servers"`  // by name
	Recoveries []Recovery      `json:"recoveries"`
	// Phases are the measured window cut at the triggers (Phases): before, during and after
	// each, all groups together. A run's summary has them (NewRun); absent without triggers.
	Phases []Phase        `json:"phases,omitempty"`
	Shards []ShardSummary `json:"shards,omitempty"` // by mongos, then shard; runs with mongos nodes only
	// Expected is what the run measured for each of its scenario's expectations, in order
	// (Measure): kept with a sweep's units, judged by Judge. Verdicts are the judgements of a
	// single run, written to summary.json.
	Expected []Measured `json:"-"`
	Verdicts []Verdict  `json:"expectations,omitempty"`
	// Capacity is where the run's load sits against its configured ceiling (bench sets it
	// from the scenario); zero, and absent from summary.json, when the run was not made from a
	// scenario.
	Capacity Capacity `json:"capacity,omitzero"`
}

// SummarySchema names the layout of summary.json (docs/schemas/summary.schema.json); it
// changes when a field changes meaning or goes away.
const SummarySchema = "overloadsim/summary/1"

// SummaryHeader is summary.json's header: the file's schema, and the run it summarises (its
// scenario's name and digest, seed, replication, and the simulator's name and version), so that
// the file read alone says what it is.
type SummaryHeader struct {
	Schema      string `json:"schema"`
	Tool        string `json:"tool"`
	Version     string `json:"version"`
	Scenario    string `json:"scenario"`
	Digest      string `json:"digest"`
	Seed        uint64 `json:"seed"`
	Replication int    `json:"replication"`
}

// groupSummary summarises g, a window's total of one group (or of all), over secs seconds;
// classes and reasons name its count slices' indices.
func groupSummary(name string, g *GroupInterval, secs float64, classes, reasons []string) GroupSummary {
	gs := GroupSummary{
		Name: name, Issued: g.Issued, Attempts: g.Attempts, Succeeded: g.Succeeded, Failed: g.Failed,
		Retries: g.Retries, RetriesRefused: g.RetriesRefused, AppRetries: g.AppRetries, WritesLost: g.WritesLost,
		Offered: rate(g.Issued, secs), AttemptRate: rate(g.Attempts, secs),
		Amplification: ratio(g.Attempts, g.Issued), Goodput: rate(g.Succeeded, secs),
		FailureRate: rate(g.Failed, secs), RetriesRefusedRate: rate(g.RetriesRefused, secs),
		Success: summarizeLatency(&g.Success), Failure: summarizeLatency(&g.Failure),
		Attempt: summarizeLatency(&g.Attempt), AllP99: MergedQuantile(0.99, &g.Success, &g.Failure),
		TokensMin: math.NaN(), TokensMean: math.NaN(),
	}
	for c, class := range classes {
		n := count(g.FailedByClass, c)
		gs.Failures = append(gs.Failures, ClassFailures{Class: class, Count: n, Rate: rate(n, secs)})
	}
	if g.TokensN > 0 {
		gs.TokensMin, gs.TokensMean = g.TokensMin, g.TokensSum/float64(g.TokensN)
	}
	for i, reason := range reasons {
		if retried, not := count(g.RetriedByReason, i), count(g.NotRetriedByReason, i); retried+not > 0 {
			gs.RetryReasons = append(gs.RetryReasons, ReasonCount{Reason: reason, Retried: retried, NotRetried: not})
		}
	}
	gs.RetriesCancelled = g.RetriesCancelled
	gs.LocallyRejected, gs.HedgedCopies, gs.AttemptsCancelled = g.LocallyRejected, g.HedgedCopies, g.AttemptsCancelled
	if g.AdmitDelay > 0 {
		d := g.AdmitDelay.Seconds()
		gs.AdmitDelaySeconds = &d
	}
	return gs
}

// count returns counts[i], 0 past the end (a record that counted nothing by index).
func count(counts []uint64, i int) uint64 {
	if i < len(counts) {
		return counts[i]
	}
	return 0
}

// Summarize summarises s over its measured window: the intervals that start at or after warmup
// (an interval that straddles the warm-up's end is dropped whole). Recoveries use the whole
// series.
func Summarize(s *Series, warmup time.Duration) Summary {
	from := sim.Time(warmup)
	sum := Summary{Warmup: warmup}
	sum.Measured = measured(s.Groups, from, func(g *GroupInterval) (sim.Time, sim.Time) { return g.Start, g.End })
	serverSpan := measured(s.Servers, from, func(v *ServerInterval) (sim.Time, sim.Time) { return v.Start, v.End })
	if len(s.Groups) == 0 {
		sum.Measured = serverSpan
	}
	secs := sum.Measured.Seconds()

	start := func(g *GroupInterval) sim.Time { return g.Start }
	names, groups := windowSums(s.Groups, from, GroupInterval{}, start, func(g *GroupInterval) string { return g.Name })
	_, total := windowSums(s.Groups, from, GroupInterval{}, start, func(*GroupInterval) bool { return true })
	all := total[true]
	if all == nil {
		all = &GroupInterval{}
	}
	sum.Total = groupSummary("total", all, secs, s.ErrClasses, s.RetryReasons)
	slices.Sort(names)
	for _, n := range names {
		sum.Groups = append(sum.Groups, groupSummary(n, groups[n], secs, s.ErrClasses, s.RetryReasons))
	}

	snames, servers := windowSums(s.Servers, from, ServerInterval{},
		func(v *ServerInterval) sim.Time { return v.Start }, func(v *ServerInterval) string { return v.Name })
	slices.Sort(snames)
	ssecs := serverSpan.Seconds()
	for _, n := range snames {
		a := servers[n]
		rejections := a.RejectedAdmissions + a.QueueOverflows + a.ConnRejected
		sum.Servers = append(sum.Servers, ServerSummary{
			Name: n, Completed: a.Completed, Rejections: rejections,
			Throughput: rate(a.Completed, ssecs), RejectionRate: rate(rejections, ssecs),
			Utilisation: fratio(a.BusyArea, a.CapacityArea), RejectShare: fratio(a.RejectBusy.Seconds(), a.CapacityArea),
			WastedShare: fratio(a.WastedBusy.Seconds(), a.CapacityArea), MeanQueue: fratio(a.QueueArea, ssecs),
		})
	}
	sum.Shards = summarizeShards(s, from)
	sum.Recoveries = Recoveries(s)
	return sum
}

// measured returns the length of the window covered by rows that start at or after from: each
// distinct interval once, however many sources have a row for it (rows are in End order).
func measured[R any](rows []R, from sim.Time, span func(*R) (sim.Time, sim.Time)) time.Duration {
	var d time.Duration
	var lastEnd sim.Time = -1
	for i := range rows {
		start, end := span(&rows[i])
		if start < from || end == lastEnd {
			continue
		}
		d += end.Sub(start)
		lastEnd = end
	}
	return d
}

// Metric is one named number of a Summary.
type Metric struct {
	Name  string
	Value float64
}

// Metrics flattens the summary into named numbers: the catalogue's metrics (Catalogue) that
// summaries have, in its order, "total.…" first, then "group.NAME.…" per group (with
// failures_CLASS once per error class), "server.NAME.…" per server and "fault.NAME.…" per
// trigger (a name repeated among triggers gets "#2", "#3", … appended). Expectations, tune,
// sweeps, comparisons and checks name these.
func (s *Summary) Metrics() []Metric {
	var out []Metric
	group := func(prefix string, g *GroupSummary) {
		for i := range catalogue {
			switch m := &catalogue[i]; {
			case m.group != nil:
				out = append(out, Metric{prefix + m.Name, m.group(g)})
			case m.classSum != nil:
				for c := range g.Failures {
					out = append(out, Metric{prefix + classPrefix + g.Failures[c].Class, m.classSum(&g.Failures[c])})
				}
			}
		}
	}
	group("total.", &s.Total)
	for i := range s.Groups {
		group("group."+s.Groups[i].Name+".", &s.Groups[i])
	}
	for i := range s.Servers {
		v := &s.Servers[i]
		for j := range catalogue {
			if m := &catalogue[j]; m.server != nil {
				out = append(out, Metric{"server." + v.Name + "." + m.Name, m.server(v)})
			}
		}
	}
	seen := map[string]int{}
	for i := range s.Recoveries {
		r := &s.Recoveries[i]
		name := r.Fault
		if seen[name]++; seen[name] > 1 {
			name += "#" + strconv.Itoa(seen[name])
		}
		for j := range catalogue {
			if m := &catalogue[j]; m.fault != nil {
				out = append(out, Metric{"fault." + name + "." + m.Name, m.fault(r)})
			}
		}
	}
	return out
}
