// Package rtt is the average round-trip time a server monitor keeps, as the Server Selection
// specification defines it ("Calculation of Average Round Trip Times"). A driver's SDAM monitor
// (client/selection) and a mongos's replica set monitor (server/mongos) both use it.
package rtt

import "time"

// Average is a server's average round-trip time: an exponentially weighted moving average with
// weight α = 0.2 on the newest sample. The zero value holds no average.
//
//	first sample x₁:  avg = x₁
//	later sample x:   avg = 0.2·x + 0.8·avg  =  avg + (x − avg)/5
//
// The average is kept in integer nanoseconds; each step rounds (x − avg)/5 to the nearest
// integer (a fifth never ends in .5, so there are no ties). The rounding error of one step is
// at most 0.4 ns and older errors decay by 0.8 a step, so the average stays within 2 ns of
// the real-valued one.
type Average struct {
	avg time.Duration
	ok  bool
}

const panicNegativeRTT = "rtt: negative RTT sample"

// Add folds in one round-trip time measured by a monitoring hello. It panics if sample < 0.
func (a *Average) Add(sample time.Duration) {
	if sample < 0 {
		panic(panicNegativeRTT)
	}
	if !a.ok {
		a.avg, a.ok = sample, true
		return
	}
	d := sample - a.avg // both ≥ 0: no overflow
	q, r := d/5, d%5    // Go truncates toward zero; r has the sign of d
	switch {
	case r >= 3:
		q++
	case r <= -3:
		q--
	}
	a.avg += q
}

// Value returns the average, and false if there is none (no sample since the last Reset).
func (a *Average) Value() (time.Duration, bool) { return a.avg, a.ok }

// Reset clears the average, as when the server becomes unavailable; the next sample is taken
// as is.
func (a *Average) Reset() { *a = Average{} }
