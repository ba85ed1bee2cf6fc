package retry

import "strings"

// ErrKind is the coarse kind of a failed attempt that the policies of other stacks (grpc, aws-*,
// finagle, envoy, sre-throttle, custom) decide on; each maps it to its own vocabulary (a gRPC
// status code, an AWS error category) in its documentation.
type ErrKind uint8

// Error kinds, from Kind.
const (
	// KindOverload is a server's overload reply: SystemOverloadedError (462 from an ingress
	// limiter, or a failpoint's labels), or a Couchbase overload status.
	KindOverload ErrKind = iota
	// KindNetwork is a network error: the connection closed or timed out with the command on
	// the wire, so there is no reply and the server may have run it.
	KindNetwork
	// KindDispatch is a failure before the command left the client: no connection could be
	// had, the pool was cleared, no node was usable, or an endpoint's breaker was open.
	KindDispatch
	// KindThrottled is the policy's own client-side throttle rejecting the attempt.
	KindThrottled
	// KindServer is any other error reply.
	KindServer
	numErrKinds
)

var errKindNames = [numErrKinds]string{"overload", "network", "dispatch", "throttled", "server"}

// String returns the kind's name as a custom policy's retryOn spells it.
func (k ErrKind) String() string {
	if k < numErrKinds {
		return errKindNames[k]
	}
	return "ErrKind(?)"
}

// ParseErrKind returns the kind called name.
func ParseErrKind(name string) (ErrKind, bool) {
	for i, n := range errKindNames {
		if n == name {
			return ErrKind(i), true
		}
	}
	return 0, false
}

// errKindList is the kinds' names for error messages.
func errKindList() string { return strings.Join(errKindNames[:], ", ") }

// Kind returns f's kind. The checks go from the client outwards: a local throttle, then what
// never left the client, then the connection, then the reply.
func Kind(f Failure) ErrKind {
	switch {
	case f.Throttled:
		return KindThrottled
	case f.Dispatch || f.PoolCleared || f.CircuitOpen || f.NoNode:
		return KindDispatch
	case f.Network:
		return KindNetwork
	case f.Overloaded() || f.Code.CouchbaseOverload():
		return KindOverload
	}
	return KindServer
}
