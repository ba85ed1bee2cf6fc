package record

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/overloadsim/overloadsim/client"
	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/server"
	"github.com/overloadsim/overloadsim/server/mongos"
	"github.com/overloadsim/overloadsim/sim"
)

// Recorder records a world. Every interval of virtual time it samples the model's groups,
// servers and mongos routers: each is a source, a function that returns its record with
// counters cumulative since it was created (Group, Server, Shards), and the recorder takes the
// differences at every interval end. It is also the observer of the groups' operations and of
// their clients' attempts, filing each latency under the interval in which it ended; observers
// are attached here and nowhere else. It implements sim.Handler for its own sampling events.
//
// Use: New; AddGroup for each group, AddNode for each node, AddRouter for each mongos, AddFault
// for each trigger; Start, run the loop, Finish.
type Recorder struct {
	loop     *sim.Loop
	interval time.Duration
	groups   []*groupTrack // in name order, as the series' rows
	servers  []*serverTrack
	routers  []*shardTrack
	faults   []results.FaultWindow
	from     sim.Time // start of the interval being recorded
	finished bool
	series   results.Series
	// byGroup is each recorded group's track.
	byGroup map[*client.Group]*groupTrack
	// nodes are the nodes recorded, with when each was added; status, their serverStatus
	// collectors, nil unless CollectStatus was called.
	nodes  map[*server.Server]sim.Time
	status map[*server.Server]*statusNode
	// The last group an operation or attempt ended in, and its track: most runs have one group,
	// and a map lookup per attempt would cost more than the rest of recording it.
	lastGroup *client.Group
	lastTrack *groupTrack
}

var (
	_ client.Observer        = (*Recorder)(nil)
	_ client.AttemptObserver = (*Recorder)(nil)
)

// groupTrack is one group being recorded: its source, its last reading and the latencies of
// the interval being recorded.
type groupTrack struct {
	name             string
	read             func() results.GroupInterval
	prev             results.GroupInterval
	success, failure results.Histogram
	attempt          results.Histogram
}

// op files the latency of an application operation that finished now: from issue to final
// result, a success or a failure.
func (t *groupTrack) op(ok bool, d time.Duration) {
	if ok {
		t.success.Record(d)
	} else {
		t.failure.Record(d)
	}
}

// attemptDone files the latency of an attempt that ended now: from sending the command to its
// reply or to the deadline that abandoned it.
func (t *groupTrack) attemptDone(d time.Duration) { t.attempt.Record(d) }

// serverTrack is one node being recorded: its source and its last reading.
type serverTrack struct {
	name string
	read func(now sim.Time) results.ServerInterval
	prev results.ServerInterval
}

// shardTrack is one mongos being recorded: its source of per-shard records and their last
// reading.
type shardTrack struct {
	mongos string
	read   func() []results.ShardInterval
	prev   []results.ShardInterval
}

// New returns a recorder that samples every interval on loop. It panics if interval is not
// positive.
func New(loop *sim.Loop, interval time.Duration) *Recorder {
	return newRecorder(loop, interval, Names())
}

// newRecorder is New with the names of the records' count slices given.
func newRecorder(loop *sim.Loop, interval time.Duration, names results.Names) *Recorder {
	if interval <= 0 {
		panic(fmt.Sprintf("record: New: interval %v must be > 0", interval))
	}
	return &Recorder{loop: loop, interval: interval, from: loop.Now(),
		series:  results.Series{Interval: interval, ErrClasses: names.ErrClasses, RetryReasons: names.RetryReasons},
		byGroup: map[*client.Group]*groupTrack{}, nodes: map[*server.Server]sim.Time{}}
}

// AddGroup starts recording g: its counters count from now, and the recorder becomes the
// observer of the group's operations and of its clients' attempts. Adding a group twice does
// nothing.
func (r *Recorder) AddGroup(g *client.Group) {
	if _, ok := r.byGroup[g]; ok {
		return
	}
	r.byGroup[g] = r.addGroup(g.Name(), func() results.GroupInterval { return Group(g) })
	g.SetObserver(r)
	for _, c := range g.Clients() {
		c.SetAttemptObserver(r)
	}
}

// addGroup starts recording the group called name, whose cumulative record read returns (its
// Start, End, Name and latencies are ignored); its counters count from now. It returns the
// track to file the group's latencies through.
func (r *Recorder) addGroup(name string, read func() results.GroupInterval) *groupTrack {
	t := &groupTrack{name: name, read: read, prev: read()}
	t.prev.End = r.loop.Now()
	r.groups = append(r.groups, t)
	slices.SortStableFunc(r.groups, func(a, b *groupTrack) int { return cmp.Compare(a.name, b.name) })
	return t
}

// AddNode starts recording s; its counters count from now. Each reading of the node also takes
// its serverStatus document, once CollectStatus has been called.
func (r *Recorder) AddNode(s *server.Server) {
	r.nodes[s] = r.loop.Now()
	r.addServer(s.Address(), func(now sim.Time) results.ServerInterval {
		st := s.Snapshot(now)
		if n := r.status[s]; n != nil {
			n.take(now, &st)
		}
		return serverRecord(s, &st)
	})
}

// addServer starts recording the server called name, whose cumulative record at now read
// returns (its Start, End and Name are ignored); its counters count from now.
func (r *Recorder) addServer(name string, read func(now sim.Time) results.ServerInterval) {
	now := r.loop.Now()
	t := &serverTrack{name: name, read: read, prev: read(now)}
	t.prev.End = now
	r.servers = append(r.servers, t)
	slices.SortStableFunc(r.servers, func(a, b *serverTrack) int { return cmp.Compare(a.name, b.name) })
}

// AddRouter starts recording the per-shard statistics of the mongos called name; its counters
// count from now.
func (r *Recorder) AddRouter(name string, rt *mongos.Router) {
	r.addShards(name, func() []results.ShardInterval { return Shards(rt) })
}

// addShards starts recording the per-shard statistics of the mongos called mongos: read
// returns one cumulative record per shard, always the same shards in the same order (their
// Start, End and Mongos are ignored); its counters count from now.
func (r *Recorder) addShards(mongos string, read func() []results.ShardInterval) {
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
	r.faults = append(r.faults, results.FaultWindow{Name: name, Start: start, End: max(start, end)})
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
func (r *Recorder) SoFar() *results.Series { return &r.series }

// Finish closes the last, possibly partial, interval at now and returns the series. Later
// sampling events do nothing; calling Finish again returns the same series.
func (r *Recorder) Finish(now sim.Time) *results.Series {
	if !r.finished {
		if now > r.from {
			r.close(now)
		}
		r.finished = true
		faults := slices.Clone(r.faults)
		slices.SortStableFunc(faults, func(a, b results.FaultWindow) int {
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
		t.success, t.failure, t.attempt = results.Histogram{}, results.Histogram{}, results.Histogram{}
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

// AppOperationDone implements client.Observer: it files the operation's latency under the
// interval in which it finished.
func (r *Recorder) AppOperationDone(now sim.Time, g *client.Group, res *client.AppResult) {
	if t := r.track(g); t != nil {
		t.op(res.OK, res.Done.Sub(res.Issued))
	}
}

// AttemptDone implements client.AttemptObserver: it files an attempt's latency under the
// interval in which it ended.
func (r *Recorder) AttemptDone(now sim.Time, c *client.Client, sent sim.Time, ok bool) {
	if t := r.track(c.Group()); t != nil {
		t.attemptDone(now.Sub(sent))
	}
}

// track returns the track of g, nil if g is not recorded.
func (r *Recorder) track(g *client.Group) *groupTrack {
	if g != r.lastGroup {
		r.lastGroup, r.lastTrack = g, r.byGroup[g]
	}
	return r.lastTrack
}
