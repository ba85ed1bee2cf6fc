package bench

import (
	"fmt"
	"github.com/overloadsim/overloadsim/scenarios"
	"math"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/sim"
)

// layeredScenario is a driver → mongos → shard path with no limiter: the shard primary fails
// each find (the mongos's and nobody else's: failInternalCommands) with probability p, with the
// ingress limiter's 462 and its three labels. Arrivals stop at 20 s; by 40 s every operation
// has finished.
const layeredScenario = `
name: layered
duration: 40s
topology:
  kind: sharded
  nodes:
    - {name: m1, role: mongos}
    - {name: m2, role: mongos}
    - {name: a, shard: s0}
    - {name: b, shard: s0}
  router:
    retryBudget: false
    exhaustedRetryLabels: [SystemOverloadedError, RetryableError, NoWritesPerformed]
clients:
  - name: app
    count: 4
    driver: {retryPolicy: %s}
    workload: {rate: {kind: step, before: 1000/s, after: 0/s, at: 20s}}
    mix: {find: 1}
faults:
  - at: 0s
    kind: failPoint
    node: a
    mode: {activationProbability: %g}
    data: {failCommands: [find], errorCode: 462, failInternalCommands: true}
`

// docs/model.md §10.3: retries multiply across layers. A mongos makes up to 1 + 3 attempts
// (defaultClientMaxRetryAttempts), so per routed command the shard sees A_m = Σ_{k=0..3} p^k and
// the mongos gives up with probability q = p^4; the driver retries that 462 (it carries
// RetryableError) up to N times, so it sends A_d = Σ_{k=0..N} q^k commands per operation, each
// independent of the others. The shard thus sees A_d · A_m attempts per operation, and an
// operation fails with probability q^(N+1).
func TestLayeredRetriesClosedForm(t *testing.T) {
	geom := func(x float64, n int) float64 {
		s := 0.0
		for k := 0; k <= n; k++ {
			s += math.Pow(x, float64(k))
		}
		return s
	}
	for _, tc := range []struct {
		policy string
		n      int // the driver's MAX_RETRIES
		p      float64
	}{
		{"mongodb-2026-07", 2, 0.9},
		{"mongodb-2026-07", 2, 0.5},
		{"mongodb-2026-03", 5, 0.8},
	} {
		t.Run(fmt.Sprintf("%s/p=%g", tc.policy, tc.p), func(t *testing.T) {
			t.Parallel()
			sc, err := scenarios.Parse("layered.yaml", []byte(fmt.Sprintf(layeredScenario, tc.policy, tc.p)))
			if err != nil {
				t.Fatal(err)
			}
			loop := sim.NewLoop()
			w, err := Build(sc, 1, loop, nil)
			if err != nil {
				t.Fatal(err)
			}
			loop.RunUntil(sim.Time(sc.Duration))
			st := w.Clients[0][0].Group().DriverStats()
			if st.OpsIssued != st.OpsSucceeded+st.OpsFailed {
				t.Fatalf("%d operations still running at the end", st.OpsIssued-st.OpsSucceeded-st.OpsFailed)
			}
			ops, failed, driverAttempts := st.OpsIssued, st.OpsFailed, st.AttemptsStarted
			shard := w.Cluster.Node("a").Snapshot(loop.Now())
			shardAttempts := shard.Completed + shard.FailPointErrors
			q := math.Pow(tc.p, 4)
			am, ad := geom(tc.p, 3), geom(q, tc.n)
			// Tolerances: about 20 000 operations; the per-operation counts have standard
			// deviations below 3 (driver) and 5 (shard), so the means' standard errors are
			// below 0.04; 0.1 absolute is more than two of them.
			if got := float64(driverAttempts) / float64(ops); math.Abs(got-ad) > 0.1 {
				t.Errorf("driver attempts per operation %.4f, closed form A_d = %.4f", got, ad)
			}
			if got := float64(shardAttempts) / float64(ops); math.Abs(got-ad*am) > 0.1 {
				t.Errorf("shard attempts per operation %.4f, closed form A_d·A_m = %.4f (A_m = %.4f)", got, ad*am, am)
			}
			wantFail := math.Pow(q, float64(tc.n+1))
			if got := float64(failed) / float64(ops); math.Abs(got-wantFail) > 4*math.Sqrt(wantFail*(1-wantFail)/float64(ops))+1e-4 {
				t.Errorf("failure rate %.5f, closed form q^(N+1) = %.5f", got, wantFail)
			}
			t.Logf("%d ops: driver %.4f (A_d %.4f), shard %.4f (A_d·A_m %.4f), failed %.5f (%.5f), took %v of virtual time",
				ops, float64(driverAttempts)/float64(ops), ad, float64(shardAttempts)/float64(ops), ad*am,
				float64(failed)/float64(ops), wantFail, time.Duration(loop.Now()))
		})
	}
}
