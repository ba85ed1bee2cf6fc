package workload

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/overloadsim/overloadsim/dist"
	"github.com/overloadsim/overloadsim/field"
)

// Trace returns the profile of a recorded trace: each point's rate holds until the next point
// (a step function, not an interpolation), the first rate also applies before the first point,
// and the last rate holds for the rest of the run:
//
//	rate(t) = R₀   for t < T₁
//	          Rᵢ   for Tᵢ ≤ t < Tᵢ₊₁
//	          Rₙ   for t ≥ Tₙ
//
// A step function is what a trace of per-interval counts means: "R ops/s from T until the next
// sample", so the operations a trace records in each interval are exactly the operations the
// profile expects there. (Use Piecewise to interpolate.) The rules for points are those of
// Piecewise; Trace keeps its own copy, and its String lists every point.
func Trace(points []Point) (Profile, error) {
	return buildPoints("trace", points, "", false)
}

// TraceFile is Trace for points read from the file name: its String is trace(name), so that a
// run header names the file rather than repeating its contents. name must not be empty.
func TraceFile(name string, points []Point) (Profile, error) {
	if name == "" {
		c := checker{family: "trace"}
		c.fail("file", `""`, "must not be empty")
		return nil, c.err()
	}
	return buildPoints("trace", points, name, false)
}

// otherTimeUnits are header words naming a time unit other than seconds. A header such as
// "time_ms" above bare numbers would otherwise be read 1000 times too large.
var otherTimeUnits = map[string]bool{
	"ns": true, "nanos": true, "nanoseconds": true,
	"us": true, "µs": true, "micros": true, "microseconds": true,
	"ms": true, "millis": true, "milliseconds": true,
	"m": true, "min": true, "mins": true, "minutes": true,
	"h": true, "hr": true, "hrs": true, "hours": true,
}

// ReadTraceCSV reads the points of a trace from r, one "time, rate" record per line, for Trace
// or TraceFile.
//
//   - time is a Go duration with its unit (1.5s, 250ms, 1m30s) or a bare decimal number, read
//     as seconds; one file may mix both. Times must be in [0, MaxTime] and strictly
//     increasing.
//   - rate is a decimal number of operations per second, optionally followed by /s, in
//     [0, MaxOpsRate].
//   - If the first record's time is neither a duration nor a number, that record is a header
//     and is skipped (so "time,rate" or "t_s,ops_per_s" above the data reads as is). Bare
//     numbers under a header whose first column names a unit other than seconds ("time_ms")
//     are an error rather than a silent factor of 1000.
//   - Blank lines and lines starting with # are skipped; columns after the second are
//     ignored; a leading byte-order mark is dropped.
//
// A reader with no points is an error. Errors are a *field.Error after "workload: trace csv: "
// naming the line and column ("line 3 time"), the text and the rule, and match ErrSyntax
// (unreadable text) or ErrInvalid (a value that breaks a rule).
func ReadTraceCSV(r io.Reader) ([]Point, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.Comment = '#'
	cr.TrimLeadingSpace = true
	cr.ReuseRecord = true
	var (
		points     []Point
		headerUnit string // a non-second unit named by the header, if any
		first      = true
		prevLine   int
	)
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			fe := &field.Error{Value: "(unreadable)", Rule: err.Error(), Err: errors.Join(ErrSyntax, err)}
			if pe := (*csv.ParseError)(nil); errors.As(err, &pe) {
				fe.Field, fe.Value, fe.Rule = fmt.Sprintf("line %d column %d", pe.Line, pe.Column), "", pe.Err.Error()
			}
			return nil, csvError(fe)
		}
		line, _ := cr.FieldPos(0)
		timeText := strings.TrimSpace(rec[0])
		if first {
			timeText = strings.TrimPrefix(timeText, "\ufeff") // spreadsheets often start with a BOM
		}
		t, bare, ok := dist.ParseDurationField(timeText, time.Second)
		if first && !ok && timeText != "" {
			headerUnit = timeUnitOf(timeText)
			first = false
			continue
		}
		first = false
		// Fields are named by line and column: "line 3 time".
		lineNo := fmt.Sprintf("line %d", line)
		fail := func(kind error, name, value, rule string) error {
			return csvError(&field.Error{Field: name, Value: value, Rule: rule, Err: kind})
		}
		timeField, timeValue := lineNo+" time", strconv.Quote(timeText)
		switch {
		case len(rec) < 2:
			return nil, fail(ErrSyntax, lineNo, fmt.Sprintf("%d field", len(rec)), "must have 2 fields (time, rate)")
		case !ok:
			return nil, fail(ErrSyntax, timeField, timeValue, "must be a duration such as 1.5s or a number of seconds")
		case bare && headerUnit != "":
			return nil, fail(ErrSyntax, timeField, timeValue, fmt.Sprintf(
				"bare numbers are seconds but the header names unit %q; write durations with units instead (e.g. 250ms)", headerUnit))
		case t < 0:
			return nil, fail(ErrInvalid, timeField, timeValue, "must be ≥ 0")
		case t > MaxTime:
			return nil, fail(ErrInvalid, timeField, timeValue, fmt.Sprintf("must be ≤ %v (MaxTime)", MaxTime))
		case len(points) > 0 && t <= points[len(points)-1].T:
			return nil, fail(ErrInvalid, timeField, timeValue, fmt.Sprintf("must be > %v (line %d)", points[len(points)-1].T, prevLine))
		}
		text := strings.TrimSpace(rec[1])
		rate, err := strconv.ParseFloat(strings.TrimSuffix(text, "/s"), 64)
		switch {
		case err != nil && !errors.Is(err, strconv.ErrRange):
			return nil, fail(ErrSyntax, lineNo+" rate", strconv.Quote(text), "must be a number of operations per second")
		case !validRate(rate):
			return nil, fail(ErrInvalid, lineNo+" rate", strconv.Quote(text), rateRule)
		}
		points = append(points, Point{T: t, Rate: rate})
		prevLine = line
	}
	if len(points) == 0 {
		return nil, csvError(&field.Error{Value: "no points", Rule: "must hold at least one time, rate record", Err: ErrInvalid})
	}
	return points, nil
}

// csvError gives a trace file's field error its context.
func csvError(fe *field.Error) error { return fmt.Errorf("workload: trace csv: %w", fe) }

// timeUnitOf returns the last word of a header field if it names a time unit other than
// seconds.
func timeUnitOf(header string) string {
	words := strings.FieldsFunc(strings.ToLower(header), func(r rune) bool { return !unicode.IsLetter(r) })
	if len(words) > 0 && otherTimeUnits[words[len(words)-1]] {
		return words[len(words)-1]
	}
	return ""
}
