package retry

import (
	"strconv"

	"github.com/overloadsim/overloadsim/wire"
)

// Reason is a RetryReason of Couchbase's SDK3 retry handling (RFC 0049, "RetryReason"): why a
// request is handed to the retry orchestrator. Its two flags decide what happens: a reason that
// allows non-idempotent retry may retry any request, others only idempotent ones; an always-retry
// reason bypasses the retry strategy altogether.
type Reason uint8

// The RFC's reasons, in its table's order. ReasonNone is not one of them: it marks a Decision that
// a MongoDB policy made.
const (
	ReasonNone Reason = iota
	ReasonUnknown
	ReasonSocketNotAvailable
	ReasonServiceNotAvailable
	ReasonNodeNotAvailable
	ReasonKVNotMyVbucket
	ReasonKVCollectionOutdated
	ReasonKVErrorMapRetryIndicated
	ReasonKVLocked
	ReasonKVTemporaryFailure
	ReasonKVSyncWriteInProgress
	ReasonKVSyncWriteReCommitInProgress
	ReasonServiceResponseCodeIndicated
	ReasonSocketClosedWhileInFlight
	ReasonCircuitBreakerOpen
	ReasonQueryPreparedStatementFailure
	ReasonQueryIndexNotFound
	ReasonAnalyticsTemporaryFailure
	ReasonSearchTooManyRequests
	ReasonViewsTemporaryFailure
	ReasonViewsNoActivePartition
	numReasons
)

// NumReasons is the number of Reason values, ReasonNone included, for tables indexed by reason.
const NumReasons = int(numReasons)

// reasons is the RFC's table: name, "Non-idempotent Retry", "Always retry".
var reasons = [numReasons]struct {
	name          string
	nonIdempotent bool
	always        bool
}{
	ReasonNone:                          {"NONE", false, false},
	ReasonUnknown:                       {"UNKNOWN", false, false},
	ReasonSocketNotAvailable:            {"SOCKET_NOT_AVAILABLE", true, false},
	ReasonServiceNotAvailable:           {"SERVICE_NOT_AVAILABLE", true, false},
	ReasonNodeNotAvailable:              {"NODE_NOT_AVAILABLE", true, false},
	ReasonKVNotMyVbucket:                {"KV_NOT_MY_VBUCKET", true, true},
	ReasonKVCollectionOutdated:          {"KV_COLLECTION_OUTDATED", true, true},
	ReasonKVErrorMapRetryIndicated:      {"KV_ERROR_MAP_RETRY_INDICATED", true, false},
	ReasonKVLocked:                      {"KV_LOCKED", true, false},
	ReasonKVTemporaryFailure:            {"KV_TEMPORARY_FAILURE", true, false},
	ReasonKVSyncWriteInProgress:         {"KV_SYNC_WRITE_IN_PROGRESS", true, false},
	ReasonKVSyncWriteReCommitInProgress: {"KV_SYNC_WRITE_RE_COMMIT_IN_PROGRESS", true, false},
	ReasonServiceResponseCodeIndicated:  {"SERVICE_RESPONSE_CODE_INDICATED", true, false},
	ReasonSocketClosedWhileInFlight:     {"SOCKET_CLOSED_WHILE_IN_FLIGHT", false, false},
	ReasonCircuitBreakerOpen:            {"CIRCUIT_BREAKER_OPEN", true, false},
	ReasonQueryPreparedStatementFailure: {"QUERY_PREPARED_STATEMENT_FAILURE", true, false},
	ReasonQueryIndexNotFound:            {"QUERY_INDEX_NOT_FOUND", true, false},
	ReasonAnalyticsTemporaryFailure:     {"ANALYTICS_TEMPORARY_FAILURE", true, false},
	ReasonSearchTooManyRequests:         {"SEARCH_TOO_MANY_REQUESTS", true, false},
	ReasonViewsTemporaryFailure:         {"VIEWS_TEMPORARY_FAILURE", true, false},
	ReasonViewsNoActivePartition:        {"VIEWS_NO_ACTIVE_PARTITION", true, true},
}

// String returns the reason's name as the RFC spells it (KV_TEMPORARY_FAILURE).
func (r Reason) String() string {
	if r < numReasons {
		return reasons[r].name
	}
	return "Reason(" + strconv.Itoa(int(r)) + ")"
}

// AllowsNonIdempotentRetry is the table's "Non-idempotent Retry" column: the request cannot have
// changed anything on the server, so even a non-idempotent one may be retried.
func (r Reason) AllowsNonIdempotentRetry() bool { return r < numReasons && reasons[r].nonIdempotent }

// AlwaysRetry is the table's "Always retry" column: the orchestrator retries with its controlled
// backoff whatever the strategy, even fail-fast, would say.
func (r Reason) AlwaysRetry() bool { return r < numReasons && reasons[r].always }

// ReasonNames returns the RFC names of every reason, ReasonNone's first, in Reason order.
func ReasonNames() []string {
	out := make([]string, numReasons)
	for i := range reasons {
		out[i] = reasons[i].name
	}
	return out
}

// viewsTemporary are the view service's HTTP statuses that mean VIEWS_TEMPORARY_FAILURE
// ("Response Code Retry List", View). 302 is VIEWS_NO_ACTIVE_PARTITION and comes first.
var viewsTemporary = map[int]bool{300: true, 301: true, 303: true, 307: true, 401: true, 408: true,
	409: true, 412: true, 416: true, 417: true, 501: true, 502: true, 503: true, 504: true}

// ReasonOf returns the reason a failed attempt of a Couchbase request of class c is handed to the
// orchestrator with: the RFC's stage rules and its "Response Code Retry List".
//
//   - Client dispatch (the request never left the client): no usable node at all is
//     NODE_NOT_AVAILABLE, a checkout that found no usable socket SOCKET_NOT_AVAILABLE, one
//     refused by an open circuit breaker CIRCUIT_BREAKER_OPEN. All allow non-idempotent retry:
//     nothing reached the server. (A Couchbase node offers every service, so the model never
//     meets SERVICE_NOT_AVAILABLE, and it has no circuit breaker; both map all the same.)
//   - Network time: the socket closed while the request was in flight is
//     SOCKET_CLOSED_WHILE_IN_FLIGHT, which does not: the server may have applied it.
//   - Response received: by the request's service. KV: NotMyVbucket 0x07, CollectionOutdated
//     0x88, Locked 0x09 (except for unlock, which must surface as a CAS mismatch), TemporaryFailure
//     0x86, SyncWriteInProgress 0xa2, SyncWriteReCommitInProgress 0xa4. Query: 4040, 4050, 4070
//     (prepared statement failure) and 5000 with "queryport.indexNotFound". Search: HTTP 429.
//     Views: 302, then 300, 301, 303, 307, 401, 408, 409, 412, 416, 417, 501–504. Any other
//     response, success aside, is UNKNOWN: "once a complete, known response is received it
//     should not be retried, unless specifically outlined in this list". The Couchbase policies
//     fail an UNKNOWN request at once, without asking the strategy, idempotent or not.
//
// The view rules that read the response text (404 with "missing", 500 without not_found or
// badarg) are not modelled: the model's replies carry no text.
func ReasonOf(f Failure, c Class) Reason {
	switch {
	case f.NoNode:
		return ReasonNodeNotAvailable
	case f.CircuitOpen:
		return ReasonCircuitBreakerOpen
	case f.Dispatch || f.PoolCleared:
		return ReasonSocketNotAvailable
	case f.Network:
		return ReasonSocketClosedWhileInFlight
	}
	switch c.Service {
	case wire.ServiceKV:
		switch f.Code {
		case wire.KVNotMyVbucket:
			return ReasonKVNotMyVbucket
		case wire.KVCollectionOutdated:
			return ReasonKVCollectionOutdated
		case wire.KVLocked:
			if !c.Unlock {
				return ReasonKVLocked
			}
		case wire.KVTemporaryFailure:
			return ReasonKVTemporaryFailure
		case wire.KVSyncWriteInProgress:
			return ReasonKVSyncWriteInProgress
		case wire.KVSyncWriteReCommitInProgress:
			return ReasonKVSyncWriteReCommitInProgress
		}
	case wire.ServiceQuery:
		switch f.Code {
		case wire.QueryPreparedStatementFailure4040, wire.QueryPreparedStatementFailure4050,
			wire.QueryPreparedStatementFailure4070:
			return ReasonQueryPreparedStatementFailure
		case wire.QueryIndexNotFound:
			return ReasonQueryIndexNotFound
		}
	case wire.ServiceSearch:
		if f.Code == wire.HTTPTooManyRequests {
			return ReasonSearchTooManyRequests
		}
	case wire.ServiceView:
		switch n := f.Code.Number(); {
		case f.Code == wire.HTTPFound:
			return ReasonViewsNoActivePartition
		case f.Code == wire.HTTPStatus(n) && viewsTemporary[n]:
			return ReasonViewsTemporaryFailure
		}
	}
	return ReasonUnknown
}
