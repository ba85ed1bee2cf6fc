package results

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/overloadsim/overloadsim/sim"
)

// Timeseries is timeseries.csv read back (ReadTimeseries): its metric columns and its rows, in
// file order. The file holds rates and percentiles, not the counters and histograms of a
// Series, so it reads into this table rather than back into a Series.
type Timeseries struct {
	// Columns are the metric columns, the header row after time, kind and name.
	Columns []string
	Rows    []TimeseriesRow
}

// TimeseriesRow is one row of timeseries.csv: one group or server over one interval.
type TimeseriesRow struct {
	End    sim.Time  // the interval's end
	Kind   string    // "group" or "server"
	Name   string    // the group's name or the server's address
	Values []float64 // one per column of Timeseries.Columns; NaN for an empty cell
}

// Row kinds of timeseries.csv.
const (
	KindGroup  = "group"
	KindServer = "server"
)

// ReadTimeseries reads timeseries.csv from a run's folder.
func ReadTimeseries(dir string) (*Timeseries, error) {
	path := filepath.Join(dir, TimeseriesFile)
	f, err := openRegular(path, MaxTableBytes, "a "+TimeseriesFile)
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	defer f.Close()
	ts, err := ParseTimeseries(io.LimitReader(f, MaxTableBytes))
	if err != nil {
		return nil, fmt.Errorf("results: %s: %w", path, err)
	}
	return ts, nil
}

// ParseTimeseries reads what WriteTimeseries writes. The header row must begin with time, kind
// and name; the metric columns that follow are taken as they are, so a file with more or fewer
// metrics than TimeseriesColumns reads too. Times are exact (the nanosecond), values are the
// file's six significant digits, and an empty cell is NaN.
func ParseTimeseries(r io.Reader) (*Timeseries, error) {
	cr := csv.NewReader(r)
	header, err := cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("no header row")
		}
		return nil, err
	}
	if len(header) < 3 || header[0] != "time" || header[1] != "kind" || header[2] != "name" {
		return nil, fmt.Errorf("header %q does not begin with time,kind,name", header[:min(3, len(header))])
	}
	ts := &Timeseries{Columns: slices.Clone(header[3:])}
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		end, err := parseSeconds(rec[0])
		if err != nil {
			return nil, fmt.Errorf("line %d: time: %w", line, err)
		}
		row := TimeseriesRow{End: sim.Time(end), Kind: rec[1], Name: rec[2], Values: make([]float64, len(ts.Columns))}
		for i, cell := range rec[3:] {
			if cell == "" {
				row.Values[i] = math.NaN()
				continue
			}
			if row.Values[i], err = strconv.ParseFloat(cell, 64); err != nil {
				return nil, fmt.Errorf("line %d: %s: %w", line, ts.Columns[i], err)
			}
		}
		ts.Rows = append(ts.Rows, row)
	}
	return ts, nil
}

// Column returns the index of the named metric column in Columns and Values, -1 if absent.
func (t *Timeseries) Column(name string) int { return slices.Index(t.Columns, name) }

// Ends returns the distinct interval ends, in time order.
func (t *Timeseries) Ends() []sim.Time {
	out := make([]sim.Time, len(t.Rows))
	for i, r := range t.Rows {
		out[i] = r.End
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Names returns the names of the rows of a kind (KindGroup or KindServer), sorted.
func (t *Timeseries) Names(kind string) []string {
	var out []string
	for _, r := range t.Rows {
		if r.Kind == kind && !slices.Contains(out, r.Name) {
			out = append(out, r.Name)
		}
	}
	slices.Sort(out)
	return out
}

// Metric returns the named column of the rows of one group or server, one value per interval
// of Ends (NaN where the row or the column is missing or the cell is empty).
func (t *Timeseries) Metric(kind, name, column string) []float64 {
	ends := t.Ends()
	out := make([]float64, len(ends))
	for i := range out {
		out[i] = math.NaN()
	}
	col := t.Column(column)
	if col < 0 {
		return out
	}
	for _, r := range t.Rows {
		if r.Kind != kind || r.Name != name {
			continue
		}
		if i, ok := slices.BinarySearch(ends, r.End); ok {
			out[i] = r.Values[col]
		}
	}
	return out
}

// FaultWindows returns the triggers of a finished run from its summary: Recoveries holds one
// entry per trigger of the run's Series.Faults, in the same order, with its name and window.
// This is how the fault windows persist in a run folder (summary.json "recoveries").
func FaultWindows(s *Summary) []FaultWindow {
	out := make([]FaultWindow, len(s.Recoveries))
	for i, r := range s.Recoveries {
		out[i] = FaultWindow{Name: r.Fault, Start: r.Start, End: r.End}
	}
	return out
}
