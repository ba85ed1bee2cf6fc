package client

import (
	"time"

	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
)

// Event kinds handled by a monitor.
const (
	evCheck = iota + 1
	evMonReply
	evMonTimeout
)

// monitor is a server's SDAM monitor: a dedicated, unauthenticated connection (so its hellos are
// exempt from the ingress request limiter) on which it runs a hello every heartbeatFrequencyMS,
// learning the server's role and measuring RTT. The RTT pinger is folded into the same hellos.
type monitor struct {
	sv   *serverView
	conn *wire.Conn
	// req is the check on the wire, nil between checks: it comes from the group's pool and
	// goes back once answered, so that idle monitors hold no request. A check that timed out
	// leaves its request to the server.
	req       *wire.Request
	connected bool
	pending   bool // a check is on the wire
	lastCheck sim.Time
	// next and wait hold what the monitor waits for: the next check, or the timeout of the
	// check on the wire, never both (a check is sent only once its scheduled check fired or
	// was cancelled, and the next is scheduled only once it is answered or has timed out).
	// wait holds it when it is on one of the group's lines (a regular check, heartbeatFrequencyMS
	// after the last; a timeout, connectTimeoutMS after the check); next, when it is on the loop
	// (the first check, one asked for sooner by requestCheck, or any whose line has another
	// delay). Sharing the fields keeps a monitor in 64 bytes: a million clients have four each.
	next sim.Timer
	wait sim.LineTimer
}

func newMonitor(sv *serverView) *monitor { return &monitor{sv: sv} }

func (m *monitor) start(now sim.Time) {
	m.next = m.sv.c.loop.At(now, m, evCheck, nil)
}

// HandleEvent implements sim.Handler.
func (m *monitor) HandleEvent(now sim.Time, kind int, arg any) {
	switch kind {
	case evCheck:
		m.next, m.wait = sim.Timer{}, sim.LineTimer{}
		m.check(now)
	case evMonTimeout:
		m.next, m.wait = sim.Timer{}, sim.LineTimer{}
		// No answer within connectTimeoutMS: treat as a network error. The server may still
		// hold the request, so the next check uses a new one.
		m.req, m.conn = nil, nil
		m.pending, m.connected = false, false
		m.failed(now)
	case evMonReply:
		req := arg.(*wire.Request)
		if req != m.req { // the answer to a check we gave up on
			if req.Cmd == wire.Connect && req.Reply.OK() {
				m.disconnectStale(now, req)
			}
			return
		}
		c := m.sv.c
		c.loop.Cancel(m.next) // the check's timeout
		m.wait.Cancel()
		m.next, m.wait = sim.Timer{}, sim.LineTimer{}
		m.pending = false
		m.reply(now, req)
		if !m.pending { // not reused at once for the handshake's hello
			m.req = nil
			c.freeRequest(req)
		}
	}
}

// check connects if needed, then sends a hello.
func (m *monitor) check(now sim.Time) {
	c := m.sv.c
	if m.pending {
		return
	}
	m.lastCheck = now
	if m.req == nil {
		m.req = c.newRequest()
	}
	cmd := wire.Hello
	if !m.connected {
		cmd = wire.Connect
		m.conn = &wire.Conn{AppName: c.opts.AppName, Link: m.sv.node.Link}
	}
	*m.req = wire.Request{
		Cmd: cmd, Conn: m.conn, ConnectTimeout: c.opts.ConnectTimeout, GiveUpAt: now.Add(c.opts.ConnectTimeout),
		ReplyTo: m, ReplyKind: evMonReply, SentAt: now,
	}
	m.pending = true
	c.loop.At(now.Add(m.conn.Link.Delay()), m.sv.node.Handler, wire.EvRequest, m.req)
	if line := c.recs.line(c.loop, &c.recs.monTimeouts, c.opts.ConnectTimeout, evMonTimeout); line != nil {
		m.wait = line.Set(m)
	} else {
		m.next = c.loop.After(c.opts.ConnectTimeout, m, evMonTimeout, nil)
	}
}

func (m *monitor) reply(now sim.Time, req *wire.Request) {
	sv, c := m.sv, m.sv.c
	r := req.Reply
	switch {
	case req.Cmd == wire.Connect && r.OK():
		m.connected = true
		m.check(now) // the handshake's hello: check at once
		return
	case req.Cmd == wire.Connect:
		// Establishment failed. CMAP labels such errors as overload, and SDAM does not mark a
		// server Unknown for them; a server never reached stays Unknown anyway.
		m.schedule(now, c.opts.HeartbeatFrequency)
		return
	case !r.OK():
		m.connected = false
		m.failed(now)
		return
	}
	sv.rtt.Add(now.Sub(req.SentAt))
	if sv.role != r.Role {
		sv.role = r.Role
		sv.pool.ready()
		c.topologyChanged(now)
	} else if sv.pool.paused && sv.role != wire.Unknown {
		sv.pool.ready()
	}
	m.schedule(now, c.opts.HeartbeatFrequency)
}

// failed handles a failed check on an established monitoring connection: SDAM marks the server
// Unknown and clears its pool.
func (m *monitor) failed(now sim.Time) {
	sv := m.sv
	if sv.role != wire.Unknown {
		sv.role = wire.Unknown
		sv.rtt.Reset()
		sv.pool.clear(now)
	}
	m.schedule(now, sv.c.opts.HeartbeatFrequency)
}

func (m *monitor) schedule(now sim.Time, after time.Duration) {
	c := m.sv.c
	m.cancelCheck()
	if line := c.recs.line(c.loop, &c.recs.beats, after, evCheck); line != nil {
		m.wait = line.Set(m)
		return
	}
	m.next = c.loop.At(now.Add(after), m, evCheck, nil)
}

// cancelCheck cancels the scheduled check, on the loop or on the line. It is called only
// between checks, when next and wait hold no timeout.
func (m *monitor) cancelCheck() {
	m.sv.c.loop.Cancel(m.next)
	m.wait.Cancel()
	m.next, m.wait = sim.Timer{}, sim.LineTimer{}
}

// requestCheck asks for a check soon: at once, or minHeartbeatFrequencyMS after the last one.
func (m *monitor) requestCheck(now sim.Time) {
	if m.pending {
		return
	}
	c := m.sv.c
	at := max(now, m.lastCheck.Add(c.opts.MinHeartbeatFrequency))
	m.cancelCheck()
	m.next = c.loop.At(at, m, evCheck, nil)
}

// disconnectStale closes a monitoring connection the server established after we gave up on it.
func (m *monitor) disconnectStale(now sim.Time, req *wire.Request) {
	conn := req.Conn
	*req = wire.Request{Cmd: wire.Disconnect, Conn: conn, SentAt: now}
	m.sv.c.loop.At(now.Add(conn.Link.Delay()), m.sv.node.Handler, wire.EvRequest, req)
}
