package mongos

import (
	"time"

	"github.com/overloadsim/overloadsim/internal/rtt"
	"github.com/overloadsim/overloadsim/server"
	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
)

// Event kinds of a member (its monitor) and of a pooled connection.
const (
	evPing = iota + 1
	evPingReply
	evConnReply
)

// member is the router's view of one shard member: its monitor's RTT average and its pool of
// idle connections.
type member struct {
	r    *Router
	addr string
	node *server.Server
	link *wire.Link

	// replica set monitor (RTT pinger)
	rtt      rtt.Average // of ping round trips
	pingConn wire.Conn
	ping     wire.Request
	pinging  bool

	idle []*pconn // established connections not in use, most recently used last
}

func newMember(r *Router, m Member) *member {
	mb := &member{r: r, addr: m.Address, node: m.Node, link: m.Link}
	// The pinger's connection never authenticates, so its hellos are answered at once and are
	// exempt from the member's limiters, like a driver's monitoring connection.
	mb.pingConn = wire.Conn{Internal: true, AppName: "mongos", Link: m.Link}
	return mb
}

func (m *member) startMonitor(now sim.Time) {
	m.r.loop.At(now, m, evPing, nil)
}

// HandleEvent implements sim.Handler for the member's monitor.
func (m *member) HandleEvent(now sim.Time, kind int, _ any) {
	switch kind {
	case evPing:
		if !m.pinging { // a ping still out (a very slow link) is not doubled
			m.pinging = true
			m.r.nextID++
			m.ping = wire.Request{
				ID: m.r.nextID, Cmd: wire.Hello, Conn: &m.pingConn, GiveUpAt: sim.Never,
				ReplyTo: m, ReplyKind: evPingReply, SentAt: now,
			}
			m.r.loop.At(now.Add(m.link.Delay()), m.node, wire.EvRequest, &m.ping)
		}
		m.r.loop.At(now.Add(m.r.cfg.HeartbeatFrequency), m, evPing, nil)
	case evPingReply:
		m.pinging = false
		if m.ping.Reply.NetErr {
			// The member is unreachable: its average is cleared, as SDAM clears a server's
			// RTT when it becomes unavailable, and the next sample starts afresh.
			m.rtt.Reset()
			return
		}
		m.rtt.Add(now.Sub(m.ping.SentAt))
	}
}

// rttValue is the member's average RTT for the latency window; 0 before the first sample.
func (m *member) rttValue() time.Duration {
	v, _ := m.rtt.Value()
	return v
}

// role is the member's role as targeting sees it: Unknown when it is down. A standalone member
// counts as a primary.
func (m *member) role() wire.Role {
	if m.node.IsDown() {
		return wire.Unknown
	}
	switch r := m.node.Role(); r {
	case wire.Primary, wire.Standalone:
		return wire.Primary
	case wire.Secondary:
		return wire.Secondary
	}
	return wire.Unknown
}

// pick chooses the member of s for an attempt, or nil if none is eligible: the read preference
// (primary for writes), then, with overload-aware selection, without the deprioritised members
// unless that leaves none; then the latency window; then one at random.
func (r *Router) pick(s *shard, write bool, mode wire.ReadMode, deprio []*member) *member {
	var cands []*member
	if r.cfg.OverloadAwareServerSelection && len(deprio) > 0 {
		cands = r.eligible(s, write, mode, deprio)
	}
	if len(cands) == 0 {
		cands = r.eligible(s, write, mode, nil)
	}
	switch len(cands) {
	case 0:
		return nil
	case 1:
		return cands[0]
	}
	// Latency window: within LocalThreshold of the fastest candidate.
	lo := cands[0].rttValue()
	for _, m := range cands[1:] {
		lo = min(lo, m.rttValue())
	}
	limit := lo + r.cfg.LocalThreshold
	w := cands[:0]
	for _, m := range cands {
		if m.rttValue() <= limit {
			w = append(w, m)
		}
	}
	r.cands = w
	if len(w) == 1 {
		return w[0]
	}
	return w[r.targetRNG.IntN(len(w))]
}

// eligible fills r.cands with the members of s that the read preference allows, leaving out
// those in exclude, and returns it. Down members and members of unknown role are never
// eligible.
func (r *Router) eligible(s *shard, write bool, mode wire.ReadMode, exclude []*member) []*member {
	if write {
		mode = wire.ReadPrimary
	}
	var primary *member
	secs := r.cands[:0]
	for _, m := range s.members {
		if contains(exclude, m) {
			continue
		}
		switch m.role() {
		case wire.Primary:
			if primary == nil {
				primary = m
			}
		case wire.Secondary:
			secs = append(secs, m)
		}
	}
	out := secs
	switch mode {
	case wire.ReadPrimary:
		out = out[:0]
		if primary != nil {
			out = append(out, primary)
		}
	case wire.ReadPrimaryPreferred:
		if primary != nil {
			out = append(out[:0], primary)
		}
	case wire.ReadSecondary:
		// secondaries only
	case wire.ReadSecondaryPreferred:
		if len(out) == 0 && primary != nil {
			out = append(out, primary)
		}
	case wire.ReadNearest:
		if primary != nil {
			out = append(out, primary)
		}
	default:
		out = out[:0]
	}
	r.cands = out
	return out
}

func contains(ms []*member, m *member) bool {
	for _, x := range ms {
		if x == m {
			return true
		}
	}
	return false
}

// pconn is one pooled, authenticated internal connection from the mongos to a member.
type pconn struct {
	m     *member
	conn  wire.Conn
	req   wire.Request // the Connect request
	owner *command     // the command waiting for this connection, if still waiting
}

// open starts establishing a new connection for c: a Connect through the member's connection
// limiter and handshake. The pool is unbounded (ShardingTaskExecutorPoolMaxSize's default).
func (m *member) open(now sim.Time, c *command) *pconn {
	pc := &pconn{m: m, owner: c}
	pc.conn = wire.Conn{Authenticated: true, Internal: true, AppName: "mongos", Link: m.link}
	m.r.nextID++
	pc.req = wire.Request{
		ID: m.r.nextID, Cmd: wire.Connect, Conn: &pc.conn, GiveUpAt: sim.Never,
		ReplyTo: pc, ReplyKind: evConnReply, SentAt: now,
	}
	m.r.loop.At(now.Add(m.link.Delay()), m.node, wire.EvRequest, &pc.req)
	return pc
}

// takeIdle returns an idle connection that the member has not closed, or nil.
func (m *member) takeIdle() *pconn {
	for n := len(m.idle); n > 0; n = len(m.idle) {
		pc := m.idle[n-1]
		m.idle[n-1] = nil
		m.idle = m.idle[:n-1]
		if !pc.conn.Closed {
			return pc
		}
	}
	return nil
}

// release returns a connection to the idle pool (dropping it if the member closed it).
func (m *member) release(pc *pconn) {
	if pc.conn.Closed {
		return
	}
	m.idle = append(m.idle, pc)
}

// HandleEvent implements sim.Handler for connection establishment.
func (pc *pconn) HandleEvent(now sim.Time, _ int, _ any) {
	c := pc.owner
	pc.owner = nil
	if !pc.req.Reply.OK() {
		// Refused or reset: the connection is gone.
		if c != nil {
			c.connectFailed(now)
		}
		return
	}
	if c == nil { // its command ended meanwhile: keep the connection for later commands
		pc.m.release(pc)
		return
	}
	c.connected(now, pc)
}
