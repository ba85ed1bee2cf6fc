package retry

import (
	"slices"
	"strings"
)

// Names of the registered policies.
const (
	NameMongoDB202603 = "mongodb-2026-03"
	NameMongoDB202607 = "mongodb-2026-07"
	NameLegacy        = "mongodb-legacy"
	NameNone          = "none"
	// NameCouchbaseBestEffort is Couchbase SDK3's default: the RetryOrchestrator with the
	// BestEffort strategy.
	NameCouchbaseBestEffort = "couchbase-besteffort"
	// NameCouchbaseFailFast is the orchestrator with the FailFast strategy a user writes
	// (always-retry reasons are still retried).
	NameCouchbaseFailFast = "couchbase-failfast"
	// NameGRPC is a gRPC channel's retry or hedging policy with optional throttling (A6).
	NameGRPC = "grpc"
	// NameAWSStandard and NameAWSAdaptive are the AWS SDKs' standard and adaptive retry modes.
	NameAWSStandard = "aws-standard"
	NameAWSAdaptive = "aws-adaptive"
	// NameFinagle is Finagle's retry filter with its RetryBudget.
	NameFinagle = "finagle"
	// NameEnvoy is Envoy's router retries with the retry circuit breaker or retry budget.
	NameEnvoy = "envoy"
	// NameSRE is the SRE book's client-side adaptive throttling with its retry budgets.
	NameSRE = "sre-throttle"
	// NameCustom is the retry-policy kit: attempts, backoff, token bucket and breaker as
	// given.
	NameCustom = "custom"
)

// option is a set of the policy-specific options an entry reads.
type option uint16

const (
	optAdaptive    option = 1 << iota // AdaptiveRetries and RetryTokenCapacity
	optMaxAdaptive                    // MaxAdaptiveRetries
	optRetargeting                    // EnableOverloadRetargeting
	optCouchbase                      // KVTimeout, QueryTimeout, SearchTimeout
)

// entry registers one policy: its name, the MongoClient and SDK options it reads (the others
// must keep their defaults), the kind of its own option block (nil when it has none; Block),
// and a constructor that receives validated options with the block in place.
type entry struct {
	name  string
	opts  option
	block *blockKind
	build func(o Options) Policy
}

func (e *entry) reads(opt option) bool { return e.opts&opt != 0 }

// registry lists every policy. Adding one is its file (the policy, and its option block's type
// with its defaults and its validation), a line here (which names the block's key in a
// scenario), its section of docs/policies.md and its transcript. Policies that share a block
// (aws-standard and aws-adaptive) give it the same key.
var registry = []entry{
	{NameMongoDB202603, optAdaptive, nil, newMongoDB202603},
	{NameMongoDB202607, optMaxAdaptive | optRetargeting, nil, newMongoDB202607},
	{NameLegacy, 0, nil, newLegacy},
	{NameNone, 0, nil, newNone},
	{NameCouchbaseBestEffort, optCouchbase, nil, newCouchbaseBestEffort},
	{NameCouchbaseFailFast, optCouchbase, nil, newCouchbaseFailFast},
	{NameGRPC, 0, blockOf[GRPCOptions]("grpc"), newGRPC},
	{NameAWSStandard, 0, blockOf[AWSOptions]("aws"), newAWSStandard},
	{NameAWSAdaptive, 0, blockOf[AWSOptions]("aws"), newAWSAdaptive},
	{NameFinagle, 0, blockOf[FinagleOptions]("finagle"), newFinagle},
	{NameEnvoy, 0, blockOf[EnvoyOptions]("envoy"), newEnvoy},
	{NameSRE, 0, blockOf[SREOptions]("sre"), newSRE},
	{NameCustom, 0, blockOf[CustomOptions]("custom"), newCustom},
}

func init() { registry = append(registry, releaseEntries()...) }

// Couchbase reports whether the policy called name is one of Couchbase SDK3's, whose requests go
// to a Couchbase node's services rather than to MongoDB.
func Couchbase(name string) bool {
	e := lookup(name)
	return e != nil && e.reads(optCouchbase)
}

// MongoDBDriver reports whether the policy called name is a MongoDB driver's (mongodb-*, none,
// and the release presets go-* and node-*):
// the policies the Client Backpressure, Retryable Reads and Retryable Writes rules and tests
// apply to. The others are Couchbase SDK3's and those of other stacks (grpc, aws-*, finagle,
// envoy, sre-throttle, custom).
func MongoDBDriver(name string) bool {
	return name == NameNone || Release(name) || strings.HasPrefix(name, "mongodb-") && lookup(name) != nil
}

func lookup(name string) *entry {
	for i := range registry {
		if registry[i].name == name {
			return &registry[i]
		}
	}
	return nil
}

// New returns a new instance of the policy called name, for one MongoClient (a policy with a
// token bucket owns it). An unknown name returns an error that matches ErrUnknownPolicy and
// lists the known names; invalid options return every violation (see Options.Validate).
func New(name string, opts Options) (Policy, error) {
	newPolicy, err := Maker(name, opts)
	if err != nil {
		return nil, err
	}
	return newPolicy(), nil
}

// Maker returns a function that makes a new instance of the policy called name with opts on
// each call, as New would, having looked the name up and validated the options once: what a
// fleet of clients with the same options calls once per client. Its errors are New's.
func Maker(name string, opts Options) (func() Policy, error) {
	e := lookup(name)
	if e == nil {
		return nil, unknown(name)
	}
	if err := opts.validate(e); err != nil {
		return nil, err
	}
	return func() Policy {
		o := opts
		if o.Block == nil && e.block != nil {
			o.Block = e.block.new() // the policy's defaults, made for each policy
		}
		return e.build(o)
	}, nil
}

// Names returns the registered policy names, sorted.
func Names() []string {
	out := make([]string, len(registry))
	for i := range registry {
		out[i] = registry[i].name
	}
	slices.Sort(out)
	return out
}
