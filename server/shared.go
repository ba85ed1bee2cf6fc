package server

import (
	"container/heap"
	"fmt"
	"math"
	"time"

	"github.com/overloadsim/overloadsim/sim"
)

// Execution is how a node runs the commands it admits (Config.Execution).
type Execution uint8

// Executions.
const (
	// ExecTickets (the default) runs at most Workers commands at once, each at the node's full
	// speed for its whole service time, the others waiting in a FIFO queue: MongoDB's execution
	// tickets.
	ExecTickets Execution = iota
	// ExecShared runs every admitted command at once, the node's Workers cores shared among
	// them (processor sharing): with n running, each progresses at min(1, Workers/n) of the
	// node's speed, so service slows as concurrency grows and speeds up as it falls, from one
	// instant to the next. It is MongoDB before execution tickets: a thread per connection,
	// scheduled by the operating system over the cores. Rejections that cost worker time and
	// handshake work share the cores too. There is no queue, so MaxQueueDepth must be 0.
	ExecShared
)

var executionNames = [...]string{"tickets", "shared"}

// String returns the execution's name as scenarios spell it.
func (e Execution) String() string {
	if int(e) < len(executionNames) {
		return executionNames[e]
	}
	return fmt.Sprintf("execution(%d)", e)
}

// ParseExecution returns the execution called name.
func ParseExecution(name string) (Execution, bool) {
	for i, n := range executionNames {
		if n == name {
			return Execution(i), true
		}
	}
	return 0, false
}

// sharedCPU is the state of a node that shares its cores (ExecShared). It keeps one clock of
// virtual work instead of a timer per command: v is the work (nanoseconds at speed 1 on a whole
// core) each running command has received since the start, which grows at the same rate for
// all of them, so a command started with work w at v₀ ends when v reaches v₀ + w. The running
// commands are a heap ordered by that end, and one timer waits for the earliest: an arrival or a
// departure changes the rate and moves that timer only, in O(log n).
type sharedCPU struct {
	jobs  sharedHeap
	v     float64  // virtual work per running command, ns
	cpu   float64  // CPU time per running command, ns: its busy time
	last  sim.Time // when v and cpu were last brought up to date
	seq   uint64   // arrival order, for ties
	timer sim.Timer
}

// sharedHeap orders running commands by the virtual work at which they end, then by arrival.
type sharedHeap []*job

func (h sharedHeap) Len() int { return len(h) }
func (h sharedHeap) Less(i, k int) bool {
	if h[i].vEnd != h[k].vEnd {
		return h[i].vEnd < h[k].vEnd
	}
	return h[i].pseq < h[k].pseq
}
func (h sharedHeap) Swap(i, k int) {
	h[i], h[k] = h[k], h[i]
	h[i].hidx, h[k].hidx = i, k
}
func (h *sharedHeap) Push(x any) {
	j := x.(*job)
	j.hidx = len(*h)
	*h = append(*h, j)
}
func (h *sharedHeap) Pop() any {
	old := *h
	j := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	j.hidx = -1
	return j
}

func (s *Server) shared() bool { return s.cfg.Execution == ExecShared }

// share is the share of a core each running command gets: min(1, workers/n).
func (s *Server) share() float64 {
	n := len(s.cpu.jobs)
	if n <= s.workers {
		return 1
	}
	return float64(s.workers) / float64(n)
}

// advanceShared brings the virtual work and CPU clocks up to now. Paused or down, nothing runs.
func (s *Server) advanceShared(now sim.Time) {
	c := &s.cpu
	if now > c.last && len(c.jobs) > 0 && !s.paused && !s.down {
		dt := float64(now.Sub(c.last))
		sh := s.share()
		c.v += float64(dt * sh * s.speed)
		c.cpu += float64(dt * sh)
	}
	c.last = now
}

// startShared puts j on the shared cores at now: a command (after the checks a dequeued command
// gets), a costly rejection or a connection's handshake work.
func (s *Server) startShared(now sim.Time, j *job) {
	if s.answeredBeforeWork(now, j) {
		return
	}
	s.integrate(now)
	s.advanceShared(now)
	var d time.Duration
	switch {
	case j.reject:
		d = s.cfg.RejectCost
	case j.hs:
		d = s.cfg.HandshakeWork
	default:
		n := float64(len(s.cpu.jobs) + 1)
		base := s.service[j.req.Cmd].Sample(s.svcRNG)
		slow := 1 + float64(s.cfg.USLSigma*(n-1)) + float64(s.cfg.USLKappa*n*(n-1))
		d = time.Duration(float64(base)*slow) + time.Duration(n)*s.cfg.InFlightPenalty
	}
	c := &s.cpu
	c.seq++
	j.state, j.start, j.c0 = jsRunning, now, c.cpu
	if s.obs != nil {
		s.observeStarted(now, j, 0)
	}
	j.vEnd, j.pseq, j.natural = c.v+float64(d), c.seq, sim.Never
	heap.Push(&c.jobs, j)
	s.busy = min(len(c.jobs), s.workers)
	s.scheduleFinish(now, j)
	s.rescheduleShared(now)
}

// leaveShared takes j off the shared cores at now (it ended, hit its deadline, or was
// interrupted) and accounts its CPU time.
func (s *Server) leaveShared(now sim.Time, j *job) {
	s.integrate(now)
	s.advanceShared(now)
	if j.hidx >= 0 && j.hidx < len(s.cpu.jobs) && s.cpu.jobs[j.hidx] == j {
		heap.Remove(&s.cpu.jobs, j.hidx)
	}
	s.busy = min(len(s.cpu.jobs), s.workers)
	s.accountBusy(now, j)
	s.rescheduleShared(now)
}

// rescheduleShared sets the one timer for the running command that ends first, at the first
// whole nanosecond by which it has received all its work at the current rate.
func (s *Server) rescheduleShared(now sim.Time) {
	c := &s.cpu
	s.loop.Cancel(c.timer)
	c.timer = sim.Timer{}
	if len(c.jobs) == 0 || s.paused || s.down {
		return
	}
	rate := s.share() * s.speed
	dt := math.Ceil(math.Max(c.jobs[0].vEnd-c.v, 0) / rate)
	if dt > float64(math.MaxInt64/2) {
		dt = float64(math.MaxInt64 / 2)
	}
	c.timer = s.loop.At(now.Add(time.Duration(dt)), s, evSharedDone, nil)
}

// sharedDone ends every running command that has received its work by now.
func (s *Server) sharedDone(now sim.Time) {
	c := &s.cpu
	c.timer = sim.Timer{}
	s.advanceShared(now)
	// The timer fires at the first whole nanosecond after the exact end, so v has passed every
	// such end but for floating-point rounding, which the slack covers (far below a nanosecond
	// of work).
	slack := float64(1e-9*math.Abs(c.v)) + 1e-3
	for len(c.jobs) > 0 && c.jobs[0].vEnd <= c.v+slack {
		j := c.jobs[0]
		s.loop.Cancel(j.timer)
		j.timer = sim.Timer{}
		j.natural = now
		s.finish(now, j)
	}
	s.rescheduleShared(now)
}

// accountSharedBusy counts j's CPU time on the shared cores since it was last counted as busy
// (and, for a rejection, or the part after its client gave up, as wasted: the CPU time spread
// evenly over the wall time, since the share varied in between), and restarts the count at now.
func (s *Server) accountSharedBusy(now sim.Time, j *job) {
	busy := time.Duration(s.cpu.cpu - j.c0)
	s.stats.BusyTime += busy
	switch {
	case j.reject:
		s.stats.RejectBusyTime += busy
		s.stats.WastedBusyTime += busy
	case j.req.GiveUpAt < now && now > j.start:
		after := now.Sub(max(j.start, j.req.GiveUpAt))
		s.stats.WastedBusyTime += time.Duration(float64(busy) * float64(after) / float64(now.Sub(j.start)))
	}
	j.start, j.c0 = now, s.cpu.cpu
}
