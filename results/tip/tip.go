package tip

import (
	"fmt"
	"io"
	"math"
	"path/filepath"

	"github.com/overloadsim/overloadsim/results"
)

// Probe is one value a tipping-point search probed: its replications' outcomes and the
// verdict of the test at that value.
type Probe struct {
	Value        string  `json:"value"` // as the scenario field takes it
	X            float64 `json:"x"`     // the value in Result.Unit
	Replications int     `json:"replications"`
	Stuck        int     `json:"stuck"`
	Recovered    int     `json:"recovered"`
	Undecided    int     `json:"undecided"`
	// Verdict is "stuck" or "recovered" (the side of 1/2 the test put P(stuck) on), "tie"
	// (undecided after the most replications allowed) or "open" (interrupted).
	Verdict string `json:"verdict"`
	// PLo and PHi bound P(stuck) at the test's per-look level.
	PLo float64 `json:"pLo"`
	PHi float64 `json:"pHi"`
	// Lo95 and Hi95 are the exact (Clopper–Pearson) 95 % interval for P(stuck) from the value's
	// decided runs (analysis/tipping.Interval): what the lead sentence and the figure quote.
	Lo95 float64 `json:"lo95"`
	Hi95 float64 `json:"hi95"`
}

// Decided is the number of the probe's runs that recovered or stuck.
func (p *Probe) Decided() int { return p.Stuck + p.Recovered }

// allRecovered is the rule of the conservative bound: every run at the value recovered (none
// stuck, none undecided, at least one run).
func (p *Probe) allRecovered() bool { return p.Stuck == 0 && p.Undecided == 0 && p.Recovered > 0 }

// Result is the result of a tipping-point search: where, along one parameter, runs flip from
// recovering after the trigger to sticking, with its confidence interval and the evidence.
type Result struct {
	Header  results.Header `json:"header"`
	Trigger string         `json:"trigger"`
	Param   string         `json:"param"` // the scenario field searched
	// Name is the parameter's name in words ("cut length", "web rate"), "" when it has none:
	// the sentences then name it by Param.
	Name string `json:"name,omitempty"`
	// LeadText is the sentence the result leads with (Result.Lead), set by Write for readers
	// of tip.json that do not build it.
	LeadText string `json:"lead,omitempty"`
	Unit     string `json:"unit"` // of the numbers below: "s", "/s", or "" for a plain number
	Sticks   string `json:"sticks"`
	// Boundary is the estimate of the value where P(stuck) = 1/2; [Lo, Hi] holds it with
	// probability at least Confidence.
	Boundary   float64 `json:"boundary"`
	Lo         float64 `json:"lo"`
	Hi         float64 `json:"hi"`
	Confidence float64 `json:"confidence"`
	// Converged is false when the search stopped at a probe it could not decide (a tie).
	Converged    bool `json:"converged"`
	Replications int  `json:"replications"`
	// FitX50, FitLo and FitHi are a logistic regression's crossing over every probe and its
	// approximate 95 % interval; NaN when the outcomes separate perfectly.
	FitX50   float64  `json:"fitX50"`
	FitLo    float64  `json:"fitLo"`
	FitHi    float64  `json:"fitHi"`
	Probes   []Probe  `json:"probes"`
	Warnings []string `json:"warnings,omitempty"`
	// Partial is true when the search was interrupted: the bracket is the narrowest reached.
	Partial bool `json:"partial,omitempty"`
	// NoFlip, when set, is the answer of a search whose range holds no flip: both ends came out
	// on one side of 1/2. Boundary, Lo, Hi and the fit are then NaN.
	NoFlip *NoFlip `json:"noFlip,omitempty"`
}

// NoFlip is what a search whose range holds no flip can say: on which side the whole range lies,
// and P(stuck) at the end nearest the other side, where the boundary would be entered first.
type NoFlip struct {
	Side  string  `json:"side"` // "recovered" (never stuck in the range) or "stuck" (stuck throughout)
	Value string  `json:"value"`
	X     float64 `json:"x"` // the end nearest the other side, in Result.Unit
	// Stuck of Runs decided runs at X were stuck; [PLo, PHi] is the exact interval for P(stuck)
	// there at Level (analysis/tipping.Interval).
	Stuck int     `json:"stuck"`
	Runs  int     `json:"runs"`
	PLo   float64 `json:"pLo"`
	PHi   float64 `json:"pHi"`
	Level float64 `json:"level"`
}

// Describe says where the boundary lies in one line.
func (t *Result) Describe() string {
	if f := t.NoFlip; f != nil {
		name := t.Param // the parameter in words when it has a name ("cut length"), else its path
		if t.Name != "" {
			name = t.Name
		}
		at := name + " = " + f.Value
		beyond := map[string]string{"above": "above", "below": "below"}[t.Sticks]
		if f.Side == "stuck" {
			beyond = map[string]string{"above": "below", "below": "above"}[t.Sticks]
			return fmt.Sprintf("after %s, stuck throughout the range: even at %s, %d of %d runs stuck, P(stuck) ≥ %s (%g %% interval); no flip in the range, the boundary, if any, lies %s it",
				t.Trigger, at, f.Stuck, f.Runs, percent(f.PLo, false), 100*f.Level, beyond)
		}
		toward := map[string]string{"above": "up to", "below": "down to"}[t.Sticks]
		return fmt.Sprintf("after %s, never stuck in the range: %s %s, %d of %d runs stuck, P(stuck) ≤ %s (%g %% interval); no flip in the range, the boundary, if any, lies %s it",
			t.Trigger, toward, at, f.Stuck, f.Runs, percent(f.PHi, true), 100*f.Level, beyond)
	}
	v := func(x float64) string { return t.Param + " = " + results.FormatValue(x, t.Unit) }
	text := fmt.Sprintf("after %s, runs stick %s %s (%g %% interval %s to %s; %d runs over %d probes)",
		t.Trigger, t.Sticks, v(t.Boundary), 100*t.Confidence, results.FormatValue(t.Lo, t.Unit), results.FormatValue(t.Hi, t.Unit),
		t.Replications, len(t.Probes))
	if !t.Converged && !t.Partial {
		text += "; the search stopped at a probe where P(stuck) is 1/2 within the noise"
	}
	if t.Partial {
		text += "; interrupted: the bracket is the narrowest reached"
	}
	if !math.IsNaN(t.FitX50) {
		text += fmt.Sprintf("; a logistic fit puts it at %s", results.FormatValue(t.FitX50, t.Unit))
	}
	return text
}

// percent prints a bound on a probability as a whole percentage, rounded away from the
// interval's inside (an upper bound up, a lower bound down), so that the words never claim more
// than the interval does.
func percent(p float64, upper bool) string {
	if upper {
		return fmt.Sprintf("%.0f %%", math.Ceil(100*p))
	}
	return fmt.Sprintf("%.0f %%", math.Floor(100*p))
}

// Write writes tip.json into dir (created if needed), replacing the result it held (see
// WriteRunDir).
func Write(dir string, t Result) error {
	t.LeadText = t.Lead()
	partial := ""
	if t.Partial {
		partial = "interrupted: the bracket is the narrowest reached"
	}
	return results.WriteResult(dir, results.KindTip, t.Header, partial, []results.OutputFile{
		{Name: results.TipFile, Write: func(w io.Writer) error { return results.WriteJSON(w, t) }}})
}

// Read reads tip.json from a tipping-point search's folder.
func Read(dir string) (Result, error) {
	var t Result
	return t, results.ReadJSON(filepath.Join(dir, results.TipFile), &t)
}
