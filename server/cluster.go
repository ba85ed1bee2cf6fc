package server

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/overloadsim/overloadsim/field"
	"github.com/overloadsim/overloadsim/server/failpoint"
	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
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

// FaultKinds returns every fault kind, in declaration order.
func FaultKinds() []FaultKind {
	out := make([]FaultKind, 0, len(faultNames))
	for k := FaultFailPoint; k <= FaultPause; k++ {
		out = append(out, k)
	}
	return out
}

// ParseFaultKind returns the fault kind called name (failPoint, down, …, pause).
func ParseFaultKind(name string) (FaultKind, bool) {
	for _, k := range FaultKinds() {
		if k.String() == name {
			return k, true
		}
	}
	return 0, false
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

// CheckFaultTime reports the rules on when a fault happens, whatever its kind, each as a
// *field.Error: at is in [0, horizon) — or ≥ 0 when horizon is 0, for a run of unknown length —
// and forDur (the field for) is ≥ 0, 0 meaning permanent.
func CheckFaultTime(at, forDur, horizon time.Duration) error {
	var errs []error
	switch {
	case horizon > 0 && (at < 0 || at >= horizon):
		errs = append(errs, field.New("at", at, "must be in [0s, duration "+horizon.String()+")"))
	case at < 0:
		errs = append(errs, field.New("at", at, "must be ≥ 0"))
	}
	if forDur < 0 {
		errs = append(errs, field.New("for", forDur, "must be ≥ 0 (0s = permanent)"))
	}
	return errors.Join(errs...)
}

// CheckFault reports every rule f breaks on a deployment of nodes (its data nodes and mongos
// nodes, in configuration order), each as a *field.Error named as a scenario's fault spells the
// field — at, for, kind, node, successor, workers, speed, delay, the failpoint's mode.… and
// data.…, the limiter parameters — or with no field for the fault as a whole; the errors are
// joined with errors.Join. horizon, when > 0, is the length of the run: a fault must happen
// before it. CheckFault is pure: Cluster.Schedule calls it, and so does a scenario's
// validation, so that both hold a fault to the same rules:
//
//   - when: see CheckFaultTime;
//   - kind: one of FaultKinds; up, stepDown, requestLimiter and connLimiter are one-off changes
//     that are not undone, so their for is 0;
//   - node: required, except for a stepdown in a single replica set (its current primary), and
//     one of the nodes;
//   - failPoint: the failpoint's configuration is valid (failpoint.Config.Validate, whose errors
//     keep their "failpoint: " context);
//   - capacity: workers ≥ 1 and speed a finite number > 0, 0 leaving either unchanged, and at
//     least one of them set;
//   - networkDelay: delay > 0;
//   - rebalance: a couchbase node, for a duration > 0;
//   - pause: for a duration > 0;
//   - stepDown: the deployment has a replica set; a sharded cluster's (named) replica sets need
//     the primary named; the node is a replica-set member, not a mongos or a standalone; a
//     successor is one of the nodes;
//   - requestLimiter, connLimiter: the new parameters are valid (RequestLimiterConfig.Validate,
//     ConnLimiterConfig.Validate).
func CheckFault(f Fault, nodes []Config, horizon time.Duration) error {
	c := &faultCheck{f: f, nodes: nodes, node: findConfig(nodes, f.Node)}
	c.errs = field.Parts(CheckFaultTime(f.At, f.For, horizon))
	_, known := faultNames[f.Kind]
	if !known {
		names := make([]string, 0, len(faultNames))
		for _, k := range FaultKinds() {
			names = append(names, k.String())
		}
		c.bad("kind", f.Kind, "must be one of "+strings.Join(names, ", "))
	}
	c.target(known)
	if known {
		c.byKind()
	}
	return errors.Join(c.errs...)
}

// faultCheck collects the problems of one fault.
type faultCheck struct {
	f     Fault
	nodes []Config
	node  *Config // the fault's node; nil when it names none, or none that exists
	errs  []error
}

func (c *faultCheck) bad(name string, v any, rule string) {
	c.errs = append(c.errs, field.New(name, v, rule))
}

// target checks the fault's node: required for a known kind other than stepDown, and one of the
// nodes.
func (c *faultCheck) target(known bool) {
	f := c.f
	switch {
	case f.Node == "" && (f.Kind == FaultStepDown || !known): // a stepdown's rules say
	case f.Node == "":
		c.bad("node", `""`, "required for a "+f.Kind.String()+" fault")
	case c.node == nil:
		c.bad("node", f.Node, "no such node; nodes: "+addresses(c.nodes))
	}
}

// byKind checks the rules of the fault's kind.
func (c *faultCheck) byKind() {
	f := c.f
	switch f.Kind {
	case FaultUp, FaultStepDown, FaultRequestLimiter, FaultConnLimiter:
		if f.For != 0 {
			c.bad("for", f.For, "a "+f.Kind.String()+" fault is not undone; use a second fault")
		}
	}
	switch f.Kind {
	case FaultFailPoint:
		c.errs = append(c.errs, field.Parts(f.FailPoint.Validate())...)
	case FaultCapacity:
		c.capacity()
	case FaultNetworkDelay:
		if f.Delay <= 0 {
			c.bad("delay", f.Delay, "must be > 0")
		}
	case FaultRebalance:
		if c.node != nil && c.node.Flavor != FlavorCouchbase {
			c.bad("node", f.Node, "a rebalance needs a node with flavor couchbase")
		}
		if f.For <= 0 {
			c.bad("for", f.For, "a rebalance lasts a while: must be > 0")
		}
	case FaultPause:
		if f.For <= 0 {
			c.bad("for", f.For, "a pause lasts a while: must be > 0")
		}
	case FaultStepDown:
		c.stepDown()
	case FaultRequestLimiter:
		if c.node != nil {
			c.errs = append(c.errs, field.Parts(f.RequestLimiter.Validate())...)
		}
	case FaultConnLimiter:
		if c.node != nil {
			c.errs = append(c.errs, field.Parts(f.ConnLimiter.Validate())...)
		}
	}
}

// capacity checks a capacity change: workers ≥ 1 and speed a finite number > 0, 0 leaving
// either unchanged, and at least one of them set.
func (c *faultCheck) capacity() {
	f := c.f
	if f.Workers < 0 {
		c.bad("workers", f.Workers, "must be ≥ 1 (0 leaves it unchanged)")
	}
	if !(f.Speed >= 0) || math.IsInf(f.Speed, 0) {
		c.bad("speed", f.Speed, "must be a finite number > 0 (0 leaves it unchanged)")
	}
	if f.Workers == 0 && f.Speed == 0 {
		c.bad("", "capacity", "must set workers or speed")
	}
}

// stepDown checks a stepdown: a replica set to step down in, the primary named in a sharded
// cluster, a node that is a replica-set member, and a successor that exists.
func (c *faultCheck) stepDown() {
	f, node := c.f, c.node
	sets, named := replicaSetsOf(c.nodes)
	switch {
	case sets == 0:
		c.bad("kind", f.Kind, "a stepdown needs a replica set")
	case f.Node == "" && named:
		c.bad("node", `""`, "name the shard primary to step down: a sharded cluster has one per shard")
	case node != nil && node.Role == wire.Mongos:
		c.bad("node", f.Node, "a mongos has no replica-set role to step down from")
	case node != nil && node.Role != wire.Primary && node.Role != wire.Secondary:
		c.bad("node", f.Node, "a stepdown needs a replica-set member")
	}
	if f.Successor != "" && findConfig(c.nodes, f.Successor) == nil {
		c.bad("successor", f.Successor, "no such node; nodes: "+addresses(c.nodes))
	}
}

// findConfig returns the configuration of the node called addr, or nil.
func findConfig(nodes []Config, addr string) *Config {
	for i := range nodes {
		if nodes[i].Address == addr {
			return &nodes[i]
		}
	}
	return nil
}

// addresses lists the nodes' addresses, in order.
func addresses(nodes []Config) string {
	names := make([]string, len(nodes))
	for i := range nodes {
		names[i] = nodes[i].Address
	}
	return strings.Join(names, ", ")
}

// replicaSetsOf counts the replica sets the nodes form (primaries and secondaries, by
// ReplSetName) and says whether they are named: the shards of a sharded cluster.
func replicaSetsOf(nodes []Config) (sets int, named bool) {
	seen := map[string]bool{}
	for i := range nodes {
		if r := nodes[i].Role; r == wire.Primary || r == wire.Secondary {
			if !seen[nodes[i].ReplSetName] {
				seen[nodes[i].ReplSetName] = true
				sets++
			}
			named = named || nodes[i].ReplSetName != ""
		}
	}
	return sets, named
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

// clusterError is the error for field of a ClusterConfig holding value, which breaks rule: a
// *field.Error after "cluster: ".
func clusterError(name string, value any, rule string) error {
	return fmt.Errorf("cluster: %w", field.New(name, value, rule))
}

// NewCluster builds the data nodes of cfg on loop. Primaries and secondaries form replica sets
// by ReplSetName, each of which must start with exactly one primary; standalones stand alone
// (several are independent deployments); mongos nodes come later, through AddMongos. Every
// problem is reported at once, each a *field.Error (a node's under nodes[i]).
func NewCluster(loop *sim.Loop, cfg ClusterConfig, seed uint64) (*Cluster, error) {
	c := &Cluster{loop: loop, byAddr: map[string]*Server{}, setOf: map[*Server]*ReplicaSet{},
		electionTime: cfg.ElectionTime, seed: seed}
	if c.electionTime == 0 {
		c.electionTime = DefaultElectionTime
	}
	var errs []error
	if len(cfg.Nodes) == 0 {
		errs = append(errs, clusterError("nodes", "[]", "must list at least one node"))
	}
	if c.electionTime < 0 {
		errs = append(errs, clusterError("electionTime", cfg.ElectionTime, "must be ≥ 0"))
	}
	sets := map[string]*ReplicaSet{}
	standalones := 0
	for i, nc := range cfg.Nodes {
		p := "nodes[" + strconv.Itoa(i) + "]"
		if nc.Role == wire.Mongos {
			errs = append(errs, field.New(p+".role", nc.Role, "add mongos nodes with AddMongos"))
			continue
		}
		s, err := New(loop, nc, seed)
		if err != nil {
			errs = append(errs, field.Prefix(p, err))
			continue
		}
		if _, dup := c.byAddr[s.Address()]; dup {
			errs = append(errs, field.New(p+".address", strconv.Quote(s.Address()), "must be unique"))
			continue
		}
		c.nodes = append(c.nodes, s)
		c.byAddr[s.Address()] = s
		if s.Role() == wire.Standalone {
			standalones++
			if nc.ReplSetName != "" {
				errs = append(errs, field.New(p+".replSetName", strconv.Quote(nc.ReplSetName), "a standalone belongs to no replica set"))
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
		errs = append(errs, clusterError("nodes", fmt.Sprintf("%d standalones beside %d replica set(s)", standalones, len(c.sets)),
			"a standalone cannot join a replica set"))
	}
	if _, unnamed := sets[""]; unnamed && len(c.sets) > 1 {
		errs = append(errs, clusterError("nodes", "primaries or secondaries without replSetName beside named replica sets", "name every shard"))
	}
	for _, rs := range c.sets {
		primaries := 0
		for _, s := range rs.nodes {
			if s.Role() == wire.Primary {
				primaries++
			}
		}
		if primaries != 1 {
			errs = append(errs, clusterError("nodes", fmt.Sprintf("%d primaries in replica set %q", primaries, rs.name),
				"a replica set starts with exactly one"))
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
		return nil, fmt.Errorf("mongos %q: %w", cfg.Address, field.New("role", cfg.Role, "must be mongos"))
	}
	if _, dup := c.byAddr[cfg.Address]; dup {
		return nil, fmt.Errorf("mongos %q: %w", cfg.Address, field.New("address", strconv.Quote(cfg.Address), "must be unique"))
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
// once, each problem a *field.Error from CheckFault under faults[i]; nothing is scheduled unless
// all are valid.
func (c *Cluster) Schedule(faults []Fault) error {
	nodes := make([]Config, len(c.nodes))
	for i, s := range c.nodes {
		nodes[i] = s.cfg
	}
	var errs []error
	for i, f := range faults {
		if err := CheckFault(f, nodes, 0); err != nil {
			errs = append(errs, field.Prefix("faults["+strconv.Itoa(i)+"]", err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	states := make([]*faultState, len(faults))
	for i, f := range faults {
		st := &faultState{Fault: f, node: c.byAddr[f.Node]}
		switch f.Kind {
		case FaultFailPoint:
			st.fp, _ = failpoint.New(f.FailPoint) // valid: CheckFault validated it
		case FaultStepDown:
			if st.set = c.setOf[st.node]; st.node == nil {
				st.set = c.sets[0] // CheckFault: the only replica set, unnamed
			}
		}
		states[i] = st
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
