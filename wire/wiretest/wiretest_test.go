package wiretest

import (
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
)

func ms(n int) sim.Time { return sim.Time(time.Duration(n) * time.Millisecond) }

// TestNodeScript: each command is answered by its own script in order, then by Default; the
// delay is the node's own time on top of the link's; every reply carries the node's role.
func TestNodeScript(t *testing.T) {
	loop := sim.NewLoop()
	n := NewNode(loop, wire.Primary).On(wire.Find, Fail(wire.NotWritablePrimary, 0), OK().After(3*time.Millisecond))
	n.Default = Fail(wire.BadValue, 0)
	c := NewClient(loop, n)
	c.Send(0, wire.Find, nil)
	c.Send(0, wire.Insert, nil)
	c.Send(0, wire.Find, nil)
	c.Send(0, wire.Find, nil)
	loop.Run()
	want := []struct {
		id   uint64
		code wire.Code
		got  sim.Time
	}{{1, wire.NotWritablePrimary, 0}, {2, wire.BadValue, 0}, {4, wire.BadValue, 0}, {3, wire.OK, ms(3)}}
	if len(c.Replies) != len(want) {
		t.Fatalf("replies:\n%s", c.Transcript())
	}
	for i, w := range want {
		if r := c.Replies[i]; r.ID != w.id || r.Code != w.code || r.Got != w.got || r.Role != wire.Primary {
			t.Errorf("reply %d = %v (role %v), want #%d %v at %v from a primary", i, r, r.Role, w.id, w.code, w.got)
		}
	}
	if n.Received(wire.Find) != 3 || n.Received(wire.Insert) != 1 || len(n.Arrivals) != 4 {
		t.Errorf("node received %d finds, %d inserts:\n%s", n.Received(wire.Find), n.Received(wire.Insert), n.Transcript())
	}
	if c.Count != 4 || c.ByCode[wire.BadValue] != 2 || c.ByCode[wire.OK] != 1 || c.NetErrs != 0 {
		t.Errorf("counts: %d replies, by code %v, %d network errors", c.Count, c.ByCode, c.NetErrs)
	}
}

// TestNodeConnections: a connect numbers the connection, a disconnect closes it without a
// reply, anything later on it is a network error; a closing answer closes it when the reply
// leaves, and a hanging one never replies.
func TestNodeConnections(t *testing.T) {
	loop := sim.NewLoop()
	n := NewNode(loop, wire.Standalone).On(wire.Ping, Answer{Hang: true}).On(wire.Find, CloseConn().After(time.Millisecond))
	c := NewClient(loop, n)
	c.Send(0, wire.Connect, nil)
	c.Send(ms(1), wire.Ping, nil)
	c.Send(ms(2), wire.Find, nil)
	loop.RunUntil(ms(2))
	if c.Conn.ID != 1 || c.Conn.Closed {
		t.Fatalf("after connect: conn %d closed %v, want 1 and open", c.Conn.ID, c.Conn.Closed)
	}
	loop.Run()
	if !c.Conn.Closed || c.NetErrs != 1 || c.Count != 2 || c.Replies[1].Got != ms(3) {
		t.Fatalf("after the closing find: closed %v, replies:\n%s", c.Conn.Closed, c.Transcript())
	}
	c.Reset()
	other := NewConn("other", true)
	c.Send(loop.Now(), wire.Connect, func(r *wire.Request) { r.Conn = other })
	c.Send(loop.Now(), wire.Disconnect, func(r *wire.Request) { r.Conn = other })
	c.Send(loop.Now(), wire.Find, func(r *wire.Request) { r.Conn = other })
	loop.Run()
	if other.ID != 2 || !other.Closed || c.Count != 2 || c.ByCode[wire.OK] != 1 || c.NetErrs != 1 {
		t.Errorf("connect, disconnect, find: conn %d closed %v, replies:\n%s", other.ID, other.Closed, c.Transcript())
	}
}

// TestClientSend: requests carry the next ID, the send time and no deadline; MarkWrites marks
// the commands that always write; mod has the last word; Only finds the one reply.
func TestClientSend(t *testing.T) {
	loop := sim.NewLoop()
	n := NewNode(loop, wire.Standalone)
	c := NewClient(loop, n)
	c.MarkWrites = true
	c.Send(ms(1), wire.Insert, nil)
	c.Send(ms(1), wire.Find, nil)
	c.Send(ms(1), wire.Delete, func(r *wire.Request) { r.Write = false; r.MaxTime = time.Second })
	loop.Run()
	for i, want := range []struct {
		write bool
		max   time.Duration
	}{{true, 0}, {false, 0}, {false, time.Second}} {
		r := n.Arrivals[i].Req
		if r.ID != uint64(i+1) || r.SentAt != ms(1) || r.GiveUpAt != sim.Never || r.Write != want.write || r.MaxTime != want.max {
			t.Errorf("request %d = %+v, want ID %d sent at 1ms, write %v, maxTime %v", i, r, i+1, want.write, want.max)
		}
	}
	c.Reset()
	c.Send(loop.Now(), wire.Ping, nil)
	loop.Run()
	if r := c.Only(t); r.Cmd != wire.Ping || !r.OK() || !strings.Contains(r.String(), "ping #4") {
		t.Errorf("Only() = %v", r)
	}
}

// TestClientClosedLoop: OnReply sends the next command from the reply, and the client reuses
// its request records, allocating nothing per request once warm when it records nothing.
func TestClientClosedLoop(t *testing.T) {
	loop := sim.NewLoop()
	n := NewNode(loop, wire.Standalone)
	n.Default = OK().After(time.Millisecond)
	n.Arrivals = make([]Arrival, 0, 1<<16)
	c := NewClient(loop, n)
	c.Keep = false
	c.OnReply = func(now sim.Time, _ Reply) { c.Send(now, wire.Find, nil) }
	for range 4 {
		c.Send(0, wire.Find, nil)
	}
	for range 1000 {
		loop.Step()
	}
	if allocs := testing.AllocsPerRun(1000, func() { loop.Step() }); allocs != 0 {
		t.Errorf("%v allocations per event, want 0", allocs)
	}
	if got := len(c.free) + loop.Len(); got != 4 {
		t.Errorf("%d request records, want the 4 in flight reused", got)
	}
}

// TestNodeAnswerFunc: AnswerFunc answers the requests it takes, before the script; those it
// leaves go to the script and then Default; a disconnect and a request on a closed connection
// never reach it.
func TestNodeAnswerFunc(t *testing.T) {
	loop := sim.NewLoop()
	n := NewNode(loop, wire.Standalone).On(wire.Find, Fail(wire.NotWritablePrimary, 0))
	var asked []uint64
	n.AnswerFunc = func(_ sim.Time, r *wire.Request) (Answer, bool) {
		asked = append(asked, r.ID)
		if r.Op == 7 {
			return CloseConn(), true
		}
		return Answer{}, false
	}
	c := NewClient(loop, n)
	c.Send(0, wire.Connect, nil)                                       // #1: left to Default
	c.Send(ms(1), wire.Find, nil)                                      // #2: left to the script
	c.Send(ms(2), wire.Find, func(r *wire.Request) { r.Op = 7 })       // #3: closed by AnswerFunc
	c.Send(ms(3), wire.Find, nil)                                      // #4: closed connection
	c.Send(ms(4), wire.Disconnect, func(r *wire.Request) { r.Op = 7 }) // #5: on a closed connection
	loop.Run()
	want := []string{"OK", "NotWritablePrimary", "network error", "network error"}
	if len(c.Replies) != len(want) {
		t.Fatalf("replies:\n%s", c.Transcript())
	}
	for i, w := range want {
		if got := describe(c.Replies[i].Reply); got != w {
			t.Errorf("reply %d: %s, want %s", i+1, got, w)
		}
	}
	if len(asked) != 3 || asked[0] != 1 || asked[1] != 2 || asked[2] != 3 {
		t.Errorf("AnswerFunc asked about requests %v, want [1 2 3]", asked)
	}
}
