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

	"overloadsim/client"
	"overloadsim/client/retry"
	"overloadsim/client/selection"
	"overloadsim/client/workload"
	"overloadsim/server"
	"overloadsim/server/failpoint"
	"overloadsim/wire"
)

// Limits on sizes, so that a scenario cannot ask for more than a machine holds.
const (
	maxCount       = 100_000 // clients per group
	maxSweepPoints = 100_000 // combinations of sweep values
)

// validator checks the rules of a decoded scenario. Problems go to the decoder, which knows
// where each value sits in the file.
type validator struct {
	d  *decoder
	sc *Scenario
	// trySweep tries every sweep value on the scenario (with Set), which costs a decode per
	// value; Build skips it, as Parse has done it.
	trySweep bool
}

func (v *validator) bad(path, value, rule string) {
	// A field that failed to decode has its problem already; so do the fields under it and
	// the rules about the whole it belongs to.
	for p := range v.d.bad {
		if p == path || strings.HasPrefix(p, path+".") || strings.HasPrefix(p, path+"[") ||
			strings.HasPrefix(path, p+".") || strings.HasPrefix(path, p+"[") {
			return
		}
	}
	v.d.problemAt(path, value, rule)
}

// reattribute reports the leaves of err, each "field: value: rule" after prefix, as problems
// at base.field; rename maps a package's field names to the scenario's.
func (v *validator) reattribute(err error, prefix, base string, rename map[string]string) {
	for _, e := range flatten(err) {
		msg := strings.TrimPrefix(e.Error(), prefix)
		field, rest, ok := strings.Cut(msg, ": ")
		if !ok {
			v.bad(base, "", msg)
			continue
		}
		value, rule, ok := strings.Cut(rest, ": ")
		if !ok {
			value, rule = "", rest
		}
		if r, ok := rename[field]; ok {
			field = r
		}
		if field == "-" {
			continue
		}
		v.bad(joinPath(base, field), value, rule)
	}
}

// validate checks every rule; problems go to d.
func (s *Scenario) validate(d *decoder, trySweep bool) {
	v := &validator{d: d, sc: s, trySweep: trySweep}
	if strings.TrimSpace(s.Name) == "" {
		v.bad("name", `""`, "must not be empty")
	}
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
	v.faults()
	v.recovery()
	v.sweep()
}

// recovery checks the recovery rule.
func (v *validator) recovery() {
	r := v.sc.Recovery
	if r == nil {
		return
	}
	if !(r.K > 0) || math.IsInf(r.K, 0) {
		v.bad("recovery.k", formatFloat(r.K), "must be a finite number > 0")
	}
	if !(r.Floor >= 0 && r.Floor < 1) {
		v.bad("recovery.floor", formatFloat(r.Floor), "must be in [0, 1)")
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

func (v *validator) topology() {
	t := &v.sc.Topology
	switch t.Kind {
	case "standalone", "replicaset", "sharded":
	default:
		v.bad("topology.kind", strconv.Quote(t.Kind), "must be standalone, replicaset or sharded")
	}
	if t.Kind != "sharded" && t.Router != nil {
		v.bad("topology.router", "(given)", "applies to a sharded topology only")
	}
	if t.Router != nil {
		v.router(t.Router)
	}
	if t.ElectionTime <= 0 {
		v.bad("topology.electionTime", t.ElectionTime.String(), "must be > 0")
	}
	if len(t.Nodes) == 0 {
		v.bad("topology.nodes", "[]", "must list at least one node")
	}
	primaries := map[string]int{} // by shard ("" outside sharded topologies)
	mongoses := 0
	seen := map[string]int{}
	for i := range t.Nodes {
		n := &t.Nodes[i]
		p := fmt.Sprintf("topology.nodes[%d]", i)
		switch {
		case !validName(n.Name, "._:-"):
			v.bad(p+".name", strconv.Quote(n.Name), "must be a non-empty name of letters, digits and . _ : -")
		case seen[n.Name] > 0:
			v.bad(p+".name", n.Name, fmt.Sprintf("must be unique (also nodes[%d])", seen[n.Name]-1))
		default:
			seen[n.Name] = i + 1
		}
		switch {
		case t.Kind == "standalone" && n.Role != "standalone":
			v.bad(p+".role", strconv.Quote(n.Role), "must be standalone in a standalone topology")
		case t.Kind == "replicaset" && n.Role != "primary" && n.Role != "secondary":
			v.bad(p+".role", strconv.Quote(n.Role), "must be primary or secondary in a replica set")
		case t.Kind == "sharded" && n.Role != "primary" && n.Role != "secondary" && n.Role != "mongos":
			v.bad(p+".role", strconv.Quote(n.Role), "must be mongos, primary or secondary in a sharded topology")
		}
		switch {
		case t.Kind != "sharded" && n.Shard != "":
			v.bad(p+".shard", n.Shard, "applies to a sharded topology only")
		case t.Kind == "sharded" && n.Role == "mongos" && n.Shard != "":
			v.bad(p+".shard", n.Shard, "a mongos belongs to no shard")
		case t.Kind == "sharded" && n.Role != "mongos" && !validName(n.Shard, "._-"):
			v.bad(p+".shard", strconv.Quote(n.Shard), "every shard member names its shard (letters, digits and . _ -)")
		}
		switch n.flavor() {
		case "mongodb":
		case "couchbase":
			if t.Kind != "standalone" {
				v.bad(p+".flavor", n.Flavor, "a couchbase node stands alone: use topology.kind standalone")
			}
		default:
			v.bad(p+".flavor", strconv.Quote(n.Flavor), "must be mongodb or couchbase")
		}
		switch n.Role {
		case "primary":
			primaries[n.Shard]++
		case "mongos":
			mongoses++
		}
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
		if n.RejectCost < 0 {
			v.bad(p+".rejectCost", n.RejectCost.String(), "must be ≥ 0 (0s = free)")
		}
		if n.HandshakeCost < 0 {
			v.bad(p+".handshakeCost", n.HandshakeCost.String(), "must be ≥ 0")
		}
		if n.ExternalClientBaseBackoffMS%time.Millisecond != 0 {
			v.bad(p+".externalClientBaseBackoffMS", n.ExternalClientBaseBackoffMS.String(), "must be a whole number of milliseconds")
		}
		if n.ExternalClientBaseBackoffMS < 0 {
			v.bad(p+".externalClientBaseBackoffMS", n.ExternalClientBaseBackoffMS.String(), "must be ≥ 0 (0 = off)")
		}
		cfg := n.serverConfig()
		cfg.Role, cfg.Flavor = wire.Standalone, 0 // checked above, against the topology kind
		cfg.ExternalClientBaseBackoffMS = 0       // checked above, in the scenario's unit
		v.reattribute(cfg.Validate(), "server "+strconv.Quote(n.Name)+": ", p, map[string]string{"address": "name"})
	}
	switch t.Kind {
	case "replicaset":
		if len(t.Nodes) > 0 && primaries[""] != 1 {
			v.bad("topology.nodes", fmt.Sprintf("%d primaries", primaries[""]), "a replica set starts with exactly one primary")
		}
	case "sharded":
		if mongoses == 0 {
			v.bad("topology.nodes", "no mongos", "a sharded topology needs at least one node with role mongos")
		}
		shards := map[string]bool{}
		for i := range t.Nodes {
			if n := &t.Nodes[i]; n.Role != "mongos" && n.Shard != "" {
				shards[n.Shard] = true
			}
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
	cfg := r.config("mongos")
	for _, l := range r.ExhaustedLabels {
		if _, ok := wire.ParseLabel(l); !ok {
			v.bad(p+".exhaustedRetryLabels", strconv.Quote(l), "unknown error label; known: "+strings.Join(wire.LabelNames(), ", "))
		}
	}
	if !cfg.ExhaustedLabels.Has(wire.SystemOverloadedError) {
		v.bad(p+".exhaustedRetryLabels", "["+strings.Join(r.ExhaustedLabels, ", ")+"]", "must include SystemOverloadedError: it is an overload error whatever else it says")
	}
	v.reattribute(cfg.Validate(), "mongos: ", p, nil)
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
	kind := s.Topology.topologyKind()
	for i := range s.Clients {
		g := &s.Clients[i]
		p := fmt.Sprintf("clients[%d]", i)
		switch {
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
		v.driver(g, p+".driver", kind)
		v.workload(g, p)
		v.hosts(g, p)
	}
}

// hosts checks a group's host list, and that its clients speak the protocol of the nodes they
// reach and of the operations they issue.
func (v *validator) hosts(g *Group, p string) {
	t := &v.sc.Topology
	switch {
	case t.Kind == "replicaset" && len(g.Hosts) > 0:
		v.bad(p+".hosts", "["+strings.Join(g.Hosts, ", ")+"]", "a replica set's clients discover every member: leave hosts out")
	case t.Kind == "standalone" && len(t.Nodes) > 1 && len(g.Hosts) != 1:
		v.bad(p+".hosts", "["+strings.Join(g.Hosts, ", ")+"]", fmt.Sprintf("name exactly one node: the standalone topology has %d independent nodes (%s)",
			len(t.Nodes), strings.Join(nodeNames(v.sc), ", ")))
		if len(g.Hosts) == 0 {
			return // which node it meant is unknown: its protocol cannot be checked
		}
	}
	seen := map[string]bool{}
	for i, h := range g.Hosts {
		hp := fmt.Sprintf("%s.hosts[%d]", p, i)
		n := v.sc.node(h)
		switch {
		case n == nil:
			v.bad(hp, h, "no such node; nodes: "+strings.Join(nodeNames(v.sc), ", "))
		case seen[h]:
			v.bad(hp, h, "listed twice")
		case t.Kind == "sharded" && n.Role != "mongos":
			v.bad(hp, h, "a sharded cluster's clients connect to mongos nodes only")
		}
		seen[h] = true
	}
	couchbase := retry.Couchbase(g.Driver.RetryPolicy)
	want := server.FlavorMongoDB
	if couchbase {
		want = server.FlavorCouchbase
	}
	for _, h := range t.hosts(g) {
		n := v.sc.node(h)
		if n == nil {
			continue // reported above
		}
		// An unknown flavor is reported with the node.
		if f, ok := server.ParseFlavor(n.flavor()); ok && f != want {
			v.bad(p+".driver.retryPolicy", g.Driver.RetryPolicy, fmt.Sprintf("a %s client cannot talk to node %s, which speaks %s", want, n.Name, f))
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

func (v *validator) driver(g *Group, p string, kind selection.TopologyKind) {
	dr := &g.Driver
	if _, ok := selection.ParseMode(dr.ReadPreference); !ok {
		v.bad(p+".readPreference", strconv.Quote(dr.ReadPreference), "must be primary, primaryPreferred, secondary, secondaryPreferred or nearest")
	}
	for _, e := range flatten(dr.options().Validate(kind)) {
		var fe *selection.FieldError
		var oe *retry.OptionError
		switch {
		case errors.As(e, &fe):
			switch fe.Field {
			case "readPreference.tagSets":
				v.bad(p+".readPreferenceTags", fe.Value, fe.Rule)
			case "readPreference.mode", "topology":
				// reported above, with the text from the file
			default:
				v.bad(p, fe.Value, fe.Field+": "+fe.Rule)
			}
		case errors.As(e, &oe):
			v.bad(p+"."+oe.Field, oe.Value, oe.Rule+" (retryPolicy "+oe.Policy+")")
		case errors.Is(e, retry.ErrUnknownPolicy):
			v.bad(p+".retryPolicy", strconv.Quote(dr.RetryPolicy), "unknown policy; known: "+strings.Join(retry.Names(), ", "))
		default:
			v.reattribute(e, "", p, nil)
		}
	}
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
	} else if w.Arrivals != "" {
		v.bad(wp+".arrivals", w.Arrivals, "applies to an open loop (rate) only")
	}
	for kind := range g.Mix {
		if _, ok := client.ParseOpKind(kind); !ok {
			v.bad(p+".mix."+kind, kind, "unknown operation; known: "+strings.Join(client.OpKindNames(), ", "))
		}
	}
	mix, err := workload.NewMix(mixWeights(g.Mix))
	for _, e := range flatten(err) {
		msg := strings.TrimPrefix(e.Error(), "workload: mix: ")
		head, rule, _ := strings.Cut(msg, ": ")
		if i, j := strings.Index(head, "("), strings.Index(head, ")"); strings.HasPrefix(head, "weight #") && i > 0 && j > i {
			v.bad(p+".mix."+head[i+1:j], strings.TrimSpace(head[j+1:]), rule)
			continue
		}
		v.bad(p+".mix", head, rule)
	}
	r := g.AppRetry
	backoff, ok := client.ParseBackoffKind(r.Backoff)
	if !ok {
		v.bad(p+".appRetry.backoff", strconv.Quote(r.Backoff), "must be none, exponential or fullJitter")
	}
	for _, f := range []struct {
		name string
		d    time.Duration
	}{{"perAttemptTimeout", r.PerAttemptTimeout}, {"base", r.Base}, {"cap", r.Cap}} {
		if f.d < 0 {
			v.bad(p+".appRetry."+f.name, f.d.String(), "must be ≥ 0")
		}
	}
	if r.Attempts < 1 {
		v.bad(p+".appRetry.attempts", strconv.Itoa(r.Attempts), "must be ≥ 1 (1 = no application retries)")
	}
	if (r.Backoff == "exponential" || r.Backoff == "fullJitter") && r.Base <= 0 {
		v.bad(p+".appRetry.base", r.Base.String(), "must be > 0 with backoff "+r.Backoff)
	}
	cw := client.Workload{Threads: w.Threads, Mix: mix, Kinds: []client.OpKind{client.Find}, Timeout: g.Timeout,
		Retry: client.AppRetry{Attempts: max(r.Attempts, 0), Backoff: backoff}}
	if open {
		cw.Arrivals = workload.Poisson(constantZero)
		cw.Threads = 0
	} else if cw.Threads == 0 {
		cw.Threads = 1 // the missing loop is reported above
	}
	if mix == nil {
		cw.Mix = constantMix // reported above
	}
	v.reattribute(cw.Validate(), "", p, map[string]string{"threads": "workload.threads", "workload": "-"})
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
	name, kind string
	given      func(f *Fault) bool
}{
	{"mode", "failPoint", func(f *Fault) bool { return f.Mode != nil }},
	{"data", "failPoint", func(f *Fault) bool { return f.Data != nil }},
	{"workers", "capacity", func(f *Fault) bool { return f.Workers != 0 }},
	{"speed", "capacity", func(f *Fault) bool { return f.Speed != 0 }},
	{"delay", "networkDelay", func(f *Fault) bool { return f.Delay != 0 }},
	{"successor", "stepDown", func(f *Fault) bool { return f.Successor != "" }},
	{"group", loadKind, func(f *Fault) bool { return f.Group != "" }},
	{"factor", loadKind, func(f *Fault) bool { return f.Factor != 0 }},
	{"ingressRequestRateLimiterEnabled", "requestLimiter", func(f *Fault) bool { return f.RequestLimiter.Enabled != nil }},
	{"ingressRequestAdmissionRatePerSec", "requestLimiter", func(f *Fault) bool { return f.RequestLimiter.RatePerSec != nil }},
	{"ingressRequestAdmissionBurstCapacitySecs", "requestLimiter", func(f *Fault) bool { return f.RequestLimiter.BurstCapacitySecs != nil }},
	{"ingressRequestAdmissionMaxQueueDepth", "requestLimiter", func(f *Fault) bool { return f.RequestLimiter.MaxQueueDepth != nil }},
	{"ingressRequestRateLimiterApplicationExemptions", "requestLimiter", func(f *Fault) bool { return f.RequestLimiter.ApplicationExemptions != nil }},
	{"ingressConnectionEstablishmentRateLimiterEnabled", "connLimiter", func(f *Fault) bool { return f.ConnLimiter.Enabled != nil }},
	{"ingressConnectionEstablishmentRatePerSec", "connLimiter", func(f *Fault) bool { return f.ConnLimiter.RatePerSec != nil }},
	{"ingressConnectionEstablishmentBurstCapacitySecs", "connLimiter", func(f *Fault) bool { return f.ConnLimiter.BurstCapacitySecs != nil }},
	{"ingressConnectionEstablishmentMaxQueueDepth", "connLimiter", func(f *Fault) bool { return f.ConnLimiter.MaxQueueDepth != nil }},
}

// fieldText is the value of the field of f that YAML calls name, as the canonical text writes
// it.
func fieldText(f *Fault, name string) string {
	v := reflect.ValueOf(f).Elem()
	for _, fi := range fieldsOf(v.Type()) {
		if fi.name == name {
			if n := encode(v.FieldByIndex(fi.index), fi); n != nil {
				return inline(n)
			}
		}
	}
	return "(given)"
}

func faultKindNames() []string {
	out := make([]string, len(faultKinds), len(faultKinds)+1)
	for i, k := range faultKinds {
		out[i] = k.String()
	}
	return append(out, loadKind)
}

// parseFaultKind returns the server fault kind called name.
func parseFaultKind(name string) (server.FaultKind, bool) {
	for _, k := range faultKinds {
		if k.String() == name {
			return k, true
		}
	}
	return 0, false
}

func (v *validator) faults() {
	s := v.sc
	nodes := map[string]*Node{}
	for i := range s.Topology.Nodes {
		nodes[s.Topology.Nodes[i].Name] = &s.Topology.Nodes[i]
	}
	for i := range s.Faults {
		f := &s.Faults[i]
		p := fmt.Sprintf("faults[%d]", i)
		kind, known := parseFaultKind(f.Kind)
		if f.Kind == loadKind {
			known = true
			v.load(f, p)
		}
		if !known {
			v.bad(p+".kind", strconv.Quote(f.Kind), "must be one of "+strings.Join(faultKindNames(), ", "))
		}
		if f.At < 0 || s.Duration > 0 && f.At >= s.Duration {
			v.bad(p+".at", f.At.String(), "must be in [0s, duration "+s.Duration.String()+")")
		}
		if f.For < 0 {
			v.bad(p+".for", f.For.String(), "must be ≥ 0 (0s = permanent)")
		}
		switch kind {
		case server.FaultUp, server.FaultStepDown, server.FaultRequestLimiter, server.FaultConnLimiter:
			if f.For != 0 {
				v.bad(p+".for", f.For.String(), "a "+f.Kind+" fault is not undone; use a second fault")
			}
		}
		node := nodes[f.Node]
		switch {
		case f.Kind == loadKind:
			if f.Node != "" {
				v.bad(p+".node", f.Node, "a load fault changes a client group's rate, not a node: name the group")
			}
		case f.Node == "" && kind == server.FaultStepDown:
		case f.Node == "":
			if known {
				v.bad(p+".node", `""`, "required for a "+f.Kind+" fault")
			}
		case node == nil:
			v.bad(p+".node", f.Node, "no such node; nodes: "+strings.Join(nodeNames(s), ", "))
		}
		for _, ff := range faultFields {
			if known && ff.kind != f.Kind && ff.given(f) {
				v.bad(p+"."+ff.name, fieldText(f, ff.name), "applies to a "+ff.kind+" fault only")
			}
		}
		switch kind {
		case server.FaultFailPoint:
			v.failPoint(f, p)
		case server.FaultCapacity:
			if f.Workers < 0 {
				v.bad(p+".workers", strconv.Itoa(f.Workers), "must be ≥ 1 (0 leaves it unchanged)")
			}
			if !(f.Speed >= 0) || math.IsInf(f.Speed, 0) {
				v.bad(p+".speed", formatFloat(f.Speed), "must be a finite number > 0 (0 leaves it unchanged)")
			}
			if f.Workers == 0 && f.Speed == 0 {
				v.bad(p, "capacity", "must set workers or speed")
			}
		case server.FaultNetworkDelay:
			if f.Delay <= 0 {
				v.bad(p+".delay", f.Delay.String(), "must be > 0")
			}
		case server.FaultRebalance:
			if node != nil && node.flavor() != "couchbase" {
				v.bad(p+".node", f.Node, "a rebalance needs a node with flavor couchbase")
			}
			if f.For <= 0 {
				v.bad(p+".for", f.For.String(), "a rebalance lasts a while: must be > 0")
			}
		case server.FaultPause:
			if f.For <= 0 {
				v.bad(p+".for", f.For.String(), "a pause lasts a while: must be > 0")
			}
		case server.FaultStepDown:
			switch {
			case s.Topology.Kind != "replicaset" && s.Topology.Kind != "sharded":
				v.bad(p+".kind", f.Kind, "a stepdown needs topology.kind replicaset or sharded")
			case s.Topology.Kind == "sharded" && f.Node == "":
				v.bad(p+".node", `""`, "name the shard primary to step down: a sharded cluster has one per shard")
			case node != nil && node.Role == "mongos":
				v.bad(p+".node", f.Node, "a mongos has no replica-set role to step down from")
			}
			if f.Successor != "" && nodes[f.Successor] == nil {
				v.bad(p+".successor", f.Successor, "no such node; nodes: "+strings.Join(nodeNames(s), ", "))
			}
		case server.FaultRequestLimiter, server.FaultConnLimiter:
			if node != nil {
				cfg := node.serverConfig()
				cfg.Role = wire.Standalone
				if kind == server.FaultRequestLimiter {
					cfg.RequestLimiter = f.requestLimiter()
				}
				if kind == server.FaultConnLimiter {
					cfg.ConnLimiter = f.connLimiter()
				}
				for _, e := range flatten(cfg.Validate()) {
					msg := strings.TrimPrefix(e.Error(), "server "+strconv.Quote(node.Name)+": ")
					if strings.HasPrefix(msg, "ingress") {
						v.reattribute(errors.New(msg), "", p, nil)
					}
				}
			}
		}
	}
}

// load checks a load fault: a factor, a duration, and open-loop groups whose profile can be
// scaled over a window.
func (v *validator) load(f *Fault, p string) {
	s := v.sc
	if !(f.Factor > 0) || math.IsInf(f.Factor, 0) {
		v.bad(p+".factor", formatFloat(f.Factor), "must be a finite number > 0 (the rate's multiplier: 3 triples it)")
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

func (v *validator) failPoint(f *Fault, p string) {
	if f.Mode == nil {
		v.bad(p+".mode", "(missing)", "required for a failPoint fault: alwaysOn, off, {times: N}, {skip: N} or {activationProbability: P}")
		return
	}
	if f.Data == nil && f.Mode.Kind != failpoint.ModeOff {
		v.bad(p+".data", "(missing)", "required for a failPoint fault: {failCommands: [...], errorCode: …}")
		return
	}
	v.reattribute(f.failPoint().Validate(), "failpoint: ", p, nil)
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
	for _, path := range sortedKeys(sw.Parameters) {
		points *= max(len(sw.Parameters[path].Values), 1)
		if points > maxSweepPoints {
			v.bad("sweep.parameters", strconv.Itoa(points)+"+ points", fmt.Sprintf("a sweep may have at most %d points", maxSweepPoints))
			return
		}
	}
	if !v.trySweep || v.sc.src == nil || len(v.d.probs) > 0 {
		return // the values are checked once the rest of the scenario is valid
	}
	// The values are tried on the scenario without its sweep, so that checking a value does
	// not check the sweep again.
	tree := v.sc.src.tree.clone()
	if err := setPath(tree, "sweep", &node{kind: mapNode}); err != nil {
		return
	}
	base, err := decodeScenario(v.sc.src.file, tree, v.sc.src.read)
	if err != nil {
		return
	}
	for _, path := range sortedKeys(sw.Parameters) {
		if strings.HasPrefix(path, "sweep") {
			v.bad("sweep.parameters."+path, path, "a sweep cannot vary itself")
			continue
		}
		for _, value := range sw.Parameters[path].Values {
			c := base.clone()
			if err := c.Set(path, value); err != nil {
				v.bad("sweep.parameters."+path, value, describeSetError(err))
				break
			}
		}
	}
}

// describeSetError is the rule part of a failed sweep value: the override's problems without
// their position.
func describeSetError(err error) string {
	var ps Problems
	if !errors.As(err, &ps) {
		return err.Error()
	}
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.Path + ": " + p.Value + ": " + p.Rule
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
