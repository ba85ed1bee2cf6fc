package scenarios

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/overloadsim/overloadsim/client/workload"
	"github.com/overloadsim/overloadsim/results/sweep"
	"github.com/overloadsim/overloadsim/wire"
)

// OfferedOperations returns the operations the application groups are expected to issue over
// the whole run: each open-loop group's rate integrated over the duration; each closed-loop
// client thread one operation per think time plus a millisecond of service (an upper bound for
// service times of a millisecond or more), or per pace when the thread is paced and the pace is
// the longer (a paced thread starts no sooner than one pace after its previous start).
// An open-loop group's rate is its profile times the scenario's load factor (Scenario.Load).
//
// The millisecond is the cycle of a thread whose operations reach a server. One whose
// operations fail in the client at once (an sre-throttle client's local rejection; a
// couchbase-failfast client's open circuit breaker, or NODE_NOT_AVAILABLE while it knows no
// node), with a think time under client.MinThreadCycle, goes round every MinThreadCycle: a
// hundred times as many operations. That is left out on purpose, as retry storms are left out
// of the events an operation costs (bench.EventsPerOperation): whether and for how long
// operations fail in the client follows from the run, not from the configuration, and counting
// every thread that could at MinThreadCycle would estimate a hundred times the work of runs
// whose threads wait on their servers, and refuse them up front. Such a run is held at run time
// instead: MinThreadCycle ends it, and a command's --max-time and --max-memory stop it where it
// stands (bench.RunOptions.Stop; bench TestCostLocalFailures).
func (s *Scenario) OfferedOperations() float64 { return s.offered(false) }

// OfferedUnderLoadFaults is OfferedOperations with each load fault's factor applied to its
// group's rate for the fault's duration, as ClientWorkload lays it into the group's profile: a
// surge of ×1 000 for a minute offers a thousand times that minute's operations.
func (s *Scenario) OfferedUnderLoadFaults() float64 { return s.offered(true) }

// offered is OfferedOperations, with the load faults (a group's rate multiplied by Factor for
// For, as ClientWorkload lays them into the group's profile) when faults is set.
func (s *Scenario) offered(faults bool) float64 {
	var ops float64
	for i := range s.Clients {
		g := &s.Clients[i]
		switch {
		case g.Workload.Rate != nil && g.Workload.Rate.p != nil:
			p, err := g.scaledRate(s)
			if err != nil {
				p = g.Workload.Rate.p // a factor Validate refuses; the estimate stays finite
			}
			for j := range s.Faults {
				f := &s.Faults[j]
				if !faults || f.Kind != loadKind || f.Group != "" && f.Group != g.Name {
					continue
				}
				if q, err := workload.ScaleWindow(p, f.Factor, f.At, f.At+f.For); err == nil {
					p = q
				}
			}
			ops += p.Integral(0, s.Duration)
		case g.Workload.Threads > 0:
			cycle := time.Millisecond
			if g.Workload.Think.D != nil {
				cycle += g.Workload.Think.D.Mean()
			}
			cycle = max(cycle, g.Workload.Pace)
			ops += float64(g.Count*g.Workload.Threads) * s.Duration.Seconds() / cycle.Seconds()
		}
	}
	return ops
}

// LoadContext returns what a load sweep of s is judged against (sweep.LoadContext): the load
// s offers as configured (at its own load factor: a sweep of load is judged against the
// scenario as written), and its configured ceiling. The ceiling counts the nodes that take the
// clients' commands: every standalone, and the primary of a replica set or of each shard; each
// gives the lesser of its ingress request limiter's rate (when enabled) and its workers ÷ mean
// service time. Secondaries, which serve only reads that ask for them, and mongos routers,
// which pass commands on, are left out; a scenario whose clients read from secondaries may serve
// more than the ceiling. slo is the latency objective (0: none).
func (s *Scenario) LoadContext(slo time.Duration) sweep.LoadContext {
	ctx := sweep.LoadContext{SLO: slo.Seconds()}
	if s.Duration > 0 {
		ctx.Today = s.OfferedOperations() / s.Duration.Seconds()
	}
	var parts []string
	for i := range s.Topology.Nodes {
		n := &s.Topology.Nodes[i]
		if n.Role != wire.Standalone && n.Role != wire.Primary {
			continue
		}
		rate, why := math.Inf(1), ""
		if n.Service.D != nil && n.Service.D.Mean() > 0 {
			rate = float64(n.Workers) / n.Service.D.Mean().Seconds()
			why = fmt.Sprintf("%d workers at %s mean service on %s", n.Workers, n.Service.D.Mean(), n.Name)
		}
		if n.RequestLimiter.Enabled && n.RequestLimiter.RatePerSec < rate {
			rate = n.RequestLimiter.RatePerSec
			why = fmt.Sprintf("ingress request limiter %s/s on %s", strconv.FormatFloat(rate, 'f', -1, 64), n.Name)
		}
		if math.IsInf(rate, 1) {
			return sweep.LoadContext{Today: ctx.Today, SLO: ctx.SLO} // unknown: no ceiling at all
		}
		ctx.Ceiling += rate
		parts = append(parts, why)
	}
	switch {
	case len(parts) == 1:
		ctx.CeilingSource = parts[0]
	case len(parts) > 1:
		ctx.CeilingSource = fmt.Sprintf("the sum over %d nodes: %s", len(parts), strings.Join(parts, "; "))
	}
	return ctx
}

// SweepLoadContext is LoadContext for a sweep of s over points: when a point's ceiling differs
// from the scenario's (the sweep varies a limiter's rate, say), every point's is recorded.
func (s *Scenario) SweepLoadContext(points []SweepPoint, slo time.Duration) sweep.LoadContext {
	ctx := s.LoadContext(slo)
	var ceilings []sweep.PointCeiling
	varies := false
	for _, p := range points {
		c := p.Scenario.LoadContext(slo).Ceiling
		ceilings = append(ceilings, sweep.PointCeiling{Point: (&sweep.PointStats{Params: p.Params}).Key(), Ceiling: c})
		varies = varies || c != ctx.Ceiling
	}
	if varies {
		ctx.Ceilings = ceilings
	}
	return ctx
}
