package sim

import (
	"math"
	"time"
)

// Time is a point in virtual time: nanoseconds since the start of the run.
// It has the same unit as time.Duration, so t.Add(d) and t.Sub(u) need no conversion.
type Time int64

// Never is a time later than any event a run can schedule; use it as an open horizon.
const Never Time = math.MaxInt64

// Add returns t+d. It saturates at Never instead of wrapping around.
func (t Time) Add(d time.Duration) Time {
	s := t + Time(d)
	if d > 0 && s < t {
		return Never
	}
	return s
}

// Sub returns the duration t−u.
func (t Time) Sub(u Time) time.Duration { return time.Duration(t - u) }

// Seconds returns t in seconds since the start of the run.
func (t Time) Seconds() float64 { return float64(t) / 1e9 }

// String formats t as a duration since the start of the run, e.g. "1.5s".
func (t Time) String() string {
	if t == Never {
		return "never"
	}
	return time.Duration(t).String()
}

// FromSeconds converts seconds to Time, rounding to the nearest nanosecond.
func FromSeconds(s float64) Time { return Time(math.Round(s * 1e9)) }
