package client

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/overloadsim/overloadsim/client/retry"
	"github.com/overloadsim/overloadsim/client/selection"
	"github.com/overloadsim/overloadsim/ratelimiter"
	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
)

// Node is what a client is told about one server: its address, the handler that receives its
// messages, and the network link between this client and it.
type Node struct {
	Address string
	Handler sim.Handler
	Link    *wire.Link
}

// Client is one MongoClient: a pool and a monitor per server, a view of the topology, server
// selection, a retry policy (with its token bucket when it has one) and command monitoring.
type Client struct {
	loop   *sim.Loop
	opts   *Options // shared by the clients of a group that have the same options
	kind   selection.TopologyKind
	policy retry.Policy
	gate   retry.Gate // the policy's client-side limiter or throttle, nil without one
	// withdraw is the gate when its delays are reservations, returned when an operation ends
	// while one of its attempts is held back.
	withdraw retry.Withdrawer
	ender    retry.Ender // the policy's count of operations in progress, nil without one
	// recheck says the gate's delays are waits re-checked (retry.Notifier): the operations
	// held back wait in admitWaiters, in the order their current waits began, for wakeAdmit.
	recheck      bool
	admitWaiters opList
	// hedgeMax is the copies per operation of a hedging policy (0: it retries instead), sent
	// hedgeDelay apart.
	hedgeMax   int
	hedgeDelay time.Duration
	bucket     *ratelimiter.RetryTokenBucket // the policy's retry token bucket, nil without one
	rng        *rand.Rand                    // jitter and server selection
	jitter     retry.Jitter                  // the backoff jitter source: rng, or a pinned value in tests
	name       string

	servers []*serverView

	selWaiters opList   // operations waiting for a suitable server
	recs       *records // where finished ops and attempts wait for reuse: the group's, once in one
	// stats are the client's own counters, which Snapshot reads: a record of its own, kept
	// when it joins a group only if the group keeps them (Workload.ClientStats); otherwise its
	// group's sink, counted into and never read, so that 100 000 clients do not carry 100 000
	// records nobody reads.
	stats *Stats
	// total is the running total the client also counts every event into: its group's
	// (Group.DriverStats), so that reading a group's counters costs the same for 10 clients as
	// for 100 000; before the client joins a group, a total of its own that nobody reads.
	total      *Stats
	group      *Group // the group the client belongs to (total is its), nil before it joins one
	attemptObs AttemptObserver
	tracer     Tracer // nil: no tracing (see trace.go)
}

// AttemptObserver is told when each attempt ends (a reply, or the operation's deadline while it
// was on the wire): per-attempt latency, from sending to the end.
type AttemptObserver interface {
	AttemptDone(now sim.Time, c *Client, sent sim.Time, ok bool)
}

// SetAttemptObserver makes o hear of every attempt the client ends from now on (nil: none).
func (c *Client) SetAttemptObserver(o AttemptObserver) { c.attemptObs = o }

// serverView is the client's view of one server.
type serverView struct {
	c        *Client
	node     Node
	role     wire.Role // Unknown until a monitor check succeeds
	rtt      selection.RTT
	inFlight int // operationCount
	pool     *pool
	mon      *monitor
	breaker  *breaker // a Couchbase endpoint's circuit breaker; nil when disabled
}

// New returns a client of the servers in nodes, forming a topology of the given kind. Its random
// stream is (seed, name); name is a stable path such as "client/app/17".
func New(loop *sim.Loop, opts Options, kind selection.TopologyKind, nodes []Node, seed uint64, name string) (*Client, error) {
	if err := validateClient(opts, kind, nodes); err != nil {
		return nil, fmt.Errorf("client %s: %w", name, err)
	}
	policy, _ := retry.New(opts.RetryPolicy, opts.retryOptions(kind)) // validated above
	return newClient(loop, &opts, kind, policy, nodes, seed, name, new(Stats), new(Stats), new(records)), nil
}

// validateClient reports every problem of a client with opts of the servers nodes in a topology
// of kind.
func validateClient(opts Options, kind selection.TopologyKind, nodes []Node) error {
	return errors.Join(validateNodes(kind, nodes), opts.Validate(kind))
}

// validateNodes reports what is wrong with the servers nodes of a client in a topology of kind:
// none, or more than one in a single topology.
func validateNodes(kind selection.TopologyKind, nodes []Node) error {
	switch {
	case len(nodes) == 0:
		return errors.New("nodes: empty: a client needs at least one server")
	case kind == selection.Single && len(nodes) > 1:
		return fmt.Errorf("nodes: %d servers: a single topology has exactly one", len(nodes))
	}
	return nil
}

// newClient makes a client whose options (validated, and not to be changed) are *opts and whose
// retry policy is policy, counting into stats and total and reusing records from recs, and
// starts its monitors.
func newClient(loop *sim.Loop, opts *Options, kind selection.TopologyKind, policy retry.Policy, nodes []Node, seed uint64, name string, stats, total *Stats, recs *records) *Client {
	c := &Client{
		loop: loop, opts: opts, kind: kind, policy: policy, name: name,
		rng: loop.NewStream(seed, name), stats: stats, total: total, recs: recs,
	}
	c.jitter = c.rng
	c.setPolicy(policy)
	c.servers = make([]*serverView, 0, len(nodes))
	for _, n := range nodes {
		sv := &serverView{c: c, node: n}
		if opts.CircuitBreaker.Enabled {
			sv.breaker = newBreaker(opts.CircuitBreaker, loop.Now())
		}
		sv.pool = newPool(sv)
		sv.mon = newMonitor(sv)
		c.servers = append(c.servers, sv)
	}
	for _, sv := range c.servers {
		sv.mon.start(loop.Now())
	}
	return c
}

// setPolicy makes p the client's retry policy, with the hooks it implements.
func (c *Client) setPolicy(p retry.Policy) {
	c.policy = p
	c.bucket = retry.TokenBucket(p)
	c.gate, _ = p.(retry.Gate)
	c.withdraw, _ = p.(retry.Withdrawer)
	c.ender, _ = p.(retry.Ender)
	c.recheck = false
	if n, ok := p.(retry.Notifier); ok {
		c.recheck = n.Notify(c.wakeAdmit)
	}
	c.hedgeDelay, c.hedgeMax = 0, 0
	if h, ok := p.(retry.Hedger); ok {
		if d, n, ok := h.Hedging(); ok {
			c.hedgeDelay, c.hedgeMax = d, n
		}
	}
}

// Name returns the client's name.
func (c *Client) Name() string { return c.name }

// Group returns the group the client belongs to, nil if none.
func (c *Client) Group() *Group { return c.group }

// Policy returns the client's retry policy.
func (c *Client) Policy() retry.Policy { return c.policy }

// Options returns the client's options.
func (c *Client) Options() Options { return *c.opts }

// Result is what an operation came to, handed to its Completion.
type Result struct {
	Kind     OpKind
	Issued   sim.Time
	Done     sim.Time
	OK       bool
	Class    ErrClass      // when !OK
	Err      retry.Failure // when !OK: the error the application receives
	Attempts int           // commands started (command monitoring) for this operation
	Retries  int           // retries the policy allowed
}

// Latency returns the operation's latency from issue to final result.
func (r *Result) Latency() time.Duration { return r.Done.Sub(r.Issued) }

// Completion receives finished operations. The Result is valid only during the call.
type Completion interface {
	OperationDone(now sim.Time, r *Result)
}

// ErrClass groups the errors an application sees.
type ErrClass uint8

// Error classes.
const (
	ErrNone            ErrClass = iota
	ErrOverload                 // SystemOverloadedError, or a Couchbase service's overload status
	ErrTimeout                  // the operation's deadline (timeoutMS or the application's) passed
	ErrNetwork                  // a network error without the overload label
	ErrServerSelection          // no suitable server within serverSelectionTimeoutMS
	ErrPoolCleared              // PoolClearedError
	ErrServer                   // any other server error
	numErrClasses
)

// NumErrClasses is the number of ErrClass values.
const NumErrClasses = int(numErrClasses)

var errClassNames = [...]string{"none", "overload", "timeout", "network", "serverSelection", "poolCleared", "server"}

// String returns the class's name.
func (e ErrClass) String() string {
	if int(e) < len(errClassNames) {
		return errClassNames[e]
	}
	return fmt.Sprintf("errclass(%d)", e)
}

// Spec describes one operation to execute.
type Spec struct {
	Kind OpKind
	// Timeout is the application's own deadline for this operation (it stops waiting; the
	// server may still be working). 0 = none. It does not turn on CSOT retry semantics.
	Timeout time.Duration
}

// Execute starts an operation now; done is told when it finishes.
func (c *Client) Execute(now sim.Time, s Spec, done Completion) {
	o := c.newOp()
	o.kind, o.done, o.issued = s.Kind, done, now
	o.deadline, o.giveUp = sim.Never, sim.Never
	if c.opts.Timeout > 0 {
		o.deadline = now.Add(c.opts.Timeout)
	}
	if t, ok := retry.RequestTimeout(c.policy, s.Kind.Class()); ok {
		o.deadline = now.Add(t) // a Couchbase SDK's per-request timeout (kvTimeout, …)
	}
	o.giveUp = o.deadline
	if s.Timeout > 0 {
		o.giveUp = min(o.giveUp, now.Add(s.Timeout))
	}
	if o.giveUp != sim.Never {
		o.deadlineTimer = c.loop.At(o.giveUp, o, evDeadline, nil)
	}
	c.policy.Begin(&o.st, s.Kind.Class(), now, o.deadline)
	c.stats.OpsIssued++
	c.total.OpsIssued++
	c.stats.IssuedByKind[s.Kind]++
	c.total.IssuedByKind[s.Kind]++
	o.id = c.stats.OpsIssued
	if c.tracer != nil {
		c.tracer.OpIssued(now, o.traceOp())
	}
	if c.hedgeMax > 0 {
		o.startHedging(now)
		return
	}
	o.nextAttempt(now)
}

// pick runs server selection for o over the current topology view.
func (c *Client) pick(o *op) *serverView {
	if sv := o.pinned; sv != nil {
		// A cursor lives on one server: a getMore retry goes back to it, or waits for it to be
		// known again, never to another server, which would not know the cursor.
		if sv.role == wire.Unknown {
			return nil
		}
		return sv
	}
	r := c.recs
	buf := r.servers[:0]
	for _, sv := range c.servers {
		s := selection.Server{Address: sv.node.Address, Role: sv.role, InFlight: sv.inFlight}
		if rtt, ok := sv.rtt.Value(); ok {
			s.RTT = rtt
		}
		buf = append(buf, s)
	}
	r.servers = buf
	i := r.sel.Select(c.kind, buf, c.opts.ReadPreference, o.kind.IsWrite(), o.deprio, c.opts.LocalThreshold, c.rng)
	if i < 0 {
		return nil
	}
	return c.servers[i]
}

// topologyChanged retries selection for the operations waiting for a server.
func (c *Client) topologyChanged(now sim.Time) {
	for o := c.selWaiters.head(); o != nil; {
		next := c.selWaiters.next(o)
		if sv := c.pick(o); sv != nil {
			c.selWaiters.remove(o)
			c.loop.Cancel(o.timer)
			o.timer = sim.Timer{}
			o.useServer(now, sv)
		}
		o = next
	}
}

// requestChecks asks every monitor for an early check (selection found no suitable server).
func (c *Client) requestChecks(now sim.Time) {
	for _, sv := range c.servers {
		sv.mon.requestCheck(now)
	}
}

// markUnknown applies SDAM error handling: the server becomes Unknown (RTT cleared), its monitor
// checks early, and for network errors and shutdown codes its pool is cleared.
func (sv *serverView) markUnknown(now sim.Time, clearPool bool) {
	sv.role = wire.Unknown
	sv.rtt.Reset()
	if clearPool {
		sv.pool.clear(now)
	}
	sv.mon.requestCheck(now)
}

// handleError is SDAM's error handling for an application operation's failure on sv
// (server-discovery-and-monitoring, "Error handling"): an error carrying SystemOverloadedError
// never marks the server Unknown nor clears its pool; a network error marks it Unknown and clears
// the pool; "not writable primary" and "node is recovering" codes mark it Unknown, and the
// shutdown codes also clear the pool (4.2+ servers).
func (sv *serverView) handleError(now sim.Time, f retry.Failure) {
	if f.Labels.Has(wire.SystemOverloadedError) || f.PoolCleared {
		return
	}
	if f.Network {
		sv.markUnknown(now, true)
		return
	}
	switch f.Code {
	case wire.InterruptedAtShutdown, wire.ShutdownInProgress:
		sv.markUnknown(now, true)
	case wire.NotWritablePrimary, wire.NotPrimaryNoSecondaryOk, wire.NotPrimaryOrSecondary,
		wire.InterruptedDueToReplStateChange, wire.PrimarySteppedDown:
		sv.markUnknown(now, false)
	}
}

// records are the op, attempt and request records that finished and wait for reuse, and the
// scratch space of server selection. The clients of a group share one set, so the records a run
// holds follow the group's peak concurrency, not the sum of every client's.
type records struct {
	ops  []*op
	atts []*attempt
	// reqs are requests for monitor checks and connection establishment. A connection needs
	// its Connect request only for a round trip; a monitor needs one per check.
	reqs []*wire.Request
	// servers and sel are server selection's working space; selection runs within one event
	// and never re-enters, so one copy serves every client of the group.
	servers []selection.Server
	sel     selection.Selector
	// beats and monTimeouts are the monitors' lines of regular checks and of check timeouts:
	// every monitor of the group sets its next check heartbeatFrequencyMS after its last and
	// its timeout connectTimeoutMS after its check, so each kind comes due in the order set
	// and one loop event serves a whole fleet's (sim.DelayLine).
	beats, monTimeouts *sim.DelayLine
}

// line returns the line in *slot for events of kind due after d, made on first use; nil when
// *slot exists with another delay (a client whose options differ from its group's), or when d
// is not positive: those events go on the loop one by one.
func (r *records) line(loop *sim.Loop, slot **sim.DelayLine, d time.Duration, kind int) *sim.DelayLine {
	switch {
	case d <= 0:
		return nil
	case *slot == nil:
		*slot = sim.NewDelayLine(loop, d, kind)
	case (*slot).Delay() != d:
		return nil
	}
	return *slot
}

// newRequest returns a zeroed request record.
func (c *Client) newRequest() *wire.Request {
	r := c.recs
	if n := len(r.reqs); n > 0 {
		q := r.reqs[n-1]
		r.reqs = r.reqs[:n-1]
		return q
	}
	return new(wire.Request)
}

// freeRequest keeps q for reuse. Only a request the node has answered may be freed: until its
// reply event, the node owns it (package wire).
func (c *Client) freeRequest(q *wire.Request) {
	*q = wire.Request{}
	c.recs.reqs = append(c.recs.reqs, q)
}

func (c *Client) newOp() *op {
	r := c.recs
	if n := len(r.ops); n > 0 {
		o := r.ops[n-1]
		r.ops = r.ops[:n-1]
		o.c = c
		return o
	}
	return &op{c: c, deprio: make([]string, 0, 8)}
}

func (c *Client) freeOp(o *op) {
	*o = op{deprio: o.deprio[:0]}
	c.recs.ops = append(c.recs.ops, o)
}

func (c *Client) newAttempt() *attempt {
	r := c.recs
	if n := len(r.atts); n > 0 {
		a := r.atts[n-1]
		r.atts = r.atts[:n-1]
		a.c = c
		return a
	}
	return &attempt{c: c}
}

func (c *Client) freeAttempt(a *attempt) {
	*a = attempt{}
	c.recs.atts = append(c.recs.atts, a)
}
