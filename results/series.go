package results

import (
	"math"
	"time"

	"github.com/overloadsim/overloadsim/sim"
)

// FaultWindow is a trigger: a fault active from Start to End (End = Start for an instantaneous
// fault such as a stepdown).
type FaultWindow struct {
	Name       string
	Start, End sim.Time
}

// Series is a run's time series. Groups and Servers are in (End, Name) order; every interval
// but possibly the last is Interval long. Faults are in (Start, Name) order.
type Series struct {
	Interval time.Duration
	Groups   []GroupInterval
	Servers  []ServerInterval
	// Shards holds each mongos's per-shard statistics, in (End, mongos, shard order) order;
	// empty without mongos nodes.
	Shards []ShardInterval
	Faults []FaultWindow
	// ErrClasses names the indices of the groups' FailedByClass, RetryReasons those of their
	// RetriedByReason and NotRetriedByReason: the model's names, carried with its records.
	ErrClasses, RetryReasons []string
	// Recovery is the rule Recoveries judges the triggers by (zero: the defaults).
	Recovery RecoveryRule
}

// End returns the end of the last interval (0 for an empty series).
func (s *Series) End() sim.Time {
	var end sim.Time
	if n := len(s.Groups); n > 0 {
		end = s.Groups[n-1].End
	}
	if n := len(s.Servers); n > 0 {
		end = max(end, s.Servers[n-1].End)
	}
	return end
}

// Names are the names a model gives to the indices of the records' count slices.
type Names struct {
	// ErrClasses name GroupInterval.FailedByClass's indices, in order.
	ErrClasses []string
	// RetryReasons name GroupInterval.RetriedByReason's and NotRetriedByReason's indices.
	RetryReasons []string
}

// rate returns n per second over secs seconds.
func rate(n uint64, secs float64) float64 {
	if secs <= 0 {
		return math.NaN()
	}
	return float64(n) / secs
}

// ratio returns a ÷ b, NaN when b is 0.
func ratio(a, b uint64) float64 {
	if b == 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}

// fratio returns a ÷ b, NaN when b is not positive.
func fratio(a, b float64) float64 {
	if !(b > 0) {
		return math.NaN()
	}
	return a / b
}
