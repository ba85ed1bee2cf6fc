package wire

import (
	"fmt"
	"slices"
	"strconv"
)

// Service is the protocol family a command belongs to, which gives a reply's Code its meaning.
// MongoDB commands carry MongoDB error codes. A Couchbase SDK talks to several services of a
// Couchbase node, each with its own status numbers: the data service (KV) answers with a
// memcached binary-protocol status byte, the query service (N1QL) with query error numbers, and
// the search service over HTTP with HTTP status codes. Those numbers overlap each other and
// MongoDB's (KV 0x86 is 134, MongoDB's ReadConcernMajorityNotAvailableYet), so each non-MongoDB
// service's statuses live in their own range of Code; CouchbaseStatus maps a service's wire
// number to its Code and Code.Number maps it back.
type Service uint8

// Services.
const (
	ServiceMongoDB Service = iota
	ServiceKV              // Couchbase data service: memcached binary protocol statuses
	ServiceQuery           // Couchbase query service: N1QL error numbers
	ServiceSearch          // Couchbase search service: HTTP statuses
	ServiceView            // Couchbase view service: HTTP statuses
	numServices
)

var serviceNames = [numServices]string{"mongodb", "kv", "query", "search", "view"}

// String returns the service's name.
func (s Service) String() string {
	if s < numServices {
		return serviceNames[s]
	}
	return "service(" + strconv.Itoa(int(s)) + ")"
}

// Couchbase reports whether the service is one of a Couchbase node's.
func (s Service) Couchbase() bool { return s != ServiceMongoDB && s < numServices }

// Service returns the service a command is addressed to.
func (c Command) Service() Service {
	switch c {
	case KVGet, KVGetAndLock, KVUpsert, KVUnlock:
		return ServiceKV
	case Query:
		return ServiceQuery
	case Search:
		return ServiceSearch
	}
	return ServiceMongoDB
}

// Ranges of Code that hold the Couchbase services' statuses: far above every MongoDB code.
const (
	kvBase    Code = 1 << 24 // + memcached status byte
	queryBase Code = 2 << 24 // + N1QL error number
	httpBase  Code = 3 << 24 // + HTTP status (search and view services)
	rangeMask Code = 1<<24 - 1
)

// Couchbase statuses the model returns or the SDK's retry handling names (SDK3 RFC 0049,
// "Response Code Retry List"; the KV status values are the memcached binary protocol's).
const (
	KVNotMyVbucket                Code = kvBase + 0x07
	KVLocked                      Code = kvBase + 0x09
	KVTemporaryFailure            Code = kvBase + 0x86
	KVCollectionOutdated          Code = kvBase + 0x88
	KVSyncWriteInProgress         Code = kvBase + 0xa2
	KVSyncWriteReCommitInProgress Code = kvBase + 0xa4

	QueryPreparedStatementFailure4040 Code = queryBase + 4040
	QueryPreparedStatementFailure4050 Code = queryBase + 4050
	QueryPreparedStatementFailure4070 Code = queryBase + 4070
	// QueryIndexNotFound is error 5000 whose message contains "queryport.indexNotFound"; the
	// model gives that case its own Code because it has no message text.
	QueryIndexNotFound Code = queryBase + 5000
	// QueryRequestQueueFull is the query service's answer when its request queue is full: HTTP
	// 503 "Request queue full". Its error number is not documented; the model uses 1117.
	QueryRequestQueueFull Code = queryBase + 1117

	HTTPTooManyRequests    Code = httpBase + 429
	HTTPFound              Code = httpBase + 302 // views: no active partition
	HTTPServiceUnavailable Code = httpBase + 503
)

var couchbaseNames = map[Code]string{
	KVNotMyVbucket: "NotMyVbucket", KVLocked: "Locked", KVTemporaryFailure: "TemporaryFailure",
	KVCollectionOutdated: "CollectionOutdated", KVSyncWriteInProgress: "SyncWriteInProgress",
	KVSyncWriteReCommitInProgress:     "SyncWriteReCommitInProgress",
	QueryPreparedStatementFailure4040: "PreparedStatementFailure", QueryPreparedStatementFailure4050: "PreparedStatementFailure",
	QueryPreparedStatementFailure4070: "PreparedStatementFailure", QueryIndexNotFound: "IndexNotFound",
	QueryRequestQueueFull: "RequestQueueFull",
	HTTPTooManyRequests:   "TooManyRequests", HTTPFound: "Found", HTTPServiceUnavailable: "ServiceUnavailable",
}

// CouchbaseStatus returns the Code of the status number n of service s: a KV status byte, a
// query error number or an HTTP status. ok is false for ServiceMongoDB and for numbers the
// model does not name.
func CouchbaseStatus(s Service, n int) (c Code, ok bool) {
	if n <= 0 || n > int(rangeMask) {
		return 0, false
	}
	switch s {
	case ServiceKV:
		c = kvBase + Code(n)
	case ServiceQuery:
		c = queryBase + Code(n)
	case ServiceSearch, ServiceView:
		c = httpBase + Code(n)
	default:
		return 0, false
	}
	_, ok = couchbaseNames[c]
	return c, ok
}

// HTTPStatus returns the Code of HTTP status n as the search and view services answer it,
// whether or not the model names it.
func HTTPStatus(n int) Code { return httpBase + Code(n)&rangeMask }

// CouchbaseStatuses returns the statuses of service s the model names, by number.
func CouchbaseStatuses(s Service) []Code {
	var out []Code
	for c := range couchbaseNames {
		if got, ok := CouchbaseStatus(s, c.Number()); ok && got == c {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return out
}

// OverloadStatus is how Couchbase service s says "overloaded, try later": the data service's KV
// TemporaryFailure (0x86), the search service's HTTP 429 Too Many Requests, the query service's
// HTTP 503 "Request queue full". ok is false for MongoDB and the view service.
func OverloadStatus(s Service) (c Code, ok bool) {
	switch s {
	case ServiceKV:
		return KVTemporaryFailure, true
	case ServiceSearch:
		return HTTPTooManyRequests, true
	case ServiceQuery:
		return QueryRequestQueueFull, true
	}
	return 0, false
}

// CouchbaseOverload reports whether c is a Couchbase service's overload status (OverloadStatus).
func (c Code) CouchbaseOverload() bool {
	for s := ServiceKV; s < numServices; s++ {
		if o, ok := OverloadStatus(s); ok && o == c {
			return true
		}
	}
	return false
}

// Number returns the status number as it travels on the wire: the code itself for MongoDB
// codes, the KV status byte, query error number or HTTP status for Couchbase ones.
func (c Code) Number() int {
	if c >= kvBase {
		return int(c & rangeMask)
	}
	return int(c)
}

// couchbaseString names a Couchbase status, e.g. "KV TemporaryFailure (0x86)".
func (c Code) couchbaseString() (string, bool) {
	name, ok := couchbaseNames[c]
	if !ok {
		return "", false
	}
	switch c &^ rangeMask {
	case kvBase:
		return fmt.Sprintf("KV %s (0x%02x)", name, c.Number()), true
	case queryBase:
		return fmt.Sprintf("query %s (%d)", name, c.Number()), true
	}
	return fmt.Sprintf("HTTP %d %s", c.Number(), name), true
}
