package scenarios

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/overloadsim/overloadsim/client"
	"github.com/overloadsim/overloadsim/client/retry"
	"github.com/overloadsim/overloadsim/client/selection"
	"github.com/overloadsim/overloadsim/client/workload"
	"github.com/overloadsim/overloadsim/field"
	"github.com/overloadsim/overloadsim/internal/yamlstrict"
	"github.com/overloadsim/overloadsim/server"
	"github.com/overloadsim/overloadsim/server/failpoint"
	"github.com/overloadsim/overloadsim/wire"
)

// Limits on sizes, so that a scenario cannot ask for more than a machine holds.
const (
	maxCount       = 1_000_000 // clients per group
	maxSweepPoints = 100_000   // combinations of sweep values
)

// validator checks the rules of a decoded scenario. Problems go to the decoder, which knows
// where each value sits in the file.
type validator struct {
	d  *decoder
	sc *Scenario
	// trySweep tries every sweep value on the scenario (with Set), which costs a decode per
	// value; ValidateBuild (bench.Build) skips it, as Parse has done it.
	trySweep bool
}

func (v *validator) bad(path, value, rule string) {
	// A field that failed to decode has its problem already; so do the fields under it and
	// the rules about the whole it belongs to. (The lookups are by path, not a scan of every
	// failed field, so that a file of thousands of problems is not quadratic.)
	if v.d.Failed(path) || v.d.FailedUnder(path) {
		return
	}
	for q := yamlstrict.ParentPath(path); q != ""; q = yamlstrict.ParentPath(q) {
		if v.d.Failed(q) {
			return
		}
	}
	v.d.ProblemAt(path, value, rule)
}

// failed reports whether the value at path failed to decode: its problem is reported, and the
// field holds its default, which the rules that depend on it must not read as given.
func (v *validator) failed(path string) bool { return v.d.Failed(path) }

// reattribute reports the problems of err, as a model package's Validate returns them, at base:
// each *field.Error at its field under base (rename maps a package's field name to the
// scenario's, "-" dropping it), with its value and rule; any other error at base, its message
// the rule.
func (v *validator) reattribute(err error, base string, rename map[string]string) {
	for _, part := range field.Parts(err) {
		var fe *field.Error
		if !errors.As(part, &fe) {
			v.bad(base, "", part.Error())
			continue
		}
		name := fe.Field
		if r, ok := rename[name]; ok {
			if r == "-" {
				continue
			}
			name = r
		}
		v.bad(field.Join(base, name), fe.Value, fe.Rule)
	}
}

// validate checks every rule; problems go to d.
func (s *Scenario) validate(d *decoder, trySweep bool) {
	v := &validator{d: d, sc: s, trySweep: trySweep}
	v.name()
	if s.Duration <= 0 {
		v.bad("duration", s.Duration.String(), "must be > 0")
	}
	if !s.Warmup.Auto && (s.Warmup.Fixed < 0 || s.Duration > 0 && s.Warmup.Fixed >= s.Duration) {
		v.bad("warmup", s.Warmup.String(), "must be in [0s, duration "+s.Duration.String()+"), or auto")
	}
	switch {
	case s.Interval <= 0:
		v.bad("interval", s.Interval.String(), "must be > 0")
	case s.Duration > 0 && s.Interval > s.Duration:
		v.bad("interval", s.Interval.String(), "must be ≤ duration "+s.Duration.String())
	}
	v.topology()
	v.clients()
	v.loadScale()
	v.faults()
	v.recovery()
	v.sweep()
	v.expect()
}

// loadScale checks the scenario's load factor: a finite number > 0, and no open-loop group's
// peak rate, multiplied by it, beyond what a profile may reach (workload.MaxOpsRate).
func (v *validator) loadScale() {
	l := float64(v.sc.Load)
	if !(l > 0) || math.IsInf(l, 0) {
		v.bad("load", yamlstrict.FormatFloat(l), loadScaleRule)
		return
	}
	for i := range v.sc.Clients {
		g := &v.sc.Clients[i]
		if g.Workload.Rate == nil || g.Workload.Rate.p == nil {
			continue
		}
		if _, err := g.scaledRate(v.sc); err != nil {
			v.bad("load", yamlstrict.FormatFloat(l), fmt.Sprintf("clients[%d] (%s): %s", i, g.Name, strings.TrimPrefix(err.Error(), "load: ")))
		}
	}
}

// maxNameBytes bounds the names of a scenario, its nodes, shards and client groups. A scenario's
// name names its output folder (out/<name>, with a suffix such as -sweep): 100 bytes leave room
// for the suffixes within the 255 bytes a file name may have. The others go into stream names,
// results and plots.
const maxNameBytes = 100

// name checks the scenario's name: it names the output folder, so it must make a file name on
// every system, and a readable one.
func (v *validator) name() {
	name := v.sc.Name
	rule := ""
	switch {
	case strings.TrimSpace(name) == "":
		v.bad("name", `""`, "must not be empty")
		return
	case len(name) > maxNameBytes:
		rule = fmt.Sprintf("must be at most %d bytes: it names the output folder", maxNameBytes)
	case !scenarioName(name):
		rule = "must be letters, digits, spaces and . _ - + ( ), not starting with . or a space nor ending with a space: it names the output folder"
	default:
		return
	}
	if _, given := v.d.At["name"]; !given && v.sc.src != nil {
		rule += " (this one is the file's name: give the scenario a name:)"
	}
	v.bad("name", strconv.Quote(name), rule)
}

// scenarioName reports whether s is fit to name a scenario: letters and digits of any script,
// spaces and . _ - + ( ); not starting with a dot (a hidden folder, or . and ..) or a space, not
// ending with a space. Control characters, slashes and the characters some systems forbid in
// file names (\ : * ? " < > |) are not allowed.
func scenarioName(s string) bool {
	if s == "" || s[0] == '.' || s[0] == ' ' || s[len(s)-1] == ' ' || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || strings.ContainsRune(" ._-+()", r)) {
			return false
		}
	}
	return true
}

// recovery checks the recovery rule.
func (v *validator) recovery() {
	r := v.sc.Recovery
	if r == nil {
		return
	}
	if !(r.K > 0) || math.IsInf(r.K, 0) {
		v.bad("recovery.k", yamlstrict.FormatFloat(r.K), "must be a finite number > 0")
	}
	if !(r.Floor >= 0 && r.Floor < 1) {
		v.bad("recovery.floor", yamlstrict.FormatFloat(r.Floor), "must be in [0, 1)")
	}
	for _, f := range []struct {
		name string
		d    time.Duration
	}{{"recovery.hold", r.Hold}, {"recovery.window", r.Window}} {
		if f.d < 0 || f.d > v.sc.Duration {
			v.bad(f.name, f.d.String(), "must be in [0s, duration "+v.sc.Duration.String()+"]")
		}
	}
}

// validName reports whether s is a name fit for stream names and paths: letters, digits and
// the characters in extra.
func validName(s, extra string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(extra, r)) {
			return false
		}
	}
	return true
}

// topology checks the topology: its router, its election time, each node, and the replica
// sets the nodes form. Rules that depend on the kind wait for a kind that decoded.
func (v *validator) topology() {
	t := &v.sc.Topology
	kindOK := !v.failed("topology.kind")
	if t.Router != nil {
		if kindOK && !t.Sharded() {
			v.bad("topology.router", "(given)", "applies to a sharded topology only")
		}
		v.router(t.Router)
	}
	if t.ElectionTime <= 0 {
		v.bad("topology.electionTime", t.ElectionTime.String(), "must be > 0")
	}
	if len(t.Nodes) == 0 {
		v.bad("topology.nodes", "[]", "must list at least one node")
	}
	seen := map[string]int{}
	for i := range t.Nodes {
		n := &t.Nodes[i]
		p := fmt.Sprintf("topology.nodes[%d]", i)
		v.nodeName(n, p, seen, i)
		if kindOK {
			v.nodeRole(n, p)
			v.nodeShard(n, p)
			v.nodeFlavor(n, p)
		}
		v.nodeDists(n, p)
		v.nodeConfig(n, p)
	}
	if kindOK {
		v.replicaSets()
	}
}

// nodeName checks that a node's name is fit for stream names and unique.
func (v *validator) nodeName(n *Node, p string, seen map[string]int, i int) {
	switch {
	case len(n.Name) > maxNameBytes:
		v.bad(p+".name", strconv.Quote(n.Name), fmt.Sprintf("must be at most %d bytes", maxNameBytes))
	case !validName(n.Name, "._:-"):
		v.bad(p+".name", strconv.Quote(n.Name), "must be a non-empty name of letters, digits and . _ : -")
	case seen[n.Name] > 0:
		v.bad(p+".name", n.Name, fmt.Sprintf("must be unique (also nodes[%d])", seen[n.Name]-1))
	default:
		seen[n.Name] = i + 1
	}
}

// nodeRole checks that a node's role fits the topology's kind.
func (v *validator) nodeRole(n *Node, p string) {
	role := strconv.Quote(roleName(n.Role))
	switch v.sc.Topology.Kind {
	case selection.Single:
		if n.Role != wire.Standalone {
			v.bad(p+".role", role, "must be standalone in a standalone topology")
		}
	case selection.ReplicaSet:
		if n.Role != wire.Primary && n.Role != wire.Secondary {
			v.bad(p+".role", role, "must be primary or secondary in a replica set")
		}
	case selection.Sharded:
		if n.Role != wire.Primary && n.Role != wire.Secondary && n.Role != wire.Mongos {
			v.bad(p+".role", role, "must be mongos, primary or secondary in a sharded topology")
		}
	}
}

// nodeShard checks a node's shard: only a sharded topology's data nodes have one, and they must.
func (v *validator) nodeShard(n *Node, p string) {
	sharded := v.sc.Topology.Sharded()
	switch {
	case !sharded && n.Shard != "":
		v.bad(p+".shard", n.Shard, "applies to a sharded topology only")
	case sharded && n.Role == wire.Mongos && n.Shard != "":
		v.bad(p+".shard", n.Shard, "a mongos belongs to no shard")
	case sharded && n.Role != wire.Mongos && len(n.Shard) > maxNameBytes:
		v.bad(p+".shard", strconv.Quote(n.Shard), fmt.Sprintf("must be at most %d bytes", maxNameBytes))
	case sharded && n.Role != wire.Mongos && !validName(n.Shard, "._-"):
		v.bad(p+".shard", strconv.Quote(n.Shard), "every shard member names its shard (letters, digits and . _ -)")
	}
}

// nodeFlavor checks that a couchbase node stands alone.
func (v *validator) nodeFlavor(n *Node, p string) {
	if n.Flavor == server.FlavorCouchbase && v.sc.Topology.Kind != selection.Single {
		v.bad(p+".flavor", n.Flavor.String(), "a couchbase node stands alone: use topology.kind standalone")
	}
}

// nodeDists checks that a node has its distributions, and service times only for commands.
func (v *validator) nodeDists(n *Node, p string) {
	if n.Service.D == nil {
		v.bad(p+".service", "null", "must be a distribution such as exp(1ms)")
	}
	if n.NetworkDelay.D == nil {
		v.bad(p+".networkDelay", "null", "must be a distribution such as const(500µs)")
	}
	for name, dd := range n.ServiceByCommand {
		cmd, ok := wire.ParseCommand(name)
		if !ok || cmd == wire.Connect || cmd == wire.Disconnect {
			v.bad(p+".serviceByCommand."+name, name, "unknown command; known: "+strings.Join(serviceCommands(), ", "))
		}
		if dd.D == nil {
			v.bad(p+".serviceByCommand."+name, "null", "must be a distribution")
		}
	}
}

// nodeConfig checks externalClientBaseBackoffMS in the scenario's unit, then the rest of the
// node by server.Config.Validate.
func (v *validator) nodeConfig(n *Node, p string) {
	if n.ExternalClientBaseBackoff%time.Millisecond != 0 {
		v.bad(p+".externalClientBaseBackoffMS", n.ExternalClientBaseBackoff.String(), "must be a whole number of milliseconds")
	}
	if n.ExternalClientBaseBackoff < 0 {
		v.bad(p+".externalClientBaseBackoffMS", n.ExternalClientBaseBackoff.String(), "must be ≥ 0 (0 = off)")
	}
	cfg := n.ServerConfig()
	cfg.Role, cfg.Flavor = wire.Standalone, server.FlavorMongoDB // checked above, against the topology kind
	cfg.ExternalClientBaseBackoffMS = 0                          // checked above, in the scenario's unit
	v.reattribute(cfg.Validate(), p, map[string]string{"address": "name"})
}

// replicaSets checks the replica sets the nodes form: a replica set starts with one primary; a
// sharded topology has mongos nodes and shards, each starting with one primary.
func (v *validator) replicaSets() {
	t := &v.sc.Topology
	primaries := map[string]int{} // by shard ("" outside sharded topologies)
	shards := map[string]bool{}
	mongoses := 0
	for i := range t.Nodes {
		n := &t.Nodes[i]
		switch n.Role {
		case wire.Primary:
			primaries[n.Shard]++
		case wire.Mongos:
			mongoses++
		}
		if n.Role != wire.Mongos && n.Shard != "" {
			shards[n.Shard] = true
		}
	}
	switch t.Kind {
	case selection.ReplicaSet:
		if len(t.Nodes) > 0 && primaries[""] != 1 {
			v.bad("topology.nodes", fmt.Sprintf("%d primaries", primaries[""]), "a replica set starts with exactly one primary")
		}
	case selection.Sharded:
		if mongoses == 0 {
			v.bad("topology.nodes", "no mongos", "a sharded topology needs at least one node with role mongos")
		}
		if len(shards) == 0 && mongoses > 0 {
			v.bad("topology.nodes", "no shard", "a sharded topology needs at least one shard member (primary or secondary with a shard)")
		}
		for _, sh := range sortedKeys(shards) {
			if primaries[sh] != 1 {
				v.bad("topology.nodes", fmt.Sprintf("%d primaries in shard %s", primaries[sh], sh), "every shard starts with exactly one primary")
			}
		}
	}
}

// router checks the mongos routing parameters.
func (v *validator) router(r *Router) {
	p := "topology.router"
	cfg := r.Config("mongos")
	for _, l := range r.ExhaustedLabels {
		if _, ok := wire.ParseLabel(l); !ok {
			v.bad(p+".exhaustedRetryLabels", strconv.Quote(l), "unknown error label; known: "+strings.Join(wire.LabelNames(), ", "))
		}
	}
	if !cfg.ExhaustedLabels.Has(wire.SystemOverloadedError) {
		v.bad(p+".exhaustedRetryLabels", "["+strings.Join(r.ExhaustedLabels, ", ")+"]", "must include SystemOverloadedError: it is an overload error whatever else it says")
	}
	v.reattribute(cfg.Validate(), p, nil)
}

// serviceCommands lists the commands serviceByCommand accepts.
func serviceCommands() []string {
	var out []string
	for i := range wire.NumCommands {
		c := wire.Command(i)
		if c != wire.Connect && c != wire.Disconnect {
			out = append(out, c.String())
		}
	}
	slices.Sort(out)
	return out
}

func (v *validator) clients() {
	s := v.sc
	if len(s.Clients) == 0 {
		v.bad("clients", "[]", "must list at least one client group")
	}
	seen := map[string]int{}
	for i := range s.Clients {
		g := &s.Clients[i]
		p := fmt.Sprintf("clients[%d]", i)
		switch {
		case len(g.Name) > maxNameBytes:
			v.bad(p+".name", strconv.Quote(g.Name), fmt.Sprintf("must be at most %d bytes", maxNameBytes))
		case !validName(g.Name, "._-"):
			v.bad(p+".name", strconv.Quote(g.Name), "must be a non-empty name of letters, digits and . _ -")
		case seen[g.Name] > 0:
			v.bad(p+".name", g.Name, fmt.Sprintf("must be unique (also clients[%d])", seen[g.Name]-1))
		default:
			seen[g.Name] = i + 1
		}
		if g.Count < 1 || g.Count > maxCount {
			v.bad(p+".count", strconv.Itoa(g.Count), fmt.Sprintf("must be in [1, %d]", maxCount))
		}
		v.driver(g, p+".driver")
		v.workload(g, p)
		v.hosts(g, p)
	}
}

// hosts checks a group's host list, and that its clients speak the protocol of the nodes they
// reach and of the operations they issue.
func (v *validator) hosts(g *Group, p string) {
	t := &v.sc.Topology
	kindOK := !v.failed("topology.kind")
	switch {
	case !kindOK:
	case t.Kind == selection.ReplicaSet && len(g.Hosts) > 0:
		v.bad(p+".hosts", "["+strings.Join(g.Hosts, ", ")+"]", "a replica set's clients discover every member: leave hosts out")
	case t.Kind == selection.Single && len(t.Nodes) > 1 && len(g.Hosts) != 1:
		v.bad(p+".hosts", "["+strings.Join(g.Hosts, ", ")+"]", fmt.Sprintf("name exactly one node: the standalone topology has %d independent nodes (%s)",
			len(t.Nodes), strings.Join(nodeNames(v.sc), ", ")))
		if len(g.Hosts) == 0 {
			return // which node it meant is unknown: its protocol cannot be checked
		}
	}
	seen := map[string]bool{}
	for i, h := range g.Hosts {
		hp := fmt.Sprintf("%s.hosts[%d]", p, i)
		n := v.sc.Node(h)
		switch {
		case n == nil:
			v.bad(hp, h, "no such node; nodes: "+strings.Join(nodeNames(v.sc), ", "))
		case seen[h]:
			v.bad(hp, h, "listed twice")
		case kindOK && t.Sharded() && n.Role != wire.Mongos:
			v.bad(hp, h, "a sharded cluster's clients connect to mongos nodes only")
		}
		seen[h] = true
	}
	couchbase := retry.Couchbase(g.Driver.RetryPolicy)
	want := server.FlavorMongoDB
	if couchbase {
		want = server.FlavorCouchbase
	}
	for _, h := range t.Hosts(g) {
		i := slices.IndexFunc(t.Nodes, func(n Node) bool { return n.Name == h })
		if i < 0 || v.failed(fmt.Sprintf("topology.nodes[%d].flavor", i)) {
			continue // reported above, or with the node
		}
		if n := &t.Nodes[i]; n.Flavor != want {
			v.bad(p+".driver.retryPolicy", g.Driver.RetryPolicy, fmt.Sprintf("a %s client cannot talk to node %s, which speaks %s", want, n.Name, n.Flavor))
		}
	}
	for _, kind := range sortedKeys(g.Mix) {
		if k, ok := client.ParseOpKind(kind); ok && k.Couchbase() != couchbase {
			rule := "a MongoDB operation: it needs a MongoDB retry policy"
			if k.Couchbase() {
				rule = "a Couchbase request: it needs a couchbase-* retry policy"
			}
			v.bad(p+".mix."+kind, kind, rule+" (retryPolicy "+g.Driver.RetryPolicy+")")
		}
	}
}

// driver checks a group's driver options by client.Options.Validate; the read preference's
// mode, which the decoder has read, and the topology kind are the scenario's own.
func (v *validator) driver(g *Group, p string) {
	rename := map[string]string{"readPreference.tagSets": "readPreferenceTags", "readPreference.mode": "-", "topology": "-"}
	if v.failed(p + ".readPreference") {
		rename["readPreference.tagSets"] = "-" // the tag rules depend on the mode, which is not known
	}
	v.reattribute(g.Driver.ClientOptions().Validate(v.sc.Topology.Kind), p, rename)
	v.otherBlocks(g, p)
}

func (v *validator) workload(g *Group, p string) {
	w := &g.Workload
	wp := p + ".workload"
	open := w.Rate != nil
	switch {
	case open && w.Threads != 0:
		v.bad(wp, "rate and threads", "choose an open loop (arrivals, rate) or a closed loop (threads, think), not both")
	case !open && w.Threads == 0:
		v.bad(wp, "no rate, no threads", "needs rate (an open loop) or threads ≥ 1 (a closed loop)")
	}
	if open {
		switch w.Arrivals {
		case "poisson", "fixed":
		default:
			v.bad(wp+".arrivals", strconv.Quote(w.Arrivals), "must be poisson or fixed")
		}
		if w.Think.D != nil {
			v.bad(wp+".think", w.Think.String(), "applies to a closed loop (threads) only")
		}
		if w.Pace != 0 {
			v.bad(wp+".pace", w.Pace.String(), "applies to a closed loop (threads) only")
		}
	} else {
		if w.Arrivals != "" {
			v.bad(wp+".arrivals", w.Arrivals, "applies to an open loop (rate) only")
		}
		if w.Pace < 0 {
			v.bad(wp+".pace", w.Pace.String(), "must be ≥ 0s (0s = no pacing)")
		}
		if w.Assign != client.AssignRoundRobin {
			v.bad(wp+".assign", w.Assign.String(), "applies to an open loop (rate) only")
		}
	}
	for kind := range g.Mix {
		if _, ok := client.ParseOpKind(kind); !ok {
			v.bad(p+".mix."+kind, kind, "unknown operation; known: "+strings.Join(client.OpKindNames(), ", "))
		}
	}
	mix, err := workload.NewMix(mixWeights(g.Mix))
	v.reattribute(err, p+".mix", nil) // a weight's field is its kind
	r := g.AppRetry
	if r.Attempts < 1 {
		v.bad(p+".appRetry.attempts", strconv.Itoa(r.Attempts), "must be ≥ 1 (1 = no application retries)")
	}
	if r.Backoff != client.BackoffNone && r.Base <= 0 {
		v.bad(p+".appRetry.base", r.Base.String(), "must be > 0 with backoff "+r.Backoff.String())
	}
	cw := client.Workload{Threads: w.Threads, Mix: mix, Kinds: []client.OpKind{client.Find}, Timeout: g.Timeout,
		Retry: client.AppRetry{Attempts: max(r.Attempts, 0), PerAttemptTimeout: r.PerAttemptTimeout,
			Backoff: r.Backoff, Base: r.Base, Cap: r.Cap}}
	if open {
		cw.Arrivals = workload.Poisson(constantZero)
		cw.Threads = 0
	} else if cw.Threads == 0 {
		cw.Threads = 1 // the missing loop is reported above
	}
	if mix == nil {
		cw.Mix = constantMix // reported above
	}
	v.reattribute(cw.Validate(), p, map[string]string{"threads": "workload.threads", "workload": "-"})
}

// Stand-ins that let client.Workload.Validate check the rest of a workload whose loop or mix
// has a problem already reported.
var (
	constantZero, _ = workload.Constant(0)
	constantMix, _  = workload.NewMix([]workload.Weight{{Kind: "find", Weight: 1}})
)

// mixWeights lists a mix's weights, sorted by kind.
func mixWeights(m map[string]float64) []workload.Weight {
	out := make([]workload.Weight, 0, len(m))
	for k, w := range m {
		out = append(out, workload.Weight{Kind: k, Weight: w})
	}
	slices.SortFunc(out, func(a, b workload.Weight) int { return strings.Compare(a.Kind, b.Kind) })
	return out
}

// faultFields lists the kind-specific fields and the kind each belongs to.
var faultFields = []struct {
	name  string
	kind  server.FaultKind
	given func(f *Fault) bool
}{
	{"mode", server.FaultFailPoint, func(f *Fault) bool { return f.Mode != nil }},
	{"data", server.FaultFailPoint, func(f *Fault) bool { return f.Data != nil }},
	{"workers", server.FaultCapacity, func(f *Fault) bool { return f.Workers != 0 }},
	{"speed", server.FaultCapacity, func(f *Fault) bool { return f.Speed != 0 }},
	{"delay", server.FaultNetworkDelay, func(f *Fault) bool { return f.Delay != 0 }},
	{"successor", server.FaultStepDown, func(f *Fault) bool { return f.Successor != "" }},
	{"group", loadKind, func(f *Fault) bool { return f.Group != "" }},
	{"factor", loadKind, func(f *Fault) bool { return f.Factor != 0 }},
	{"ingressRequestRateLimiterEnabled", server.FaultRequestLimiter, func(f *Fault) bool { return f.RequestLimiter.Enabled != nil }},
	{"ingressRequestAdmissionRatePerSec", server.FaultRequestLimiter, func(f *Fault) bool { return f.RequestLimiter.RatePerSec != nil }},
	{"ingressRequestAdmissionBurstCapacitySecs", server.FaultRequestLimiter, func(f *Fault) bool { return f.RequestLimiter.BurstCapacitySecs != nil }},
	{"ingressRequestAdmissionMaxQueueDepth", server.FaultRequestLimiter, func(f *Fault) bool { return f.RequestLimiter.MaxQueueDepth != nil }},
	{"ingressRequestRateLimiterApplicationExemptions", server.FaultRequestLimiter, func(f *Fault) bool { return f.RequestLimiter.ApplicationExemptions != nil }},
	{"ingressConnectionEstablishmentRateLimiterEnabled", server.FaultConnLimiter, func(f *Fault) bool { return f.ConnLimiter.Enabled != nil }},
	{"ingressConnectionEstablishmentRatePerSec", server.FaultConnLimiter, func(f *Fault) bool { return f.ConnLimiter.RatePerSec != nil }},
	{"ingressConnectionEstablishmentBurstCapacitySecs", server.FaultConnLimiter, func(f *Fault) bool { return f.ConnLimiter.BurstCapacitySecs != nil }},
	{"ingressConnectionEstablishmentMaxQueueDepth", server.FaultConnLimiter, func(f *Fault) bool { return f.ConnLimiter.MaxQueueDepth != nil }},
}

// fieldText is the value of the field of f that YAML calls name, as the canonical text writes
// it.
func fieldText(f *Fault, name string) string {
	v := reflect.ValueOf(f).Elem()
	for _, fi := range yamlstrict.Fields(v.Type(), schema{}) {
		if fi.Name == name {
			if n := encode(v.FieldByIndex(fi.Index), fi); n != nil {
				return yamlstrict.Inline(n)
			}
		}
	}
	return "(given)"
}

// faults checks each fault: the fields it gives belong to its kind, and a load fault follows
// load's rules; every other fault follows server.CheckFault's, on the topology's nodes, within
// the run.
func (v *validator) faults() {
	s := v.sc
	nodes := make([]server.Config, len(s.Topology.Nodes))
	for i := range s.Topology.Nodes {
		nodes[i] = s.Topology.Nodes[i].ServerConfig()
	}
	for i := range s.Faults {
		f := &s.Faults[i]
		p := fmt.Sprintf("faults[%d]", i)
		if !v.failed(p + ".kind") {
			v.faultFields(f, p)
		}
		if f.Kind == loadKind {
			v.load(f, p)
			continue
		}
		sf := f.ServerFault()
		if f.Kind == server.FaultFailPoint && !v.failPointGiven(f, p) {
			// What is missing is reported; the rest of the fault is checked as if the
			// failpoint were off, which has nothing more to check.
			sf.FailPoint = failpoint.Config{Mode: failpoint.Off()}
		}
		v.reattribute(server.CheckFault(sf, nodes, max(s.Duration, 0)), p, nil)
	}
}

// faultFields checks that a fault gives only the fields of its kind.
func (v *validator) faultFields(f *Fault, p string) {
	for _, ff := range faultFields {
		if ff.kind != f.Kind && ff.given(f) {
			v.bad(p+"."+ff.name, fieldText(f, ff.name), "applies to a "+faultKindName(ff.kind)+" fault only")
		}
	}
}

// load checks a load fault: its time, a factor, a duration, no node, and open-loop groups whose
// profile can be scaled over a window.
func (v *validator) load(f *Fault, p string) {
	s := v.sc
	v.reattribute(server.CheckFaultTime(f.At, f.For, max(s.Duration, 0)), p, nil)
	if f.Node != "" {
		v.bad(p+".node", f.Node, "a load fault changes a client group's rate, not a node: name the group")
	}
	if !(f.Factor > 0) || math.IsInf(f.Factor, 0) {
		v.bad(p+".factor", yamlstrict.FormatFloat(f.Factor), "must be a finite number > 0 (the rate's multiplier: 3 triples it)")
	}
	if f.For <= 0 {
		v.bad(p+".for", f.For.String(), "a load change lasts a while: must be > 0")
	}
	var names []string
	found := false
	for i := range s.Clients {
		g := &s.Clients[i]
		names = append(names, g.Name)
		if f.Group != "" && g.Name != f.Group {
			continue
		}
		found = true
		if g.Workload.Rate == nil {
			v.bad(p+".group", g.Name, "a load fault scales an open-loop rate; this group is a closed loop (threads)")
			continue
		}
		if g.Workload.Rate.Kind == "sine" {
			v.bad(p+".group", g.Name, "a load fault cannot scale a sine rate (only constant, step, ramp, spike, piecewise and trace)")
		}
	}
	if f.Group != "" && !found {
		v.bad(p+".group", f.Group, "no such client group; groups: "+strings.Join(names, ", "))
	}
}

func nodeNames(s *Scenario) []string {
	out := make([]string, len(s.Topology.Nodes))
	for i, n := range s.Topology.Nodes {
		out[i] = n.Name
	}
	return out
}

// failPointGiven reports a failPoint fault's missing mode or data, and whether both are there to
// be checked.
func (v *validator) failPointGiven(f *Fault, p string) bool {
	if f.Mode == nil {
		v.bad(p+".mode", "(missing)", "required for a failPoint fault: alwaysOn, off, {times: N}, {skip: N} or {activationProbability: P}")
		return false
	}
	if f.Data == nil && f.Mode.Kind != failpoint.ModeOff {
		v.bad(p+".data", "(missing)", "required for a failPoint fault: {failCommands: [...], errorCode: …}")
		return false
	}
	return true
}

// failPoint is the fault's configureFailPoint command.
func (f *Fault) failPoint() failpoint.Config {
	c := failpoint.Config{}
	if f.Mode != nil {
		c.Mode = f.Mode.Mode
	}
	if d := f.Data; d != nil {
		c.FailCommands, c.ErrorCode = d.FailCommands, d.ErrorCode
		c.ErrorLabels, c.HasErrorLabels = d.ErrorLabels, d.ErrorLabels != nil
		c.CloseConnection, c.BlockConnection, c.BlockTimeMS = d.CloseConnection, d.BlockConnection, d.BlockTimeMS
		c.AppName = d.AppName
		c.FailInternalCommands = d.FailInternalCommands
		if d.RetryPushbackMS != nil {
			c.RetryPushbackMS, c.HasRetryPushback = *d.RetryPushbackMS, true
		}
	}
	return c
}

func (f *Fault) requestLimiter() server.RequestLimiterConfig {
	r := f.RequestLimiter
	c := server.RequestLimiterConfig{}
	if r.Enabled != nil {
		c.Enabled = *r.Enabled
	}
	if r.RatePerSec != nil {
		c.AdmissionRatePerSec = *r.RatePerSec
	}
	if r.BurstCapacitySecs != nil {
		c.AdmissionBurstCapacitySecs = *r.BurstCapacitySecs
	}
	if r.MaxQueueDepth != nil {
		c.AdmissionMaxQueueDepth = *r.MaxQueueDepth
	}
	if r.ApplicationExemptions != nil {
		c.ApplicationExemptions = *r.ApplicationExemptions
	}
	return c
}

func (f *Fault) connLimiter() server.ConnLimiterConfig {
	r := f.ConnLimiter
	c := server.ConnLimiterConfig{}
	if r.Enabled != nil {
		c.Enabled = *r.Enabled
	}
	if r.RatePerSec != nil {
		c.RatePerSec = *r.RatePerSec
	}
	if r.BurstCapacitySecs != nil {
		c.BurstCapacitySecs = *r.BurstCapacitySecs
	}
	if r.MaxQueueDepth != nil {
		c.MaxQueueDepth = *r.MaxQueueDepth
	}
	return c
}

func (v *validator) sweep() {
	sw := &v.sc.Sweep
	if sw.Replications < 1 {
		v.bad("sweep.replications", strconv.Itoa(sw.Replications), "must be ≥ 1")
	}
	if len(sw.Parameters) == 0 {
		return
	}
	points := 1
	for _, path := range sw.Paths() {
		points *= max(len(sw.Parameters[path].Values), 1)
		if points > maxSweepPoints {
			v.bad("sweep.parameters", strconv.Itoa(points)+"+ points", fmt.Sprintf("a sweep may have at most %d points", maxSweepPoints))
			return
		}
	}
	if !v.trySweep || v.sc.src == nil || len(v.d.Errors) > 0 {
		return // the values are checked once the rest of the scenario is valid
	}
	// The values are tried on the scenario without its sweep, so that checking a value does
	// not check the sweep again.
	tree := v.sc.src.tree.Clone()
	if err := tree.Set("sweep", &yamlstrict.Node{Kind: yamlstrict.MapKind}); err != nil {
		return
	}
	base, err := decodeScenario(v.sc.src.file, tree, v.sc.src.read)
	if err != nil {
		return
	}
	// Each value tried costs a decode of the whole scenario: within maxSweepTrialNodes, every
	// value is tried; beyond it, a share of each parameter's values, its first and last
	// included, until the budget runs out. Points builds every point, and so checks every
	// value, in any case.
	total := 0
	for _, sv := range sw.Parameters {
		total += len(sv.Values)
	}
	tries := max(maxSweepTrialNodes/(v.sc.src.tree.Count()+sweepTrialOverhead), 2)
	for _, path := range sw.Paths() {
		if strings.HasPrefix(path, "sweep") {
			v.bad("sweep.parameters."+path, path, "a sweep cannot vary itself")
			continue
		}
		values := sw.Parameters[path].Values
		for _, i := range sample(len(values), len(values)*tries/max(total, 1)) {
			if tries <= 0 {
				return // out of budget: Points checks the rest
			}
			tries--
			if _, err := base.setting(path, values[i]); err != nil {
				v.bad("sweep.parameters."+path, values[i], describeSetError(path, values[i], err))
				break
			}
		}
	}
}

// maxSweepTrialNodes bounds the work of checking a sweep's values when a scenario is read: the
// values tried × (the nodes of the scenario's tree + sweepTrialOverhead), each value a decode
// of the whole scenario, which allocates some 0.5–0.8 KB per node and 10 KB besides (the
// defaults, the validation). 50 000 is some 25 MB and a few hundredths of a second: a library
// scenario (some 110 nodes) has 230 values tried, a minimal one 420.
const (
	maxSweepTrialNodes = 50_000
	sweepTrialOverhead = 100
)

// sample returns the indices of k of n values (at least the first and the last, all of them
// when k ≥ n), evenly spaced, in order.
func sample(n, k int) []int {
	k = min(max(k, 2), n)
	out := make([]int, k)
	for j := range out {
		if k == 1 {
			break
		}
		out[j] = int(int64(j) * int64(n-1) / int64(k-1))
	}
	return out
}

// describeSetError is the rule part of a failed sweep value, which the problem reports with the
// parameter's path and the value: the override's problems without their position, each
// without the path and value when they are the parameter's own, or why the value could not be
// set at all.
func describeSetError(path, value string, err error) string {
	var oe *overrideError
	if errors.As(err, &oe) {
		return oe.err.Error()
	}
	var ps Problems
	if !errors.As(err, &ps) {
		return err.Error()
	}
	parts := make([]string, len(ps))
	for i, p := range ps {
		if p.Path == path && p.Value == value {
			parts[i] = field.ShowN(p.Rule, field.MaxRuleRunes)
			continue
		}
		parts[i] = field.ShowN(p.Path, field.MaxFieldRunes) + ": " + field.Show(p.Value) + ": " + field.ShowN(p.Rule, field.MaxRuleRunes)
	}
	return strings.Join(parts, "; ")
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
