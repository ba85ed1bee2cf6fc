package server

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/overloadsim/overloadsim/dist"
	"github.com/overloadsim/overloadsim/field"
	"github.com/overloadsim/overloadsim/wire"
)

// RequestLimiterConfig is the ingress request rate limiter (MongoDB 8.2+). Field names follow
// the server parameters so values can be copied from a real cluster (docs/model.md §5.2).
type RequestLimiterConfig struct {
	// Enabled is ingressRequestRateLimiterEnabled. Off by default: a real server's default rate
	// (INT32_MAX) makes it inert anyway.
	Enabled bool
	// AdmissionRatePerSec is ingressRequestAdmissionRatePerSec: token refill rate, > 0.
	AdmissionRatePerSec float64
	// AdmissionBurstCapacitySecs is ingressRequestAdmissionBurstCapacitySecs: capacity is
	// rate × burst tokens; > 0. A capacity below one token rejects every non-exempt request.
	AdmissionBurstCapacitySecs float64
	// AdmissionMaxQueueDepth is ingressRequestAdmissionMaxQueueDepth: requests that may wait for
	// a token; 0 (the default) rejects at once.
	AdmissionMaxQueueDepth int64
	// ApplicationExemptions is ingressRequestRateLimiterApplicationExemptions.appNames: a
	// connection whose appName starts with one of these is exempt.
	ApplicationExemptions []string
}

// ConnLimiterConfig is the ingress connection-establishment rate limiter (docs/model.md §5.5).
type ConnLimiterConfig struct {
	Enabled           bool    // ingressConnectionEstablishmentRateLimiterEnabled (default false)
	RatePerSec        float64 // ingressConnectionEstablishmentRatePerSec, new connections/s, > 0
	BurstCapacitySecs float64 // ingressConnectionEstablishmentBurstCapacitySecs, > 0
	MaxQueueDepth     int64   // ingressConnectionEstablishmentMaxQueueDepth, ≥ 0 (default 0)
}

// Config describes one node. The zero value of every optional field is documented; call
// EnsureDefaults then Validate (New does both).
type Config struct {
	// Address names the node (host:port style); it also names the node's random streams.
	Address string
	// Role is standalone (default), primary, secondary or mongos. Replica-set roles change at
	// run time through the Cluster's elections.
	Role wire.Role
	// ReplSetName names the replica set a primary or secondary belongs to: a shard of a sharded
	// cluster. Empty for a standalone, a mongos, or the members of a cluster's only replica set.
	ReplSetName string
	// Workers is the number of commands that execute at once (execution tickets); ≥ 1, default 8.
	Workers int
	// MaxQueueDepth bounds the FIFO queue of commands waiting for a worker; beyond it a command
	// fails with AdmissionQueueOverflow (433, SystemOverloadedError). 0 means unbounded.
	MaxQueueDepth int
	// Service is the service-time distribution for every command without its own entry in
	// ServiceByCommand. Default: exp(1ms).
	Service dist.Duration
	// ServiceByCommand overrides Service per command.
	ServiceByCommand map[wire.Command]dist.Duration
	// USLSigma and USLKappa slow execution down with concurrency following the Universal
	// Scalability Law: a command started with n commands executing (itself included) takes
	// base × (1 + σ(n−1) + κn(n−1)), so that throughput at concurrency n is
	// X(n) = n·X₁ / (1 + σ(n−1) + κn(n−1)) (Gunther 2007). Both ≥ 0; 0 disables.
	USLSigma, USLKappa float64
	// InFlightPenalty adds k·n to the service time of a command started with n executing
	// (service = base + k·n): a linear slowdown. ≥ 0; 0 disables.
	InFlightPenalty time.Duration
	// RejectCost is the worker time a rejection (462 or 433) takes: rejections happen before
	// any real work but still parse a message and write a reply. They go ahead of queued work
	// and hold a worker for this long, so a rejection storm takes capacity from real work.
	// ≥ 0; 0 makes rejections free (the reply is sent without using a worker). A real server's
	// cost is about DefaultRejectCost, which scenarios give a node that does not set it.
	RejectCost time.Duration
	// Execution is how the node runs what it admits: ExecTickets (the default: at most Workers
	// at once, the rest queued) or ExecShared (everything at once on Workers shared cores).
	Execution Execution
	// RejectOrder is where a rejection that costs worker time waits for its worker:
	// RejectAhead (the default) ahead of all queued work, RejectFIFO in the same FIFO as work
	// (docs/model.md §5.4 says which is closer to the real server, and why neither is it exactly).
	RejectOrder RejectOrder
	// HandshakeCost is how long an admitted connection takes to be usable (TCP, TLS, hello and
	// auth), a pure delay. ≥ 0; 0 makes connections usable at once. A real server's is about
	// DefaultHandshakeCost, which scenarios give a node that does not set it.
	HandshakeCost time.Duration
	// HandshakeWork is the worker time a new connection's handshake takes on the node (TLS and
	// authentication are CPU work: a connection storm takes capacity from commands). It waits
	// for a worker ahead of queued commands, as a rejection does, and the connection then takes
	// HandshakeCost more to be usable. ≥ 0; 0 (the default) = none.
	HandshakeWork time.Duration
	// ExternalClientBaseBackoffMS is externalClientBaseBackoffMS: when > 0 the node attaches
	// baseBackoffMS to the overload errors it returns. Default 0 (off).
	ExternalClientBaseBackoffMS int64
	// RetryPushbackMS, when not 0, is server pushback the node attaches to the overload errors
	// it returns: retry after this many milliseconds, or, when negative, do not retry (as a
	// gRPC server's grpc-retry-pushback-ms or an AWS service's x-amz-retry-after says). 0
	// (the default) attaches none; a failpoint can send a pushback of 0. The MongoDB driver
	// policies ignore it.
	RetryPushbackMS int64
	// RequestLimiter and ConnLimiter are the ingress limiters.
	RequestLimiter RequestLimiterConfig
	ConnLimiter    ConnLimiterConfig
	// Flavor is the protocol the node speaks: MongoDB (the default) or Couchbase. It decides
	// how the node says "overloaded" (see OverloadCode) and which faults apply to it.
	Flavor Flavor
	// Router makes the node a mongos: commands it admits are handed to the router, which sends
	// them on to the shards, instead of executing on the node's workers. Required with role
	// mongos, and only then.
	Router Router
}

// RejectOrder is where a costly rejection waits for a worker (Config.RejectOrder).
type RejectOrder uint8

// Rejection orders.
const (
	// RejectAhead serves rejections before any queued command: a rejection never waits behind
	// work, as an ingress rejection on the server does not wait for an execution ticket.
	RejectAhead RejectOrder = iota
	// RejectFIFO queues rejections with the commands, in arrival order: a rejection waits its
	// turn behind the work that came before it.
	RejectFIFO
)

var rejectOrderNames = [...]string{"ahead", "fifo"}

// String returns the order's name as scenarios spell it.
func (o RejectOrder) String() string {
	if int(o) < len(rejectOrderNames) {
		return rejectOrderNames[o]
	}
	return fmt.Sprintf("rejectOrder(%d)", o)
}

// ParseRejectOrder returns the order called name.
func ParseRejectOrder(name string) (RejectOrder, bool) {
	for i, n := range rejectOrderNames {
		if n == name {
			return RejectOrder(i), true
		}
	}
	return 0, false
}

// Flavor is the protocol a node speaks.
type Flavor uint8

// Flavors.
const (
	FlavorMongoDB   Flavor = iota // mongod or mongos: MongoDB error codes and labels
	FlavorCouchbase               // a Couchbase node: KV statuses, query errors, HTTP statuses
)

var flavorNames = [...]string{"mongodb", "couchbase"}

// String returns the flavor's name as scenarios spell it.
func (f Flavor) String() string {
	if int(f) < len(flavorNames) {
		return flavorNames[f]
	}
	return fmt.Sprintf("flavor(%d)", f)
}

// ParseFlavor returns the flavor called name.
func ParseFlavor(name string) (Flavor, bool) {
	for i, n := range flavorNames {
		if n == name {
			return Flavor(i), true
		}
	}
	return 0, false
}

// OverloadCode is what a node of flavor f answers a command cmd that its ingress request limiter
// (or, with code AdmissionQueueOverflow, its worker queue) turns away. A MongoDB node answers
// code itself (462 or 433). A Couchbase node has no 462: its data service answers KV
// TemporaryFailure (0x86, "temporary failure, try again"), its search service HTTP 429 Too Many
// Requests, and its query service HTTP 503 "Request queue full"; a MongoDB command sent to a
// Couchbase node gets code unchanged.
func OverloadCode(f Flavor, cmd wire.Command, code wire.Code) wire.Code {
	if f != FlavorCouchbase {
		return code
	}
	if c, ok := wire.OverloadStatus(cmd.Service()); ok {
		return c
	}
	return code
}

// Defaults. EnsureDefaults fills Role, Workers and Service; DefaultRejectCost and
// DefaultHandshakeCost are a real server's costs, which a Config states (its zero costs
// nothing) and scenarios give a node that does not set them.
const (
	DefaultWorkers       = 8
	DefaultRejectCost    = 20 * time.Microsecond
	DefaultHandshakeCost = 2 * time.Millisecond
	defaultServiceMean   = time.Millisecond
)

// EnsureDefaults fills the zero-valued Role, Workers and Service. Every other zero value means
// itself (no queue bound, no costs, no slowdown, limiters off).
func (c *Config) EnsureDefaults() {
	if c.Role == wire.Unknown {
		c.Role = wire.Standalone
	}
	if c.Workers == 0 {
		c.Workers = DefaultWorkers
	}
	if c.Service == nil {
		c.Service, _ = dist.Exp(defaultServiceMean)
	}
}

// Validate reports every invalid field at once, each as a *field.Error after `server "<address>": `
// whose field is named as a scenario's node spells it (workers, rejectCost,
// ingressRequestAdmissionRatePerSec), joined with errors.Join.
func (c *Config) Validate() error {
	var errs []error
	bad := func(name string, v any, rule string) {
		errs = append(errs, c.context(field.New(name, v, rule)))
	}
	if strings.TrimSpace(c.Address) == "" {
		bad("address", `""`, "must not be empty")
	}
	switch c.Role {
	case wire.Standalone, wire.Primary, wire.Secondary:
		if c.Router != nil {
			bad("router", "set", "only a mongos routes")
		}
	case wire.Mongos:
		if c.Router == nil {
			bad("router", "nil", "a mongos needs a router")
		}
		if c.Flavor != FlavorMongoDB {
			bad("flavor", c.Flavor, "a mongos speaks mongodb")
		}
	default:
		bad("role", c.Role, "must be standalone, primary, secondary or mongos")
	}
	if int(c.Flavor) >= len(flavorNames) {
		bad("flavor", c.Flavor, "must be mongodb or couchbase")
	}
	if c.Workers < 1 {
		bad("workers", c.Workers, "must be ≥ 1")
	}
	if c.MaxQueueDepth < 0 {
		bad("maxQueueDepth", c.MaxQueueDepth, "must be ≥ 0 (0 = unbounded)")
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"uslSigma", c.USLSigma}, {"uslKappa", c.USLKappa}} {
		if !(f.v >= 0) || math.IsInf(f.v, 0) {
			bad(f.name, f.v, "must be a finite number ≥ 0")
		}
	}
	if c.InFlightPenalty < 0 {
		bad("inFlightPenalty", c.InFlightPenalty, "must be ≥ 0")
	}
	switch {
	case c.Execution > ExecShared:
		bad("execution", c.Execution, "must be tickets or shared")
	case c.Execution == ExecShared && c.MaxQueueDepth > 0:
		bad("maxQueueDepth", c.MaxQueueDepth, "must be 0 with shared execution: nothing queues for a worker")
	}
	if c.RejectOrder > RejectFIFO {
		bad("rejectOrder", c.RejectOrder, "must be ahead or fifo")
	}
	if c.RejectCost < 0 {
		bad("rejectCost", c.RejectCost, "must be ≥ 0 (0s = free)")
	}
	if c.HandshakeWork < 0 {
		bad("handshakeWork", c.HandshakeWork, "must be ≥ 0 (0s = none)")
	}
	if c.HandshakeCost < 0 {
		bad("handshakeCost", c.HandshakeCost, "must be ≥ 0")
	}
	if c.ExternalClientBaseBackoffMS < 0 {
		bad("externalClientBaseBackoffMS", c.ExternalClientBaseBackoffMS, "must be ≥ 0 (0 = off)")
	}
	for cmd, d := range c.ServiceByCommand {
		if d == nil {
			bad("serviceByCommand."+cmd.String(), "nil", "must be a distribution")
		}
	}
	for _, part := range field.Parts(errors.Join(c.RequestLimiter.Validate(), c.ConnLimiter.Validate())) {
		errs = append(errs, c.context(part))
	}
	return errors.Join(errs...)
}

// context puts the node's address before err's message.
func (c *Config) context(err error) error { return fmt.Errorf("server %q: %w", c.Address, err) }

// Validate reports every invalid parameter of an enabled limiter, each as a *field.Error named
// by its server parameter (ingressRequestAdmissionRatePerSec), joined with errors.Join. The
// parameters of a disabled limiter are not read.
func (r RequestLimiterConfig) Validate() error {
	if !r.Enabled {
		return nil
	}
	return errors.Join(
		checkRate("ingressRequestAdmissionRatePerSec", r.AdmissionRatePerSec),
		checkRate("ingressRequestAdmissionBurstCapacitySecs", r.AdmissionBurstCapacitySecs),
		checkDepth("ingressRequestAdmissionMaxQueueDepth", r.AdmissionMaxQueueDepth))
}

// Validate reports every invalid parameter of an enabled limiter, each as a *field.Error named
// by its server parameter (ingressConnectionEstablishmentRatePerSec), joined with errors.Join.
// The parameters of a disabled limiter are not read.
func (c ConnLimiterConfig) Validate() error {
	if !c.Enabled {
		return nil
	}
	return errors.Join(
		checkRate("ingressConnectionEstablishmentRatePerSec", c.RatePerSec),
		checkRate("ingressConnectionEstablishmentBurstCapacitySecs", c.BurstCapacitySecs),
		checkDepth("ingressConnectionEstablishmentMaxQueueDepth", c.MaxQueueDepth))
}

func checkRate(name string, v float64) error {
	if !(v > 0) || math.IsInf(v, 0) {
		return field.New(name, v, "must be a finite number > 0")
	}
	return nil
}

func checkDepth(name string, v int64) error {
	if v < 0 {
		return field.New(name, v, "must be ≥ 0")
	}
	return nil
}
