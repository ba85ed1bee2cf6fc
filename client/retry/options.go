package retry

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/overloadsim/overloadsim/field"
	"github.com/overloadsim/overloadsim/ratelimiter"
)

// Options are the MongoClient options a retry policy reads, and the facts about the client it
// needs (CSOT, Sharded). Start from DefaultOptions: the zero value of RetryReads, RetryWrites and
// MaxAdaptiveRetries is not the drivers' default; that of RetryTokenCapacity and the Couchbase
// timeouts is (see "Options" in the package doc for the rule).
type Options struct {
	// RetryReads and RetryWrites are the retryReads and retryWrites options (drivers' default
	// true). They enable Retryable Reads and Writes and gate overload retries: a read needs
	// RetryReads, a write RetryWrites, runCommand both (Client Backpressure rule 2.4).
	RetryReads, RetryWrites bool
	// CSOT says timeoutMS is set: allowed_retries starts unlimited, so retries continue until
	// the operation's deadline, and MAX_RETRIES caps them once an overload error is seen. The
	// client sets it from its timeoutMS.
	CSOT bool
	// Sharded says the topology is sharded: every retry deprioritizes the failed mongos
	// (Retryable Reads 3a, Retryable Writes). The client sets it from its topology.
	Sharded bool
	// AdaptiveRetries is the 2026-03 adaptiveRetries option (default false): a per-client retry
	// token bucket limits overload retries. mongodb-2026-03 only.
	AdaptiveRetries bool
	// RetryTokenCapacity is the bucket's capacity and initial balance in tokens; 0 means
	// ratelimiter.DefaultRetryTokenCapacity (1000). Otherwise a finite number > 0, and only with
	// AdaptiveRetries (the spec fixes it at 1000; other values are for experiments).
	RetryTokenCapacity float64
	// MaxAdaptiveRetries is the 2026-07 maxAdaptiveRetries option: MAX_RETRIES, the cap on
	// retries once an overload error is seen. There is no "unset" value: 0 means no overload
	// retries at all, and DefaultOptions sets the default, DefaultMaxAdaptiveRetries (2). Must be
	// ≥ 0. Policies other than mongodb-2026-07 require the default.
	MaxAdaptiveRetries int
	// EnableOverloadRetargeting is the 2026-07 enableOverloadRetargeting option (default false):
	// overload retries deprioritize the failed server outside sharded clusters too.
	// mongodb-2026-07 only.
	EnableOverloadRetargeting bool
	// KVTimeout, QueryTimeout and SearchTimeout are a Couchbase SDK's per-request timeouts
	// (kvTimeout 2.5 s, queryTimeout and searchTimeout 75 s); 0 means the default. Couchbase
	// policies only.
	KVTimeout, QueryTimeout, SearchTimeout time.Duration

	// Block is the policy's own option block (see Block): a *GRPCOptions for grpc, an
	// *AWSOptions for aws-standard and aws-adaptive, and so on. nil means the policy's
	// defaults; a block of another policy's is an error.
	Block Block
}

// DefaultOptions returns the drivers' defaults: retryReads and retryWrites on, no CSOT, not
// sharded, adaptiveRetries off, maxAdaptiveRetries 2, enableOverloadRetargeting off.
func DefaultOptions() Options {
	return Options{RetryReads: true, RetryWrites: true, MaxAdaptiveRetries: DefaultMaxAdaptiveRetries}
}

// capacity returns the effective retry token capacity.
func (o *Options) capacity() float64 {
	if o.RetryTokenCapacity == 0 {
		return ratelimiter.DefaultRetryTokenCapacity
	}
	return o.RetryTokenCapacity
}

// String returns o in canonical form for run headers: keys sorted, the effective capacity.
func (o Options) String() string {
	b := strconv.FormatBool
	return "adaptiveRetries=" + b(o.AdaptiveRetries) +
		" csot=" + b(o.CSOT) +
		" enableOverloadRetargeting=" + b(o.EnableOverloadRetargeting) +
		" maxAdaptiveRetries=" + strconv.Itoa(o.MaxAdaptiveRetries) +
		" retryReads=" + b(o.RetryReads) +
		" retryTokenCapacity=" + formatFloat(o.capacity()) +
		" retryWrites=" + b(o.RetryWrites) +
		" sharded=" + b(o.Sharded)
}

// ErrUnknownPolicy is matched (errors.Is) by the error New and Validate return for a name no
// policy is registered under: a *field.Error for retryPolicy that lists the known names.
var ErrUnknownPolicy = errors.New("retry: unknown policy")

// Validate reports every option of o that is invalid for the policy called name, each as a
// *field.Error after "retry: ", joined with errors.Join. The field is the option's name (the
// drivers' camelCase spelling, as in a connection string), and the rule ends with the policy it
// applies to: "applies only to mongodb-2026-03 (retryPolicy mongodb-2026-07)". An unknown name
// is an error for the field retryPolicy that matches ErrUnknownPolicy. Options a policy does not
// read must keep their defaults, so that a scenario cannot believe it set something that has no
// effect.
func (o Options) Validate(name string) error {
	e := lookup(name)
	if e == nil {
		return unknown(name)
	}
	return o.validate(e)
}

func unknown(name string) error {
	return fmt.Errorf("retry: %w", &field.Error{Field: "retryPolicy", Value: strconv.Quote(name),
		Rule: "unknown policy; known: " + strings.Join(slices.DeleteFunc(Names(), Release), ", ") +
			"; driver releases: " + releaseNames(), Err: ErrUnknownPolicy})
}

func (o *Options) validate(e *entry) error {
	var errs []error
	bad := func(name, value, rule string) {
		errs = append(errs, fmt.Errorf("retry: %w", &field.Error{Field: name, Value: value,
			Rule: rule + " (retryPolicy " + e.name + ")"}))
	}
	if o.AdaptiveRetries && !e.reads(optAdaptive) {
		bad("adaptiveRetries", "true", onlyFor(optAdaptive))
	}
	if c := o.RetryTokenCapacity; c != 0 {
		switch {
		case !(c > 0) || math.IsInf(c, 1):
			bad("retryTokenCapacity", formatFloat(c), "must be a finite number > 0 (0 = "+
				formatFloat(ratelimiter.DefaultRetryTokenCapacity)+")")
		case !e.reads(optAdaptive):
			bad("retryTokenCapacity", formatFloat(c), onlyFor(optAdaptive))
		case !o.AdaptiveRetries:
			bad("retryTokenCapacity", formatFloat(c), "applies only with adaptiveRetries=true")
		}
	}
	if m := o.MaxAdaptiveRetries; e.reads(optMaxAdaptive) && m < 0 {
		bad("maxAdaptiveRetries", strconv.Itoa(m), "must be ≥ 0 (0 disables overload retries)")
	} else if !e.reads(optMaxAdaptive) && m != DefaultMaxAdaptiveRetries {
		bad("maxAdaptiveRetries", strconv.Itoa(m), onlyFor(optMaxAdaptive)+
			"; leave it at its default "+strconv.Itoa(DefaultMaxAdaptiveRetries))
	}
	if o.EnableOverloadRetargeting && !e.reads(optRetargeting) {
		bad("enableOverloadRetargeting", "true", onlyFor(optRetargeting))
	}
	if !MongoDBDriver(e.name) && !e.reads(optCouchbase) && (!o.RetryReads || !o.RetryWrites) {
		bad("retryReads/retryWrites", "false", "MongoDB options that "+e.name+" ignores: its own rules decide what it retries")
	}
	if r := releaseRules(e.name); r != nil && r.timeoutIgnored && o.CSOT {
		bad("timeoutMS", "set", "this release ignores timeoutMS (deprecated there; docs/drivers.md §3): leave it unset, or model a release that reads it")
	}
	if e.reads(optCouchbase) {
		// MongoDB's options mean nothing to a Couchbase SDK: refuse a setting it would ignore.
		if o.CSOT {
			bad("timeoutMS", "set", "a MongoDB option: "+e.name+" times requests out by kvTimeout, queryTimeout and searchTimeout")
		}
		if !o.RetryReads || !o.RetryWrites {
			bad("retryReads/retryWrites", "false", "MongoDB options that "+e.name+" ignores: idempotency decides what it retries")
		}
	}
	if o.Block != nil {
		validateBlock(e, o.Block, bad)
	}
	for _, t := range []struct {
		name string
		v    time.Duration
	}{{"kvTimeout", o.KVTimeout}, {"queryTimeout", o.QueryTimeout}, {"searchTimeout", o.SearchTimeout}} {
		switch {
		case t.v < 0:
			bad(t.name, t.v.String(), "must be > 0 (0 = the default)")
		case t.v > 0 && !e.reads(optCouchbase):
			bad(t.name, t.v.String(), onlyFor(optCouchbase))
		}
	}
	return errors.Join(errs...)
}

// onlyFor names the policies that read the option.
func onlyFor(opt option) string {
	return "applies only to " + policiesOf(func(e *entry) bool { return e.reads(opt) })
}

func formatFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
