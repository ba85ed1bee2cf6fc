package client

import (
	"errors"
	"time"

	"github.com/overloadsim/overloadsim/client/retry"
	"github.com/overloadsim/overloadsim/client/selection"
	"github.com/overloadsim/overloadsim/field"
)

// Options are a MongoClient's options, with the drivers' names and defaults (connection string
// and MongoClient options; docs/model.md §8.1). Start from DefaultOptions: the zero value of a
// bool option is not its default.
type Options struct {
	// AppName is sent in the handshake; the server's application exemptions match it.
	AppName string
	// Timeout is timeoutMS (CSOT): an operation's deadline from when it is issued; 0 = off.
	Timeout time.Duration
	// MaxPoolSize (100) bounds a pool's connections; MaxConnecting (2) bounds those being
	// established at once (CMAP).
	MaxPoolSize, MaxConnecting int
	// ConnectTimeout is connectTimeoutMS (30s): how long establishing a connection may take.
	ConnectTimeout time.Duration
	// ServerSelectionTimeout is serverSelectionTimeoutMS (30s).
	ServerSelectionTimeout time.Duration
	// WaitQueueTimeout bounds a checkout's wait for a connection; 0 = no bound beyond the
	// operation's own deadline.
	WaitQueueTimeout time.Duration
	// LocalThreshold is localThresholdMS (15ms): the latency window of server selection.
	LocalThreshold time.Duration
	// HeartbeatFrequency is heartbeatFrequencyMS (10s); MinHeartbeatFrequency (500ms) spaces
	// checks requested early (after an error, or when selection finds no server).
	HeartbeatFrequency, MinHeartbeatFrequency time.Duration
	// ReadPreference for reads (default primary).
	ReadPreference selection.ReadPreference
	// RetryPolicy names the retry policy: mongodb-2026-03 (default), mongodb-2026-07,
	// mongodb-legacy, none, couchbase-besteffort, couchbase-failfast.
	RetryPolicy string
	// Retry holds the options the retry policy reads (retryReads, retryWrites, adaptiveRetries,
	// maxAdaptiveRetries, the Couchbase timeouts, the policy's own Block, ...), as retry.Options
	// documents them. Its CSOT and Sharded are not options: the client derives them from
	// Timeout and the topology it connects to (retryOptions), whatever they hold here.
	Retry retry.Options
	// CircuitBreaker is a Couchbase SDK's per-endpoint circuit breaker (disabled by default, as
	// the SDK ships it); couchbase-* policies only.
	CircuitBreaker CircuitBreaker
}

// DefaultPolicy is the retry policy when none is named.
const DefaultPolicy = "mongodb-2026-03"

// DefaultOptions returns the drivers' defaults.
func DefaultOptions() Options {
	return Options{
		MaxPoolSize: 100, MaxConnecting: 2,
		ConnectTimeout:         30 * time.Second,
		ServerSelectionTimeout: 30 * time.Second,
		LocalThreshold:         selection.DefaultLocalThreshold,
		HeartbeatFrequency:     10 * time.Second,
		MinHeartbeatFrequency:  500 * time.Millisecond,
		RetryPolicy:            DefaultPolicy,
		Retry:                  retry.DefaultOptions(),
	}
}

// Validate reports every invalid option at once, each as a *field.Error naming the option (as a
// connection string spells it: timeoutMS, maxPoolSize, circuitBreaker.volumeThreshold), its
// value and the rule, joined with errors.Join; the read preference's and the retry policy's come
// from selection.ReadPreference.Validate and retry.Options.Validate. kind is the topology the
// client connects to (read preference rules depend on it).
func (o Options) Validate(kind selection.TopologyKind) error {
	var errs []error
	bad := func(name string, v any, rule string) {
		errs = append(errs, field.New(name, v, rule))
	}
	if o.Timeout < 0 {
		bad("timeoutMS", o.Timeout, "must be ≥ 0 (0 = off)")
	}
	if o.MaxPoolSize < 1 {
		bad("maxPoolSize", o.MaxPoolSize, "must be ≥ 1")
	}
	if o.MaxConnecting < 1 {
		bad("maxConnecting", o.MaxConnecting, "must be ≥ 1")
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{
		{"connectTimeoutMS", o.ConnectTimeout},
		{"serverSelectionTimeoutMS", o.ServerSelectionTimeout},
		{"heartbeatFrequencyMS", o.HeartbeatFrequency},
		{"minHeartbeatFrequencyMS", o.MinHeartbeatFrequency},
	} {
		if d.v <= 0 {
			bad(d.name, d.v, "must be > 0")
		}
	}
	if o.WaitQueueTimeout < 0 {
		bad("waitQueueTimeoutMS", o.WaitQueueTimeout, "must be ≥ 0 (0 = none)")
	}
	if o.LocalThreshold < 0 {
		bad("localThresholdMS", o.LocalThreshold, "must be ≥ 0")
	}
	if err := o.ReadPreference.Validate(kind); err != nil {
		errs = append(errs, err)
	}
	if _, err := retry.New(o.RetryPolicy, o.retryOptions(kind)); err != nil {
		errs = append(errs, err)
	}
	if o.CircuitBreaker.Enabled && !retry.Couchbase(o.RetryPolicy) {
		bad("circuitBreaker.enabled", true, "applies only to couchbase-* policies (retryPolicy "+o.RetryPolicy+")")
	}
	if err := o.CircuitBreaker.Validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// retryOptions returns the options the retry policy is built with: o.Retry, with CSOT and
// Sharded derived from o.Timeout and the topology kind. It is the one place they are derived.
func (o Options) retryOptions(kind selection.TopologyKind) retry.Options {
	r := o.Retry
	r.CSOT = o.Timeout > 0
	r.Sharded = kind == selection.Sharded
	return r
}
