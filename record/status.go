package record

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/overloadsim/overloadsim/results/serverstatus"
	"github.com/overloadsim/overloadsim/server"
	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
)

// What a run's serverStatus documents say about the process that answered them.
const (
	// StatusPort is the port of a node's host name: node "db" is host "db:27017". A name that
	// has a port already (a colon) is the host as it stands.
	StatusPort = "27017"
	// StatusVersion is the server version the documents report.
	StatusVersion = "8.2.0"
	// replSetName is the setName of the members of a cluster's only, unnamed replica set.
	replSetName = "rs0"
)

// StatusEpoch is the wall-clock time of virtual time 0 in the documents' localTime: a document
// taken at virtual time t has localTime StatusEpoch + t.
var StatusEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// StatusLog is a run's serverStatus documents: what db.serverStatus() and getParameter: '*'
// would have answered on each node, as package serverstatus holds them. Recorder.CollectStatus
// fills it. Documents are taken when collection starts (virtual time 0, before the load) and at
// every interval end of the recorder (and at the end of a last, partial interval), so that the
// differences between consecutive documents cover the run interval by interval.
//
// A document holds:
//
//	host, version, process   "<node>:27017" (StatusPort), 8.2.0 (StatusVersion), mongod or mongos
//	uptime, uptimeMillis     virtual time since 0; localTime = StatusEpoch + virtual time
//	repl                     replica-set members only: setName (the shard's name, or rs0 for
//	                         a cluster's only set), hosts, primary (absent during an election),
//	                         me, isWritablePrimary, secondary (neither while the node is down)
//	opcounters               one per admitted command: find → query, getMore → getmore,
//	                         insert, update, delete → themselves, anything else → command
//	metrics.commands         per command: total when admitted, failed when answered with an
//	                         error or a closed connection; every MongoDB command is listed
//	opLatencies              reads (find, getMore, aggregate), writes (insert, update, delete,
//	                         findAndModify), transactions (commit, abort), commands (the rest):
//	                         latency from admission to the reply, ops and histogram, counted
//	                         when the command is answered
//	connections              current, totalCreated, active (admitted commands not yet
//	                         answered), queuedForEstablishment, establishmentRateLimit
//	network.ingressRequestRateLimiter, queues.ingressSessionEstablishment
//	                         the node's limiter counters (server.Stats)
//	queues.execution         mongod only: read and write ticket pools (poolOf), totalTickets =
//	                         the node's workers now, available = its free workers now
//
// A command is admitted when it passes the ingress request limiter (server.CommandObserver);
// the limiter's rejections (462), connections and monitoring hellos are in no command count.
// So at a document's instant the commands of a kind counted in metrics.commands less the ops
// of that kind in opLatencies are the ones still unanswered, and all of them together are
// connections.active.
//
// Units and truncation: totals of microseconds (opLatencies latency, totalTimeProcessingMicros,
// totalTimeQueuedMicros) are nanosecond sums truncated toward zero when the document is taken,
// so the difference of two documents is within 1 µs of the exact one; an operation falls in
// the histogram range of its latency truncated to whole microseconds; totalAvailableTokens is
// the bucket's whole tokens (rounded down, negative while tokens are owed to its queue).
//
// What the model does not have, and how the documents say it: connections.available is 0 (the
// model has no connection limit); establishmentRateLimit.exempted and the connection limiter's
// exemptedAdmissions are 0 (no exemptions from it); a limiter queue's interruptedInQueue is
// whoever left it other than by admission (a connect whose client gave up, the node going
// down); the ticket pools are one pool of workers split by command, so available is the same
// in both; processing and queue times are wall time (a pause's frozen time is in them). The
// counters are cumulative from time 0 and never reset: a node that goes down and comes back
// keeps them, and a node that is down still has its documents, though a real one would not
// answer. Sections a server has and the model does not (wiredTiger, mem, asserts, network
// bytes, transactions, …) are absent.
type StatusLog struct {
	// Nodes holds one entry per MongoDB node, in the cluster's order (data nodes in
	// configuration order, mongos nodes last). Couchbase nodes have no serverStatus and no
	// entry.
	Nodes []NodeStatus
}

// NodeStatus is one node's parameters and documents.
type NodeStatus struct {
	// Name is the node's name in the scenario (its address in the model).
	Name string
	// Params is what getParameter: '*' answers, with the node's configured settings: the
	// ingress limiters (MongoDB's defaults for one that is off: rate 2147483647, burst
	// DBL_MAX, queue depth 0, no exemptions), externalClientBaseBackoffMS and, on a mongod,
	// the execution tickets (fixedConcurrentTransactions, both pools = the node's workers).
	// A rate that is not a whole number is rounded to the nearest, and capped at 2147483647
	// (the server parameter is a 32-bit integer).
	Params serverstatus.Params
	// Docs are the documents in time order (see StatusLog).
	Docs []serverstatus.Doc
}

// How a command counts in serverStatus: its opLatencies kind, its opcounter and its execution
// ticket pool.
const (
	kindReads = iota
	kindWrites
	kindCommands
	kindTransactions
	numKinds
)

const (
	opQuery = iota
	opInsert
	opUpdate
	opDelete
	opGetmore
	opCommand
	numOps
)

const (
	poolRead = iota
	poolWrite
	numPools
)

// kindOf returns cmd's opLatencies kind: reads are find, getMore and aggregate; writes insert,
// update, delete and findAndModify; transactions commit and abort; commands everything else.
func kindOf(cmd wire.Command) int {
	switch cmd {
	case wire.Find, wire.GetMore, wire.Aggregate:
		return kindReads
	case wire.Insert, wire.Update, wire.Delete, wire.FindAndModify:
		return kindWrites
	case wire.CommitTransaction, wire.AbortTransaction:
		return kindTransactions
	}
	return kindCommands
}

// opOf returns cmd's opcounter: find counts as query, getMore as getmore, insert, update and
// delete as themselves, and every other command as command.
func opOf(cmd wire.Command) int {
	switch cmd {
	case wire.Find:
		return opQuery
	case wire.GetMore:
		return opGetmore
	case wire.Insert:
		return opInsert
	case wire.Update:
		return opUpdate
	case wire.Delete:
		return opDelete
	}
	return opCommand
}

// poolOf returns the execution ticket pool cmd takes a ticket from: writes (insert, update,
// delete, findAndModify) and the end of a transaction from the write pool, every other command
// from the read pool. The model has one pool of workers; the export splits its counters.
func poolOf(cmd wire.Command) int {
	switch cmd {
	case wire.Insert, wire.Update, wire.Delete, wire.FindAndModify, wire.CommitTransaction, wire.AbortTransaction:
		return poolWrite
	}
	return poolRead
}

// latencyCount is one opLatencies kind, cumulative: the latency in nanoseconds (truncated to
// µs when a document is taken), the operations and their histogram over
// serverstatus.LowerBounds.
type latencyCount struct {
	ns   time.Duration
	ops  int64
	hist []int64 // by bucket; nil until an operation
}

// poolCount is one execution ticket pool, cumulative (serverstatus.TicketPool).
type poolCount struct {
	added, removed, started, finished, canceled int64
	processing, queued                          time.Duration // summed, truncated to µs in a document
}

// statusNode collects one node's counters: it is the node's CommandObserver.
type statusNode struct {
	s      *server.Server
	rs     *server.ReplicaSet // nil for a standalone or a mongos
	set    string             // the replica set's name
	mongos bool
	host   string
	out    *NodeStatus

	total, failed [wire.NumCommands]int64
	ops           [numOps]int64
	lat           [numKinds]latencyCount
	pools         [numPools]poolCount
	inFlight      int64 // admitted and not yet answered
}

var _ server.CommandObserver = (*statusNode)(nil)

// CommandAdmitted implements server.CommandObserver: metrics.commands.<cmd>.total and the
// opcounters count a command when it is admitted, as a server counts it when it starts to run.
func (n *statusNode) CommandAdmitted(now sim.Time, cmd wire.Command) {
	n.total[cmd]++
	n.ops[opOf(cmd)]++
	n.inFlight++
}

// CommandQueued implements server.CommandObserver.
func (n *statusNode) CommandQueued(now sim.Time, cmd wire.Command) {
	n.pools[poolOf(cmd)].added++
}

// CommandStarted implements server.CommandObserver.
func (n *statusNode) CommandStarted(now sim.Time, cmd wire.Command, queued bool, waited time.Duration) {
	p := &n.pools[poolOf(cmd)]
	p.started++
	if queued {
		p.removed++
	}
}

// CommandDone implements server.CommandObserver: failures, opLatencies and the ticket pools'
// processing and queue times count a command when it is answered.
func (n *statusNode) CommandDone(now sim.Time, cmd wire.Command, r server.CommandResult) {
	n.inFlight--
	if r.Failed {
		n.failed[cmd]++
	}
	l := &n.lat[kindOf(cmd)]
	l.ns += r.Latency
	l.ops++
	if l.hist == nil {
		l.hist = make([]int64, len(serverstatus.LowerBounds))
	}
	l.hist[bucket(r.Latency)]++
	p := &n.pools[poolOf(cmd)]
	p.queued += r.Waited
	switch {
	case r.Started:
		p.finished++
		p.processing += r.Processing
	case r.Queued:
		p.removed++
		p.canceled++
	}
}

// bucket returns the histogram range of latency d: the last serverstatus.LowerBounds bound at
// or below d truncated to whole microseconds.
func bucket(d time.Duration) int {
	us := d.Microseconds()
	return sort.Search(len(serverstatus.LowerBounds), func(i int) bool { return serverstatus.LowerBounds[i] > us }) - 1
}

// micros truncates d to whole microseconds.
func micros(d time.Duration) int64 { return d.Microseconds() }

// CollectStatus starts collecting log: serverStatus documents of every MongoDB node of c, each
// of which the recorder must record (AddNode, as bench.Build does) since now, before the
// loop has handled any event of theirs. It fills log.Nodes with the nodes' parameters and a
// first document each, makes each node's CommandObserver its collector, and from then on takes
// a document of every node each time the recorder reads it, at every interval end. It adds no
// event to the loop, draws nothing and reads the nodes only when the recorder does: the run is
// the run without it. Call it once.
func (r *Recorder) CollectStatus(c *server.Cluster, log *StatusLog) error {
	if r.status != nil {
		return errors.New("record: CollectStatus: already collecting")
	}
	now := r.loop.Now()
	setOf := map[*server.Server]*server.ReplicaSet{}
	for _, rs := range c.ReplicaSets() {
		for _, s := range rs.Nodes() {
			setOf[s] = rs
		}
	}
	var nodes []*statusNode
	for _, s := range c.Nodes() {
		cfg := s.Config()
		if cfg.Flavor != server.FlavorMongoDB {
			continue
		}
		if at, ok := r.nodes[s]; !ok || at != now {
			return fmt.Errorf("record: CollectStatus: node %q is not recorded since now (%v)", s.Address(), now)
		}
		n := &statusNode{s: s, rs: setOf[s], mongos: cfg.Role == wire.Mongos, host: hostOf(s.Address())}
		if n.rs != nil {
			n.set = n.rs.Name()
			if n.set == "" {
				n.set = replSetName
			}
		}
		nodes = append(nodes, n)
		log.Nodes = append(log.Nodes, NodeStatus{Name: s.Address(), Params: params(cfg, n.mongos)})
	}
	r.status = map[*server.Server]*statusNode{}
	for i, n := range nodes {
		n.out = &log.Nodes[i]
		r.status[n.s] = n
		n.s.SetCommandObserver(n)
		// Snapshot at the instant the recorder read the node: its integrals and buckets are
		// already up to date, so this reading changes nothing.
		st := n.s.Snapshot(now)
		n.take(now, &st)
	}
	return nil
}

// hostOf returns the host name of the node called name.
func hostOf(name string) string {
	for _, c := range name {
		if c == ':' {
			return name
		}
	}
	return name + ":" + StatusPort
}

// The defaults of a server whose ingress limiter is off.
const (
	defaultRate  = math.MaxInt32
	defaultBurst = math.MaxFloat64
)

// params returns what getParameter answers on a node configured as cfg.
func params(cfg server.Config, mongos bool) serverstatus.Params {
	req, conn := cfg.RequestLimiter, cfg.ConnLimiter
	reqRate, reqBurst, reqDepth := int64(defaultRate), float64(defaultBurst), int64(0)
	if req.Enabled {
		reqRate, reqBurst, reqDepth = wholeRate(req.AdmissionRatePerSec), req.AdmissionBurstCapacitySecs, req.AdmissionMaxQueueDepth
	}
	connRate, connBurst, connDepth := int64(defaultRate), float64(defaultBurst), int64(0)
	if conn.Enabled {
		connRate, connBurst, connDepth = wholeRate(conn.RatePerSec), conn.BurstCapacitySecs, conn.MaxQueueDepth
	}
	apps := append([]string{}, req.ApplicationExemptions...)
	p := serverstatus.Params{
		IngressRequestRateLimiterEnabled:                 &req.Enabled,
		IngressRequestAdmissionRatePerSec:                &reqRate,
		IngressRequestAdmissionBurstCapacitySecs:         &reqBurst,
		IngressRequestAdmissionMaxQueueDepth:             &reqDepth,
		IngressRequestRateLimiterApplicationExemptions:   &serverstatus.AppNames{AppNames: apps},
		IngressConnectionEstablishmentRateLimiterEnabled: &conn.Enabled,
		IngressConnectionEstablishmentRatePerSec:         &connRate,
		IngressConnectionEstablishmentBurstCapacitySecs:  &connBurst,
		IngressConnectionEstablishmentMaxQueueDepth:      &connDepth,
		ExternalClientBaseBackoffMS:                      &cfg.ExternalClientBaseBackoffMS,
	}
	if !mongos {
		workers, algo := int64(cfg.Workers), "fixedConcurrentTransactions"
		p.ExecutionControlConcurrentReadTransactions = &workers
		p.ExecutionControlConcurrentWriteTransactions = ptr(workers)
		p.ExecutionControlConcurrencyAdjustmentAlgo = &algo
	}
	return p
}

// wholeRate returns a rate as the server parameter holds it: rounded to a whole number, at most
// 2147483647.
func wholeRate(r float64) int64 {
	return int64(math.Min(math.Round(r), defaultRate))
}

func ptr[T any](v T) *T { return &v }

// take appends the node's document at now, st being its statistics then.
func (n *statusNode) take(now sim.Time, st *server.Stats) {
	d := time.Duration(now)
	doc := serverstatus.Doc{Host: n.host, Version: StatusVersion, Process: "mongod",
		Uptime: d.Seconds(), UptimeMillis: d.Milliseconds(), LocalTime: StatusEpoch.Add(d)}
	if n.mongos {
		doc.Process = "mongos"
	}
	if n.rs != nil {
		doc.Repl = n.repl()
	}
	doc.Opcounters = &serverstatus.Opcounters{Insert: n.ops[opInsert], Query: n.ops[opQuery], Update: n.ops[opUpdate],
		Delete: n.ops[opDelete], Getmore: n.ops[opGetmore], Command: n.ops[opCommand]}
	doc.OpLatencies = &serverstatus.OpLatencies{Reads: n.lat[kindReads].doc(), Writes: n.lat[kindWrites].doc(),
		Commands: n.lat[kindCommands].doc(), Transactions: n.lat[kindTransactions].doc()}
	doc.Connections = &serverstatus.Connections{Current: int64(st.ConnectionsCurrent), TotalCreated: int64(st.ConnCreated),
		Active: n.inFlight, QueuedForEstablishment: ptr(int64(st.ConnectionsQueued)),
		EstablishmentRateLimit: &serverstatus.EstablishmentRateLimit{Rejected: int64(st.ConnRejected),
			InterruptedDueToClientDisconnect: int64(st.ConnInterruptedInQueue)}}
	doc.Network = &serverstatus.Network{IngressRequestRateLimiter: limiter(
		st.AttemptedAdmissions, st.SuccessfulAdmissions, st.RejectedAdmissions, st.ExemptedAdmissions,
		st.AddedToQueue, st.RemovedFromQueue, st.RequestLimiterQueued, st.ReqQueueWait, st.RequestLimiterTokens)}
	doc.Queues = &serverstatus.Queues{IngressSessionEstablishment: limiter(
		st.ConnAttemptedAdmissions, st.ConnSuccessfulAdmissions, st.ConnRejected, 0,
		st.ConnAddedToQueue, st.ConnRemovedFromQueue, st.ConnectionsQueued, st.ConnQueueWait, st.ConnLimiterTokens)}
	if !n.mongos {
		free := max(int64(st.Workers)-int64(st.OpsInProgress), 0)
		doc.Queues.Execution = &serverstatus.Execution{Read: n.pools[poolRead].doc(st.Workers, free),
			Write: n.pools[poolWrite].doc(st.Workers, free)}
	}
	cmds := map[string]serverstatus.CommandCount{}
	for c := range wire.NumCommands {
		cmd := wire.Command(c)
		if cmd == wire.Connect || cmd == wire.Disconnect || (cmd.Service() != wire.ServiceMongoDB && n.total[cmd] == 0) {
			continue
		}
		cmds[cmd.String()] = serverstatus.CommandCount{Failed: n.failed[cmd], Total: n.total[cmd]}
	}
	doc.Metrics = &serverstatus.Metrics{Commands: cmds}
	n.out.Docs = append(n.out.Docs, doc)
}

// repl returns the repl section of a replica-set member now.
func (n *statusNode) repl() *serverstatus.Repl {
	r := &serverstatus.Repl{SetName: n.set, Me: n.host}
	for _, m := range n.rs.Nodes() {
		r.Hosts = append(r.Hosts, hostOf(m.Address()))
	}
	if p := n.rs.Primary(); p != nil {
		r.Primary = hostOf(p.Address())
	}
	up := !n.s.IsDown()
	r.IsWritablePrimary = up && n.s.Role() == wire.Primary
	r.Secondary = up && n.s.Role() == wire.Secondary
	return r
}

// doc returns the kind's opLatencies entry, with its histogram's non-empty ranges.
func (l *latencyCount) doc() *serverstatus.Latency {
	out := &serverstatus.Latency{Latency: micros(l.ns), Ops: l.ops}
	for i, c := range l.hist {
		if c > 0 {
			out.Histogram = append(out.Histogram, serverstatus.Bucket{Micros: serverstatus.LowerBounds[i], Count: c})
		}
	}
	return out
}

// doc returns the pool's tickets: out is what its commands hold, available the node's free
// workers (free: one pool of workers serves both).
func (p *poolCount) doc(workers int, free int64) *serverstatus.Tickets {
	out := p.started - p.finished
	return &serverstatus.Tickets{Out: out, Available: free, TotalTickets: int64(workers),
		NormalPriority: &serverstatus.TicketPool{AddedToQueue: p.added, RemovedFromQueue: p.removed,
			QueueLength: p.added - p.removed, StartedProcessing: p.started, Processing: out,
			FinishedProcessing: p.finished, TotalTimeProcessingMicros: micros(p.processing),
			Canceled: p.canceled, NewAdmissions: p.started, TotalTimeQueuedMicros: ptr(micros(p.queued))}}
}

// limiter returns an ingress limiter's counters. Those that left its queue other than by
// admission (a connect whose client gave up, a node that went down) count as interrupted; the
// average time queued is over everyone who left it. The available tokens are whole tokens
// (negative when owed to the queue), math.MaxInt64 without a limiter.
func limiter(attempted, successful, rejected, exempted, added, removed uint64, queued int, waited time.Duration, tokens float64) *serverstatus.RateLimiter {
	left := int64(added) - int64(queued)
	avg := 0.0
	if left > 0 {
		avg = float64(micros(waited)) / float64(left)
	}
	avail := int64(math.MaxInt64)
	if !math.IsInf(tokens, 1) {
		avail = int64(math.Floor(tokens))
	}
	return &serverstatus.RateLimiter{AttemptedAdmissions: int64(attempted), SuccessfulAdmissions: int64(successful),
		RejectedAdmissions: int64(rejected), ExemptedAdmissions: int64(exempted),
		AddedToQueue: ptr(int64(added)), RemovedFromQueue: ptr(int64(removed)),
		InterruptedInQueue: ptr(left - int64(removed)), AverageTimeQueuedMicros: &avg, TotalAvailableTokens: avail}
}
