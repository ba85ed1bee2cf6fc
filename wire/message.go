package wire

import (
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/overloadsim/overloadsim/sim"
)

// Command is the name of the command a request carries, as failCommand's failCommands lists it.
type Command uint8

// The commands the model sends. Connect is not a MongoDB command: it stands for establishing a
// connection (TCP, TLS, hello and auth), which the node's connection limiter admits.
const (
	Connect Command = iota
	Hello
	Ping
	Find
	GetMore
	KillCursors
	Insert
	Update
	Delete
	FindAndModify
	Aggregate
	CommitTransaction
	AbortTransaction
	// Disconnect is not a MongoDB command either: the client closing a connection. It gets no
	// reply.
	Disconnect
	// The Couchbase requests an SDK3 client sends (see Service): KV get, get-and-lock, upsert
	// and unlock on the data service, a N1QL statement on the query service, and a full-text
	// search request.
	KVGet
	KVGetAndLock
	KVUpsert
	KVUnlock
	Query
	Search
	numCommands
)

var commandNames = [numCommands]string{
	Connect: "connect", Hello: "hello", Ping: "ping", Find: "find", GetMore: "getMore",
	KillCursors: "killCursors", Insert: "insert", Update: "update", Delete: "delete",
	FindAndModify: "findAndModify", Aggregate: "aggregate",
	CommitTransaction: "commitTransaction", AbortTransaction: "abortTransaction",
	Disconnect: "disconnect",
	KVGet:      "kvGet", KVGetAndLock: "kvGetAndLock", KVUpsert: "kvUpsert", KVUnlock: "kvUnlock",
	Query: "query", Search: "search",
}

// NumCommands is the number of Command values, for tables indexed by command.
const NumCommands = int(numCommands)

// String returns the command's MongoDB name.
func (c Command) String() string {
	if int(c) < len(commandNames) {
		return commandNames[c]
	}
	return "command(" + strconv.Itoa(int(c)) + ")"
}

// ParseCommand returns the command with the given MongoDB name.
func ParseCommand(name string) (Command, bool) {
	for i, n := range commandNames {
		if n == name {
			return Command(i), true
		}
	}
	return 0, false
}

// Event kinds a node accepts from clients. Node-internal events use kinds ≥ FirstInternalKind.
const (
	EvRequest         = 1 // arg is *Request
	FirstInternalKind = 16
)

// ReadMode is a read preference mode as it travels to a mongos.
type ReadMode uint8

// Read preference modes.
const (
	ReadPrimary ReadMode = iota
	ReadPrimaryPreferred
	ReadSecondary
	ReadSecondaryPreferred
	ReadNearest
)

var readModeNames = [...]string{"primary", "primaryPreferred", "secondary", "secondaryPreferred", "nearest"}

// String returns the mode's name as MongoDB spells it.
func (m ReadMode) String() string {
	if int(m) < len(readModeNames) {
		return readModeNames[m]
	}
	return "readMode(" + strconv.Itoa(int(m)) + ")"
}

// Role is what a node is in its topology, as a hello reply reports it.
type Role uint8

// Roles.
const (
	Unknown Role = iota
	Standalone
	Primary
	Secondary
	Mongos
)

var roleNames = [...]string{"unknown", "standalone", "primary", "secondary", "mongos"}

// String returns the role's lower-case name.
func (r Role) String() string {
	if int(r) < len(roleNames) {
		return roleNames[r]
	}
	return "role(" + strconv.Itoa(int(r)) + ")"
}

// ParseRole returns the role with the given name (standalone, primary, secondary, mongos).
func ParseRole(name string) (Role, bool) {
	for i, n := range roleNames {
		if i > 0 && n == name {
			return Role(i), true
		}
	}
	return Unknown, false
}

// Delayer draws one-way network delays from r. A dist.Duration is one.
type Delayer interface {
	Sample(r *rand.Rand) time.Duration
}

// Link is the network path between one client and one node. Both directions draw from it: the
// client when it sends, the node when it replies. Its stream belongs to the link, so a node's
// replies never shift the numbers another link sees.
type Link struct {
	delay Delayer
	rng   *rand.Rand
	extra time.Duration // added to every draw: the network-delay fault
}

// NewLink returns a link whose one-way delays are drawn by d from rng.
func NewLink(d Delayer, rng *rand.Rand) *Link { return &Link{delay: d, rng: rng} }

// Delay draws one one-way delay (never negative).
func (l *Link) Delay() time.Duration {
	d := l.extra
	if l.delay != nil {
		d += l.delay.Sample(l.rng)
	}
	return max(d, 0)
}

// SetExtra sets a delay added to every draw from now on (a network-delay fault; 0 clears it).
func (l *Link) SetExtra(d time.Duration) { l.extra = d }

// Conn is one connection between a client and a node.
type Conn struct {
	ID      uint64
	AppName string // the handshake's appName / driver name, matched by application exemptions
	// Authenticated is false for monitoring and RTT connections, which never authenticate and
	// are therefore exempt from the ingress request rate limiter (docs/model.md §5.3).
	Authenticated bool
	// Internal marks an intra-cluster connection (a mongos talking to a shard member, which
	// identifies itself as an internal client in its handshake): failCommand failpoints skip
	// its commands unless failInternalCommands is set. The ingress request limiter still applies
	// to it, since its messages arrive through the member's session workflow like any other.
	Internal bool
	Link     *Link
	// Closed is set by the node when it closes the connection (a closeConnection failpoint, a
	// node going down); the client sees a network error and must not reuse it.
	Closed bool
	// Slot is the node's bookkeeping: where the connection is in the node's list of open
	// connections, plus one; 0 while the node has not registered it. Only the node sets it, so
	// that closing a connection costs no lookup.
	Slot int
}

// Request is one command attempt on the wire. Clients pool them; see the package doc for who
// owns a Request when.
type Request struct {
	ID uint64
	// Op is the client's number for the operation this attempt belongs to (1, 2, ... in issue
	// order per client), 0 for connection establishment and monitoring: a scripted node tells
	// one operation's attempts apart by it, as a mock server does by a real driver's comment.
	Op   uint64
	Conn *Conn
	Cmd  Command
	// Write says the command writes (insert, update, delete, findAndModify, aggregate with $out,
	// commit/abort): only a primary (or standalone) accepts it.
	Write bool
	// SecondaryOK says the read preference lets a secondary serve this read.
	SecondaryOK bool
	// ReadPref is the read preference mode the driver forwards to a mongos with a read
	// ($readPreference), which the mongos applies when it targets a shard member. The zero
	// value is primary.
	ReadPref ReadMode
	// Cancelled says the client cancelled the request after sending it (a hedged copy that
	// lost to another): a node that has not started it drops it before any work, answering
	// Interrupted; one already running it finishes.
	Cancelled bool
	// MaxTime is the server-side deadline (maxTimeMS) measured from arrival at the node; 0
	// means none. Past it the node aborts the command with MaxTimeMSExpired.
	MaxTime time.Duration
	// GiveUpAt is when the client stops waiting for this reply (its socket or operation timeout;
	// sim.Never if it waits forever). Nodes use it only to count work finished for nobody: a
	// client that has given up does not tell the node so.
	GiveUpAt sim.Time
	// ConnectTimeout, on a Connect request, is how long the client waits for the connection to
	// be established; a node's connection queue drops the waiter then and returns its token.
	ConnectTimeout time.Duration

	ReplyTo   sim.Handler
	ReplyKind int
	Reply     Reply

	SentAt sim.Time // when the client put it on the wire
}

// Reply is what came back for a Request.
type Reply struct {
	Code   Code
	Labels Labels
	// Role is the node's role; set on every reply so that hello answers and errors carry it.
	Role Role
	// NetErr means the connection was closed or reset: there is no reply document, and Code and
	// Labels are unset (the driver derives labels for network errors itself).
	NetErr bool
	// BaseBackoffMS is the node's externalClientBaseBackoffMS attached to an overload error; 0
	// when absent.
	BaseBackoffMS int64
	// Pushback says the error carries server pushback: retry after PushbackMS milliseconds,
	// or not at all when PushbackMS < 0 (gRPC's grpc-retry-pushback-ms, AWS's
	// x-amz-retry-after). MongoDB drivers ignore it.
	Pushback   bool
	PushbackMS int64
}

// OK reports whether the command succeeded.
func (r Reply) OK() bool { return !r.NetErr && r.Code == OK }
