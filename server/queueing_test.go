package server

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/dist"
	"github.com/overloadsim/overloadsim/internal/queueing"
	"github.com/overloadsim/overloadsim/internal/stats"
	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
	"github.com/overloadsim/overloadsim/wire/wiretest"
)

// runQueue drives one node with Poisson arrivals and returns its statistics over
// [warmup, horizon].
func runQueue(t *testing.T, cfg Config, lambda float64, horizon, warmup time.Duration, seed uint64) Stats {
	t.Helper()
	loop, s, p := newQueue(t, cfg, lambda, horizon, seed)
	p.Keep = false
	loop.RunUntil(sim.Time(warmup))
	a := s.Snapshot(loop.Now())
	loop.RunUntil(sim.Time(horizon))
	return diff(a, s.Snapshot(loop.Now()))
}

// newQueue is a node fed with Poisson finds at lambda until horizon by a probe on a link without
// delay, which keeps every reply.
func newQueue(t *testing.T, cfg Config, lambda float64, horizon time.Duration, seed uint64) (*sim.Loop, *Server, *wiretest.Client) {
	t.Helper()
	loop := sim.NewLoop()
	cfg.Address = "node"
	s, err := New(loop, cfg, seed)
	if err != nil {
		t.Fatal(err)
	}
	p := newProbe(loop, s, true)
	startPoisson(p, lambda, wire.Find, sim.Time(horizon), seed)
	return loop, s, p
}

// checkLittle asserts Little's law L = λW (Little, Operations Research 9(3), 1961) on the worker
// queue: time-average length = dequeue rate × mean wait. Both sides come from one run and differ
// only by the customers in the queue at the window's edges, well under 2 % for these lengths.
func checkLittle(t *testing.T, st Stats, span time.Duration, what string) {
	t.Helper()
	T := span.Seconds()
	L := st.QueueArea / T
	lw := float64(st.Dequeued) / T * st.QueueWait.Seconds() / math.Max(float64(st.Dequeued), 1)
	if math.Abs(L-lw) > 0.02*math.Max(lw, 0.02) {
		t.Errorf("%s: Little's law on the worker queue: L = %.5f, λW = %.5f", what, L, lw)
	}
}

// TestQueueingTheory validates the execution stage against closed forms. Each case runs 30
// independent replications and requires the 95 % Student-t interval of the mean wait Wq to
// contain the formula's value; Little's law is checked on every replication. Seeds are fixed,
// so the test is deterministic; a correct model misses a given 95 % interval for one seed set in
// twenty, and these seed sets were not chosen to pass (they are the first ones tried).
func TestQueueingTheory(t *testing.T) {
	ms10 := 10 * time.Millisecond
	exp10, _ := dist.Exp(ms10)
	lognormal10, _ := dist.LogNormal(ms10, 0.5)
	cases := []struct {
		name    string
		workers int
		service dist.Duration
		lambda  float64
		want    float64
		source  string
	}{
		{"M/M/1", 1, exp10, 70, queueing.MM1Wait(70, 100), "Kleinrock 1975 eq. 3.26"},
		{"M/M/c", 4, exp10, 320, queueing.MMcWait(320, 100, 4), "Erlang C, Kleinrock 1975 eq. 3.43"},
		{"M/D/1", 1, dist.Const(ms10), 70, queueing.MD1Wait(70, 100), "Pollaczek–Khinchine, E[S²] = 1/μ²"},
		{"M/G/1 lognormal", 1, lognormal10, 70,
			queueing.MG1Wait(70, lognormal10.Mean().Seconds(), lognormal10.SecondMoment()),
			"Pollaczek–Khinchine, Kleinrock 1975 eq. 5.76"},
	}
	const (
		reps    = 30
		horizon = 400 * time.Second
		warmup  = 20 * time.Second
	)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var waits []float64
			for seed := uint64(1); seed <= reps; seed++ {
				st := runQueue(t, Config{Workers: tc.workers, Service: tc.service}, tc.lambda, horizon, warmup, seed)
				waits = append(waits, st.QueueWait.Seconds()/float64(st.Dequeued))
				checkLittle(t, st, horizon-warmup, fmt.Sprintf("seed %d", seed))
				rho := tc.lambda * tc.service.Mean().Seconds() / float64(tc.workers)
				if u := st.BusyArea / st.CapacityArea; math.Abs(u-rho) > 0.03 {
					t.Errorf("seed %d: utilisation %.4f, want ρ = %.3f ± 0.03", seed, u, rho)
				}
			}
			m, h := stats.MeanCI(waits, 0.95)
			t.Logf("Wq = %.6f ± %.6f s; %s gives %.6f s", m, h, tc.source, tc.want)
			if math.Abs(m-tc.want) > h {
				t.Errorf("mean wait %.6f ± %.6f s does not contain %.6f s (%s)", m, h, tc.want, tc.source)
			}
		})
	}
}

// TestUSL: with n requests always in flight and enough workers, throughput follows the Universal
// Scalability Law X(n) = n·X₁/(1 + σ(n−1) + κn(n−1)) (Gunther, Guerrilla Capacity Planning,
// 2007, eq. 4.31). Service is deterministic, so after the first round every command starts with
// exactly n executing and the match is exact up to the first round's edge effect (< 0.5 %).
func TestUSL(t *testing.T) {
	const sigma, kappa = 0.05, 0.002
	for _, n := range []int{1, 2, 8, 32} {
		loop := sim.NewLoop()
		s, err := New(loop, Config{Address: "n", Workers: 64, Service: dist.Const(10 * time.Millisecond),
			USLSigma: sigma, USLKappa: kappa}, 1)
		if err != nil {
			t.Fatal(err)
		}
		p := newProbe(loop, s, true)
		p.Keep = false
		// A closed loop keeps n requests in flight: each reply immediately sends the next one.
		p.OnReply = func(now sim.Time, _ wiretest.Reply) { p.Send(now, wire.Find, nil) }
		for i := 0; i < n; i++ {
			p.Send(0, wire.Find, nil)
		}
		const T = 100 * time.Second
		loop.RunUntil(sim.Time(T))
		got := float64(s.Snapshot(loop.Now()).Completed) / T.Seconds()
		want := queueing.USLThroughput(n, 100, sigma, kappa)
		if math.Abs(got-want) > 0.005*want {
			t.Errorf("n=%d: throughput %.3f/s, USL X(n) = %.3f/s", n, got, want)
		}
	}
}

// TestInFlightPenalty: service = base + k·n for a command started with n executing.
func TestInFlightPenalty(t *testing.T) {
	loop := sim.NewLoop()
	s, _ := New(loop, Config{Address: "n", Workers: 4, Service: dist.Const(10 * time.Millisecond),
		InFlightPenalty: time.Millisecond}, 1)
	p := newProbe(loop, s, true)
	for i := 0; i < 3; i++ {
		p.Send(0, wire.Find, nil)
	}
	loop.Run()
	for i, r := range p.Replies {
		want := sim.Time(10*time.Millisecond + time.Duration(i+1)*time.Millisecond)
		if r.Got != want {
			t.Errorf("command %d (started with %d executing) replied at %v, want %v", i, i+1, r.Got, want)
		}
	}
}
