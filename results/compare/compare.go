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

	"github.com/overloadsim/overloadsim/internal/stats"
	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/sweep"
)

// Input is one result to compare: a run (one point without parameters) or a sweep.
type Input struct {
	Label  string // how the comparison names it: its folder, as given
	Kind   string // results.KindRun or results.KindSweep
	Digest string // its scenario digest
	Header results.Header
	Points []sweep.PointStats
}

// Compared is one compared result, as the comparison records it.
type Compared struct {
	Label    string `json:"label"`
	Kind     string `json:"kind"`
	Scenario string `json:"scenario"`
	Digest   string `json:"digest"`
	Seed     uint64 `json:"seed"`
}

// Comparison is results side by side: every metric Compare shows at every point, in each
// result, with its difference from the first result (the reference) and whether the
// difference is significant.
type Comparison struct {
	Results []Compared `json:"results"`
	Rows    []Row      `json:"rows"`
}

// Row is one metric at one point ("" for a run) across the results.
type Row struct {
	Point  string  `json:"point"`
	Metric string  `json:"metric"`
	Values []Value `json:"values"`
}

// Value is one result's value in a row. Delta and DeltaRel are its difference from the
// reference's mean, absolute and relative (NaN for the reference itself and where either has no
// value); P is the two-sided p-value of Welch's t-test on the two means (stats.WelchP: NaN with
// fewer than two replications on either side), Significant whether P < 1 − results.ConfidenceLevel.
type Value struct {
	Mean        float64 `json:"mean"`
	CI95        float64 `json:"ci95"`
	N           int     `json:"n"`
	Delta       float64 `json:"delta"`
	DeltaRel    float64 `json:"deltaRel"`
	P           float64 `json:"p"`
	Significant bool    `json:"significant"`
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
		c.Results = append(c.Results, Compared{Label: r.Label, Kind: r.Kind, Scenario: r.Header.Scenario, Digest: r.Digest, Seed: r.Header.Seed})
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
				v := Value{Mean: st.Mean, CI95: st.CI95, N: st.N, Delta: math.NaN(), DeltaRel: math.NaN(), P: math.NaN()}
				if i == 0 {
					ref = st
				} else if !math.IsNaN(st.Mean) && !math.IsNaN(ref.Mean) {
					v.Delta = st.Mean - ref.Mean
					if ref.Mean != 0 {
						v.DeltaRel = v.Delta / math.Abs(ref.Mean)
					}
					v.P = stats.WelchP(ref.Mean, ref.CI95, ref.N, st.Mean, st.CI95, st.N, results.ConfidenceLevel)
					v.Significant = v.P < 1-results.ConfidenceLevel
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

// WriteCSV writes the comparison as CSV: point, metric, then per result its mean, ci95
// and n, and per result after the first its delta, relative delta and p-value.
func WriteCSV(w io.Writer, c Comparison) error {
	header := []string{"point", "metric"}
	for i, r := range c.Results {
		header = append(header, r.Label+"_mean", r.Label+"_ci95", r.Label+"_n")
		if i > 0 {
			header = append(header, r.Label+"_delta", r.Label+"_delta_rel", r.Label+"_p")
		}
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, row := range c.Rows {
		rec := []string{row.Point, row.Metric}
		for i, v := range row.Values {
			rec = append(rec, results.FormatFloat(v.Mean), results.FormatFloat(v.CI95), strconv.Itoa(v.N))
			if i > 0 {
				rec = append(rec, results.FormatFloat(v.Delta), results.FormatFloat(v.DeltaRel), results.FormatFloat(v.P))
			}
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
