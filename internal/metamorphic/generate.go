// Package metamorphic generates random valid scenarios from a seed, for the metamorphic tests:
// properties every run and every study must have whatever the scenario — a rerun writes the
// same bytes, a run in slices equals a run straight through, the intervals add up to the
// run's totals, one worker equals many, shards merged and a resumed sweep equal one machine,
// and (under the simshuffle build tag) no summary hinges on the order of same-instant events.
// The tests are in this package and in cmd/simulate (metamorphic_test.go); docs/conventions.md
// describes the harness.
//
// A generated scenario is small — a few seconds of virtual time, a handful of clients, at most
// a few thousand operations a second — so that a run takes a fraction of a second, and it
// ranges over what the scenario format offers: a standalone node, a replica set, a sharded
// cluster or a Couchbase node; open and closed loops, constant and changing rates, operation
// mixes; the ingress limiter and bounded queues on or off; every retry policy of the registry
// (the spec texts, the driver release presets, the other stacks' policies); deadlines and
// application retries; CPU cuts, load spikes, pauses, failpoints and stepdowns.
package metamorphic

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/overloadsim/overloadsim/sim"
)

// MongoDBPolicies are the retry policies a generated MongoDB group draws from: the spec
// texts, the driver release presets and the other stacks' policies (client/retry's registry
// without the Couchbase SDK's, which CouchbasePolicies lists). A test checks that the two lists
// cover the registry.
var MongoDBPolicies = []string{
	"none", "mongodb-legacy", "mongodb-2026-03", "mongodb-2026-07",
	"go-2.6.0", "go-2.7.0", "go-2.8.0", "go-2.8.1", "go-2.8.2", "go-2.9.0", "go-2.9.1", "go-2.9.2", "go-2.9.3", "go-2.10.0",
	"node-7.2.0", "node-7.3.0", "node-7.4.0", "node-7.5.0", "node-7.6.0", "node-7.7.0", "node-7.8.0", "node-7.9.0",
	"grpc", "aws-standard", "aws-adaptive", "finagle", "envoy", "sre-throttle", "custom",
}

// CouchbasePolicies are the retry policies a generated group against a Couchbase node draws from.
var CouchbasePolicies = []string{"couchbase-besteffort", "couchbase-failfast"}

// gen holds one scenario's choices while it is written.
type gen struct {
	r        *rand.Rand
	b        strings.Builder
	kind     string   // standalone, replicaset, sharded, couchbase
	nodes    []string // every node's name, in order
	members  []string // the nodes that serve commands (not mongos)
	capacity float64  // commands per second the serving nodes can take, roughly
	duration int      // milliseconds
	open     []string // the open-loop groups whose profile is piecewise linear
	groups   []string
}

// Generate returns the YAML text of a random valid scenario, the same text for the same seed.
// Its name is gen-<seed>.
func Generate(seed uint64) []byte {
	g := &gen{r: sim.NewStream(seed, "metamorphic/scenario")}
	// Some durations are not a whole number of intervals: the run then ends in a short interval.
	g.duration = []int{2000, 2300, 3000, 3700, 4000}[g.r.IntN(5)]
	interval := []string{"500ms", "1s"}[g.r.IntN(2)]
	warmup := []string{"0s", "500ms", "1s"}[g.r.IntN(3)]
	g.line(0, "name: gen-%d", seed)
	g.line(0, "seed: %d", 1+g.r.IntN(1000))
	g.line(0, "duration: %dms", g.duration)
	g.line(0, "warmup: %s", warmup)
	g.line(0, "interval: %s", interval)
	g.topology()
	g.clients()
	g.faults()
	return []byte(g.b.String())
}

// line writes one line of YAML, indented by depth levels of two spaces.
func (g *gen) line(depth int, format string, args ...any) {
	g.b.WriteString(strings.Repeat("  ", depth))
	fmt.Fprintf(&g.b, format, args...)
	g.b.WriteByte('\n')
}

// pick returns one of xs at random.
func pick[T any](r *rand.Rand, xs ...T) T { return xs[r.IntN(len(xs))] }

// chance reports true with probability p.
func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

// topology writes the topology: a standalone MongoDB node (half the time), a replica set, a
// sharded cluster, or a Couchbase node.
func (g *gen) topology() {
	switch x := g.r.IntN(8); {
	case x < 4:
		g.kind = "standalone"
	case x < 6:
		g.kind = "replicaset"
	case x < 7:
		g.kind = "sharded"
	default:
		g.kind = "couchbase"
	}
	g.line(0, "topology:")
	switch g.kind {
	case "standalone":
		g.line(1, "kind: standalone")
		g.line(1, "nodes:")
		g.node("db", "", true)
	case "couchbase":
		g.line(1, "kind: standalone")
		g.line(1, "nodes:")
		g.node("cb", "flavor: couchbase", true)
	case "replicaset":
		g.line(1, "kind: replicaset")
		g.line(1, "electionTime: %dms", 200+100*g.r.IntN(5))
		g.line(1, "nodes:")
		for i, n := range []string{"a", "b", "c"}[:2+g.r.IntN(2)] {
			g.node(n, "", i == 0)
		}
	case "sharded":
		g.line(1, "kind: sharded")
		g.line(1, "nodes:")
		g.node("mongos1", "role: mongos", false)
		for _, s := range []string{"s0", "s1"} {
			g.node(s+"a", "shard: "+s, true)
			g.node(s+"b", "shard: "+s, false)
		}
		if g.chance(0.5) {
			g.line(1, "router:")
			g.line(2, "defaultClientMaxRetryAttempts: %d", g.r.IntN(4))
			g.line(2, "retryBudget: %t", g.chance(0.5))
		}
	}
}

// node writes one node. serves says whether its capacity counts toward the load the clients
// offer (a standalone node, a replica set's primary, a shard's primary).
func (g *gen) node(name, extra string, serves bool) {
	g.nodes = append(g.nodes, name)
	workers := 1 + g.r.IntN(8)
	serviceMS := pick(g.r, 1, 2, 3, 5)
	g.line(2, "- name: %s", name)
	if extra != "" {
		g.line(3, "%s", extra)
	}
	g.line(3, "workers: %d", workers)
	g.line(3, "service: %s", pick(g.r,
		fmt.Sprintf("exp(%dms)", serviceMS),
		fmt.Sprintf("const(%dms)", serviceMS),
		fmt.Sprintf("lognormal(%dms, 0.5)", serviceMS),
		fmt.Sprintf("gamma(%dms, 2)", serviceMS)))
	if strings.HasPrefix(extra, "role: mongos") {
		return
	}
	g.members = append(g.members, name)
	capacity := float64(workers) * 1000 / float64(serviceMS)
	if serves {
		g.capacity += capacity
	}
	switch x := g.r.IntN(10); {
	case x < 3:
		g.line(3, "maxQueueDepth: %d", 5+g.r.IntN(50))
	case x < 5:
		g.line(3, "execution: shared")
	}
	if g.chance(0.2) {
		g.line(3, "rejectOrder: fifo")
	}
	if g.chance(0.4) {
		g.line(3, "ingressRequestRateLimiterEnabled: true")
		g.line(3, "ingressRequestAdmissionRatePerSec: %d", int(capacity*(0.3+0.6*g.r.Float64()))+1)
		g.line(3, "ingressRequestAdmissionBurstCapacitySecs: %s", pick(g.r, "0.1", "0.5", "1"))
		if g.chance(0.3) {
			g.line(3, "ingressRequestAdmissionMaxQueueDepth: %d", g.r.IntN(20))
		}
	}
	if g.chance(0.2) {
		g.line(3, "ingressConnectionEstablishmentRateLimiterEnabled: true")
		g.line(3, "ingressConnectionEstablishmentRatePerSec: %d", 5+g.r.IntN(50))
	}
}

// clients writes one to three groups offering, together, between a third of the capacity and
// twice it, and never more than 2000 operations a second.
func (g *gen) clients() {
	n := 1 + g.r.IntN(3)
	total := min(g.capacity*(0.3+1.7*g.r.Float64()), 2000)
	g.line(0, "clients:")
	for i := range n {
		name := fmt.Sprintf("g%d", i)
		g.groups = append(g.groups, name)
		g.line(1, "- name: %s", name)
		g.line(2, "count: %d", 1+g.r.IntN(6))
		g.driver()
		g.workload(name, total/float64(n))
		g.mix()
		if g.chance(0.3) {
			g.line(2, "timeout: %dms", 100+100*g.r.IntN(10))
		}
		if g.chance(0.2) {
			g.line(2, "appRetry:")
			g.line(3, "attempts: %d", 2+g.r.IntN(2))
			g.line(3, "perAttemptTimeout: %dms", 100+100*g.r.IntN(5))
			backoff := pick(g.r, "none", "exponential", "fullJitter")
			g.line(3, "backoff: %s", backoff)
			if backoff != "none" {
				g.line(3, "base: %dms", 5+g.r.IntN(50))
				g.line(3, "cap: %dms", 100+g.r.IntN(500))
			}
		}
	}
}

// driver writes a group's driver options: a retry policy and the options that go with it.
func (g *gen) driver() {
	g.line(2, "driver:")
	if g.kind == "couchbase" {
		g.line(3, "retryPolicy: %s", pick(g.r, CouchbasePolicies...))
		g.line(3, "kvTimeout: %dms", 200+100*g.r.IntN(10))
		if g.chance(0.3) {
			g.line(3, "circuitBreaker: {enabled: true, volumeThreshold: 10, errorThresholdPercentage: 50, sleepWindow: 500ms, rollingWindow: 2s}")
		}
		return
	}
	p := pick(g.r, MongoDBPolicies...)
	g.line(3, "retryPolicy: %s", p)
	release := strings.HasPrefix(p, "go-") || strings.HasPrefix(p, "node-")
	switch {
	case p == "mongodb-2026-03":
		if g.chance(0.5) {
			g.line(3, "adaptiveRetries: true")
			g.line(3, "retryTokenCapacity: %d", 5+g.r.IntN(100))
		}
	case p == "mongodb-2026-07" || release:
		if g.chance(0.5) {
			g.line(3, "maxAdaptiveRetries: %d", g.r.IntN(5))
		}
		if g.kind != "standalone" && g.chance(0.5) {
			g.line(3, "enableOverloadRetargeting: true")
		}
	}
	if g.kind == "replicaset" && g.chance(0.5) {
		g.line(3, "readPreference: %s", pick(g.r, "primaryPreferred", "secondary", "secondaryPreferred", "nearest"))
	}
	if g.chance(0.3) {
		g.line(3, "maxPoolSize: %d", 1+g.r.IntN(10))
	}
	if p != "node-7.8.0" && p != "node-7.9.0" && g.chance(0.3) {
		g.line(3, "timeoutMS: %d", 100+100*g.r.IntN(10))
	}
}

// workload writes an open loop of about rate operations a second — constant, or a step, ramp,
// spike or sine — or a closed loop of a few threads per client.
func (g *gen) workload(name string, rate float64) {
	g.line(2, "workload:")
	if g.chance(0.25) {
		g.line(3, "threads: %d", 1+g.r.IntN(4))
		// 0s too: a thread whose operations fail in the client (couchbase-failfast's, while it
		// knows no node) goes round MinThreadCycle apart (client.MinThreadCycle).
		g.line(3, "think: %s", pick(g.r, "exp(2ms)", "5ms", "uniform(1ms, 10ms)", "0s"))
		if g.chance(0.3) {
			g.line(3, "pace: %dms", 2+g.r.IntN(20))
		}
		return
	}
	g.line(3, "arrivals: %s", pick(g.r, "poisson", "fixed"))
	if g.chance(0.3) {
		g.line(3, "assign: random")
	}
	r := max(int(rate), 1)
	d := g.duration
	at := func() int { return d / 10 * (2 + g.r.IntN(5)) }
	switch g.r.IntN(6) {
	case 0:
		g.line(3, "rate: {kind: step, before: %d/s, after: %d/s, at: %dms}", r, 2*r, at())
	case 1:
		s := at()
		g.line(3, "rate: {kind: ramp, from: %d/s, to: %d/s, start: %dms, end: %dms}", r/2+1, 2*r, s, s+d/5)
	case 2:
		g.line(3, "rate: {kind: spike, base: %d/s, peak: %d/s, start: %dms, duration: %dms}", r, 3*r, at(), d/5)
	case 3:
		g.line(3, "rate: {kind: sine, mean: %d/s, amplitude: %d/s, period: %dms, phase: 0}", r, r/2, d/4)
		return // not piecewise linear: no load fault
	default:
		g.line(3, "rate: %d/s", r)
	}
	g.open = append(g.open, name)
}

// mix writes a group's operation mix.
func (g *gen) mix() {
	ops := []string{"find", "insert", "update", "delete", "aggregate"}
	if g.kind == "couchbase" {
		ops = []string{"kvGet", "kvUpsert", "query", "search"}
	}
	var parts []string
	for _, op := range ops {
		if w := g.r.IntN(4) - 1; w > 0 || (op == ops[0] && len(parts) == 0) {
			parts = append(parts, fmt.Sprintf("%s: %d", op, max(w, 1)))
		}
	}
	g.line(2, "mix: {%s}", strings.Join(parts, ", "))
}

// faults writes none to three faults inside the run: CPU cuts, pauses, load spikes,
// failpoints and, in a replica set, a stepdown.
func (g *gen) faults() {
	n := g.r.IntN(4)
	if n == 0 {
		return
	}
	g.line(0, "faults:")
	d := g.duration
	for i := range n {
		at := d / 10 * (1 + g.r.IntN(6))
		length := d / 20 * (1 + g.r.IntN(6))
		node := pick(g.r, g.members...)
		name := fmt.Sprintf("f%d", i)
		switch x := g.r.IntN(6); {
		case x == 0:
			g.line(1, "- {name: %s, kind: capacity, node: %s, at: %dms, for: %dms, speed: 0.%d}", name, node, at, length, 2+g.r.IntN(6))
		case x == 1:
			g.line(1, "- {name: %s, kind: capacity, node: %s, at: %dms, for: %dms, workers: %d}", name, node, at, length, 1+g.r.IntN(2))
		case x == 2:
			g.line(1, "- {name: %s, kind: pause, node: %s, at: %dms, for: %dms}", name, node, at, min(length, 400))
		case x == 3 && len(g.open) > 0:
			g.line(1, "- {name: %s, kind: load, group: %s, at: %dms, for: %dms, factor: %d.5}", name, pick(g.r, g.open...), at, length, 1+g.r.IntN(2))
		case x == 4 && g.kind == "replicaset":
			g.line(1, "- {name: %s, kind: stepDown, at: %dms}", name, at)
		case x == 4 && g.kind != "couchbase":
			g.line(1, "- name: %s", name)
			g.line(2, "kind: failPoint")
			g.line(2, "node: %s", node)
			g.line(2, "at: %dms", at)
			g.line(2, "for: %dms", length)
			g.line(2, "mode: {activationProbability: 0.%d}", 1+g.r.IntN(5))
			g.line(2, "data: {failCommands: [find, insert], errorCode: 462, errorLabels: [SystemOverloadedError, RetryableError]}")
		default:
			g.line(1, "- {name: %s, kind: networkDelay, node: %s, at: %dms, for: %dms, delay: %dms}", name, node, at, length, 1+g.r.IntN(20))
		}
	}
}
