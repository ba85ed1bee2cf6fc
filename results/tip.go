package results

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
)

// TipFile is the file name of a tipping-point search's result.
const TipFile = "tip.json"

// TipProbe is one value a tipping-point search probed: its replications' outcomes and the
// verdict of the test at that value.
type TipProbe struct {
	Value        string  `json:"value"` // as the scenario field takes it
	X            float64 `json:"x"`     // the value in Tip.Unit
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
}

// Tip is the result of a tipping-point search: where, along one parameter, runs flip from
// recovering after the trigger to sticking, with its confidence interval and the evidence.
type Tip struct {
	Header  Header `json:"header"`
	Trigger string `json:"trigger"`
	Param   string `json:"param"` // the scenario field searched
	Unit    string `json:"unit"`  // of the numbers below: "s", "/s", or "" for a plain number
	Sticks  string `json:"sticks"`
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
	FitX50   float64    `json:"fitX50"`
	FitLo    float64    `json:"fitLo"`
	FitHi    float64    `json:"fitHi"`
	Probes   []TipProbe `json:"probes"`
	Warnings []string   `json:"warnings,omitempty"`
	// Partial is true when the search was interrupted: the bracket is the narrowest reached.
	Partial bool `json:"partial,omitempty"`
}

// Describe says where the boundary lies in one line.
func (t *Tip) Describe() string {
	v := func(x float64) string { return t.Param + " = " + FormatValue(x, t.Unit) }
	text := fmt.Sprintf("after %s, runs stick %s %s (%g %% interval %s to %s; %d runs over %d probes)",
		t.Trigger, t.Sticks, v(t.Boundary), 100*t.Confidence, FormatValue(t.Lo, t.Unit), FormatValue(t.Hi, t.Unit),
		t.Replications, len(t.Probes))
	if !t.Converged && !t.Partial {
		text += "; the search stopped at a probe where P(stuck) is 1/2 within the noise"
	}
	if t.Partial {
		text += "; interrupted: the bracket is the narrowest reached"
	}
	if !math.IsNaN(t.FitX50) {
		text += fmt.Sprintf("; a logistic fit puts it at %s", FormatValue(t.FitX50, t.Unit))
	}
	return text
}

// WriteTipDir writes tip.json into dir (created if needed), replacing the result it held (see
// WriteRunDir).
func WriteTipDir(dir string, t Tip) error {
	m := newManifest(KindTip, t.Header)
	if t.Partial {
		m.Partial = "interrupted: the bracket is the narrowest reached"
	}
	return writeResult(dir, m, []outputFile{
		{TipFile, func(w io.Writer) error { return writeJSON(w, t) }}})
}

// ReadTip reads tip.json from a tipping-point search's folder.
func ReadTip(dir string) (Tip, error) {
	var t Tip
	return t, readJSON(filepath.Join(dir, TipFile), &t)
}
