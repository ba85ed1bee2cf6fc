package phasemap

import (
	"encoding/csv"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/overloadsim/overloadsim/results"
)

// Cell is one cell of a metastability map: the parameter values (one per axis, in axis
// order), how its replications came out after the map's trigger, the probability of sticking
// with its Wilson score interval, and the recovery time over the replications that recovered.
type Cell struct {
	Params       []results.Param `json:"params"`
	Replications int             `json:"replications"`
	Recovered    int             `json:"recovered"`
	Stuck        int             `json:"stuck"` // relapses included (results.RecoveryOutcome.Stuck)
	Undecided    int             `json:"undecided"`
	NoBaseline   int             `json:"noBaseline"`
	// PStuck is Stuck ÷ (Stuck + Recovered), the share of the replications that decided; NaN
	// when none did. [PStuckLo, PStuckHi] is its 95 % Wilson score interval. Undecided
	// replications are neither: counting them as recovered would bias P(stuck) down exactly
	// where runs end too soon, and as stuck up.
	PStuck   float64 `json:"pStuck"`
	PStuckLo float64 `json:"pStuckLo"`
	PStuckHi float64 `json:"pStuckHi"`
	// RecoveryMedian is the median recovery time, in seconds, of the Recovered replications;
	// NaN when none recovered.
	RecoveryMedian float64 `json:"recoveryMedian"`
}

// Map is a metastability map: the outcome after one trigger over a grid of two or three
// parameters. Cells are in grid order, the first axis varying slowest.
type Map struct {
	Header  results.Header `json:"header"`
	Trigger string         `json:"trigger"` // the fault (trigger) whose recovery is mapped
	Axes    []results.Axis `json:"axes"`
	Cells   []Cell         `json:"cells"`
	// Partial is true when the map was interrupted: the cells with Replications 0 were not run.
	Partial bool `json:"partial,omitempty"`
}

// NewCell counts outcomes (one per replication) into a cell: the share of the decided ones
// that stuck, with its Wilson interval, and the median recovery time of those that recovered
// (seconds, parallel to outcomes; read only where the outcome is Recovered).
func NewCell(params []results.Param, outcomes []results.RecoveryOutcome, seconds []float64) Cell {
	c := Cell{Params: slices.Clone(params), Replications: len(outcomes), RecoveryMedian: math.NaN()}
	var rec []float64
	for i, o := range outcomes {
		switch {
		case o == results.Recovered:
			c.Recovered++
			rec = append(rec, seconds[i])
		case o.Stuck(): // a relapse is stuck too (docs/metrics.md §13.9)
			c.Stuck++
		case o == results.Undecided:
			c.Undecided++
		default:
			c.NoBaseline++
		}
	}
	c.PStuck, c.PStuckLo, c.PStuckHi = math.NaN(), math.NaN(), math.NaN()
	if decided := c.Stuck + c.Recovered; decided > 0 {
		c.PStuck = float64(c.Stuck) / float64(decided)
		c.PStuckLo, c.PStuckHi = Wilson(c.Stuck, decided)
	}
	if len(rec) > 0 {
		c.RecoveryMedian = median(rec)
	}
	return c
}

// Wilson returns the 95 % Wilson score interval of a binomial proportion with k successes in n
// trials (Wilson 1927; Brown, Cai and DasGupta 2001 recommend it over the Wald interval for
// small n and proportions near 0 or 1, which is where metastability maps live). NaN, NaN for
// n = 0.
func Wilson(k, n int) (lo, hi float64) {
	if n <= 0 {
		return math.NaN(), math.NaN()
	}
	const z = 1.959963984540054 // the standard normal's 97.5 % quantile
	p, nf := float64(k)/float64(n), float64(n)
	den := 1 + z*z/nf
	centre := (p + z*z/(2*nf)) / den
	half := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / den
	return max(0, centre-half), min(1, centre+half)
}

// median returns the median of xs (the mean of the two middle values for an even count); xs is
// sorted in place.
func median(xs []float64) float64 {
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return float64((xs[n/2-1] + xs[n/2]) / 2)
}

// Write writes map.csv and map.json into dir (created if needed), replacing the result it
// held (see results.WriteRunDir).
func Write(dir string, m Map) error {
	partial := ""
	if m.Partial {
		partial = "interrupted: cells with 0 replications were not run"
	}
	return results.WriteResult(dir, results.KindMap, m.Header, partial, []results.OutputFile{
		{Name: results.MapCellsFile, Write: func(w io.Writer) error { return WriteCells(w, m) }},
		{Name: results.MapFile, Write: func(w io.Writer) error { return results.WriteJSON(w, m) }}})
}

// Read reads map.json from a map's folder.
func Read(dir string) (Map, error) {
	var m Map
	return m, results.ReadJSON(filepath.Join(dir, results.MapFile), &m)
}

// WriteCells writes the cells as CSV: one column per axis path, then replications,
// recovered, stuck, undecided, no_baseline, p_stuck, p_stuck_lo, p_stuck_hi and
// recovery_median_s; one row per cell, in grid order. An empty cell is "no value".
func WriteCells(w io.Writer, m Map) error {
	header := make([]string, 0, len(m.Axes)+9)
	for _, a := range m.Axes {
		header = append(header, a.Path)
	}
	header = append(header, "replications", "recovered", "stuck", "undecided", "no_baseline",
		"p_stuck", "p_stuck_lo", "p_stuck_hi", "recovery_median_s")
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, c := range m.Cells {
		row := make([]string, 0, len(header))
		for _, p := range c.Params {
			row = append(row, p.Value)
		}
		row = append(row, strconv.Itoa(c.Replications), strconv.Itoa(c.Recovered), strconv.Itoa(c.Stuck), strconv.Itoa(c.Undecided),
			strconv.Itoa(c.NoBaseline), results.FormatFloat(c.PStuck), results.FormatFloat(c.PStuckLo), results.FormatFloat(c.PStuckHi),
			results.FormatFloat(c.RecoveryMedian))
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
