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

	"overloadsim/dist"
)

// Trace returns the profile of a recorded trace: each point's rate holds until the next point
// (a step function, not an interpolation), the first rate also applies before the first point,
// and the last rate holds for the rest of the run:
//
//	rate(t) = R₀   for t < T₁
//	          Rᵢ   for Tᵢ <= t < Tᵢ₊₁
//	          Rₙ   for t >= Tₙ
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
		c.fail("file name: must not be empty")
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
// A reader with no points is an error. Errors name the line, the text and the rule, and match
// ErrSyntax (unreadable text) or ErrInvalid (a value that breaks a rule).
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
			return nil, &workloadError{msg: "workload: trace csv: " + err.Error(), kind: ErrSyntax}
		}
		line, _ := cr.FieldPos(0)
		field := strings.TrimSpace(rec[0])
		if first {
			field = strings.TrimPrefix(field, "\ufeff") // spreadsheets often start with a BOM
		}
		t, bare, ok := dist.ParseDurationField(field, time.Second)
		if first && !ok && field != "" {
			headerUnit = timeUnitOf(field)
			first = false
			continue
		}
		first = false
		fail := func(kind error, format string, args ...any) error {
			return &workloadError{msg: fmt.Sprintf("workload: trace csv line %d: ", line) + fmt.Sprintf(format, args...), kind: kind}
		}
		switch {
		case len(rec) < 2:
			return nil, fail(ErrSyntax, "want 2 fields (time, rate), got %d", len(rec))
		case !ok:
			return nil, fail(ErrSyntax, "time %q: want a duration such as 1.5s or a number of seconds", field)
		case bare && headerUnit != "":
			return nil, fail(ErrSyntax, "time %q: bare numbers are seconds but the header names unit %q; write durations with units instead (e.g. 250ms)", field, headerUnit)
		case t < 0:
			return nil, fail(ErrInvalid, "time %q: must be >= 0", field)
		case t > MaxTime:
			return nil, fail(ErrInvalid, "time %q: must be <= %v (MaxTime)", field, MaxTime)
		case len(points) > 0 && t <= points[len(points)-1].T:
			return nil, fail(ErrInvalid, "time %q (%v): must be > %v on line %d", field, t, points[len(points)-1].T, prevLine)
		}
		text := strings.TrimSpace(rec[1])
		rate, err := strconv.ParseFloat(strings.TrimSuffix(text, "/s"), 64)
		switch {
		case err != nil && !errors.Is(err, strconv.ErrRange):
			return nil, fail(ErrSyntax, "rate %q: want a number of operations per second", text)
		case !validRate(rate):
			return nil, fail(ErrInvalid, "rate %q: %s", text, rateRule)
		}
		points = append(points, Point{T: t, Rate: rate})
		prevLine = line
	}
	if len(points) == 0 {
		return nil, &workloadError{msg: "workload: trace csv: no points", kind: ErrInvalid}
	}
	return points, nil
}

// timeUnitOf returns the last word of a header field if it names a time unit other than
// seconds.
func timeUnitOf(header string) string {
	words := strings.FieldsFunc(strings.ToLower(header), func(r rune) bool { return !unicode.IsLetter(r) })
	if len(words) > 0 && otherTimeUnits[words[len(words)-1]] {
		return words[len(words)-1]
	}
	return ""
}
