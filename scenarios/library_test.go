package scenarios

import (
	"context"
	"flag"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"overloadsim/client"
	"overloadsim/internal/parallel"
	"overloadsim/results"
	"overloadsim/sim"
)

var seedFlag = flag.Uint64("seed", 0, "run the library scenarios with this seed instead of their own")

// pointRun is one sweep point of a library scenario, run once.
type pointRun struct {
	params string // "path=value, …", "" without a sweep
	run    *results.Run
}

// libraryPoints returns the points of the library scenario name's sweep, the seed to run them
// with (its own or -seed) and its replications per point.
func libraryPoints(t *testing.T, name string) ([]SweepPoint, uint64, int) {
	t.Helper()
	sc, err := Lookup(name)
	if err != nil {
		t.Fatalf("Lookup(%q): %v", name, err)
	}
	seed := sc.Seed
	if *seedFlag != 0 {
		seed = *seedFlag
	}
	points, err := sc.Points()
	if err != nil {
		t.Fatalf("%s: Points: %v", name, err)
	}
	return points, seed, sc.Sweep.Replications
}

// pointKey names a point by its parameters: "path=value, …", "" without a sweep.
func pointKey(p SweepPoint) string {
	var kv []string
	for _, pr := range p.Params {
		kv = append(kv, pr.Path+"="+pr.Value)
	}
	return strings.Join(kv, ", ")
}

// runLibrary runs every point of the library scenario name (replication 0), with its own seed
// or -seed.
func runLibrary(t *testing.T, name string) []pointRun {
	t.Helper()
	points, seed, _ := libraryPoints(t, name)
	var out []pointRun
	for _, p := range points {
		run, err := Run(p.Scenario, seed, 0)
		if err != nil {
			t.Fatalf("%s %v: Run: %v", name, p.Params, err)
		}
		out = append(out, pointRun{params: pointKey(p), run: run})
	}
	return out
}

// claimer checks one library scenario's claim and, on failure, says how to replay it.
type claimer struct {
	t    *testing.T
	name string
	run  *results.Run
}

func (c *claimer) check(ok bool, format string, args ...any) {
	c.t.Helper()
	if !ok {
		c.t.Errorf("%s: claim broken: %s\n\treplay: go test ./scenarios -run 'TestLibraryClaims/%s' -seed=%d\n\t    or: simulate run %s --seed=%d",
			c.name, fmt.Sprintf(format, args...), c.name, c.run.Header.Seed, c.name, c.run.Header.Seed)
	}
}

func group(t *testing.T, s *results.Summary, name string) results.GroupSummary {
	t.Helper()
	for _, g := range s.Groups {
		if g.Name == name {
			return g
		}
	}
	t.Fatalf("no group %q in the summary", name)
	return results.GroupSummary{}
}

func serverOf(t *testing.T, s *results.Summary, name string) results.ServerSummary {
	t.Helper()
	for _, n := range s.Servers {
		if n.Name == name {
			return n
		}
	}
	t.Fatalf("no server %q in the summary", name)
	return results.ServerSummary{}
}

func recovery(t *testing.T, s *results.Summary, fault string) results.Recovery {
	t.Helper()
	for _, r := range s.Recoveries {
		if r.Fault == fault {
			return r
		}
	}
	t.Fatalf("no recovery for fault %q", fault)
	return results.Recovery{}
}

// window sums a group's intervals that lie within [from, to).
type windowStats struct{ issued, attempts, succeeded, failed uint64 }

func window(s *results.Series, name string, from, to time.Duration) windowStats {
	var w windowStats
	for _, g := range s.Groups {
		if g.Name == name && g.Start >= sim.Time(from) && g.End <= sim.Time(to) {
			w.issued += g.Issued
			w.attempts += g.Attempts
			w.succeeded += g.Succeeded
			w.failed += g.Failed
		}
	}
	return w
}

func (w windowStats) amplification() float64 { return float64(w.attempts) / float64(w.issued) }

func within(got, want, rel float64) bool { return math.Abs(got-want) <= rel*want }

// libraryClaims asserts each library scenario's claim on its output. Every scenario of the
// library must have an entry. The numbers are the claim's; each check would fail if the
// mechanism the scenario demonstrates were missing (the comments say how).
var libraryClaims = map[string]func(t *testing.T, runs []pointRun){
	// Without rejections there is nothing to retry: attempts equal operations exactly.
	"healthy": func(t *testing.T, runs []pointRun) {
		r := runs[0].run
		c := claimer{t, "healthy", r}
		g := r.Summary.Total
		c.check(g.Attempts == g.Issued, "attempts %d, want = operations issued %d (amplification exactly 1)", g.Attempts, g.Issued)
		c.check(g.Failed == 0, "%d operations failed, want 0", g.Failed)
		c.check(within(g.Goodput, g.Offered, 0.02), "goodput %.1f/s, want within 2%% of offered %.1f/s", g.Goodput, g.Offered)
		c.check(serverOf(t, &r.Summary, "db").Rejections == 0, "the limiter rejected %d requests, want 0", serverOf(t, &r.Summary, "db").Rejections)
	},
	// The spike is 3× the limit from 10 s to 30 s. Without the token bucket the adaptive group
	// would retry like the plain one (about 4.5 attempts per operation).
	"spike": func(t *testing.T, runs []pointRun) {
		r := runs[0].run
		c := claimer{t, "spike", r}
		adaptive := window(r.Series, "adaptive", 10*time.Second, 30*time.Second)
		plain := window(r.Series, "plain", 10*time.Second, 30*time.Second)
		c.check(adaptive.amplification() < 1.5, "adaptive amplification during the spike %.3f, want < 1.5", adaptive.amplification())
		c.check(plain.amplification() > 3, "plain amplification during the spike %.3f, want > 3", plain.amplification())
		before := window(r.Series, "plain", 0, 10*time.Second)
		c.check(before.attempts == before.issued, "before the spike: %d attempts for %d operations, want equal", before.attempts, before.issued)
	},
	// Goodput is the limiter's 1000/s; a broken bucket would leave amplification near 4.5.
	"sustained-overload": func(t *testing.T, runs []pointRun) {
		r := runs[0].run
		c := claimer{t, "sustained-overload", r}
		g := r.Summary.Total
		c.check(within(g.Goodput, 1000, 0.02), "goodput %.1f/s, want within 2%% of the limiter's 1000/s", g.Goodput)
		c.check(g.Amplification < 1.2, "amplification after warm-up %.3f, want < 1.2", g.Amplification)
		c.check(g.RetriesRefused > 0, "no retry was refused for want of a token: the buckets never ran dry")
	},
	// At 250µs per rejection the storm's ~9000 rejections/s take over a quarter of the 8 workers.
	"rejection-cost-storm": func(t *testing.T, runs []pointRun) {
		for _, p := range runs {
			c := claimer{t, "rejection-cost-storm", p.run}
			g, s := p.run.Summary.Total, serverOf(t, &p.run.Summary, "db")
			switch p.params {
			case "topology.nodes[0].rejectCost=0s":
				c.check(within(g.Goodput, 1400, 0.02), "%s: goodput %.1f/s, want within 2%% of the limiter's 1400/s", p.params, g.Goodput)
				c.check(s.RejectShare == 0, "%s: rejections took %.3f of the node, want 0", p.params, s.RejectShare)
			case "topology.nodes[0].rejectCost=250µs":
				c.check(s.RejectShare > 0.2, "%s: rejections took %.3f of the node, want > 0.2", p.params, s.RejectShare)
				c.check(g.Goodput < 140, "%s: goodput %.1f/s, want < 10%% of the limiter's 1400/s", p.params, g.Goodput)
			default:
				t.Fatalf("unexpected point %q", p.params)
			}
		}
	},
	// The CPU is cut from 10 s to 15 s. Without retries the backlog (about 2800 operations)
	// drains at 400/s; with them the offered load exceeds capacity for good.
	"capacity-drop": func(t *testing.T, runs []pointRun) {
		for _, p := range runs {
			c := claimer{t, "capacity-drop", p.run}
			rec := recovery(t, &p.run.Summary, "cpu-cut")
			last := window(p.run.Series, "app", 30*time.Second, 40*time.Second)
			switch p.params {
			case "clients[0].appRetry.attempts=1":
				c.check(rec.Outcome == results.Recovered && rec.Seconds <= 10, "%s: recovery %s after %.1fs, want recovered within 10s", p.params, rec.Outcome, rec.Seconds)
				c.check(last.failed == 0, "%s: %d operations failed in the last 10s, want 0", p.params, last.failed)
			case "clients[0].appRetry.attempts=3":
				c.check(rec.Outcome == results.Stuck, "%s: recovery %s, want stuck", p.params, rec.Outcome)
				c.check(last.succeeded*10 < last.issued, "%s: %d of %d operations succeeded in the last 10s, want < 10%%", p.params, last.succeeded, last.issued)
			default:
				t.Fatalf("unexpected point %q", p.params)
			}
		}
	},
	// The primary steps down at 10 s; the election takes 3 s.
	"stepdown": func(t *testing.T, runs []pointRun) {
		r := runs[0].run
		c := claimer{t, "stepdown", r}
		g := r.Summary.Total
		c.check(g.Failed*1000 < g.Issued*5, "%d of %d operations failed, want < 0.5%%", g.Failed, g.Issued)
		during := window(r.Series, "app", 11*time.Second, 13*time.Second)
		c.check(during.succeeded*20 < during.issued, "%d successes in the election's whole seconds for %d issued, want < 5%%", during.succeeded, during.issued)
		rec := recovery(t, &r.Summary, "stepdown")
		c.check(rec.Outcome == results.Recovered && rec.Seconds <= 6, "recovery %s after %.1fs, want recovered within 6s of the stepdown", rec.Outcome, rec.Seconds)
	},
	// b is elected at 11 s. At 20/s its limiter admits 200 clients' connections over ten
	// seconds; at 2000/s in one.
	"connection-storm": func(t *testing.T, runs []pointRun) {
		for _, p := range runs {
			c := claimer{t, "connection-storm", p.run}
			g := p.run.Summary.Total
			rec := recovery(t, &p.run.Summary, "failover")
			switch p.params {
			case "faults[0].ingressConnectionEstablishmentRatePerSec=20":
				c.check(rec.Outcome == results.Recovered && rec.Seconds >= 8, "%s: recovery %s after %.1fs, want at least 8s", p.params, rec.Outcome, rec.Seconds)
				c.check(serverOf(t, &p.run.Summary, "b").Rejections > 10_000, "%s: b refused %d connections, want > 10000", p.params, serverOf(t, &p.run.Summary, "b").Rejections)
				c.check(g.Failed > 1000, "%s: %d operations failed, want > 1000", p.params, g.Failed)
			case "faults[0].ingressConnectionEstablishmentRatePerSec=2000":
				c.check(rec.Outcome == results.Recovered && rec.Seconds <= 3, "%s: recovery %s after %.1fs, want within 3s", p.params, rec.Outcome, rec.Seconds)
				c.check(g.Failed*1000 < g.Issued, "%s: %d of %d operations failed, want < 0.1%%", p.params, g.Failed, g.Issued)
			default:
				t.Fatalf("unexpected point %q", p.params)
			}
		}
	},
	// Without retargeting the pinned group's three attempts all meet the same limiter.
	"retargeting": func(t *testing.T, runs []pointRun) {
		r := runs[0].run
		c := claimer{t, "retargeting", r}
		re, pinned := group(t, &r.Summary, "retargeting"), group(t, &r.Summary, "pinned")
		c.check(re.Failed*1000 < re.Issued, "retargeting: %d of %d reads failed, want < 0.1%%", re.Failed, re.Issued)
		c.check(pinned.Failed*10 > pinned.Issued, "pinned: %d of %d reads failed, want > 10%%", pinned.Failed, pinned.Issued)
		for _, name := range []string{"b", "c"} {
			c.check(serverOf(t, &r.Summary, name).Completed > 0, "secondary %s served nothing, want the retargeted retries", name)
		}
	},
	// The limiter admits 1000/s either way; the application's attempts multiply the driver's.
	"app-retries": func(t *testing.T, runs []pointRun) {
		amp := map[string]float64{}
		for _, p := range runs {
			c := claimer{t, "app-retries", p.run}
			g := p.run.Summary.Total
			amp[p.params] = g.Amplification
			c.check(within(g.Goodput, 1000, 0.02), "%s: goodput %.1f/s, want within 2%% of the limiter's 1000/s", p.params, g.Goodput)
		}
		one, three := amp["clients[0].appRetry.attempts=1"], amp["clients[0].appRetry.attempts=3"]
		c := claimer{t, "app-retries", runs[len(runs)-1].run}
		c.check(one > 3, "driver alone: amplification %.3f, want > 3", one)
		c.check(three > 2.5*one, "with application retries: amplification %.3f, want > 2.5 × the driver alone's %.3f", three, one)
	},
	// Same load per group; only the policy differs.
	"policy-comparison": func(t *testing.T, runs []pointRun) {
		r := runs[0].run
		c := claimer{t, "policy-comparison", r}
		s := &r.Summary
		for _, name := range []string{"none", "legacy"} {
			g := group(t, s, name)
			c.check(g.Attempts == g.Issued, "%s: %d attempts for %d operations, want equal (no overload retries)", name, g.Attempts, g.Issued)
		}
		v03, v07, adaptive := group(t, s, "v2026-03").Amplification, group(t, s, "v2026-07").Amplification, group(t, s, "v2026-03-adaptive").Amplification
		c.check(v03 > 2.5, "mongodb-2026-03: amplification %.3f, want > 2.5", v03)
		c.check(v07 > 1.5 && v07 < v03, "mongodb-2026-07: amplification %.3f, want in (1.5, %.3f)", v07, v03)
		c.check(adaptive < 1.2, "mongodb-2026-03 with adaptive retries: amplification %.3f, want < 1.2", adaptive)
		c.check(within(s.Total.Goodput, 1000, 0.03), "total goodput %.1f/s, want within 3%% of the limiter's 1000/s", s.Total.Goodput)
	},
	// Same limit, same load, one tier per SDK: only the retry handling differs.
	"couchbase-vs-mongodb": func(t *testing.T, runs []pointRun) {
		r := runs[0].run
		c := claimer{t, "couchbase-vs-mongodb", r}
		cb, mg := group(t, &r.Summary, "couchbase"), group(t, &r.Summary, "mongodb")
		for _, g := range []results.GroupSummary{cb, mg} {
			c.check(within(g.Goodput, 1000, 0.03), "%s: goodput %.1f/s, want within 3%% of the limiter's 1000/s", g.Name, g.Goodput)
			c.check(within(float64(g.Failed), float64(g.Issued)/2, 0.1), "%s: %d of %d reads failed, want about half", g.Name, g.Failed, g.Issued)
		}
		c.check(mg.Amplification <= 3, "mongodb: amplification %.3f, want ≤ 3 (1 + maxAdaptiveRetries)", mg.Amplification)
		c.check(cb.Amplification > 3*mg.Amplification, "couchbase: amplification %.3f, want > 3 × mongodb's %.3f", cb.Amplification, mg.Amplification)
		c.check(cb.Failures[client.ErrTimeout-1].Count == cb.Failed && cb.Failure.P50 >= 2.5,
			"couchbase: %d timeouts of %d failures, median failure %.3fs; want every failure a timeout at the 2.5s kvTimeout", cb.Failures[client.ErrTimeout-1].Count, cb.Failed, cb.Failure.P50)
		c.check(mg.Failure.P999 < 1, "mongodb: p99.9 of failures %.3fs, want < 1s", mg.Failure.P999)
		c.check(len(cb.RetryReasons) == 1 && cb.RetryReasons[0].Reason == "KV_TEMPORARY_FAILURE",
			"couchbase: retry reasons %v, want KV_TEMPORARY_FAILURE alone", cb.RetryReasons)
	},
	// Two shards limited to 500/s each; the driver retries what a mongos gives up on.
	"sharded-layered-retries": func(t *testing.T, runs []pointRun) {
		perOp := map[string]float64{}
		for _, p := range runs {
			c := claimer{t, "sharded-layered-retries", p.run}
			s := &p.run.Summary
			attempts := 0.0
			for _, n := range []string{"s0a", "s1a"} {
				sv := serverOf(t, s, n)
				attempts += float64(sv.Completed + sv.Rejections)
			}
			perOp[p.params] = attempts / float64(s.Total.Issued)
			c.check(within(s.Total.Goodput, 1000, 0.03), "%s: goodput %.1f/s, want within 3%% of 1000/s", p.params, s.Total.Goodput)
			c.check(len(s.Shards) == 4, "%s: %d mongos×shard summaries, want 4", p.params, len(s.Shards))
		}
		on, off := perOp["topology.router.retryBudget=true"], perOp["topology.router.retryBudget=false"]
		c := claimer{t, "sharded-layered-retries", runs[0].run}
		c.check(off > 7, "without the budget: %.3f shard attempts per operation, want > 7", off)
		c.check(on < 3, "with the budget: %.3f shard attempts per operation, want < 3", on)
	},
	// One shard whose primary limits requests; primaryPreferred reads.
	"mongos-retargeting": func(t *testing.T, runs []pointRun) {
		for _, p := range runs {
			c := claimer{t, "mongos-retargeting", p.run}
			s := &p.run.Summary
			g := s.Total
			var retargeted uint64
			for _, sh := range s.Shards {
				retargeted += sh.Retargeted
			}
			switch p.params {
			case "topology.router.overloadAwareServerSelectionEnabled=true":
				c.check(g.Failed*1000 < g.Issued, "%s: %d of %d reads failed, want < 0.1%%", p.params, g.Failed, g.Issued)
				c.check(retargeted > 0 && serverOf(t, s, "b").Completed > 0 && serverOf(t, s, "c").Completed > 0,
					"%s: %d retries retargeted, secondaries served %d and %d; want retries on the secondaries", p.params,
					retargeted, serverOf(t, s, "b").Completed, serverOf(t, s, "c").Completed)
			case "topology.router.overloadAwareServerSelectionEnabled=false":
				c.check(g.Failed*10 > g.Issued, "%s: %d of %d reads failed, want > 10%%", p.params, g.Failed, g.Issued)
				c.check(retargeted == 0 && serverOf(t, s, "b").Completed == 0, "%s: %d retargeted, want every retry on the primary", p.params, retargeted)
			default:
				t.Fatalf("unexpected point %q", p.params)
			}
			c.check(g.Attempts == g.Issued, "%s: the driver made %d attempts for %d reads, want none retried (the mongos's 462 carries SystemOverloadedError alone)", p.params, g.Attempts, g.Issued)
		}
	},
	// The sine peaks at 1350/s for about a second in every two.
	"legacy-vs-backpressure": func(t *testing.T, runs []pointRun) {
		for _, p := range runs {
			c := claimer{t, "legacy-vs-backpressure", p.run}
			g := p.run.Summary.Total
			switch p.params {
			case "clients[0].driver={retryPolicy: mongodb-legacy}":
				c.check(g.Failed*20 > g.Issued, "%s: %d of %d operations failed, want > 5%%", p.params, g.Failed, g.Issued)
				c.check(g.Attempts == g.Issued, "%s: %d attempts for %d operations, want equal", p.params, g.Attempts, g.Issued)
			case "clients[0].driver={retryPolicy: mongodb-2026-03, adaptiveRetries: true}":
				c.check(g.Failed*200 < g.Issued, "%s: %d of %d operations failed, want < 0.5%%", p.params, g.Failed, g.Issued)
				c.check(within(g.Goodput, g.Offered, 0.01), "%s: goodput %.1f/s, want within 1%% of offered %.1f/s", p.params, g.Goodput, g.Offered)
			default:
				t.Fatalf("unexpected point %q", p.params)
			}
		}
	},
}

// TestLibraryClaims runs every library scenario (every sweep point, replication 0) and asserts
// its claim.
func TestLibraryClaims(t *testing.T) {
	names := Names()
	for name := range libraryClaims {
		if !slices.Contains(names, name) {
			t.Errorf("libraryClaims has %q, which the library does not", name)
		}
	}
	for name := range replicatedClaims {
		if !slices.Contains(names, name) {
			t.Errorf("replicatedClaims has %q, which the library does not", name)
		}
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if claim, ok := replicatedClaims[name]; ok {
				claim(t, runReplicated(t, name))
				return
			}
			claim, ok := libraryClaims[name]
			if !ok {
				t.Fatalf("library scenario %q has no claim test", name)
			}
			claim(t, runLibrary(t, name))
		})
	}
}

// runReplicated runs every replication of every point of the library scenario name (with its
// own seed or -seed), two at a time (internal/parallel), and returns them by point
// ("path=value, …", "" without parameters), in replication order.
func runReplicated(t *testing.T, name string) map[string][]*results.Run {
	t.Helper()
	points, seed, reps := libraryPoints(t, name)
	runs, errs, _ := parallel.Map(context.Background(), len(points)*reps, 2, func(_ context.Context, i int) (*results.Run, error) {
		return Run(points[i/reps].Scenario, seed, i%reps)
	}, nil)
	out := map[string][]*results.Run{}
	for i, r := range runs {
		if errs[i] != nil {
			t.Fatalf("%s: run %d: %v", name, i, errs[i])
		}
		key := pointKey(points[i/reps])
		out[key] = append(out[key], r)
	}
	return out
}

// outcomes counts the runs' outcomes after the trigger fault.
func outcomes(t *testing.T, runs []*results.Run, fault string) map[results.RecoveryOutcome]int {
	t.Helper()
	n := map[results.RecoveryOutcome]int{}
	for _, r := range runs {
		n[recovery(t, &r.Summary, fault).Outcome]++
	}
	return n
}

// allRecoverWithin checks that every run recovered after the trigger, each within secs.
func allRecoverWithin(c *claimer, runs []*results.Run, point, fault string, secs float64) {
	c.t.Helper()
	for _, r := range runs {
		rec := recovery(c.t, &r.Summary, fault)
		c.check(rec.Outcome == results.Recovered && rec.Seconds <= secs, "%s, seed %d: %s (%s), want recovered within %gs",
			point, r.Header.Seed, rec.Outcome, rec.Describe(), secs)
	}
}

// allStuck checks that every run stuck after the trigger, sustained by retries.
func allStuck(c *claimer, runs []*results.Run, point, fault string) {
	c.t.Helper()
	for _, r := range runs {
		rec := recovery(c.t, &r.Summary, fault)
		c.check(rec.Outcome == results.Stuck && slices.Contains(rec.Stuck.SustainedBy, "retries"),
			"%s, seed %d: %s, want stuck, sustained by retries", point, r.Header.Seed, rec.Describe())
	}
}

// replicatedClaims asserts the claims about how seeds come out after a trigger: each gets every
// replication of every point (runReplicated). The backpressure scenarios are their collapse
// twins with the limiter and the 2026-03 loop added; without them (a mutation) they stick.
var replicatedClaims = map[string]func(t *testing.T, runs map[string][]*results.Run){
	// Capacity about 1400/s under contention; a 1 s surge to 1540/s leaves a backlog whose
	// delay crosses the 100 ms timeout in some seeds and not in others.
	"spike-collapse": func(t *testing.T, runs map[string][]*results.Run) {
		rs := runs[""]
		c := claimer{t, "spike-collapse", rs[0]}
		n := outcomes(t, rs, "surge")
		share := float64(n[results.Stuck]) / float64(len(rs))
		c.check(share >= 0.25 && share <= 0.75, "%d of %d seeds stuck, want between a quarter and three quarters", n[results.Stuck], len(rs))
		for _, r := range rs {
			rec := recovery(t, &r.Summary, "surge")
			switch rec.Outcome {
			case results.Stuck:
				c.check(rec.Stuck.GoodputShare < 0.6, "seed %d: stuck at %.2f of the pre-trigger goodput, want < 0.6 (no middle state)", r.Header.Seed, rec.Stuck.GoodputShare)
			case results.Recovered:
				c.check(rec.Seconds <= 5, "seed %d: recovered after %.1fs, want within 5s", r.Header.Seed, rec.Seconds)
			default:
				c.check(false, "seed %d: %s, want stuck or recovered", r.Header.Seed, rec.Describe())
			}
		}
	},
	"spike-backpressure": func(t *testing.T, runs map[string][]*results.Run) {
		for _, p := range []string{"faults[0].for=1s", "faults[0].for=4s"} {
			c := claimer{t, "spike-backpressure", runs[p][0]}
			allRecoverWithin(&c, runs[p], p, "surge", 5)
		}
	},
	// Half the CPU is 800/s against 960/s offered: the backlog grows at 160/s and its delay
	// reaches the 1 s timeout after about 7 s of cut.
	"cpu-cut-storm": func(t *testing.T, runs map[string][]*results.Run) {
		c := claimer{t, "cpu-cut-storm", runs["faults[0].for=8s"][0]}
		allRecoverWithin(&c, runs["faults[0].for=6s"], "faults[0].for=6s", "cpu-cut", 10)
		allStuck(&c, runs["faults[0].for=8s"], "faults[0].for=8s", "cpu-cut")
		for _, r := range runs["faults[0].for=8s"] {
			rec := recovery(t, &r.Summary, "cpu-cut")
			c.check(slices.Contains(rec.Stuck.SustainedBy, "abandonedWork"), "seed %d: %s, want abandoned work among what sustains it", r.Header.Seed, rec.Describe())
		}
	},
	// The limiter admits 1500/s against 1600/s of capacity: whatever the cut left queued drains
	// at about 100/s, every queued request waiting past its timeout meanwhile.
	"cpu-cut-backpressure": func(t *testing.T, runs map[string][]*results.Run) {
		c := claimer{t, "cpu-cut-backpressure", runs["faults[0].for=16s"][0]}
		allRecoverWithin(&c, runs["faults[0].for=8s"], "faults[0].for=8s", "cpu-cut", 30)
		allRecoverWithin(&c, runs["faults[0].for=16s"], "faults[0].for=16s", "cpu-cut", 90)
		for _, r := range runs["faults[0].for=16s"] {
			rec := recovery(t, &r.Summary, "cpu-cut")
			c.check(rec.Seconds >= 30, "seed %d: recovered after %.1fs, want a long outage (≥ 30s) while the backlog drains", r.Header.Seed, rec.Seconds)
		}
	},
	// A pause longer than the timeout sends every held operation again: the burst at resume
	// is up to three times the pause's arrivals.
	"pause-collapse": func(t *testing.T, runs map[string][]*results.Run) {
		c := claimer{t, "pause-collapse", runs["faults[0].for=2s"][0]}
		allRecoverWithin(&c, runs["faults[0].for=1500ms"], "faults[0].for=1500ms", "gc-pause", 10)
		allStuck(&c, runs["faults[0].for=2s"], "faults[0].for=2s", "gc-pause")
	},
	"pause-backpressure": func(t *testing.T, runs map[string][]*results.Run) {
		for _, p := range []string{"faults[0].for=2s", "faults[0].for=8s"} {
			c := claimer{t, "pause-backpressure", runs[p][0]}
			allRecoverWithin(&c, runs[p], p, "gc-pause", 5)
		}
	},
}

// TestLibraryWellFormed checks what every library scenario must have: a name matching its
// file, a description, a one-sentence claim, a canonical text that reads back to itself.
func TestLibraryWellFormed(t *testing.T) {
	if len(Names()) < 10 {
		t.Errorf("Names() = %d scenarios, want at least 10", len(Names()))
	}
	if !slices.Contains(Names(), Default()) {
		t.Errorf("Default() = %q, not in Names() %v", Default(), Names())
	}
	for _, name := range Names() {
		sc, err := Lookup(name)
		if err != nil {
			t.Errorf("Lookup(%q): %v", name, err)
			continue
		}
		if sc.Name != name {
			t.Errorf("Lookup(%q).Name = %q, want the file's name", name, sc.Name)
		}
		if sc.Description == "" || sc.Claim == "" {
			t.Errorf("%s: description %q, claim %q: want both", name, sc.Description, sc.Claim)
		}
		if n := strings.Count(strings.TrimSuffix(sc.Claim, "."), ". "); n > 0 || !strings.HasSuffix(sc.Claim, ".") {
			t.Errorf("%s: claim %q: want one sentence ending with a full stop", name, sc.Claim)
		}
		text := sc.String()
		again, err := parseFS(library, "library/"+name+".yaml", name+".yaml", []byte(text))
		if err != nil {
			t.Errorf("%s: canonical text does not read back: %v\n%s", name, err, text)
			continue
		}
		if again.String() != text {
			t.Errorf("%s: String() does not round-trip:\n%s\nthen\n%s", name, text, again.String())
		}
	}
}

// TestDeterminism: the same scenario and seed give the same summary and header, run twice.
func TestDeterminism(t *testing.T) {
	for _, name := range []string{"spike", "connection-storm", "policy-comparison"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sc, err := Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			a, err := Run(sc, sc.Seed, 1)
			if err != nil {
				t.Fatal(err)
			}
			b, err := Run(sc, sc.Seed, 1)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(a.Header, b.Header) {
				t.Errorf("Run(%s, %d, 1) twice: headers differ:\n%+v\n%+v", name, sc.Seed, a.Header, b.Header)
			}
			if fa, fb := fmt.Sprintf("%#v", a.Summary), fmt.Sprintf("%#v", b.Summary); fa != fb {
				t.Errorf("Run(%s, %d, 1) twice: summaries differ:\n%s\n%s", name, sc.Seed, fa, fb)
			}
			c, err := Run(sc, sc.Seed, 2)
			if err != nil {
				t.Fatal(err)
			}
			if c.Header.Seed == a.Header.Seed || fmt.Sprintf("%#v", c.Summary) == fmt.Sprintf("%#v", a.Summary) {
				t.Errorf("Run(%s, %d, 2) = the same seed or summary as replication 1", name, sc.Seed)
			}
		})
	}
}
