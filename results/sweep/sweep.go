package sweep

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/overloadsim/overloadsim/internal/stats"
	"github.com/overloadsim/overloadsim/results"
)

// PointResult is one sweep point: its parameter values and the summary of each replication, in
// replication order.
type PointResult struct {
	Params       []results.Param
	Replications []results.Summary
}

// PointStats is one sweep point aggregated over its replications. Metrics are named as in
// Summary.Metrics.
type PointStats struct {
	Params       []results.Param       `json:"params"`
	Replications int                   `json:"replications"`
	Metrics      []results.MetricStats `json:"metrics"`
}

// Key names the point by its parameters, "path=value" joined by ", " in path order; "" for a
// point without parameters (a single run).
func (p *PointStats) Key() string { return paramsKey(p.Params) }

func paramsKey(ps []results.Param) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.Path + "=" + p.Value
	}
	slices.Sort(parts)
	return strings.Join(parts, ", ")
}

// Metric returns the named metric and whether the point has it.
func (p *PointStats) Metric(name string) (results.MetricStats, bool) {
	for _, m := range p.Metrics {
		if m.Name == name {
			return m, true
		}
	}
	return results.MetricStats{}, false
}

// Aggregate reduces each point's replications to the mean and 95 % confidence half-width of
// every metric (Summary.Metrics), skipping the replications where a metric has no value (NaN).
// Points keep their order; metrics are in the order of their first appearance.
func Aggregate(points []PointResult) []PointStats {
	out := make([]PointStats, len(points))
	for i, pt := range points {
		var names []string
		values := map[string][]float64{}
		for _, rep := range pt.Replications {
			for _, m := range rep.Metrics() {
				vs, seen := values[m.Name]
				if !seen {
					names = append(names, m.Name)
				}
				if !math.IsNaN(m.Value) {
					vs = append(vs, m.Value)
				}
				values[m.Name] = vs
			}
		}
		ps := PointStats{Params: slices.Clone(pt.Params), Replications: len(pt.Replications)}
		for _, n := range names {
			vs := values[n]
			mean, half := stats.MeanCI(vs, results.ConfidenceLevel)
			ps.Metrics = append(ps.Metrics, results.MetricStats{Name: n, Mean: mean, CI95: half, N: len(vs)})
		}
		out[i] = ps
	}
	return out
}

// SinglePoint turns one run's summary into a sweep of one point with one replication, the shape
// Check compares.
func SinglePoint(s results.Summary) []PointStats {
	return Aggregate([]PointResult{{Replications: []results.Summary{s}}})
}

// WriteSweepDir writes points.csv and sweep.json into dir (created if needed), replacing the
// result it held (see WriteRunDir). A sweep.json is a valid baseline file. partial, when not
// empty, says why the sweep is incomplete (it holds only the points that finished): it is
// recorded in sweep.json, the manifest and a first comment line of points.csv, and such a sweep
// is refused as a baseline. ctx, when given and the sweep varies a workload's rate, is
// recorded with the sweep's answers (SweepAnswers), and verdicts, the judgements of the
// scenario's expectations (Judge), as they are.
func WriteSweepDir(dir string, hdr results.Header, points []PointStats, partial string, ctx *LoadContext, verdicts ...results.Verdict) error {
	b := NewBaseline(hdr, points)
	b.Partial = partial
	b.Verdicts = verdicts
	if ctx != nil {
		b.Decision = Decide(points, *ctx, ctx.Groups)
	}
	if ctx != nil {
		if answers := SweepAnswers(points, *ctx); answers != nil {
			c := *ctx
			b.Context, b.Answers = &c, answers
		}
	}
	return results.WriteResult(dir, results.KindSweep, hdr, partial, []results.OutputFile{
		{Name: results.PointsFile, Write: func(w io.Writer) error {
			if partial != "" {
				if _, err := fmt.Fprintf(w, "# partial: %s\n", partial); err != nil {
					return err
				}
			}
			return WritePoints(w, points)
		}},
		{Name: results.SweepFile, Write: func(w io.Writer) error { return results.WriteJSON(w, b) }}})
}

// parameters lists the parameters the points vary, in order of first appearance, and each one's
// values in the same order.
func parameters(points []PointStats) (paths []string, values map[string][]string) {
	values = map[string][]string{}
	for _, p := range points {
		for _, pr := range p.Params {
			if !slices.Contains(paths, pr.Path) {
				paths = append(paths, pr.Path)
			}
			if !slices.Contains(values[pr.Path], pr.Value) {
				values[pr.Path] = append(values[pr.Path], pr.Value)
			}
		}
	}
	return paths, values
}

// SweepAnswers answers a load sweep (one whose parameter IsLoadPath): one LoadAnswers for the
// whole sweep or, when a second parameter is varied, one per value of it, in order of first
// appearance. It returns nil for a sweep that varies no workload's rate.
func SweepAnswers(points []PointStats, ctx LoadContext) []LoadAnswers {
	paths, values := parameters(points)
	load := ""
	for _, p := range paths {
		if IsLoadPath(p, values[p]) {
			load = p
			break
		}
	}
	if load == "" {
		return nil
	}
	other := ""
	for _, p := range paths {
		if p != load {
			other = p
		}
	}
	if other == "" {
		all := make([]*PointStats, len(points))
		for i := range points {
			all[i] = &points[i]
		}
		return []LoadAnswers{AnswerLoad(all, "total.", load, ctx)}
	}
	var out []LoadAnswers
	for _, v := range values[other] {
		var line []*PointStats
		for i := range points {
			for _, pr := range points[i].Params {
				if pr.Path == other && pr.Value == v {
					line = append(line, &points[i])
				}
			}
		}
		a := AnswerLoad(line, "total.", load, ctx)
		a.Line = v
		out = append(out, a)
	}
	return out
}

// ReadSweep reads sweep.json from a sweep's folder.
func ReadSweep(dir string) (results.Header, []PointStats, error) {
	b, err := LoadBaseline(filepath.Join(dir, results.SweepFile))
	return b.Header, b.Points, err
}

// ReadPoints reads the points of a sweep folder (sweep.json) or of a run folder (summary.json,
// as SinglePoint), whichever dir's manifest says it holds; a folder without an intact manifest,
// or whose manifest does not list the file read, is an error (ReadManifest).
func ReadPoints(dir string) ([]PointStats, error) {
	m, err := results.ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	switch m.Kind {
	case results.KindSweep:
		if err := m.RequireListed(dir, results.SweepFile); err != nil {
			return nil, err
		}
		_, pts, err := ReadSweep(dir)
		return pts, err
	case results.KindRun:
		if err := m.RequireListed(dir, results.SummaryFile); err != nil {
			return nil, err
		}
		s, err := results.ReadSummary(dir)
		if err != nil {
			return nil, err
		}
		return SinglePoint(s), nil
	}
	return nil, fmt.Errorf("%s holds a %s, which has no points%s", dir, m.Kind, results.MergeHint(m.Kind))
}

// WritePoints writes points as CSV: one column per parameter path (in order of first
// appearance), "replications", then "NAME_mean", "NAME_ci95" and "NAME_n" per metric (in order of
// first appearance; n counts the replications where the metric has a value, so a recovery time
// says over how many recovered replications it is averaged); one row per point. An empty cell is
// "no value". A parameter whose values are all numbers of one kind (ParseValues) is written as
// numbers, with its unit in the column's name: PATH_per_s for rates (operations/s), PATH_s,
// PATH_ms or PATH_us for durations (the unit that reads best), PATH for plain numbers; any other
// parameter (a policy, a driver block) as its text, under PATH.
func WritePoints(w io.Writer, points []PointStats) error {
	paths, values := parameters(points)
	var metrics []string
	for _, p := range points {
		for _, m := range p.Metrics {
			if !slices.Contains(metrics, m.Name) {
				metrics = append(metrics, m.Name)
			}
		}
	}
	// Each numeric parameter's column name and its values as numbers, by text.
	columns := make([]string, len(paths))
	numeric := map[string]map[string]string{}
	for i, path := range paths {
		columns[i] = path
		nums, kind, unit, ok := results.ParseValues(values[path])
		if !ok {
			continue
		}
		switch kind {
		case results.ValueRate:
			columns[i] = path + "_per_s"
		case results.ValueDuration:
			columns[i] = path + "_" + strings.ReplaceAll(unit, "µ", "u")
		}
		numeric[path] = map[string]string{}
		for j, v := range values[path] {
			numeric[path][v] = results.FormatFloat(nums[j])
		}
	}
	header := append(columns, "replications")
	for _, m := range metrics {
		header = append(header, m+"_mean", m+"_ci95", m+"_n")
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, p := range points {
		row := make([]string, 0, len(header))
		for _, path := range paths {
			cell := ""
			for _, pr := range p.Params {
				if pr.Path == path {
					cell = pr.Value
					if n, ok := numeric[path]; ok {
						cell = n[pr.Value]
					}
				}
			}
			row = append(row, cell)
		}
		row = append(row, strconv.Itoa(p.Replications))
		for _, name := range metrics {
			m, ok := p.Metric(name)
			if !ok {
				row = append(row, "", "", "")
				continue
			}
			row = append(row, results.FormatFloat(m.Mean), results.FormatFloat(m.CI95), strconv.Itoa(m.N))
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// TriggerOutcomes is how a sweep point's replications came out after one trigger.
type TriggerOutcomes struct {
	Trigger string `json:"trigger"` // the fault's metric name ("cpu-cut", "spike#2")
	// N counts the replications with a pre-trigger baseline; Recovered, Stuck and Undecided
	// split them.
	N         int `json:"n"`
	Recovered int `json:"recovered"`
	Stuck     int `json:"stuck"`
	Undecided int `json:"undecided"`
	// RecoveryMean and RecoveryCI95 are the mean recovery time of the Recovered replications and
	// its 95 % half-width (seconds; NaN when none recovered, CI95 NaN with one).
	RecoveryMean float64 `json:"recoveryMean"`
	RecoveryCI95 float64 `json:"recoveryCI95"`
}

// Outcomes returns the point's outcomes after each trigger, in metric order, from the fault
// indicators of Summary.Metrics.
func (p *PointStats) Outcomes() []TriggerOutcomes {
	var out []TriggerOutcomes
	for _, m := range p.Metrics {
		name, ok := strings.CutSuffix(m.Name, ".recovered")
		trigger, isFault := strings.CutPrefix(name, "fault.")
		if !ok || !isFault {
			continue
		}
		count := func(metric string) int {
			st, _ := p.Metric(name + "." + metric)
			if st.N == 0 {
				return 0
			}
			return int(math.Round(st.Mean * float64(st.N)))
		}
		t, _ := p.Metric(name + ".recovery_time")
		out = append(out, TriggerOutcomes{Trigger: trigger, N: m.N, Recovered: count("recovered"), Stuck: count("stuck"),
			Undecided: count("undecided"), RecoveryMean: t.Mean, RecoveryCI95: t.CI95})
	}
	return out
}

// String says it in one line: "after cut: recovered 3/5 (in 2.1 s ± 0.4), stuck 2/5, undecided
// 0/5".
func (o TriggerOutcomes) String() string {
	text := fmt.Sprintf("after %s: recovered %d/%d", o.Trigger, o.Recovered, o.N)
	if o.Recovered > 0 && !math.IsNaN(o.RecoveryMean) {
		text += fmt.Sprintf(" (in %.1f s", o.RecoveryMean)
		if !math.IsNaN(o.RecoveryCI95) {
			text += fmt.Sprintf(" ± %.2g", o.RecoveryCI95)
		}
		text += ")"
	}
	return text + fmt.Sprintf(", stuck %d/%d, undecided %d/%d", o.Stuck, o.N, o.Undecided, o.N)
}
