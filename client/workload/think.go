package workload

import (
	"math/rand/v2"
	"time"

	"github.com/overloadsim/overloadsim/dist"
	"github.com/overloadsim/overloadsim/sim"
)

// ThinkTime is the pause of a closed-loop thread: a thread issues an operation, waits for its
// final result (retries included), pauses for a think time, then issues the next one. The
// client package runs the threads; this type only draws the pauses.
//
// Closed loops and open loops answer different questions. A closed loop of N threads can never
// have more than N operations outstanding, so when the server slows down it slows its own
// offered load; an open loop (Poisson, Fixed) keeps issuing at its rate regardless, which is
// how independent users behave and how retry storms grow.
//
// The zero ThinkTime (no distribution) means no pause: the next operation is issued the instant
// the previous one completes. ThinkTime implements dist.Duration and handles that zero value in
// every method.
type ThinkTime struct{ dist.Duration }

var _ dist.Duration = ThinkTime{}

// Think returns the think time distributed as d. A nil d is the zero ThinkTime.
func Think(d dist.Duration) ThinkTime { return ThinkTime{d} }

// Next returns when a thread whose previous operation completed at done issues its next one:
// done plus a draw from r (done itself for the zero ThinkTime, without drawing).
func (t ThinkTime) Next(done sim.Time, r *rand.Rand) sim.Time { return done.Add(t.Sample(r)) }

// Sample draws one think time from r; the zero ThinkTime returns 0 without drawing.
func (t ThinkTime) Sample(r *rand.Rand) time.Duration {
	if t.Duration == nil {
		return 0
	}
	return t.Duration.Sample(r)
}

// Mean returns the mean think time; 0 for the zero ThinkTime.
func (t ThinkTime) Mean() time.Duration {
	if t.Duration == nil {
		return 0
	}
	return t.Duration.Mean()
}

// SecondMoment returns E[think²] in seconds²; 0 for the zero ThinkTime.
func (t ThinkTime) SecondMoment() float64 {
	if t.Duration == nil {
		return 0
	}
	return t.Duration.SecondMoment()
}

// String returns think(d), with d the canonical text of the distribution; think(0s) for the
// zero ThinkTime.
func (t ThinkTime) String() string {
	if t.Duration == nil {
		return "think(0s)"
	}
	return "think(" + t.Duration.String() + ")"
}
