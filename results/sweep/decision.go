package sweep

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/overloadsim/overloadsim/results"
)

// DecisionFactors are the loads a policy decision is read at, as multiples of today's load:
// today's, half as much again, and twice (docs/metrics.md §17.1).
var DecisionFactors = []float64{1, 1.5, 2}

// DecisionLoadTolerance is how far, relative to its target, a point of a sweep over a workload's
// rate may offer from a multiple of today's load (DecisionFactors) and still stand for it: the
// offered load of a point is measured, so it is never exactly the target.
const DecisionLoadTolerance = 0.02

// policyWords are the words of a sweep parameter's path that make it a policy or a limiter
// (IsPolicyPath), lower case.
var policyWords = []string{"driver.", "retry", "policy", "limiter", "ingress", "admission", "budget", "throttle", "breaker", "hedg"}

// IsPolicyPath reports whether a sweep parameter is a policy or a limiter: a client's driver
// or retry option (clients[1].driver.retryPolicy, …adaptiveRetries, a retry block's option) or
// a node's limiter (topology.nodes[0].ingressRequestAdmissionRatePerSec), so that the sweep
// gets a policy decision (Decide). A workload's rate is not one, nor is the load factor.
func IsPolicyPath(path string) bool {
	p := strings.ToLower(path)
	if strings.Contains(p, "workload") || p == "load" {
		return false
	}
	return slices.ContainsFunc(policyWords, func(w string) bool { return strings.Contains(p, w) })
}

// Estimate is a mean over replications and its 95 % confidence half-width (NaN when there is
// no interval: one replication, or no value).
type Estimate struct {
	Mean float64 `json:"mean"`
	CI95 float64 `json:"ci95"`
}

// separates reports whether the 95 % intervals of a and b do not overlap: the only case in
// which a decision says that one differs from the other. An estimate without an interval
// separates from nothing.
func (a Estimate) separates(b Estimate) bool {
	if !finiteAll(a.Mean, a.CI95, b.Mean, b.CI95) {
		return false
	}
	return a.Mean+a.CI95 < b.Mean-b.CI95 || b.Mean+b.CI95 < a.Mean-a.CI95
}

// below reports whether a is below b with their intervals apart.
func (a Estimate) below(b Estimate) bool { return a.separates(b) && a.Mean < b.Mean }

func finiteAll(xs ...float64) bool {
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// DecisionRow is one policy at one load, over one scope (the varied group or all groups).
type DecisionRow struct {
	Policy string `json:"policy"` // the policy's name (PolicyName)
	Value  string `json:"value"`  // the parameter's value as swept
	Level  string `json:"level"`  // the load in words: "today", "1.5× today", "2× today", "1611/s"
	// Factor is the load as a multiple of today's (0 when today's load is unknown), and Load
	// the swept load's value at the point ("" without a load axis).
	Factor float64 `json:"factor"`
	Load   string  `json:"load,omitempty"`
	Scope  string  `json:"scope"` // the group's name, or "total"
	// Offered is the mean offered load (operations/s); FailureShare the failures ÷ offered
	// (its half-width the failure rate's over the mean offered load); the rest as the
	// catalogue's metrics of the same names.
	Offered       float64  `json:"offered"`
	Goodput       Estimate `json:"goodput"`
	FailureShare  Estimate `json:"failureShare"`
	Amplification Estimate `json:"amplification"`
	P99OK         Estimate `json:"latencyOkP99"`
	P99All        Estimate `json:"latencyAllP99"`
	// Recovery is how the point's replications came out after each trigger (fault.* metrics).
	Recovery []TriggerOutcomes `json:"recovery,omitempty"`
}

// Decision is a policy decision: a sweep that varies a policy or a limiter, read per policy at
// today's load, 1.5× and 2× (or the loads the sweep has), and the sentences that decide.
type Decision struct {
	Parameter string   `json:"parameter"`          // the varied policy's path
	Policies  []string `json:"policies"`           // the policies' names, in sweep order
	Group     string   `json:"group,omitempty"`    // the client group whose policy varies, "" for a node's limiter
	LoadPath  string   `json:"loadPath,omitempty"` // the load axis's path, "" without one
	// Decides names the scope the sentences read: the varied group, or "total" (all groups)
	// for a limiter.
	Decides string `json:"decides"`
	// Loads says which loads the table holds, and why when they are not today's, 1.5× and 2×.
	Loads     string        `json:"loads"`
	Rows      []DecisionRow `json:"rows"`
	Sentences []string      `json:"sentences"`
}

// DecisionLine is one policy's points, for DecideLines: its name and its points (one per load,
// or one without a load axis). A comparison passes one line per labelled result.
type DecisionLine struct {
	Name, Value string
	Points      []*PointStats
}

// Decide returns the policy decision of a sweep whose parameters include a policy or a limiter
// (IsPolicyPath), nil for any other. groups are the scenario's client groups' names in the
// order of clients[] (for the varied group's metrics), ctx the sweep's load context (today's
// load). With a second, load parameter (IsLoadPath), rows are at today's load, 1.5× and 2×.
func Decide(points []PointStats, ctx LoadContext, groups []string) *Decision {
	paths, values := parameters(points)
	policy, load := "", ""
	for _, p := range paths {
		switch {
		case IsLoadPath(p, values[p]) && load == "":
			load = p
		case IsPolicyPath(p) && policy == "":
			policy = p
		}
	}
	if policy == "" || len(values[policy]) < 2 || len(paths) > 2 || len(paths) == 2 && load == "" {
		return nil
	}
	var lines []DecisionLine
	for _, v := range values[policy] {
		l := DecisionLine{Name: PolicyName(policy, v), Value: v}
		for i := range points {
			if param(&points[i], policy) == v {
				l.Points = append(l.Points, &points[i])
			}
		}
		lines = append(lines, l)
	}
	return DecideLines(policy, VariedGroup(policy, groups), lines, load, ctx)
}

// clientIndex matches a client group's path: clients[1].….
var clientIndex = regexp.MustCompile(`^clients\[(\d+)\]\.`)

// VariedGroup returns the name of the client group a parameter belongs to (clients[i].…), by
// groups, the clients' names in order; "" for a parameter of no group.
func VariedGroup(path string, groups []string) string {
	m := clientIndex.FindStringSubmatch(path)
	if m == nil {
		return ""
	}
	i, err := strconv.Atoi(m[1])
	if err != nil || i >= len(groups) {
		return ""
	}
	return groups[i]
}

// PolicyName names a policy by what differs between the values: the value itself
// ("mongodb-2026-07"), a switch by its field ("adaptiveRetries on"), a rate per second with its
// unit, a limit ("limit 800/s").
func PolicyName(path, value string) string {
	field := path[strings.LastIndex(path, ".")+1:]
	switch {
	case value == "true":
		return field + " on"
	case value == "false":
		return field + " off"
	case strings.HasSuffix(field, "PerSec"):
		if _, err := strconv.ParseFloat(value, 64); err == nil {
			return "limit " + value + "/s"
		}
	}
	return value
}

func param(p *PointStats, path string) string {
	for _, pr := range p.Params {
		if pr.Path == path {
			return pr.Value
		}
	}
	return ""
}

// level is one load of a decision: its words, its multiple of today's load, and the swept load's
// value ("" without a load axis).
type level struct {
	words  string
	factor float64
	value  string
}

// decisionLevels chooses the loads of a decision among the swept ones (values, in sweep order;
// offered, each one's mean offered load): for the load factor, the values exactly 1, 1.5 and 2;
// for a workload's rate, those whose offered load is within DecisionLoadTolerance of today's ×
// 1, 1.5 and 2. When none is, every swept load, and the note says so.
func decisionLevels(path string, values []string, offered map[string]float64, today float64) ([]level, string) {
	if path == "" {
		f := 0.0
		for _, o := range offered {
			if today > 0 {
				f = o / today
			}
		}
		return []level{{words: "as swept", factor: f}}, "the sweep has no load axis: the table is at the one load it ran"
	}
	nums, kind, _, _ := results.ParseValues(values)
	var out []level
	for _, target := range DecisionFactors {
		for i, v := range values {
			match := false
			switch kind {
			case results.ValueNumber: // the load factor: exactly
				match = nums[i] == target
			default:
				match = today > 0 && math.Abs(offered[v]/(target*today)-1) <= DecisionLoadTolerance
			}
			if match {
				out = append(out, level{words: factorWords(target), factor: target, value: v})
				break
			}
		}
	}
	if len(out) > 0 {
		var missing []string
		for _, t := range DecisionFactors {
			if !slices.ContainsFunc(out, func(l level) bool { return l.factor == t }) {
				missing = append(missing, factorWords(t))
			}
		}
		if len(missing) == 0 {
			return out, "today's load, 1.5× and 2× today"
		}
		return out, fmt.Sprintf("the sweep does not reach %s: the table holds the loads it has of today's, 1.5× and 2×", results.JoinAnd(missing))
	}
	var have []string
	for i, v := range values {
		f := 0.0
		switch {
		case kind == results.ValueNumber:
			f = nums[i]
		case today > 0:
			f = offered[v] / today
		}
		words := v
		if f > 0 {
			words = fmt.Sprintf("%.2f× today", f)
		}
		out = append(out, level{words: words, factor: f, value: v})
		have = append(have, words)
	}
	return out, fmt.Sprintf("no swept load is today's, 1.5× or 2× today: the table holds every load swept (%s)", strings.Join(have, ", "))
}

// factorWords says a multiple of today's load: "today", "1.5× today".
func factorWords(f float64) string {
	if f == 1 {
		return "today"
	}
	return strconv.FormatFloat(f, 'g', -1, 64) + "× today"
}

// DecideLines is Decide on lines already split by policy (a comparison's labelled results):
// path is the varied parameter's, group the varied client group ("" for all groups), load the load
// axis's path ("" for none).
func DecideLines(path, group string, lines []DecisionLine, load string, ctx LoadContext) *Decision {
	d := &Decision{Parameter: path, Group: group, LoadPath: load, Decides: "total"}
	if group != "" {
		d.Decides = group
	}
	var values []string
	offered := map[string]float64{}
	for _, l := range lines {
		d.Policies = append(d.Policies, l.Name)
		for _, p := range l.Points {
			v := ""
			if load != "" {
				v = param(p, load)
			}
			if !slices.Contains(values, v) {
				values = append(values, v)
			}
			if o, ok := p.Metric("total.offered"); ok && offered[v] == 0 {
				offered[v] = o.Mean
			}
		}
	}
	levels, note := decisionLevels(load, values, offered, ctx.Today)
	d.Loads = note
	scopes := []string{"total"}
	if group != "" {
		scopes = []string{group, "total"}
	}
	for _, lv := range levels {
		for _, l := range lines {
			var pt *PointStats
			for _, p := range l.Points {
				if load == "" || param(p, load) == lv.value {
					pt = p
					break
				}
			}
			if pt == nil {
				continue
			}
			for _, sc := range scopes {
				d.Rows = append(d.Rows, decisionRow(pt, l, lv, sc))
			}
		}
	}
	d.Sentences = d.decide(levels)
	return d
}

// decisionRow reads one point's row over scope.
func decisionRow(p *PointStats, l DecisionLine, lv level, scope string) DecisionRow {
	prefix := "total."
	if scope != "total" {
		prefix = "group." + scope + "."
	}
	est := func(name string) Estimate {
		m, ok := p.Metric(prefix + name)
		if !ok {
			return Estimate{Mean: math.NaN(), CI95: math.NaN()}
		}
		return Estimate{Mean: m.Mean, CI95: m.CI95}
	}
	r := DecisionRow{Policy: l.Name, Value: l.Value, Level: lv.words, Factor: lv.factor, Load: lv.value, Scope: scope,
		Goodput: est("goodput"), Amplification: est("amplification"), P99OK: est("latency_ok_p99"), P99All: est("latency_all_p99"),
		Recovery: p.Outcomes()}
	o, f := est("offered"), est("failures")
	r.Offered = o.Mean
	r.FailureShare = Estimate{Mean: math.NaN(), CI95: math.NaN()}
	if o.Mean > 0 {
		r.FailureShare = Estimate{Mean: f.Mean / o.Mean, CI95: f.CI95 / o.Mean}
	}
	return r
}

// rowsAt returns the rows of the decided scope at the level with words, in policy order.
func (d *Decision) rowsAt(words string) []DecisionRow {
	var out []DecisionRow
	for _, r := range d.Rows {
		if r.Level == words && r.Scope == d.Decides {
			out = append(out, r)
		}
	}
	return out
}

// decide writes the sentences that decide, at the highest load of the table (2× today when
// swept: a policy is chosen for the load it must survive), reading the decided scope: which
// policy fails least, and by how much, only where the 95 % intervals separate; its
// amplification against the others', where they separate; a policy that looks better on goodput
// or on its successes' latency but fails more, named as such; and, when the intervals do not
// separate, that the sweep does not decide.
func (d *Decision) decide(levels []level) []string {
	if len(levels) == 0 {
		return []string{"No point of the sweep has every policy: nothing to decide."}
	}
	lv := levels[len(levels)-1]
	rows := d.rowsAt(lv.words)
	if len(rows) < 2 {
		return []string{fmt.Sprintf("At %s fewer than two policies have a point: nothing to decide.", lv.words)}
	}
	at := "At " + lv.words
	if lv.words == "as swept" {
		at = "At the load swept"
	}
	if r := rows[0]; r.Offered > 0 {
		if d.Decides == "total" {
			at += fmt.Sprintf(" (%.0f/s offered)", r.Offered)
		} else if t := d.row(r.Policy, lv.words, "total"); t != nil {
			at += fmt.Sprintf(" (%.0f/s offered by %s, %.0f/s in all)", r.Offered, d.Decides, t.Offered)
		}
	}
	of := ""
	if d.Decides != "total" {
		of = fmt.Sprintf(" of %s's operations", d.Decides)
	}
	best := 0
	for i, r := range rows {
		if r.FailureShare.Mean < rows[best].FailureShare.Mean {
			best = i
		}
	}
	b := rows[best]
	var clear, tied []DecisionRow
	for i, r := range rows {
		if i == best {
			continue
		}
		if b.FailureShare.below(r.FailureShare) {
			clear = append(clear, r)
		} else {
			tied = append(tied, r)
		}
	}
	if len(clear) == 0 {
		names := []string{b.Policy}
		for _, r := range tied {
			names = append(names, r.Policy)
		}
		return []string{fmt.Sprintf("%s, the failure shares%s of %s overlap at 95 %% (%s): the sweep does not decide; run more replications.",
			at, of, results.JoinAnd(names), shares(append([]DecisionRow{b}, tied...)))}
	}
	var against []string
	for _, r := range clear {
		against = append(against, fmt.Sprintf("%s for %s", percent(r.FailureShare.Mean), r.Policy))
	}
	s := fmt.Sprintf("%s, %s fails %s%s against %s", at, b.Policy, percent(b.FailureShare.Mean), of, results.JoinAnd(against))
	var lower, higher []string
	for _, r := range rows {
		switch {
		case r.Policy == b.Policy:
		case b.Amplification.below(r.Amplification):
			lower = append(lower, fmt.Sprintf("%.2g× for %s", r.Amplification.Mean, r.Policy))
		case r.Amplification.below(b.Amplification):
			higher = append(higher, fmt.Sprintf("%.2g× for %s", r.Amplification.Mean, r.Policy))
		}
	}
	if len(lower) > 0 {
		s += fmt.Sprintf(" and amplifies %.2g× against %s", b.Amplification.Mean, results.JoinAnd(lower))
	}
	if len(higher) > 0 {
		s += fmt.Sprintf(", though it amplifies %.2g× against %s", b.Amplification.Mean, results.JoinAnd(higher))
	}
	if len(tied) > 0 {
		var names []string
		for _, r := range tied {
			names = append(names, r.Policy)
		}
		s += fmt.Sprintf("; its failure share overlaps %s's at 95 %%", results.JoinAnd(names))
	}
	out := []string{s + "."}
	// A policy that looks better by goodput or by its successes' p99 but fails more: named so
	// that a chart of goodput alone does not choose it.
	var looks []string
	for _, r := range clear {
		var why []string
		if b.P99OK.Mean > r.P99OK.Mean && r.P99OK.below(b.P99OK) {
			why = append(why, fmt.Sprintf("a lower p99 of successes (%s against %s)", roundDuration(r.P99OK.Mean), roundDuration(b.P99OK.Mean)))
		}
		if b.Goodput.below(r.Goodput) {
			why = append(why, fmt.Sprintf("a higher goodput (%.0f/s against %.0f/s)", r.Goodput.Mean, b.Goodput.Mean))
		}
		if len(why) > 0 {
			looks = append(looks, fmt.Sprintf("%s has %s but fails %s", r.Policy, results.JoinAnd(why), percent(r.FailureShare.Mean)))
		}
	}
	if len(looks) > 0 {
		out = append(out, strings.Join(looks, "; ")+".")
	}
	if total := d.totalOverlap(lv.words); total != "" {
		out = append(out, total)
	}
	if worse := b.stuckMore(rows); worse != "" {
		out = append(out, worse)
	}
	return out
}

// row returns the row of policy at the level with words over scope, nil when there is none.
func (d *Decision) row(policy, words, scope string) *DecisionRow {
	for i := range d.Rows {
		if r := &d.Rows[i]; r.Policy == policy && r.Level == words && r.Scope == scope {
			return r
		}
	}
	return nil
}

// totalOverlap says, for a decision read on one group, when no two policies' failure shares
// over all groups separate: what the group gains the other groups then lose (a shared limiter
// serves the same total), and the planner must know it. "" otherwise.
func (d *Decision) totalOverlap(words string) string {
	if d.Decides == "total" {
		return ""
	}
	var rows []DecisionRow
	for _, r := range d.Rows {
		if r.Level == words && r.Scope == "total" {
			rows = append(rows, r)
		}
	}
	for i := range rows {
		for j := range i {
			if rows[i].FailureShare.separates(rows[j].FailureShare) {
				return ""
			}
		}
	}
	if len(rows) < 2 {
		return ""
	}
	return fmt.Sprintf("Over all groups the failure shares overlap at 95 %% (%s): what %s gains, the other groups lose.", shares(rows), d.Decides)
}

// stuckMore says when the policy that fails least ended stuck after a trigger in more
// replications than another policy did: a failure share over the whole run can hide it.
func (b DecisionRow) stuckMore(rows []DecisionRow) string {
	stuck := func(r DecisionRow) (n, of int) {
		for _, o := range r.Recovery {
			n, of = n+o.Stuck, of+o.N
		}
		return n, of
	}
	bn, bof := stuck(b)
	for _, r := range rows {
		if n, of := stuck(r); r.Policy != b.Policy && bn > n && of > 0 {
			return fmt.Sprintf("But after the trigger %s stayed stuck in %d of %d replications, %s in %d of %d.", b.Policy, bn, bof, r.Policy, n, of)
		}
	}
	return ""
}

// shares lists rows' failure shares: "3.1 % ± 0.4 for a, 3.3 % ± 0.5 for b".
func shares(rows []DecisionRow) string {
	var parts []string
	for _, r := range rows {
		parts = append(parts, fmt.Sprintf("%s ± %s for %s", percent(r.FailureShare.Mean), percent(r.FailureShare.CI95), r.Policy))
	}
	return strings.Join(parts, ", ")
}
