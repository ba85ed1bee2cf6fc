package bench

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/client"
	"github.com/overloadsim/overloadsim/scenarios"
	"github.com/overloadsim/overloadsim/sim"
)

// TestCostLibrary: the cost of every library scenario is worked out from its fields: its
// intervals, its clients, at least its offered operations' events, and memory for its clients
// and its recorder's rows; all of them modest.
func TestCostLibrary(t *testing.T) {
	for _, name := range scenarios.Names() {
		sc, err := scenarios.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		c := Estimate(sc)
		intervals := int64(math.Ceil(float64(sc.Duration) / float64(sc.Interval)))
		var clients int64
		for _, g := range sc.Clients {
			clients += int64(g.Count)
		}
		rows := float64(intervals) * (float64(len(sc.Clients))*BytesPerGroupInterval + float64(len(sc.Topology.Nodes))*BytesPerServerInterval)
		switch {
		case c.Intervals != intervals:
			t.Errorf("%s: Intervals = %d, want %d", name, c.Intervals, intervals)
		case c.Clients != clients:
			t.Errorf("%s: Clients = %d, want %d", name, c.Clients, clients)
		case c.Events < EstimatedEvents(sc)+float64(intervals) || c.Events > 2*EstimatedEvents(sc)+1e6:
			t.Errorf("%s: Events = %g, want at least the operations' %g, and not far above", name, c.Events, EstimatedEvents(sc))
		case c.Bytes < float64(clients)*BytesPerClient+rows:
			t.Errorf("%s: Bytes = %g, want at least %g", name, c.Bytes, float64(clients)*BytesPerClient+rows)
		case c.Events > 1e8 || c.Bytes > 1<<30:
			t.Errorf("%s: Cost = %v: a library scenario is small", name, c)
		case !strings.HasPrefix(c.String(), "≈ ") || !strings.Contains(c.String(), " events, "):
			t.Errorf("%s: String() = %q", name, c)
		}
	}
}

// TestCost: hand-computed costs, the extreme ones included: each is read from the fields, at
// once, however large the run.
func TestCost(t *testing.T) {
	const hb = 10 // default heartbeatFrequencyMS, in seconds
	for _, tc := range []struct {
		gloss, src string
		want       Cost
		text       string
	}{
		{"minimal: 100/s for 10 s on one node", hostileBase,
			Cost{Events: 100*10*EventsPerOperation + 1*1*10/hb*EventsPerHeartbeat + 10, Intervals: 10, Clients: 1,
				Bytes: BytesPerClient + 10*(BytesPerGroupInterval+BytesPerServerInterval)},
			"≈ 12014 events, 74 KiB, 10 intervals, 1 clients"},
		{"a partial last interval counts", strings.Replace(hostileBase, "10s", "10500ms", 1),
			Cost{Events: 100*10.5*EventsPerOperation + 10.5/hb*EventsPerHeartbeat + 11, Intervals: 11, Clients: 1,
				Bytes: BytesPerClient + 11*(BytesPerGroupInterval+BytesPerServerInterval)},
			"≈ 12615 events, 81 KiB, 11 intervals, 1 clients"},
		{"duration 1e9 s", strings.Replace(hostileBase, "10s", "1000000000s", 1),
			Cost{Events: 100*1e9*EventsPerOperation + 1e9/hb*EventsPerHeartbeat + 1e9, Intervals: 1e9, Clients: 1,
				Bytes: BytesPerClient + 1e9*(BytesPerGroupInterval+BytesPerServerInterval)},
			"≈ 1.2e12 events, 6.1 TiB, 1e9 intervals, 1 clients"},
		{"interval 1ns", hostileBase + "interval: 1ns\n",
			Cost{Events: 100*10*EventsPerOperation + 10/hb*EventsPerHeartbeat + 1e10, Intervals: 1e10, Clients: 1,
				Bytes: BytesPerClient + 1e10*(BytesPerGroupInterval+BytesPerServerInterval)},
			"≈ 1e10 events, 61 TiB, 1e10 intervals, 1 clients"},
		{"100 groups of 100 000 clients", "duration: 10s\n" + groups(100, 100_000, "1000/s"),
			Cost{Events: 100*1000*10*EventsPerOperation + 1e7*10/hb*EventsPerHeartbeat + 10, Intervals: 10, Clients: 1e7,
				Bytes: 1e7*BytesPerClient + 10*(100*BytesPerGroupInterval+BytesPerServerInterval)},
			"≈ 5.2e7 events, 86 GiB, 10 intervals, 1e7 clients"},
		{"closed loop: threads × count over think + 1 ms", "duration: 10s\nclients: [{name: a, count: 10, workload: {threads: 4, think: 9ms}}]\n",
			Cost{Events: 10*4*10/0.01*EventsPerOperation + 10*10/hb*EventsPerHeartbeat + 10, Intervals: 10, Clients: 10,
				Bytes: 10*BytesPerClient + 10*(BytesPerGroupInterval+BytesPerServerInterval)},
			"≈ 4.8e5 events, 155 KiB, 10 intervals, 10 clients"},
		{"sharded: clients reach the mongos nodes; rows per mongos and shard", `duration: 10s
topology:
  kind: sharded
  nodes: [{name: m1, role: mongos}, {name: m2, role: mongos}, {name: a, shard: s0}, {name: b, shard: s1}]
clients: [{name: a, count: 5, workload: {rate: 0/s}}]
`,
			Cost{Events: 5*2*10/hb*EventsPerHeartbeat + 10, Intervals: 10, Clients: 5,
				Bytes: 5*BytesPerClient + 10*(BytesPerGroupInterval+(4+2*2)*BytesPerServerInterval)},
			"≈ 50 events, 124 KiB, 10 intervals, 5 clients"},
	} {
		sc, err := scenarios.Parse("cost.yaml", []byte(tc.src))
		if err != nil {
			t.Fatalf("%s: %v", tc.gloss, err)
		}
		var got Cost
		if alloc := measureAlloc(func() { got = Estimate(sc) }); alloc > 64<<10 {
			t.Errorf("%s: Cost allocated %d bytes", tc.gloss, alloc)
		}
		if got.Intervals != tc.want.Intervals || got.Clients != tc.want.Clients ||
			!near(got.Events, tc.want.Events) || !near(got.Bytes, tc.want.Bytes) {
			t.Errorf("%s: Cost() = %+v, want %+v", tc.gloss, got, tc.want)
		}
		if got.String() != tc.text {
			t.Errorf("%s: String() = %q, want %q", tc.gloss, got, tc.text)
		}
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }

// TestCostSeconds: events ÷ events per second; a machine that handles none never finishes.
func TestCostSeconds(t *testing.T) {
	c := Cost{Events: 7.2e9}
	for _, tc := range []struct{ eps, want float64 }{{3e6, 2400}, {1, 7.2e9}, {0, math.Inf(1)}, {-1, math.Inf(1)}, {math.NaN(), math.Inf(1)}} {
		if got := c.Seconds(tc.eps); got != tc.want {
			t.Errorf("Seconds(%v) = %v, want %v", tc.eps, got, tc.want)
		}
	}
}

// TestCostString: round figures, binary units.
func TestCostString(t *testing.T) {
	for _, tc := range []struct {
		c    Cost
		want string
	}{
		{Cost{Events: 7.2e9, Bytes: 12 << 30, Intervals: 3_600_000, Clients: 100}, "≈ 7.2e9 events, 12 GiB, 3.6e6 intervals, 100 clients"},
		{Cost{Events: 0, Bytes: 0}, "≈ 0 events, 0 bytes, 0 intervals, 0 clients"},
		{Cost{Events: 99_999.4, Bytes: 1023, Intervals: 99_999, Clients: 1}, "≈ 99999 events, 1023 bytes, 99999 intervals, 1 clients"},
		{Cost{Events: 1e5, Bytes: 1536, Intervals: 100_000, Clients: 10_000_000}, "≈ 1e5 events, 1.5 KiB, 1e5 intervals, 1e7 clients"},
		{Cost{Events: 1.25e19, Bytes: 850 << 20}, "≈ 1.2e19 events, 850 MiB, 0 intervals, 0 clients"},
		{Cost{Events: math.Inf(1), Bytes: math.Inf(1)}, "≈ ∞ events, ∞ bytes, 0 intervals, 0 clients"},
		{Cost{Bytes: 3 << 60}, "≈ 0 events, 3 EiB, 0 intervals, 0 clients"},
		{Cost{Bytes: 1e25}, "≈ 0 events, 8.7e6 EiB, 0 intervals, 0 clients"},
	} {
		if got := tc.c.String(); got != tc.want {
			t.Errorf("%+v.String() = %q, want %q", tc.c, got, tc.want)
		}
	}
}

// ExampleEstimate: what a day-long run of 100 000 clients costs, read from the scenario
// before anything is built.
func ExampleEstimate() {
	sc, err := scenarios.Parse("day.yaml", []byte(`
duration: 24h
clients: [{name: app, count: 100000, workload: {rate: 10000/s}}]
`))
	if err != nil {
		panic(err)
	}
	c := Estimate(sc)
	fmt.Println(c)
	fmt.Printf("%.0f minutes at 3 million events/s\n", c.Seconds(3e6)/time.Minute.Seconds())
	// Output:
	// ≈ 1.4e10 events, 1.4 GiB, 86400 intervals, 1e5 clients
	// 77 minutes at 3 million events/s
}

// groups returns n client groups of count clients each, at rate each.
func groups(n, count int, rate string) string {
	var b strings.Builder
	b.WriteString("clients:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - {name: g%d, count: %d, workload: {rate: %s}}\n", i, count, rate)
	}
	return b.String()
}

// measureAlloc returns the bytes f allocates, garbage included.
func measureAlloc(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestCostHostile: the valid scenarios among scenarios' hostile cases that describe huge runs
// cost a lot, which Estimate says at once, allocating little.
func TestCostHostile(t *testing.T) {
	huge := func(c Cost) bool { return c.Events > 1e11 || c.Bytes > 1<<40 || c.Intervals > 1e9 }
	for _, tc := range []struct {
		name, src string
		cost      func(Cost) bool
	}{
		{"rate 1e9/s for 1e9 s", "duration: 1000000000s\nclients: [{name: a, workload: {rate: 1e9/s}}]\n", huge},
		{"duration 1e9 s", strings.Replace(hostileBase, "10s", "1000000000s", 1), huge},
		{"interval 1ns", hostileBase + "interval: 1ns\n", huge},
		{"100 groups of 100 000 clients", "duration: 10s\n" + groups(100, 100_000, "1000/s"), func(c Cost) bool {
			return c.Clients == 10_000_000 && c.Bytes > 80<<30
		}},
	} {
		sc, err := scenarios.Parse("hostile.yaml", []byte(tc.src))
		if err != nil {
			t.Fatalf("%s: Parse: %.2000v; want it valid", tc.name, err)
		}
		var c Cost
		if alloc := measureAlloc(func() { c = Estimate(sc) }); alloc > 1<<20 {
			t.Errorf("%s: Estimate allocated %d bytes", tc.name, alloc)
		}
		if !tc.cost(c) {
			t.Errorf("%s: Estimate = %+v (%v), not what the case expects", tc.name, c, c)
		}
	}
}

// localFailures is a closed loop of one thread, with no think time, whose every operation fails
// in the client at once: a Couchbase SDK with the FailFast strategy knows no node while its
// only node is down, which it is for the whole run (NODE_NOT_AVAILABLE, not retried).
const localFailures = `name: local-failures
duration: 1s
topology:
  nodes:
    - {name: cb, flavor: couchbase}
clients:
  - name: app
    driver: {retryPolicy: couchbase-failfast}
    workload: {threads: 1, think: 0s}
    mix: {kvGet: 1}
faults:
  - {at: 0s, kind: down, node: cb, for: 1s}
`

// TestCostLocalFailures pins what the estimate's think + 1 ms cycle leaves to the run-time limits
// (scenarios.Scenario.OfferedOperations): a thread whose operations fail in the client goes
// round every client.MinThreadCycle, a hundred times the operations the estimate counts; what
// holds such a run is MinThreadCycle, which ends it, and RunOptions.Stop, asked between slices
// that shrink to about stopSliceEvents events as the events come faster, which a command's
// limits answer.
func TestCostLocalFailures(t *testing.T) {
	sc, err := scenarios.Parse("local-failures.yaml", []byte(localFailures))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := EstimatedEvents(sc), 1000.0*EventsPerOperation; got != want {
		t.Errorf("EstimatedEvents = %g, want %g: one operation per think + 1 ms", got, want)
	}

	var w *World
	asks := 0
	r, err := RunWith(sc, sc.Seed, 0, RunOptions{Attach: func(world *World) { w = world }, Stop: func() bool { asks++; return false }})
	if err != nil {
		t.Fatal(err)
	}
	spins := uint64(sc.Duration / client.MinThreadCycle)
	if got := r.Summary.Groups[0].Issued; got < spins || got > spins+1 {
		t.Errorf("issued %d operations in 1 s, want one every MinThreadCycle: %d", got, spins)
	}
	if fired := w.Loop.Fired(); uint64(asks)*2*stopSliceEvents < fired {
		t.Errorf("Stop asked %d times in %d events, want about once per %d", asks, fired, stopSliceEvents)
	}

	stopAt := sim.Time(100 * time.Millisecond)
	r, err = RunWith(sc, sc.Seed, 0, RunOptions{Attach: func(world *World) { w = world }, Stop: func() bool { return w.Loop.Now() >= stopAt }})
	if !errors.Is(err, ErrStopped) || r == nil || w.Loop.Now() >= sim.Time(sc.Duration)/2 {
		t.Errorf("a Stop that answers true from 100 ms on: %v at %v, want the run stopped soon after", err, w.Loop.Now())
	}
}
