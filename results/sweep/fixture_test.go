package sweep

import (
	"math"
	"time"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/sim"
)

// goodputSeries is a run of one group, "app", whose goodput in second i is goodput[i], with the
// given fault windows.
func goodputSeries(goodput []uint64, faults ...results.FaultWindow) *results.Series {
	s := &results.Series{Interval: time.Second, Faults: faults}
	for i, g := range goodput {
		start := sim.Time(time.Duration(i) * time.Second)
		s.Groups = append(s.Groups, results.GroupInterval{Start: start, End: start.Add(time.Second), Name: "app",
			Issued: g, Succeeded: g, Attempts: g, TokensMin: math.NaN()})
	}
	return s
}

// repeat returns n copies of v.
func repeat(v uint64, n int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func f64(x float64) *float64 { return &x }

// noStuck is the StuckState of a run that is not stuck.
func noStuck() results.StuckState {
	n := math.NaN()
	return results.StuckState{GoodputShare: n, Amplification: n, Backlog: n, WastedShare: n, RejectShare: n, RetryTokens: n}
}

// fixtureHeader is the header of a hand-built sweep.
func fixtureHeader() results.Header {
	return results.Header{Tool: "overloadsim", Version: "v0.0.0-test", Scenario: "golden", Seed: 7,
		Canonical: "name: golden\nseed: 7\nduration: 20s\n", Duration: 20 * time.Second, Interval: time.Second}
}

// fixturePoints is a sweep of two points, three replications each, their goodput scaled per
// point and replication.
func fixturePoints() []PointResult {
	var points []PointResult
	for p, limit := range []string{"300/s", "600/s"} {
		pt := PointResult{Params: []results.Param{{Path: "topology.nodes[0].requestLimiter.rate", Value: limit}, {Path: "clients[0].policy", Value: "mongodb-2026-03"}}}
		for rep := range 3 {
			pt.Replications = append(pt.Replications, results.Summarize(goodputSeries(repeat(uint64(100+p*50+rep*7), 20)), 0))
		}
		points = append(points, pt)
	}
	return points
}
