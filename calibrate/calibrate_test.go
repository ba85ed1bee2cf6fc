package calibrate

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/internal/golden"
	"github.com/overloadsim/overloadsim/results/serverstatus"
	"github.com/overloadsim/overloadsim/scenarios"
	"github.com/overloadsim/overloadsim/server"
)

// datasets are the deployments of testdata (testdata/README.md).
var datasets = []string{"standalone-7.0", "replset-8.0", "sharded-8.2"}

// loadSet loads one dataset by its relative path, so that the paths Calibrate writes into its
// comments are relative and the same on every machine.
func loadSet(t *testing.T, name string) *Inputs {
	t.Helper()
	in, err := Load([]string{filepath.Join("testdata", name)})
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func calibrate(t *testing.T, in *Inputs, opts Options) *Result {
	t.Helper()
	res, err := Calibrate(in, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestCalibrateGolden pins the whole scenario Calibrate writes for each dataset, comments
// included (go test ./calibrate -update rewrites testdata/TestCalibrateGolden).
func TestCalibrateGolden(t *testing.T) {
	for _, name := range datasets {
		t.Run(name, func(t *testing.T) {
			res := calibrate(t, loadSet(t, name), Options{})
			golden.Check(t, filepath.Join("testdata", "TestCalibrateGolden", name+".yaml"), res.YAML)
		})
	}
}

// load is one command's share of a pool: its rate (/s) and nominal service mean (µs).
type load struct{ rate, micros float64 }

// nominal is the mean service time, in seconds, of a pool serving these commands.
func nominal(ls ...load) float64 {
	var n, sum float64
	for _, l := range ls {
		n += l.rate
		sum += float64(l.rate * l.micros)
	}
	return sum / n / 1e6
}

// group is a client group a dataset's scenario must have.
type group struct {
	name, readPref string
	count          int
	rate           float64
	mix            map[string]float64
}

// known are the values testdata/README.md gives for each dataset: the tickets, the nominal
// service means per pool, the pools' processing means (the mean of the two intervals' realized
// means), the limiters, and the load.
var known = []struct {
	dir         string
	workers     map[string]int
	read, write map[string][]load
	processing  map[string][2]float64 // µs, read and write pools (0: no write pool)
	limited     []string              // the nodes with the README's limiters
	groups      []group
}{
	{
		dir:     "standalone-7.0",
		workers: map[string]int{"db7": 16},
		read:    map[string][]load{"db7": {{500, 1500}, {50, 800}, {10, 40}}},
		write:   map[string][]load{"db7": {{120, 2500}, {80, 3000}, {10, 2000}}},
		processing: map[string][2]float64{
			"db7": {(1425.3 + 1393.2) / 2, (2666.5 + 2735.0) / 2},
		},
		groups: []group{{"app", "primary", 10, 760, map[string]float64{"find": 500, "getMore": 50, "insert": 120, "update": 80, "delete": 10}}},
	},
	{
		dir:     "replset-8.0",
		workers: map[string]int{"rs0a": 12, "rs0b": 12, "rs0c": 12},
		read: map[string][]load{
			"rs0a": {{800, 1200}, {40, 600}, {20, 40}},
			"rs0b": {{150, 1300}, {5, 40}},
			"rs0c": {{150, 1300}, {5, 40}},
		},
		write: map[string][]load{"rs0a": {{250, 2000}, {150, 2800}}},
		processing: map[string][2]float64{
			"rs0a": {(1154.4 + 1137.0) / 2, (2292.5 + 2290.0) / 2},
			"rs0b": {(1277.5 + 1237.0) / 2, 0},
			"rs0c": {(1262.4 + 1256.0) / 2, 0},
		},
		// The log's client metadata: 10.0.1.11–14 and 10.0.2.21, five hosts, shared by the
		// two groups in proportion to their rates.
		groups: []group{
			{"app", "primary", 4, 1240, map[string]float64{"find": 800, "getMore": 40, "insert": 250, "update": 150}},
			{"secondary-reads", "secondary", 1, 300, map[string]float64{"find": 300}},
		},
	},
	{
		dir:     "sharded-8.2",
		workers: map[string]int{"sh0a": 16, "sh0b": 16, "sh0c": 16, "sh1a": 16, "sh1b": 16, "sh1c": 16},
		read: map[string][]load{
			"sh0a": {{2500, 600}, {2, 30}}, "sh1a": {{2500, 600}, {2, 30}},
			"sh0b": {{100, 650}, {2, 30}}, "sh0c": {{100, 650}, {2, 30}},
			"sh1b": {{100, 650}, {2, 30}}, "sh1c": {{100, 650}, {2, 30}},
		},
		write:      map[string][]load{"sh0a": {{1000, 1500}, {500, 2000}}, "sh1a": {{1000, 1500}, {500, 2000}}},
		processing: map[string][2]float64{"sh0a": {601.9, 1679.2}, "sh1a": {602.7, 1666.5}},
		limited:    []string{"sh0a", "sh1a"},
		// The mongos nodes received find 2 × 2950/s, insert 2 × 1100/s, update 2 × 550/s; the
		// shards' secondaries served 4 × 100 finds/s of them.
		groups: []group{
			{"app", "primary", 9, 8800, map[string]float64{"find": 5500, "insert": 2200, "update": 1100}},
			{"secondary-reads", "secondary", 1, 400, map[string]float64{"find": 400}},
		},
	},
}

// TestCalibrateKnownValues checks each dataset's scenario against the values its load was
// built with: workers = the execution tickets (getParameter); each pool's service mean within
// 5 % of the nominal mean, and within 0.5 % of the tickets' processing mean (queueing
// excluded, where the latency mean is 3–8 % above it); the limiters exactly as getParameter
// gives them on the 8.2 shard primaries and off elsewhere; the command rates exact to 0.1/s,
// a second group reading from secondaries when they served reads, and the client count from
// the log's client metadata (else 10).
func TestCalibrateKnownValues(t *testing.T) {
	for _, k := range known {
		t.Run(k.dir, func(t *testing.T) {
			res := calibrate(t, loadSet(t, k.dir), Options{})
			sc := res.Scenario
			for _, n := range sc.Topology.Nodes {
				if n.Role.String() == "mongos" {
					continue
				}
				if want := k.workers[n.Name]; n.Workers != want {
					t.Errorf("%s: workers %d, want %d", n.Name, n.Workers, want)
				}
				if n.Execution != server.ExecTickets {
					t.Errorf("%s: execution %v, want tickets", n.Name, n.Execution)
				}
				read := distMean(t, n.Service)
				checkWithin(t, n.Name+" read service mean against nominal", read, nominal(k.read[n.Name]...), 0.05)
				if p := k.processing[n.Name][0]; p > 0 {
					checkWithin(t, n.Name+" read service mean against processing", read, p/1e6, 0.005)
				}
				if ws, ok := k.write[n.Name]; ok {
					for _, c := range []string{"insert", "update", "delete", "findAndModify"} {
						d, ok := n.ServiceByCommand[c]
						if !ok {
							t.Fatalf("%s: no %s service", n.Name, c)
						}
						write := distMean(t, d)
						checkWithin(t, n.Name+" "+c+" service mean against nominal", write, nominal(ws...), 0.05)
						checkWithin(t, n.Name+" "+c+" service mean against processing", write, k.processing[n.Name][1]/1e6, 0.005)
					}
				} else if len(n.ServiceByCommand) > 0 {
					t.Errorf("%s: serviceByCommand %v, want none (no writes)", n.Name, n.ServiceByCommand)
				}
				rl, cl := n.RequestLimiter, n.ConnLimiter
				if slices.Contains(k.limited, n.Name) {
					if !rl.Enabled || rl.RatePerSec != 4000 || rl.BurstCapacitySecs != 1 || rl.MaxQueueDepth != 0 ||
						!slices.Equal(rl.ApplicationExemptions, []string{"mms-automation", "MongoDB Automation Agent"}) {
						t.Errorf("%s: request limiter %+v, want on at 4000/s, burst 1 s, no queue, the two exemptions", n.Name, rl)
					}
					if !cl.Enabled || cl.RatePerSec != 50 || cl.BurstCapacitySecs != 2 || cl.MaxQueueDepth != 100 {
						t.Errorf("%s: connection limiter %+v, want on at 50/s, burst 2 s, queue 100", n.Name, cl)
					}
				} else if rl.Enabled || cl.Enabled {
					t.Errorf("%s: limiters on (%+v, %+v), want off", n.Name, rl, cl)
				}
				if n.ExternalClientBaseBackoff != 0 {
					t.Errorf("%s: externalClientBaseBackoffMS %s, want 0", n.Name, n.ExternalClientBaseBackoff)
				}
			}
			if len(sc.Clients) != len(k.groups) {
				t.Fatalf("%d client groups, want %d:\n%s", len(sc.Clients), len(k.groups), res.YAML)
			}
			for i, want := range k.groups {
				g := sc.Clients[i]
				if g.Name != want.name || g.Count != want.count || g.Driver.ReadPreference.String() != want.readPref {
					t.Errorf("group %d: %s, %d clients, readPreference %s; want %s, %d, %s", i, g.Name, g.Count, g.Driver.ReadPreference, want.name, want.count, want.readPref)
				}
				if r := g.Workload.Rate.Rate; math.Abs(r-want.rate) > 0.05 {
					t.Errorf("%s: rate %g/s, want %g/s", g.Name, r, want.rate)
				}
				if len(g.Mix) != len(want.mix) {
					t.Errorf("%s: mix %v, want %v", g.Name, g.Mix, want.mix)
				}
				for op, r := range want.mix {
					if math.Abs(g.Mix[op]-r) > 0.05 {
						t.Errorf("%s: %s at %g/s, want %g/s", g.Name, op, g.Mix[op], r)
					}
				}
			}
		})
	}
}

// TestCoresFewerThanTickets: with fewer cores than execution tickets the commands at once share
// the cores (execution: shared, workers = the cores), and each service mean is the processing
// time's CPU demand: processing × cores ÷ the mean tickets processing, when more tickets than
// cores were processing; with as many cores as tickets nothing changes.
func TestCoresFewerThanTickets(t *testing.T) {
	tests := []struct {
		gloss, dir string
		cores      int
		node       string
		shared     bool
	}{
		{"as many cores as tickets: tickets", "standalone-7.0", 16, "db7", false},
		{"more cores than tickets: tickets", "standalone-7.0", 64, "db7", false},
		{"4 cores, 1.4 tickets busy: shared, no correction", "standalone-7.0", 4, "db7", true},
		{"1 core, 1.4 tickets busy: shared, demand = processing ÷ 1.4", "standalone-7.0", 1, "db7", true},
		{"2 cores, 4 tickets busy on a shard primary: demand = processing × 2 ÷ 4", "sharded-8.2", 2, "sh0a", true},
		{"2 cores, 0.7 tickets busy on a secondary: no correction", "sharded-8.2", 2, "sh0b", true},
	}
	for _, tc := range tests {
		t.Run(tc.gloss, func(t *testing.T) {
			plain := calibrate(t, loadSet(t, tc.dir), Options{})
			res := calibrate(t, loadSet(t, tc.dir), Options{Cores: tc.cores})
			n := nodeNamed(t, res.Scenario, tc.node)
			before := nodeNamed(t, plain.Scenario, tc.node)
			var w *Window
			for _, x := range res.Windows {
				if x.Node.Name() == tc.node {
					w = x
				}
			}
			busy := w.Pools["read"].Busy + w.Pools["write"].Busy
			factor := 1.0
			if tc.shared && busy > float64(tc.cores) {
				factor = float64(tc.cores) / busy
			}
			wantExec, wantWorkers := server.ExecTickets, before.Workers
			if tc.shared {
				wantExec, wantWorkers = server.ExecShared, tc.cores
			}
			if n.Execution != wantExec || n.Workers != wantWorkers {
				t.Errorf("%s: execution %v with %d workers, want %v with %d", tc.node, n.Execution, n.Workers, wantExec, wantWorkers)
			}
			// The distributions are written with three significant digits: each within 0.35 %.
			checkWithin(t, "read service mean", distMean(t, n.Service), distMean(t, before.Service)*factor, 0.007)
			if d, ok := before.ServiceByCommand["insert"]; ok {
				checkWithin(t, "write service mean", distMean(t, n.ServiceByCommand["insert"]), distMean(t, d)*factor, 0.007)
			}
			for _, pf := range res.Fits {
				if pf.Node != tc.node {
					continue
				}
				if corrected := strings.Contains(pf.MeanFrom, "(processor sharing)"); corrected != (factor < 1) {
					t.Errorf("%s pool's mean from %q: corrected %v, want %v", pf.Pool, pf.MeanFrom, corrected, factor < 1)
				}
			}
		})
	}
}

// TestOneDocumentNode: a node with a single document gives no rates: it is left out of the
// scenario with a note naming it, its file, and what to do.
func TestOneDocumentNode(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"rs0a.json", "rs0b.json", "rs0a-getparameter.json", "rs0b-getparameter.json", "rs0c-getparameter.json"} {
		copyFile(t, filepath.Join("testdata/replset-8.0", f), filepath.Join(dir, f))
	}
	writeFile(t, filepath.Join(dir, "rs0c.json"), readLines(t, "testdata/replset-8.0/rs0c.json")[0])
	in, err := Load([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	res := calibrate(t, in, Options{})
	want := fmt.Sprintf("rs0c:27017: one serverStatus document (%s): no rates from it; take another some seconds later", filepath.Join(dir, "rs0c.json"))
	if !slices.Contains(res.Notes, want) {
		t.Errorf("notes %q lack %q", res.Notes, want)
	}
	var names []string
	for _, n := range res.Scenario.Topology.Nodes {
		names = append(names, n.Name)
	}
	if !slices.Equal(names, []string{"rs0a", "rs0b"}) {
		t.Errorf("nodes %v, want [rs0a rs0b]", names)
	}
}

// TestNoPoolsMeanFromLatency: a standalone whose documents have no execution ticket pools gets
// its service means from opLatencies, which include the wait for a ticket: the comment and a
// note say it is an upper bound, and no unknown share (NaN) reaches the scenario or the notes.
func TestNoPoolsMeanFromLatency(t *testing.T) {
	in := loadSet(t, "standalone-7.0")
	n := in.Nodes[0]
	for i := range n.Docs {
		d := &n.Docs[i]
		d.Queues, d.Admission, d.WiredTiger = nil, nil, nil
	}
	w := WindowOf(n, 0, len(n.Docs)-1)
	res := calibrate(t, in, Options{})
	db := nodeNamed(t, res.Scenario, "db7")
	// Written with three significant digits: within 0.5 %, where the processing mean is 3 % off.
	checkWithin(t, "read service mean", distMean(t, db.Service), w.Latency["reads"].Mean/1e6, 0.005)
	checkWithin(t, "write service mean", distMean(t, db.ServiceByCommand["insert"]), w.Latency["writes"].Mean/1e6, 0.005)
	yaml := string(res.YAML)
	for _, s := range []string{
		"# read pool: mean 1.455ms from opLatencies.reads (no ticket processing times in the documents: the mean includes the wait for a ticket, an upper bound)",
		"# write pool: mean 2.75ms from opLatencies.writes (no ticket processing times in the documents: the mean includes the wait for a ticket, an upper bound)",
	} {
		if !strings.Contains(yaml, s) {
			t.Errorf("the scenario lacks %q:\n%s", s, yaml)
		}
	}
	for _, note := range []string{
		"db7: read service mean from opLatencies.reads, which includes queueing: an upper bound",
		"db7: write service mean from opLatencies.writes, which includes queueing: an upper bound",
	} {
		if !slices.Contains(res.Notes, note) {
			t.Errorf("notes %q lack %q", res.Notes, note)
		}
	}
	if strings.Contains(yaml, "NaN") || strings.Contains(strings.Join(res.Notes, "\n"), "NaN") {
		t.Errorf("an unknown share reached the output:\n%s\n%s", yaml, strings.Join(res.Notes, "\n"))
	}
}

// TestQuantile checks Quantile on hand-made histograms: linear inside the first range [0, 2),
// geometric inside the others (the half-step ranges included), counting across ranges, and the
// last range open, its upper bound twice its lower.
func TestQuantile(t *testing.T) {
	last := serverstatus.LowerBounds[len(serverstatus.LowerBounds)-1]
	tests := []struct {
		gloss   string
		buckets []serverstatus.Bucket
		q, want float64
	}{
		{"first range, median: linear", []serverstatus.Bucket{{Micros: 0, Count: 4}}, 0.5, 1},
		{"first range, quartile: linear", []serverstatus.Bucket{{Micros: 0, Count: 4}}, 0.25, 0.5},
		{"[1024, 2048), median: geometric", []serverstatus.Bucket{{Micros: 1024, Count: 10}}, 0.5, 1024 * math.Sqrt2},
		{"[1024, 2048), 0.9: geometric", []serverstatus.Bucket{{Micros: 1024, Count: 10}}, 0.9, 1024 * math.Pow(2, 0.9)},
		{"half-step range [2048, 3072), median", []serverstatus.Bucket{{Micros: 2048, Count: 4}}, 0.5, 2048 * math.Sqrt(1.5)},
		{"across ranges: a third into the second", []serverstatus.Bucket{{Micros: 8, Count: 10}, {Micros: 16, Count: 30}}, 0.5, 16 * math.Cbrt(2)},
		{"at a range's end: its upper bound", []serverstatus.Bucket{{Micros: 8, Count: 10}, {Micros: 16, Count: 10}}, 0.5, 16},
		{"from the first range into the next", []serverstatus.Bucket{{Micros: 0, Count: 1}, {Micros: 2, Count: 3}}, 0.5, 2 * math.Pow(2, 1.0/3)},
		{"empty ranges left out: the range's own upper bound", []serverstatus.Bucket{{Micros: 64, Count: 1}, {Micros: 4096, Count: 1}}, 0.99, 4096 * math.Pow(1.5, 0.98)},
		{"the open last range: up to twice its lower bound", []serverstatus.Bucket{{Micros: last, Count: 2}}, 0.5, float64(last) * math.Sqrt2},
		{"p99 of 100 operations", []serverstatus.Bucket{{Micros: 512, Count: 90}, {Micros: 1024, Count: 9}, {Micros: 8192, Count: 1}}, 0.99, 2048},
	}
	for _, tc := range tests {
		t.Run(tc.gloss, func(t *testing.T) {
			got := Quantile(tc.buckets, tc.q)
			if math.Abs(got-tc.want) > 1e-9*tc.want {
				t.Errorf("Quantile(%v, %g) = %.9g, want %.9g", tc.buckets, tc.q, got, tc.want)
			}
		})
	}
	if got := Quantile(nil, 0.5); !math.IsNaN(got) {
		t.Errorf("Quantile(empty, 0.5) = %g, want NaN", got)
	}
}

// TestShapeSource pins where a pool's service-time shape comes from: the latency histogram
// when the wait for a ticket is at most 10 % of the latency and the histogram holds at least
// as many operations as the log; else the log's per-operation times when it has 50 of them;
// else the exponential, with a note.
func TestShapeSource(t *testing.T) {
	tests := []struct {
		gloss, dir, node string
		change           func(t *testing.T, n *Node)
		want             string // the read pool's PoolFit.Source
		family           string // "" = a fitted family, not checked
	}{
		{"standalone, 1.5 % queued: the histogram", "standalone-7.0", "db7", nil,
			"the opLatencies.reads histogram (11000 operations; the wait for a ticket is 1.5 % of their latency)", ""},
		{"standalone, 9 % queued: the histogram", "standalone-7.0", "db7", queueShare(0.09),
			"the opLatencies.reads histogram (11000 operations; the wait for a ticket is 9.0 % of their latency)", ""},
		{"standalone, 12 % queued, no log: exponential", "standalone-7.0", "db7", queueShare(0.12),
			"nothing: exponential assumed (the latency histogram holds too much queueing (12 % of latency) to stand for service times, and the log has fewer than 50 operations)", "exp"},
		{"primary with a log of 127 finds, a histogram of 25200: the histogram", "replset-8.0", "rs0a", nil,
			"the opLatencies.reads histogram (25200 operations; the wait for a ticket is 4.1 % of their latency)", ""},
		{"primary, no histograms: the log", "replset-8.0", "rs0a", noHistograms,
			"127 read operations' cpuNanos in testdata/replset-8.0/rs0a.log", ""},
		{"primary, 30 % queued: the log", "replset-8.0", "rs0a", queueShare(0.30),
			"127 read operations' cpuNanos in testdata/replset-8.0/rs0a.log", ""},
		{"primary, a histogram of fewer operations than the log: the log", "replset-8.0", "rs0a", fewerOps(100),
			"127 read operations' cpuNanos in testdata/replset-8.0/rs0a.log", ""},
	}
	for _, tc := range tests {
		t.Run(tc.gloss, func(t *testing.T) {
			in := loadSet(t, tc.dir)
			var n *Node
			for _, x := range in.Nodes {
				if x.Name() == tc.node {
					n = x
				}
			}
			if tc.change != nil {
				tc.change(t, n)
			}
			res := calibrate(t, in, Options{})
			var pf *PoolFit
			for i := range res.Fits {
				if res.Fits[i].Node == tc.node && res.Fits[i].Pool == "read" {
					pf = &res.Fits[i]
				}
			}
			if pf == nil {
				t.Fatalf("no read pool fit for %s", tc.node)
			}
			if pf.Source != tc.want {
				t.Errorf("shape from %q,\nwant %q", pf.Source, tc.want)
			}
			if tc.family != "" && pf.Chosen.Family != tc.family {
				t.Errorf("family %s, want %s", pf.Chosen.Family, tc.family)
			}
		})
	}
}

// queueShare sets the read pool's time queued over the node's window so that the mean wait
// per admission is share of the reads' mean latency.
func queueShare(share float64) func(*testing.T, *Node) {
	return func(t *testing.T, n *Node) {
		t.Helper()
		last := len(n.Docs) - 1
		w := WindowOf(n, 0, last)
		x, y := n.Docs[0].Execution().Read.NormalPriority, n.Docs[last].Execution().Read.NormalPriority
		adm := y.NewAdmissions - x.NewAdmissions
		q := *x.TotalTimeQueuedMicros + int64(math.Round(float64(share*w.Latency["reads"].Mean)*float64(adm)))
		y.TotalTimeQueuedMicros = &q
		w = WindowOf(n, 0, last)
		if got := w.Pools["read"].Queued / w.Latency["reads"].Mean; math.Abs(got-share) > 1e-4 {
			t.Fatalf("queue share set to %g, want %g", got, share)
		}
	}
}

// noHistograms drops the opLatencies histograms from the node's documents.
func noHistograms(t *testing.T, n *Node) {
	for i := range n.Docs {
		ol := *n.Docs[i].OpLatencies
		for _, l := range []**serverstatus.Latency{&ol.Reads, &ol.Writes, &ol.Commands, &ol.Transactions} {
			if *l != nil {
				c := **l
				c.Histogram = nil
				*l = &c
			}
		}
		n.Docs[i].OpLatencies = &ol
	}
}

// fewerOps makes the reads' histogram window hold ops operations (by opLatencies.reads.ops).
func fewerOps(ops int64) func(*testing.T, *Node) {
	return func(t *testing.T, n *Node) {
		last := len(n.Docs) - 1
		r := *n.Docs[last].OpLatencies.Reads
		r.Ops = n.Docs[0].OpLatencies.Reads.Ops + ops
		ol := *n.Docs[last].OpLatencies
		ol.Reads = &r
		n.Docs[last].OpLatencies = &ol
	}
}

// TestTicketsOf pins where the workers come from: getParameter's ticket counts (the larger
// pool, under 8.0's, 7.0's or 6.x's names), unless an adjustment algorithm moves them, then the
// largest totalTickets the documents show; without getParameter, that totalTickets.
func TestTicketsOf(t *testing.T) {
	i64 := func(v int64) *int64 { return &v }
	str := func(s string) *string { return &s }
	pools := func(n int64) map[string]PoolObs {
		return map[string]PoolObs{"read": {Tickets: n}, "write": {Tickets: n}}
	}
	tests := []struct {
		gloss  string
		params *serverstatus.Params
		pools  map[string]PoolObs
		want   int64
		src    string
	}{
		{"8.0 names, the larger pool", &serverstatus.Params{ExecutionControlConcurrentReadTransactions: i64(12), ExecutionControlConcurrentWriteTransactions: i64(20),
			ExecutionControlConcurrencyAdjustmentAlgo: str("fixedConcurrentTransactions")}, pools(16),
			20, "getParameter executionControlConcurrent{Read,Write}Transactions = 12, 20 (p.json)"},
		{"7.0 names", &serverstatus.Params{StorageEngineConcurrentReadTransactions: i64(24), StorageEngineConcurrentWriteTransactions: i64(24)}, pools(16),
			24, "getParameter storageEngineConcurrent{Read,Write}Transactions = 24, 24 (p.json)"},
		{"6.x names", &serverstatus.Params{WiredTigerConcurrentReadTransactions: i64(128), WiredTigerConcurrentWriteTransactions: i64(128)}, pools(16),
			128, "getParameter wiredTigerConcurrent{Read,Write}Transactions = 128, 128 (p.json)"},
		{"throughputProbing moves them: the largest seen", &serverstatus.Params{ExecutionControlConcurrentReadTransactions: i64(128), ExecutionControlConcurrentWriteTransactions: i64(128),
			ExecutionControlConcurrencyAdjustmentAlgo: str("throughputProbing")}, pools(37),
			37, "queues.execution totalTickets, largest seen; throughputProbing moves them: the pools' largest size seen is used"},
		{"a zero read count is not a setting", &serverstatus.Params{ExecutionControlConcurrentReadTransactions: i64(0), ExecutionControlConcurrentWriteTransactions: i64(8)}, pools(16),
			16, "serverStatus execution totalTickets, largest seen"},
		{"no getParameter: the pools", nil, pools(16), 16, "serverStatus execution totalTickets, largest seen"},
		{"nothing", nil, nil, 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.gloss, func(t *testing.T) {
			w := &Window{Node: &Node{Host: "db:27017", Params: tc.params, ParamsFrom: "p.json"}, Pools: tc.pools}
			got, src := ticketsOf(w)
			if got != tc.want || src != tc.src {
				t.Errorf("ticketsOf = %d, %q; want %d, %q", got, src, tc.want, tc.src)
			}
		})
	}
}

// TestWrittenYAMLParses feeds Calibrate odd inputs: whatever it writes must read back
// (scenarios.Parse), with a positive rate and no zero weight in a mix, and what it cannot
// calibrate must be refused as an input error, never as "a fault of calibrate".
func TestWrittenYAMLParses(t *testing.T) {
	find := map[string]int64{"find": 1000}
	tests := []struct {
		gloss string
		docs  [][]serverstatus.Doc
		log   []serverstatus.LogEntry
		edit  func(in *Inputs)
		err   string // a substring of the input error expected; "" = the YAML must parse
	}{
		{"one find in 40 s", [][]serverstatus.Doc{pair("db:27017", "", "", map[string]int64{"find": 1}, 40)}, nil, nil, ""},
		{"one find in a day", [][]serverstatus.Doc{pair("db:27017", "", "", map[string]int64{"find": 1}, 86400)}, nil, nil, ""},
		{"a delete every 40 s beside 2.5 finds/s", [][]serverstatus.Doc{pair("db:27017", "", "", map[string]int64{"find": 100, "delete": 1}, 40)}, nil, nil, ""},
		{"two million finds a second", [][]serverstatus.Doc{pair("db:27017", "", "", map[string]int64{"find": 20_000_000}, 10)}, nil, nil, ""},
		{"opcounters only", [][]serverstatus.Doc{opcountersOnly(pair("db:27017", "", "", find, 10))}, nil, nil, ""},
		{"no application command", [][]serverstatus.Doc{pair("db:27017", "", "", map[string]int64{"ping": 100, "hello": 10}, 10)}, nil, nil,
			"no application command"},
		{"an IPv6 host", [][]serverstatus.Doc{pair("[::1]:27017", "", "", find, 10)}, nil, nil, ""},
		{"a host without a port", [][]serverstatus.Doc{pair("db7", "", "", find, 10)}, nil, nil, ""},
		{"a host of spaces and accents", [][]serverstatus.Doc{pair("hôte de prod:27017", "", "", find, 10)}, nil, nil, ""},
		{"host null", [][]serverstatus.Doc{pair("null:27017", "", "", find, 10)}, nil, nil, ""},
		{"host NULL", [][]serverstatus.Doc{pair("NULL:27017", "", "", find, 10)}, nil, nil, ""},
		{"host true", [][]serverstatus.Doc{pair("true:27017", "", "", find, 10)}, nil, nil, ""},
		{"host -", [][]serverstatus.Doc{pair("-:27017", "", "", find, 10)}, nil, nil, ""},
		{"host ::", [][]serverstatus.Doc{pair(":::27017", "", "", find, 10)}, nil, nil, ""},
		{"a name ending in a colon", [][]serverstatus.Doc{pair("db::27017", "", "", find, 10)}, nil, nil, ""},
		{"hosts alike once sanitized, told apart by their ports", [][]serverstatus.Doc{
			pair("db/1:27017", "rs", "primary", find, 10), pair("db_1:27018", "rs", "secondary", find, 10)}, nil, nil, ""},
		{"hosts that differ only in a character a name cannot hold", [][]serverstatus.Doc{
			pair("db one:27017", "rs", "primary", find, 10), pair("db_one:27017", "rs", "secondary", find, 10)}, nil, nil,
			`the hosts give one node name "db_one:27017"`},
		{"hosts that differ only past 100 characters", [][]serverstatus.Doc{
			pair(strings.Repeat("h", 110)+"1:27017", "rs", "primary", find, 10), pair(strings.Repeat("h", 110)+"2:27017", "rs", "secondary", find, 10)}, nil, nil,
			"one node name"},
		{"a set name of odd characters", [][]serverstatus.Doc{pair("ms:27017", "", "mongos", find, 10), pair("s:27018", "set/é 1", "primary", find, 10)}, nil, nil, ""},
		{"a set name with a colon", [][]serverstatus.Doc{pair("ms:27017", "", "mongos", find, 10), pair("s:27018", "a:b", "primary", find, 10)}, nil, nil, ""},
		{"set null", [][]serverstatus.Doc{pair("ms:27017", "", "mongos", find, 10), pair("s:27018", "null", "primary", find, 10)}, nil, nil, ""},
		{"set -", [][]serverstatus.Doc{pair("ms:27017", "", "mongos", find, 10), pair("s:27018", "-", "primary", find, 10)}, nil, nil, ""},
		{"two sets that give one shard name", [][]serverstatus.Doc{pair("ms:27017", "", "mongos", find, 10),
			pair("s0:27018", "rs/0", "primary", find, 10), pair("s1:27018", "rs_0", "primary", find, 10)}, nil, nil, "one shard name"},
		{"mongos only", [][]serverstatus.Doc{pair("ms1:27017", "", "mongos", find, 10), pair("ms2:27017", "", "mongos", find, 10)}, nil, nil,
			"no shard"},
		{"mongos and an idle set only", [][]serverstatus.Doc{pair("ms:27017", "", "mongos", find, 10), pair("cfg:27019", "cfg", "primary", map[string]int64{"hello": 10}, 10)}, nil, nil,
			"no shard"},
		{"exemptions of quotes, backslashes, a newline and accents", [][]serverstatus.Doc{pair("db:27017", "", "", find, 10)}, nil, func(in *Inputs) {
			on, rate := true, int64(100)
			in.Nodes[0].Params = &serverstatus.Params{IngressRequestRateLimiterEnabled: &on, IngressRequestAdmissionRatePerSec: &rate,
				IngressRequestRateLimiterApplicationExemptions: &serverstatus.AppNames{AppNames: []string{`a"b`, `c\d`, "line\nbreak", "é", "#x", "- y"}}}
		}, ""},
		{"limiters on at MongoDB's defaults", [][]serverstatus.Doc{pair("db:27017", "", "", find, 10)}, nil, func(in *Inputs) {
			on, rate, burst, depth := true, int64(math.MaxInt32), math.MaxFloat64, int64(0)
			in.Nodes[0].Params = &serverstatus.Params{IngressRequestRateLimiterEnabled: &on, IngressRequestAdmissionRatePerSec: &rate,
				IngressRequestAdmissionBurstCapacitySecs: &burst, IngressRequestAdmissionMaxQueueDepth: &depth,
				IngressConnectionEstablishmentRateLimiterEnabled: &on, IngressConnectionEstablishmentRatePerSec: &rate,
				IngressConnectionEstablishmentBurstCapacitySecs: &burst, IngressConnectionEstablishmentMaxQueueDepth: &depth}
		}, ""},
		{"more client hosts than a group may have", [][]serverstatus.Doc{pair("db:27017", "", "", find, 10)}, manyClients(100_001), nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.gloss, func(t *testing.T) {
			var files []*serverstatus.File
			for i, d := range tc.docs {
				files = append(files, &serverstatus.File{Path: fmt.Sprintf("n%d.json", i), Status: d})
			}
			if tc.log != nil {
				files = append(files, &serverstatus.File{Path: "mongod.log", Log: tc.log})
			}
			in, err := assemble(files)
			if err != nil {
				t.Fatal(err)
			}
			if tc.edit != nil {
				tc.edit(in)
			}
			res, err := Calibrate(in, Options{})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Calibrate = %v, want an error with %q", err, tc.err)
				}
				if strings.Contains(err.Error(), "a fault of calibrate") {
					t.Errorf("Calibrate = %v, want an input error", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Calibrate = %v", err)
			}
			sc, err := scenarios.Parse("odd.yaml", res.YAML)
			if err != nil {
				t.Fatalf("the YAML written does not parse: %v\n%s", err, res.YAML)
			}
			for _, g := range sc.Clients {
				if g.Workload.Rate.Rate <= 0 {
					t.Errorf("%s: rate %g", g.Name, g.Workload.Rate.Rate)
				}
				for op, w := range g.Mix {
					if w <= 0 {
						t.Errorf("%s: %s weighs %g in the mix:\n%s", g.Name, op, w, res.YAML)
					}
				}
			}
			if tc.edit != nil && in.Nodes[0].Params.IngressRequestRateLimiterApplicationExemptions != nil {
				want := in.Nodes[0].Params.IngressRequestRateLimiterApplicationExemptions.AppNames
				if got := sc.Topology.Nodes[0].RequestLimiter.ApplicationExemptions; !slices.Equal(got, want) {
					t.Errorf("exemptions %q, want %q", got, want)
				}
			}
		})
	}
}

// pair is two serverStatus documents of host, secs apart, counting each command in counts over
// the window (metrics.commands and opcounters). role is primary, secondary or mongos; "" is a
// standalone mongod.
func pair(host, set, role string, counts map[string]int64, secs int) []serverstatus.Doc {
	t0 := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	var out []serverstatus.Doc
	for i := range 2 {
		d := serverstatus.Doc{Host: host, Process: "mongod", Version: "8.2.0",
			Uptime: float64(3600 + secs*i), UptimeMillis: int64(3600+secs*i) * 1000, LocalTime: t0.Add(time.Duration(secs*i) * time.Second),
			Metrics: &serverstatus.Metrics{Commands: map[string]serverstatus.CommandCount{}}, Opcounters: &serverstatus.Opcounters{}}
		if role == "mongos" {
			d.Process = "mongos"
		}
		if set != "" {
			d.Repl = &serverstatus.Repl{SetName: set, IsWritablePrimary: role == "primary", Secondary: role == "secondary"}
		}
		for c, n := range counts {
			total := 1000 + int64(i)*n
			d.Metrics.Commands[c] = serverstatus.CommandCount{Total: total}
			switch c {
			case "find":
				d.Opcounters.Query = total
			case "insert":
				d.Opcounters.Insert = total
			case "delete":
				d.Opcounters.Delete = total
			default:
				d.Opcounters.Command += total
			}
		}
		out = append(out, d)
	}
	return out
}

// opcountersOnly drops metrics.commands, as old servers' documents lack it.
func opcountersOnly(docs []serverstatus.Doc) []serverstatus.Doc {
	for i := range docs {
		docs[i].Metrics = nil
	}
	return docs
}

// manyClients is a log's client metadata from n client hosts.
func manyClients(n int) []serverstatus.LogEntry {
	out := make([]serverstatus.LogEntry, n)
	for i := range out {
		out[i] = serverstatus.LogEntry{ID: serverstatus.LogClientMetadata, Remote: fmt.Sprintf("10.%d.%d.%d:5000", i>>16&255, i>>8&255, i&255), AppName: "app"}
	}
	return out
}

func nodeNamed(t *testing.T, sc *scenarios.Scenario, name string) scenarios.Node {
	t.Helper()
	for _, n := range sc.Topology.Nodes {
		if n.Name == name {
			return n
		}
	}
	t.Fatalf("no node %s", name)
	return scenarios.Node{}
}
