// Package tune is what a tuning's result is: its record (tune.json), its files (candidates.csv)
// and what it says in words. The search is package analysis/tuning's, and how a tuning is run,
// package experiment/tune's; the spec it records (the parameters, measures, objective and
// constraints) is package results'.
package tune

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/overloadsim/overloadsim/results"
)

// Schema names the layout of tune.json (docs/schemas/tune.schema.json); it changes when a field
// changes meaning or goes away.
const Schema = "overloadsim/tune/1"

// Candidate is one setting a tuning ran: its parameters' values and what its replications
// measured.
type Candidate struct {
	// Params are the tuned fields' values as the scenario takes them, in the tuning's order.
	Params []results.Param `json:"params"`
	// Values are the same values as numbers, in each parameter's Unit.
	Values []float64 `json:"values"`
	// Round is the round the candidate came from: 0 for the coarse grid, k for the k-th
	// refinement.
	Round        int `json:"round"`
	Replications int `json:"replications"`
	// Metrics are the mean and 95 % confidence half-width of every measure (Tuning.Measures, in
	// its order, named by results.TuneMeasure.Name) over the replications where it has a value.
	Metrics  []results.MetricStats `json:"metrics"`
	Feasible bool                  `json:"feasible"`
	// Failed names the constraints the candidate's means break (results.TuneConstraint.String),
	// and the objective when it has no value.
	Failed []string `json:"failed"`
}

// Metric returns the candidate's statistics of the measure named name
// (results.TuneMeasure.Name).
func (c *Candidate) Metric(name string) results.MetricStats {
	for _, m := range c.Metrics {
		if m.Name == name {
			return m
		}
	}
	return results.MetricStats{Name: name, Mean: math.NaN(), CI95: math.NaN()}
}

// Label names the candidate by its parameters: "clients[0].driver.maxAdaptiveRetries=1".
func (c *Candidate) Label() string { return results.ParamsText(c.Params) }

// Pick is a candidate the tuning points to: the recommendation or a runner-up.
type Pick struct {
	Candidate int                   `json:"candidate"` // its index in Tuning.Candidates
	Params    []results.Param       `json:"params"`
	Objective results.MetricStats   `json:"objective"`
	Metrics   []results.MetricStats `json:"metrics"`
}

// Exclusion is what one constraint did to the candidates.
type Exclusion struct {
	Constraint string `json:"constraint"` // results.TuneConstraint.String
	// Excluded counts the candidates whose mean breaks the constraint (others may break it too).
	Excluded int `json:"excluded"`
	// Best is the value closest to meeting the constraint, or deepest inside it, over every
	// candidate: the least mean for an upper bound, the greatest for a lower one; NaN when no
	// candidate has a value. BestAt is that candidate's parameters.
	Best   float64         `json:"best"`
	BestAt []results.Param `json:"bestAt"`
}

// Tuning is a tuning's whole result: what was tuned, against what, every candidate it ran and
// what it recommends (tune.json).
type Tuning struct {
	Schema string         `json:"schema"` // Schema
	Header results.Header `json:"header"`
	// Digest is the SHA-256 of the scenario's canonical form (results.ScenarioDigest), as
	// tuned: the candidates change only the tuned fields.
	Digest       string `json:"digest"`
	Seed         uint64 `json:"seed"`
	Replications int    `json:"replications"`
	// Refine is how many refinement rounds were asked for; Rounds how many ran, the coarse grid
	// included.
	Refine      int                      `json:"refine"`
	Rounds      int                      `json:"rounds"`
	Params      []results.TuneParam      `json:"params"`
	Objective   results.TuneObjective    `json:"objective"`
	Constraints []results.TuneConstraint `json:"constraints"`
	// Measures are the metrics every candidate's Metrics hold, in order: the objective, the
	// constraints', then those of the Pareto figure (ParetoX, ParetoY) when not among them.
	Measures []results.TuneMeasure `json:"measures"`
	// ParetoX and ParetoY name the measures of the Pareto figure: x the objective (or, when the
	// objective is an amplification, the first other metric), y an amplification.
	ParetoX    string      `json:"paretoX"`
	ParetoY    string      `json:"paretoY"`
	Candidates []Candidate `json:"candidates"`
	// Recommendation is the feasible candidate with the best objective mean; nil when no
	// candidate is feasible.
	Recommendation *Pick `json:"recommendation"`
	// RunnersUp are the other feasible candidates whose objective confidence interval overlaps
	// the recommendation's, best objective first.
	RunnersUp  []Pick      `json:"runnersUp"`
	Exclusions []Exclusion `json:"exclusions"`
	// Pareto lists the feasible candidates on the Pareto front of ParetoX and ParetoY (none
	// better in both, one better in either), in increasing ParetoX.
	Pareto []int `json:"pareto"`
	// Notes say what a reader should know about the recommendation: a value at an end of its
	// range, beyond which a better one may lie.
	Notes []string `json:"notes"`
	// Partial says why the search is incomplete (it was interrupted); "" for a whole result.
	Partial string `json:"partial,omitempty"`
}

// New sets up a tuning of the scenario in hdr (its seed the base seed of every
// candidate's replications) before it runs: what it measures and what its Pareto figure shows.
func New(hdr results.Header, params []results.TuneParam, obj results.TuneObjective, cons []results.TuneConstraint, reps, refine int) *Tuning {
	t := &Tuning{Schema: Schema, Header: hdr, Digest: results.ScenarioDigest(hdr.Canonical), Seed: hdr.Seed,
		Replications: reps, Refine: refine, Params: slices.Clone(params), Objective: obj,
		Constraints: slices.Clone(cons)}
	add := func(m results.TuneMeasure) string {
		if !slices.ContainsFunc(t.Measures, func(x results.TuneMeasure) bool { return x.Name() == m.Name() }) {
			t.Measures = append(t.Measures, m)
		}
		return m.Name()
	}
	add(obj.Measure())
	for _, c := range cons {
		add(c.Measure())
	}
	om := obj.Measure()
	y := results.TuneMeasure{}
	for _, m := range t.Measures {
		if isAmplification(m.Metric) {
			y = m
			break
		}
	}
	if y.Metric == "" {
		y = results.TuneMeasure{Metric: metricPrefix(om.Metric) + "amplification", From: om.From, To: om.To}
	}
	x := om
	if isAmplification(om.Metric) {
		x = results.TuneMeasure{Metric: metricPrefix(om.Metric) + "goodput", From: om.From, To: om.To}
		for _, m := range t.Measures[1:] {
			if m.Name() != y.Name() {
				x = m
				break
			}
		}
	}
	t.ParetoY = add(y)
	t.ParetoX = add(x)
	return t
}

// isAmplification reports whether metric is a group's or the total's amplification.
func isAmplification(metric string) bool {
	return strings.HasSuffix(metric, ".amplification") && !strings.HasPrefix(metric, "server.")
}

// metricPrefix is the group of metric: "group.NAME." for a group's, else "total.".
func metricPrefix(metric string) string {
	if strings.HasPrefix(metric, "group.") {
		if i := strings.LastIndex(metric, "."); i > len("group.") {
			return metric[:i+1]
		}
	}
	return "total."
}

// AddCandidate keeps a candidate measured elsewhere: its statistics per measure (Metrics, named
// by results.TuneMeasure.Name), for tools and tests that have them without running (the Select
// of package experiment/tune decides the rest).
func (t *Tuning) AddCandidate(c Candidate) { t.Candidates = append(t.Candidates, c) }

// ParetoXMaximize reports whether a larger ParetoX is better: for the objective, its sense; for
// a constrained metric, the direction its first constraint pushes; otherwise for a rate of
// successes (goodput), yes.
func (t *Tuning) ParetoXMaximize() bool {
	if t.ParetoX == t.Objective.Measure().Name() {
		return t.Objective.Maximize()
	}
	for _, k := range t.Constraints {
		if k.Measure().Name() == t.ParetoX {
			return !k.Upper()
		}
	}
	for _, m := range t.Measures {
		if m.Name() == t.ParetoX {
			return strings.HasSuffix(m.Metric, ".goodput")
		}
	}
	return false
}

// Infeasible says why there is no recommendation, "" when there is one (or no candidate ran):
// each constraint that excluded every candidate, with the closest any candidate came ("no
// candidate met total.amplification ≤ 1.05: the least was 1.21 at
// clients[0].driver.maxAdaptiveRetries=0"); when none did alone, what each excluded.
func (t *Tuning) Infeasible() string {
	if t.Recommendation != nil || len(t.Candidates) == 0 {
		return ""
	}
	n := len(t.Candidates)
	var all []string
	for i, k := range t.Constraints {
		if ex := t.Exclusions[i]; ex.Excluded == n {
			all = append(all, fmt.Sprintf("no candidate met %s: %s", k, t.closest(k, ex)))
		}
	}
	if len(all) > 0 {
		return strings.Join(all, "; ")
	}
	obj := t.Objective.Measure()
	withObj := 0
	for i := range t.Candidates {
		if !math.IsNaN(t.Candidates[i].Metric(obj.Name()).Mean) {
			withObj++
		}
	}
	if withObj == 0 {
		return fmt.Sprintf("no candidate has a value of the objective %s", obj)
	}
	var parts []string
	for i, k := range t.Constraints {
		ex := t.Exclusions[i]
		parts = append(parts, fmt.Sprintf("%s excluded %d of %d (%s)", k, ex.Excluded, n, t.closest(k, ex)))
	}
	return fmt.Sprintf("no candidate met every constraint at once: %s", strings.Join(parts, "; "))
}

// closest says the closest the candidates came to meeting constraint k: "the least was 1.21 at
// PATH=VALUE".
func (t *Tuning) closest(k results.TuneConstraint, ex Exclusion) string {
	if math.IsNaN(ex.Best) {
		return "no candidate has a value"
	}
	word := "most"
	if k.Upper() {
		word = "least"
	}
	return fmt.Sprintf("the %s was %s at %s", word, results.FormatMetric(k.Metric, ex.Best), results.ParamsText(ex.BestAt))
}

// Describe says the recommendation in lines: the setting, then each measure's mean ± its
// confidence half-width (with the constraint it meets).
func (t *Tuning) Describe() []string {
	if t.Recommendation == nil {
		return nil
	}
	c := &t.Candidates[t.Recommendation.Candidate]
	lines := []string{"recommended: " + c.Label()}
	width := 0
	for _, m := range t.Measures {
		width = max(width, len([]rune(m.String())))
	}
	for i, m := range t.Measures {
		st := c.Metric(m.Name())
		line := fmt.Sprintf("  %s%s  %s", m.String(), strings.Repeat(" ", width-len([]rune(m.String()))), results.FormatMetricCI(m.Metric, st))
		switch {
		case i == 0:
			line += "  (objective: " + t.Objective.Sense + ")"
		default:
			var ks []string
			for _, k := range t.Constraints {
				if k.Measure().Name() == m.Name() {
					ks = append(ks, strings.TrimSpace(strings.TrimPrefix(k.String(), m.String())))
				}
			}
			if len(ks) > 0 {
				line += "  (constraint " + strings.Join(ks, ", ") + ")"
			}
		}
		lines = append(lines, line)
	}
	return lines
}

// PickText says a pick in one line: its parameters and its objective's mean ± half-width.
func (t *Tuning) PickText(p Pick) string {
	return fmt.Sprintf("%s: %s %s", results.ParamsText(p.Params), t.Objective.Metric, results.FormatMetricCI(t.Objective.Metric, p.Objective))
}

// WriteDir writes candidates.csv and tune.json into dir (created if needed), replacing the
// result it held (see WriteRunDir); a partial tuning is marked so in the manifest and in a first
// comment line of candidates.csv.
func WriteDir(dir string, t *Tuning) error {
	return results.WriteResult(dir, results.KindTune, t.Header, t.Partial, []results.OutputFile{
		{Name: results.TuneCandidatesFile, Write: func(w io.Writer) error {
			if t.Partial != "" {
				if _, err := fmt.Fprintf(w, "# partial: %s\n", t.Partial); err != nil {
					return err
				}
			}
			return WriteCandidates(w, t)
		}},
		{Name: results.TuneFile, Write: func(w io.Writer) error { return results.WriteJSON(w, t) }}})
}

// Read reads tune.json from a tuning's folder.
func Read(dir string) (Tuning, error) {
	var t Tuning
	return t, results.ReadJSON(filepath.Join(dir, results.TuneFile), &t)
}

// WriteCandidates writes the candidates as CSV, one row each in the order they ran: the
// round; one column per tuned parameter, its value as a number (PATH_per_s for a rate, PATH_s
// for a duration in seconds, PATH for a plain number); replications; feasible (true or false);
// choice ("recommended", "runner-up" or empty); failed (the constraints broken, joined by "; ");
// then NAME_mean, NAME_ci95 and NAME_n per measure (results.TuneMeasure.Name). An empty cell is "no
// value".
func WriteCandidates(w io.Writer, t *Tuning) error {
	header := []string{"round"}
	for _, p := range t.Params {
		col := p.Path
		switch p.Unit {
		case "/s":
			col += "_per_s"
		case "s":
			col += "_s"
		}
		header = append(header, col)
	}
	header = append(header, "replications", "feasible", "choice", "failed")
	for _, m := range t.Measures {
		header = append(header, m.Name()+"_mean", m.Name()+"_ci95", m.Name()+"_n")
	}
	choice := map[int]string{}
	for _, r := range t.RunnersUp {
		choice[r.Candidate] = "runner-up"
	}
	if t.Recommendation != nil {
		choice[t.Recommendation.Candidate] = "recommended"
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return err
	}
	for i := range t.Candidates {
		c := &t.Candidates[i]
		row := []string{strconv.Itoa(c.Round)}
		for _, v := range c.Values {
			row = append(row, results.FormatFloat(v))
		}
		row = append(row, strconv.Itoa(c.Replications), strconv.FormatBool(c.Feasible), choice[i], strings.Join(c.Failed, "; "))
		for _, m := range t.Measures {
			st := c.Metric(m.Name())
			row = append(row, results.FormatFloat(st.Mean), results.FormatFloat(st.CI95), strconv.Itoa(st.N))
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
