package workload

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"
)

// Sentinel errors. Every error from a constructor or from ReadTraceCSV matches one of them under
// errors.Is.
var (
	// ErrInvalid: a parameter is well-formed but breaks a rule (a negative rate, an amplitude
	// above the mean, times out of order, no points).
	ErrInvalid = errors.New("workload: invalid parameter")
	// ErrSyntax: a trace file holds text that is not a time or a rate.
	ErrSyntax = errors.New("workload: syntax error")
)

// workloadError is the error type of this package: a complete message and the sentinel it
// matches.
type workloadError struct {
	msg  string
	kind error
}

func (e *workloadError) Error() string { return e.msg }

// Is reports whether target is the sentinel this error belongs to.
func (e *workloadError) Is(target error) bool { return target == e.kind }

// checker collects every violation found while building one value, each prefixed with the
// family name, so that a caller sees all problems at once.
type checker struct {
	family string
	errs   []error
}

func (c *checker) fail(format string, args ...any) {
	c.errs = append(c.errs, &workloadError{
		msg:  "workload: " + c.family + ": " + fmt.Sprintf(format, args...),
		kind: ErrInvalid,
	})
}

// err returns nil, the single violation, or all of them joined (one per line).
func (c *checker) err() error {
	switch len(c.errs) {
	case 0:
		return nil
	case 1:
		return c.errs[0]
	}
	return errors.Join(c.errs...)
}

// rate checks an ops/s parameter: finite and in [0, MaxOpsRate]. It reports whether v is valid.
func (c *checker) rate(param string, v float64) bool {
	if !validRate(v) {
		c.fail("%s %s: %s", param, formatFloat(v), rateRule)
		return false
	}
	return true
}

// instant checks a time parameter: in [0, MaxTime].
func (c *checker) instant(param string, d time.Duration) bool {
	switch {
	case d < 0:
		c.fail("%s %v: must be >= 0", param, d)
		return false
	case d > MaxTime:
		c.fail("%s %v: must be <= %v (MaxTime)", param, d, MaxTime)
		return false
	}
	return true
}

// rateRule is the rule every rate obeys, as error messages state it.
var rateRule = "must be a finite number in [0, " + formatFloat(MaxOpsRate) + "]"

func validRate(v float64) bool { return v >= 0 && v <= MaxOpsRate } // false for NaN

func formatFloat(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// formatRate is the canonical text of a rate: the shortest float that reads back exactly, with
// its unit.
func formatRate(x float64) string { return formatFloat(x) + "/s" }

// isFinite reports whether x is neither NaN nor ±Inf.
func isFinite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
