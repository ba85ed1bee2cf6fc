package report

import (
	_ "embed"
	"fmt"
	"math"
	"strconv"

	"github.com/overloadsim/overloadsim/results/sweep"
)

// decisionTemplate is the policy decision's block, shared by a sweep's page and a comparison's.
//
//go:embed decision.html.tmpl
var decisionTemplate string

// decisionView is a policy decision (sweep.Decision) as a sweep's or a comparison's page shows
// it, near the top: what varies, the sentences that decide and the table over the decided scope.
type decisionView struct {
	What      string // "retryPolicy of client group plain (its operations)"
	Loads     string
	Sentences []string
	Rows      []decisionRowView
}

type decisionRowView struct {
	Level, Policy, Failed, Goodput, Amplification, P99OK, P99All, Recovery string
}

// newDecision returns the view of d, nil for none.
func newDecision(d *sweep.Decision) *decisionView {
	if d == nil {
		return nil
	}
	v := &decisionView{What: d.Parameter + ", over all groups' operations", Loads: d.Loads, Sentences: d.Sentences}
	if d.Group != "" {
		v.What = fmt.Sprintf("%s, over the operations of client group %s (whose policy varies)", d.Parameter, d.Group)
	}
	for _, r := range d.Rows {
		if r.Scope != d.Decides {
			continue
		}
		rec := "—"
		for i, o := range r.Recovery {
			if i == 0 {
				rec = ""
			} else {
				rec += "; "
			}
			rec += fmt.Sprintf("%s: %d/%d recovered", o.Trigger, o.Recovered, o.N)
			if o.Recovered > 0 && !math.IsNaN(o.RecoveryMean) {
				rec += fmt.Sprintf(" in %.1f s", o.RecoveryMean)
			}
			if o.Stuck > 0 {
				rec += fmt.Sprintf(", %d stuck", o.Stuck)
			}
		}
		lat := func(e sweep.Estimate) string {
			if e.Mean >= 1 {
				return cell(e, 1, " s")
			}
			return cell(e, 1000, " ms")
		}
		v.Rows = append(v.Rows, decisionRowView{Level: r.Level, Policy: r.Policy, Failed: cell(r.FailureShare, 100, " %"),
			Goodput: cell(r.Goodput, 1, "/s"), Amplification: cell(r.Amplification, 1, "×"), P99OK: lat(r.P99OK), P99All: lat(r.P99All), Recovery: rec})
	}
	return v
}

// cell formats an estimate scaled, to three significant figures with its half-width to the same
// decimal place: "3.12 ± 0.41 %"; "—" for no value.
func cell(e sweep.Estimate, scale float64, unit string) string {
	if math.IsNaN(e.Mean) {
		return "—"
	}
	m, dec := e.Mean*scale, 0
	if m != 0 {
		dec = max(0, 2-int(math.Floor(math.Log10(math.Abs(m)))))
	}
	s := strconv.FormatFloat(m, 'f', dec, 64)
	if !math.IsNaN(e.CI95) && e.CI95 != 0 {
		s += " ± " + strconv.FormatFloat(e.CI95*scale, 'f', dec, 64)
	}
	return s + unit
}
