package client

import (
	"fmt"

	"github.com/overloadsim/overloadsim/client/retry"
	"github.com/overloadsim/overloadsim/wire"
)

// OpKind is an operation an application issues.
type OpKind uint8

// The operations the model issues. Update and delete are the single-document forms (updateOne,
// deleteOne), which Retryable Writes covers.
const (
	Find OpKind = iota
	Insert
	Update
	Delete
	Aggregate
	AggregateOut // aggregate with $out: a write
	GetMore
	RunCommand // the generic runCommand helper, here runCommand({ping: 1})
	CommitTransaction
	AbortTransaction
	// Couchbase SDK3 requests, for clients with a couchbase-* policy.
	KVGet
	KVGetAndLock
	KVUpsert
	KVUnlock
	Query         // a N1QL statement that writes (readonly false)
	QueryReadonly // a N1QL statement with readonly true
	Search        // a full-text search request
	numOpKinds
)

// NumOpKinds is the number of OpKind values.
const NumOpKinds = int(numOpKinds)

// opInfo is an operation's wire command and its retry class, from the specs:
//   - Retryable Reads, "Supported Read Operations": find and aggregate (without a write stage)
//     are retryable reads; getMore and generic runCommand are not.
//   - Retryable Writes, "Supported Write Operations": single-document insert, update and delete,
//     and commit/abortTransaction (retried once, Transactions spec); aggregate with $out is not.
//   - Client Backpressure rule 2.4: an overload retry needs retryWrites for writes, retryReads for
//     reads, and both for runCommand, which for error propagation counts as a write (rule 6).
//   - Couchbase RFC 0049, "Idempotent Operation List": a KV get (not get-and-lock), a query
//     with readonly true, and every search request are idempotent; everything else is not.
//     Couchbase requests never set Write: a Couchbase node has no primary to refuse them.
var opInfo = [numOpKinds]struct {
	name  string
	cmd   wire.Command
	class retry.Class
}{
	Find:              {"find", wire.Find, retry.Class{RetryableRead: true, Cursor: true}},
	Insert:            {"insert", wire.Insert, retry.Class{Write: true, RetryableWrite: true}},
	Update:            {"update", wire.Update, retry.Class{Write: true, RetryableWrite: true}},
	Delete:            {"delete", wire.Delete, retry.Class{Write: true, RetryableWrite: true}},
	Aggregate:         {"aggregate", wire.Aggregate, retry.Class{RetryableRead: true, Cursor: true}},
	AggregateOut:      {"aggregateOut", wire.Aggregate, retry.Class{Write: true, Cursor: true}},
	GetMore:           {"getMore", wire.GetMore, retry.Class{}},
	RunCommand:        {"runCommand", wire.Ping, retry.Class{RunCommand: true}},
	CommitTransaction: {"commitTransaction", wire.CommitTransaction, retry.Class{Write: true, RetryableWrite: true}},
	AbortTransaction:  {"abortTransaction", wire.AbortTransaction, retry.Class{Write: true, RetryableWrite: true}},
	KVGet:             {"kvGet", wire.KVGet, retry.Class{Service: wire.ServiceKV, Idempotent: true}},
	KVGetAndLock:      {"kvGetAndLock", wire.KVGetAndLock, retry.Class{Service: wire.ServiceKV}},
	KVUpsert:          {"kvUpsert", wire.KVUpsert, retry.Class{Service: wire.ServiceKV}},
	KVUnlock:          {"kvUnlock", wire.KVUnlock, retry.Class{Service: wire.ServiceKV, Unlock: true}},
	Query:             {"query", wire.Query, retry.Class{Service: wire.ServiceQuery}},
	QueryReadonly:     {"queryReadonly", wire.Query, retry.Class{Service: wire.ServiceQuery, Idempotent: true}},
	Search:            {"search", wire.Search, retry.Class{Service: wire.ServiceSearch, Idempotent: true}},
}

// Couchbase reports whether the operation is a Couchbase SDK request.
func (k OpKind) Couchbase() bool { return opInfo[k].class.Service.Couchbase() }

// String returns the operation's name as scenarios spell it.
func (k OpKind) String() string {
	if k < numOpKinds {
		return opInfo[k].name
	}
	return fmt.Sprintf("op(%d)", k)
}

// ParseOpKind returns the operation with the given name.
func ParseOpKind(name string) (OpKind, bool) {
	for i, o := range opInfo {
		if o.name == name {
			return OpKind(i), true
		}
	}
	return 0, false
}

// OpKindNames lists every operation name, in OpKind order.
func OpKindNames() []string {
	out := make([]string, numOpKinds)
	for i, o := range opInfo {
		out[i] = o.name
	}
	return out
}

// Class returns the operation's retry class.
func (k OpKind) Class() retry.Class { return opInfo[k].class }

// Command returns the wire command the operation sends.
func (k OpKind) Command() wire.Command { return opInfo[k].cmd }

// IsWrite reports whether only a primary may serve the operation.
func (k OpKind) IsWrite() bool { return opInfo[k].class.Write }
