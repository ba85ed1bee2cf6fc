package results

import (
	"math"
	"slices"
	"time"

	"github.com/overloadsim/overloadsim/sim"
)

// Phase is a stretch of a run's measured window cut at its triggers' starts and ends: before
// the first, during each, and after each until the next. A summary of the whole run averages a
// 10 s surge into a minute; its phases show the surge apart (Phases).
type Phase struct {
	// Name is "before NAME", "during NAME" or "after NAME", NAME the trigger it follows or
	// precedes.
	Name  string   `json:"name"`
	Start sim.Time `json:"start"`
	End   sim.Time `json:"end"`
	// Offered, Goodput and FailureRate are all groups' operations per second over the phase;
	// FailureShare is failures ÷ operations issued (NaN when none was); Amplification attempts
	// ÷ operations issued; P99 the p99 latency of successes, seconds (NaN without one).
	Offered       float64 `json:"offered"`
	Goodput       float64 `json:"goodput"`
	FailureRate   float64 `json:"failureRate"`
	FailureShare  float64 `json:"failureShare"`
	Amplification float64 `json:"amplification"`
	P99           float64 `json:"p99"`
}

// Phases cuts the measured window of s (from warmup to its end) at each trigger's start and end,
// instants included, and summarises every stretch at least one interval long: nil for a run
// without triggers. The cuts fall on whole intervals, as the intervals are the finest the series
// holds: a trigger's start or end inside an interval moves to that interval's end.
func Phases(s *Series, warmup time.Duration) []Phase {
	if len(s.Faults) == 0 || len(s.Groups) == 0 {
		return nil
	}
	end := s.End()
	from := sim.Time(warmup)
	cuts := []sim.Time{from, end}
	for _, f := range s.Faults {
		for _, t := range []sim.Time{f.Start, f.End} {
			if t > from && t < end {
				cuts = append(cuts, s.intervalEnd(t))
			}
		}
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	var out []Phase
	for i := 0; i+1 < len(cuts); i++ {
		a, b := cuts[i], cuts[i+1]
		w := windowSummary(s, time.Duration(a), time.Duration(b))
		if w.Measured <= 0 {
			continue
		}
		t := w.Total
		p := Phase{Name: phaseName(s.Faults, a), Start: a, End: b, Offered: t.Offered, Goodput: t.Goodput,
			FailureRate: t.FailureRate, FailureShare: math.NaN(), Amplification: t.Amplification, P99: t.Success.P99}
		if t.Issued > 0 {
			p.FailureShare = float64(t.Failed) / float64(t.Issued)
		}
		out = append(out, p)
	}
	return out
}

// intervalEnd returns the end of the interval of s that holds t: t itself when an interval ends
// there.
func (s *Series) intervalEnd(t sim.Time) sim.Time {
	for _, g := range s.Groups {
		if g.End >= t {
			return g.End
		}
	}
	return s.End()
}

// phaseName names the stretch that starts at t: during the last trigger started at or before t
// that has not ended by then, else after the last that ended, else before the first.
func phaseName(faults []FaultWindow, t sim.Time) string {
	name := ""
	for _, f := range faults {
		switch {
		case f.Start <= t && t < f.End:
			return "during " + f.Name
		case f.End <= t:
			name = "after " + f.Name
		}
	}
	if name == "" {
		name = "before " + faults[0].Name
	}
	return name
}
