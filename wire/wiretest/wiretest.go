// Package wiretest is a kit for tests that talk over the wire package's connections: a scripted
// Client that sends commands to a node and records every reply, and a scripted Node that answers
// each command as its script says and records every request it received.
//
// Both follow the wire package's rules, so they can stand in for either side: a Client talks to
// a real server.Server (or a mongos) only through events, as a driver does, and a Node answers a
// real client.Client the way a server would, through the reply event the request names. A
// Client delivers each request at the time it is sent plus its connection's one-way link delay;
// a Node replies after its scripted delay plus the same link's delay.
//
// Neither allocates per request once warm when it records nothing: a Client reuses its request
// records (the wire package lets the sender own a request again once its reply event fired), so
// benchmarks and allocation tests can drive a node through it.
package wiretest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
)

// NewConn returns an unestablished connection with a zero-delay link: authenticated for an
// application connection, unauthenticated for a monitoring one (which the ingress request rate
// limiter exempts), and appName as its handshake's application name.
func NewConn(appName string, authenticated bool) *wire.Conn {
	return &wire.Conn{AppName: appName, Authenticated: authenticated, Link: wire.NewLink(nil, nil)}
}

// Reply is one reply a Client received: which request it answers, when that request went on the
// wire and when the reply came back, and the reply itself (embedded, so r.Code, r.Labels, r.OK()
// read it).
type Reply struct {
	ID   uint64
	Cmd  wire.Command
	Sent sim.Time // when the request was put on the wire
	Got  sim.Time // when the reply arrived
	wire.Reply
}

// String formats r as one line: when it arrived, the command, the request's ID and when it was
// sent, and the outcome: "1ms find #3 sent 0s: IngressRequestRateLimitExceeded
// [SystemOverloadedError,RetryableError]", or "network error" for a closed connection.
func (r Reply) String() string {
	return fmt.Sprintf("%v %v #%d sent %v: %s", r.Got, r.Cmd, r.ID, r.Sent, describe(r.Reply))
}

// describe formats a reply's outcome.
func describe(r wire.Reply) string {
	if r.NetErr {
		return "network error"
	}
	s := r.Code.String()
	if r.Labels != 0 {
		s += " " + r.Labels.String()
	}
	if r.BaseBackoffMS > 0 {
		s += fmt.Sprintf(" baseBackoffMS=%d", r.BaseBackoffMS)
	}
	return s
}

// Step is one command of a Client's script: at At, send Cmd, changed by Mod if it is not nil.
type Step struct {
	At  sim.Time
	Cmd wire.Command
	Mod func(*wire.Request)
}

// Event kinds a Client handles: replies to its requests, and the steps of its script.
const (
	kindReply = wire.FirstInternalKind + iota
	kindStep
)

// Client sends commands to one node on one connection and records what comes back. Create it
// with NewClient; change the exported fields before the first Send.
type Client struct {
	// Conn is the connection every request goes out on (a Step's or Send's Mod may put another
	// on a request). NewClient's connection is authenticated, named "wiretest", with a zero-delay
	// link.
	Conn *wire.Conn
	// Keep says to record every reply in Replies (default true). Without it the client only
	// counts, and allocates nothing per request once warm.
	Keep bool
	// MarkWrites says to set Request.Write on insert, update, delete and findAndModify, the
	// commands that always write, as a driver does.
	MarkWrites bool
	// OnReply, if not nil, is called after each reply is recorded, with the request record
	// already back in the client's pool: a closed-loop test sends its next command from it.
	OnReply func(now sim.Time, r Reply)

	// Replies holds every reply received, in arrival order (while Keep is set).
	Replies []Reply
	// Count is the number of replies received.
	Count int
	// ByCode counts the replies that were not network errors by their code.
	ByCode map[wire.Code]int
	// NetErrs counts the replies that were network errors (a closed connection).
	NetErrs int

	loop   *sim.Loop
	node   sim.Handler
	nextID uint64
	free   []*wire.Request
	steps  []Step
}

// NewClient returns a client that sends to node on loop, on an authenticated connection of its
// own (NewConn("wiretest", true)), recording every reply.
func NewClient(loop *sim.Loop, node sim.Handler) *Client {
	return &Client{Conn: NewConn("wiretest", true), Keep: true, ByCode: map[wire.Code]int{}, loop: loop, node: node}
}

// Loop returns the loop the client sends on.
func (c *Client) Loop() *sim.Loop { return c.loop }

// Send puts a request for cmd on the wire at at (not before the loop's now): ID is the next
// number, GiveUpAt is sim.Never, and mod, if not nil, may change anything before it leaves. It
// arrives at the node after the connection's one-way link delay. The request record belongs to
// the node until its reply fires; Send returns it for tests that look at it then.
func (c *Client) Send(at sim.Time, cmd wire.Command, mod func(*wire.Request)) *wire.Request {
	var r *wire.Request
	if n := len(c.free); n > 0 {
		r, c.free = c.free[n-1], c.free[:n-1]
	} else {
		r = &wire.Request{}
	}
	c.nextID++
	*r = wire.Request{ID: c.nextID, Cmd: cmd, Conn: c.Conn, GiveUpAt: sim.Never,
		ReplyTo: c, ReplyKind: kindReply, SentAt: at}
	if c.MarkWrites {
		switch cmd {
		case wire.Insert, wire.Update, wire.Delete, wire.FindAndModify:
			r.Write = true
		}
	}
	if mod != nil {
		mod(r)
	}
	var d time.Duration
	if r.Conn != nil && r.Conn.Link != nil {
		d = r.Conn.Link.Delay()
	}
	c.loop.At(at.Add(d), c.node, wire.EvRequest, r)
	return r
}

// Play schedules a script: each step's command is sent at its time (through Send, so the link
// delay is drawn then). Steps may come in any order; those at the same time go in script order.
func (c *Client) Play(steps ...Step) {
	for _, s := range steps {
		c.steps = append(c.steps, s)
		c.loop.At(s.At, c, kindStep, len(c.steps)-1)
	}
}

// HandleEvent receives the client's events: a reply to one of its requests (recorded, then
// OnReply) or a step of its script (sent).
func (c *Client) HandleEvent(now sim.Time, kind int, arg any) {
	if kind == kindStep {
		s := c.steps[arg.(int)]
		c.Send(now, s.Cmd, s.Mod)
		return
	}
	r := arg.(*wire.Request)
	c.Count++
	if r.Reply.NetErr {
		c.NetErrs++
	} else {
		c.ByCode[r.Reply.Code]++
	}
	rep := Reply{ID: r.ID, Cmd: r.Cmd, Sent: r.SentAt, Got: now, Reply: r.Reply}
	if c.Keep {
		c.Replies = append(c.Replies, rep)
	}
	c.free = append(c.free, r)
	if c.OnReply != nil {
		c.OnReply(now, rep)
	}
}

// Only returns the only reply received, failing the test if there is not exactly one.
func (c *Client) Only(t testing.TB) Reply {
	t.Helper()
	if len(c.Replies) != 1 {
		t.Fatalf("wiretest: %d replies, want exactly 1:\n%s", len(c.Replies), c.Transcript())
	}
	return c.Replies[0]
}

// Reset forgets the replies and counts so far; requests in flight are still counted when they
// come back.
func (c *Client) Reset() {
	c.Replies, c.Count, c.NetErrs = nil, 0, 0
	clear(c.ByCode)
}

// DropPool releases the request records the client keeps for reuse, for tests that measure the
// memory a node holds.
func (c *Client) DropPool() { c.free = nil }

// Transcript returns the recorded replies, one line each (Reply.String).
func (c *Client) Transcript() string {
	var b strings.Builder
	for _, r := range c.Replies {
		b.WriteString(r.String() + "\n")
	}
	return b.String()
}

// Answer is how a Node answers one command: after Delay (the node's own time, to which the
// link's delay is added), with Code, Labels and BaseBackoffMS; or by closing the connection
// (Close: the client sees a network error and the connection is closed from then on); or never
// (Hang). The zero Answer is success at once.
type Answer struct {
	Code          wire.Code
	Labels        wire.Labels
	BaseBackoffMS int64
	Delay         time.Duration
	Close         bool
	Hang          bool
}

// OK is success at once.
func OK() Answer { return Answer{} }

// Fail is an error reply with code and labels.
func Fail(code wire.Code, labels wire.Labels) Answer { return Answer{Code: code, Labels: labels} }

// RateLimited is the ingress request rate limiter's rejection: 462 IngressRequestRateLimitExceeded
// with SystemOverloadedError, RetryableError and NoWritesPerformed (docs/model.md §5.4).
func RateLimited() Answer {
	return Fail(wire.IngressRequestRateLimitExceeded,
		wire.SystemOverloadedError|wire.RetryableError|wire.NoWritesPerformed)
}

// CloseConn closes the connection instead of answering.
func CloseConn() Answer { return Answer{Close: true} }

// After returns a with Delay d.
func (a Answer) After(d time.Duration) Answer { a.Delay = d; return a }

// Times returns n copies of a, for a script that answers several commands alike.
func (a Answer) Times(n int) []Answer {
	out := make([]Answer, n)
	for i := range out {
		out[i] = a
	}
	return out
}

// String describes a, e.g. "IngressRequestRateLimitExceeded [SystemOverloadedError] after 5ms".
func (a Answer) String() string {
	var s string
	switch {
	case a.Hang:
		s = "no reply"
	case a.Close:
		s = "close the connection"
	default:
		s = describe(wire.Reply{Code: a.Code, Labels: a.Labels, BaseBackoffMS: a.BaseBackoffMS})
	}
	if a.Delay > 0 {
		s += " after " + a.Delay.String()
	}
	return s
}

// Arrival is one request a Node received: when, a copy of the request as it arrived, the number
// its connection had then (0 before the connection is established), and the answer the node
// gave it.
type Arrival struct {
	At     sim.Time
	Req    wire.Request
	ConnID uint64
	Answer Answer
}

// String formats a as one line: when it arrived, the command, the request's ID, the connection's
// number and the answer: "5ms find #2 on conn 1: IngressRequestRateLimitExceeded […]".
func (a Arrival) String() string {
	return fmt.Sprintf("%v %v #%d on conn %d: %s", a.At, a.Req.Cmd, a.Req.ID, a.ConnID, a.Answer)
}

// Node is a scripted node: each command is answered by AnswerFunc if it takes the request, else
// by the next Answer of that command's script (On), or by Default once the script is used up.
// Around them it behaves as a node does:
// a connect establishes the connection (numbering it), a disconnect closes it and gets no
// reply, anything sent on a closed connection gets a network error, and every reply carries the
// node's Role. Create it with NewNode.
type Node struct {
	// Role is the role every reply reports (a hello's answer).
	Role wire.Role
	// Default answers the commands whose script is used up; the zero Answer is success.
	Default Answer
	// AnswerFunc, if not nil, is asked first for every request the node answers itself (not a
	// disconnect, nor a request on a closed connection): it returns the answer and true, or false
	// to leave the request to the script. It answers what one script per command cannot, such as
	// answers that depend on the request's operation (Request.Op) or connection.
	AnswerFunc func(now sim.Time, r *wire.Request) (Answer, bool)
	// Arrivals records every request received, in order.
	Arrivals []Arrival

	loop     *sim.Loop
	scripts  [wire.NumCommands][]Answer
	nextConn uint64
}

// NewNode returns a node on loop with the given role that answers everything with success until
// scripted otherwise.
func NewNode(loop *sim.Loop, role wire.Role) *Node { return &Node{Role: role, loop: loop} }

// On appends answers to cmd's script: the next commands cmd are answered by them in order. It
// returns n, so calls chain.
func (n *Node) On(cmd wire.Command, answers ...Answer) *Node {
	n.scripts[cmd] = append(n.scripts[cmd], answers...)
	return n
}

// Received returns how many requests for cmd the node received.
func (n *Node) Received(cmd wire.Command) int {
	k := 0
	for _, a := range n.Arrivals {
		if a.Req.Cmd == cmd {
			k++
		}
	}
	return k
}

// Transcript returns the arrivals, one line each (Arrival.String).
func (n *Node) Transcript() string {
	var b strings.Builder
	for _, a := range n.Arrivals {
		b.WriteString(a.String() + "\n")
	}
	return b.String()
}

// kindSend is the node's own event: a delayed answer is due.
const kindSend = wire.FirstInternalKind

// HandleEvent receives requests (wire.EvRequest) and the node's own delayed answers.
func (n *Node) HandleEvent(now sim.Time, kind int, arg any) {
	r := arg.(*wire.Request)
	if kind == kindSend {
		n.send(now, r)
		return
	}
	a := n.answer(now, r)
	var id uint64
	if r.Conn != nil {
		id = r.Conn.ID
	}
	n.Arrivals = append(n.Arrivals, Arrival{At: now, Req: *r, ConnID: id, Answer: a})
	switch {
	case r.Cmd == wire.Disconnect:
		if r.Conn != nil {
			r.Conn.Closed = true
		}
		return
	case a.Hang:
		return
	case a.Close:
		r.Reply = wire.Reply{NetErr: true, Role: n.Role}
	default:
		r.Reply = wire.Reply{Code: a.Code, Labels: a.Labels, BaseBackoffMS: a.BaseBackoffMS, Role: n.Role}
	}
	if a.Delay > 0 {
		n.loop.After(a.Delay, n, kindSend, r)
		return
	}
	n.send(now, r)
}

// answer picks the answer for r: a network error on a closed connection (a connect reopens it),
// else AnswerFunc's, else the next one of its command's script, else Default.
func (n *Node) answer(now sim.Time, r *wire.Request) Answer {
	if r.Cmd != wire.Connect && (r.Conn == nil || r.Conn.Closed) {
		return CloseConn()
	}
	if r.Cmd == wire.Disconnect {
		return Answer{Hang: true}
	}
	if n.AnswerFunc != nil {
		if a, ok := n.AnswerFunc(now, r); ok {
			return a
		}
	}
	if s := n.scripts[r.Cmd]; len(s) > 0 {
		n.scripts[r.Cmd] = s[1:]
		return s[0]
	}
	return n.Default
}

// send delivers r's reply: a successful connect establishes its connection first, a close
// closes it.
func (n *Node) send(now sim.Time, r *wire.Request) {
	if c := r.Conn; c != nil {
		switch {
		case r.Reply.NetErr:
			c.Closed = true
		case r.Cmd == wire.Connect && r.Reply.Code == wire.OK:
			n.nextConn++
			c.ID, c.Closed = n.nextConn, false
		}
	}
	var d time.Duration
	if r.Conn != nil && r.Conn.Link != nil {
		d = r.Conn.Link.Delay()
	}
	n.loop.At(now.Add(d), r.ReplyTo, r.ReplyKind, r)
}
