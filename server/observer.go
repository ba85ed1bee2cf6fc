package server

import (
	"time"

	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
)

// CommandObserver hears the commands a node admits, in the terms serverStatus counts them in
// (metrics.commands, opcounters, opLatencies, the execution ticket pools). A node has none by
// default (SetCommandObserver); an observer only listens: it must not schedule events, draw
// random numbers or call the node back, so that a run with one is the run without it.
//
// A command is admitted when it passes the ingress request limiter: at once (a token, an
// exemption, or no limiter), or when it leaves the limiter's queue. Connection establishment,
// the monitoring hellos of unauthenticated connections and the limiter's rejections (462) are
// never admitted and never heard of. Every admitted command is answered exactly once, so it
// is heard of once by CommandAdmitted and once by CommandDone, the node going down included
// (its commands are then answered with a closed connection). In between, a command that
// executes on the node is heard of by CommandQueued if it waits for a worker and by
// CommandStarted when it gets one; a mongos's commands are routed instead (its Router), and
// are heard of only when admitted and when answered. The observer is called in the node's own
// event, at the instant each thing happens.
type CommandObserver interface {
	// CommandAdmitted: cmd passed the ingress request limiter at now.
	CommandAdmitted(now sim.Time, cmd wire.Command)
	// CommandQueued: cmd joined the worker queue at now and found no worker free. A node
	// that shares its cores (ExecShared) has no queue and never calls it.
	CommandQueued(now sim.Time, cmd wire.Command)
	// CommandStarted: cmd got a worker at now (with ExecShared: a share of the cores); queued
	// says it had waited for one (CommandQueued heard of it), for waited (0 if it found one
	// free, and possibly 0 if one came free at the instant it queued). Rejections that cost
	// worker time (RejectCost) and a connection's handshake work are not commands and are not
	// heard of.
	CommandStarted(now sim.Time, cmd wire.Command, queued bool, waited time.Duration)
	// CommandDone: cmd was answered at now.
	CommandDone(now sim.Time, cmd wire.Command, r CommandResult)
}

// CommandResult is what a node tells its CommandObserver about an admitted command it
// answered.
type CommandResult struct {
	// Latency is the time from admission to the reply: the limiter queue is not in it, the
	// worker queue, a failpoint's block, the work and a mongos's routing are.
	Latency time.Duration
	// Queued says the command waited for a worker (CommandQueued heard of it).
	Queued bool
	// Waited is its time in the worker queue: until it got a worker, or, if it never did,
	// until the reply. 0 if it did not queue.
	Waited time.Duration
	// Started says the command got a worker (CommandStarted heard of it). A command that
	// queued and did not start was cancelled while it waited: its maxTimeMS ran out, its
	// client cancelled it, the node's role changed or the node went down.
	Started bool
	// Processing is the time from getting the worker to the reply, 0 if it never got one. It is
	// wall time, as a server's clock measures it: the time a pause froze the command is in it,
	// and with ExecShared it is the time on the shared cores, not the CPU time received.
	Processing time.Duration
	// Failed says the reply is an error or a closed connection.
	Failed bool
}

// SetCommandObserver makes o hear of the commands the node admits from now on (nil: none). A
// command admitted before o was set is not heard of by it. Without an observer the node pays
// one nil check at each point the observer would be called.
func (s *Server) SetCommandObserver(o CommandObserver) { s.obs = o }

// The observer's marks on a job (job.obs).
const (
	obsAdmitted uint8 = 1 << iota // CommandAdmitted heard of it
	obsQueued                     // CommandQueued heard of it
	obsStarted                    // CommandStarted heard of it
)

// observeAdmitted tells the observer that j passed the ingress request limiter at now.
func (s *Server) observeAdmitted(now sim.Time, j *job) {
	j.obs, j.admittedAt = obsAdmitted, now
	s.obs.CommandAdmitted(now, j.req.Cmd)
}

// observeQueued tells the observer that j waits for a worker, if it does: called after j was
// put in the worker queue and the free workers were handed out.
func (s *Server) observeQueued(now sim.Time, j *job) {
	if j.state == jsQueued && j.obs&obsAdmitted != 0 {
		j.obs |= obsQueued
		s.obs.CommandQueued(now, j.req.Cmd)
	}
}

// observeStarted tells the observer that j got a worker at now after waiting waited.
func (s *Server) observeStarted(now sim.Time, j *job, waited time.Duration) {
	if j.obs&obsAdmitted == 0 || j.reject || j.hs {
		return
	}
	j.obs |= obsStarted
	j.startedAt = now
	s.obs.CommandStarted(now, j.req.Cmd, j.obs&obsQueued != 0, waited)
}

// observeDone tells the observer that j, if it was admitted, is answered at now.
func (s *Server) observeDone(now sim.Time, j *job, failed bool) {
	if j.obs&obsAdmitted == 0 {
		return
	}
	r := CommandResult{Latency: now.Sub(j.admittedAt), Queued: j.obs&obsQueued != 0,
		Started: j.obs&obsStarted != 0, Failed: failed}
	if r.Started {
		r.Processing = now.Sub(j.startedAt)
	}
	if r.Queued {
		left := now
		if r.Started {
			left = j.startedAt
		}
		r.Waited = left.Sub(j.enqueued)
	}
	s.obs.CommandDone(now, j.req.Cmd, r)
}
