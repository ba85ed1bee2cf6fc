package scenarios

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/overloadsim/overloadsim/results"
)

// Expect is one claim about the scenario's runs, as data: run and sweep check it and say PASS
// or FAIL with the value measured (results.Expectation, which says what each field means).
//
//	expect:
//	  - {metric: group.adaptive.amplification, from: 10s, to: 30s, below: 1.5}
//	  - {metric: fault.cpu-cut.recovery_time, atMost: 10, at: {faults[0].for: 6s}}
//	  - {metric: fault.surge.stuck, over: mean, between: [0.25, 0.75]}
//	  - {metric: total.goodput, within: 0.02, ofMetric: total.offered}
type Expect struct {
	Metric   string            `yaml:"metric"`
	From     time.Duration     `yaml:"from,omitzero"`
	To       time.Duration     `yaml:"to,omitzero"`
	At       map[string]string `yaml:"at,omitzero"`
	Over     string            `yaml:"over,omitzero"`
	Below    *float64          `yaml:"below"`
	Above    *float64          `yaml:"above"`
	AtMost   *float64          `yaml:"atMost"`
	AtLeast  *float64          `yaml:"atLeast"`
	Between  []float64         `yaml:"between,omitzero"`
	Within   *float64          `yaml:"within"`
	Of       *float64          `yaml:"of"`
	OfMetric string            `yaml:"ofMetric,omitzero"`
}

// Expectations returns the scenario's expect: block as results records.
func (s *Scenario) Expectations() []results.Expectation {
	var out []results.Expectation
	for _, e := range s.Expect {
		r := results.Expectation{Metric: e.Metric, From: e.From, To: e.To, Over: e.Over,
			Below: e.Below, Above: e.Above, AtMost: e.AtMost, AtLeast: e.AtLeast, Between: e.Between,
			Within: e.Within, Of: e.Of, OfMetric: e.OfMetric}
		for _, path := range sortedKeys(e.At) {
			r.At = append(r.At, results.Param{Path: path, Value: e.At[path]})
		}
		out = append(out, r)
	}
	return out
}

// CheckMetric returns why name is not a metric the scenario's runs have, "" when it is: its
// scope, the group, node or trigger it names, and the metric in the scope (results.Catalogue).
// An expect: block's metrics, and tune's, are checked with it.
func (s *Scenario) CheckMetric(name string) string {
	kind, rest, _ := strings.Cut(name, ".")
	var owners []string
	switch kind {
	case "total":
		return checkSuffix("group", rest)
	case "group":
		for _, g := range s.Clients {
			owners = append(owners, g.Name)
		}
	case "server":
		for _, n := range s.Topology.Nodes {
			owners = append(owners, n.Name)
		}
	case "fault":
		seen := map[string]int{}
		for _, w := range s.FaultWindows() {
			n := w.Name
			if seen[n]++; seen[n] > 1 {
				n += "#" + strconv.Itoa(seen[n])
			}
			owners = append(owners, n)
		}
	default:
		return "must start total., group.NAME., server.NAME. or fault.NAME. (docs/metrics.md)"
	}
	i := strings.LastIndex(rest, ".")
	if i < 0 {
		return "must be " + kind + ".NAME.METRIC"
	}
	owner := rest[:i]
	if !slices.Contains(owners, owner) {
		if len(owners) == 0 {
			return fmt.Sprintf("the scenario has no %s to measure", map[string]string{"group": "client group", "server": "node", "fault": "trigger"}[kind])
		}
		return fmt.Sprintf("%s %q is not one of the scenario's: %s", kind, owner, strings.Join(owners, ", "))
	}
	return checkSuffix(kind, rest[i+1:])
}

// checkSuffix returns why metric is not one of the summary metrics of kind's scope in the
// catalogue (results.LookupMetric), "" when it is.
func checkSuffix(kind, metric string) string {
	if m, ok := results.LookupMetric(metric); ok && m.InSummary() && m.Scope == results.Scope(kind) && !strings.Contains(metric, ".") {
		return ""
	}
	return fmt.Sprintf("%q is not a %s metric: one of %s", metric, kind, strings.Join(results.SummaryNames(results.Scope(kind)), ", "))
}

// expect checks the expect: block.
func (v *validator) expect() {
	s := v.sc
	for i, e := range s.Expect {
		p := fmt.Sprintf("expect[%d]", i)
		if e.Metric == "" {
			v.bad(p+".metric", "", "is required: a metric of the run (docs/metrics.md), such as total.goodput")
		} else if why := s.CheckMetric(e.Metric); why != "" {
			v.bad(p+".metric", e.Metric, why)
		}
		bounds := 0
		for _, b := range []bool{e.Below != nil, e.Above != nil, e.AtMost != nil, e.AtLeast != nil, e.Between != nil, e.Within != nil} {
			if b {
				bounds++
			}
		}
		if bounds != 1 {
			v.bad(p, e.Metric, fmt.Sprintf("has %d bounds: give exactly one of below, above, atMost, atLeast, between, within", bounds))
		}
		if e.Between != nil && (len(e.Between) != 2 || e.Between[0] > e.Between[1]) {
			v.bad(p+".between", fmt.Sprint(e.Between), "must be [low, high] with low ≤ high")
		}
		switch {
		case e.Within != nil && (*e.Within <= 0 || *e.Within >= 1):
			v.bad(p+".within", strconv.FormatFloat(*e.Within, 'g', -1, 64), "must be in (0, 1): a relative tolerance (0.02 is 2 %)")
		case e.Within != nil && (e.Of == nil) == (e.OfMetric == ""):
			v.bad(p+".within", strconv.FormatFloat(*e.Within, 'g', -1, 64), "needs exactly one of of (a number) and ofMetric (a metric)")
		case e.Of != nil && e.OfMetric != "":
			v.bad(p+".of", e.OfMetric, "give one reference: of (a number) or ofMetric (a metric)")
		}
		if e.OfMetric != "" {
			if why := s.CheckMetric(e.OfMetric); why != "" {
				v.bad(p+".ofMetric", e.OfMetric, why)
			}
		}
		switch {
		case e.To == 0 && e.From != 0:
			v.bad(p+".from", e.From.String(), "needs to: the window is [from, to)")
		case e.To != 0 && (e.From < 0 || e.To <= e.From):
			// A window past the duration is not refused: a run shortened by an override skips
			// the claim (results.Measured.Skip) rather than being refused for it.
			v.bad(p+".to", e.To.String(), fmt.Sprintf("the window [%s, %s) must have 0s ≤ from < to", e.From, e.To))
		case e.To != 0 && strings.HasPrefix(e.Metric, "fault."):
			v.bad(p+".to", e.To.String(), "a trigger's outcome has no window: it is judged after the trigger")
		}
		if e.Over != "" && e.Over != "each" && e.Over != "mean" {
			v.bad(p+".over", e.Over, "must be each (every replication passes) or mean (the mean over replications passes)")
		}
		// at is not checked against the sweep: a sweep's points, and --vary, drop or replace
		// it; an expectation that applies at no point of a sweep is reported as such.
	}
}
