package results

import (
	"math"
	"slices"
	"strconv"
	"time"

	"overloadsim/client"
	"overloadsim/client/retry"
	"overloadsim/sim"
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
	Class string  `json:"class"` // client.ErrClass name
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
	RetriesRefused uint64 `json:"retriesRefused"` // overload retries refused for want of a token
	AppRetries     uint64 `json:"appRetries"`     // driver operations the application re-issued

	Offered            float64         `json:"offered"`       // offered load, operations/s
	AttemptRate        float64         `json:"attemptRate"`   // attempts/s
	Amplification      float64         `json:"amplification"` // attempts ÷ issued
	Goodput            float64         `json:"goodput"`       // successful operations/s
	FailureRate        float64         `json:"failureRate"`   // failed operations/s
	Failures           []ClassFailures `json:"failures"`      // by error class, in client.ErrClass order
	RetriesRefusedRate float64         `json:"retriesRefusedRate"`

	Success Latency `json:"latencySuccess"` // issue to final result, successes
	Failure Latency `json:"latencyFailure"` // issue to final result, failures
	Attempt Latency `json:"latencyAttempt"` // each attempt, from sending to its end

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
	Warmup     time.Duration   `json:"warmup"`   // truncated from the start
	Measured   time.Duration   `json:"measured"` // length of the measured window
	Total      GroupSummary    `json:"total"`    // all groups; Name "total"
	Groups     []GroupSummary  `json:"groups"`   // by name
	Servers    []ServerSummary `json:"servers"`  // by name
	Recoveries []Recovery      `json:"recoveries"`
	Shards     []ShardSummary  `json:"shards,omitempty"` // by mongos, then shard; runs with mongos nodes only
}

// groupAcc accumulates GroupIntervals.
type groupAcc struct {
	row              GroupInterval // counters summed
	success, failure Histogram
	attempt          Histogram
}

func (a *groupAcc) add(g *GroupInterval) {
	r := &a.row
	r.Issued += g.Issued
	r.Succeeded += g.Succeeded
	r.Failed += g.Failed
	for i := range g.FailedByClass {
		r.FailedByClass[i] += g.FailedByClass[i]
	}
	r.AppRetries += g.AppRetries
	r.Attempts += g.Attempts
	r.Retries += g.Retries
	r.RetriesRefused += g.RetriesRefused
	r.RetriesCancelled += g.RetriesCancelled
	for i := range g.RetriedByReason {
		r.RetriedByReason[i] += g.RetriedByReason[i]
		r.NotRetriedByReason[i] += g.NotRetriedByReason[i]
	}
	if g.TokensN > 0 && (r.TokensN == 0 || g.TokensMin < r.TokensMin) {
		r.TokensMin = g.TokensMin
	}
	r.TokensSum += g.TokensSum
	r.TokensN += g.TokensN
	a.success.Merge(&g.Success)
	a.attempt.Merge(&g.Attempt)
	a.failure.Merge(&g.Failure)
}

func (a *groupAcc) summary(name string, secs float64) GroupSummary {
	r := &a.row
	gs := GroupSummary{
		Name: name, Issued: r.Issued, Attempts: r.Attempts, Succeeded: r.Succeeded, Failed: r.Failed,
		Retries: r.Retries, RetriesRefused: r.RetriesRefused, AppRetries: r.AppRetries,
		Offered: rate(r.Issued, secs), AttemptRate: rate(r.Attempts, secs),
		Amplification: ratio(r.Attempts, r.Issued), Goodput: rate(r.Succeeded, secs),
		FailureRate: rate(r.Failed, secs), RetriesRefusedRate: rate(r.RetriesRefused, secs),
		Success: summarizeLatency(&a.success), Failure: summarizeLatency(&a.failure),
		Attempt:   summarizeLatency(&a.attempt),
		TokensMin: math.NaN(), TokensMean: math.NaN(),
	}
	for c := 1; c < client.NumErrClasses; c++ {
		gs.Failures = append(gs.Failures, ClassFailures{Class: client.ErrClass(c).String(),
			Count: r.FailedByClass[c], Rate: rate(r.FailedByClass[c], secs)})
	}
	if r.TokensN > 0 {
		gs.TokensMin, gs.TokensMean = r.TokensMin, r.TokensSum/float64(r.TokensN)
	}
	for i := range r.RetriedByReason {
		if r.RetriedByReason[i]+r.NotRetriedByReason[i] > 0 {
			gs.RetryReasons = append(gs.RetryReasons, ReasonCount{Reason: retry.Reason(i).String(),
				Retried: r.RetriedByReason[i], NotRetried: r.NotRetriedByReason[i]})
		}
	}
	gs.RetriesCancelled = r.RetriesCancelled
	return gs
}

// Summarize summarises s over its measured window: the intervals that start at or after warmup
// (an interval that straddles the warm-up's end is dropped whole). Recoveries use the whole
// series.
func Summarize(s *Series, warmup time.Duration) Summary {
	from := sim.Time(warmup)
	sum := Summary{Warmup: warmup}
	var lastEnd sim.Time = -1
	count := func(start, end sim.Time) {
		if end != lastEnd {
			sum.Measured += end.Sub(start)
			lastEnd = end
		}
	}
	var total groupAcc
	accs := map[string]*groupAcc{}
	var names []string
	for i := range s.Groups {
		g := &s.Groups[i]
		if g.Start < from {
			continue
		}
		count(g.Start, g.End)
		a := accs[g.Name]
		if a == nil {
			a = &groupAcc{}
			accs[g.Name] = a
			names = append(names, g.Name)
		}
		a.add(g)
		total.add(g)
	}
	type serverAcc struct {
		completed, rejections  uint64
		busy, capacity, queue  float64
		rejectBusy, wastedBusy time.Duration
	}
	saccs := map[string]*serverAcc{}
	var snames []string
	lastEnd = -1
	var serverSecs time.Duration
	for i := range s.Servers {
		v := &s.Servers[i]
		if v.Start < from {
			continue
		}
		if v.End != lastEnd {
			serverSecs += v.End.Sub(v.Start)
			lastEnd = v.End
		}
		a := saccs[v.Name]
		if a == nil {
			a = &serverAcc{}
			saccs[v.Name] = a
			snames = append(snames, v.Name)
		}
		a.completed += v.Completed
		a.rejections += v.RejectedAdmissions + v.QueueOverflows + v.ConnRejected
		a.busy += v.BusyArea
		a.capacity += v.CapacityArea
		a.queue += v.QueueArea
		a.rejectBusy += v.RejectBusy
		a.wastedBusy += v.WastedBusy
	}
	if len(s.Groups) == 0 {
		sum.Measured = serverSecs
	}
	secs := sum.Measured.Seconds()
	sum.Total = total.summary("total", secs)
	slices.Sort(names)
	for _, n := range names {
		sum.Groups = append(sum.Groups, accs[n].summary(n, secs))
	}
	slices.Sort(snames)
	ssecs := serverSecs.Seconds()
	for _, n := range snames {
		a := saccs[n]
		sum.Servers = append(sum.Servers, ServerSummary{
			Name: n, Completed: a.completed, Rejections: a.rejections,
			Throughput: rate(a.completed, ssecs), RejectionRate: rate(a.rejections, ssecs),
			Utilisation: fratio(a.busy, a.capacity), RejectShare: fratio(a.rejectBusy.Seconds(), a.capacity),
			WastedShare: fratio(a.wastedBusy.Seconds(), a.capacity), MeanQueue: fratio(a.queue, ssecs),
		})
	}
	sum.Shards = summarizeShards(s, from)
	sum.Recoveries = Recoveries(s)
	return sum
}

func indicator(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// Metric is one named number of a Summary.
type Metric struct {
	Name  string
	Value float64
}

// Metrics flattens the summary into named numbers, in a fixed order: "total.…", then
// "group.NAME.…" per group, "server.NAME.…" per server and "fault.NAME.…" per trigger (a name
// repeated among triggers gets "#2", "#3", … appended). Group and total metrics are offered,
// attempts, amplification, goodput, failures, failures_CLASS per error class, retries_refused
// (all rates per second but amplification), latency_ok_{mean,p50,p99,p999} and
// latency_fail_{mean,p50,p99,p999} (seconds), retry_tokens_min and retry_tokens_mean. Server
// metrics are completed and rejections (per second), utilisation, reject_share, wasted_share and
// queue. Fault metrics are recovered, stuck and undecided (1 for the trigger's outcome, 0 for the
// others, NaN for all three without a baseline) and recovery_time (seconds; NaN unless
// recovered, so a sweep's mean is over the recovered replications and its n counts them). Sweeps
// aggregate and check these names.
func (s *Summary) Metrics() []Metric {
	var out []Metric
	add := func(name string, v float64) { out = append(out, Metric{name, v}) }
	group := func(prefix string, g *GroupSummary) {
		add(prefix+"offered", g.Offered)
		add(prefix+"attempts", g.AttemptRate)
		add(prefix+"amplification", g.Amplification)
		add(prefix+"goodput", g.Goodput)
		add(prefix+"failures", g.FailureRate)
		for _, c := range g.Failures {
			add(prefix+"failures_"+c.Class, c.Rate)
		}
		add(prefix+"retries_refused", g.RetriesRefusedRate)
		for _, l := range []struct {
			name string
			lat  *Latency
		}{{"latency_ok_", &g.Success}, {"latency_fail_", &g.Failure}, {"latency_attempt_", &g.Attempt}} {
			add(prefix+l.name+"mean", l.lat.Mean)
			add(prefix+l.name+"p50", l.lat.P50)
			add(prefix+l.name+"p99", l.lat.P99)
			add(prefix+l.name+"p999", l.lat.P999)
		}
		add(prefix+"retry_tokens_min", g.TokensMin)
		add(prefix+"retry_tokens_mean", g.TokensMean)
	}
	group("total.", &s.Total)
	for i := range s.Groups {
		group("group."+s.Groups[i].Name+".", &s.Groups[i])
	}
	for _, v := range s.Servers {
		p := "server." + v.Name + "."
		add(p+"completed", v.Throughput)
		add(p+"rejections", v.RejectionRate)
		add(p+"utilisation", v.Utilisation)
		add(p+"reject_share", v.RejectShare)
		add(p+"wasted_share", v.WastedShare)
		add(p+"queue", v.MeanQueue)
	}
	seen := map[string]int{}
	for _, r := range s.Recoveries {
		name := r.Fault
		if seen[name]++; seen[name] > 1 {
			name += "#" + strconv.Itoa(seen[name])
		}
		p := "fault." + name + "."
		// One indicator per outcome, so that a sweep's means are the shares of replications in
		// each outcome and their counts n say how many replications had a baseline.
		recovered, stuck, undecided := math.NaN(), math.NaN(), math.NaN()
		if r.Outcome != NoBaseline {
			recovered, stuck, undecided = indicator(r.Outcome == Recovered), indicator(r.Outcome == Stuck), indicator(r.Outcome == Undecided)
		}
		add(p+"recovered", recovered)
		add(p+"stuck", stuck)
		add(p+"undecided", undecided)
		add(p+"recovery_time", r.Seconds)
	}
	return out
}
