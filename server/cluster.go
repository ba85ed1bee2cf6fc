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
)

var faultNames = map[FaultKind]string{
	FaultFailPoint: "failPoint", FaultDown: "down", FaultUp: "up", FaultStepDown: "stepDown",
	FaultCapacity: "capacity", FaultNetworkDelay: "networkDelay",
	FaultRequestLimiter: "requestLimiter", FaultConnLimiter: "connLimiter",
	FaultRebalance: "rebalance",
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
	// after it. 0 means permanent.
	For time.Duration

	FailPoint      failpoint.Config     // FailPoint
	Workers        int                  // Capacity: new worker count; 0 leaves it
	Speed          float64              // Capacity: new speed factor; 0 leaves it
	Delay          time.Duration        // NetworkDelay: added to every one-way delay
	Successor      string               // StepDown: the member to elect; empty = first eligible
	RequestLimiter RequestLimiterConfig // RequestLimiter
	ConnLimiter    ConnLimiterConfig    // ConnLimiter
}

// ClusterConfig describes the nodes of a standalone or a replica set.
type ClusterConfig struct {
	Nodes []Config
	// ElectionTime is how long a replica set has no primary after a stepdown or after its
	// primary goes down (failure detection plus election). Default 10s (electionTimeoutMillis).
	ElectionTime time.Duration
}

// DefaultElectionTime is MongoDB's electionTimeoutMillis default.
const DefaultElectionTime = 10 * time.Second

// Cluster is a set of nodes on one loop — a standalone or a replica set — and the faults
// scheduled against them.
type Cluster struct {
	loop         *sim.Loop
	nodes        []*Server
	byAddr       map[string]*Server
	replicaSet   bool
	electionTime time.Duration
	faults       []*faultState
	// pendingElections counts scheduled elections not yet held.
	pendingElections int
}

type faultState struct {
	Fault
	node      *Server
	fp        *failpoint.Point
	oldW      int
	oldSpeed  float64
	successor string
}

// Cluster event kinds.
const (
	evApply = iota
	evRevert
	evElection
)

// NewCluster builds the nodes of cfg on loop. A cluster with a primary or secondary is a replica
// set, which must have exactly one primary at the start.
func NewCluster(loop *sim.Loop, cfg ClusterConfig, seed uint64) (*Cluster, error) {
	c := &Cluster{loop: loop, byAddr: map[string]*Server{}, electionTime: cfg.ElectionTime}
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
	primaries, standalones := 0, 0
	for i, nc := range cfg.Nodes {
		s, err := New(loop, nc, seed)
		if err != nil {
			errs = append(errs, fmt.Errorf("nodes[%d]: %w", i, err))
			continue
		}
		if _, dup := c.byAddr[s.Address()]; dup {
			errs = append(errs, fmt.Errorf("nodes[%d].address: %q: must be unique", i, s.Address()))
			continue
		}
		switch s.Role() {
		case wire.Primary:
			primaries++
		case wire.Standalone:
			standalones++
		}
		c.nodes = append(c.nodes, s)
		c.byAddr[s.Address()] = s
	}
	c.replicaSet = standalones == 0 && len(c.nodes) > 0
	switch {
	case standalones > 0 && len(cfg.Nodes) > 1:
		errs = append(errs, fmt.Errorf("cluster: nodes: %d standalones among %d nodes: a standalone must be alone (use primary/secondary roles for a replica set)", standalones, len(cfg.Nodes)))
	case c.replicaSet && primaries != 1:
		errs = append(errs, fmt.Errorf("cluster: nodes: %d primaries: a replica set starts with exactly one", primaries))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return c, nil
}

// Nodes returns the nodes in configuration order.
func (c *Cluster) Nodes() []*Server { return c.nodes }

// Node returns the node with the given address, or nil.
func (c *Cluster) Node(addr string) *Server { return c.byAddr[addr] }

// Primary returns the current primary (or the standalone), or nil during an election.
func (c *Cluster) Primary() *Server {
	for _, s := range c.nodes {
		if !s.IsDown() && (s.Role() == wire.Primary || s.Role() == wire.Standalone) {
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
			if !c.replicaSet {
				bad(i, "kind", f.Kind, "a stepdown needs a replica set")
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
		c.elect(st.successor)
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
			c.scheduleElection(st, "")
		}
	case FaultUp:
		c.bringUp(now, s)
		temporary = false
	case FaultStepDown:
		p := s
		if p == nil {
			p = c.Primary()
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
	role := wire.Standalone
	if c.replicaSet {
		role = wire.Secondary
	}
	s.Up(now, role)
	if c.replicaSet && c.Primary() == nil && !c.electing() {
		c.elect("")
	}
}

func (c *Cluster) electing() bool { return c.pendingElections > 0 }

func (c *Cluster) scheduleElection(st *faultState, successor string) {
	st.successor = successor
	c.pendingElections++
	c.loop.After(c.electionTime, c, evElection, st)
}

// elect makes successor (if up and a secondary) or else the first eligible secondary in
// configuration order the primary. With no eligible member the set stays without a primary
// until a member comes back up.
func (c *Cluster) elect(successor string) {
	if c.pendingElections > 0 {
		c.pendingElections--
	}
	if c.Primary() != nil {
		return
	}
	if s := c.byAddr[successor]; s != nil && !s.IsDown() && s.Role() == wire.Secondary {
		s.setRole(wire.Primary)
		return
	}
	for _, s := range c.nodes {
		if !s.IsDown() && s.Role() == wire.Secondary {
			s.setRole(wire.Primary)
			return
		}
	}
}
