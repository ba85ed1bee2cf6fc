package scenarios

import (
	"math"
	"testing"
)

// TestLoadContext: today's load is what the scenario offers as configured; the ceiling counts
// the nodes that take the clients' commands, each the lesser of its limiter and its workers ÷
// mean service time.
func TestLoadContext(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		today      float64
		ceiling    float64
		source     string
	}{
		{"the library's healthy", "", 500, 1000, "ingress request limiter 1000/s on db"},
		{"no limiter: the workers", `
name: w
topology: {nodes: [{name: db, workers: 4, service: const(2ms)}]}
clients: [{name: c, count: 1, workload: {rate: 300/s}}]`, 300, 2000, "4 workers at 2ms mean service on db"},
		{"a replica set: the primary alone", `
name: rs
topology:
  kind: replicaset
  nodes:
    - {name: a, workers: 2, service: const(1ms)}
    - {name: b, workers: 8, service: const(1ms)}
clients: [{name: c, count: 1, workload: {rate: 100/s}}]`, 100, 2000, "2 workers at 1ms mean service on a"},
		{"two standalones: the sum", `
name: two
topology:
  nodes:
    - {name: a, workers: 1, service: const(1ms)}
    - {name: b, workers: 1, service: const(1ms), ingressRequestRateLimiterEnabled: true, ingressRequestAdmissionRatePerSec: 250/s}
clients: [{name: c, count: 1, hosts: [a], workload: {rate: 100/s}}]`, 100, 1250, "the sum over 2 nodes: 1 workers at 1ms mean service on a; ingress request limiter 250/s on b"},
	} {
		var sc *Scenario
		var err error
		if tc.yaml == "" {
			sc, err = Lookup("healthy")
		} else {
			sc, err = Parse(tc.name+".yaml", []byte(tc.yaml))
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		ctx := sc.LoadContext(0)
		if math.Abs(ctx.Today-tc.today) > 1e-9 || math.Abs(ctx.Ceiling-tc.ceiling) > 1e-9 || ctx.CeilingSource != tc.source {
			t.Errorf("%s: today %v, ceiling %v (%s); want %v, %v (%s)", tc.name, ctx.Today, ctx.Ceiling, ctx.CeilingSource, tc.today, tc.ceiling, tc.source)
		}
	}
}
