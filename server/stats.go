package server

import (
	"time"

	"github.com/overloadsim/overloadsim/sim"
)

//go:generate go run github.com/overloadsim/overloadsim/internal/countergen -type=Stats

// Stats mirrors the parts of serverStatus the model keeps. Counters are cumulative since the
// node was created; a recorder takes differences between intervals (Sub). Gauges, tagged
// counter:"gauge", are filled by Snapshot at the moment it is taken; Add and Sub leave them at
// the receiver's value.
type Stats struct {
	// network.ingressRequestRateLimiter
	AttemptedAdmissions  uint64 // excludes exemptions
	SuccessfulAdmissions uint64
	RejectedAdmissions   uint64
	ExemptedAdmissions   uint64
	AddedToQueue         uint64
	RemovedFromQueue     uint64
	RequestLimiterTokens float64 `counter:"gauge"` // totalAvailableTokens (+Inf when the limiter is off)
	RequestLimiterQueued int     `counter:"gauge"`

	// queues.ingressSessionEstablishment and connections.*
	ConnAttemptedAdmissions  uint64
	ConnSuccessfulAdmissions uint64
	ConnRejected             uint64 // establishmentRateLimit.rejected: closed by the server
	ConnAddedToQueue         uint64
	ConnRemovedFromQueue     uint64
	ConnInterruptedInQueue   uint64 // interruptedDueToClientDisconnect: connectTimeoutMS passed
	ConnAbandoned            uint64 // handshakes finished after the client gave up
	ConnCreated              uint64
	ConnLimiterTokens        float64 `counter:"gauge"`
	ConnectionsCurrent       int     `counter:"gauge"`
	ConnectionsQueued        int     `counter:"gauge"` // queuedForEstablishment

	// execution
	Enqueued              uint64        // commands that joined the worker queue
	Dequeued              uint64        // commands that left it for a worker
	QueueWait             time.Duration // total time dequeued commands waited
	QueueOverflows        uint64        // AdmissionQueueOverflow (433) rejections
	Completed             uint64        // commands that executed to the end
	MaxTimeExpired        uint64        // commands aborted with MaxTimeMSExpired (50)
	Errors                uint64        // error replies of every kind
	NetErrors             uint64        // requests answered with a closed connection
	FailPointErrors       uint64        // error replies a failpoint injected
	ClosedByFailPoint     uint64        // connections a failpoint closed
	InterruptedByStepDown uint64        // writes killed by a stepdown (11602)
	NotMyVbucket          uint64        // KV requests a rebalancing Couchbase node turned away
	Routed                uint64        // commands a mongos handed to its router
	RoutedAnswered        uint64        // routed commands the router answered
	RoutedErrors          uint64        // routed commands answered with an error
	BusyTime              time.Duration // worker time spent, rejections included
	RejectBusyTime        time.Duration // worker time spent rejecting
	WastedBusyTime        time.Duration // rejections + work finished after its client gave up
	OpsInProgress         int           `counter:"gauge"` // busy workers
	Queued                int           `counter:"gauge"` // commands waiting for a worker
	Workers               int           `counter:"gauge"` // current worker count

	// pauses (Pause)
	PausedTime   time.Duration // total time paused, a pause in progress up to now
	HeldMessages uint64        // messages that reached the node while paused, handled at resume

	// Time integrals since creation (seconds × count), for utilisation and Little's law.
	BusyArea      float64 // ∫ busy workers dt while not paused (frozen work is not busy)
	CapacityArea  float64 // ∫ workers dt while up and not paused
	QueueArea     float64 // ∫ worker-queue length dt
	ConnQueueArea float64 // ∫ connection-queue length dt
	ReqQueueArea  float64 // ∫ request-limiter queue length dt
	// Total time spent in the limiter queues by those who left them (admitted, gave up or
	// reset); with QueueWait these give Little's law on every queue.
	ReqQueueWait  time.Duration
	ConnQueueWait time.Duration

	Down   bool `counter:"gauge"`
	Paused bool `counter:"gauge"`
}

// Snapshot returns the node's statistics at now.
func (s *Server) Snapshot(now sim.Time) Stats {
	s.integrate(now)
	st := s.stats
	st.BusyArea, st.CapacityArea, st.QueueArea = s.busyArea, s.capArea, s.queueArea
	st.ConnQueueArea, st.ReqQueueArea = s.connQueueArea, s.reqQueueArea
	st.OpsInProgress, st.Queued, st.Workers = s.busy, s.work.n, s.workers
	st.ConnectionsCurrent, st.ConnectionsQueued = len(s.conns), s.connQueued
	st.RequestLimiterQueued = s.reqQueued
	st.RequestLimiterTokens, st.ConnLimiterTokens = inf, inf
	if s.reqTB != nil {
		st.RequestLimiterTokens = s.reqTB.Tokens(now)
	}
	if s.connTB != nil {
		st.ConnLimiterTokens = s.connTB.Tokens(now)
	}
	st.Down, st.Paused = s.down, s.paused
	if s.paused {
		st.PausedTime += now.Sub(s.pauseStart)
	}
	return st
}
