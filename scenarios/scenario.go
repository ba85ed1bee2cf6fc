package scenarios

import (
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/overloadsim/overloadsim/client"
	"github.com/overloadsim/overloadsim/client/retry"
	"github.com/overloadsim/overloadsim/client/selection"
	"github.com/overloadsim/overloadsim/dist"
	"github.com/overloadsim/overloadsim/internal/yamlstrict"
	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/server"
	"github.com/overloadsim/overloadsim/server/mongos"
	"github.com/overloadsim/overloadsim/wire"
)

// Scenario is everything one run needs, as data. Parse and Load start every field from its
// documented default (see the package documentation), read the file over it, fill the defaults
// that depend on other fields (EnsureDefaults) and check every rule (Validate); String is the
// canonical text.
type Scenario struct {
	// Name names the scenario; default: the file name without its extension.
	Name string `yaml:"name"`
	// Description says what the scenario models, in a sentence or two.
	Description string `yaml:"description"`
	// Claim is the one sentence the scenario demonstrates.
	Claim string `yaml:"claim"`
	// Seed is the run seed of replication 0 (default 1); see ReplicationSeed.
	Seed uint64 `yaml:"seed"`
	// Duration is the virtual time a run lasts (default 60s); > 0.
	Duration time.Duration `yaml:"duration"`
	// Warmup is left out of the summary: a duration in [0, Duration), or auto (default 0s).
	Warmup Warmup `yaml:"warmup"`
	// Interval is the time-series resolution (default 1s); in (0, Duration].
	Interval time.Duration `yaml:"interval"`
	// Topology is the servers.
	Topology Topology `yaml:"topology"`
	// Clients are the application groups; at least one.
	Clients []Group `yaml:"clients"`
	// Load multiplies every open-loop group's rate (default 1; a finite number > 0): the
	// whole workload × k, one field that a sweep, map, tipping point or tuning can vary
	// (--vary load=1:3:0.25). A load fault's factor applies on top of it; closed-loop groups
	// (threads) are left as they are. The canonical text leaves out load: 1.
	Load LoadScale `yaml:"load"`
	// Faults are timed changes to the servers.
	Faults []Fault `yaml:"faults"`
	// Recovery is the rule that judges recovery after each trigger; absent, its defaults.
	Recovery *Recovery `yaml:"recovery"`
	// Sweep varies parameters across runs.
	Sweep Sweep `yaml:"sweep"`
	// Expect is the scenario's claim as data: what run and sweep check (Expect).
	Expect []Expect `yaml:"expect,omitzero"`

	src *source // where the scenario came from; nil for one built in code
}

// LoadScale is the scenario's load factor (Scenario.Load), a plain number. Its canonical text
// leaves out the default, 1, so that a scenario that does not scale its load reads, prints and
// hashes as it did before the field existed.
type LoadScale float64

// loadScaleRule is the rule a load factor must meet, as problems state it.
const loadScaleRule = "must be a finite number > 0 (every open-loop group's rate is multiplied by it: 2 doubles the load)"

// decodeYAML reads the factor: a plain number, its rule checked by Validate.
func (l *LoadScale) decodeYAML(d *decoder, n *yamlstrict.Node, path string) {
	if n.Kind != yamlstrict.ScalarKind {
		d.Problem(n, path, yamlstrict.Describe(n), loadScaleRule)
		return
	}
	x, rule := yamlstrict.ParseNumber(n.Text)
	if rule != "" {
		d.Problem(n, path, n.Text, loadScaleRule)
		return
	}
	*l = LoadScale(x)
}

// encodeYAML writes the factor, or nothing for the default 1.
func (l LoadScale) encodeYAML() *yamlstrict.Node {
	if l == 1 {
		return nil
	}
	return yamlstrict.NewScalar(yamlstrict.FormatFloat(float64(l)))
}

// Recovery is the rule that decides, after each trigger, whether goodput recovered, stuck or
// the run was too short to tell (results.RecoveryRule; the rule is documented on
// results.Recoveries).
type Recovery struct {
	// K is the band's half-width in standard deviations of one interval's goodput (default 3);
	// > 0.
	K float64 `yaml:"k"`
	// Floor is the band's smallest half-width as a share of the pre-trigger goodput (default
	// 0.05); in [0, 1).
	Floor float64 `yaml:"floor"`
	// Hold is how long goodput must stay in the band to count as recovered (default 0s: 5
	// intervals); in [0s, duration].
	Hold time.Duration `yaml:"hold"`
	// Window is how long goodput must stay below the band at the end to count as stuck
	// (default 0s: 10 intervals); in [0s, duration].
	Window time.Duration `yaml:"window"`
}

func (r *Recovery) setDefaults() {
	*r = Recovery{K: results.DefaultRecoveryK, Floor: results.DefaultRecoveryFloor}
}

// RecoveryRule returns the scenario's recovery rule as results takes it (its defaults when the
// scenario has no recovery block).
func (s *Scenario) RecoveryRule() results.RecoveryRule {
	if s.Recovery == nil {
		return results.RecoveryRule{}
	}
	r := s.Recovery
	return results.RecoveryRule{K: r.K, Floor: r.Floor, Hold: r.Hold, Window: r.Window}
}

// Topology is the servers: standalones, a replica set, or a sharded cluster.
type Topology struct {
	// Kind is standalone (default, selection.Single), replicaset (selection.ReplicaSet) or
	// sharded (selection.Sharded): the kind of topology the clients see. A standalone topology
	// may hold several nodes: independent deployments, each group naming the one it uses
	// (hosts). A sharded topology has mongos nodes (role mongos) and shards, replica sets whose
	// members name their shard.
	Kind selection.TopologyKind `yaml:"kind"`
	// ElectionTime is how long a replica set has no primary after a stepdown or after its
	// primary goes down (default 10s, electionTimeoutMillis); > 0.
	ElectionTime time.Duration `yaml:"electionTime"`
	// Nodes are the servers; default one standalone node named db.
	Nodes []Node `yaml:"nodes"`
	// Router holds the mongos nodes' routing parameters (sharded only; every field defaults to
	// the server's default).
	Router *Router `yaml:"router"`
}

// Router is the server parameters of a mongos's internal client toward the shards (docs/model.md
// §7), shared by every mongos of the topology.
type Router struct {
	BaseBackoff      time.Duration `yaml:"defaultClientBaseBackoffMillis,ms"` // default 100ms; ≥ 0, whole ms
	MaxBackoff       time.Duration `yaml:"defaultClientMaxBackoffMillis,ms"`  // default 10s; ≥ base, whole ms
	MaxRetryAttempts int           `yaml:"defaultClientMaxRetryAttempts"`     // default 3; ≥ 0
	// BudgetCapacity and BudgetReturnRate size each shard's retry budget
	// (shardRetryTokenBucketCapacity 1000, shardRetryTokenReturnRate 0.1).
	BudgetCapacity   float64 `yaml:"shardRetryTokenBucketCapacity"`
	BudgetReturnRate float64 `yaml:"shardRetryTokenReturnRate"`
	// RetryBudget switches the per-shard budget (AdaptiveRetryStrategy) on (default) or off
	// (DefaultRetryStrategy alone): a model switch, not a server parameter.
	RetryBudget bool `yaml:"retryBudget"`
	// OverloadAwareServerSelection is overloadAwareServerSelectionEnabled (default false): an
	// overload retry avoids the shard members that failed with an overload error.
	OverloadAwareServerSelection bool `yaml:"overloadAwareServerSelectionEnabled"`
	// ExhaustedLabels are the labels on the overload error a mongos returns once its retries
	// are exhausted: [SystemOverloadedError] (default; drivers do not retry it) or
	// [SystemOverloadedError, RetryableError, NoWritesPerformed] (drivers retry again).
	ExhaustedLabels []string      `yaml:"exhaustedRetryLabels"`
	LocalThreshold  time.Duration `yaml:"localThresholdMS,ms"`     // host targeting's latency window, default 15ms
	Heartbeat       time.Duration `yaml:"heartbeatFrequencyMS,ms"` // RTT pings to shard members, default 10s
}

// Node is one mongod. Fields map to server.Config; the limiter fields carry MongoDB's server
// parameter names.
type Node struct {
	// Name is the node's address: unique, letters, digits and . _ : - only.
	Name string `yaml:"name"`
	// Role is standalone, primary, secondary or mongos. Default (wire.Unknown until
	// EnsureDefaults): standalone in a standalone topology; in a replica set (or a shard) the
	// first node is primary unless another is, the rest secondaries.
	Role wire.Role `yaml:"role"`
	// Shard names the shard (replica set) a data node of a sharded topology belongs to.
	Shard string `yaml:"shard,omitzero"`
	// Flavor is the protocol the node speaks: mongodb (default) or couchbase (standalone
	// topologies only): overload answers KV TemporaryFailure or search HTTP 429, and it can
	// rebalance.
	Flavor server.Flavor `yaml:"flavor,omitzero"`
	// Workers is the number of commands that execute at once (default 8); ≥ 1. With shared
	// execution it is the number of cores the running commands share.
	Workers int `yaml:"workers"`
	// Execution is tickets (the default: at most workers commands at once, the rest queued)
	// or shared (every admitted command at once, sharing workers cores: processor sharing;
	// server.ExecShared).
	Execution server.Execution `yaml:"execution,omitzero"`
	// MaxQueueDepth bounds the queue for a worker (433 AdmissionQueueOverflow beyond it);
	// 0 (default) = unbounded.
	MaxQueueDepth int `yaml:"maxQueueDepth"`
	// Service is the service time of every command (default exp(1ms)).
	Service Dist `yaml:"service"`
	// ServiceByCommand overrides Service per command (find, insert, update, delete, aggregate,
	// getMore, ping, …); default none.
	ServiceByCommand map[string]Dist `yaml:"serviceByCommand"`
	// USLSigma (σ) and USLKappa (κ) slow execution with concurrency n:
	// service × (1 + σ(n−1) + κn(n−1)); ≥ 0, default 0.
	USLSigma float64 `yaml:"uslSigma"`
	USLKappa float64 `yaml:"uslKappa"`
	// InFlightPenalty adds k·n to a command started with n executing; ≥ 0, default 0s.
	InFlightPenalty time.Duration `yaml:"inFlightPenalty"`
	// RejectCost is the worker time a rejection (462, 433) takes; ≥ 0, 0s = free; default
	// 20µs (server.DefaultRejectCost), given to a node that does not set it.
	RejectCost time.Duration `yaml:"rejectCost"`
	// RejectOrder is where a rejection waits for its worker: ahead (the default) of all queued
	// work, or fifo, in line with it (server.Config.RejectOrder).
	RejectOrder server.RejectOrder `yaml:"rejectOrder,omitzero"`
	// HandshakeCost is how long a new connection takes to become usable (TCP, TLS, hello, auth);
	// ≥ 0, 0s = at once; default 2ms (server.DefaultHandshakeCost).
	HandshakeCost time.Duration `yaml:"handshakeCost"`
	// HandshakeWork is the worker time a new connection's handshake (TLS, authentication)
	// takes on the node, ahead of queued commands; ≥ 0, default 0s (none).
	HandshakeWork time.Duration `yaml:"handshakeWork,omitzero"`
	// NetworkDelay is the one-way delay of every client↔node link (default const(500µs)).
	NetworkDelay Dist `yaml:"networkDelay"`
	// ExternalClientBaseBackoff is externalClientBaseBackoffMS: > 0 attaches baseBackoffMS to
	// overload errors; whole milliseconds, default 0 (off).
	ExternalClientBaseBackoff time.Duration `yaml:"externalClientBaseBackoffMS,ms"`
	// RetryPushbackMS, when not 0, is server pushback put on the node's overload errors:
	// retry after this many milliseconds, or do not retry when negative (grpc, aws-*; the
	// MongoDB policies ignore it). Default 0 (none).
	RetryPushbackMS int64 `yaml:"retryPushbackMS,omitzero"`
	// RequestLimiter and ConnLimiter are the ingress limiters, written inline.
	RequestLimiter RequestLimiter `yaml:",inline"`
	ConnLimiter    ConnLimiter    `yaml:",inline"`
}

// MongoDB's defaults for the limiter parameters: INT32_MAX tokens/s and DBL_MAX seconds of
// burst, which make an enabled limiter inert until a rate is set.
const (
	DefaultLimiterRate  = math.MaxInt32
	DefaultLimiterBurst = math.MaxFloat64
)

// RequestLimiter is the ingress request rate limiter, with MongoDB's parameter names.
type RequestLimiter struct {
	Enabled               bool     `yaml:"ingressRequestRateLimiterEnabled"`               // default false
	RatePerSec            float64  `yaml:"ingressRequestAdmissionRatePerSec,rate"`         // tokens/s, > 0; default 2147483647
	BurstCapacitySecs     float64  `yaml:"ingressRequestAdmissionBurstCapacitySecs"`       // s, > 0; default DBL_MAX
	MaxQueueDepth         int64    `yaml:"ingressRequestAdmissionMaxQueueDepth"`           // ≥ 0; default 0 (reject at once)
	ApplicationExemptions []string `yaml:"ingressRequestRateLimiterApplicationExemptions"` // appName prefixes
}

// ConnLimiter is the ingress connection-establishment rate limiter, with MongoDB's names.
type ConnLimiter struct {
	Enabled           bool    `yaml:"ingressConnectionEstablishmentRateLimiterEnabled"` // default false
	RatePerSec        float64 `yaml:"ingressConnectionEstablishmentRatePerSec,rate"`    // connections/s, > 0
	BurstCapacitySecs float64 `yaml:"ingressConnectionEstablishmentBurstCapacitySecs"`  // s, > 0
	MaxQueueDepth     int64   `yaml:"ingressConnectionEstablishmentMaxQueueDepth"`      // ≥ 0; default 0
}

// Group is an application tier: Count MongoClients with the same driver options, driven by
// one workload.
type Group struct {
	// Name is unique among the groups: letters, digits and . _ - only.
	Name string `yaml:"name"`
	// Count is the number of MongoClient instances (default 1); in [1, 1000000].
	Count int `yaml:"count"`
	// Hosts are the nodes the group's clients connect to (a connection string's host list):
	// default every node, or every mongos when sharded. A standalone topology of several nodes
	// needs exactly one; a replica set's clients discover every member, so it takes none.
	Hosts []string `yaml:"hosts,omitzero"`
	// Driver holds the MongoClient options.
	Driver Driver `yaml:"driver"`
	// Workload says when operations are issued.
	Workload Workload `yaml:"workload"`
	// Mix gives the relative weight of each operation kind (default {find: 1}).
	Mix map[string]float64 `yaml:"mix"`
	// Timeout is the application's deadline for a whole operation, retries included; 0s
	// (default) = none.
	Timeout time.Duration `yaml:"timeout"`
	// AppRetry is the application's own retry loop around the driver.
	AppRetry AppRetry `yaml:"appRetry"`
}

// Driver holds the MongoClient options, with the drivers' names and defaults. Keys ending in MS
// (the connection string's names) take a duration (250ms) or a bare number of milliseconds.
// Its fields are the scenario format; their values mean what client.Options's do, by the one
// rule the retry package's doc states (an explicit default where zero is a setting, 0 for the
// default where it is not, durations as time.Duration), so ClientOptions copies them unchanged:
// the retry options into client.Options.Retry, the rest into client.Options.
type Driver struct {
	AppName                string              `yaml:"appName"`                     // default: the group's name
	RetryReads             bool                `yaml:"retryReads"`                  // default true
	RetryWrites            bool                `yaml:"retryWrites"`                 // default true
	Timeout                time.Duration       `yaml:"timeoutMS,ms"`                // CSOT; 0 (default) = off
	MaxPoolSize            int                 `yaml:"maxPoolSize"`                 // default 100; ≥ 1
	MaxConnecting          int                 `yaml:"maxConnecting"`               // default 2; ≥ 1
	ConnectTimeout         time.Duration       `yaml:"connectTimeoutMS,ms"`         // default 30s; > 0
	ServerSelectionTimeout time.Duration       `yaml:"serverSelectionTimeoutMS,ms"` // default 30s; > 0
	WaitQueueTimeout       time.Duration       `yaml:"waitQueueTimeoutMS,ms"`       // default 0 = none
	LocalThreshold         time.Duration       `yaml:"localThresholdMS,ms"`         // default 15ms; ≥ 0
	HeartbeatFrequency     time.Duration       `yaml:"heartbeatFrequencyMS,ms"`     // default 10s; > 0
	MinHeartbeatFrequency  time.Duration       `yaml:"minHeartbeatFrequencyMS,ms"`  // default 500ms; > 0
	ReadPreference         selection.Mode      `yaml:"readPreference"`              // default primary
	ReadPreferenceTags     []map[string]string `yaml:"readPreferenceTags"`          // tag sets, in order
	RetryPolicy            string              `yaml:"retryPolicy"`                 // default mongodb-2026-03
	AdaptiveRetries        bool                `yaml:"adaptiveRetries"`             // 2026-03 only; default false
	// RetryTokenCapacity is the adaptive retry bucket's capacity and starting balance
	// (adaptiveRetries only): 0 = the spec's 1000.
	RetryTokenCapacity        float64 `yaml:"retryTokenCapacity,omitzero"`
	MaxAdaptiveRetries        int     `yaml:"maxAdaptiveRetries"`        // 2026-07 and release presets; default 2
	EnableOverloadRetargeting bool    `yaml:"enableOverloadRetargeting"` // 2026-07 and release presets; default false
	// Couchbase SDK per-request timeouts (couchbase-* policies only): 0 = kvTimeout 2.5s,
	// queryTimeout 75s, searchTimeout 75s.
	KVTimeout     time.Duration `yaml:"kvTimeout,omitzero"`
	QueryTimeout  time.Duration `yaml:"queryTimeout,omitzero"`
	SearchTimeout time.Duration `yaml:"searchTimeout,omitzero"`
	// CircuitBreaker is a Couchbase SDK's per-endpoint circuit breaker (couchbase-* only): off
	// when absent, as the SDK ships it; a block given starts from the breaker's own defaults.
	CircuitBreaker *CircuitBreaker `yaml:"circuitBreaker"`
	// PolicyBlock is the retry policy's own option block, given under the key the policy's
	// registry entry names (retry.BlockKeys: grpc; aws for aws-standard and aws-adaptive;
	// finagle; envoy; sre for sre-throttle; custom), and only with that retryPolicy. Absent
	// (nil) means the policy's defaults; a block given starts from them (retry.NewBlock).
	PolicyBlock retry.Block `yaml:",block"`
}

// CircuitBreaker is client.CircuitBreaker with the SDK's names.
type CircuitBreaker struct {
	Enabled                  bool          `yaml:"enabled"`                  // default true
	VolumeThreshold          int           `yaml:"volumeThreshold"`          // default 20; ≥ 1
	ErrorThresholdPercentage int           `yaml:"errorThresholdPercentage"` // default 50; in [1, 100]
	SleepWindow              time.Duration `yaml:"sleepWindow"`              // default 5s; > 0
	RollingWindow            time.Duration `yaml:"rollingWindow"`            // default 1m; > 0
}

func (c *CircuitBreaker) setDefaults() {
	d := client.DefaultCircuitBreaker()
	*c = CircuitBreaker{Enabled: d.Enabled, VolumeThreshold: d.VolumeThreshold,
		ErrorThresholdPercentage: d.ErrorThresholdPercentage, SleepWindow: d.SleepWindow, RollingWindow: d.RollingWindow}
}

// Workload says when a group issues operations: an open loop (arrivals and rate) or a closed
// loop (threads and think), not both.
type Workload struct {
	// Arrivals is the open-loop process: poisson (default) or fixed (evenly spaced).
	Arrivals string `yaml:"arrivals,omitzero"`
	// Rate is the open-loop rate of the whole group, a Profile.
	Rate *Profile `yaml:"rate"`
	// Assign is how an open loop hands its arrivals to the group's clients: roundRobin (the
	// default, equal shares) or random (client.AssignRandom).
	Assign client.Assign `yaml:"assign,omitzero"`
	// Threads is the closed-loop thread count per client; ≥ 1 for a closed loop.
	Threads int `yaml:"threads,omitzero"`
	// Think is the closed-loop pause between an operation's end and the next (default 0s).
	Think Dist `yaml:"think,omitzero"`
	// Pace paces a closed loop's threads: each starts its next operation at max(previous start
	// + pace, previous end + think), as load generators do (client.Workload.Pace). 0s (the
	// default) = no pacing.
	Pace time.Duration `yaml:"pace,omitzero"`
}

// AppRetry is an application's retry loop around the driver (client.AppRetry).
type AppRetry struct {
	// Attempts is the driver operations per application operation (default 1: no retries).
	Attempts int `yaml:"attempts"`
	// PerAttemptTimeout is the application's deadline per driver operation; 0s = none.
	PerAttemptTimeout time.Duration `yaml:"perAttemptTimeout"`
	// Backoff is none (default), exponential (base·2^(k−1), capped) or fullJitter
	// (U[0,1)·min(cap, base·2^(k−1))).
	Backoff client.BackoffKind `yaml:"backoff"`
	// Base and Cap shape the backoff; Cap 0s = no cap.
	Base time.Duration `yaml:"base"`
	Cap  time.Duration `yaml:"cap"`
}

// loadKind is the fault kind that changes a client group's load rather than a server: the
// scenarios' own kind, spelt load, beside server.FaultKind's.
const loadKind server.FaultKind = 1<<8 - 1

// faultKindName is a fault kind's name as a scenario spells it.
func faultKindName(k server.FaultKind) string {
	if k == loadKind {
		return "load"
	}
	return k.String()
}

// parseFaultKind returns the fault kind a scenario calls name: one of server.FaultKinds, or
// load.
func parseFaultKind(name string) (server.FaultKind, bool) {
	if name == "load" {
		return loadKind, true
	}
	return server.ParseFaultKind(name)
}

// Fault is one timed change to the servers. Only the fields of its kind may be given.
type Fault struct {
	// Name labels the fault in results; default "<kind> <node>".
	Name string `yaml:"name"`
	// At is when it happens, since the start of the run; in [0, duration).
	At time.Duration `yaml:"at"`
	// Kind is failPoint, down, up, stepDown, capacity, networkDelay, requestLimiter,
	// connLimiter, rebalance (a couchbase node: KV answers NotMyVbucket for For), pause (the
	// node's process stops for For: a GC or VM pause; see server.Server.Pause) — the
	// server.FaultKind of those names — or load (a client group's rate is multiplied by Factor
	// for For: a surge or a dip of load), the scenarios' own kind.
	Kind server.FaultKind `yaml:"kind"`
	// Node is the node's name; required except for stepDown in a replica set (default: the
	// current primary) and for load, which names no node.
	Node string `yaml:"node,omitzero"`
	// For undoes failPoint, down, capacity and networkDelay after it (0s = permanent); a
	// rebalance or a pause lasts For (> 0).
	For time.Duration `yaml:"for"`

	// Mode and Data are configureFailPoint's mode and data (failPoint).
	Mode *FailMode `yaml:"mode"`
	Data *FailData `yaml:"data"`
	// Workers and Speed are the new capacity (capacity): a worker count and a speed factor
	// (0.5 = a CPU cut to half); 0 leaves either unchanged.
	Workers int     `yaml:"workers,omitzero"`
	Speed   float64 `yaml:"speed,omitzero"`
	// Delay is added to every one-way delay of the node's links (networkDelay).
	Delay time.Duration `yaml:"delay,omitzero"`
	// Successor is the member to elect (stepDown); default the first eligible secondary.
	Successor string `yaml:"successor,omitzero"`
	// Group and Factor are a load change (load): the rate of the open-loop group named Group
	// (every open-loop group when empty) is multiplied by Factor for For.
	Group  string  `yaml:"group,omitzero"`
	Factor float64 `yaml:"factor,omitzero"`
	// RequestLimiter and ConnLimiter are the parameters a requestLimiter or connLimiter fault
	// sets, written inline with MongoDB's names; parameters not given keep the node's values.
	RequestLimiter RequestLimiterChange `yaml:",inline"`
	ConnLimiter    ConnLimiterChange    `yaml:",inline"`
}

// RequestLimiterChange is a setParameter of the request limiter's parameters, field for field
// those of RequestLimiter; nil leaves a parameter at the node's value (EnsureDefaults fills it
// in, so the canonical text shows the whole new configuration).
type RequestLimiterChange struct {
	Enabled               *bool     `yaml:"ingressRequestRateLimiterEnabled"`
	RatePerSec            *float64  `yaml:"ingressRequestAdmissionRatePerSec,rate"`
	BurstCapacitySecs     *float64  `yaml:"ingressRequestAdmissionBurstCapacitySecs"`
	MaxQueueDepth         *int64    `yaml:"ingressRequestAdmissionMaxQueueDepth"`
	ApplicationExemptions *[]string `yaml:"ingressRequestRateLimiterApplicationExemptions"`
}

// ConnLimiterChange is a setParameter of the connection limiter's parameters, field for field
// those of ConnLimiter; nil leaves a parameter at the node's value.
type ConnLimiterChange struct {
	Enabled           *bool    `yaml:"ingressConnectionEstablishmentRateLimiterEnabled"`
	RatePerSec        *float64 `yaml:"ingressConnectionEstablishmentRatePerSec,rate"`
	BurstCapacitySecs *float64 `yaml:"ingressConnectionEstablishmentBurstCapacitySecs"`
	MaxQueueDepth     *int64   `yaml:"ingressConnectionEstablishmentMaxQueueDepth"`
}

// FailData is configureFailPoint's data document for failCommand (failpoint.Config has the
// rules).
type FailData struct {
	FailCommands    []string `yaml:"failCommands"`             // commands it applies to, as MongoDB names them
	ErrorCode       int      `yaml:"errorCode,omitzero"`       // the code they fail with; 0 = none
	ErrorLabels     []string `yaml:"errorLabels,omitzero"`     // given (even empty): replace the node's labels
	CloseConnection bool     `yaml:"closeConnection,omitzero"` // close the connection instead of replying
	// RetryPushbackMS is server pushback on the error: retry after this many milliseconds, or
	// do not retry when negative (grpc, aws-*); needs errorCode.
	RetryPushbackMS *int64 `yaml:"retryPushbackMS"`
	BlockConnection bool   `yaml:"blockConnection,omitzero"` // delay the command by BlockTimeMS first
	BlockTimeMS     int64  `yaml:"blockTimeMS,omitzero"`     // milliseconds; > 0 with BlockConnection
	AppName         string `yaml:"appName,omitzero"`         // only connections with this appName
	// FailInternalCommands lets the failpoint fail a mongos's commands to a shard member too
	// (intra-cluster connections are exempt by default).
	FailInternalCommands bool `yaml:"failInternalCommands,omitzero"`
}

// Sweep varies parameters across runs: every combination of the parameters' values (the
// first parameter, in the order the file or --vary gave them, varies slowest), each run
// Replications times.
type Sweep struct {
	// Parameters maps a field path (as Set takes it) to its values.
	Parameters map[string]SweepValues `yaml:"parameters,omitzero"`
	// Replications is the runs per point (default 10); ≥ 1.
	Replications int `yaml:"replications"`
	// order is the parameters' paths in the order they were given: the scenario file's, then
	// each --vary's (Vary). The canonical form keeps it, so two sweeps that differ only in
	// order, and so in their points' order, are two scenarios.
	order []string
}

// Paths returns the parameters' paths in the order they were given; a parameter added in code,
// with no place in that order, comes after them, in sorted order.
func (sw *Sweep) Paths() []string {
	var out []string
	for _, p := range sw.order {
		if _, ok := sw.Parameters[p]; ok && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	for _, p := range sortedKeys(sw.Parameters) {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// Axes returns the parameters as the axes of a grid, in their order (Paths).
func (sw *Sweep) Axes() []results.Axis {
	axes := make([]results.Axis, 0, len(sw.Parameters))
	for _, p := range sw.Paths() {
		axes = append(axes, results.Axis{Path: p, Values: sw.Parameters[p].Values})
	}
	return axes
}

// encodeYAML writes the sweep with its parameters in their order (Paths), not sorted as
// mappings otherwise are.
func (sw Sweep) encodeYAML() *yamlstrict.Node {
	m := &yamlstrict.Node{Kind: yamlstrict.MapKind}
	if sw.Parameters != nil {
		params := &yamlstrict.Node{Kind: yamlstrict.MapKind}
		for _, p := range sw.Paths() {
			params.Keys = append(params.Keys, yamlstrict.NewScalar(p))
			params.Vals = append(params.Vals, sw.Parameters[p].encodeYAML())
		}
		m.Keys, m.Vals = append(m.Keys, yamlstrict.NewScalar("parameters")), append(m.Vals, params)
	}
	m.Keys, m.Vals = append(m.Keys, yamlstrict.NewScalar("replications")), append(m.Vals, yamlstrict.NewScalar(strconv.Itoa(sw.Replications)))
	return m
}

// Defaults.
const (
	DefaultSeed         = 1
	DefaultDuration     = 60 * time.Second
	DefaultInterval     = time.Second
	DefaultReplications = 10
	DefaultNodeName     = "db"
)

func (s *Scenario) setDefaults() {
	src := s.src
	*s = Scenario{Seed: DefaultSeed, Duration: DefaultDuration, Interval: DefaultInterval, Load: 1, src: src}
	s.Topology.setDefaults()
	s.Sweep.setDefaults()
}

func (t *Topology) setDefaults() {
	*t = Topology{Kind: selection.Single, ElectionTime: server.DefaultElectionTime}
	var n Node
	n.setDefaults()
	n.Name = DefaultNodeName
	t.Nodes = []Node{n}
}

func (n *Node) setDefaults() {
	svc, _ := dist.Exp(time.Millisecond)
	*n = Node{
		Workers:       server.DefaultWorkers,
		Service:       Dist{svc},
		RejectCost:    server.DefaultRejectCost,
		HandshakeCost: server.DefaultHandshakeCost,
		NetworkDelay:  Dist{dist.Const(500 * time.Microsecond)},
	}
	n.RequestLimiter = RequestLimiter{RatePerSec: DefaultLimiterRate, BurstCapacitySecs: DefaultLimiterBurst}
	n.ConnLimiter = ConnLimiter{RatePerSec: DefaultLimiterRate, BurstCapacitySecs: DefaultLimiterBurst}
}

func (g *Group) setDefaults() {
	*g = Group{Count: 1, Mix: map[string]float64{"find": 1}}
	g.Driver.setDefaults()
	g.AppRetry.setDefaults()
}

// setDefaults gives d the model's defaults, client.DefaultOptions: a scenario has none of its
// own for the driver.
func (d *Driver) setDefaults() {
	o := client.DefaultOptions()
	r := o.Retry
	*d = Driver{
		RetryReads: r.RetryReads, RetryWrites: r.RetryWrites, Timeout: o.Timeout,
		MaxPoolSize: o.MaxPoolSize, MaxConnecting: o.MaxConnecting,
		ConnectTimeout: o.ConnectTimeout, ServerSelectionTimeout: o.ServerSelectionTimeout,
		WaitQueueTimeout: o.WaitQueueTimeout, LocalThreshold: o.LocalThreshold,
		HeartbeatFrequency: o.HeartbeatFrequency, MinHeartbeatFrequency: o.MinHeartbeatFrequency,
		ReadPreference: o.ReadPreference.Mode, RetryPolicy: o.RetryPolicy,
		AdaptiveRetries: r.AdaptiveRetries, RetryTokenCapacity: r.RetryTokenCapacity,
		MaxAdaptiveRetries:        r.MaxAdaptiveRetries,
		EnableOverloadRetargeting: r.EnableOverloadRetargeting,
		KVTimeout:                 r.KVTimeout, QueryTimeout: r.QueryTimeout, SearchTimeout: r.SearchTimeout,
	}
}

func (a *AppRetry) setDefaults() { *a = AppRetry{Attempts: 1, Backoff: client.BackoffNone} }

func (r *Router) setDefaults() { *r = *defaultRouter() }

// defaultRouter returns the mongos routing parameters' server defaults.
func defaultRouter() *Router {
	c := mongos.DefaultConfig()
	return &Router{
		BaseBackoff: c.BaseBackoff, MaxBackoff: c.MaxBackoff, MaxRetryAttempts: c.MaxRetryAttempts,
		BudgetCapacity: c.BudgetCapacity, BudgetReturnRate: c.BudgetReturnRate, RetryBudget: c.RetryBudget,
		OverloadAwareServerSelection: c.OverloadAwareServerSelection, ExhaustedLabels: c.ExhaustedLabels.Names(),
		LocalThreshold: c.LocalThreshold, Heartbeat: c.HeartbeatFrequency,
	}
}

// Config is the routing parameters as mongos.New takes them for the mongos called address.
func (r *Router) Config(address string) mongos.Config {
	c := mongos.DefaultConfig()
	c.Address = address
	c.BaseBackoff, c.MaxBackoff, c.MaxRetryAttempts = r.BaseBackoff, r.MaxBackoff, r.MaxRetryAttempts
	c.BudgetCapacity, c.BudgetReturnRate, c.RetryBudget = r.BudgetCapacity, r.BudgetReturnRate, r.RetryBudget
	c.OverloadAwareServerSelection = r.OverloadAwareServerSelection
	c.ExhaustedLabels = 0
	for _, name := range r.ExhaustedLabels {
		l, _ := wire.ParseLabel(name)
		c.ExhaustedLabels |= l
	}
	c.LocalThreshold, c.HeartbeatFrequency = r.LocalThreshold, r.Heartbeat
	return c
}

func (s *Sweep) setDefaults() { *s = Sweep{Replications: DefaultReplications} }

// EnsureDefaults fills the defaults that depend on other fields: node roles, appNames, fault
// names, the limiter parameters a limiter fault leaves unchanged, an open loop's arrivals and
// a closed loop's think time. (Parse and Load start every other field from its default.)
// It is idempotent.
func (s *Scenario) EnsureDefaults() {
	nodes := s.Topology.Nodes
	switch s.Topology.Kind {
	case selection.Single:
		for i := range nodes {
			if nodes[i].Role == wire.Unknown {
				nodes[i].Role = wire.Standalone
			}
		}
	case selection.ReplicaSet, selection.Sharded:
		// Per replica set (per shard when sharded): the first member without a role is the
		// primary unless another member is, the rest are secondaries.
		hasPrimary := map[string]bool{}
		for _, n := range nodes {
			hasPrimary[n.Shard] = hasPrimary[n.Shard] || n.Role == wire.Primary
		}
		for i := range nodes {
			if nodes[i].Role == wire.Unknown {
				sh := nodes[i].Shard
				nodes[i].Role = wire.Secondary
				if !hasPrimary[sh] {
					nodes[i].Role, hasPrimary[sh] = wire.Primary, true
				}
			}
		}
		if s.Topology.Sharded() && s.Topology.Router == nil {
			s.Topology.Router = defaultRouter()
		}
	}
	for i := range s.Clients {
		g := &s.Clients[i]
		if g.Driver.AppName == "" {
			g.Driver.AppName = g.Name
		}
		w := &g.Workload
		if w.Rate != nil && w.Arrivals == "" {
			w.Arrivals = "poisson"
		}
		if w.Threads > 0 && w.Rate == nil && w.Think.D == nil {
			w.Think = Dist{dist.Const(0)}
		}
	}
	for i := range s.Faults {
		f := &s.Faults[i]
		if f.Name == "" {
			f.Name = strings.TrimSpace(faultKindName(f.Kind) + " " + f.Node + f.Group)
		}
		var n *Node
		for j := range nodes {
			if nodes[j].Name == f.Node {
				n = &nodes[j]
			}
		}
		if n == nil {
			continue
		}
		switch f.Kind {
		case server.FaultRequestLimiter:
			r, c := &f.RequestLimiter, n.RequestLimiter
			fill(&r.Enabled, c.Enabled)
			fill(&r.RatePerSec, c.RatePerSec)
			fill(&r.BurstCapacitySecs, c.BurstCapacitySecs)
			fill(&r.MaxQueueDepth, c.MaxQueueDepth)
			fill(&r.ApplicationExemptions, c.ApplicationExemptions)
		case server.FaultConnLimiter:
			r, c := &f.ConnLimiter, n.ConnLimiter
			fill(&r.Enabled, c.Enabled)
			fill(&r.RatePerSec, c.RatePerSec)
			fill(&r.BurstCapacitySecs, c.BurstCapacitySecs)
			fill(&r.MaxQueueDepth, c.MaxQueueDepth)
		}
	}
}

func fill[T any](p **T, v T) {
	if *p == nil {
		*p = &v
	}
}

// String returns the canonical text of s: YAML with every field in a fixed order, maps
// sorted, every default filled in. Parse(String()) gives a scenario with the same String.
func (s *Scenario) String() string {
	return yamlstrict.Text(encode(reflect.ValueOf(s).Elem(), yamlstrict.Field{}))
}

// ServerConfig is the node as server.New takes it. Its costs are the node's: a node that does
// not set them has the defaults from setDefaults, and 0s means free in both.
func (n *Node) ServerConfig() server.Config {
	c := server.Config{
		Address: n.Name, Role: n.Role, ReplSetName: n.Shard, Flavor: n.Flavor,
		Workers: n.Workers, MaxQueueDepth: n.MaxQueueDepth,
		Service: n.Service.D, USLSigma: n.USLSigma, USLKappa: n.USLKappa,
		InFlightPenalty:             n.InFlightPenalty,
		RejectCost:                  n.RejectCost,
		RejectOrder:                 n.RejectOrder,
		Execution:                   n.Execution,
		HandshakeCost:               n.HandshakeCost,
		HandshakeWork:               n.HandshakeWork,
		ExternalClientBaseBackoffMS: int64(n.ExternalClientBaseBackoff / time.Millisecond),
		RetryPushbackMS:             n.RetryPushbackMS,
		RequestLimiter:              n.RequestLimiter.config(),
		ConnLimiter:                 n.ConnLimiter.config(),
	}
	if len(n.ServiceByCommand) > 0 {
		c.ServiceByCommand = map[wire.Command]dist.Duration{}
		for name, d := range n.ServiceByCommand {
			if cmd, ok := wire.ParseCommand(name); ok {
				c.ServiceByCommand[cmd] = d.D
			}
		}
	}
	return c
}

func (r RequestLimiter) config() server.RequestLimiterConfig {
	return server.RequestLimiterConfig{
		Enabled: r.Enabled, AdmissionRatePerSec: r.RatePerSec, AdmissionBurstCapacitySecs: r.BurstCapacitySecs,
		AdmissionMaxQueueDepth: r.MaxQueueDepth, ApplicationExemptions: r.ApplicationExemptions,
	}
}

func (c ConnLimiter) config() server.ConnLimiterConfig {
	return server.ConnLimiterConfig{Enabled: c.Enabled, RatePerSec: c.RatePerSec,
		BurstCapacitySecs: c.BurstCapacitySecs, MaxQueueDepth: c.MaxQueueDepth}
}

// ClientOptions is the group's driver options as client.New takes them: the drivers' defaults
// (client.DefaultOptions), then d's values, each copied unchanged.
func (d *Driver) ClientOptions() client.Options {
	o := client.DefaultOptions()
	o.AppName = d.AppName
	o.Timeout = d.Timeout
	o.MaxPoolSize, o.MaxConnecting = d.MaxPoolSize, d.MaxConnecting
	o.ConnectTimeout = d.ConnectTimeout
	o.ServerSelectionTimeout = d.ServerSelectionTimeout
	o.WaitQueueTimeout = d.WaitQueueTimeout
	o.LocalThreshold = d.LocalThreshold
	o.HeartbeatFrequency, o.MinHeartbeatFrequency = d.HeartbeatFrequency, d.MinHeartbeatFrequency
	o.ReadPreference = selection.ReadPreference{Mode: d.ReadPreference, TagSets: d.ReadPreferenceTags}
	o.RetryPolicy = d.RetryPolicy
	o.Retry = retry.Options{
		RetryReads: d.RetryReads, RetryWrites: d.RetryWrites,
		AdaptiveRetries: d.AdaptiveRetries, RetryTokenCapacity: d.RetryTokenCapacity,
		MaxAdaptiveRetries:        d.MaxAdaptiveRetries,
		EnableOverloadRetargeting: d.EnableOverloadRetargeting,
		KVTimeout:                 d.KVTimeout, QueryTimeout: d.QueryTimeout, SearchTimeout: d.SearchTimeout,
		Block: d.PolicyBlock,
	}
	if cb := d.CircuitBreaker; cb != nil {
		o.CircuitBreaker = client.CircuitBreaker{Enabled: cb.Enabled, VolumeThreshold: cb.VolumeThreshold,
			ErrorThresholdPercentage: cb.ErrorThresholdPercentage, SleepWindow: cb.SleepWindow, RollingWindow: cb.RollingWindow}
	}
	return o
}

// Sharded reports whether t is a sharded cluster.
func (t *Topology) Sharded() bool { return t.Kind == selection.Sharded }

// Hosts returns the names of the nodes g's clients connect to: its hosts, or by default every
// node (every mongos when sharded).
func (t *Topology) Hosts(g *Group) []string {
	if len(g.Hosts) > 0 {
		return g.Hosts
	}
	var out []string
	for i := range t.Nodes {
		if !t.Sharded() || t.Nodes[i].Role == wire.Mongos {
			out = append(out, t.Nodes[i].Name)
		}
	}
	return out
}
