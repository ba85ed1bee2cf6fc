package results

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// ValueKind is how a parameter value, given as text on the command line or in a result file,
// reads as a number.
type ValueKind int

// The kinds of parameter value.
const (
	ValueText     ValueKind = iota // not a number (a policy name, a driver block)
	ValueNumber                    // a plain number: "0.4"
	ValueRate                      // operations per second: "2000/s"
	ValueDuration                  // a Go duration: "250ms", "5s"
)

// ParseValue reads a parameter value as a number of its kind: a rate "N/s" in operations per
// second, a Go duration in seconds, a plain number as it is. Anything else is (0, ValueText,
// false).
func ParseValue(s string) (float64, ValueKind, bool) {
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		return v, ValueNumber, true
	}
	if n, ok := strings.CutSuffix(s, "/s"); ok {
		if v, err := strconv.ParseFloat(n, 64); err == nil {
			return v, ValueRate, true
		}
	}
	if d, err := time.ParseDuration(s); err == nil {
		return d.Seconds(), ValueDuration, true
	}
	return 0, ValueText, false
}

// ParseValues reads a parameter's values with ParseValue when all are numbers of one kind, and
// returns them in the unit that reads best (ValueUnit) with that unit's name. Otherwise, or for
// no values, ok is false.
func ParseValues(values []string) (nums []float64, kind ValueKind, unit string, ok bool) {
	if len(values) == 0 {
		return nil, ValueText, "", false
	}
	nums = make([]float64, len(values))
	for i, v := range values {
		x, k, good := ParseValue(v)
		if !good || i > 0 && k != kind {
			return nil, ValueText, "", false
		}
		kind, nums[i] = k, x
	}
	unit, scale := ValueUnit(kind, nums)
	for i := range nums {
		nums[i] *= scale
	}
	return nums, kind, unit, true
}

// ValueUnit returns the unit values of kind read best in, given the values as ParseValue returns
// them, and the factor that converts them to it: "/s" for rates; "s", "ms" or "µs" for
// durations, by the largest value (so that 250ms and 500ms are 250 and 500 ms, not 0.25 s);
// none for plain numbers.
func ValueUnit(kind ValueKind, nums []float64) (unit string, scale float64) {
	switch kind {
	case ValueRate:
		return "/s", 1
	case ValueDuration:
		hi := 0.0
		if len(nums) > 0 {
			hi = slices.Max(nums)
		}
		switch {
		case hi > 0 && hi < 1e-3:
			return "µs", 1e6
		case hi > 0 && hi < 1:
			return "ms", 1e3
		}
		return "s", 1
	}
	return "", 1
}

// FormatValue writes x, a value in unit (as ParseValues returns them), with three significant
// figures at most and no trailing zeros: "9.5 s", "2000/s", "0.55".
func FormatValue(x float64, unit string) string {
	s := formatSig3(x)
	switch unit {
	case "":
		return s
	case "/s":
		return s + "/s"
	}
	return s + " " + unit
}

// formatSig3 writes x with at most three significant figures after the decimal point (whole
// numbers keep all their digits: 2000, not 2.00e+03), trailing zeros dropped.
func formatSig3(x float64) string {
	ax := x
	if ax < 0 {
		ax = -ax
	}
	dec := 0
	switch {
	case ax == 0 || ax >= 100:
	case ax >= 10:
		dec = 1
	case ax >= 1:
		dec = 2
	default:
		// 0.0123 → 0.0123: three figures after the leading zeros.
		for t := ax; t < 1 && dec < 12; t *= 10 {
			dec++
		}
		dec += 2
	}
	s := strconv.FormatFloat(x, 'f', dec, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}
