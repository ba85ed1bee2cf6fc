package workload

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/overloadsim/overloadsim/field"
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

// checker collects every violation found while building one value, each a *field.Error that
// matches ErrInvalid, after "workload: <family>: ", so that a caller sees all problems at once.
type checker struct {
	family string
	errs   []error
}

// fail records that the parameter name, holding value (printed with %v), breaks rule.
func (c *checker) fail(name string, value any, rule string) {
	fe := field.New(name, value, rule)
	fe.Err = ErrInvalid
	c.errs = append(c.errs, fmt.Errorf("workload: %s: %w", c.family, fe))
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
		c.fail(param, formatFloat(v), rateRule)
		return false
	}
	return true
}

// instant checks a time parameter: in [0, MaxTime].
func (c *checker) instant(param string, d time.Duration) bool {
	switch {
	case d < 0:
		c.fail(param, d, "must be ≥ 0")
		return false
	case d > MaxTime:
		c.fail(param, d, fmt.Sprintf("must be ≤ %v (MaxTime)", MaxTime))
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
