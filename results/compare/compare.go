package compare

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/overloadsim/overloadsim/internal/stats"
	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/sweep"
)

// Input is one result to compare: a run (one point without parameters) or a sweep.
type Input struct {
	Label  string // its folder, as given
	Kind   string // results.KindRun or results.KindSweep
	Digest string // its scenario digest
	Header results.Header
	Points []sweep.PointStats
	// Differences are every setting in which its scenario differs from the reference's, in the
	// scenario's order, as "path=value" (nil for the reference and for the same scenario).
	Differences []string
}

// Compared is one compared result, as the comparison records it: Label is how the comparison
// names it (ResultLabel: what differs from the reference), Folder its folder as given.
type Compared struct {
	Label       string   `json:"label"`
	Folder      string   `json:"folder"`
	Differences []string `json:"differences"`
	Kind        string   `json:"kind"`
	Scenario    string   `json:"scenario"`
	Digest      string   `json:"digest"`
	Seed        uint64   `json:"seed"`
}

// ResultLabel is how a comparison names a result: the reference by its folder
// ("reference (out/03)"), any other by every difference of its scenario from the reference's,
// in order ("clients[1].driver.retryPolicy=mongodb-2026-07, load=1.5"), or, with none, by its
// folder ("out/b (same scenario)").
func ResultLabel(folder string, differences []string, reference bool) string {
	switch {
	case reference:
		return "reference (" + folder + ")"
	case len(differences) == 0:
		return folder + " (same scenario)"
	}
	return strings.Join(differences, ", ")
}

// Comparison is results side by side: every metric Compare shows at every point, in each
// result, with its difference from the first result (the reference) and whether the
// difference is significant.
type Comparison struct {
	Results []Compared `json:"results"`
	Rows    []Row      `json:"rows"`
	// Decision is the policy decision when the results differ from the reference only in a
	// policy or a limiter (sweep.DecideLines, each result one policy), nil otherwise.
	Decision *sweep.Decision `json:"decision,omitempty"`
}

// Row is one metric at one point ("" for a run) across the results.
type Row struct {
	Point  string  `json:"point"`
	Metric string  `json:"metric"`
	Values []Value `json:"values"`
}

// Value is one result's value in a row. Delta and DeltaRel are its difference from the
// reference's mean, absolute and relative (NaN for the reference itself and where either has no
// value), DeltaCI95 the half-width of the difference's 95 % confidence interval (Welch's, NaN
// where P is); P is the two-sided p-value of Welch's t-test on the two means (stats.WelchP: NaN
// with fewer than two replications on either side), Significant whether P < 1 −
// results.ConfidenceLevel; Verdict says whether the difference is better or worse (Judge).
type Value struct {
	Mean        float64 `json:"mean"`
	CI95        float64 `json:"ci95"`
	N           int     `json:"n"`
	Delta       float64 `json:"delta"`
	DeltaRel    float64 `json:"deltaRel"`
	DeltaCI95   float64 `json:"deltaCi95"`
	P           float64 `json:"p"`
	Significant bool    `json:"significant"`
	Verdict     Verdict `json:"verdict"`
}

// Verdict is what a difference from the reference means for a metric.
type Verdict string

// The verdicts.
const (
	NoVerdict      Verdict = ""                // the reference itself, or no difference to judge
	Better         Verdict = "better"          // significant, in the metric's better direction
	Worse          Verdict = "worse"           // significant, against it
	NotSignificant Verdict = "not significant" // p ≥ 0.05, or no difference at all
	Untested       Verdict = "untested"        // no p-value: fewer than two replications on a side
	Neutral        Verdict = "neither"         // significant, of a metric neither better nor worse (offered load)
)

// Judge is the verdict on a difference delta of metric with its Welch p-value p: better or
// worse by the catalogue's direction (results.MetricInfo.Better) when p < 1 −
// results.ConfidenceLevel (0.05), not significant otherwise (and for no difference at all),
// untested without a p-value (single runs), neither for a metric without a direction;
// NoVerdict without a difference (NaN).
func Judge(metric string, delta, p float64) Verdict {
	switch {
	case math.IsNaN(delta):
		return NoVerdict
	case delta == 0:
		return NotSignificant
	case math.IsNaN(p):
		return Untested
	case !(p < 1-results.ConfidenceLevel):
		return NotSignificant
	}
	m, _ := results.LookupMetric(metric)
	switch {
	case m.Better == results.BetterHigher && delta > 0, m.Better == results.BetterLower && delta < 0:
		return Better
	case m.Better == results.BetterHigher, m.Better == results.BetterLower:
		return Worse
	}
	return Neutral
}

// deltaCI95 is the half-width of the 95 % (results.ConfidenceLevel) confidence interval of the
// difference of two means with half-widths h1, h2 over n1, n2 replications: Welch's, each
// variance of a mean recovered from its half-width and Student's t with its own n − 1 degrees
// of freedom, the difference's t with the Welch–Satterthwaite degrees of freedom. NaN where
// stats.WelchP has no p-value (fewer than two replications on a side).
func deltaCI95(h1 float64, n1 int, h2 float64, n2 int) float64 {
	if n1 < 2 || n2 < 2 || math.IsNaN(h1) || math.IsNaN(h2) || math.IsInf(h1, 0) || math.IsInf(h2, 0) {
		return math.NaN()
	}
	q := func(df float64) float64 {
		return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile((1 + results.ConfidenceLevel) / 2)
	}
	v := func(h float64, n int) float64 { t := q(float64(n - 1)); return float64((h / t) * (h / t)) }
	v1, v2 := v(h1, n1), v(h2, n2)
	if v1+v2 == 0 {
		return 0
	}
	df := (v1 + v2) * (v1 + v2) / (float64(v1*v1)/float64(n1-1) + float64(v2*v2)/float64(n2-1))
	return float64(q(df) * math.Sqrt(v1+v2))
}

// faultHeadline reports whether name is a trigger's headline metric: "fault.cut.stuck".
func faultHeadline(name string) bool {
	m, ok := results.LookupMetric(name)
	return ok && strings.HasPrefix(name, "fault.") && m.Scope == results.ScopeFault && m.Headline > 0
}

// Compare puts the inputs side by side, the first being the reference. It shows the group
// headline metrics (results.Headlines), all over every client group, then each trigger's
// headline metrics (its share stuck and recovery time) that the reference has. Points are
// matched by their parameters (sweep.PointStats.Key), in order of first appearance; a point or
// metric a result lacks has no value there.
func Compare(in []Input) Comparison {
	var c Comparison
	var keys []string
	var metrics []string
	for _, m := range results.Headlines(results.ScopeGroup) {
		metrics = append(metrics, "total."+m.Name)
	}
	byKey := make([]map[string]*sweep.PointStats, len(in))
	for i, r := range in {
		c.Results = append(c.Results, Compared{Label: ResultLabel(r.Label, r.Differences, i == 0), Folder: r.Label,
			Differences: r.Differences, Kind: r.Kind, Scenario: r.Header.Scenario, Digest: r.Digest, Seed: r.Header.Seed})
		if i > 0 && slices.ContainsFunc(c.Results[:i], func(o Compared) bool { return o.Label == c.Results[i].Label }) {
			c.Results[i].Label += " (" + r.Label + ")" // the same differences as another: tell them apart by folder
		}
		byKey[i] = map[string]*sweep.PointStats{}
		for j := range r.Points {
			p := &r.Points[j]
			byKey[i][p.Key()] = p
			if !slices.Contains(keys, p.Key()) {
				keys = append(keys, p.Key())
			}
			if i == 0 {
				for _, m := range p.Metrics {
					if faultHeadline(m.Name) && !slices.Contains(metrics, m.Name) {
						metrics = append(metrics, m.Name)
					}
				}
			}
		}
	}
	for _, k := range keys {
		for _, name := range metrics {
			row := Row{Point: k, Metric: name}
			var ref results.MetricStats
			for i := range in {
				st := results.MetricStats{Mean: math.NaN(), CI95: math.NaN()}
				if p := byKey[i][k]; p != nil {
					if m, ok := p.Metric(name); ok {
						st = m
					}
				}
				v := Value{Mean: st.Mean, CI95: st.CI95, N: st.N, Delta: math.NaN(), DeltaRel: math.NaN(), DeltaCI95: math.NaN(), P: math.NaN()}
				if i == 0 {
					ref = st
				} else if !math.IsNaN(st.Mean) && !math.IsNaN(ref.Mean) {
					v.Delta = st.Mean - ref.Mean
					if ref.Mean != 0 {
						v.DeltaRel = v.Delta / math.Abs(ref.Mean)
					}
					v.P = stats.WelchP(ref.Mean, ref.CI95, ref.N, st.Mean, st.CI95, st.N, results.ConfidenceLevel)
					v.Significant = v.P < 1-results.ConfidenceLevel
					v.DeltaCI95 = deltaCI95(ref.CI95, ref.N, st.CI95, st.N)
					v.Verdict = Judge(name, v.Delta, v.P)
				}
				row.Values = append(row.Values, v)
			}
			c.Rows = append(c.Rows, row)
		}
	}
	return c
}

// Header is the header a comparison's folder is stamped with: the reference's tool and
// version, and, as its canonical form, the compared results' labels and digests, so that its
// digest names exactly what was compared.
func Header(c Comparison, tool, version string) results.Header {
	var b strings.Builder
	for _, r := range c.Results {
		fmt.Fprintf(&b, "%s %s %s %d\n", r.Label, r.Kind, r.Digest, r.Seed)
	}
	return results.Header{Tool: tool, Version: version, Scenario: "compare", Canonical: b.String()}
}

// Write writes compare.json and compare.csv into dir, replacing the result it held
// (see results.WriteRunDir).
func Write(dir string, hdr results.Header, c Comparison) error {
	return results.WriteResult(dir, results.KindCompare, hdr, "", []results.OutputFile{
		{Name: results.CompareFile, Write: func(w io.Writer) error { return results.WriteJSON(w, c) }},
		{Name: results.CompareCSVFile, Write: func(w io.Writer) error { return WriteCSV(w, c) }},
	})
}

// Read reads a comparison folder's compare.json.
func Read(dir string) (Comparison, error) {
	var c Comparison
	err := results.ReadJSON(filepath.Join(dir, results.CompareFile), &c)
	return c, err
}

// WriteCSV writes the comparison as CSV: point, metric, unit, then per result (named by its
// label) its mean, ci95 and n, and per result after the first its delta, relative delta, the
// delta's ci95, p-value and verdict.
func WriteCSV(w io.Writer, c Comparison) error {
	header := []string{"point", "metric", "unit"}
	for i, r := range c.Results {
		header = append(header, r.Label+"_mean", r.Label+"_ci95", r.Label+"_n")
		if i > 0 {
			header = append(header, r.Label+"_delta", r.Label+"_delta_rel", r.Label+"_delta_ci95", r.Label+"_p", r.Label+"_verdict")
		}
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, row := range c.Rows {
		rec := []string{row.Point, row.Metric, Unit(row.Metric)}
		for i, v := range row.Values {
			rec = append(rec, results.FormatFloat(v.Mean), results.FormatFloat(v.CI95), strconv.Itoa(v.N))
			if i > 0 {
				rec = append(rec, results.FormatFloat(v.Delta), results.FormatFloat(v.DeltaRel), results.FormatFloat(v.DeltaCI95), results.FormatFloat(v.P), string(v.Verdict))
			}
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
