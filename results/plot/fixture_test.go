package plot

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/sweep"
	"github.com/overloadsim/overloadsim/sim"
)

// The fixtures are small hand-built results, written with results' own writers into a
// temporary folder, so that the figures are tested on exactly what a run or sweep writes.

// errClasses are the model's error classes, as a run's series names them.
var errClasses = []string{"overload", "timeout", "network", "serverSelection", "poolCleared", "server"}

func at(s float64) sim.Time { return sim.Time(s * float64(time.Second)) }

// stormSeries is two groups ("alpha" with adaptive retries, "beta" without) and two servers
// ("db1" with a request limiter, "db2" without) over ten one-second intervals and a half one.
// An overload window from t0 = 4 s to t1 = 7 s triples the offered load; goodput holds at the
// 300/s capacity, the rest fails, alpha's retry tokens run down. A stepdown at t2 = 8 s is
// instantaneous.
func stormSeries() *results.Series {
	s := &results.Series{Interval: time.Second, ErrClasses: errClasses, Faults: []results.FaultWindow{
		{Name: "overload", Start: at(4), End: at(7)},
		{Name: "stepdown", Start: at(8), End: at(8)},
	}}
	ends := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10.5}
	tokens := 500.0
	for i, end := range ends {
		start := 0.0
		if i > 0 {
			start = ends[i-1]
		}
		secs := end - start
		storm := start >= 4 && start < 7
		for gi, name := range []string{"alpha", "beta"} {
			offered := 100.0
			if storm {
				offered = 300
			}
			good := min(offered, 150)
			amp := 1.0
			if storm {
				amp = []float64{1.3, 3.5}[gi]
			}
			g := results.GroupInterval{Start: at(start), End: at(end), Name: name, TokensMin: math.NaN()}
			g.Issued = uint64(offered * secs)
			g.Succeeded = uint64(good * secs)
			g.Failed = g.Issued - g.Succeeded
			g.FailedByClass = []uint64{g.Failed, 0, 0, 0, 0, 0} // overload
			g.Attempts = uint64(float64(g.Issued) * amp)
			g.DriverOps = g.Issued
			g.Retries = g.Attempts - g.Issued
			for v := range 40 {
				d := time.Duration(v+1) * 100 * time.Microsecond
				if storm {
					d *= time.Duration(20 + 30*gi)
				}
				g.Success.Record(d)
				if storm {
					g.Failure.Record(d / 4)
				}
				g.Attempt.Record(d / 2)
			}
			if name == "alpha" {
				g.TokensMin, g.TokensSum, g.TokensN = tokens*0.8, tokens*2, 2
			}
			s.Groups = append(s.Groups, g)
		}
		if storm {
			tokens = max(0, tokens-200)
		} else {
			tokens = min(500, tokens+50)
		}
		for si, name := range []string{"db1", "db2"} {
			v := results.ServerInterval{Start: at(start), End: at(end), Name: name, Workers: 8,
				Connections: 20 + 10*si, Tokens: math.Inf(1)}
			busy := 0.4
			if storm {
				busy = 0.95
				v.RejectedAdmissions = uint64(300 * secs)
				v.QueueArea = float64(30*(si+1)) * secs
				v.Connections += 50
			}
			if si == 0 {
				v.Tokens = 100
				if storm {
					v.Tokens = 0
				}
			}
			v.Completed = uint64(150 * secs)
			v.CapacityArea = 8 * secs
			v.BusyArea = busy * 8 * secs
			v.Down = si == 1 && start == 8
			s.Servers = append(s.Servers, v)
		}
	}
	return s
}

// quietSeries is one group and one server without a limiter, no failures, no retry buckets,
// no faults: the figures' empty panels.
func quietSeries() *results.Series {
	s := &results.Series{Interval: time.Second, ErrClasses: errClasses}
	for i := range 6 {
		g := results.GroupInterval{Start: at(float64(i)), End: at(float64(i + 1)), Name: "app", TokensMin: math.NaN()}
		g.Issued, g.Succeeded, g.Attempts, g.DriverOps = 50, 50, 50, 50
		for v := range 20 {
			g.Success.Record(time.Duration(4000+100*v+50*i) * time.Microsecond)
		}
		s.Groups = append(s.Groups, g)
		s.Servers = append(s.Servers, results.ServerInterval{Start: at(float64(i)), End: at(float64(i + 1)), Name: "db",
			Completed: 50, BusyArea: 0.2, CapacityArea: 4, Workers: 4, Connections: 5, Tokens: math.Inf(1)})
	}
	return s
}

// writeRun writes a run folder of s into a temporary folder and returns it.
func writeRun(t *testing.T, name string, s *results.Series, warmup time.Duration) string {
	t.Helper()
	dir := t.TempDir()
	hdr := results.Header{Tool: "overloadsim", Version: "test", Scenario: name, Description: "fixture", Seed: 7,
		Duration: time.Duration(s.End()), Interval: s.Interval, Warmup: warmup}
	if err := results.WriteRunDir(dir, results.NewRun(hdr, s)); err != nil {
		t.Fatal(err)
	}
	return dir
}

// runFixtures are the run folders of the tests, by name.
func runFixtures(t *testing.T) []struct{ name, dir string } {
	return []struct{ name, dir string }{
		{"storm", writeRun(t, "storm", stormSeries(), time.Second)},
		{"quiet", writeRun(t, "quiet", quietSeries(), 0)},
	}
}

// point is one hand-built sweep point: parameter values, then metric means (ci95 is
// ciShare × mean, NaN with one replication).
func point(params []results.Param, reps int, ciShare float64, metrics map[string]float64, order []string) sweep.PointStats {
	p := sweep.PointStats{Params: params, Replications: reps}
	for _, name := range order {
		m := metrics[name]
		ci := math.NaN()
		if reps > 1 && !math.IsNaN(m) {
			ci = ciShare * m
		}
		p.Metrics = append(p.Metrics, results.MetricStats{Name: name, Mean: m, CI95: ci, N: reps})
	}
	return p
}

// loadMetrics are the metrics of a sweep point at offered load x against a capacity: goodput
// follows min(x, capacity) and then sags, retries and the p99 rise past the capacity.
func loadMetrics(prefix string, x, capacity float64, m map[string]float64, order *[]string) {
	over := max(0, x/capacity-1)
	set := func(name string, v float64) {
		if _, ok := m[prefix+name]; !ok {
			*order = append(*order, prefix+name)
		}
		m[prefix+name] = v
	}
	set("offered", x)
	set("goodput", min(x, capacity)*(1-0.2*over))
	set("amplification", 1+1.5*over)
	set("latency_ok_p99", 0.005*math.Pow(40, min(over*2, 3)))
}

// loadContext is the load fixtures' context: today 200/s against a configured 700/s.
var loadContext = &sweep.LoadContext{Today: 200, Ceiling: 700, CeilingSource: "ingress request limiter 700/s on db"}

// writeSweep writes a sweep folder of points into a temporary folder and returns it; a load
// sweep is written with loadContext, so that it has answers.
func writeSweep(t *testing.T, name string, points []sweep.PointStats) string {
	t.Helper()
	dir := t.TempDir()
	hdr := results.Header{Tool: "overloadsim", Version: "test", Scenario: name, Seed: 7, Duration: 30 * time.Second, Interval: time.Second}
	ctx := *loadContext
	for i := range points {
		// The grid varies the limiter's rate, and with it each point's ceiling.
		for _, p := range points[i].Params {
			if strings.Contains(p.Path, "AdmissionRatePerSec") {
				v, _, _ := results.ParseValue(p.Value)
				ctx.Ceilings = append(ctx.Ceilings, sweep.PointCeiling{Point: points[i].Key(), Ceiling: v})
			}
		}
	}
	if err := sweep.WriteSweepDir(dir, hdr, points, "", &ctx); err != nil {
		t.Fatal(err)
	}
	return dir
}

// sweepFixtures are the sweep folders of the tests: load (one parameter, the offered load, two
// groups, a knee), grid (load × limiter rate, one group) and policies (a categorical
// parameter, one replication, a point without successes).
func sweepFixtures(t *testing.T) []struct{ name, dir string } {
	const rate = "clients[0].workload.rate"
	var load, grid, policies []sweep.PointStats
	for _, x := range []float64{100, 200, 300, 400, 500, 600} {
		value := formatRate(x)
		m, order := map[string]float64{}, []string{}
		loadMetrics("total.", 2*x, 700, m, &order)
		loadMetrics("group.a.", x, 350, m, &order)
		loadMetrics("group.b.", x, 350, m, &order)
		load = append(load, point([]results.Param{{Path: rate, Value: value}}, 3, 0.04, m, order))
		for _, limit := range []float64{250, 450} {
			m, order := map[string]float64{}, []string{}
			loadMetrics("total.", x, limit, m, &order)
			grid = append(grid, point([]results.Param{{Path: rate, Value: value},
				{Path: "topology.nodes[0].ingressRequestAdmissionRatePerSec", Value: formatRate(limit)}}, 5, 0.02, m, order))
		}
	}
	for i, policy := range []string{"none", "mongodb-2026-03", "{retryPolicy: mongodb-legacy}"} {
		m, order := map[string]float64{}, []string{}
		loadMetrics("total.", 500, 300+100*float64(i), m, &order)
		if i == 2 {
			m["total.goodput"], m["total.latency_ok_p99"] = 0, math.NaN()
		}
		policies = append(policies, point([]results.Param{{Path: "clients[0].driver.retryPolicy", Value: policy}}, 1, 0, m, order))
	}
	// The policy × load sweep a planner runs first: the policy named first, as --vary gave it,
	// so it varies slowest; the rate, numeric, is still the x axis.
	var policyLoad []sweep.PointStats
	for i, policy := range []string{"none", "mongodb-legacy", "mongodb-2026-03", "mongodb-2026-07"} {
		for _, x := range []float64{500, 750, 1000, 1250, 1500, 1750, 2000, 2250, 2500, 2750, 3000} {
			m, order := map[string]float64{}, []string{}
			loadMetrics("total.", x, 1000+50*float64(i), m, &order)
			policyLoad = append(policyLoad, point([]results.Param{{Path: "clients[0].driver.retryPolicy", Value: policy},
				{Path: rate, Value: formatRate(x)}}, 3, 0.03, m, order))
		}
	}
	return []struct{ name, dir string }{
		{"load", writeSweep(t, "load", load)},
		{"policy-load", writeSweep(t, "policy-load", policyLoad)},
		{"grid", writeSweep(t, "grid", grid)},
		{"policies", writeSweep(t, "policies", policies)},
	}
}

func formatRate(x float64) string { return formatTick(x, 1) + "/s" }
