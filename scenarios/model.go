package scenarios

import (
	"fmt"
	"slices"

	"github.com/overloadsim/overloadsim/client"
	"github.com/overloadsim/overloadsim/client/workload"
	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/server"
	"github.com/overloadsim/overloadsim/server/failpoint"
	"github.com/overloadsim/overloadsim/sim"
)

// Node returns the topology's node called name, or nil.
func (s *Scenario) Node(name string) *Node {
	for i := range s.Topology.Nodes {
		if s.Topology.Nodes[i].Name == name {
			return &s.Topology.Nodes[i]
		}
	}
	return nil
}

// ClientWorkload is the group's workload in sc as client.NewGroup takes it, with the load faults
// of sc that change the group's rate laid into its profile.
func (g *Group) ClientWorkload(sc *Scenario) (client.Workload, error) {
	mix, err := workload.NewMix(mixWeights(g.Mix))
	if err != nil {
		return client.Workload{}, err
	}
	kinds := make([]client.OpKind, mix.Len())
	for i := range kinds {
		kinds[i], _ = client.ParseOpKind(mix.Kind(i))
	}
	backoff := g.AppRetry.Backoff
	w := client.Workload{
		Threads: g.Workload.Threads, Think: g.Workload.Think.D, Pace: g.Workload.Pace, Assign: g.Workload.Assign, Mix: mix, Kinds: kinds, Timeout: g.Timeout,
		Retry: client.AppRetry{Attempts: g.AppRetry.Attempts, PerAttemptTimeout: g.AppRetry.PerAttemptTimeout,
			Backoff: backoff, Base: g.AppRetry.Base, Cap: g.AppRetry.Cap},
		Stop: sim.Time(sc.Duration),
	}
	if r := g.Workload.Rate; r != nil {
		p, err := g.scaledRate(sc)
		if err != nil {
			return client.Workload{}, err
		}
		for i := range sc.Faults {
			f := &sc.Faults[i]
			if f.Kind != loadKind || f.Group != "" && f.Group != g.Name {
				continue
			}
			if p, err = workload.ScaleWindow(p, f.Factor, f.At, f.At+f.For); err != nil {
				return client.Workload{}, fmt.Errorf("faults[%d]: %w", i, err)
			}
		}
		if g.Workload.Arrivals == "fixed" {
			w.Arrivals = workload.Fixed(p)
		} else {
			w.Arrivals = workload.Poisson(p)
		}
	}
	return w, nil
}

// scaledRate is the group's open-loop rate profile with the scenario's load factor applied
// (workload.Scale); the profile itself at the default factor 1, so that an unscaled scenario
// runs exactly as written. The group must be an open loop.
func (g *Group) scaledRate(sc *Scenario) (workload.Profile, error) {
	p := g.Workload.Rate.p
	if sc.Load == 1 || p == nil {
		return p, nil
	}
	q, err := workload.Scale(p, float64(sc.Load))
	if err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	return q, nil
}

// ClosedLoopGroups returns the names of the closed-loop groups (threads), in order: the groups
// whose load the scenario's load factor leaves unchanged.
func (s *Scenario) ClosedLoopGroups() []string {
	var out []string
	for i := range s.Clients {
		if s.Clients[i].Workload.Rate == nil {
			out = append(out, s.Clients[i].Name)
		}
	}
	return out
}

// ServerFaults returns the faults as server.Cluster.Schedule takes them, in fault order: every
// fault but the load changes, which ClientWorkload lays into the groups' profiles.
func (s *Scenario) ServerFaults() []server.Fault {
	var out []server.Fault
	for i := range s.Faults {
		if s.Faults[i].Kind != loadKind {
			out = append(out, s.Faults[i].ServerFault())
		}
	}
	return out
}

// ServerFault is the fault as server.Cluster.Schedule takes it.
func (f *Fault) ServerFault() server.Fault {
	kind := f.Kind
	sf := server.Fault{At: f.At, Kind: kind, Node: f.Node, For: f.For, Workers: f.Workers, Speed: f.Speed,
		Delay: f.Delay, Successor: f.Successor}
	switch kind {
	case server.FaultFailPoint:
		sf.FailPoint = f.failPoint()
	case server.FaultRequestLimiter:
		sf.RequestLimiter = f.requestLimiter()
	case server.FaultConnLimiter:
		sf.ConnLimiter = f.connLimiter()
	}
	return sf
}

// FaultWindows returns the triggers results judges recovery after: each fault's window, in fault
// order, then each load change written into a group's rate. A fault undone after For lasts from
// At to At+For, and so do a rebalance, a pause and a load fault, which always end after For. One
// that is not undone is instantaneous (End = Start) when it is a one-off change — up, stepDown
// (an election follows), requestLimiter, connLimiter, or a failpoint that fires a fixed number of
// times — and lasts to the end of the run otherwise (down, capacity, networkDelay, or a failpoint
// left on). A spike in a group's rate is a trigger from its start for its duration; a step or a
// ramp is a lasting change, a trigger from its start to the end of the run. Groups with the same
// change make one trigger, named by the profile's kind ("spike", "step", "ramp"). Ends are capped
// at the run's duration.
func (s *Scenario) FaultWindows() []results.FaultWindow {
	out := make([]results.FaultWindow, len(s.Faults), len(s.Faults)+len(s.Clients))
	horizon := sim.Time(s.Duration)
	for i := range s.Faults {
		f := &s.Faults[i]
		start := sim.Time(f.At)
		end := start
		switch {
		case f.For > 0 && f.Kind != server.FaultUp && f.Kind != server.FaultStepDown && f.Kind != server.FaultRequestLimiter && f.Kind != server.FaultConnLimiter:
			end = start.Add(f.For)
		case f.Kind == server.FaultDown, f.Kind == server.FaultCapacity, f.Kind == server.FaultNetworkDelay:
			end = horizon
		case f.Kind == server.FaultFailPoint && f.Mode != nil && (f.Mode.Kind == failpoint.ModeAlwaysOn ||
			f.Mode.Kind == failpoint.ModeSkip || f.Mode.Kind == failpoint.ModeActivationProbability):
			end = horizon
		}
		out[i] = results.FaultWindow{Name: f.Name, Start: start, End: min(end, horizon)}
	}
	for i := range s.Clients {
		r := s.Clients[i].Workload.Rate
		if r == nil {
			continue
		}
		var w results.FaultWindow
		switch r.Kind {
		case "spike":
			w = results.FaultWindow{Name: r.Kind, Start: sim.Time(r.Start), End: sim.Time(r.Start + r.Duration)}
		case "step":
			w = results.FaultWindow{Name: r.Kind, Start: sim.Time(r.At), End: horizon}
		case "ramp":
			w = results.FaultWindow{Name: r.Kind, Start: sim.Time(r.Start), End: horizon}
		default:
			continue
		}
		if w.Start >= horizon {
			continue
		}
		w.End = min(w.End, horizon)
		if !slices.Contains(out[len(s.Faults):], w) {
			out = append(out, w)
		}
	}
	return out
}
