package dist

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/overloadsim/overloadsim/field"
)

// otherUnits are header words naming a unit other than milliseconds. A header such as
// "latency_us" above bare numbers would otherwise be read 1000 times too large.
var otherUnits = map[string]bool{
	"ns": true, "nanos": true, "nanoseconds": true,
	"us": true, "µs": true, "micros": true, "microseconds": true,
	"s": true, "sec": true, "secs": true, "seconds": true,
	"min": true, "minutes": true,
}

// ReadEmpiricalCSV reads the values of an empirical distribution from r: one value per line, or
// the first column of a CSV file. It is meant for a scenarios package that has opened the file
// named in empirical(file); see ParseWith.
//
//   - A value is either a Go duration with its unit (3ms, 1.5s, 250µs) or a bare decimal
//     number, which is read as milliseconds. One file may mix both.
//   - If the first record's first field is neither, that record is a header and is skipped, so
//     an export with a header line such as "latency_ms,host" reads as is. Bare numbers under a
//     header whose first column names another unit ("latency_us", "rtt (s)") are an error
//     rather than a silent factor of 1000.
//   - Blank lines and lines starting with # are skipped; columns after the first are ignored.
//
// Values must be in [0, MaxDuration]; fractions of a nanosecond are rounded. A reader with no
// values is an error. Errors are a *field.Error after "dist: ", naming the line ("csv line 3"),
// the text and the rule.
func ReadEmpiricalCSV(r io.Reader) ([]time.Duration, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.Comment = '#'
	cr.TrimLeadingSpace = true
	cr.ReuseRecord = true
	var (
		values     []time.Duration
		headerUnit string // a non-millisecond unit named by the header, if any
		first      = true
	)
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			fe := &field.Error{Field: "csv", Value: "(unreadable)", Rule: err.Error(), Err: err}
			if pe := (*csv.ParseError)(nil); errors.As(err, &pe) {
				fe.Field, fe.Value, fe.Rule = fmt.Sprintf("csv line %d column %d", pe.Line, pe.Column), "", pe.Err.Error()
			}
			return nil, fmt.Errorf("dist: %w", fe)
		}
		line, _ := cr.FieldPos(0)
		text := strings.TrimSpace(rec[0])
		if first {
			text = strings.TrimPrefix(text, "\ufeff") // spreadsheets often start with a BOM
		}
		d, bare, ok := ParseDurationField(text, time.Millisecond)
		if first && !ok && text != "" {
			headerUnit = unitOf(text)
			first = false
			continue
		}
		first = false
		bad := func(rule string) error {
			return fmt.Errorf("dist: %w", &field.Error{Field: fmt.Sprintf("csv line %d", line), Value: strconv.Quote(text), Rule: rule})
		}
		switch {
		case !ok:
			return nil, bad("must be a duration such as 3ms or a number of milliseconds")
		case bare && headerUnit != "":
			return nil, bad(fmt.Sprintf("bare numbers are milliseconds but the header names unit %q; write durations with units instead (e.g. 250µs)", headerUnit))
		case d < 0:
			return nil, bad("must be ≥ 0")
		case d > MaxDuration:
			return nil, bad(fmt.Sprintf("must be ≤ %v (MaxDuration)", MaxDuration))
		}
		values = append(values, d)
	}
	if len(values) == 0 {
		return nil, fmt.Errorf("dist: %w", &field.Error{Field: "csv", Value: "no values", Rule: "must hold at least one value"})
	}
	return values, nil
}

// ParseDurationField reads a text field holding either a Go duration ("3ms") or a bare number
// counted in unit (with unit = time.Millisecond, "3" is 3ms). bare reports which form it was;
// ok is false for text that is neither, and for NaN or Inf. A negative bare number comes back
// as -1 and one beyond MaxDuration as MaxDuration+1, so that the caller can report them in its
// own words. The CSV readers of this package and of the workload traces share it.
func ParseDurationField(field string, unit time.Duration) (d time.Duration, bare, ok bool) {
	if field == "" {
		return 0, false, false
	}
	if d, err := time.ParseDuration(field); err == nil {
		return d, false, true
	}
	x, err := strconv.ParseFloat(field, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, true, false
	}
	// ParseFloat accepts "NaN" and "Inf", which are no duration; a number out of float range
	// (ErrRange, ±Inf) falls through to the range checks below.
	if math.IsNaN(x) || math.IsInf(x, 0) && err == nil {
		return 0, true, false
	}
	ns := float64(x * float64(unit)) // explicit rounding: no fused multiply-add on any platform
	switch {
	case ns < 0:
		return -1, true, true
	case ns > maxNanos:
		return MaxDuration + 1, true, true
	}
	return fromNanos(ns), true, true
}

// unitOf returns the last word of a header field if it names a unit other than milliseconds.
func unitOf(header string) string {
	words := strings.FieldsFunc(strings.ToLower(header), func(r rune) bool { return !unicode.IsLetter(r) })
	if len(words) > 0 && otherUnits[words[len(words)-1]] {
		return words[len(words)-1]
	}
	return ""
}
