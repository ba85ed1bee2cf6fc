package bench

import (
	"fmt"
	"strconv"

	"github.com/overloadsim/overloadsim/client"
	"github.com/overloadsim/overloadsim/record"
	"github.com/overloadsim/overloadsim/scenarios"
	"github.com/overloadsim/overloadsim/server"
	"github.com/overloadsim/overloadsim/server/mongos"
	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
)

// World is a scenario wired onto one loop: the servers, the clients, the application groups
// and the faults, recorded by a record.Recorder.
type World struct {
	Scenario *scenarios.Scenario // what was built
	Seed     uint64              // the run seed every stream derives from
	Loop     *sim.Loop           // the loop everything is scheduled on
	Cluster  *server.Cluster     // the nodes and their faults
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
// recorder, every group and node is added to it, and every fault's window (Scenario.FaultWindows).
// rec may be nil (an unrecorded world, for benchmarks); otherwise it must sample loop, as
// record.New(loop, sc.Interval) does. Build does not start the recorder or the loop.
//
// sc must be valid (scenarios.Parse, Load and Set return only valid scenarios); Build reports
// the problems of one changed in code since (Scenario.ValidateBuild).
func Build(sc *scenarios.Scenario, seed uint64, loop *sim.Loop, rec *record.Recorder) (*World, error) {
	if err := sc.ValidateBuild(); err != nil {
		return nil, err
	}
	w := &World{Scenario: sc, Seed: seed, Loop: loop, Recorder: rec}
	cfg := server.ClusterConfig{ElectionTime: sc.Topology.ElectionTime}
	for i := range sc.Topology.Nodes {
		n := &sc.Topology.Nodes[i]
		if n.Role != wire.Mongos {
			cfg.Nodes = append(cfg.Nodes, n.ServerConfig())
		}
	}
	cluster, err := server.NewCluster(loop, cfg, seed)
	if err != nil {
		return nil, fmt.Errorf("bench: %s: %w", sc.Name, err)
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
		wl, err := g.ClientWorkload(sc)
		if err != nil {
			return nil, fmt.Errorf("bench: %s: clients[%d]: %w", sc.Name, gi, err)
		}
		hosts := sc.Topology.Hosts(g)
		targets := make([]*scenarios.Node, len(hosts))
		for hi, host := range hosts {
			targets[hi] = sc.Node(host)
		}
		fleet := client.Fleet{
			Count: g.Count, Options: g.Driver.ClientOptions(), Kind: kind,
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
			return nil, fmt.Errorf("bench: %s: clients[%d]: %w", sc.Name, gi, err)
		}
		if rec != nil {
			rec.AddGroup(grp)
		}
		w.Clients = append(w.Clients, grp.Clients())
		w.Groups = append(w.Groups, grp)
	}

	if err := cluster.Schedule(sc.ServerFaults()); err != nil {
		return nil, fmt.Errorf("bench: %s: %w", sc.Name, err)
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
	if !sc.Topology.Sharded() {
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
					Link: wire.NewLink(sc.Node(s.Address()).NetworkDelay.D, w.Loop.NewStream(seed, name))})
			}
			shards = append(shards, sh)
		}
		r, err := mongos.New(w.Loop, sc.Topology.Router.Config(m.Name), shards, seed)
		if err != nil {
			return fmt.Errorf("bench: %s: topology.router: %w", sc.Name, err)
		}
		cfg := m.ServerConfig()
		cfg.Router = r
		if _, err := w.Cluster.AddMongos(cfg); err != nil {
			return fmt.Errorf("bench: %s: %w", sc.Name, err)
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
