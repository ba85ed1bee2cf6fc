package server

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/overloadsim/overloadsim/dist"
	"github.com/overloadsim/overloadsim/ratelimiter"
	"github.com/overloadsim/overloadsim/server/failpoint"
	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
)

// Internal event kinds (wire reserves the kinds below FirstInternalKind for messages).
const (
	evConnAdmit = wire.FirstInternalKind + iota
	evConnGiveUp
	evHandshakeDone
	evUnblock
	evLimiterAdmit
	evFinish
	evResume     // the end of a pause
	evRouteDone  // a router's answer that reached a paused mongos, held until it resumes
	evSharedDone // the first command on shared cores has received its work (ExecShared)
)

type jobState uint8

const (
	jsFree          jobState = iota
	jsConnQueued             // waiting for its connection-limiter reservation
	jsHandshake              // connection admitted, handshaking
	jsBlocked                // held by a failpoint's blockConnection
	jsLimiterQueued          // waiting for its request-limiter reservation
	jsQueued                 // waiting for a worker
	jsRunning                // on a worker (executing, or paying a rejection's cost)
	jsRouted                 // a mongos's command, with its router
)

// job is the node's record of one request while the node owns it. Jobs are pooled.
type job struct {
	req      *wire.Request
	arrived  sim.Time
	deadline sim.Time // maxTimeMS deadline, sim.Never if none
	state    jobState
	resv     ratelimiter.Reservation  // a queued limiter reservation
	bucket   *ratelimiter.TokenBucket // the bucket that holds it (parameters may change meanwhile)
	enqueued sim.Time                 // when it joined the worker queue
	start    sim.Time                 // when it got a worker
	natural  sim.Time                 // when the work would end with no deadline
	timer    sim.Timer

	// the outcome a rejection or a failpoint decided; code OK means "execute normally"
	reject      bool
	hs          bool // a connection's handshake work (HandshakeWork), waiting for or on a worker
	code        wire.Code
	labels      wire.Labels
	labelsGiven bool
	closeConn   bool
	pushback    bool  // the failpoint's error carries server pushback
	obs         uint8 // the CommandObserver calls it has heard (obsAdmitted, …); kept here, in padding
	pushbackMS  int64 // its milliseconds (< 0: do not retry)

	// ExecShared: the virtual work at which it ends, its arrival order, its place in the heap
	// of running commands, and the CPU clock when its busy time was last counted.
	vEnd float64
	pseq uint64
	hidx int
	c0   float64

	// CommandObserver: when the command was admitted and when it got its worker. Set, with obs,
	// only while the node has an observer.
	admittedAt, startedAt sim.Time

	prev, next *job   // the node's list of live jobs, in arrival order
	qnext      *job   // worker queue link
	gen        uint64 // bumped each time the record is reused, so stale RouteTokens are ignored
}

// fifo is an intrusive FIFO of jobs.
type fifo struct {
	head, tail *job
	n          int
}

func (q *fifo) push(j *job) {
	j.qnext = nil
	if q.tail == nil {
		q.head = j
	} else {
		q.tail.qnext = j
	}
	q.tail = j
	q.n++
}

func (q *fifo) pop() *job {
	j := q.head
	q.head = j.qnext
	if q.head == nil {
		q.tail = nil
	}
	j.qnext = nil
	q.n--
	return j
}

// heldEvent is a message or timer that reached a paused node, kept for its resume.
type heldEvent struct {
	kind int
	arg  any // *wire.Request for a message, *job for a timer; a pointer, so no allocation
}

// Server is one node. Create it with New; it receives wire.EvRequest events from clients.
type Server struct {
	cfg     Config
	loop    *sim.Loop
	service [wire.NumCommands]dist.Duration
	svcRNG  *rand.Rand // service times
	fpRNG   *rand.Rand // failpoint activation draws
	exempt  []string   // application exemption prefixes

	role        wire.Role
	down        bool
	paused      bool     // stopped the world: see Pause
	pauseStart  sim.Time // when the current pause began
	pauseUntil  sim.Time // when it ends
	resumeTimer sim.Timer
	stepDownDue bool        // a stepdown came while paused: its writes are interrupted at resume
	held        []heldEvent // what arrived or fired while paused, in that order; reused
	rebalancing bool        // a Couchbase node moving vbuckets: KV commands answer NotMyVbucket
	workers     int
	speed       float64 // service-speed factor: 0.5 halves the node's speed

	reqTB   *ratelimiter.TokenBucket // nil when the request limiter is off
	connTB  *ratelimiter.TokenBucket // nil when the connection limiter is off
	fp      *failpoint.Point
	conns   []*wire.Conn
	nextCID uint64

	busy    int
	cpu     sharedCPU // the running commands of a node with shared cores (ExecShared)
	rejects fifo      // rejections wait here, ahead of work
	work    fifo

	live     job // sentinel of the live-job list
	freeJobs []*job

	// time integrals since the start, for utilisation and Little's law
	lastT                        sim.Time
	busyArea, queueArea, capArea float64 // worker·s, job·s, worker·s
	connQueueArea, reqQueueArea  float64
	connQueued, reqQueued        int
	stats                        Stats

	obs CommandObserver // nil: none (SetCommandObserver)
}

// New returns a node on loop. Its random streams derive from (seed, "server/<address>/…").
func New(loop *sim.Loop, cfg Config, seed uint64) (*Server, error) {
	cfg.EnsureDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s := &Server{
		cfg:     cfg,
		loop:    loop,
		svcRNG:  loop.NewStream(seed, "server/"+cfg.Address+"/service"),
		fpRNG:   loop.NewStream(seed, "server/"+cfg.Address+"/failpoint"),
		exempt:  cfg.RequestLimiter.ApplicationExemptions,
		role:    cfg.Role,
		workers: cfg.Workers,
		speed:   1,
		lastT:   loop.Now(),
	}
	s.live.next, s.live.prev = &s.live, &s.live
	for i := range s.service {
		s.service[i] = cfg.Service
	}
	for cmd, d := range cfg.ServiceByCommand {
		s.service[cmd] = d
	}
	if err := s.SetRequestLimiter(loop.Now(), cfg.RequestLimiter); err != nil {
		return nil, err
	}
	if err := s.SetConnLimiter(loop.Now(), cfg.ConnLimiter); err != nil {
		return nil, err
	}
	return s, nil
}

// Address returns the node's address.
func (s *Server) Address() string { return s.cfg.Address }

// Config returns the node's configuration: as it was given, with the defaults filled, except
// for the ingress limiters, whose settings are the ones in force (SetRequestLimiter,
// SetConnLimiter). Its Workers is the configured count; Workers returns the current one. Its
// maps and Router are the node's own: read them, do not change them.
func (s *Server) Config() Config { return s.cfg }

// Role returns the node's current role.
func (s *Server) Role() wire.Role { return s.role }

// IsDown reports whether the node is down.
func (s *Server) IsDown() bool { return s.down }

// IsPaused reports whether the node is in a pause (see Pause).
func (s *Server) IsPaused() bool { return s.paused }

// HandleEvent implements sim.Handler: requests from clients and the node's own timers.
func (s *Server) HandleEvent(now sim.Time, kind int, arg any) {
	if s.paused { // one predictable branch when no pause is active
		s.hold(now, kind, arg)
		return
	}
	switch kind {
	case wire.EvRequest:
		s.arrive(now, arg.(*wire.Request))
		return
	case evSharedDone:
		s.sharedDone(now)
		return
	}
	j := arg.(*job)
	j.timer = sim.Timer{}
	switch kind {
	case evConnAdmit:
		s.leaveConnQueue(now, j)
		s.stats.ConnRemovedFromQueue++
		s.handshake(now, j)
	case evConnGiveUp:
		s.leaveConnQueue(now, j)
		j.bucket.CancelWait(now, j.resv)
		s.stats.ConnInterruptedInQueue++
		s.freeJob(j) // the client has gone: no reply
	case evHandshakeDone:
		s.established(now, j)
	case evUnblock:
		s.afterFailPoint(now, j)
	case evLimiterAdmit:
		s.leaveReqQueue(now, j)
		s.stats.RemovedFromQueue++
		s.afterLimiter(now, j)
	case evFinish:
		s.finish(now, j)
	case evRouteDone:
		s.answerRouted(now, j, wire.Reply{Code: j.code, Labels: j.labels, NetErr: j.closeConn})
	default:
		panic(fmt.Sprintf("server: unknown event kind %d", kind))
	}
}

// arrive is the start of every request's path.
func (s *Server) arrive(now sim.Time, req *wire.Request) {
	j := s.newJob(now, req)
	switch {
	case req.Cmd == wire.Disconnect:
		// A client closing its connection expects no answer: there is none to send even when
		// the node is down or has closed the connection itself while the message travelled.
		if req.Conn != nil {
			s.unregister(req.Conn)
		}
		s.freeJob(j)
		return
	case s.down:
		// A node that is down refuses connections and resets the ones it had.
		s.replyNetErr(now, j)
		return
	case req.Cmd == wire.Connect:
		s.connect(now, j)
		return
	case req.Conn == nil || req.Conn.Closed:
		s.replyNetErr(now, j)
		return
	case req.Cmd == wire.Hello && !req.Conn.Authenticated:
		// Monitoring and RTT hellos: answered on the network thread, exempt from everything.
		s.reply(now, j, wire.OK, 0)
		return
	}
	s.admitRequest(now, j)
}

// admitRequest is the ingress request rate limiter: it runs right after the message is read,
// before parsing, so that rejection is as cheap as possible (docs/model.md §5.3).
func (s *Server) admitRequest(now sim.Time, j *job) {
	if s.reqTB == nil {
		s.afterLimiter(now, j)
		return
	}
	if !j.req.Conn.Authenticated || s.exemptApp(j.req.Conn.AppName) {
		s.stats.ExemptedAdmissions++
		s.afterLimiter(now, j)
		return
	}
	s.stats.AttemptedAdmissions++
	if s.cfg.RequestLimiter.AdmissionMaxQueueDepth == 0 {
		if s.reqTB.TryAcquire(now) {
			s.stats.SuccessfulAdmissions++
			s.afterLimiter(now, j)
			return
		}
		s.stats.RejectedAdmissions++
		s.rejectOverload(now, j, wire.IngressRequestRateLimitExceeded)
		return
	}
	r, ok := s.reqTB.Acquire(now)
	if !ok {
		s.stats.RejectedAdmissions++
		s.rejectOverload(now, j, wire.IngressRequestRateLimitExceeded)
		return
	}
	s.stats.SuccessfulAdmissions++
	if r.At <= now {
		s.afterLimiter(now, j)
		return
	}
	s.stats.AddedToQueue++
	s.reqQueueChange(now, +1)
	j.state, j.resv, j.bucket = jsLimiterQueued, r, s.reqTB
	j.timer = s.loop.At(r.At, s, evLimiterAdmit, j)
}

func (s *Server) exemptApp(app string) bool {
	for _, p := range s.exempt {
		if strings.HasPrefix(app, p) {
			return true
		}
	}
	return false
}

// afterLimiter evaluates the failCommand failpoint, which the server checks when it runs the
// command, after ingress admission.
func (s *Server) afterLimiter(now sim.Time, j *job) {
	if s.obs != nil {
		s.observeAdmitted(now, j)
	}
	if s.fp != nil {
		// A mongos's connections to a shard member are internal clients.
		from := failpoint.Client{AppName: j.req.Conn.AppName, Internal: j.req.Conn.Internal}
		a := s.fp.Evaluate(j.req.Cmd, from, s.fpRNG)
		if a.Fire {
			j.closeConn, j.code, j.labels, j.labelsGiven = a.Close, a.Code, a.Labels, a.LabelsGiven
			j.pushback, j.pushbackMS = a.Pushback, a.PushbackMS
			if a.Block > 0 {
				j.state = jsBlocked
				j.timer = s.loop.After(a.Block, s, evUnblock, j)
				return
			}
		}
	}
	s.afterFailPoint(now, j)
}

// afterFailPoint applies a fired failpoint's outcome, then the role checks, then queues the
// command for a worker.
func (s *Server) afterFailPoint(now sim.Time, j *job) {
	switch {
	case j.closeConn:
		s.stats.ClosedByFailPoint++
		s.unregister(j.req.Conn)
		s.replyNetErr(now, j)
		return
	case j.code != wire.OK:
		s.stats.FailPointErrors++
		s.reply(now, j, j.code, s.labelsFor(j, j.code))
		return
	}
	if s.rebalancing && j.req.Cmd.Service() == wire.ServiceKV {
		// The vbucket map moves during a rebalance: a KV request that reaches a node no
		// longer owning its vbucket is answered NotMyVbucket at once, before any work.
		s.stats.NotMyVbucket++
		s.reply(now, j, wire.KVNotMyVbucket, 0)
		return
	}
	if code := s.roleError(j.req); code != wire.OK {
		s.reply(now, j, code, s.labelsFor(j, code))
		return
	}
	if s.cfg.Router != nil {
		s.route(now, j)
		return
	}
	s.enqueue(now, j)
}

// roleError is what a node answers a command its role cannot serve.
func (s *Server) roleError(req *wire.Request) wire.Code {
	switch {
	case s.role == wire.Standalone || s.role == wire.Primary || s.role == wire.Mongos:
		return wire.OK
	case req.Write:
		return wire.NotWritablePrimary
	case req.Cmd == wire.Ping || req.Cmd == wire.Hello:
		return wire.OK
	case !req.SecondaryOK:
		return wire.NotPrimaryNoSecondaryOk
	}
	return wire.OK
}

// labelsFor returns the labels a reply with code carries: the failpoint's if it gave some,
// otherwise what the server itself attaches.
func (s *Server) labelsFor(j *job, code wire.Code) wire.Labels {
	if j.labelsGiven {
		return j.labels
	}
	return ServerLabels(code, j.req.Write)
}

// ServerLabels returns the error labels a node attaches to an error with code on its own:
// rejections by the ingress request limiter carry SystemOverloadedError, RetryableError and
// NoWritesPerformed (the server's ingress_request_rate_limiter_helper.js, docs/model.md §5.4); other
// SystemOverloadedError-category codes carry SystemOverloadedError; a write failing with a
// retryable code carries RetryableWriteError (servers 4.4+ label retryable writes themselves).
func ServerLabels(code wire.Code, write bool) wire.Labels {
	var l wire.Labels
	switch {
	case code == wire.IngressRequestRateLimitExceeded:
		l = wire.SystemOverloadedError | wire.RetryableError | wire.NoWritesPerformed
	case code.IsSystemOverloaded():
		l = wire.SystemOverloadedError
	}
	if write && code.IsRetryableRead() {
		l |= wire.RetryableWriteError
	}
	return l
}

// rejectOverload answers j with an overload error (code, as the node's flavor spells it); the
// rejection costs RejectCost of a worker.
func (s *Server) rejectOverload(now sim.Time, j *job, code wire.Code) {
	code = OverloadCode(s.cfg.Flavor, j.req.Cmd, code)
	j.reject, j.code = true, code
	if s.cfg.RejectCost <= 0 { // free: no worker
		s.reply(now, j, code, s.labelsFor(j, code))
		return
	}
	if s.shared() { // its cost shares the cores with the commands running
		s.startShared(now, j)
		return
	}
	s.integrate(now)
	j.state, j.enqueued = jsQueued, now
	if s.cfg.RejectOrder == RejectFIFO {
		s.work.push(j)
	} else {
		s.rejects.push(j)
	}
	s.startWork(now)
}

// enqueue puts a command in line for a worker, or rejects it with AdmissionQueueOverflow when
// the queue is full.
func (s *Server) enqueue(now sim.Time, j *job) {
	if s.shared() { // no queue: every command runs at once, on a share of the cores
		s.startShared(now, j)
		return
	}
	if s.cfg.MaxQueueDepth > 0 && s.busy >= s.workers && s.work.n >= s.cfg.MaxQueueDepth {
		s.stats.QueueOverflows++
		s.rejectOverload(now, j, wire.AdmissionQueueOverflow)
		return
	}
	s.integrate(now)
	j.state, j.enqueued = jsQueued, now
	s.work.push(j)
	s.stats.Enqueued++
	s.startWork(now)
	if s.obs != nil {
		s.observeQueued(now, j)
	}
}

// startWork hands free workers to waiting jobs: rejections first, unless they queue with the
// work (RejectFIFO).
func (s *Server) startWork(now sim.Time) {
	for s.busy < s.workers && !s.down && !s.paused {
		var j *job
		switch {
		case s.rejects.n > 0:
			j = s.rejects.pop()
		case s.work.n > 0:
			s.integrate(now)
			j = s.work.pop()
			if !j.reject { // a rejection queued in FIFO order is no command dequeued
				s.stats.Dequeued++
				s.stats.QueueWait += now.Sub(j.enqueued)
			}
		default:
			return
		}
		if s.answeredBeforeWork(now, j) {
			continue
		}
		s.run(now, j)
	}
}

// answeredBeforeWork answers a command that cannot start at now, and says so: its maxTimeMS ran
// out, or the node's role changed, while it waited. Rejections and handshake work always start.
func (s *Server) answeredBeforeWork(now sim.Time, j *job) bool {
	if j.reject || j.hs {
		return false
	}
	if j.req.Cancelled {
		// The client cancelled it while it waited (a hedged copy that lost): it is dropped
		// without work, as a server drops a stream reset before its handler ran.
		s.reply(now, j, wire.Interrupted, 0)
		return true
	}
	if now >= j.deadline {
		s.stats.MaxTimeExpired++
		s.reply(now, j, wire.MaxTimeMSExpired, 0)
		return true
	}
	if code := s.roleError(j.req); code != wire.OK {
		s.reply(now, j, code, s.labelsFor(j, code))
		return true
	}
	return false
}

// run puts j on a worker.
func (s *Server) run(now sim.Time, j *job) {
	s.integrate(now)
	s.busy++
	j.state, j.start = jsRunning, now
	if s.obs != nil {
		s.observeStarted(now, j, now.Sub(j.enqueued))
	}
	var d time.Duration
	switch {
	case j.reject:
		d = s.cfg.RejectCost
	case j.hs:
		d = s.cfg.HandshakeWork
	default:
		n := float64(s.busy)
		base := s.service[j.req.Cmd].Sample(s.svcRNG)
		slow := 1 + float64(s.cfg.USLSigma*(n-1)) + float64(s.cfg.USLKappa*n*(n-1))
		d = time.Duration(float64(base)*slow) + time.Duration(n)*s.cfg.InFlightPenalty
	}
	j.natural = now.Add(time.Duration(float64(d) / s.speed))
	s.scheduleFinish(now, j)
}

// scheduleFinish sets j's end at its natural end or its maxTimeMS deadline, whichever is first,
// and not before now (a deadline can pass while the node is paused).
func (s *Server) scheduleFinish(now sim.Time, j *job) {
	if s.shared() { // the shared clock ends it; only a command's deadline has its own timer
		if !j.reject && !j.hs && j.deadline != sim.Never {
			j.timer = s.loop.At(max(j.deadline, now), s, evFinish, j)
		}
		return
	}
	at := j.natural
	if !j.reject && !j.hs && j.deadline < at {
		at = j.deadline
	}
	j.timer = s.loop.At(max(at, now), s, evFinish, j)
}

// finish ends j's time on a worker and replies.
func (s *Server) finish(now sim.Time, j *job) {
	s.releaseWorker(now, j)
	switch {
	case j.reject:
		s.reply(now, j, j.code, s.labelsFor(j, j.code))
	case j.hs: // the handshake's work is done; the connection is usable HandshakeCost later
		s.handshake(now, j)
	case now < j.natural: // aborted at its maxTimeMS deadline
		s.stats.MaxTimeExpired++
		s.reply(now, j, wire.MaxTimeMSExpired, 0)
	default:
		s.stats.Completed++
		s.reply(now, j, wire.OK, 0)
	}
	s.startWork(now)
}

// releaseWorker frees j's worker and accounts its busy time.
func (s *Server) releaseWorker(now sim.Time, j *job) {
	if s.shared() {
		s.leaveShared(now, j)
		return
	}
	s.integrate(now)
	s.busy--
	s.accountBusy(now, j)
}

// accountBusy counts j's time on its worker from j.start to now as busy (and, for a rejection or
// work after its client gave up, as wasted), and restarts the count at now. A pause splits a
// command's time on a worker in two such spans, so frozen time is never busy.
func (s *Server) accountBusy(now sim.Time, j *job) {
	if s.shared() {
		s.accountSharedBusy(now, j)
		return
	}
	busy := now.Sub(j.start)
	s.stats.BusyTime += busy
	switch {
	case j.reject:
		s.stats.RejectBusyTime += busy
		s.stats.WastedBusyTime += busy
	case j.req.GiveUpAt < now:
		// Work done after the client stopped waiting served nobody.
		s.stats.WastedBusyTime += now.Sub(max(j.start, j.req.GiveUpAt))
	}
	j.start = now
}

// reply sends req's answer back over its link and retires the job.
func (s *Server) reply(now sim.Time, j *job, code wire.Code, labels wire.Labels) {
	req := j.req
	req.Reply = wire.Reply{Code: code, Labels: labels, Role: s.role}
	if labels.Has(wire.SystemOverloadedError) && s.cfg.ExternalClientBaseBackoffMS > 0 {
		req.Reply.BaseBackoffMS = s.cfg.ExternalClientBaseBackoffMS
	}
	switch {
	case j.pushback && code != wire.OK:
		req.Reply.Pushback, req.Reply.PushbackMS = true, j.pushbackMS
	case labels.Has(wire.SystemOverloadedError) && s.cfg.RetryPushbackMS != 0:
		req.Reply.Pushback, req.Reply.PushbackMS = true, s.cfg.RetryPushbackMS
	}
	if code != wire.OK {
		s.stats.Errors++
	}
	if s.obs != nil {
		s.observeDone(now, j, code != wire.OK)
	}
	s.send(now, req)
	s.freeJob(j)
}

// replyNetErr answers with a closed connection.
func (s *Server) replyNetErr(now sim.Time, j *job) {
	req := j.req
	req.Reply = wire.Reply{NetErr: true, Role: s.role}
	s.stats.NetErrors++
	if s.obs != nil {
		s.observeDone(now, j, true)
	}
	s.send(now, req)
	s.freeJob(j)
}

func (s *Server) send(now sim.Time, req *wire.Request) {
	var d time.Duration
	if req.Conn != nil && req.Conn.Link != nil {
		d = req.Conn.Link.Delay()
	}
	s.loop.At(now.Add(d), req.ReplyTo, req.ReplyKind, req)
}

// connect is connection establishment through the ingress connection limiter, which queues
// (acquire-with-queue) up to its max depth and closes the connection beyond it.
func (s *Server) connect(now sim.Time, j *job) {
	if s.connTB == nil {
		s.handshake(now, j)
		return
	}
	s.stats.ConnAttemptedAdmissions++
	r, ok := s.connTB.Acquire(now)
	if !ok {
		s.stats.ConnRejected++
		s.replyNetErr(now, j) // the server closes the connection
		return
	}
	s.stats.ConnSuccessfulAdmissions++
	if r.At <= now {
		s.handshake(now, j)
		return
	}
	s.stats.ConnAddedToQueue++
	s.connQueueChange(now, +1)
	at := r.At
	j.state, j.resv, j.bucket = jsConnQueued, r, s.connTB
	// The client closes its socket when connectTimeoutMS passes; the server notices (the wait is
	// kill-on-client-disconnect) and returns the token.
	if giveUp := connGiveUp(j.req); giveUp < at {
		// Not before now: a connect held through a pause may reach here after its client left.
		j.timer = s.loop.At(max(giveUp, now), s, evConnGiveUp, j)
		return
	}
	j.timer = s.loop.At(at, s, evConnAdmit, j)
}

func connGiveUp(req *wire.Request) sim.Time {
	if req.ConnectTimeout <= 0 {
		return sim.Never
	}
	return req.SentAt.Add(req.ConnectTimeout)
}

func (s *Server) handshake(now sim.Time, j *job) {
	if s.cfg.HandshakeWork > 0 && !j.hs {
		// The handshake's CPU work first: on a worker, ahead of queued commands.
		j.hs = true
		if s.shared() {
			s.startShared(now, j)
			return
		}
		s.integrate(now)
		j.state, j.enqueued = jsQueued, now
		s.rejects.push(j)
		s.startWork(now)
		return
	}
	j.state = jsHandshake
	j.timer = s.loop.After(max(s.cfg.HandshakeCost, 0), s, evHandshakeDone, j)
}

// established registers the new connection and answers the client.
func (s *Server) established(now sim.Time, j *job) {
	conn := j.req.Conn
	if conn == nil {
		s.replyNetErr(now, j)
		return
	}
	if now > connGiveUp(j.req) { // the client gave up during the handshake and closed it
		s.stats.ConnAbandoned++
		s.freeJob(j)
		return
	}
	s.nextCID++
	conn.ID, conn.Closed = s.nextCID, false
	s.conns = append(s.conns, conn)
	conn.Slot = len(s.conns)
	s.stats.ConnCreated++
	s.reply(now, j, wire.OK, 0)
}

func (s *Server) unregister(c *wire.Conn) {
	c.Closed = true
	if c.Slot == 0 || c.Slot > len(s.conns) || s.conns[c.Slot-1] != c {
		return // not one of this node's open connections
	}
	i, last := c.Slot-1, len(s.conns)-1
	s.conns[i] = s.conns[last]
	s.conns[i].Slot = i + 1
	s.conns[last] = nil
	s.conns = s.conns[:last]
	c.Slot = 0
}

func (s *Server) newJob(now sim.Time, req *wire.Request) *job {
	var j *job
	if n := len(s.freeJobs); n > 0 {
		j = s.freeJobs[n-1]
		s.freeJobs = s.freeJobs[:n-1]
	} else {
		j = &job{}
	}
	j.req, j.arrived, j.deadline = req, now, sim.Never
	j.gen++
	if req.MaxTime > 0 {
		j.deadline = now.Add(req.MaxTime)
	}
	// link into the live list (tail)
	j.prev, j.next = s.live.prev, &s.live
	s.live.prev.next = j
	s.live.prev = j
	return j
}

func (s *Server) freeJob(j *job) {
	j.prev.next, j.next.prev = j.next, j.prev
	*j = job{gen: j.gen}
	if len(s.freeJobs) < maxFreeJobs {
		s.freeJobs = append(s.freeJobs, j)
	}
}

// maxFreeJobs is how many finished job records a node keeps for reuse. A burst (100 000
// clients connecting at once) needs hundreds of thousands for a moment; keeping them all would
// hold that burst's memory for the rest of the run. Steady load reuses far fewer, so it still
// allocates nothing. A dropped record may still be named by a stale route token; its state,
// reset to jsFree when it was freed, keeps the token stale (RouteToken.Done).
const maxFreeJobs = 4096

// integrate accumulates the time integrals up to now.
func (s *Server) integrate(now sim.Time) {
	if now <= s.lastT {
		return
	}
	dt := now.Sub(s.lastT).Seconds()
	// Paused time is neither busy nor capacity: the workers exist but cannot run, so counting
	// it as capacity would show a frozen node as idle. Utilisation (busy ÷ capacity) thus stays
	// the share of the capacity the node actually had that it used, as for a node that is down.
	if !s.down && !s.paused {
		s.busyArea += float64(dt * float64(s.busy))
		s.capArea += float64(dt * float64(s.workers))
	}
	s.queueArea += float64(dt * float64(s.work.n))
	s.connQueueArea += float64(dt * float64(s.connQueued))
	s.reqQueueArea += float64(dt * float64(s.reqQueued))
	s.lastT = now
}

func (s *Server) connQueueChange(now sim.Time, d int) {
	s.integrate(now)
	s.connQueued += d
}

func (s *Server) reqQueueChange(now sim.Time, d int) {
	s.integrate(now)
	s.reqQueued += d
}

func (s *Server) leaveConnQueue(now sim.Time, j *job) {
	s.connQueueChange(now, -1)
	s.stats.ConnQueueWait += now.Sub(j.resv.Start)
}

func (s *Server) leaveReqQueue(now sim.Time, j *job) {
	s.reqQueueChange(now, -1)
	s.stats.ReqQueueWait += now.Sub(j.resv.Start)
}
