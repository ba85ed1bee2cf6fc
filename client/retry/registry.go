package retry

import "slices"

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
)

// option is a set of the policy-specific options an entry reads.
type option uint8

const (
	optAdaptive    option = 1 << iota // AdaptiveRetries and RetryTokenCapacity
	optMaxAdaptive                    // MaxAdaptiveRetries
	optRetargeting                    // EnableOverloadRetargeting
	optCouchbase                      // KVTimeout, QueryTimeout, SearchTimeout
)

// entry registers one policy: its name, the policy-specific options it reads (the others must
// keep their defaults), and a constructor that receives validated options.
type entry struct {
	name  string
	opts  option
	build func(o Options) Policy
}

func (e *entry) reads(opt option) bool { return e.opts&opt != 0 }

// registry lists every policy. Adding one is a type and a line here.
var registry = []entry{
	{NameMongoDB202603, optAdaptive, newMongoDB202603},
	{NameMongoDB202607, optMaxAdaptive | optRetargeting, newMongoDB202607},
	{NameLegacy, 0, newLegacy},
	{NameNone, 0, newNone},
	{NameCouchbaseBestEffort, optCouchbase, newCouchbaseBestEffort},
	{NameCouchbaseFailFast, optCouchbase, newCouchbaseFailFast},
}

// Couchbase reports whether the policy called name is one of Couchbase SDK3's, whose requests go
// to a Couchbase node's services rather than to MongoDB.
func Couchbase(name string) bool {
	e := lookup(name)
	return e != nil && e.reads(optCouchbase)
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
	e := lookup(name)
	if e == nil {
		return nil, unknown(name)
	}
	if err := opts.validate(e); err != nil {
		return nil, err
	}
	return e.build(opts), nil
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
