package results

import (
	"math"
	"slices"
	"strings"
)

// Scope is what a metric is measured on: the first part of its full name.
type Scope string

// The scopes of the catalogue.
const (
	// ScopeGroup is a client group's metric, named group.NAME.METRIC, and the same over all
	// groups, named total.METRIC.
	ScopeGroup Scope = "group"
	// ScopeServer is a server's metric, named server.NAME.METRIC.
	ScopeServer Scope = "server"
	// ScopeFault is a trigger's outcome, named fault.NAME.METRIC.
	ScopeFault Scope = "fault"
)

// Better is the direction in which a metric improves, for a figure's reader and a regression
// check; BetterNeither for a metric that is neither good nor bad by itself (offered load,
// utilisation).
type Better string

// The directions.
const (
	BetterNeither Better = ""
	BetterHigher  Better = "higher"
	BetterLower   Better = "lower"
)

// MetricInfo is one row of the metric catalogue: a number that the summaries, timeseries.csv,
// expect: blocks, tune and the figures name the same way, with its unit and meaning.
type MetricInfo struct {
	// Name is the metric's name within its scope, the last part of its full name, and its
	// timeseries.csv column: "goodput". FailuresByClass's is "failures_CLASS", one metric per
	// error class.
	Name   string
	Scope  Scope
	Unit   string // "s" (seconds), "/s" (per second) or "" (a ratio, share, count, level or indicator)
	Better Better
	// Label names the metric in words, for an axis or a table: "goodput".
	Label string
	// JSON is the metric's key in summary.json within its scope's object (total and groups[],
	// servers[], recoveries[]), a dotted path into nested objects and "[]" into arrays:
	// "latencySuccess.p99", "failures[].rate"; "" when summary.json does not have it.
	JSON string
	// Section is the section of docs/metrics.md that defines it: "5", "8.1".
	Section string
	// Doc says what the metric is in one line.
	Doc string
	// Roles are what the tool shows and watches of the metric unless told otherwise.
	Roles

	group         func(*GroupSummary) float64       // its value in a summary
	interval      func(*GroupInterval) float64      // its value in an interval (timeseries.csv)
	classSum      func(*ClassFailures) float64      // a per-class metric's value in a summary
	classInterval func(*GroupInterval, int) float64 // … and in an interval, by class index
	server        func(*ServerSummary) float64
	serverIvl     func(*ServerInterval) float64
	fault         func(*Recovery) float64
}

// Roles are the parts a metric plays unless the user names metrics: in a comparison, the sweep
// tables, check and usage messages. The zero Roles is none.
type Roles struct {
	// Headline is the metric's place, from 1, among its scope's headline metrics, 0 for the
	// others. A comparison shows the group ones, all over every group, in this order, then each
	// trigger's fault ones; the terminal's sweep table shows the group ones with a Short name.
	Headline int
	// Short is the metric's name in the terminal's sweep table: "p99"; "" for a metric it does
	// not show. check names its gates by Gate.Name, which a share gate needs apart from the
	// metric's ("failure_share" judges failures), and which a metric the sweep table does not
	// show (failures, a fault's) needs too.
	Short string
	// Gate is how check judges the metric against a baseline (docs/metrics.md §16); the zero
	// Gate for a metric check does not watch. A gated metric is a headline (group or fault).
	Gate Gate
	// Example is the metric's place, from 1, among the metrics a usage message names as
	// examples of the vocabulary (tune's, after a metric it does not know); 0 for the others.
	Example int
}

// GateRule is the rule by which check judges a metric against its baseline (docs/metrics.md
// §16). Each metric check watches has one; the rule decides what its tolerance means.
type GateRule string

// The rules.
const (
	// GateNone: check does not watch the metric.
	GateNone GateRule = ""
	// GateBand: a regression beyond the edge of the baseline's 95 % confidence band in the
	// metric's bad direction, widened by the tolerance, relative: below (mean − ci95)·(1 − tol)
	// for a metric whose higher values are better, above (mean + ci95)·(1 + tol) for one whose
	// lower values are.
	GateBand GateRule = "band"
	// GateShare: the metric, a rate of operations, as a share of the offered load of the same
	// group (failures ÷ offered): a regression above the baseline's share at the top of its
	// band, (mean + ci95) ÷ offered, plus the tolerance, an absolute allowance (0.005 is half a
	// percentage point). A share rather than the rate itself, so that the gate asks what a
	// planner asks ("what fraction of the operations fail?") whatever the load.
	GateShare GateRule = "share"
	// GateNoNewStuck: the metric is an outcome indicator, its mean the share of replications
	// in that outcome (fault.NAME.stuck): a regression when the result has such a replication
	// where the baseline had none, or when its share is above the upper end of the 95 % Wilson
	// interval of the baseline's. It takes no tolerance.
	GateNoNewStuck GateRule = "no-new-stuck"
)

// Gate is how check judges a metric: by which rule, under which name, and with what allowance
// unless told otherwise.
type Gate struct {
	Rule GateRule
	// Name is the gate's name in check --tolerance and, for GateShare, in check's reports
	// (total.failure_share): "goodput", "p99", "failure_share", "stuck".
	Name string
	// Tolerance is the gate's allowance unless check --tolerance says otherwise: relative to
	// the band's edge for GateBand (0.05 is 5 %), an absolute rise of the share for GateShare;
	// 0 for GateNoNewStuck, which takes none.
	Tolerance float64
	// Interval says the metric is measured in whole sampling intervals (a recovery time,
	// docs/metrics.md §13.5), so that its band gate allows one interval more, the measurement's
	// resolution: a baseline that recovered in the first interval (0 s) is not held to
	// exactly 0, which no relative tolerance could widen.
	Interval bool
}

// InSummary reports whether the metric is one of Summary.Metrics: what expect: blocks, tune,
// sweeps, comparisons and checks name.
func (m *MetricInfo) InSummary() bool {
	return m.group != nil || m.classSum != nil || m.server != nil || m.fault != nil
}

// InTimeseries reports whether the metric is a column of timeseries.csv.
func (m *MetricInfo) InTimeseries() bool {
	return m.interval != nil || m.classInterval != nil || m.serverIvl != nil
}

// PerClass reports whether the metric is one per error class (failures_CLASS).
func (m *MetricInfo) PerClass() bool { return m.classSum != nil || m.classInterval != nil }

// AxisLabel is the label with the unit: "goodput (/s)", "p99 latency, successes (s)",
// "retry amplification".
func (m *MetricInfo) AxisLabel() string {
	if m.Unit == "" {
		return m.Label
	}
	return m.Label + " (" + m.Unit + ")"
}

// classPrefix is the name of a per-class metric without its class.
const classPrefix = "failures_"

// Catalogue returns every metric, in the order of Summary.Metrics and of timeseries.csv's
// columns (each keeps the order of the ones it has), by scope: group, server, fault.
func Catalogue() []MetricInfo { return slices.Clone(catalogue) }

// LookupMetric returns the catalogue's row of a metric named in full ("total.goodput",
// "group.adaptive.latency_ok_p99", "fault.cut#2.recovery_time") or by its last part
// ("reject_share"); any failures_CLASS with a class finds the per-class row. Only the last part
// is looked up: whether the first parts name a scope and one of the scenario's groups, nodes or
// triggers is the scenario's to check.
func LookupMetric(name string) (MetricInfo, bool) {
	last := name[strings.LastIndex(name, ".")+1:]
	for i := range catalogue {
		m := &catalogue[i]
		if m.PerClass() && len(last) > len(classPrefix) && strings.HasPrefix(last, classPrefix) || m.Name == last {
			return *m, true
		}
	}
	return MetricInfo{}, false
}

// Headlines returns a scope's headline metrics, in their order (MetricInfo.Headline).
func Headlines(scope Scope) []MetricInfo {
	var out []MetricInfo
	for _, m := range catalogue {
		if m.Scope == scope && m.Headline > 0 {
			out = append(out, m)
		}
	}
	slices.SortStableFunc(out, func(a, b MetricInfo) int { return a.Headline - b.Headline })
	return out
}

// Checked returns the metrics check watches (those with a Gate): the group ones, then the fault
// ones, each in headline order.
func Checked() []MetricInfo {
	return slices.DeleteFunc(append(Headlines(ScopeGroup), Headlines(ScopeFault)...), func(m MetricInfo) bool { return m.Gate.Rule == GateNone })
}

// LookupGate returns the catalogue's row of the metric a gate judges, by the gate's name
// ("p99", "failure_share") or the name of the gated value in full ("total.failure_share").
func LookupGate(name string) (MetricInfo, bool) {
	last := name[strings.LastIndex(name, ".")+1:]
	for _, m := range Checked() {
		if m.Gate.Name == last {
			return m, true
		}
	}
	return MetricInfo{}, false
}

// Examples returns the metrics a usage message names as examples, in their order
// (MetricInfo.Example).
func Examples() []MetricInfo {
	var out []MetricInfo
	for _, m := range catalogue {
		if m.Example > 0 {
			out = append(out, m)
		}
	}
	slices.SortStableFunc(out, func(a, b MetricInfo) int { return a.Example - b.Example })
	return out
}

// SummaryNames returns the names of a scope's metrics in Summary.Metrics, in order, without
// the per-class ones.
func SummaryNames(scope Scope) []string {
	var out []string
	for i := range catalogue {
		if m := &catalogue[i]; m.Scope == scope && m.InSummary() && !m.PerClass() {
			out = append(out, m.Name)
		}
	}
	return out
}

func perSecond(n uint64, g *GroupInterval) float64 { return rate(n, g.Seconds()) }

func perServerSecond(n uint64, s *ServerInterval) float64 { return rate(n, s.Seconds()) }

// indicator is 1 for true and 0 for false.
func indicator(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// latencyRows are the four metrics of one latency histogram, the p99 with the roles p99.
func latencyRows(prefix, key, what, section string, p99 Roles, sum func(*GroupSummary) *Latency, h func(*GroupInterval) *Histogram) []MetricInfo {
	row := func(stat, label string, s func(*Latency) float64, iv func(*Histogram) float64) MetricInfo {
		var r Roles
		if stat == "p99" {
			r = p99
		}
		return MetricInfo{Roles: r, Name: prefix + stat, Scope: ScopeGroup, Unit: "s", Better: BetterLower,
			Label: label + " latency, " + what, JSON: key + "." + stat, Section: section,
			Doc:   label + " latency of " + what + ", seconds",
			group: func(g *GroupSummary) float64 { return s(sum(g)) }, interval: func(g *GroupInterval) float64 { return iv(h(g)) }}
	}
	return []MetricInfo{
		row("mean", "mean", func(l *Latency) float64 { return l.Mean }, (*Histogram).Mean),
		row("p50", "p50", func(l *Latency) float64 { return l.P50 }, func(h *Histogram) float64 { return h.Quantile(0.5) }),
		row("p99", "p99", func(l *Latency) float64 { return l.P99 }, func(h *Histogram) float64 { return h.Quantile(0.99) }),
		row("p999", "p99.9", func(l *Latency) float64 { return l.P999 }, func(h *Histogram) float64 { return h.Quantile(0.999) }),
	}
}

// outcome is a trigger's outcome indicator: 1 for out, 0 for the others, NaN without a baseline
// (so that a sweep's means are the shares of replications in each outcome, and their counts n
// say how many replications had a baseline).
func outcome(out RecoveryOutcome) func(*Recovery) float64 {
	return func(r *Recovery) float64 {
		if r.Outcome == NoBaseline {
			return math.NaN()
		}
		return indicator(r.Outcome == out)
	}
}

// stuckOutcome is the stuck indicator: 1 for every outcome that ends the span stuck
// (RecoveryOutcome.Stuck: Relapsed as well as Stuck), so that a sweep's share of stuck
// replications, and every P(stuck) drawn from it, counts relapses.
func stuckOutcome(r *Recovery) float64 {
	if r.Outcome == NoBaseline {
		return math.NaN()
	}
	return indicator(r.Outcome.Stuck())
}

// catalogue is the metric vocabulary. A new metric is a row here (in the place its columns and
// summary metrics take), and its paragraph in docs/metrics.md; docs' tests keep the table of
// docs/metrics.md §18 and the JSON schema in step with it.
var catalogue = slices.Concat([]MetricInfo{
	{Name: "offered", Scope: ScopeGroup, Unit: "/s", Label: "offered load", JSON: "offered", Section: "2", Roles: Roles{Headline: 1},
		Doc:   "application operations issued per second",
		group: func(g *GroupSummary) float64 { return g.Offered }, interval: (*GroupInterval).Offered},
	{Name: "attempts", Scope: ScopeGroup, Unit: "/s", Label: "attempts", JSON: "attemptRate", Section: "3",
		Doc:   "commands put on the wire per second, retries included",
		group: func(g *GroupSummary) float64 { return g.AttemptRate }, interval: (*GroupInterval).AttemptRate},
	{Name: "amplification", Scope: ScopeGroup, Better: BetterLower, Label: "retry amplification", JSON: "amplification", Section: "4",
		Roles: Roles{Headline: 3, Short: "amplification", Gate: Gate{Rule: GateBand, Name: "amplification", Tolerance: 0.05}, Example: 2},
		Doc:   "attempts ÷ operations issued",
		group: func(g *GroupSummary) float64 { return g.Amplification }, interval: (*GroupInterval).Amplification},
	{Name: "goodput", Scope: ScopeGroup, Unit: "/s", Better: BetterHigher, Label: "goodput", JSON: "goodput", Section: "5",
		Roles: Roles{Headline: 2, Short: "goodput", Gate: Gate{Rule: GateBand, Name: "goodput", Tolerance: 0.05}, Example: 1},
		Doc:   "operations that succeeded per second",
		group: func(g *GroupSummary) float64 { return g.Goodput }, interval: (*GroupInterval).Goodput},
	{Name: "failures", Scope: ScopeGroup, Unit: "/s", Better: BetterLower, Label: "failures", JSON: "failureRate", Section: "6",
		Roles: Roles{Headline: 5, Gate: Gate{Rule: GateShare, Name: "failure_share", Tolerance: 0.005}},
		Doc:   "operations that returned an error per second",
		group: func(g *GroupSummary) float64 { return g.FailureRate }, interval: (*GroupInterval).FailureRate},
	{Name: classPrefix + "CLASS", Scope: ScopeGroup, Unit: "/s", Better: BetterLower, Label: "failures by class", JSON: "failures[].rate", Section: "6",
		Doc:      "operations that returned an error of the class per second",
		classSum: func(c *ClassFailures) float64 { return c.Rate },
		classInterval: func(g *GroupInterval, c int) float64 {
			return perSecond(count(g.FailedByClass, c), g)
		}},
	{Name: "retries", Scope: ScopeGroup, Unit: "/s", Label: "driver retries", Section: "7",
		Doc:      "retries the driver's policy allowed per second",
		interval: func(g *GroupInterval) float64 { return perSecond(g.Retries, g) }},
	{Name: "retries_refused", Scope: ScopeGroup, Unit: "/s", Label: "refused retries", JSON: "retriesRefusedRate", Section: "7",
		Doc:      "retries a token bucket, budget, quota, throttle or breaker refused per second",
		group:    func(g *GroupSummary) float64 { return g.RetriesRefusedRate },
		interval: func(g *GroupInterval) float64 { return perSecond(g.RetriesRefused, g) }},
	{Name: "app_retries", Scope: ScopeGroup, Unit: "/s", Label: "application retries", Section: "7",
		Doc:      "driver operations the application re-issued per second",
		interval: func(g *GroupInterval) float64 { return perSecond(g.AppRetries, g) }},
	{Name: "backoff", Scope: ScopeGroup, Label: "driver backoff", Section: "7",
		Doc:      "driver backoff begun, seconds per second",
		interval: func(g *GroupInterval) float64 { return fratio(g.Backoff.Seconds(), g.Seconds()) }},
	{Name: "checkout_failed", Scope: ScopeGroup, Unit: "/s", Better: BetterLower, Label: "failed checkouts", Section: "7",
		Doc:      "connection checkouts that failed per second",
		interval: func(g *GroupInterval) float64 { return perSecond(g.CheckoutFailed, g) }},
	{Name: "pool_clears", Scope: ScopeGroup, Unit: "/s", Better: BetterLower, Label: "pool clears", Section: "7",
		Doc:      "connection pool clears per second",
		interval: func(g *GroupInterval) float64 { return perSecond(g.PoolClears, g) }},
	{Name: "driver_queue", Scope: ScopeGroup, Better: BetterLower, Label: "operations waiting in the driver", Section: "7",
		Doc:      "operations waiting in the driver (connection-pool wait queues, server selection, client-side admission) at the interval's end",
		interval: func(g *GroupInterval) float64 { return float64(g.DriverQueue) }},
},
	latencyRows("latency_ok_", "latencySuccess", "successes", "8.1", Roles{Headline: 4, Short: "p99", Gate: Gate{Rule: GateBand, Name: "p99", Tolerance: 0.10}, Example: 3},
		func(g *GroupSummary) *Latency { return &g.Success }, func(g *GroupInterval) *Histogram { return &g.Success }),
	latencyRows("latency_fail_", "latencyFailure", "failures", "8.1", Roles{},
		func(g *GroupSummary) *Latency { return &g.Failure }, func(g *GroupInterval) *Histogram { return &g.Failure }),
	[]MetricInfo{{Name: "latency_all_p99", Scope: ScopeGroup, Unit: "s", Better: BetterLower, Label: "p99 latency, all operations",
		JSON: "latencyAllP99", Section: "8.1", Doc: "p99 latency of every operation, successes and failures together, seconds",
		group: func(g *GroupSummary) float64 { return g.AllP99 }}},
	latencyRows("latency_attempt_", "latencyAttempt", "attempts", "8.2", Roles{},
		func(g *GroupSummary) *Latency { return &g.Attempt }, func(g *GroupInterval) *Histogram { return &g.Attempt }),
	[]MetricInfo{
		{Name: "retry_tokens_min", Scope: ScopeGroup, Label: "lowest retry-token level", JSON: "retryTokensMin", Section: "10",
			Doc:      "the lowest retry-token balance sampled, tokens",
			group:    func(g *GroupSummary) float64 { return g.TokensMin },
			interval: func(g *GroupInterval) float64 { return g.TokensMin }},
		{Name: "retry_tokens_mean", Scope: ScopeGroup, Label: "mean retry-token level", JSON: "retryTokensMean", Section: "10",
			Doc:   "the mean retry-token balance over clients and samples, tokens",
			group: func(g *GroupSummary) float64 { return g.TokensMean }, interval: (*GroupInterval).TokensMean},

		{Name: "completed", Scope: ScopeServer, Unit: "/s", Label: "completed commands", JSON: "throughput", Section: "9.1",
			Doc:       "commands that executed to the end per second",
			server:    func(v *ServerSummary) float64 { return v.Throughput },
			serverIvl: func(s *ServerInterval) float64 { return perServerSecond(s.Completed, s) }},
		{Name: "rejections", Scope: ScopeServer, Unit: "/s", Better: BetterLower, Label: "rejections", JSON: "rejectionRate", Section: "9.2",
			Doc:    "attempts and connections a limiter refused per second",
			server: func(v *ServerSummary) float64 { return v.RejectionRate }, serverIvl: (*ServerInterval).Rejections},
		{Name: "rejected_request", Scope: ScopeServer, Unit: "/s", Better: BetterLower, Label: "request-limiter rejections", Section: "9.2",
			Doc:       "request-limiter rejections (462) per second",
			serverIvl: func(s *ServerInterval) float64 { return perServerSecond(s.RejectedAdmissions, s) }},
		{Name: "rejected_queue", Scope: ScopeServer, Unit: "/s", Better: BetterLower, Label: "worker-queue overflows", Section: "9.2",
			Doc:       "worker-queue overflows (433) per second",
			serverIvl: func(s *ServerInterval) float64 { return perServerSecond(s.QueueOverflows, s) }},
		{Name: "rejected_conn", Scope: ScopeServer, Unit: "/s", Better: BetterLower, Label: "connection rejections", Section: "9.2",
			Doc:       "connections the establishment limiter closed per second",
			serverIvl: func(s *ServerInterval) float64 { return perServerSecond(s.ConnRejected, s) }},
		{Name: "utilisation", Scope: ScopeServer, Label: "utilisation", JSON: "utilisation", Section: "9.3",
			Doc:    "busy worker time ÷ worker capacity while up",
			server: func(v *ServerSummary) float64 { return v.Utilisation }, serverIvl: (*ServerInterval).Utilisation},
		{Name: "reject_share", Scope: ScopeServer, Better: BetterLower, Label: "reject share", JSON: "rejectShare", Section: "9.4", Roles: Roles{Example: 4},
			Doc:    "worker time spent rejecting ÷ worker capacity while up",
			server: func(v *ServerSummary) float64 { return v.RejectShare }, serverIvl: (*ServerInterval).RejectShare},
		{Name: "wasted_share", Scope: ScopeServer, Better: BetterLower, Label: "wasted share", JSON: "wastedShare", Section: "9.5",
			Doc:    "worker time spent rejecting or on abandoned work ÷ worker capacity while up",
			server: func(v *ServerSummary) float64 { return v.WastedShare }, serverIvl: (*ServerInterval).WastedShare},
		{Name: "busy", Scope: ScopeServer, Label: "busy workers", Section: "9.6",
			Doc:       "mean busy workers",
			serverIvl: func(s *ServerInterval) float64 { return fratio(s.BusyArea, s.Seconds()) }},
		{Name: "queue", Scope: ScopeServer, Better: BetterLower, Label: "worker-queue length", JSON: "meanQueue", Section: "9.6",
			Doc:       "time-average worker-queue length, requests",
			server:    func(v *ServerSummary) float64 { return v.MeanQueue },
			serverIvl: func(s *ServerInterval) float64 { return fratio(s.QueueArea, s.Seconds()) }},
		{Name: "workers", Scope: ScopeServer, Label: "workers", Section: "9.6",
			Doc:       "workers at the interval's end",
			serverIvl: func(s *ServerInterval) float64 { return float64(s.Workers) }},
		{Name: "connections", Scope: ScopeServer, Label: "connections", Section: "9.6",
			Doc:       "open connections at the interval's end",
			serverIvl: func(s *ServerInterval) float64 { return float64(s.Connections) }},
		{Name: "tokens", Scope: ScopeServer, Label: "request-limiter tokens", Section: "9.6",
			Doc:       "the request limiter's available tokens at the interval's end",
			serverIvl: func(s *ServerInterval) float64 { return s.Tokens }},
		{Name: "down", Scope: ScopeServer, Label: "down", Section: "9.6",
			Doc:       "1 if the node is down at the interval's end, else 0",
			serverIvl: func(s *ServerInterval) float64 { return indicator(s.Down) }},

		{Name: "recovered", Scope: ScopeFault, Better: BetterHigher, Label: "recovered", JSON: "outcome", Section: "13",
			Doc: "1 if goodput recovered after the trigger, 0 if not; no value without a baseline", fault: outcome(Recovered)},
		{Name: "stuck", Scope: ScopeFault, Better: BetterLower, Label: "stuck", JSON: "outcome", Section: "13", Roles: Roles{Headline: 1, Gate: Gate{Rule: GateNoNewStuck, Name: "stuck"}},
			Doc: "1 if goodput is stuck after the trigger (relapsed included), 0 if not; no value without a baseline", fault: stuckOutcome},
		{Name: "undecided", Scope: ScopeFault, Label: "undecided", JSON: "outcome", Section: "13",
			Doc: "1 if the run was too short to tell, 0 if not; no value without a baseline", fault: outcome(Undecided)},
		{Name: "recovery_time", Scope: ScopeFault, Unit: "s", Better: BetterLower, Label: "recovery time", JSON: "seconds", Section: "13",
			Roles: Roles{Headline: 2, Gate: Gate{Rule: GateBand, Name: "recovery_time", Tolerance: 0.10, Interval: true}, Example: 5},
			Doc:   "from the trigger's end to the recovery, seconds; no value unless recovered",
			fault: func(r *Recovery) float64 { return r.Seconds }},
		{Name: "relapsed", Scope: ScopeFault, Better: BetterLower, Label: "relapsed", JSON: "outcome", Section: "13",
			Doc: "1 if goodput recovered, then relapsed into a stuck state (counted in stuck too), 0 if not; no value without a baseline", fault: outcome(Relapsed)},
	},
)
