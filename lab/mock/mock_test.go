package mock

import (
	"bufio"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/overloadsim/overloadsim/lab/experiment"
)

// client speaks raw wire messages to one node, as a driver's connection would.
type client struct {
	t    *testing.T
	c    net.Conn
	r    *bufio.Reader
	next int32
}

func dial(t *testing.T, addr string) *client {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	return &client{t: t, c: c, r: bufio.NewReader(c), next: 100}
}

func marshal(t *testing.T, d any) []byte {
	t.Helper()
	b, err := bson.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func (cl *client) send(b []byte) int32 {
	cl.t.Helper()
	if _, err := cl.c.Write(b); err != nil {
		cl.t.Fatal(err)
	}
	return int32(binary.LittleEndian.Uint32(b[4:]))
}

// query sends an OP_QUERY command on admin.$cmd.
func (cl *client) query(cmd bson.D) int32 {
	cl.next++
	b := appendHeader(nil, cl.next, 0, opQuery)
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = append(b, "admin.$cmd\x00"...)
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = binary.LittleEndian.AppendUint32(b, uint32(0xffffffff)) // numberToReturn -1
	b = append(b, marshal(cl.t, cmd)...)
	return cl.send(finish(b))
}

// seq is an OP_MSG kind-1 section.
type seq struct {
	id   string
	docs []bson.D
}

// msgBytes builds an OP_MSG with a body and document sequences, and a checksum if asked.
func (cl *client) msgBytes(flags uint32, body bson.D, seqs ...seq) []byte {
	cl.next++
	b := appendHeader(nil, cl.next, 0, opMsg)
	b = binary.LittleEndian.AppendUint32(b, flags)
	b = append(b, 0)
	b = append(b, marshal(cl.t, body)...)
	for _, s := range seqs {
		var p []byte
		p = append(p, s.id...)
		p = append(p, 0)
		for _, d := range s.docs {
			p = append(p, marshal(cl.t, d)...)
		}
		b = append(b, 1)
		b = binary.LittleEndian.AppendUint32(b, uint32(4+len(p)))
		b = append(b, p...)
	}
	if flags&flagChecksumPresent != 0 {
		b = binary.LittleEndian.AppendUint32(b, 0)
		finish(b)
		sum := crc32.Checksum(b[:len(b)-4], castagnoli)
		binary.LittleEndian.PutUint32(b[len(b)-4:], sum)
		return b
	}
	return finish(b)
}

func (cl *client) msg(body bson.D, seqs ...seq) int32 {
	return cl.send(cl.msgBytes(0, body, seqs...))
}

// reply reads one reply: its opcode, responseTo and document.
func (cl *client) reply() (int32, int32, bson.Raw) {
	cl.t.Helper()
	var h [16]byte
	if _, err := io.ReadFull(cl.r, h[:]); err != nil {
		cl.t.Fatalf("read reply: %v", err)
	}
	n := binary.LittleEndian.Uint32(h[:])
	p := make([]byte, n-16)
	if _, err := io.ReadFull(cl.r, p); err != nil {
		cl.t.Fatal(err)
	}
	op := int32(binary.LittleEndian.Uint32(h[12:]))
	to := int32(binary.LittleEndian.Uint32(h[8:]))
	switch op {
	case opReply:
		if nr := binary.LittleEndian.Uint32(p[16:]); nr != 1 {
			cl.t.Fatalf("OP_REPLY numberReturned %d", nr)
		}
		return op, to, bson.Raw(p[20:])
	case opMsg:
		if p[4] != 0 {
			cl.t.Fatalf("OP_MSG section kind %d", p[4])
		}
		return op, to, bson.Raw(p[5:])
	}
	cl.t.Fatalf("reply opcode %d", op)
	return 0, 0, nil
}

// closed says whether the server closed the connection without a reply.
func (cl *client) closed() bool {
	_ = cl.c.SetReadDeadline(time.Now().Add(2 * time.Second))
	_, err := cl.r.ReadByte()
	return errors.Is(err, io.EOF) || (err != nil && !isTimeout(err))
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// handshake does a connection's hello over OP_QUERY and checks it succeeded.
func (cl *client) handshake() bson.Raw {
	cl.t.Helper()
	cl.query(bson.D{{Key: "isMaster", Value: 1}, {Key: "helloOk", Value: true}})
	_, _, doc := cl.reply()
	if ok, _ := doc.Lookup("ok").DoubleOK(); ok != 1 {
		cl.t.Fatalf("handshake failed: %v", doc)
	}
	return doc
}

func start(t *testing.T, e *experiment.Experiment) *Set {
	t.Helper()
	if e.Doc == "" {
		e.Doc = "test"
	}
	if e.Rules == nil {
		e.Rules = []string{"attempts"}
	}
	if e.Topology.Kind == "" {
		e.Topology = experiment.Topology{Kind: "standalone", Nodes: 1}
	}
	if e.Operation == "" {
		e.Operation = "find"
	}
	if e.Count == 0 {
		e.Count, e.Concurrency = 10, 1
	}
	s, err := Start(e)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.Close()
		if err := s.Err(); err != nil {
			t.Errorf("protocol problems: %v", err)
		}
	})
	return s
}

// appConn dials node i's monitoring connection (once) and returns a new application connection
// whose handshake succeeded.
func appConn(t *testing.T, s *Set, i int) *client {
	t.Helper()
	mon := dial(t, s.Addrs()[i])
	mon.handshake()
	cl := dial(t, s.Addrs()[i])
	cl.handshake()
	return cl
}

func find(op string) bson.D {
	return bson.D{{Key: "find", Value: "c"}, {Key: "filter", Value: bson.D{}}, {Key: "comment", Value: op}, {Key: "$db", Value: "lab"}}
}

var overload = &experiment.Error{Code: 462, CodeName: "IngressRequestRateLimitExceeded", Labels: experiment.Overloaded}

// TestHello: the legacy OP_QUERY handshake gets an OP_REPLY, and an OP_MSG hello an OP_MSG, with
// the fields a driver needs for the topology's role.
func TestHello(t *testing.T) {
	cases := []struct {
		kind  string
		nodes int
		node  int
		want  map[string]any
	}{
		{"standalone", 1, 0, map[string]any{"ismaster": true, "setName": nil, "msg": nil}},
		{"replicaset", 3, 0, map[string]any{"ismaster": true, "secondary": false, "setName": "rs0", "primary": 0, "me": 0, "hosts": 3}},
		{"replicaset", 3, 2, map[string]any{"ismaster": false, "secondary": true, "setName": "rs0", "primary": 0, "me": 2, "hosts": 3}},
		{"sharded", 2, 1, map[string]any{"ismaster": true, "msg": "isdbgrid", "setName": nil}},
	}
	for _, c := range cases {
		t.Run(c.kind, func(t *testing.T) {
			s := start(t, &experiment.Experiment{Name: "hello", Topology: experiment.Topology{Kind: c.kind, Nodes: c.nodes}})
			cl := dial(t, s.Addrs()[c.node])
			id := cl.query(bson.D{{Key: "isMaster", Value: 1}, {Key: "helloOk", Value: true}})
			op, to, doc := cl.reply()
			if op != opReply || to != id {
				t.Fatalf("OP_QUERY hello answered by opcode %d to %d, want OP_REPLY to %d", op, to, id)
			}
			for k, v := range map[string]any{"helloOk": true, "minWireVersion": 0, "maxWireVersion": maxWireVersion,
				"logicalSessionTimeoutMinutes": 30, "maxBsonObjectSize": maxBSONSize, "maxMessageSizeBytes": maxMessageSize,
				"maxWriteBatchSize": 100000, "ok": 1} {
				checkField(t, doc, k, v, s)
			}
			for k, v := range c.want {
				checkField(t, doc, k, v, s)
			}
			if _, ok := doc.Lookup("localTime").DateTimeOK(); !ok {
				t.Errorf("no localTime: %v", doc)
			}
			if _, ok := doc.Lookup("connectionId").Int32OK(); !ok {
				t.Errorf("no connectionId: %v", doc)
			}
			// Then a heartbeat over OP_MSG says isWritablePrimary.
			id = cl.msg(bson.D{{Key: "hello", Value: 1}, {Key: "$db", Value: "admin"}})
			op, to, doc = cl.reply()
			if op != opMsg || to != id {
				t.Fatalf("OP_MSG hello answered by opcode %d to %d", op, to)
			}
			checkField(t, doc, "isWritablePrimary", c.want["ismaster"], s)
			if len(s.Log()) != 0 {
				t.Errorf("monitoring connection logged: %v", s.Log())
			}
		})
	}
}

// checkField checks doc[k] against want: nil = absent, an int = an int32 (or, for primary/me,
// the node's address; for hosts, the number of hosts), a bool, a string, or 1 for ok.
func checkField(t *testing.T, doc bson.Raw, k string, want any, s *Set) {
	t.Helper()
	v, err := doc.LookupErr(k)
	if want == nil {
		if err == nil {
			t.Errorf("%s = %v, want absent", k, v)
		}
		return
	}
	if err != nil {
		t.Errorf("%s absent, want %v", k, want)
		return
	}
	switch w := want.(type) {
	case bool:
		if b, ok := v.BooleanOK(); !ok || b != w {
			t.Errorf("%s = %v, want %v", k, v, w)
		}
	case string:
		if got, ok := v.StringValueOK(); !ok || got != w {
			t.Errorf("%s = %v, want %q", k, v, w)
		}
	case int:
		switch k {
		case "primary", "me":
			if got, _ := v.StringValueOK(); got != s.Addrs()[w] {
				t.Errorf("%s = %v, want %s", k, v, s.Addrs()[w])
			}
		case "hosts":
			vals, _ := v.Array().Values()
			if len(vals) != w {
				t.Errorf("hosts = %v, want %d", v, w)
			}
		case "ok":
			if got, _ := v.DoubleOK(); got != float64(w) {
				t.Errorf("ok = %v", v)
			}
		default:
			if got, ok := v.Int32OK(); !ok || int(got) != w {
				t.Errorf("%s = %v, want %d", k, v, w)
			}
		}
	}
}

// TestFindWithComment: an operation's find gets an empty cursor and is logged with its op
// index, node, connection and the handshake before it; a command without the tag is not.
func TestFindWithComment(t *testing.T) {
	s := start(t, &experiment.Experiment{Name: "find"})
	cl := appConn(t, s, 0)
	id := cl.msg(find("op-3"))
	_, to, doc := cl.reply()
	if to != id {
		t.Errorf("responseTo %d, want %d", to, id)
	}
	if got := doc.Lookup("cursor", "ns").StringValue(); got != "lab.c" {
		t.Errorf("ns %q", got)
	}
	if got, _ := doc.Lookup("cursor", "id").Int64OK(); got != 0 {
		t.Errorf("cursor id %d", got)
	}
	if vals, err := doc.Lookup("cursor", "firstBatch").Array().Values(); err != nil || len(vals) != 0 {
		t.Errorf("firstBatch %v", doc)
	}
	cl.msg(bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}})
	if _, _, doc := cl.reply(); doc.Lookup("ok").Double() != 1 {
		t.Errorf("ping: %v", doc)
	}
	log := s.Log()
	if len(log) != 2 {
		t.Fatalf("log %+v, want the handshake and the find", log)
	}
	if e := log[0]; e.Op != -1 || e.Command != "isMaster" || e.Conn != 1 || e.Answer != "ok" {
		t.Errorf("handshake entry %+v", e)
	}
	if e := log[1]; e.Op != 3 || e.Command != "find" || e.Node != "n0" || e.Conn != 1 || e.Answer != "ok" || e.T < log[0].T {
		t.Errorf("find entry %+v", e)
	}
}

// TestScript: scripted answers follow the entry's order per operation, count Times, repeat
// the last, match by node and command, delay and close.
func TestScript(t *testing.T) {
	withBackoff := *overload
	withBackoff.BaseBackoffMS = 20
	e := &experiment.Experiment{Name: "script", Topology: experiment.Topology{Kind: "sharded", Nodes: 2},
		Script: []experiment.Entry{
			{Node: "n1", Command: "find", Answers: []experiment.Answer{{OK: true}}},
			{Command: "find", Answers: []experiment.Answer{{Error: &withBackoff, Times: 2}, {Close: true, DelayMS: 50}, {OK: true, DelayMS: 50}}},
			{Command: "insert", Answers: []experiment.Answer{{Error: &experiment.Error{Code: 10107}}}},
		}}
	s := start(t, e)
	n0 := appConn(t, s, 0)
	n1 := appConn(t, s, 1)
	type step struct {
		cl    *client
		cmd   bson.D
		want  string // "error <code>", "close", "ok"
		delay bool
	}
	steps := []step{
		{n0, find("op-0"), "error 462", false},
		{n1, find("op-0"), "ok", false}, // n1's own entry, which does not advance n0's
		{n0, find("op-1"), "error 462", false},
		{n0, find("op-0"), "error 462", false},
		{n0, find("op-0"), "close", true},
		{nil, find("op-0"), "ok", true},
		{nil, find("op-0"), "ok", true}, // the last answer repeats
		{nil, bson.D{{Key: "insert", Value: "c"}, {Key: "comment", Value: "op-0"}, {Key: "$db", Value: "lab"}}, "error 10107", false},
		{nil, bson.D{{Key: "count", Value: "c"}, {Key: "comment", Value: "op-0"}, {Key: "$db", Value: "lab"}}, "ok", false},
	}
	for i, st := range steps {
		cl := st.cl
		if cl == nil {
			if n0 == nil {
				n0 = dial(t, s.Addrs()[0])
				n0.handshake()
			}
			cl = n0
		}
		t0 := time.Now()
		cl.msg(st.cmd)
		if st.want == "close" {
			if !cl.closed() {
				t.Errorf("step %d: connection not closed", i)
			}
			n0 = nil
		} else {
			_, _, doc := cl.reply()
			switch {
			case st.want == "ok":
				if doc.Lookup("ok").Double() != 1 {
					t.Errorf("step %d: %v, want ok", i, doc)
				}
			default:
				code, _ := doc.Lookup("code").Int32OK()
				if doc.Lookup("ok").Double() != 0 || "error "+itoa(int(code)) != st.want {
					t.Errorf("step %d: %v, want %s", i, doc, st.want)
				}
				if code == 462 {
					labels, _ := doc.Lookup("errorLabels").Array().Values()
					if len(labels) != 2 || labels[1].StringValue() != "SystemOverloadedError" {
						t.Errorf("step %d: labels %v", i, labels)
					}
					if b, _ := doc.Lookup("baseBackoffMS").Int32OK(); b != 20 {
						t.Errorf("step %d: baseBackoffMS %v", i, doc.Lookup("baseBackoffMS"))
					}
					if doc.Lookup("codeName").StringValue() != "IngressRequestRateLimitExceeded" || doc.Lookup("errmsg").StringValue() == "" {
						t.Errorf("step %d: %v", i, doc)
					}
				}
			}
		}
		if d := time.Since(t0); st.delay && d < 50*time.Millisecond {
			t.Errorf("step %d: answered after %v, want ≥ 50ms", i, d)
		}
	}
	var got []string
	for _, en := range s.Log() {
		if en.Op >= 0 {
			got = append(got, en.Node+" op-"+itoa(en.Op)+" "+en.Command+" "+en.Answer)
		}
	}
	want := []string{"n0 op-0 find error 462", "n1 op-0 find ok", "n0 op-1 find error 462", "n0 op-0 find error 462",
		"n0 op-0 find close", "n0 op-0 find ok", "n0 op-0 find ok", "n0 op-0 insert error 10107", "n0 op-0 count ok"}
	if !slices.Equal(got, want) {
		t.Errorf("log\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestHandshakeScript: the monitoring connection's handshake always succeeds; application
// connections take the handshake list in arrival order, then succeed.
func TestHandshakeScript(t *testing.T) {
	s := start(t, &experiment.Experiment{Name: "hs", Handshake: []experiment.Answer{{Error: overload}, {Close: true}}})
	dial(t, s.Addrs()[0]).handshake() // monitoring
	a := dial(t, s.Addrs()[0])
	a.query(bson.D{{Key: "hello", Value: 1}})
	if _, _, doc := a.reply(); doc.Lookup("code").Int32() != 462 || doc.Lookup("ok").Double() != 0 {
		t.Errorf("first application handshake: %v, want error 462", doc)
	}
	b := dial(t, s.Addrs()[0])
	b.query(bson.D{{Key: "hello", Value: 1}})
	if !b.closed() {
		t.Error("second application handshake not closed")
	}
	dial(t, s.Addrs()[0]).handshake()
	var got []string
	for _, en := range s.Log() {
		got = append(got, itoa(en.Conn)+" "+en.Command+" "+en.Answer)
		if en.Op != -1 {
			t.Errorf("handshake logged with op %d", en.Op)
		}
	}
	if want := []string{"1 hello error 462", "2 hello close", "3 isMaster ok"}; !slices.Equal(got, want) {
		t.Errorf("handshakes %v, want %v", got, want)
	}
}

// TestProbability: an answer with P applies to about that share of commands, the same ones for
// the same seed, and the others succeed.
func TestProbability(t *testing.T) {
	run := func(seed uint64) []string {
		s := start(t, &experiment.Experiment{Name: "p", Seed: seed,
			Script: []experiment.Entry{{Command: "find", Answers: []experiment.Answer{{Error: overload, P: 0.3}}}}})
		cl := appConn(t, s, 0)
		for i := range 200 {
			cl.msg(find("op-" + itoa(i)))
			cl.reply()
		}
		var got []string
		for _, en := range s.Log()[1:] {
			got = append(got, en.Answer)
		}
		return got
	}
	a, b, c := run(7), run(7), run(8)
	n := 0
	for _, x := range a {
		if x == "error 462" {
			n++
		} else if x != "ok" {
			t.Fatalf("answer %q", x)
		}
	}
	if n < 35 || n > 85 {
		t.Errorf("%d of 200 errors at P=0.3", n)
	}
	if !slices.Equal(a, b) {
		t.Error("same seed, different answers")
	}
	if slices.Equal(a, c) {
		t.Error("different seeds, same answers")
	}
}

// TestMessages: kind-1 document sequences are read (an insert counts them), moreToCome gets no
// reply, a correct checksum is accepted.
func TestMessages(t *testing.T) {
	s := start(t, &experiment.Experiment{Name: "msg"})
	cl := appConn(t, s, 0)
	docs := []bson.D{{{Key: "_id", Value: 1}}, {{Key: "_id", Value: 2}}, {{Key: "_id", Value: 3}}}
	cl.msg(bson.D{{Key: "insert", Value: "c"}, {Key: "comment", Value: "op-0"}, {Key: "$db", Value: "lab"}}, seq{"documents", docs})
	if _, _, doc := cl.reply(); doc.Lookup("n").Int32() != 3 || doc.Lookup("ok").Double() != 1 {
		t.Errorf("insert reply %v, want n 3", doc)
	}
	cl.send(cl.msgBytes(flagMoreToCome, bson.D{{Key: "insert", Value: "c"}, {Key: "$db", Value: "lab"}}, seq{"documents", docs}))
	id := cl.send(cl.msgBytes(flagChecksumPresent, bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}}))
	if _, to, doc := cl.reply(); to != id || doc.Lookup("ok").Double() != 1 {
		t.Errorf("after moreToCome: reply to %d (%v), want the checksummed ping %d", to, doc, id)
	}
}

// TestBadMessages: a message the mock cannot read closes the connection and is reported.
func TestBadMessages(t *testing.T) {
	cases := []struct {
		name string
		msg  func(cl *client) []byte
		want string
	}{
		{"checksum", func(cl *client) []byte {
			b := cl.msgBytes(flagChecksumPresent, bson.D{{Key: "ping", Value: 1}})
			b[len(b)-1] ^= 0xff
			return b
		}, "checksum"},
		{"opcode", func(cl *client) []byte {
			b := cl.msgBytes(0, bson.D{{Key: "ping", Value: 1}})
			binary.LittleEndian.PutUint32(b[12:], 2010)
			return b
		}, "opCode 2010"},
		{"required flag", func(cl *client) []byte { return cl.msgBytes(1<<5, bson.D{{Key: "ping", Value: 1}}) }, "unknown required bits"},
		{"bad bson", func(cl *client) []byte {
			b := cl.msgBytes(0, bson.D{{Key: "ping", Value: 1}})
			b[21] = 0xff // the body's length
			return b
		}, "document size"},
		{"length", func(cl *client) []byte {
			b := cl.msgBytes(0, bson.D{{Key: "ping", Value: 1}})
			binary.LittleEndian.PutUint32(b, 3)
			return b
		}, "messageLength 3"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := Start(&experiment.Experiment{Name: "bad", Doc: "x", Rules: []string{"attempts"},
				Topology: experiment.Topology{Kind: "standalone", Nodes: 1}, Operation: "find", Count: 1, Concurrency: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			cl := dial(t, s.Addrs()[0])
			cl.send(c.msg(cl))
			if !cl.closed() {
				t.Error("connection not closed")
			}
			s.Close()
			if err := s.Err(); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("problems %v, want %q", err, c.want)
			}
		})
	}
}

// TestURI: the options the harness needs per topology, then the experiment's and the caller's,
// later ones replacing earlier ones.
func TestURI(t *testing.T) {
	cases := []struct {
		kind  string
		nodes int
		uri   map[string]string
		extra map[string]string
		want  string
	}{
		{"standalone", 1, nil, nil, "?serverMonitoringMode=poll&heartbeatFrequencyMS=500&serverSelectionTimeoutMS=5000&directConnection=true"},
		{"replicaset", 2, map[string]string{"timeoutMS": "1500", "retryReads": "false"}, nil,
			"?serverMonitoringMode=poll&heartbeatFrequencyMS=500&serverSelectionTimeoutMS=5000&replicaSet=rs0&retryReads=false&timeoutMS=1500"},
		{"sharded", 2, map[string]string{"heartbeatFrequencyMS": "1000"}, map[string]string{"appName": "lab run"},
			"?serverMonitoringMode=poll&serverSelectionTimeoutMS=5000&heartbeatFrequencyMS=1000&appName=lab+run"},
	}
	for _, c := range cases {
		s := start(t, &experiment.Experiment{Name: "uri", Topology: experiment.Topology{Kind: c.kind, Nodes: c.nodes}, URI: c.uri})
		want := "mongodb://" + strings.Join(s.Addrs(), ",") + "/" + c.want
		if got := s.URI(c.extra); got != want {
			t.Errorf("%s: %s\nwant %s", c.kind, got, want)
		}
	}
}

// TestStartRefusesBadExperiment: an experiment that fails its check is refused, not served.
func TestStartRefusesBadExperiment(t *testing.T) {
	_, err := Start(&experiment.Experiment{Name: "bad", Doc: "x", Rules: []string{"attempts"},
		Topology: experiment.Topology{Kind: "standalone", Nodes: 1}, Operation: "find", Count: 1, Concurrency: 1,
		Script: []experiment.Entry{{Command: "find"}}})
	if err == nil || !strings.Contains(err.Error(), "script[0].answers") {
		t.Errorf("err %v", err)
	}
}

// TestConcurrentConnections: many connections at once are answered and logged, each attempt once
// (run with -race).
func TestConcurrentConnections(t *testing.T) {
	s := start(t, &experiment.Experiment{Name: "many", Script: []experiment.Entry{{Command: "find", Answers: []experiment.Answer{{Error: overload}, {OK: true}}}}})
	dial(t, s.Addrs()[0]).handshake()
	t.Run("workers", func(t *testing.T) {
		for w := range 8 {
			t.Run(itoa(w), func(t *testing.T) {
				t.Parallel()
				cl := dial(t, s.Addrs()[0])
				cl.handshake()
				var got []string
				for range 2 {
					cl.msg(find("op-" + itoa(w)))
					_, _, doc := cl.reply()
					got = append(got, itoa(int(doc.Lookup("ok").Double())))
				}
				if !slices.Equal(got, []string{"0", "1"}) {
					t.Errorf("ok fields %v, want an error then ok", got)
				}
			})
		}
	})
	if n := len(s.Log()); n != 8+16 {
		t.Errorf("%d entries, want 8 handshakes and 16 attempts", n)
	}
}

// TestNotApplicationConnections: a later connection that sends hello again after its handshake
// is a monitor that reconnected, one that sends endSessions the client closing: their handshakes
// are not application handshakes, unless the handshake script answered them.
func TestNotApplicationConnections(t *testing.T) {
	s := start(t, &experiment.Experiment{Name: "mon", Handshake: []experiment.Answer{{OK: true, DelayMS: 1}}})
	dial(t, s.Addrs()[0]).handshake()
	scripted := dial(t, s.Addrs()[0])
	scripted.handshake()
	mon := dial(t, s.Addrs()[0])
	mon.handshake()
	app := dial(t, s.Addrs()[0])
	app.handshake()
	app.msg(find("op-0"))
	app.reply()
	closing := dial(t, s.Addrs()[0])
	closing.handshake()
	hello := bson.D{{Key: "hello", Value: 1}, {Key: "$db", Value: "admin"}}
	for _, c := range []*client{scripted, mon, app} { // app: after an attempt, it stays
		c.msg(hello)
		c.reply()
	}
	closing.msg(bson.D{{Key: "endSessions", Value: bson.A{}}, {Key: "$db", Value: "admin"}})
	closing.reply()
	var got []string
	for _, en := range s.Log() {
		got = append(got, itoa(en.Conn)+" "+en.Command)
	}
	if want := []string{"1 isMaster", "3 isMaster", "3 find"}; !slices.Equal(got, want) {
		t.Errorf("log %v, want %v", got, want)
	}
}
