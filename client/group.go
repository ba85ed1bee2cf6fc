package client

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"time"

	"github.com/overloadsim/overloadsim/client/retry"
	"github.com/overloadsim/overloadsim/client/selection"
	"github.com/overloadsim/overloadsim/client/workload"
	"github.com/overloadsim/overloadsim/dist"
	"github.com/overloadsim/overloadsim/field"
	"github.com/overloadsim/overloadsim/ratelimiter"
	"github.com/overloadsim/overloadsim/sim"
)

// BackoffKind is how an application backs off between its own retries.
type BackoffKind uint8

// Application backoff kinds.
const (
	BackoffNone        BackoffKind = iota // retry at once
	BackoffExponential                    // base·2^(k−1), capped
	BackoffFullJitter                     // U[0,1)·min(cap, base·2^(k−1)) (AWS "full jitter")
)

var backoffNames = [...]string{"none", "exponential", "fullJitter"}

// String returns the backoff kind's name.
func (b BackoffKind) String() string {
	if int(b) < len(backoffNames) {
		return backoffNames[b]
	}
	return fmt.Sprintf("backoff(%d)", b)
}

// ParseBackoffKind returns the backoff kind with the given name.
func ParseBackoffKind(s string) (BackoffKind, bool) {
	for i, n := range backoffNames {
		if n == s {
			return BackoffKind(i), true
		}
	}
	return 0, false
}

// Assign is how an open-loop group hands its arrivals to its clients (Workload.Assign).
type Assign uint8

// Assignments.
const (
	AssignRoundRobin Assign = iota // in turn: equal shares
	AssignRandom                   // uniformly at random, from the group's own stream
)

var assignNames = [...]string{"roundRobin", "random"}

// String returns the assignment's name as scenarios spell it.
func (a Assign) String() string {
	if int(a) < len(assignNames) {
		return assignNames[a]
	}
	return fmt.Sprintf("assign(%d)", a)
}

// ParseAssign returns the assignment called name.
func ParseAssign(name string) (Assign, bool) {
	for i, n := range assignNames {
		if n == name {
			return Assign(i), true
		}
	}
	return 0, false
}

// AppRetry is an application's own retry wrapper around the driver: real applications stack
// retries on the driver's, which is how layered amplification and the classic timeout-and-retry
// collapse happen.
type AppRetry struct {
	Attempts          int           // driver operations per application operation; 0 or 1 = no retries
	PerAttemptTimeout time.Duration // the application's deadline for each driver operation; 0 = none
	Backoff           BackoffKind
	Base, Cap         time.Duration // backoff before the k-th retry: base·2^(k−1), at most Cap (0 = no cap)
}

// Workload drives a group's clients: open loop (arrivals that never wait for replies) or closed
// loop (threads that issue the next operation a think time after the last one finished).
type Workload struct {
	// Arrivals, for an open loop: one process for the whole group, each arrival handed to one of
	// the group's clients as Assign says.
	Arrivals workload.Arrivals
	// Assign is how an open loop hands its arrivals to the clients: AssignRoundRobin (the
	// default: in turn, so each client gets an equal share) or AssignRandom (each arrival to a
	// client drawn uniformly from its own stream, so clients' loads vary as a load balancer's
	// random choice makes them).
	Assign Assign
	// Threads and Think, for a closed loop: Threads per client.
	Threads int
	Think   dist.Duration
	// Pace, for a closed loop, paces each thread as load generators and Brooker's serial
	// clients do: a thread starts its next operation at max(previous start + Pace, previous
	// end + think), so it issues one operation per Pace while replies come back within it and
	// falls back to a plain closed loop when they do not. 0 = no pacing.
	Pace time.Duration
	// Mix picks each operation's kind; Kinds maps its indices to operations.
	Mix   *workload.Mix
	Kinds []OpKind
	// Timeout is the application's deadline for a whole operation (its retries included);
	// 0 = none.
	Timeout time.Duration
	Retry   AppRetry
	// Stop ends the arrivals (open loop) or the threads' next operations (closed loop).
	Stop sim.Time
	// ClientStats keeps each client's own counters, for Client.Snapshot; off, the clients count
	// only into the group's totals (DriverStats), which is all a run reads.
	ClientStats bool
}

// Validate reports every problem at once, each as a *field.Error (fields threads, mix, timeout,
// appRetry.attempts, appRetry.perAttemptTimeout, appRetry.base, appRetry.cap, appRetry.backoff,
// and workload for the loop as a whole), joined with errors.Join.
func (w *Workload) Validate() error {
	var errs []error
	bad := func(name string, v any, rule string) { errs = append(errs, field.New(name, v, rule)) }
	open, closed := w.Arrivals != nil, w.Threads > 0
	switch {
	case open && closed:
		bad("workload", "arrivals and threads", "choose an open loop (arrivals) or a closed loop (threads), not both")
	case !open && !closed:
		bad("workload", "none", "needs arrivals (open loop) or threads ≥ 1 (closed loop)")
	}
	if w.Threads < 0 {
		bad("threads", w.Threads, "must be ≥ 0")
	}
	if w.Assign > AssignRandom {
		bad("assign", w.Assign, "must be roundRobin or random")
	} else if w.Assign == AssignRandom && !open {
		bad("assign", w.Assign, "applies to an open loop (arrivals) only")
	}
	switch {
	case w.Pace < 0:
		bad("pace", w.Pace, "must be ≥ 0 (0 = no pacing)")
	case w.Pace > 0 && !closed:
		bad("pace", w.Pace, "applies to a closed loop (threads) only")
	}
	if w.Mix == nil || len(w.Kinds) == 0 {
		bad("mix", "empty", "needs at least one operation kind")
	}
	if w.Timeout < 0 {
		bad("timeout", w.Timeout, "must be ≥ 0 (0 = none)")
	}
	r := w.Retry
	if r.Attempts < 0 {
		bad("appRetry.attempts", r.Attempts, "must be ≥ 0")
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"appRetry.perAttemptTimeout", r.PerAttemptTimeout}, {"appRetry.base", r.Base}, {"appRetry.cap", r.Cap}} {
		if d.v < 0 {
			bad(d.name, d.v, "must be ≥ 0")
		}
	}
	if r.Backoff > BackoffFullJitter {
		bad("appRetry.backoff", r.Backoff, "must be none, exponential or fullJitter")
	}
	return errors.Join(errs...)
}

//go:generate go run github.com/overloadsim/overloadsim/internal/countergen -type=GroupStats

// GroupStats are an application group's counters: what the application saw.
type GroupStats struct {
	Issued, Succeeded, Failed uint64 // application operations
	FailedByClass             [NumErrClasses]uint64
	AppRetries                uint64 // driver operations the application re-issued
}

// Observer is told of every finished application operation (for latency histograms).
type Observer interface {
	AppOperationDone(now sim.Time, g *Group, r *AppResult)
}

// AppResult is one application operation's outcome. Valid only during the Observer call.
type AppResult struct {
	Kind         OpKind
	Issued, Done sim.Time
	OK           bool
	Class        ErrClass
	Attempts     int // driver operations (1 + application retries)
}

// Group is a number of MongoClients run by one application tier with one workload.
type Group struct {
	loop    *sim.Loop
	name    string
	clients []*Client
	w       Workload
	rng     *rand.Rand // arrivals, mix, think times, application jitter
	obs     Observer
	next    int        // round-robin over clients for open-loop arrivals
	pick    *rand.Rand // AssignRandom: the clients' draws, (seed, "group/<name>/assign")
	free    []*appOp
	stats   GroupStats
	driver  Stats // every client's driver counters, added as they count (Client.total)
	// sink is what clients count into as their own counters when the group does not keep them
	// (Workload.ClientStats): written, never read.
	sink Stats
	recs records // the op and attempt records its clients reuse
	// buckets are the clients' retry token buckets, in client order, those without one left
	// out: a dense list, so that reading every level at an interval's end chases one pointer
	// per client rather than two.
	buckets []*ratelimiter.RetryTokenBucket
}

// Group event kinds.
const (
	evArrival = iota + 1
	evThink
	evAppBackoff
	evAppDeadline
)

// NewGroup starts w on clients. Its stream is (seed, "group/<name>"). An observer, if any, is
// attached with SetObserver before the loop runs.
func NewGroup(loop *sim.Loop, name string, clients []*Client, w Workload, seed uint64) (*Group, error) {
	if err := checkGroup(name, clients, w); err != nil {
		return nil, err
	}
	g := &Group{loop: loop, name: name, clients: clients, w: w}
	for _, c := range clients {
		g.driver.Add(c.stats) // anything counted before it joined
		if !w.ClientStats {
			c.stats = &g.sink
		}
		c.total, c.group, c.recs = &g.driver, g, &g.recs
		if reflect.DeepEqual(c.opts, clients[0].opts) { // one copy for the group, not one each
			c.opts = clients[0].opts
		}
	}
	g.start(seed)
	return g, nil
}

// Fleet is the clients a group is made with by NewFleetGroup: Count clients with the same
// options in a topology of one kind, client i named Name(i) and reaching the servers Nodes(i).
type Fleet struct {
	Count   int
	Options Options
	Kind    selection.TopologyKind
	Name    func(i int) string
	Nodes   func(i int) []Node
}

// NewFleetGroup makes f's clients and starts w on them as their group: the clients and the group
// New and NewGroup would make, streams drawn in the same order (client i's after Nodes(i) is
// called, the group's after every client's), but made for a fleet. The options are validated
// once and shared, and each client counts straight into the group's totals from its start,
// with no record of its own made to be added on joining, so that a million clients cost a
// million clients' state and not twice that in set-up.
func NewFleetGroup(loop *sim.Loop, name string, f Fleet, w Workload, seed uint64) (*Group, error) {
	if f.Count < 1 {
		return nil, fmt.Errorf("group %s: clients: %d: need at least one", name, f.Count)
	}
	if err := w.Validate(); err != nil { // before making a million clients
		return nil, fmt.Errorf("group %s: %w", name, err)
	}
	opts := f.Options
	var policy func() retry.Policy // made once the options are validated
	g := &Group{loop: loop, name: name, w: w, clients: make([]*Client, f.Count)}
	for i := range g.clients {
		nodes, cname := f.Nodes(i), f.Name(i)
		if i == 0 {
			if err := validateClient(opts, f.Kind, nodes); err != nil {
				return nil, fmt.Errorf("client %s: %w", cname, err)
			}
			policy, _ = retry.Maker(opts.RetryPolicy, opts.retryOptions(f.Kind)) // validated above
		} else if err := validateNodes(f.Kind, nodes); err != nil { // the options are checked
			return nil, fmt.Errorf("client %s: %w", cname, err)
		}
		stats := &g.sink
		if w.ClientStats {
			stats = new(Stats)
		}
		g.clients[i] = newClient(loop, &opts, f.Kind, policy(), nodes, seed, cname, stats, &g.driver, &g.recs)
	}
	if err := checkGroup(name, g.clients, w); err != nil {
		return nil, err
	}
	for _, c := range g.clients {
		c.group = g
	}
	g.start(seed)
	return g, nil
}

// checkGroup reports the first problem of a group name of clients running w.
func checkGroup(name string, clients []*Client, w Workload) error {
	if err := w.Validate(); err != nil {
		return fmt.Errorf("group %s: %w", name, err)
	}
	if len(clients) == 0 {
		return fmt.Errorf("group %s: clients: none: need at least one", name)
	}
	for _, k := range w.Kinds {
		policy := clients[0].policy.Name()
		if k.Couchbase() != retry.Couchbase(policy) {
			return fmt.Errorf("group %s: mix: %s: a %s client cannot issue it (Couchbase requests need a couchbase-* policy, MongoDB operations a MongoDB one)", name, k, policy)
		}
	}
	for i, c := range clients {
		if c.group != nil {
			return fmt.Errorf("group %s: clients[%d]: %s already belongs to group %s: a client counts into one group's totals", name, i, c.name, c.group.name)
		}
	}
	return nil
}

// start draws the group's streams, lists its clients' retry token buckets and starts its
// workload.
func (g *Group) start(seed uint64) {
	loop, name, w := g.loop, g.name, g.w
	g.rng = loop.NewStream(seed, "group/"+name)
	if w.Assign == AssignRandom {
		// A stream of its own: the arrivals, mix and think times stay those of round-robin.
		g.pick = loop.NewStream(seed, "group/"+name+"/assign")
	}
	for _, c := range g.clients {
		if c.bucket != nil {
			g.buckets = append(g.buckets, c.bucket)
		}
	}
	clients := g.clients
	now := loop.Now()
	if w.Arrivals != nil {
		g.scheduleArrival(now)
	} else {
		for _, c := range clients {
			for i := 0; i < w.Threads; i++ {
				th := &appOp{g: g, client: c, thread: true}
				loop.At(now, th, evThink, nil)
			}
		}
	}
}

// Name returns the group's name.
func (g *Group) Name() string { return g.name }

// SetObserver makes o hear of every application operation the group finishes from now on (nil:
// none), as Client.SetAttemptObserver does for attempts.
func (g *Group) SetObserver(o Observer) { g.obs = o }

// Clients returns the group's clients.
func (g *Group) Clients() []*Client { return g.clients }

// DriverStats returns the driver counters of all the group's clients added together, kept as
// they count: the sum of their Snapshots, at a cost that does not grow with their number. Its
// RetryTokens is NaN; RetryTokens gives the buckets' levels.
func (g *Group) DriverStats() Stats {
	st := g.driver
	st.RetryTokens = math.NaN()
	return st
}

// DriverQueue returns how many of the group's operations wait in its clients' drivers now: in a
// connection pool's wait queue, for server selection, or for the policy's client-side limiter.
// It costs the same for any number of clients (the difference of two of DriverStats' counters).
func (g *Group) DriverQueue() int { return int(g.driver.WaitsBegun - g.driver.WaitsEnded) }

// RetryTokens returns the lowest and the sum of the retry token levels of the group's clients
// that have a bucket, and how many do (min is NaN when none does). The levels are read in
// client order, so the sum is the same float on every run.
func (g *Group) RetryTokens() (min, sum float64, n int) {
	min = math.NaN()
	for i, b := range g.buckets {
		tok := b.Tokens()
		if i == 0 || tok < min {
			min = tok
		}
		sum += tok
	}
	return min, sum, len(g.buckets)
}

// Stats returns the group's counters.
func (g *Group) Stats() GroupStats { return g.stats }

func (g *Group) scheduleArrival(now sim.Time) {
	if at, ok := g.w.Arrivals.Next(now, g.rng); ok && at < g.w.Stop {
		g.loop.At(at, g, evArrival, nil)
	}
}

// HandleEvent implements sim.Handler: open-loop arrivals.
func (g *Group) HandleEvent(now sim.Time, kind int, _ any) {
	var c *Client
	if g.pick != nil {
		c = g.clients[g.pick.IntN(len(g.clients))]
	} else {
		c = g.clients[g.next]
		g.next = (g.next + 1) % len(g.clients)
	}
	a := g.newAppOp(c)
	a.start(now)
	g.scheduleArrival(now)
}

// appOp is one application operation: the driver operations it issues, its retries, its
// deadline. A closed-loop thread reuses one appOp for all its operations.
type appOp struct {
	g        *Group
	client   *Client
	thread   bool
	kind     OpKind
	issued   sim.Time
	giveUp   sim.Time
	attempts int
	timer    sim.Timer
	deadline sim.Timer
	live     bool // an operation is in progress
	inDriver bool // a driver operation is running for it
	result   AppResult
}

func (g *Group) newAppOp(c *Client) *appOp {
	if n := len(g.free); n > 0 {
		a := g.free[n-1]
		g.free = g.free[:n-1]
		a.client = c
		return a
	}
	return &appOp{g: g, client: c}
}

// start issues a new application operation.
func (a *appOp) start(now sim.Time) {
	g := a.g
	a.kind = g.w.Kinds[g.w.Mix.Pick(g.rng)]
	a.issued, a.attempts, a.live = now, 0, true
	a.giveUp = sim.Never
	if g.w.Timeout > 0 {
		a.giveUp = now.Add(g.w.Timeout)
		a.deadline = g.loop.At(a.giveUp, a, evAppDeadline, nil)
	}
	g.stats.Issued++
	a.attempt(now)
}

func (a *appOp) attempt(now sim.Time) {
	a.attempts++
	a.inDriver = true
	spec := Spec{Kind: a.kind, Timeout: a.g.w.Retry.PerAttemptTimeout}
	if a.giveUp != sim.Never {
		rest := a.giveUp.Sub(now)
		if spec.Timeout == 0 || rest < spec.Timeout {
			spec.Timeout = rest
		}
	}
	a.client.Execute(now, spec, a)
}

// OperationDone implements Completion for the driver operations a issues.
func (a *appOp) OperationDone(now sim.Time, r *Result) {
	a.inDriver = false
	if !a.live { // the application already gave up on this operation
		a.recycle(now)
		return
	}
	if r.OK {
		a.finish(now, true, ErrNone)
		return
	}
	rt := a.g.w.Retry
	if a.attempts < rt.Attempts && (a.giveUp == sim.Never || now < a.giveUp) {
		a.g.stats.AppRetries++
		if d := a.backoff(); d > 0 {
			a.timer = a.g.loop.After(d, a, evAppBackoff, nil)
			return
		}
		a.attempt(now)
		return
	}
	a.finish(now, false, r.Class)
}

// backoff returns the application's sleep before its next attempt.
func (a *appOp) backoff() time.Duration {
	rt := a.g.w.Retry
	if rt.Backoff == BackoffNone || rt.Base == 0 {
		return 0
	}
	d := float64(rt.Base) * math.Pow(2, float64(a.attempts-1))
	if rt.Cap > 0 {
		d = math.Min(d, float64(rt.Cap))
	}
	if rt.Backoff == BackoffFullJitter {
		d *= a.g.rng.Float64()
	}
	return time.Duration(d)
}

// HandleEvent implements sim.Handler: think times, application backoff and deadline.
func (a *appOp) HandleEvent(now sim.Time, kind int, _ any) {
	switch kind {
	case evThink:
		if now < a.g.w.Stop {
			a.start(now)
		}
	case evAppBackoff:
		a.timer = sim.Timer{}
		a.attempt(now)
	case evAppDeadline:
		a.deadline = sim.Timer{}
		if a.live {
			a.g.loop.Cancel(a.timer)
			a.timer = sim.Timer{}
			a.finish(now, false, ErrTimeout)
		}
	}
}

func (a *appOp) finish(now sim.Time, ok bool, class ErrClass) {
	g := a.g
	a.live = false
	g.loop.Cancel(a.deadline)
	a.deadline = sim.Timer{}
	if ok {
		g.stats.Succeeded++
	} else {
		g.stats.Failed++
		g.stats.FailedByClass[class]++
	}
	if g.obs != nil {
		a.result = AppResult{Kind: a.kind, Issued: a.issued, Done: now, OK: ok, Class: class, Attempts: a.attempts}
		g.obs.AppOperationDone(now, g, &a.result)
	}
	if !a.inDriver {
		a.recycle(now)
	}
}

// MinThreadCycle is the least time between two operations of one closed-loop thread: the
// client's own cost of an operation, which the model otherwise leaves out. It binds only on an
// operation that never left the client — one that fails in the SDK at once (a fail-fast policy
// with no node known yet, an open circuit breaker, a local rejection) — followed by a think time
// under it, typically 0s. A real thread in that loop spins too, but each turn costs it CPU time
// (the request built, the failure raised and caught); without a cost the model's thread would
// issue operations for ever at one instant of virtual time and the run would never end. A
// serious client's turn costs microseconds; 10µs bounds such a thread at 100 000 operations a
// second of virtual time, so any input's run ends, and every operation that reaches a server
// (a network round trip at least) is slower than it and unchanged.
const MinThreadCycle = 10 * time.Microsecond

// recycle ends a's use: a thread thinks and goes again, no sooner than MinThreadCycle after its
// previous start; an open-loop operation's record is reused.
func (a *appOp) recycle(now sim.Time) {
	g := a.g
	if a.thread {
		var think time.Duration
		if g.w.Think != nil {
			think = g.w.Think.Sample(g.rng)
		}
		next := max(now.Add(think), a.issued.Add(MinThreadCycle))
		if g.w.Pace > 0 {
			next = max(next, a.issued.Add(g.w.Pace))
		}
		g.loop.At(next, a, evThink, nil)
		return
	}
	g.free = append(g.free, a)
}
