package wire

import (
	"slices"
	"strconv"
	"strings"
)

// Code is a MongoDB server error code; OK (0) means the command succeeded.
type Code int32

// Error codes the model produces or that failpoints may inject. Names and numbers are MongoDB's
// (src/mongo/base/error_codes.yml).
const (
	OK                                  Code = 0
	InternalError                       Code = 1
	BadValue                            Code = 2
	HostUnreachable                     Code = 6
	HostNotFound                        Code = 7
	MaxTimeMSExpired                    Code = 50
	FailedToSatisfyReadPreference       Code = 133
	NetworkTimeout                      Code = 89
	ShutdownInProgress                  Code = 91
	WriteConflict                       Code = 112
	ReadConcernMajorityNotAvailableYet  Code = 134
	PrimarySteppedDown                  Code = 189
	ExceededTimeLimit                   Code = 262
	AdmissionQueueOverflow              Code = 433
	RateLimitExceeded                   Code = 449
	PooledConnectionAcquisitionRejected Code = 450
	IngressRequestRateLimitExceeded     Code = 462
	SocketException                     Code = 9001
	NotWritablePrimary                  Code = 10107
	InterruptedAtShutdown               Code = 11600
	Interrupted                         Code = 11601
	InterruptedDueToReplStateChange     Code = 11602
	NotPrimaryNoSecondaryOk             Code = 13435
	NotPrimaryOrSecondary               Code = 13436
)

var codeNames = map[Code]string{
	OK:                                  "OK",
	InternalError:                       "InternalError",
	BadValue:                            "BadValue",
	HostUnreachable:                     "HostUnreachable",
	HostNotFound:                        "HostNotFound",
	MaxTimeMSExpired:                    "MaxTimeMSExpired",
	FailedToSatisfyReadPreference:       "FailedToSatisfyReadPreference",
	NetworkTimeout:                      "NetworkTimeout",
	ShutdownInProgress:                  "ShutdownInProgress",
	WriteConflict:                       "WriteConflict",
	ReadConcernMajorityNotAvailableYet:  "ReadConcernMajorityNotAvailableYet",
	PrimarySteppedDown:                  "PrimarySteppedDown",
	ExceededTimeLimit:                   "ExceededTimeLimit",
	AdmissionQueueOverflow:              "AdmissionQueueOverflow",
	RateLimitExceeded:                   "RateLimitExceeded",
	PooledConnectionAcquisitionRejected: "PooledConnectionAcquisitionRejected",
	IngressRequestRateLimitExceeded:     "IngressRequestRateLimitExceeded",
	SocketException:                     "SocketException",
	NotWritablePrimary:                  "NotWritablePrimary",
	InterruptedAtShutdown:               "InterruptedAtShutdown",
	Interrupted:                         "Interrupted",
	InterruptedDueToReplStateChange:     "InterruptedDueToReplStateChange",
	NotPrimaryNoSecondaryOk:             "NotPrimaryNoSecondaryOk",
	NotPrimaryOrSecondary:               "NotPrimaryOrSecondary",
}

// Known reports whether c is one of the MongoDB codes this package names (Couchbase statuses,
// see CouchbaseStatus, are not).
func (c Code) Known() bool { _, ok := codeNames[c]; return ok }

// String returns MongoDB's codeName, or the number for a code this package does not name.
func (c Code) String() string {
	if n, ok := codeNames[c]; ok {
		return n
	}
	if n, ok := c.couchbaseString(); ok {
		return n
	}
	return strconv.Itoa(int(c))
}

// KnownCodes returns every named code in ascending order (for error messages and docs).
func KnownCodes() []Code {
	out := make([]Code, 0, len(codeNames))
	for c := range codeNames {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}

// IsRetryableRead reports whether a read failing with c is retryable under the Retryable Reads
// spec ("Determining Retryable Errors"): 11600, 11602, 10107, 13435, 13436, 189, 91, 7, 6, 89,
// 9001, 262, 134. Network errors are retryable too; they carry no code (Reply.NetErr).
func (c Code) IsRetryableRead() bool {
	switch c {
	case InterruptedAtShutdown, InterruptedDueToReplStateChange, NotWritablePrimary,
		NotPrimaryNoSecondaryOk, NotPrimaryOrSecondary, PrimarySteppedDown, ShutdownInProgress,
		HostNotFound, HostUnreachable, NetworkTimeout, SocketException, ExceededTimeLimit,
		ReadConcernMajorityNotAvailableYet:
		return true
	}
	return false
}

// IsSystemOverloaded reports whether c is in MongoDB's SystemOverloadedError category
// (error_codes.yml): 433, 449, 450, 462. Drivers act on the label, not the code; nodes use this
// to label the errors they generate.
func (c Code) IsSystemOverloaded() bool {
	switch c {
	case AdmissionQueueOverflow, RateLimitExceeded, PooledConnectionAcquisitionRejected,
		IngressRequestRateLimitExceeded:
		return true
	}
	return false
}

// Labels is a set of error labels.
type Labels uint16

// The error labels drivers and nodes use.
const (
	SystemOverloadedError Labels = 1 << iota
	RetryableError
	NoWritesPerformed
	RetryableWriteError
	TransientTransactionError
)

var labelNames = []struct {
	l    Labels
	name string
}{
	{SystemOverloadedError, "SystemOverloadedError"},
	{RetryableError, "RetryableError"},
	{NoWritesPerformed, "NoWritesPerformed"},
	{RetryableWriteError, "RetryableWriteError"},
	{TransientTransactionError, "TransientTransactionError"},
}

// Has reports whether every label in x is in l.
func (l Labels) Has(x Labels) bool { return l&x == x }

// Names returns the labels' names in a fixed order.
func (l Labels) Names() []string {
	var out []string
	for _, n := range labelNames {
		if l&n.l != 0 {
			out = append(out, n.name)
		}
	}
	return out
}

// String formats l as MongoDB prints errorLabels, e.g. [SystemOverloadedError,RetryableError].
func (l Labels) String() string { return "[" + strings.Join(l.Names(), ",") + "]" }

// ParseLabel returns the label with the given name.
func ParseLabel(name string) (Labels, bool) {
	for _, n := range labelNames {
		if n.name == name {
			return n.l, true
		}
	}
	return 0, false
}

// LabelNames lists every label name, in the fixed order.
func LabelNames() []string {
	out := make([]string, len(labelNames))
	for i, n := range labelNames {
		out[i] = n.name
	}
	return out
}
