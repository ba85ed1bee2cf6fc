package client

import (
	"github.com/overloadsim/overloadsim/client/retry"
	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
)

// Event kinds handled by a pconn.
const (
	evConnReply = iota + 1
	evConnTimeout
)

// pool is a server's connection pool (CMAP): at most MaxPoolSize connections, at most
// MaxConnecting being established at once, a FIFO wait queue, and a generation that a clear
// advances so that connections of the old generation are closed when they come back.
type pool struct {
	sv         *serverView
	idle       []*pconn // available connections, most recently used last
	total      int      // established and being established
	connecting int
	waiters    opList
	generation uint64
	paused     bool // cleared, until the monitor finds the server again
}

// pconn is one pooled connection.
type pconn struct {
	p *pool
	// conn is the connection as the node knows it. It is a record of its own so that a request
	// the node still holds after the client closed the connection (a timeout) keeps only it
	// alive, not the whole pconn.
	conn *wire.Conn
	// req is the Connect request while the connection is being established, then nil (the
	// record goes back to the group's pool), and the Disconnect request once it closes.
	req   *wire.Request
	gen   uint64
	owner *op // the checkout waiting for this connection while it is being established
	timer sim.Timer
	// abandoned: establishment timed out while the server still held req. The record is
	// never reused; a late reply only tidies up.
	abandoned bool
}

func newPool(sv *serverView) *pool {
	p := &pool{sv: sv}
	return p
}

// checkout gives o a connection: an idle one, a new one (o waits for its establishment), or a
// place in the wait queue. A paused pool fails the checkout with PoolClearedError.
func (p *pool) checkout(now sim.Time, o *op) {
	c := p.sv.c
	if p.paused {
		o.checkoutFailed(now, retry.Failure{PoolCleared: true})
		return
	}
	if n := len(p.idle); n > 0 {
		pc := p.idle[n-1]
		p.idle = p.idle[:n-1]
		o.gotConn(now, pc)
		return
	}
	if p.total < c.opts.MaxPoolSize && p.connecting < c.opts.MaxConnecting {
		p.open(now, o)
		return
	}
	p.waiters.push(o)
	if c.opts.WaitQueueTimeout > 0 {
		o.timer = c.loop.At(now.Add(c.opts.WaitQueueTimeout), o, evCheckoutTimeout, nil)
	}
}

// open starts establishing a connection for owner: TCP, TLS, hello and auth, through the
// server's connection limiter.
func (p *pool) open(now sim.Time, owner *op) {
	c := p.sv.c
	pc := &pconn{p: p, gen: p.generation, owner: owner}
	owner.conn = pc
	pc.conn = &wire.Conn{AppName: c.opts.AppName, Authenticated: true, Link: p.sv.node.Link}
	pc.req = c.newRequest()
	*pc.req = wire.Request{
		Cmd: wire.Connect, Conn: pc.conn, ConnectTimeout: c.opts.ConnectTimeout,
		GiveUpAt: now.Add(c.opts.ConnectTimeout), ReplyTo: pc, ReplyKind: evConnReply, SentAt: now,
	}
	p.total++
	p.connecting++
	c.stats.ConnectionsOpened++
	c.total.ConnectionsOpened++
	c.loop.At(now.Add(pc.conn.Link.Delay()), p.sv.node.Handler, wire.EvRequest, pc.req)
	pc.timer = c.loop.After(c.opts.ConnectTimeout, pc, evConnTimeout, nil)
}

// HandleEvent implements sim.Handler for connection establishment.
func (pc *pconn) HandleEvent(now sim.Time, kind int, _ any) {
	p := pc.p
	c := p.sv.c
	if pc.abandoned {
		if kind == evConnReply && pc.req.Reply.OK() { // established after we gave up: close it
			pc.disconnect(now)
		}
		return
	}
	p.connecting--
	owner := pc.owner
	pc.owner = nil
	if owner != nil {
		owner.conn = nil
	}
	switch {
	case kind == evConnTimeout:
		// The server may still hold the request: never reuse this record.
		pc.abandoned = true
		p.total--
		c.stats.ConnectionEstablishFailed++
		c.total.ConnectionEstablishFailed++
		if owner != nil {
			owner.checkoutFailed(now, establishmentFailure)
		}
	case !pc.req.Reply.OK():
		f := establishmentFailure
		if !pc.req.Reply.NetErr {
			f.HandshakeCode = pc.req.Reply.Code // what a driver shows inside its wrapped error
		}
		c.loop.Cancel(pc.timer)
		c.freeRequest(pc.req)
		pc.req = nil
		p.total--
		c.stats.ConnectionEstablishFailed++
		c.total.ConnectionEstablishFailed++
		if owner != nil {
			owner.checkoutFailed(now, f)
		}
	case pc.gen != p.generation || p.paused: // the pool was cleared meanwhile
		c.loop.Cancel(pc.timer)
		p.total--
		pc.disconnect(now)
		if owner != nil {
			owner.checkoutFailed(now, retry.Failure{PoolCleared: true})
		}
	default:
		c.loop.Cancel(pc.timer)
		c.freeRequest(pc.req)
		pc.req = nil
		c.stats.ConnectionsCreated++
		c.total.ConnectionsCreated++
		if owner != nil {
			owner.gotConn(now, pc)
		} else {
			p.release(now, pc)
		}
	}
	p.pump(now)
}

// establishmentFailure is what a checkout sees when establishing its connection fails or times
// out: CMAP (backpressure) labels network errors and timeouts during TCP, TLS and hello with
// SystemOverloadedError and RetryableError, so SDAM neither marks the server Unknown nor clears
// the pool, and the operation goes through the overload retry loop.
var establishmentFailure = retry.Failure{Network: true, Handshake: true, Labels: wire.SystemOverloadedError | wire.RetryableError}

// checkin returns a connection after an attempt.
func (p *pool) checkin(now sim.Time, pc *pconn) {
	if pc.gen != p.generation {
		p.discard(now, pc)
		return
	}
	p.release(now, pc)
}

// release makes pc available: to the first waiter, or idle.
func (p *pool) release(now sim.Time, pc *pconn) {
	if o := p.waiters.pop(); o != nil {
		p.sv.c.loop.Cancel(o.timer)
		o.timer = sim.Timer{}
		o.gotConn(now, pc)
		return
	}
	p.idle = append(p.idle, pc)
}

// discard closes a connection (broken, stale, or timed out under CSOT) and lets a waiter open a
// new one in its place.
func (p *pool) discard(now sim.Time, pc *pconn) {
	p.total--
	p.sv.c.stats.ConnectionsClosed++
	p.sv.c.total.ConnectionsClosed++
	pc.disconnect(now)
	p.pump(now)
}

// disconnect tells the server the client closed the connection (unless the server closed it).
// The record is not reused afterwards: the Disconnect request travels on the loop.
func (pc *pconn) disconnect(now sim.Time) {
	if pc.conn.Closed {
		return
	}
	c := pc.p.sv.c
	if pc.req == nil {
		pc.req = c.newRequest()
	}
	*pc.req = wire.Request{Cmd: wire.Disconnect, Conn: pc.conn, SentAt: now}
	c.loop.At(now.Add(pc.conn.Link.Delay()), pc.p.sv.node.Handler, wire.EvRequest, pc.req)
}

// pump opens connections for waiters while the limits allow.
func (p *pool) pump(now sim.Time) {
	c := p.sv.c
	for !p.paused && !p.waiters.empty() && p.total < c.opts.MaxPoolSize && p.connecting < c.opts.MaxConnecting {
		o := p.waiters.pop()
		c.loop.Cancel(o.timer)
		o.timer = sim.Timer{}
		p.open(now, o)
	}
}

// clear empties the pool after an error that means the server's connections are gone (CMAP
// "clear"): the generation advances, idle connections close, waiters fail with
// PoolClearedError, and the pool stays paused until the monitor finds the server again.
func (p *pool) clear(now sim.Time) {
	c := p.sv.c
	p.generation++
	if !p.paused {
		c.stats.PoolClears++
		c.total.PoolClears++
	}
	p.paused = true
	for _, pc := range p.idle {
		p.total--
		c.stats.ConnectionsClosed++
		c.total.ConnectionsClosed++
		pc.disconnect(now)
	}
	clear(p.idle)
	p.idle = p.idle[:0]
	for o := p.waiters.pop(); o != nil; o = p.waiters.pop() {
		c.loop.Cancel(o.timer)
		o.timer = sim.Timer{}
		o.checkoutFailed(now, retry.Failure{PoolCleared: true})
	}
}

// ready resumes a paused pool (the monitor's check succeeded).
func (p *pool) ready() { p.paused = false }
