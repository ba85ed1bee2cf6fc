package results

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/overloadsim/overloadsim/internal/stats"
)

// KindCompare is the kind of an output folder holding a comparison of results (Compare).
const KindCompare = "compare"

// Files of a comparison folder.
const (
	CompareFile    = "compare.json"
	CompareCSVFile = "compare.csv"
)

// CompareInput is one result to compare: a run (one point without parameters) or a sweep.
type CompareInput struct {
	Label  string // how the comparison names it: its folder, as given
	Kind   string // KindRun or KindSweep
	Digest string // its scenario digest
	Header Header
	Points []PointStats
}

// ComparedResult is one compared result, as the comparison records it.
type ComparedResult struct {
	Label    string `json:"label"`
	Kind     string `json:"kind"`
	Scenario string `json:"scenario"`
	Digest   string `json:"digest"`
	Seed     uint64 `json:"seed"`
}

// Comparison is results side by side: every metric of CompareMetrics at every point, in each
// result, with its difference from the first result (the reference) and whether the difference
// is significant.
type Comparison struct {
	Results []ComparedResult `json:"results"`
	Rows    []CompareRow     `json:"rows"`
}

// CompareRow is one metric at one point ("" for a run) across the results.
type CompareRow struct {
	Point  string         `json:"point"`
	Metric string         `json:"metric"`
	Values []CompareValue `json:"values"`
}

// CompareValue is one result's value in a row. Delta and DeltaRel are its difference from the
// reference's mean, absolute and relative (NaN for the reference itself and where either has no
// value); P is the two-sided p-value of Welch's t-test on the two means (stats.WelchP: NaN with
// fewer than two replications on either side), Significant whether P < 1 − ConfidenceLevel.
type CompareValue struct {
	Mean        float64 `json:"mean"`
	CI95        float64 `json:"ci95"`
	N           int     `json:"n"`
	Delta       float64 `json:"delta"`
	DeltaRel    float64 `json:"deltaRel"`
	P           float64 `json:"p"`
	Significant bool    `json:"significant"`
}

// CompareMetrics are the metrics a comparison shows, all over every client group; each
// trigger's share stuck and recovery time follow when the reference has them.
var CompareMetrics = []string{"total.offered", "total.goodput", "total.amplification", "total.latency_ok_p99", "total.failures"}

// Compare puts the inputs side by side, the first being the reference. Points are matched by
// their parameters (PointStats.Key), in order of first appearance; a point or metric a result
// lacks has no value there.
func Compare(in []CompareInput) Comparison {
	var c Comparison
	var keys []string
	metrics := slices.Clone(CompareMetrics)
	byKey := make([]map[string]*PointStats, len(in))
	for i, r := range in {
		c.Results = append(c.Results, ComparedResult{Label: r.Label, Kind: r.Kind, Scenario: r.Header.Scenario, Digest: r.Digest, Seed: r.Header.Seed})
		byKey[i] = map[string]*PointStats{}
		for j := range r.Points {
			p := &r.Points[j]
			byKey[i][p.Key()] = p
			if !slices.Contains(keys, p.Key()) {
				keys = append(keys, p.Key())
			}
			if i == 0 {
				for _, m := range p.Metrics {
					if strings.HasPrefix(m.Name, "fault.") && (strings.HasSuffix(m.Name, ".stuck") || strings.HasSuffix(m.Name, ".recovery_time")) && !slices.Contains(metrics, m.Name) {
						metrics = append(metrics, m.Name)
					}
				}
			}
		}
	}
	for _, k := range keys {
		for _, name := range metrics {
			row := CompareRow{Point: k, Metric: name}
			var ref MetricStats
			for i := range in {
				st := MetricStats{Mean: math.NaN(), CI95: math.NaN()}
				if p := byKey[i][k]; p != nil {
					if m, ok := p.Metric(name); ok {
						st = m
					}
				}
				v := CompareValue{Mean: st.Mean, CI95: st.CI95, N: st.N, Delta: math.NaN(), DeltaRel: math.NaN(), P: math.NaN()}
				if i == 0 {
					ref = st
				} else if !math.IsNaN(st.Mean) && !math.IsNaN(ref.Mean) {
					v.Delta = st.Mean - ref.Mean
					if ref.Mean != 0 {
						v.DeltaRel = v.Delta / math.Abs(ref.Mean)
					}
					v.P = stats.WelchP(ref.Mean, ref.CI95, ref.N, st.Mean, st.CI95, st.N, ConfidenceLevel)
					v.Significant = v.P < 1-ConfidenceLevel
				}
				row.Values = append(row.Values, v)
			}
			c.Rows = append(c.Rows, row)
		}
	}
	return c
}

// CompareHeader is the header a comparison's folder is stamped with: the reference's tool and
// version, and, as its canonical form, the compared results' labels and digests, so that its
// digest names exactly what was compared.
func CompareHeader(c Comparison, tool, version string) Header {
	var b strings.Builder
	for _, r := range c.Results {
		fmt.Fprintf(&b, "%s %s %s %d\n", r.Label, r.Kind, r.Digest, r.Seed)
	}
	return Header{Tool: tool, Version: version, Scenario: "compare", Canonical: b.String()}
}

// WriteCompareDir writes compare.json and compare.csv into dir, replacing the result it held
// (see WriteRunDir).
func WriteCompareDir(dir string, hdr Header, c Comparison) error {
	return writeResult(dir, newManifest(KindCompare, hdr), []outputFile{
		{CompareFile, func(w io.Writer) error { return writeJSON(w, c) }},
		{CompareCSVFile, func(w io.Writer) error { return WriteCompareCSV(w, c) }},
	})
}

// ReadCompare reads a comparison folder's compare.json.
func ReadCompare(dir string) (Comparison, error) {
	var c Comparison
	err := readJSON(filepath.Join(dir, CompareFile), &c)
	return c, err
}

// WriteCompareCSV writes the comparison as CSV: point, metric, then per result its mean, ci95
// and n, and per result after the first its delta, relative delta and p-value.
func WriteCompareCSV(w io.Writer, c Comparison) error {
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
			rec = append(rec, formatFloat(v.Mean), formatFloat(v.CI95), itoa(v.N))
			if i > 0 {
				rec = append(rec, formatFloat(v.Delta), formatFloat(v.DeltaRel), formatFloat(v.P))
			}
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
