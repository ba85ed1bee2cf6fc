package client

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/client/workload"
	"github.com/overloadsim/overloadsim/dist"
	"github.com/overloadsim/overloadsim/server"
	"github.com/overloadsim/overloadsim/sim"
)

// TestPacedClosedLoop: a paced thread starts its next operation at max(previous start + pace,
// previous end + think). With a response time R (service + RTT) and N threads it completes
// N / max(pace, R + think) operations per second: N/pace while replies come back within the
// pace (a load generator's fixed rate), and a plain closed loop's N/(R + think) when they do
// not (the response time law, Denning & Buzen 1978).
func TestPacedClosedLoop(t *testing.T) {
	mix, kinds := finds()
	const n = 10 // 2 clients × 5 threads
	for _, c := range []struct {
		gloss       string
		pace, think time.Duration
		cycle       float64 // seconds
	}{
		{"replies within the pace: one per pace", 20 * time.Millisecond, 0, 20e-3},
		{"replies slower than the pace: a plain closed loop", 3 * time.Millisecond, 0, 5e-3},
		{"think time longer than the pace: end + think", 20 * time.Millisecond, 30 * time.Millisecond, 35e-3},
		{"no pacing", 0, 5 * time.Millisecond, 10e-3},
	} {
		wl := Workload{ClientStats: true, Threads: 5, Pace: c.pace, Mix: mix, Kinds: kinds, Stop: sim.Time(10 * time.Second)}
		if c.think > 0 {
			wl.Think = dist.Const(c.think)
		}
		w := newWorld(t, server.Config{Address: "db", Workers: 64, Service: dist.Const(4 * time.Millisecond),
			RejectCost: server.DefaultRejectCost, HandshakeCost: server.DefaultHandshakeCost},
			DefaultOptions(), 2, wl, 500*time.Microsecond)
		w.loop.RunUntil(sim.Time(11 * time.Second))
		got := float64(w.group.Stats().Succeeded) / 10
		if want := n / c.cycle; math.Abs(got-want) > 0.01*want {
			t.Errorf("%s: throughput %.1f/s, want %.1f/s", c.gloss, got, want)
		}
	}
}

// TestPaceValidation: pacing is for closed loops, and not negative.
func TestPaceValidation(t *testing.T) {
	mix, kinds := finds()
	p, _ := workload.Constant(100)
	for _, w := range []Workload{
		{Threads: 1, Pace: -time.Millisecond, Mix: mix, Kinds: kinds},
		{Arrivals: workload.Poisson(p), Pace: time.Millisecond, Mix: mix, Kinds: kinds},
	} {
		if err := w.Validate(); err == nil || !strings.Contains(err.Error(), "pace") {
			t.Errorf("Validate(pace %s, threads %d) = %v, want an error on pace", w.Pace, w.Threads, err)
		}
	}
}
