package scenarios

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/overloadsim/overloadsim/client"
	"github.com/overloadsim/overloadsim/client/workload"
	"github.com/overloadsim/overloadsim/record"
	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/server"
	"github.com/overloadsim/overloadsim/server/failpoint"
	"github.com/overloadsim/overloadsim/server/mongos"
	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
)

// World is a scenario wired onto one loop: the servers, the clients, the application groups
// and the faults, recorded by a record.Recorder.
type World struct {
	Scenario *Scenario       // what was built
	Seed     uint64          // the run seed every stream derives from
	Loop     *sim.Loop       // the loop everything is scheduled on
	Cluster  *server.Cluster // the nodes and their faults
	// Clients holds each group's MongoClients, in group order.
	Clients [][]*client.Client
	// Groups are the application groups, in scenario order.
	Groups []*client.Group
	// Routers are the mongos nodes' routers, in node order (sharded topologies only).
	Routers []RouterNode
	// Recorder is the recorder Build was given (nil if none).
	Recorder *record.Recorder
}

// Streams returns the names of the random streams the world's loop has handed out, in the
// order they were made: every stream the world draws from.
func (w *World) Streams() []string {
	var out []string
	for _, s := range w.Loop.Streams() {
		out = append(out, s.Name)
	}
	return out
}

// Build wires sc onto loop with the run seed seed: a server.Cluster of the topology's nodes
// (streams "server/<node>/service" and "server/<node>/failpoint"); for each group, count
// MongoClients ("client/<group>/<i>", i from 0), each with one wire.Link per node
// ("link/<group>/<i>/<node>", one-way delays from the node's networkDelay); the group itself
// ("group/<group>") with rec as its Observer; and the faults, scheduled on the cluster. With a
// recorder, every group and node is added to it, and every fault's window (see FaultWindow).
// rec may be nil (an unrecorded world, for benchmarks); otherwise it must sample loop, as
// record.New(loop, sc.Interval) does. Build does not start the recorder or the loop.
//
// sc must be valid (Parse, Load and Set return only valid scenarios); Build reports the
// problems of one changed in code since.
func Build(sc *Scenario, seed uint64, loop *sim.Loop, rec *record.Recorder) (*World, error) {
	if err := sc.check(false); err != nil {
		return nil, err
	}
	w := &World{Scenario: sc, Seed: seed, Loop: loop, Recorder: rec}
	cfg := server.ClusterConfig{ElectionTime: sc.Topology.ElectionTime}
	for i := range sc.Topology.Nodes {
		n := &sc.Topology.Nodes[i]
		if n.Role != wire.Mongos {
			cfg.Nodes = append(cfg.Nodes, n.serverConfig())
		}
	}
	cluster, err := server.NewCluster(loop, cfg, seed)
	if err != nil {
		return nil, fmt.Errorf("scenarios: %s: %w", sc.Name, err)
	}
	w.Cluster = cluster
	if err := w.addMongos(); err != nil {
		return nil, err
	}
	if rec != nil {
		for _, s := range cluster.Nodes() {
			rec.AddNode(s)
		}
		for _, r := range w.Routers {
			rec.AddRouter(r.Name, r.Router)
		}
	}

	kind := sc.Topology.Kind
	for gi := range sc.Clients {
		g := &sc.Clients[gi]
		wl, err := g.workload(sc)
		if err != nil {
			return nil, fmt.Errorf("scenarios: %s: clients[%d]: %w", sc.Name, gi, err)
		}
		hosts := sc.Topology.hosts(g)
		targets := make([]*Node, len(hosts))
		for hi, host := range hosts {
			targets[hi] = sc.node(host)
		}
		fleet := client.Fleet{
			Count: g.Count, Options: g.Driver.options(), Kind: kind,
			Name: func(i int) string { return "client/" + g.Name + "/" + strconv.Itoa(i) },
			Nodes: func(i int) []client.Node { // client i's links, their streams drawn before its own
				prefix := "link/" + g.Name + "/" + strconv.Itoa(i) + "/"
				nodes := make([]client.Node, len(targets))
				for hi, n := range targets {
					nodes[hi] = client.Node{Address: n.Name, Handler: cluster.Node(n.Name),
						Link: wire.NewLink(n.NetworkDelay.D, loop.NewStream(seed, prefix+n.Name))}
				}
				return nodes
			},
		}
		grp, err := client.NewFleetGroup(loop, g.Name, fleet, wl, seed)
		if err != nil {
			return nil, fmt.Errorf("scenarios: %s: clients[%d]: %w", sc.Name, gi, err)
		}
		if rec != nil {
			rec.AddGroup(grp)
		}
		w.Clients = append(w.Clients, grp.Clients())
		w.Groups = append(w.Groups, grp)
	}

	var faults []server.Fault
	for i := range sc.Faults {
		if sc.Faults[i].Kind != loadKind { // load changes are laid into the groups' profiles
			faults = append(faults, sc.Faults[i].serverFault())
		}
	}
	if err := cluster.Schedule(faults); err != nil {
		return nil, fmt.Errorf("scenarios: %s: %w", sc.Name, err)
	}
	if rec != nil {
		for _, fw := range sc.FaultWindows() {
			rec.AddFault(fw.Name, fw.Start, fw.End)
		}
	}
	return w, nil
}

// addMongos builds each mongos node of a sharded topology: its router, which reaches every shard
// member over a link of its own ("link/mongos/<mongos>/<member>", one-way delays from the
// member's networkDelay) and draws from the router's streams, then the node itself.
func (w *World) addMongos() error {
	sc, seed := w.Scenario, w.Seed
	if !sc.Topology.sharded() {
		return nil
	}
	for i := range sc.Topology.Nodes {
		m := &sc.Topology.Nodes[i]
		if m.Role != wire.Mongos {
			continue
		}
		var shards []mongos.Shard
		for _, rs := range w.Cluster.ReplicaSets() {
			sh := mongos.Shard{Name: rs.Name()}
			for _, s := range rs.Nodes() {
				name := "link/mongos/" + m.Name + "/" + s.Address()
				sh.Members = append(sh.Members, mongos.Member{Address: s.Address(), Node: s,
					Link: wire.NewLink(sc.node(s.Address()).NetworkDelay.D, w.Loop.NewStream(seed, name))})
			}
			shards = append(shards, sh)
		}
		r, err := mongos.New(w.Loop, sc.Topology.Router.config(m.Name), shards, seed)
		if err != nil {
			return fmt.Errorf("scenarios: %s: topology.router: %w", sc.Name, err)
		}
		cfg := m.serverConfig()
		cfg.Router = r
		if _, err := w.Cluster.AddMongos(cfg); err != nil {
			return fmt.Errorf("scenarios: %s: %w", sc.Name, err)
		}
		w.Routers = append(w.Routers, RouterNode{Name: m.Name, Router: r})
	}
	return nil
}

// RouterNode is a mongos node's name and its router.
type RouterNode struct {
	Name   string
	Router *mongos.Router
}

// node returns the topology's node called name, or nil.
func (s *Scenario) node(name string) *Node {
	for i := range s.Topology.Nodes {
		if s.Topology.Nodes[i].Name == name {
			return &s.Topology.Nodes[i]
		}
	}
	return nil
}

// workload is the group's workload as client.NewGroup takes it.
func (g *Group) workload(sc *Scenario) (client.Workload, error) {
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
		p := r.p
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

// serverFault is the fault as server.Cluster.Schedule takes it.
func (f *Fault) serverFault() server.Fault {
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
