package bench

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/overloadsim/overloadsim/scenarios"
	"github.com/overloadsim/overloadsim/wire"
)

// EventsPerOperation is the loop events one application operation costs in a healthy run of the
// library's scenarios (arrival, request and reply on the wire, admission, service, completion,
// with monitoring, sampling and the odd retry spread over it), measured as sim.Loop.Fired ÷
// operations issued; retry storms cost several times more. Cost estimates use it to refuse work
// that cannot finish before running any of it.
const EventsPerOperation = 12

// EstimatedEvents returns about how many loop events one run of sc handles: the operations
// offered with its load faults (Scenario.OfferedUnderLoadFaults: a surge of ×1 000 for a minute
// offers a thousand times that minute's operations) × EventsPerOperation.
func EstimatedEvents(sc *scenarios.Scenario) float64 {
	return float64(sc.OfferedUnderLoadFaults() * EventsPerOperation)
}

// Figures behind Cost, each measured on this model (the sources are named), rounded up. They
// describe a healthy run: a retry storm costs several times the events, and every request
// left queued some 350 bytes more (cmd/simulate BenchmarkStuckRun).
const (
	// EventsPerHeartbeat is the loop events one server check of one client costs at most: a
	// MongoClient checks each node it reaches every heartbeatFrequencyMS. Measured at 3.5 events
	// per client and node per check on cmd/simulate/testdata/scale.yaml with its load turned
	// off when each check and its timeout were loop events of their own; since they wait on the
	// group's delay lines (docs/model.md §2) a check costs about 2 (the hello at the node and its
	// reply, client TestFleetHeartbeatsShareOneLine), and 4 stays as the bound.
	EventsPerHeartbeat = 4
	// BytesPerClient is the heap of one MongoClient with its pool, monitors and retry state:
	// 8.4 KB at 1 000 clients, 6.1 KB at 100 000 (cmd/simulate BenchmarkScale, README).
	BytesPerClient = 9 << 10
	// BytesPerGroupInterval is the recorder's row of one client group for one interval
	// (results.GroupInterval): its counters and three latency histograms (success, failure,
	// attempt), 6.2 KB for a group of 1 500 operations/s at 1 s intervals.
	BytesPerGroupInterval = 6500
	// BytesPerServerInterval is the recorder's row of one node for one interval
	// (results.ServerInterval), some 180 bytes; a mongos's row per shard (results.ShardInterval)
	// is smaller and counted the same.
	BytesPerServerInterval = 200
)

// Cost is what one run of a scenario is expected to take, estimated from the scenario alone,
// without building anything: a command can refuse a run that cannot finish, or would not fit
// in memory, before starting it. The figures are of one run; a sweep makes one per point and
// replication.
type Cost struct {
	// Events is the loop events: EstimatedEvents (the offered operations ×
	// EventsPerOperation), the clients' monitoring (EventsPerHeartbeat per client and node
	// per heartbeatFrequencyMS) and the recorder's sampling (one per interval).
	Events float64
	// Intervals is the intervals recorded: duration ÷ interval, rounded up.
	Intervals int64
	// Clients is the MongoClients of every group together.
	Clients int64
	// Bytes is the peak heap: BytesPerClient per client, and per interval a row per group
	// (BytesPerGroupInterval), per node and per mongos and shard (BytesPerServerInterval).
	Bytes float64
}

// Estimate estimates what one run of sc takes (see Cost). It reads only the scenario's fields,
// in time proportional to its size, however long or large the run it describes.
func Estimate(sc *scenarios.Scenario) Cost { return costAt(sc, sc.Interval) }

// Cost estimates what one trajectory of m takes: a run of its scenario recorded every Step
// rather than every interval, so a finer Step costs a row and a sampling event per checkpoint
// (--step 1ns over a minute is 6e10 of each).
func (m *SplitModel) Cost() Cost { return costAt(m.Scenario, m.step()) }

// costAt is Estimate with the recorder sampling every interval.
func costAt(s *scenarios.Scenario, interval time.Duration) Cost {
	var c Cost
	if interval > 0 && s.Duration > 0 {
		c.Intervals = int64(s.Duration / interval)
		if s.Duration%interval != 0 {
			c.Intervals++
		}
	}
	heartbeats := 0.0
	for i := range s.Clients {
		g := &s.Clients[i]
		n := int64(max(g.Count, 0))
		c.Clients += n
		if hb := g.Driver.HeartbeatFrequency; hb > 0 && s.Duration > 0 {
			heartbeats += float64(float64(n) * float64(len(s.Topology.Hosts(g))) * (s.Duration.Seconds() / hb.Seconds()))
		}
	}
	c.Events = EstimatedEvents(s) + float64(heartbeats*EventsPerHeartbeat) + float64(c.Intervals)
	mongoses, shards := 0, map[string]bool{}
	for _, n := range s.Topology.Nodes {
		switch {
		case n.Role == wire.Mongos:
			mongoses++
		case n.Shard != "":
			shards[n.Shard] = true
		}
	}
	rowBytes := float64(float64(len(s.Clients))*BytesPerGroupInterval) +
		float64(float64(len(s.Topology.Nodes)+mongoses*len(shards))*BytesPerServerInterval)
	c.Bytes = float64(float64(c.Clients)*BytesPerClient) + float64(float64(c.Intervals)*rowBytes)
	return c
}

// Seconds estimates the wall-clock seconds of the run on a machine that handles eventsPerSecond
// loop events a second (one core does some 2–4 million; see the README's benchmarks): Events ÷
// eventsPerSecond, +Inf when eventsPerSecond is not positive.
func (c Cost) Seconds(eventsPerSecond float64) float64 {
	if !(eventsPerSecond > 0) {
		return math.Inf(1)
	}
	return c.Events / eventsPerSecond
}

// String describes c in words and round figures: "≈ 7.2e9 events, 12 GiB, 3.6e6 intervals,
// 100 clients".
func (c Cost) String() string {
	return "≈ " + approx(c.Events) + " events, " + approxBytes(c.Bytes) + ", " +
		approx(float64(c.Intervals)) + " intervals, " + approx(float64(c.Clients)) + " clients"
}

// approx prints x as a whole number below 100 000 (86400), else to two significant digits
// (7.2e9).
func approx(x float64) string {
	switch {
	case math.IsNaN(x):
		return "?"
	case math.IsInf(x, 0):
		return "∞"
	case math.Abs(x) < 1e5:
		return strconv.FormatFloat(math.Round(x), 'f', -1, 64)
	}
	s := strconv.FormatFloat(x, 'e', 1, 64) // 7.2e+09
	mant, exp, _ := strings.Cut(s, "e")
	mant = strings.TrimSuffix(mant, ".0")
	exp = strings.TrimLeft(strings.TrimPrefix(exp, "+"), "0")
	return mant + "e" + exp
}

// approxBytes prints n bytes in binary units, as a whole number from 10 of a unit and to one
// decimal below: 850 MiB, 12 GiB, 1.5 TiB.
func approxBytes(n float64) string {
	if math.IsNaN(n) || math.IsInf(n, 0) {
		return approx(n) + " bytes"
	}
	units := []string{"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	u := 0
	for u < len(units)-1 && math.Abs(n) >= 1024 {
		n /= 1024
		u++
	}
	var s string
	switch {
	case u == 0 || math.Abs(n) >= 10 && math.Abs(n) < 1e5:
		s = strconv.FormatFloat(math.Round(n), 'f', -1, 64)
	case math.Abs(n) < 10:
		s = strings.TrimSuffix(strconv.FormatFloat(n, 'f', 1, 64), ".0")
	default:
		s = approx(n)
	}
	return s + " " + units[u]
}
