package client

import (
	"runtime"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/client/retry"
	"github.com/overloadsim/overloadsim/client/workload"
	"github.com/overloadsim/overloadsim/dist"
	"github.com/overloadsim/overloadsim/server"
	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/sim/simtest"
)

// referenceWorld is the reference scenario, built in code: one node with 8 workers and
// exponential service of mean 5 ms behind an ingress request limiter of 1000/s with a 0.1 s
// burst; 100 clients running mongodb-2026-03 with adaptive retries; Poisson arrivals at
// 2000 ops/s; a one-way delay of 0.5 ms.
func referenceWorld(tb testing.TB) *world {
	o := DefaultOptions()
	o.Retry.AdaptiveRetries = true
	return referenceWorldWith(tb, o)
}

// referenceWorldWith is the reference scenario with the driver options o.
func referenceWorldWith(tb testing.TB, o Options) *world {
	svc, _ := dist.Exp(5 * time.Millisecond)
	node := server.Config{Address: "db", Workers: 8, Service: svc, RejectCost: server.DefaultRejectCost, HandshakeCost: server.DefaultHandshakeCost,
		RequestLimiter: server.RequestLimiterConfig{Enabled: true, AdmissionRatePerSec: 1000, AdmissionBurstCapacitySecs: 0.1}}
	p, _ := workload.Constant(2000)
	mix, kinds := finds()
	w := newWorld(tb, node, o, 100, Workload{Arrivals: workload.Poisson(p), Mix: mix, Kinds: kinds, Stop: sim.Never},
		500*time.Microsecond)
	w.discard = true
	return w
}

// BenchmarkReference measures the model's speed on the reference scenario in steady state: loop
// events per second of wall time, and allocations per attempt. The warm-up is 25 s of virtual
// time because the scenario has two phases: for about 17 s retries pile up (some 1900 operations
// in backoff at once), then the clients' retry token buckets run dry and the pools of operation
// records stop growing. It then runs a bare M/M/8 simulator with the reference's arrival and
// service rates (simtest.MMc) for as many events and reports the model's events per second as a
// share of the bare loop's, a ratio that holds on a noisy machine.
//
//	go test -run '^$' -bench BenchmarkReference -benchmem ./client
func BenchmarkReference(b *testing.B) {
	events, n, mallocs := steadyState(b, referenceWorld(b))
	secs := b.Elapsed().Seconds()
	floor := simtest.NewMMc(8, 2000, 200) // the reference's λ and μ per worker
	floor.Run(100000)
	t0 := time.Now()
	floor.Run(int(events))
	b.ReportMetric(time.Since(t0).Seconds()/secs, "share-of-floor")
	b.ReportMetric(float64(events)/secs, "events/s")
	b.ReportMetric(float64(mallocs)/float64(max(n, 1)), "allocs/attempt")
	b.ReportMetric(float64(n)/float64(b.N), "attempts/event")
}

// steadyState runs w for 25 s of virtual time (see BenchmarkReference), then b.N events timed,
// and returns the events, the attempts and the allocations of the timed part.
func steadyState(b *testing.B, w *world) (events, attempts, mallocs uint64) {
	w.loop.RunUntil(sim.Time(25 * time.Second))
	fired, att := w.loop.Fired(), w.attempts()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w.loop.Step()
	}
	b.StopTimer()
	runtime.ReadMemStats(&m1)
	return w.loop.Fired() - fired, w.attempts() - att, m1.Mallocs - m0.Mallocs
}

// BenchmarkPolicies is BenchmarkReference with each retry policy of another stack in place of
// mongodb-2026-03 (the reference itself runs first, for the ratio): loop events per second in
// steady state, and allocations per attempt, which must stay 0.
//
//	go test -run '^$' -bench BenchmarkPolicies -benchmem ./client
func BenchmarkPolicies(b *testing.B) {
	for _, name := range []string{"reference", retry.NameGRPC, retry.NameAWSStandard, retry.NameAWSAdaptive,
		retry.NameFinagle, retry.NameEnvoy, retry.NameSRE, retry.NameCustom} {
		b.Run(name, func(b *testing.B) {
			o := DefaultOptions()
			if name == "reference" {
				o.Retry.AdaptiveRetries = true
			} else {
				o.RetryPolicy = name
			}
			if name == retry.NameAWSAdaptive {
				// Its limiter holds arrivals back: under open-loop arrivals above its rate the
				// client's queue of held operations would grow for ever without a deadline.
				o.Timeout = 2 * time.Second
			}
			events, n, mallocs := steadyState(b, referenceWorldWith(b, o))
			b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
			b.ReportMetric(float64(mallocs)/float64(max(n, 1)), "allocs/attempt")
		})
	}
}

// BenchmarkReferenceRun runs the whole 60 s reference scenario per iteration, set-up included,
// and reports loop events per wall second over all iterations and the heap per client.
func BenchmarkReferenceRun(b *testing.B) {
	var events uint64
	for i := 0; i < b.N; i++ {
		var m0, m1 runtime.MemStats
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&m0)
		b.StartTimer()
		w := referenceWorld(b)
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&m1)
		b.ReportMetric(float64(m1.HeapAlloc-m0.HeapAlloc)/100, "bytes/client")
		b.StartTimer()
		w.loop.RunUntil(sim.Time(60 * time.Second))
		events += w.loop.Fired()
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}
