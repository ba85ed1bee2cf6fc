package results

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/overloadsim/overloadsim/sim"
)

// FaultWindow is a trigger: a fault active from Start to End (End = Start for an instantaneous
// fault such as a stepdown).
type FaultWindow struct {
	Name       string
	Start, End sim.Time
}

// Series is a run's time series. Groups and Servers are in (End, Name) order; every interval
// but possibly the last is Interval long. Faults are in (Start, Name) order.
type Series struct {
	Interval time.Duration
	Groups   []GroupInterval
	Servers  []ServerInterval
	// Shards holds each mongos's per-shard statistics, in (End, mongos, shard order) order;
	// empty without mongos nodes.
	Shards []ShardInterval
	Faults []FaultWindow
	// ErrClasses names the indices of the groups' FailedByClass, RetryReasons those of their
	// RetriedByReason and NotRetriedByReason: the model's names, carried with its records.
	ErrClasses, RetryReasons []string
	// Recovery is the rule Recoveries judges the triggers by (zero: the defaults).
	Recovery RecoveryRule
}

// End returns the end of the last interval (0 for an empty series).
func (s *Series) End() sim.Time {
	var end sim.Time
	if n := len(s.Groups); n > 0 {
		end = s.Groups[n-1].End
	}
	if n := len(s.Servers); n > 0 {
		end = max(end, s.Servers[n-1].End)
	}
	return end
}

// Recorder samples sources every interval of virtual time and files the latencies it is told
// of. It knows records, not the model: each group, server and mongos is a source, a function
// that returns the source's record with counters cumulative since time 0, and the recorder
// takes differences at every interval end. It implements sim.Handler for its own sampling
// events.
//
// Use: NewRecorder; AddGroup for each group (filing latencies through the GroupTrack it
// returns), AddServer for each server, AddShards for each mongos, AddFault for each trigger;
// Start, run the loop, Finish.
type Recorder struct {
	loop     *sim.Loop
	interval time.Duration
	groups   []*GroupTrack
	servers  []*serverTrack
	routers  []*shardTrack
	faults   []FaultWindow
	from     sim.Time // start of the interval being recorded
	finished bool
	series   Series
}

// GroupTrack is one group being recorded: its source, its last reading and the latencies of
// the interval being recorded.
type GroupTrack struct {
	name             string
	read             func() GroupInterval
	prev             GroupInterval
	success, failure Histogram
	attempt          Histogram
}

// Op files the latency of an application operation that finished now: from issue to final
// result, a success or a failure.
func (t *GroupTrack) Op(ok bool, d time.Duration) {
	if ok {
		t.success.Record(d)
	} else {
		t.failure.Record(d)
	}
}

// Attempt files the latency of an attempt that ended now: from sending the command to its reply
// or to the deadline that abandoned it.
func (t *GroupTrack) Attempt(d time.Duration) { t.attempt.Record(d) }

type serverTrack struct {
	name string
	read func(now sim.Time) ServerInterval
	prev ServerInterval
}

type shardTrack struct {
	mongos string
	read   func() []ShardInterval
	prev   []ShardInterval
}

// Names are the names a model gives to the indices of the records' count slices.
type Names struct {
	// ErrClasses name GroupInterval.FailedByClass's indices, in order.
	ErrClasses []string
	// RetryReasons name GroupInterval.RetriedByReason's and NotRetriedByReason's indices.
	RetryReasons []string
}

// NewRecorder returns a recorder that samples every interval on loop, its series naming the
// count slices' indices by names. It panics if interval is not positive.
func NewRecorder(loop *sim.Loop, interval time.Duration, names Names) *Recorder {
	if interval <= 0 {
		panic(fmt.Sprintf("results: NewRecorder: interval %v must be > 0", interval))
	}
	return &Recorder{loop: loop, interval: interval, from: loop.Now(),
		series: Series{Interval: interval, ErrClasses: names.ErrClasses, RetryReasons: names.RetryReasons}}
}

// AddGroup starts recording the group called name, whose cumulative record read returns (its
// Start, End, Name and latencies are ignored); its counters count from now. It returns the
// track to file the group's latencies through.
func (r *Recorder) AddGroup(name string, read func() GroupInterval) *GroupTrack {
	t := &GroupTrack{name: name, read: read, prev: read()}
	t.prev.End = r.loop.Now()
	r.groups = append(r.groups, t)
	slices.SortStableFunc(r.groups, func(a, b *GroupTrack) int { return cmp.Compare(a.name, b.name) })
	return t
}

// AddServer starts recording the server called name, whose cumulative record at now read
// returns (its Start, End and Name are ignored); its counters count from now.
func (r *Recorder) AddServer(name string, read func(now sim.Time) ServerInterval) {
	now := r.loop.Now()
	t := &serverTrack{name: name, read: read, prev: read(now)}
	t.prev.End = now
	r.servers = append(r.servers, t)
	slices.SortStableFunc(r.servers, func(a, b *serverTrack) int { return cmp.Compare(a.name, b.name) })
}

// AddShards starts recording the per-shard statistics of the mongos called mongos: read
// returns one cumulative record per shard, always the same shards in the same order (their
// Start, End and Mongos are ignored); its counters count from now.
func (r *Recorder) AddShards(mongos string, read func() []ShardInterval) {
	t := &shardTrack{mongos: mongos, read: read, prev: read()}
	for i := range t.prev {
		t.prev[i].End = r.loop.Now()
	}
	r.routers = append(r.routers, t)
	slices.SortStableFunc(r.routers, func(a, b *shardTrack) int { return cmp.Compare(a.mongos, b.mongos) })
}

// AddFault records a trigger window, for shading in plots and for recovery times. end = start
// for an instantaneous fault.
func (r *Recorder) AddFault(name string, start, end sim.Time) {
	r.faults = append(r.faults, FaultWindow{Name: name, Start: start, End: max(start, end)})
}

// Start schedules the sampling: one event every interval from now (at interval, 2·interval, …
// when started at time 0), each closing the interval that ends there.
func (r *Recorder) Start() {
	r.from = r.loop.Now()
	r.loop.After(r.interval, r, 0, nil)
}

// HandleEvent implements sim.Handler: it closes the interval ending now and schedules the next.
func (r *Recorder) HandleEvent(now sim.Time, _ int, _ any) {
	if r.finished {
		return
	}
	r.close(now)
	r.loop.After(r.interval, r, 0, nil)
}

// SoFar returns the series of the intervals closed so far, for a caller that steps the loop and
// watches the run as it goes (a rare-event estimator's score). It is the recorder's own series:
// read it between loop steps, never keep it across one.
func (r *Recorder) SoFar() *Series { return &r.series }

// Finish closes the last, possibly partial, interval at now and returns the series. Later
// sampling events do nothing; calling Finish again returns the same series.
func (r *Recorder) Finish(now sim.Time) *Series {
	if !r.finished {
		if now > r.from {
			r.close(now)
		}
		r.finished = true
		faults := slices.Clone(r.faults)
		slices.SortStableFunc(faults, func(a, b FaultWindow) int {
			return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.Name, b.Name))
		})
		r.series.Faults = faults
	}
	return &r.series
}

// close ends the interval [r.from, now): every source is read, and the difference from its
// last reading is the interval's record.
func (r *Recorder) close(now sim.Time) {
	from := r.from
	for _, t := range r.groups {
		cur := t.read()
		cur.End = now
		row := cur
		row.Sub(&t.prev)
		row.Start, row.Name = from, t.name
		row.Success, row.Failure, row.Attempt = t.success, t.failure, t.attempt
		t.success, t.failure, t.attempt = Histogram{}, Histogram{}, Histogram{}
		t.prev = cur
		r.series.Groups = append(r.series.Groups, row)
	}
	for _, t := range r.servers {
		cur := t.read(now)
		cur.End = now
		row := cur
		row.Sub(&t.prev)
		row.Start, row.Name = from, t.name
		t.prev = cur
		r.series.Servers = append(r.series.Servers, row)
	}
	for _, t := range r.routers {
		cur := t.read()
		for i := range cur {
			cur[i].End = now
			row := cur[i]
			row.Sub(&t.prev[i])
			row.Start, row.Mongos = from, t.mongos
			r.series.Shards = append(r.series.Shards, row)
		}
		t.prev = cur
	}
	r.from = now
}

// rate returns n per second over secs seconds.
func rate(n uint64, secs float64) float64 {
	if secs <= 0 {
		return math.NaN()
	}
	return float64(n) / secs
}

// ratio returns a ÷ b, NaN when b is 0.
func ratio(a, b uint64) float64 {
	if b == 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}

// fratio returns a ÷ b, NaN when b is not positive.
func fratio(a, b float64) float64 {
	if !(b > 0) {
		return math.NaN()
	}
	return a / b
}
