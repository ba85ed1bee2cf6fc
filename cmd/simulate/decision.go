package main

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/sweep"
)

// withGroups returns ctx with the scenario's client groups' names (from the header's canonical
// scenario), which a policy decision needs to read the varied group's metrics; nil stays nil.
func withGroups(ctx *sweep.LoadContext, hdr results.Header) *sweep.LoadContext {
	if ctx == nil {
		return nil
	}
	c := *ctx
	if names := groupNames(hdr); names != nil {
		c.Groups = names
	}
	return &c
}

// printDecision prints a sweep's policy decision (sweep.Decide), when it varies a policy or a
// limiter: the table per policy and load, then the sentences that decide.
func printDecision(w io.Writer, points []sweep.PointStats, ctx *sweep.LoadContext) {
	if ctx == nil {
		return
	}
	if d := sweep.Decide(points, *ctx, ctx.Groups); d != nil {
		writeDecision(w, d)
	}
}

// writeDecision writes the decision d: its table (each value the mean ± its 95 % half-width)
// and its sentences.
func writeDecision(w io.Writer, d *sweep.Decision) {
	fmt.Fprintf(w, "\nPolicy decision: %s varies", d.Parameter)
	if d.Group != "" {
		fmt.Fprintf(w, " (client group %s; the decision reads %s's operations, the total rows are all groups')", d.Group, d.Group)
	} else {
		fmt.Fprint(w, " (the decision reads all groups' operations)")
	}
	fmt.Fprintf(w, "; loads: %s.\n", d.Loads)
	width, lw := len("policy"), len("1.5× today")
	for _, p := range d.Policies {
		width = max(width, len(p))
	}
	for _, r := range d.Rows {
		lw = max(lw, len(r.Level))
	}
	fmt.Fprintf(w, "%-*s %-*s %-8s %8s %16s %16s %14s %16s %16s  %s\n", lw, "load", width, "policy", "scope", "offered",
		"failed", "goodput", "ampl", "p99 successes", "p99 all", "after the trigger")
	for _, r := range d.Rows {
		fmt.Fprintf(w, "%-*s %-*s %-8s %8.0f %16s %16s %14s %16s %16s  %s\n", lw, r.Level, width, r.Policy, r.Scope, r.Offered,
			estimate(r.FailureShare, 100, " %"), estimate(r.Goodput, 1, "/s"), estimate(r.Amplification, 1, "×"),
			latencyEstimate(r.P99OK), latencyEstimate(r.P99All), recoveryCell(r.Recovery))
	}
	for _, s := range d.Sentences {
		fmt.Fprintln(w, s)
	}
}

// estimate formats a decision's value scaled, with its unit: "3.1 ± 0.4 %"; "-" for no value.
func estimate(e sweep.Estimate, scale float64, unit string) string {
	switch {
	case math.IsNaN(e.Mean):
		return "-"
	}
	// Three significant figures of the mean, and its half-width to the same decimal place.
	m := e.Mean * scale
	dec := 0
	if m != 0 {
		dec = max(0, 2-int(math.Floor(math.Log10(math.Abs(m)))))
	}
	if math.IsNaN(e.CI95) || e.CI95 == 0 {
		return strconv.FormatFloat(m, 'f', dec, 64) + unit
	}
	return strconv.FormatFloat(m, 'f', dec, 64) + " ± " + strconv.FormatFloat(e.CI95*scale, 'f', dec, 64) + unit
}

// latencyEstimate formats a latency's estimate in ms below a second, else in s: "553 ± 6 ms",
// "2.6 ± 0.024 s".
func latencyEstimate(e sweep.Estimate) string {
	if e.Mean >= 1 {
		return estimate(e, 1, " s")
	}
	return estimate(e, 1000, " ms")
}

// recoveryCell says the outcomes after each trigger shortly: "spike: 3/3 recovered in 2.0 s, 0
// stuck"; "-" without a trigger.
func recoveryCell(outs []sweep.TriggerOutcomes) string {
	if len(outs) == 0 {
		return "-"
	}
	var parts []string
	for _, o := range outs {
		s := fmt.Sprintf("%s: %d/%d recovered", o.Trigger, o.Recovered, o.N)
		if o.Recovered > 0 && !math.IsNaN(o.RecoveryMean) {
			s += fmt.Sprintf(" in %.1f s", o.RecoveryMean)
		}
		parts = append(parts, s+fmt.Sprintf(", %d stuck", o.Stuck))
	}
	return strings.Join(parts, "; ")
}
