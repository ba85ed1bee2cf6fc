package server

import (
	"errors"
	"fmt"
	"math"
	"time"

	"overloadsim/server/failpoint"
	"overloadsim/sim"
	"overloadsim/wire"
)

// FaultKind says what a Fault changes.
type FaultKind uint8

// Fault kinds.
const (
	FaultFailPoint      FaultKind = iota + 1 // arm a failCommand failpoint (disarmed after For)
	FaultDown                                // take a node down (back up after For)
	FaultUp                                  // bring a node up
	FaultStepDown                            // the primary steps down; an election follows
	FaultCapacity                            // change workers and/or speed (reverted after For)
	FaultNetworkDelay                        // add delay to a node's links (removed after For)
	FaultRequestLimiter                      // set the ingress request limiter (MongoTune-style)
	FaultConnLimiter                         // set the connection-establishment limiter
	FaultRebalance                           // a Couchbase rebalance: KV answers NotMyVbucket (for For)
	FaultPause                               // a stop-the-world pause of a node's process (for For; see Server.Pause)
)

var faultNames = map[FaultKind]string{
	FaultFailPoint: "failPoint", FaultDown: "down", FaultUp: "up", FaultStepDown: "stepDown",
	FaultCapacity: "capacity", FaultNetworkDelay: "networkDelay",
	FaultRequestLimiter: "requestLimiter", FaultConnLimiter: "connLimiter",
	FaultRebalance: "rebalance", FaultPause: "pause",
}

// String returns the fault kind's scenario name.
func (k FaultKind) String() string {
	if n, ok := faultNames[k]; ok {
		return n
	}
	return fmt.Sprintf("fault(%d)", k)
}

// Fault is one timed change to the cluster, as data. Only the fields of its Kind are read.
type Fault struct {
	At   time.Duration // virtual time since the start of the run
	Kind FaultKind
	Node string // the node's address; for StepDown, empty means the current primary
	// For makes FailPoint, Down, Capacity, NetworkDelay and Rebalance temporary: they are undone
	// after it. 0 means permanent. A Pause lasts For, which must be > 0.
	For time.Duration

	FailPoint      failpoint.Config     // FailPoint
	Workers        int                  // Capacity: new worker count; 0 leaves it
	Speed          float64              // Capacity: new speed factor; 0 leaves it
	Delay          time.Duration        // NetworkDelay: added to every one-way delay
	Successor      string               // StepDown: the member to elect; empty = first eligible
	RequestLimiter RequestLimiterConfig // RequestLimiter
	ConnLimiter    ConnLimiterConfig    // ConnLimiter
}

// ClusterConfig describes the data nodes of a deployment: one standalone or several
// independent ones, a replica set, or the shards of a sharded cluster (replica sets told apart
// by Config.ReplSetName). A sharded cluster's mongos nodes are added with AddMongos once their
// routers, which need the shards, exist.
type ClusterConfig struct {
	Nodes []Config
	// ElectionTime is how long a replica set has no primary after a stepdown or after its
	// primary goes down (failure detection plus election). Default 10s (electionTimeoutMillis).
	ElectionTime time.Duration
}

// DefaultElectionTime is MongoDB's electionTimeoutMillis default.
const DefaultElectionTime = 10 * time.Second

// ReplicaSet is one replica set of a cluster (a shard, in a sharded cluster) and its elections.
type ReplicaSet struct {
	name  string
	nodes []*Server
	// pendingElections counts scheduled elections not yet held.
	pendingElections int
}

// Name returns the set's name (ReplSetName; empty for a cluster's only, unnamed set).
func (r *ReplicaSet) Name() string { return r.name }

// Nodes returns the set's members in configuration order.
func (r *ReplicaSet) Nodes() []*Server { return r.nodes }

// Primary returns the set's primary, or nil during an election.
func (r *ReplicaSet) Primary() *Server {
	for _, s := range r.nodes {
		if !s.IsDown() && s.Role() == wire.Primary {
			return s
		}
	}
	return nil
}

// Cluster is the nodes of one deployment on one loop — standalones, a replica set, or a sharded
// cluster's shards and mongos nodes — and the faults scheduled against them.
type Cluster struct {
	loop         *sim.Loop
	nodes        []*Server
	byAddr       map[string]*Server
	sets         []*ReplicaSet
	setOf        map[*Server]*ReplicaSet
	electionTime time.Duration
	faults       []*faultState
	seed         uint64
}

type faultState struct {
	Fault
	node      *Server
	fp        *failpoint.Point
	oldW      int
	oldSpeed  float64
	successor string
	set       *ReplicaSet // StepDown: the set that elects
}

// Cluster event kinds.
const (
	evApply = iota
	evRevert
	evElection
)

// NewCluster builds the data nodes of cfg on loop. Primaries and secondaries form replica sets
// by ReplSetName, each of which must start with exactly one primary; standalones stand alone
// (several are independent deployments); mongos nodes come later, through AddMongos.
func NewCluster(loop *sim.Loop, cfg ClusterConfig, seed uint64) (*Cluster, error) {
	c := &Cluster{loop: loop, byAddr: map[string]*Server{}, setOf: map[*Server]*ReplicaSet{},
		electionTime: cfg.ElectionTime, seed: seed}
	if c.electionTime == 0 {
		c.electionTime = DefaultElectionTime
	}
	var errs []error
	if len(cfg.Nodes) == 0 {
		errs = append(errs, errors.New("cluster: nodes: empty: need at least one node"))
	}
	if c.electionTime < 0 {
		errs = append(errs, fmt.Errorf("cluster: electionTime: %v: must be ≥ 0", cfg.ElectionTime))
	}
	sets := map[string]*ReplicaSet{}
	standalones := 0
	for i, nc := range cfg.Nodes {
		if nc.Role == wire.Mongos {
			errs = append(errs, fmt.Errorf("nodes[%d].role: mongos: add mongos nodes with AddMongos", i))
			continue
		}
		s, err := New(loop, nc, seed)
		if err != nil {
			errs = append(errs, fmt.Errorf("nodes[%d]: %w", i, err))
			continue
		}
		if _, dup := c.byAddr[s.Address()]; dup {
			errs = append(errs, fmt.Errorf("nodes[%d].address: %q: must be unique", i, s.Address()))
			continue
		}
		c.nodes = append(c.nodes, s)
		c.byAddr[s.Address()] = s
		if s.Role() == wire.Standalone {
			standalones++
			if nc.ReplSetName != "" {
				errs = append(errs, fmt.Errorf("nodes[%d].replSetName: %q: a standalone belongs to no replica set", i, nc.ReplSetName))
			}
			continue
		}
		rs := sets[nc.ReplSetName]
		if rs == nil {
			rs = &ReplicaSet{name: nc.ReplSetName}
			sets[nc.ReplSetName] = rs
			c.sets = append(c.sets, rs)
		}
		rs.nodes = append(rs.nodes, s)
		c.setOf[s] = rs
	}
	if standalones > 0 && len(c.sets) > 0 {
		errs = append(errs, fmt.Errorf("cluster: nodes: %d standalones beside %d replica set(s): a standalone cannot join a replica set", standalones, len(c.sets)))
	}
	if _, unnamed := sets[""]; unnamed && len(c.sets) > 1 {
		errs = append(errs, errors.New("cluster: nodes: primaries or secondaries without replSetName beside named replica sets: name every shard"))
	}
	for _, rs := range c.sets {
		primaries := 0
		for _, s := range rs.nodes {
			if s.Role() == wire.Primary {
				primaries++
			}
		}
		if primaries != 1 {
			errs = append(errs, fmt.Errorf("cluster: nodes: %d primaries in replica set %q: a replica set starts with exactly one", primaries, rs.name))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return c, nil
}

// AddMongos adds a mongos node (role mongos, with its Router) to the cluster, before faults are
// scheduled. A mongos needs a cluster with replica sets to route to.
func (c *Cluster) AddMongos(cfg Config) (*Server, error) {
	if cfg.Role != wire.Mongos {
		return nil, fmt.Errorf("mongos %q: role: %v: must be mongos", cfg.Address, cfg.Role)
	}
	if _, dup := c.byAddr[cfg.Address]; dup {
		return nil, fmt.Errorf("mongos %q: address: must be unique", cfg.Address)
	}
	if len(c.sets) == 0 {
		return nil, fmt.Errorf("mongos %q: the cluster has no replica set to route to", cfg.Address)
	}
	s, err := New(c.loop, cfg, c.seed)
	if err != nil {
		return nil, err
	}
	c.nodes = append(c.nodes, s)
	c.byAddr[s.Address()] = s
	return s, nil
}

// Nodes returns the nodes in configuration order, mongos nodes last.
func (c *Cluster) Nodes() []*Server { return c.nodes }

// Node returns the node with the given address, or nil.
func (c *Cluster) Node(addr string) *Server { return c.byAddr[addr] }

// ReplicaSets returns the cluster's replica sets (its shards, when sharded) in the order their
// first member was configured.
func (c *Cluster) ReplicaSets() []*ReplicaSet { return c.sets }

// Primary returns the primary of the cluster's only replica set, or the first standalone that is
// up; nil during an election, and for a cluster of several replica sets (ask each ReplicaSet).
func (c *Cluster) Primary() *Server {
	if len(c.sets) == 1 {
		return c.sets[0].Primary()
	}
	if len(c.sets) > 1 {
		return nil
	}
	for _, s := range c.nodes {
		if !s.IsDown() && s.Role() == wire.Standalone {
			return s
		}
	}
	return nil
}

// Schedule validates faults and schedules them on the loop. It reports every invalid fault at
// once, naming its index, field, value and rule; nothing is scheduled unless all are valid.
func (c *Cluster) Schedule(faults []Fault) error {
	var errs []error
	bad := func(i int, field string, v any, rule string) {
		errs = append(errs, fmt.Errorf("faults[%d].%s: %v: %s", i, field, v, rule))
	}
	states := make([]*faultState, len(faults))
	for i, f := range faults {
		st := &faultState{Fault: f}
		if f.At < 0 {
			bad(i, "at", f.At, "must be ≥ 0")
		}
		if f.For < 0 {
			bad(i, "for", f.For, "must be ≥ 0 (0 = permanent)")
		}
		if _, ok := faultNames[f.Kind]; !ok {
			bad(i, "kind", f.Kind, "unknown fault kind")
		}
		if f.Node != "" || f.Kind != FaultStepDown {
			if st.node = c.byAddr[f.Node]; st.node == nil {
				bad(i, "node", fmt.Sprintf("%q", f.Node), "no such node")
			}
		}
		switch f.Kind {
		case FaultFailPoint:
			p, err := failpoint.New(f.FailPoint)
			if err != nil {
				errs = append(errs, fmt.Errorf("faults[%d].failPoint: %w", i, err))
			}
			st.fp = p
		case FaultStepDown:
			switch {
			case st.node != nil:
				if st.set = c.setOf[st.node]; st.set == nil {
					bad(i, "node", fmt.Sprintf("%q", f.Node), "a stepdown needs a replica-set member")
				}
			case len(c.sets) == 1:
				st.set = c.sets[0]
			case len(c.sets) == 0:
				bad(i, "kind", f.Kind, "a stepdown needs a replica set")
			default:
				bad(i, "node", `""`, fmt.Sprintf("name the member to step down: the cluster has %d replica sets", len(c.sets)))
			}
			if f.Successor != "" && c.byAddr[f.Successor] == nil {
				bad(i, "successor", fmt.Sprintf("%q", f.Successor), "no such node")
			}
		case FaultCapacity:
			if f.Workers < 0 {
				bad(i, "workers", f.Workers, "must be ≥ 1 (0 leaves it unchanged)")
			}
			if f.Speed < 0 || math.IsNaN(f.Speed) || math.IsInf(f.Speed, 0) {
				bad(i, "speed", f.Speed, "must be a finite number > 0 (0 leaves it unchanged)")
			}
			if f.Workers == 0 && f.Speed == 0 {
				bad(i, "workers", 0, "a capacity fault must change workers or speed")
			}
		case FaultRebalance:
			if st.node != nil && st.node.cfg.Flavor != FlavorCouchbase {
				bad(i, "kind", f.Kind, "a rebalance needs a couchbase node")
			}
			if f.For <= 0 {
				bad(i, "for", f.For, "a rebalance must end: give its duration (> 0)")
			}
		case FaultPause:
			if f.For <= 0 {
				bad(i, "for", f.For, "a pause must end: give its duration (> 0)")
			}
		case FaultRequestLimiter, FaultConnLimiter:
			if st.node != nil {
				probe := st.node.cfg
				probe.RequestLimiter, probe.ConnLimiter = f.RequestLimiter, f.ConnLimiter
				if f.Kind == FaultRequestLimiter {
					probe.ConnLimiter = st.node.cfg.ConnLimiter
				} else {
					probe.RequestLimiter = st.node.cfg.RequestLimiter
				}
				if err := probe.Validate(); err != nil {
					errs = append(errs, fmt.Errorf("faults[%d]: %w", i, err))
				}
			}
		}
		states[i] = st
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	c.faults = append(c.faults, states...)
	for _, st := range states {
		c.loop.At(max(sim.Time(st.At), c.loop.Now()), c, evApply, st)
	}
	return nil
}

// HandleEvent implements sim.Handler for fault and election events.
func (c *Cluster) HandleEvent(now sim.Time, kind int, arg any) {
	st := arg.(*faultState)
	switch kind {
	case evApply:
		c.apply(now, st)
	case evRevert:
		c.revert(now, st)
	case evElection:
		c.elect(st.set, st.successor)
	}
}

func (c *Cluster) apply(now sim.Time, st *faultState) {
	s := st.node
	temporary := st.For > 0
	switch st.Kind {
	case FaultFailPoint:
		s.SetFailPoint(now, st.fp)
	case FaultDown:
		wasPrimary := s.Role() == wire.Primary
		s.GoDown(now)
		if wasPrimary {
			st.set = c.setOf[s]
			c.scheduleElection(st, "")
		}
	case FaultUp:
		c.bringUp(now, s)
		temporary = false
	case FaultStepDown:
		p := s
		if p == nil {
			p = st.set.Primary()
		}
		if p == nil || p.Role() != wire.Primary {
			return // nothing to step down (already electing, or the node is not primary)
		}
		p.StepDown(now)
		c.scheduleElection(st, st.Successor)
		temporary = false
	case FaultCapacity:
		st.oldW, st.oldSpeed = s.Workers(), s.Speed()
		if st.Workers > 0 {
			_ = s.SetWorkers(now, st.Workers) // validated by Schedule
		}
		if st.Speed > 0 {
			_ = s.SetSpeed(now, st.Speed)
		}
	case FaultNetworkDelay:
		s.SetNetworkDelay(st.Delay)
	case FaultRebalance:
		s.SetRebalancing(true)
	case FaultPause:
		// The node ends its own pause (overlapping pauses extend one another), so there is
		// nothing to revert.
		_ = s.Pause(now, st.For) // For > 0: validated by Schedule
		temporary = false
	case FaultRequestLimiter:
		_ = s.SetRequestLimiter(now, st.RequestLimiter)
		temporary = false
	case FaultConnLimiter:
		_ = s.SetConnLimiter(now, st.ConnLimiter)
		temporary = false
	}
	if temporary {
		c.loop.At(now.Add(st.For), c, evRevert, st)
	}
}

func (c *Cluster) revert(now sim.Time, st *faultState) {
	s := st.node
	switch st.Kind {
	case FaultFailPoint:
		if s.fp == st.fp {
			s.SetFailPoint(now, nil)
		}
	case FaultDown:
		c.bringUp(now, s)
	case FaultCapacity:
		_ = s.SetWorkers(now, st.oldW)
		_ = s.SetSpeed(now, st.oldSpeed)
	case FaultNetworkDelay:
		s.SetNetworkDelay(0)
	case FaultRebalance:
		s.SetRebalancing(false)
	}
}

func (c *Cluster) bringUp(now sim.Time, s *Server) {
	rs := c.setOf[s]
	switch {
	case s.cfg.Role == wire.Mongos:
		s.Up(now, wire.Mongos)
	case rs == nil:
		s.Up(now, wire.Standalone)
	default:
		s.Up(now, wire.Secondary)
		if rs.Primary() == nil && rs.pendingElections == 0 {
			c.elect(rs, "")
		}
	}
}

func (c *Cluster) scheduleElection(st *faultState, successor string) {
	st.successor = successor
	st.set.pendingElections++
	c.loop.After(c.electionTime, c, evElection, st)
}

// elect makes successor (if up and a secondary) or else the first eligible secondary in
// configuration order the primary of rs. With no eligible member the set stays without a
// primary until a member comes back up.
func (c *Cluster) elect(rs *ReplicaSet, successor string) {
	if rs.pendingElections > 0 {
		rs.pendingElections--
	}
	if rs.Primary() != nil {
		return
	}
	if s := c.byAddr[successor]; s != nil && c.setOf[s] == rs && !s.IsDown() && s.Role() == wire.Secondary {
		s.setRole(wire.Primary)
		return
	}
	for _, s := range rs.nodes {
		if !s.IsDown() && s.Role() == wire.Secondary {
			s.setRole(wire.Primary)
			return
		}
	}
}
