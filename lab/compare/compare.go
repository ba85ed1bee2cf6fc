// Package compare says, rule by rule, whether two records of one experiment agree: a real
// release's against the simulator's replay, or any two runners'.
//
// The rules are the experiment's (experiment.Rules):
//   - attempts: the histograms of the operations' attempt counts are equal, and when the script
//     fixes every operation's count (see perOp), the counts are equal operation by operation;
//   - outcome: the histograms of the operations' outcome class and code are equal;
//   - servers: the histograms of the operations' server patterns are equal, a pattern saying of
//     each retry whether it went to the same server as the attempt before ("S") or another
//     ("D"); "-" is an operation without retries;
//   - gaps: for each retry k = 1, 2, ..., the gaps before it (record.Op.Gaps) on the two sides
//     are two samples of one distribution: the two-sample Kolmogorov–Smirnov test at level
//     Alpha = 0.001 rejects that only when p < Alpha; with fewer than MinGaps gaps on a side it
//     gives no verdict; when nine gaps in ten on both sides are at most ImmediateMS, both retried
//     at once and they agree (the test would only compare a real round trip with the replay's
//     zero);
//   - handshakes: the numbers of application handshakes are equal.
package compare

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"gonum.org/v1/gonum/stat"

	"github.com/overloadsim/overloadsim/lab/experiment"
	"github.com/overloadsim/overloadsim/lab/record"
)

// Alpha is the gaps rule's significance level: the two sides' gaps are said to differ when the
// Kolmogorov–Smirnov test's p-value is below it. It is small because a lab compares many
// experiments and retries, and a real driver's gaps add a round trip the replay does not have.
const Alpha = 0.001

// MinGaps is the fewest gaps each side needs for the gaps rule to give a verdict on a retry.
const MinGaps = 30

// ImmediateMS is the gap, in milliseconds, that nine retries in ten sent at once stay within: a
// real driver's immediate retry waits for its reply's round trip, a new checkout and its own
// event loop (a few milliseconds, tens at worst), the replay's for nothing. A backoff drawn
// below a ceiling of 40 ms or more (the shortest the experiments give) has its 90th percentile
// at 36 ms or more, so the two cannot be confused.
const ImmediateMS = 10

// Verdict is a finding's conclusion.
type Verdict string

// Verdicts.
const (
	Agrees  Verdict = "agrees"
	Differs Verdict = "differs"
	// TooFew says the records hold too little to decide (fewer than MinGaps gaps on a side).
	TooFew Verdict = "too few"
)

// Finding is one rule's verdict on the two records, and how it was reached in one line.
type Finding struct {
	// Rule is the rule (experiment.Rules), or "record" when the records cannot be compared.
	Rule    string
	Verdict Verdict
	// How says what was compared: "go-2.10.0 {3: 300}, sim:mongodb-2026-07 {4: 300}".
	How string
}

// String formats f as "rule: verdict: how".
func (f Finding) String() string { return f.Rule + ": " + string(f.Verdict) + ": " + f.How }

// Report is the comparison of two records of one experiment.
type Report struct {
	Experiment string
	// Want and Got name the two sides: the records' releases.
	Want, Got string
	Findings  []Finding
}

// Agrees reports whether no finding differs. A rule with too few data is no disagreement; the
// report's String shows it.
func (r Report) Agrees() bool {
	for _, f := range r.Findings {
		if f.Verdict == Differs {
			return false
		}
	}
	return true
}

// String formats the report as a compact table: a title line, then one line per finding.
func (r Report) String() string {
	var b strings.Builder
	verdict := "agrees"
	if !r.Agrees() {
		verdict = "differs"
	}
	fmt.Fprintf(&b, "%s: %s vs %s: %s\n", r.Experiment, r.Want, r.Got, verdict)
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, f := range r.Findings {
		fmt.Fprintf(w, "  %s\t%s\t%s\n", f.Rule, f.Verdict, f.How)
	}
	w.Flush()
	return b.String()
}

// Compare compares want and got, two records of e, on each rule e names, in e's order. Records
// that are not both of e with e.Count operations in index order get one "record" finding that
// differs, and no other.
func Compare(e *experiment.Experiment, want, got *record.Record) Report {
	r := Report{}
	if e != nil {
		r.Experiment = e.Name
	}
	if want != nil {
		r.Want = want.Release
	}
	if got != nil {
		r.Got = got.Release
	}
	if problem := comparable(e, want, got); problem != "" {
		r.Findings = []Finding{{Rule: "record", Verdict: Differs, How: problem}}
		return r
	}
	s := sides{e: e, want: want, got: got}
	for _, rule := range e.Rules {
		switch rule {
		case "attempts":
			r.Findings = append(r.Findings, s.attempts())
		case "outcome":
			r.Findings = append(r.Findings, s.histograms("outcome", outcomeKey))
		case "servers":
			r.Findings = append(r.Findings, s.histograms("servers", serverPattern))
		case "gaps":
			r.Findings = append(r.Findings, s.gaps()...)
		case "handshakes":
			r.Findings = append(r.Findings, s.handshakes())
		default:
			r.Findings = append(r.Findings, Finding{Rule: rule, Verdict: Differs,
				How: "no such rule (" + strings.Join(experiment.Rules, ", ") + ")"})
		}
	}
	return r
}

// comparable returns why the records cannot be compared as records of e, or "".
func comparable(e *experiment.Experiment, want, got *record.Record) string {
	if e == nil {
		return "no experiment"
	}
	for _, rec := range []*record.Record{want, got} {
		if rec == nil {
			return "a record is missing"
		}
		if rec.Experiment != e.Name {
			return fmt.Sprintf("%s is a record of experiment %q, not %q", rec.Release, rec.Experiment, e.Name)
		}
		if len(rec.Ops) != e.Count {
			return fmt.Sprintf("%s has %d operations, the experiment %d", rec.Release, len(rec.Ops), e.Count)
		}
		for i, op := range rec.Ops {
			if op.Index != i {
				return fmt.Sprintf("%s: operation %d has index %d: operations must be in index order", rec.Release, i, op.Index)
			}
		}
	}
	return ""
}

// sides are the two records being compared.
type sides struct {
	e         *experiment.Experiment
	want, got *record.Record
}

// attempts is the attempts rule.
func (s sides) attempts() Finding {
	count := func(op record.Op) string { return strconv.Itoa(len(op.Attempts)) }
	f := s.histograms("attempts", count)
	if f.Verdict != Agrees || !perOp(s.e) {
		return f
	}
	for i := range s.want.Ops {
		if a, b := len(s.want.Ops[i].Attempts), len(s.got.Ops[i].Attempts); a != b {
			f.Verdict = Differs
			f.How += fmt.Sprintf("; op %d: %d and %d attempts (the script fixes every operation's count)", i, a, b)
			return f
		}
	}
	f.How += "; equal op by op"
	return f
}

// perOp reports whether e's script fixes every operation's attempt count, so that two records
// must agree operation by operation, not only as histograms: no answer has a probability (a
// random draw); no timeoutMS (a deadline races random backoffs); with more than one operation
// at a time, no closed connection (it clears the pool under every operation in flight) and no
// handshake script (its answers go to whichever operation opens a connection); and no entry for
// one node that selection could miss (a sharded cluster picks a mongos at random; only a
// two-member replica set read from its primary sends every first attempt to n0 and every other
// to n1).
func perOp(e *experiment.Experiment) bool {
	if _, ok := e.URI["timeoutMS"]; ok {
		return false
	}
	serial := e.Concurrency == 1
	if !serial && len(e.Handshake) > 0 {
		return false
	}
	for _, a := range e.Handshake {
		if a.P > 0 {
			return false
		}
	}
	fixedNodes := e.Topology.Nodes == 1 || e.Topology.Kind == "replicaset" && e.Topology.Nodes == 2 &&
		(e.ReadPreference == "" || e.ReadPreference == "primary" || e.ReadPreference == "primaryPreferred")
	for _, en := range e.Script {
		if en.Node != "" && !fixedNodes {
			return false
		}
		for _, a := range en.Answers {
			if a.P > 0 || a.Close && !serial {
				return false
			}
		}
	}
	return true
}

// histograms compares the histograms of key over the two sides' operations.
func (s sides) histograms(rule string, key func(record.Op) string) Finding {
	a, b := histogram(s.want, key), histogram(s.got, key)
	v := Agrees
	if !equalCounts(a, b) {
		v = Differs
	}
	return Finding{Rule: rule, Verdict: v, How: s.want.Release + " " + format(a) + ", " + s.got.Release + " " + format(b)}
}

func histogram(rec *record.Record, key func(record.Op) string) map[string]int {
	h := map[string]int{}
	for _, op := range rec.Ops {
		h[key(op)]++
	}
	return h
}

func equalCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, n := range a {
		if b[k] != n {
			return false
		}
	}
	return true
}

// format writes a histogram as {key: count, ...}, keys in order (numbers by value).
func format(h map[string]int) string {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(x, y string) int {
		nx, ex := strconv.Atoi(x)
		ny, ey := strconv.Atoi(y)
		if ex == nil && ey == nil {
			return nx - ny
		}
		return strings.Compare(x, y)
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s: %d", k, h[k])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// outcomeKey is an outcome's class and, for an error with one, its code: "ok", "overload 462".
func outcomeKey(op record.Op) string {
	if op.Outcome.Code != 0 {
		return op.Outcome.Class + " " + strconv.Itoa(op.Outcome.Code)
	}
	return op.Outcome.Class
}

// serverPattern says of each retry whether it went to the attempt before's server ("S") or
// another ("D"); "-" for an operation without retries.
func serverPattern(op record.Op) string {
	var b strings.Builder
	for i := 1; i < len(op.Attempts); i++ {
		if op.Attempts[i].Server == op.Attempts[i-1].Server {
			b.WriteByte('S')
		} else {
			b.WriteByte('D')
		}
	}
	if b.Len() == 0 {
		return "-"
	}
	return b.String()
}

// gaps is the gaps rule: one finding per retry either side made.
func (s sides) gaps() []Finding {
	a, b := gapsByRetry(s.want), gapsByRetry(s.got)
	n := max(len(a), len(b))
	if n == 0 {
		return []Finding{{Rule: "gaps", Verdict: TooFew, How: "no retries on either side"}}
	}
	out := make([]Finding, n)
	for k := range n {
		var x, y []float64
		if k < len(a) {
			x = a[k]
		}
		if k < len(b) {
			y = b[k]
		}
		out[k] = s.gapFinding(k+1, x, y)
	}
	return out
}

// gapsByRetry returns the gaps before retry k+1 of every operation that made it, sorted.
func gapsByRetry(rec *record.Record) [][]float64 {
	var out [][]float64
	for _, op := range rec.Ops {
		for k, g := range op.Gaps() {
			if k == len(out) {
				out = append(out, nil)
			}
			out[k] = append(out[k], g)
		}
	}
	for _, g := range out {
		slices.Sort(g)
	}
	return out
}

// gapFinding compares the sorted gaps x (want) and y (got) before retry k.
func (s sides) gapFinding(k int, x, y []float64) Finding {
	how := fmt.Sprintf("retry %d: %s %s, %s %s", k, s.want.Release, summary(x), s.got.Release, summary(y))
	if len(x) < MinGaps || len(y) < MinGaps {
		return Finding{Rule: "gaps", Verdict: TooFew, How: fmt.Sprintf("%s; a verdict needs %d gaps a side", how, MinGaps)}
	}
	if p90(x) <= ImmediateMS && p90(y) <= ImmediateMS {
		return Finding{Rule: "gaps", Verdict: Agrees, How: fmt.Sprintf("%s; both retry at once (nine gaps in ten ≤ %d ms)", how, ImmediateMS)}
	}
	d := stat.KolmogorovSmirnov(x, nil, y, nil)
	p := ksPValue(d, len(x), len(y))
	v := Agrees
	if p < Alpha {
		v = Differs
	}
	return Finding{Rule: "gaps", Verdict: v, How: fmt.Sprintf("%s; KS D=%.3f p=%.3g (α=%g)", how, d, p, Alpha)}
}

// p90 is the sorted sample's 90th percentile (the lower of the two values around it).
func p90(sorted []float64) float64 { return sorted[(len(sorted)-1)*9/10] }

// summary describes a sorted sample of gaps: its size, mean, min and max in milliseconds.
func summary(x []float64) string {
	if len(x) == 0 {
		return "n=0"
	}
	return fmt.Sprintf("n=%d mean %.1f [%.1f, %.1f] ms", len(x), stat.Mean(x, nil), x[0], x[len(x)-1])
}

// handshakes is the handshakes rule.
func (s sides) handshakes() Finding {
	a, b := len(s.want.Handshakes), len(s.got.Handshakes)
	v := Agrees
	if a != b {
		v = Differs
	}
	return Finding{Rule: "handshakes", Verdict: v, How: fmt.Sprintf("%s %d, %s %d", s.want.Release, a, s.got.Release, b)}
}

// ksPValue returns the asymptotic p-value of the two-sample Kolmogorov–Smirnov statistic d of
// samples of n and m: P(K > d·√(nm/(n+m))), K Kolmogorov's distribution, with the effective
// sample size nm/(n+m).
func ksPValue(d float64, n, m int) float64 {
	ne := float64(n) * float64(m) / float64(n+m)
	return kolmogorovSurvival(d * math.Sqrt(ne))
}

// kolmogorovSurvival returns P(K > t) for Kolmogorov's distribution, from whichever of its two
// series converges fast at t (both to double precision within 20 terms on their sides of 1.18):
//
//	P(K ≤ t) = √(2π)/t · Σ_{j≥1} exp(−(2j−1)²π²/(8t²))   (small t)
//	P(K > t) = 2 Σ_{j≥1} (−1)^(j−1) exp(−2j²t²)          (large t)
func kolmogorovSurvival(t float64) float64 {
	switch {
	case t <= 0:
		return 1
	case t < 1.18:
		var sum float64
		for j := 1; j <= 20; j++ {
			odd := float64(2*j - 1)
			sum += math.Exp(-odd * odd * math.Pi * math.Pi / (8 * t * t))
		}
		return max(0, min(1, 1-math.Sqrt(2*math.Pi)/t*sum))
	}
	var sum float64
	sign := 1.0
	for j := 1; j <= 20; j++ {
		fj := float64(j)
		sum += sign * math.Exp(-2*fj*fj*t*t)
		sign = -sign
	}
	return max(0, min(1, 2*sum))
}
