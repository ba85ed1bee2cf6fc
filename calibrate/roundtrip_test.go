package calibrate

import (
	"math"
	"strings"
	"testing"

	"github.com/overloadsim/overloadsim/bench"
	"github.com/overloadsim/overloadsim/record"
	"github.com/overloadsim/overloadsim/scenarios"
)

// The round trip is the calibration's main test (docs/calibration.md §7): a known scenario is
// run, its nodes' serverStatus documents and getParameter output are exported, calibrate writes
// a scenario from them, and that scenario must recover the known parameters — service-time
// means within 5 %, the arrival rate and each command's share within 2 %, the limiters'
// settings exactly — and agree with the export under --check.
var roundTrips = []struct {
	name string
	yaml string
	// service means (seconds) of the read and write pools per node; limiter per node
	read, write map[string]float64
	limiter     map[string][3]float64 // rate, burst, queue depth
	rate        float64
	mix         map[string]float64
}{
	{
		name: "standalone",
		yaml: `
name: rt-standalone
duration: 60s
warmup: 5s
topology:
  nodes:
    - name: db
      workers: 8
      service: exp(4ms)
      serviceByCommand: {insert: "lognormal(6ms, 0.5)", update: "lognormal(6ms, 0.5)"}
      ingressRequestRateLimiterEnabled: true
      ingressRequestAdmissionRatePerSec: 2000
      ingressRequestAdmissionBurstCapacitySecs: 1
clients:
  - name: app
    count: 20
    workload: {rate: 600/s}
    mix: {find: 6, insert: 2, update: 2}
`,
		read:    map[string]float64{"db": 0.004},
		write:   map[string]float64{"db": 0.006},
		limiter: map[string][3]float64{"db": {2000, 1, 0}},
		rate:    600,
		mix:     map[string]float64{"find": 0.6, "insert": 0.2, "update": 0.2},
	},
	{
		name: "replicaset",
		yaml: `
name: rt-replicaset
duration: 60s
warmup: 5s
topology:
  kind: replicaset
  nodes:
    - name: rs0a
      workers: 16
      service: "gamma(3ms, 2)"
      serviceByCommand: {insert: exp(5ms)}
      ingressRequestRateLimiterEnabled: true
      ingressRequestAdmissionRatePerSec: 1500
      ingressRequestAdmissionBurstCapacitySecs: 0.5
      ingressRequestAdmissionMaxQueueDepth: 10
    - {name: rs0b, workers: 16, service: "gamma(3ms, 2)"}
    - {name: rs0c, workers: 16, service: "gamma(3ms, 2)"}
clients:
  - name: app
    count: 30
    workload: {rate: 800/s}
    mix: {find: 3, insert: 1}
`,
		read:    map[string]float64{"rs0a": 0.003},
		write:   map[string]float64{"rs0a": 0.005},
		limiter: map[string][3]float64{"rs0a": {1500, 0.5, 10}},
		rate:    800,
		mix:     map[string]float64{"find": 0.75, "insert": 0.25},
	},
	{
		name: "sharded",
		yaml: `
name: rt-sharded
duration: 60s
warmup: 5s
topology:
  kind: sharded
  nodes:
    - {name: mongos1, role: mongos}
    - {name: mongos2, role: mongos}
    - name: s0a
      shard: s0
      service: exp(2ms)
      ingressRequestRateLimiterEnabled: true
      ingressRequestAdmissionRatePerSec: 500
      ingressRequestAdmissionBurstCapacitySecs: 0.2
    - {name: s0b, shard: s0, service: exp(2ms)}
    - {name: s0c, shard: s0, service: exp(2ms)}
    - name: s1a
      shard: s1
      service: exp(2ms)
      ingressRequestRateLimiterEnabled: true
      ingressRequestAdmissionRatePerSec: 500
      ingressRequestAdmissionBurstCapacitySecs: 0.2
    - {name: s1b, shard: s1, service: exp(2ms)}
    - {name: s1c, shard: s1, service: exp(2ms)}
clients:
  - name: app
    count: 20
    workload: {rate: 500/s}
    mix: {find: 4, update: 1}
`,
		read:    map[string]float64{"s0a": 0.002, "s1a": 0.002},
		write:   map[string]float64{"s0a": 0.002, "s1a": 0.002},
		limiter: map[string][3]float64{"s0a": {500, 0.2, 0}, "s1a": {500, 0.2, 0}},
		rate:    500,
		mix:     map[string]float64{"find": 0.8, "update": 0.2},
	},
}

func TestRoundTrip(t *testing.T) {
	if testing.Short() {
		t.Skip("runs six minute-long scenarios")
	}
	for _, tc := range roundTrips {
		t.Run(tc.name, func(t *testing.T) {
			orig, err := scenarios.Parse(tc.name+".yaml", []byte(tc.yaml))
			if err != nil {
				t.Fatal(err)
			}
			var log record.StatusLog
			if _, err := bench.RunWith(orig, orig.Seed, 0, bench.RunOptions{ServerStatus: &log}); err != nil {
				t.Fatal(err)
			}
			in, err := StatusInputs(&log)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Calibrate(in, Options{Name: "rt"})
			if err != nil {
				t.Fatal(err)
			}
			sc := res.Scenario
			nodes := map[string]int{}
			for i, n := range sc.Topology.Nodes {
				nodes[n.Name] = i
			}
			if len(sc.Topology.Nodes) != len(orig.Topology.Nodes) || sc.Topology.Kind != orig.Topology.Kind {
				t.Fatalf("topology %s with %d nodes, want %s with %d\n%s", sc.Topology.Kind, len(sc.Topology.Nodes), orig.Topology.Kind, len(orig.Topology.Nodes), res.YAML)
			}
			for i, n := range orig.Topology.Nodes {
				got := sc.Topology.Nodes[i]
				if got.Name != n.Name || got.Shard != n.Shard {
					t.Errorf("node %d is %s (shard %q), want %s (shard %q)", i, got.Name, got.Shard, n.Name, n.Shard)
				}
			}
			for name, want := range tc.read {
				n := sc.Topology.Nodes[nodes[name]]
				checkWithin(t, name+" read service mean", distMean(t, n.Service), want, 0.05)
				if n.Workers != orig.Topology.Nodes[nodes[name]].Workers {
					t.Errorf("%s: workers %d, want %d", name, n.Workers, orig.Topology.Nodes[nodes[name]].Workers)
				}
			}
			for name, want := range tc.write {
				n := sc.Topology.Nodes[nodes[name]]
				d, ok := n.ServiceByCommand["insert"]
				if !ok {
					t.Fatalf("%s: no write service in\n%s", name, res.YAML)
				}
				checkWithin(t, name+" write service mean", distMean(t, d), want, 0.05)
			}
			for name, want := range tc.limiter {
				n := sc.Topology.Nodes[nodes[name]]
				got := [3]float64{n.RequestLimiter.RatePerSec, n.RequestLimiter.BurstCapacitySecs, float64(n.RequestLimiter.MaxQueueDepth)}
				if !n.RequestLimiter.Enabled || got != want {
					t.Errorf("%s: limiter enabled %v %v, want exactly %v", name, n.RequestLimiter.Enabled, got, want)
				}
			}
			g := sc.Clients[0]
			checkWithin(t, "arrival rate", g.Workload.Rate.Rate, tc.rate, 0.02)
			var sum float64
			for _, w := range g.Mix {
				sum += w
			}
			for op, share := range tc.mix {
				checkWithin(t, op+" share", g.Mix[op]/sum, share, 0.02)
			}
			// And back: the calibrated scenario, run, agrees with the export it came from.
			cmp, err := Check(sc, in, bench.RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !cmp.Agrees() {
				var b strings.Builder
				cmp.Print(&b)
				t.Errorf("the calibrated scenario disagrees with its source:\n%s\n%s", b.String(), res.YAML)
			}
		})
	}
}

func checkWithin(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol*want {
		t.Errorf("%s = %.6g, want %.6g within %g %%", what, got, want, tol*100)
	}
}

func distMean(t *testing.T, d scenarios.Dist) float64 {
	t.Helper()
	if d.D == nil {
		t.Fatal("no distribution")
	}
	return d.D.Mean().Seconds()
}

// TestLibraryExampleIsCalibrated keeps the library's calibrated-replset what calibrate writes from
// calibrate/testdata/replset-8.0: only its name, description, claim and expect block are its
// own (docs/calibration.md §9).
func TestLibraryExampleIsCalibrated(t *testing.T) {
	lib, err := scenarios.Lookup("calibrated-replset")
	if err != nil {
		t.Fatal(err)
	}
	in, err := Load([]string{"testdata/replset-8.0"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Calibrate(in, Options{Name: lib.Name})
	if err != nil {
		t.Fatal(err)
	}
	got := res.Scenario
	got.Description, got.Claim, got.Expect = lib.Description, lib.Claim, lib.Expect
	if got.String() != lib.String() {
		t.Errorf("scenarios/library/calibrated-replset.yaml is not what calibrate writes from testdata/replset-8.0 (rewrite it with simulate calibrate calibrate/testdata/replset-8.0, keeping its name, description, claim and expect):\ncalibrate:\n%s\nlibrary:\n%s", got.String(), lib.String())
	}
}
