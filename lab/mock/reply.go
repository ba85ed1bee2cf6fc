package mock

import (
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/overloadsim/overloadsim/lab/experiment"
)

const (
	// setName is a replica set's name; Set.URI asks for it.
	setName = "rs0"
	// maxWireVersion is MongoDB 8.0's: within the range of every driver release the lab runs
	// (the Go driver v2.7.0 accepts 8 to 25, v2.10.0 9 to 29), and recent enough that no
	// feature a driver gates on the server's version is missing.
	maxWireVersion = 25
	// version is the server version buildInfo reports, matching maxWireVersion.
	version = "8.0.0"
)

// electionID is the primary's election id: constant, as the primary never changes.
var electionID = bson.ObjectID{0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 1}

// hello is the reply to hello (or the legacy isMaster) at node n on connection id.
func (s *Set) hello(n *node, legacy bool, id int32) bson.D {
	primary := s.e.Topology.Kind != "replicaset" || n.index == 0
	writable := "isWritablePrimary"
	if legacy {
		writable = "ismaster"
	}
	d := bson.D{{Key: "helloOk", Value: true}, {Key: writable, Value: primary}}
	switch s.e.Topology.Kind {
	case "replicaset":
		d = append(d,
			bson.E{Key: "secondary", Value: !primary},
			bson.E{Key: "setName", Value: setName},
			bson.E{Key: "setVersion", Value: int32(1)},
			bson.E{Key: "hosts", Value: s.Addrs()},
			bson.E{Key: "primary", Value: s.nodes[0].addr},
			bson.E{Key: "me", Value: n.addr})
		if primary {
			d = append(d, bson.E{Key: "electionId", Value: electionID})
		}
	case "sharded":
		d = append(d, bson.E{Key: "msg", Value: "isdbgrid"})
	}
	return append(d,
		bson.E{Key: "minWireVersion", Value: int32(0)},
		bson.E{Key: "maxWireVersion", Value: int32(maxWireVersion)},
		bson.E{Key: "maxBsonObjectSize", Value: int32(maxBSONSize)},
		bson.E{Key: "maxMessageSizeBytes", Value: int32(maxMessageSize)},
		bson.E{Key: "maxWriteBatchSize", Value: int32(100_000)},
		bson.E{Key: "localTime", Value: bson.NewDateTimeFromTime(time.Now())},
		// Without a session timeout a driver uses no sessions, so no retryable writes.
		bson.E{Key: "logicalSessionTimeoutMinutes", Value: int32(30)},
		bson.E{Key: "connectionId", Value: id},
		bson.E{Key: "readOnly", Value: false},
		bson.E{Key: "ok", Value: 1.0})
}

// success is the successful reply to req at node n: empty results, nothing written but what
// the command carried, as if every collection were empty.
func (s *Set) success(n *node, req *request, id int32) ([]byte, error) {
	name := req.name()
	db, _ := req.body.Lookup("$db").StringValueOK()
	if db == "" {
		db = "admin"
	}
	ns := func() string {
		if c, ok := req.body.Lookup(name).StringValueOK(); ok {
			return db + "." + c
		}
		return db + ".$cmd." + name
	}
	ok := bson.E{Key: "ok", Value: 1.0}
	var d bson.D
	switch {
	case isHello(name):
		d = s.hello(n, name != "hello", id)
	case name == "find" || name == "aggregate":
		d = bson.D{{Key: "cursor", Value: bson.D{{Key: "id", Value: int64(0)}, {Key: "ns", Value: ns()}, {Key: "firstBatch", Value: bson.A{}}}}, ok}
	case name == "getMore":
		coll, _ := req.body.Lookup("collection").StringValueOK()
		d = bson.D{{Key: "cursor", Value: bson.D{{Key: "id", Value: int64(0)}, {Key: "ns", Value: db + "." + coll}, {Key: "nextBatch", Value: bson.A{}}}}, ok}
	case name == "insert":
		d = bson.D{{Key: "n", Value: int32(count(req, "documents"))}, ok}
	case name == "update":
		d = bson.D{{Key: "n", Value: int32(0)}, {Key: "nModified", Value: int32(0)}, ok}
	case name == "delete":
		d = bson.D{{Key: "n", Value: int32(0)}, ok}
	case name == "killCursors":
		ids := bson.A{}
		if arr, isArr := req.body.Lookup("cursors").ArrayOK(); isArr {
			if vals, err := arr.Values(); err == nil {
				for _, v := range vals {
					ids = append(ids, v)
				}
			}
		}
		d = bson.D{{Key: "cursorsKilled", Value: bson.A{}}, {Key: "cursorsNotFound", Value: ids},
			{Key: "cursorsAlive", Value: bson.A{}}, {Key: "cursorsUnknown", Value: bson.A{}}, ok}
	case name == "buildInfo" || name == "buildinfo":
		d = bson.D{{Key: "version", Value: version}, {Key: "versionArray", Value: bson.A{int32(8), int32(0), int32(0), int32(0)}},
			{Key: "maxBsonObjectSize", Value: int32(maxBSONSize)}, ok}
	default: // ping, endSessions, and anything else
		d = bson.D{ok}
	}
	return bson.Marshal(d)
}

// count returns how many documents the command carries in field: a kind-1 document sequence
// or an array in the body.
func count(req *request, field string) int {
	if docs, ok := req.seqs[field]; ok {
		return len(docs)
	}
	if arr, ok := req.body.Lookup(field).ArrayOK(); ok {
		if vals, err := arr.Values(); err == nil {
			return len(vals)
		}
	}
	return 0
}

// errorReply is a scripted error: ok 0 with the code, its name, its labels and a server-given
// base backoff when the script sets one.
func errorReply(e *experiment.Error) ([]byte, error) {
	d := bson.D{{Key: "ok", Value: 0.0},
		{Key: "errmsg", Value: fmt.Sprintf("mock: scripted error %d", e.Code)},
		{Key: "code", Value: int32(e.Code)}}
	if e.CodeName != "" {
		d = append(d, bson.E{Key: "codeName", Value: e.CodeName})
	}
	if len(e.Labels) > 0 {
		d = append(d, bson.E{Key: "errorLabels", Value: e.Labels})
	}
	if e.BaseBackoffMS > 0 {
		d = append(d, bson.E{Key: "baseBackoffMS", Value: int32(e.BaseBackoffMS)})
	}
	return bson.Marshal(d)
}
