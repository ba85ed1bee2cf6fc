package client

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/client/selection"
	"github.com/overloadsim/overloadsim/client/workload"
	"github.com/overloadsim/overloadsim/dist"
	"github.com/overloadsim/overloadsim/field"
	"github.com/overloadsim/overloadsim/server"
	"github.com/overloadsim/overloadsim/server/failpoint"
	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
)

// world is a group of clients against one node.
type world struct {
	loop    *sim.Loop
	cluster *server.Cluster
	clients []*Client
	group   *Group
	done    []AppResult
	nDone   int
	discard bool // count results instead of keeping them (benchmarks)
}

func (w *world) AppOperationDone(now sim.Time, g *Group, r *AppResult) {
	w.nDone++
	if !w.discard {
		w.done = append(w.done, *r)
	}
}

func newWorld(t testing.TB, node server.Config, o Options, n int, wl Workload, delay time.Duration) *world {
	t.Helper()
	loop := sim.NewLoop()
	cl, err := server.NewCluster(loop, server.ClusterConfig{Nodes: []server.Config{node}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	w := &world{loop: loop, cluster: cl}
	s := cl.Nodes()[0]
	for i := 0; i < n; i++ {
		name := "client/app/" + string(rune('a'+i%26)) + string(rune('0'+i/26))
		link := wire.NewLink(dist.Const(delay), sim.NewStream(1, "link/"+name))
		c, err := New(loop, o, selection.Single, []Node{{Address: s.Address(), Handler: s, Link: link}}, 1, name)
		if err != nil {
			t.Fatal(err)
		}
		w.clients = append(w.clients, c)
	}
	g, err := NewGroup(loop, "app", w.clients, wl, 1)
	if err != nil {
		t.Fatal(err)
	}
	g.SetObserver(w)
	w.group = g
	return w
}

func finds() (*workload.Mix, []OpKind) {
	m, _ := workload.NewMix([]workload.Weight{{Kind: "find", Weight: 1}})
	return m, []OpKind{Find}
}

func (w *world) attempts() uint64 { return w.group.DriverStats().AttemptsStarted }

// TestOpenLoopHealthy: below capacity every operation succeeds with one attempt (amplification
// 1), and the offered count matches the Poisson process's integrated rate within 4σ.
func TestOpenLoopHealthy(t *testing.T) {
	p, _ := workload.Constant(200)
	mix, kinds := finds()
	w := newWorld(t, server.Config{Address: "db", Workers: 8, Service: dist.Const(time.Millisecond), RejectCost: server.DefaultRejectCost, HandshakeCost: server.DefaultHandshakeCost},
		DefaultOptions(), 4, Workload{ClientStats: true, Arrivals: workload.Poisson(p), Mix: mix, Kinds: kinds, Stop: sim.Time(60 * time.Second)}, 500*time.Microsecond)
	w.loop.RunUntil(sim.Time(61 * time.Second))
	st := w.group.Stats()
	if math.Abs(float64(st.Issued)-12000) > 4*math.Sqrt(12000) {
		t.Errorf("issued %d, want 12000 ± 4σ", st.Issued)
	}
	if st.Succeeded != st.Issued || w.attempts() != st.Issued {
		t.Errorf("issued %d, succeeded %d, attempts %d: want all equal", st.Issued, st.Succeeded, w.attempts())
	}
	for _, c := range w.clients { // arrivals are spread over the clients in turn
		if n := c.Snapshot().OpsIssued; n < st.Issued/4 || n > st.Issued/4+1 {
			t.Errorf("%s issued %d of %d", c.Name(), n, st.Issued)
		}
	}
}

// TestClosedLoop: N threads with think time Z against a server with service S and ample workers
// complete N/(Z + S + RTT) operations per second (the interactive response time law, Denning &
// Buzen 1978).
func TestClosedLoop(t *testing.T) {
	mix, kinds := finds()
	w := newWorld(t, server.Config{Address: "db", Workers: 64, Service: dist.Const(4 * time.Millisecond), RejectCost: server.DefaultRejectCost, HandshakeCost: server.DefaultHandshakeCost},
		DefaultOptions(), 2, Workload{ClientStats: true, Threads: 5, Think: dist.Const(5 * time.Millisecond), Mix: mix, Kinds: kinds,
			Stop: sim.Time(10 * time.Second)}, 500*time.Microsecond)
	w.loop.RunUntil(sim.Time(11 * time.Second))
	got := float64(w.group.Stats().Succeeded) / 10
	want := 10 / (5e-3 + 4e-3 + 1e-3) // 10 threads, cycle 10 ms
	if math.Abs(got-want) > 0.01*want {
		t.Errorf("throughput %.1f/s, want %.1f/s", got, want)
	}
}

// TestAppRetryWrapper: an application's retries stack on the driver's. A non-retryable server
// error with 3 application attempts and exponential backoff (base 10 ms): 3 driver operations,
// one attempt each, 10 + 20 ms of application backoff.
func TestAppRetryWrapper(t *testing.T) {
	mix, kinds := finds()
	node := server.Config{Address: "db", Workers: 8, Service: dist.Const(time.Millisecond), RejectCost: server.DefaultRejectCost, HandshakeCost: server.DefaultHandshakeCost}
	w := newWorld(t, node, DefaultOptions(), 1, Workload{ClientStats: true, Threads: 1, Mix: mix, Kinds: kinds, Stop: 1,
		Retry: AppRetry{Attempts: 3, Backoff: BackoffExponential, Base: 10 * time.Millisecond}}, 0)
	fp, _ := failpoint.New(failpoint.Config{Mode: failpoint.AlwaysOn(), FailCommands: []string{"find"}, ErrorCode: 2})
	w.cluster.Node("db").SetFailPoint(0, fp)
	w.loop.RunUntil(sim.Time(time.Second))
	if len(w.done) != 1 {
		t.Fatalf("%d application operations finished, want 1", len(w.done))
	}
	r := w.done[0]
	if r.OK || r.Attempts != 3 || w.attempts() != 3 || w.group.Stats().AppRetries != 2 {
		t.Errorf("ok=%v, %d driver operations, %d attempts; want failure after 3 and 3", r.OK, r.Attempts, w.attempts())
	}
	// Discovery waits for the monitor (handshake 2 ms), then 3 × 1 ms service + 30 ms backoff.
	if lat := r.Done.Sub(r.Issued); lat < 33*time.Millisecond || lat > 36*time.Millisecond {
		t.Errorf("latency %v, want 33–36 ms", lat)
	}
}

// TestTimeoutRetryCollapse: the classic collapse: per-attempt timeouts shorter than the service
// time and application retries make the server do the same work again and again for nobody.
// Each application operation here costs the server three full services, all of them wasted.
func TestTimeoutRetryCollapse(t *testing.T) {
	mix, kinds := finds()
	node := server.Config{Address: "db", Workers: 64, Service: dist.Const(200 * time.Millisecond), RejectCost: server.DefaultRejectCost, HandshakeCost: server.DefaultHandshakeCost}
	w := newWorld(t, node, DefaultOptions(), 1, Workload{ClientStats: true, Threads: 1, Mix: mix, Kinds: kinds, Stop: 1,
		Retry: AppRetry{Attempts: 3, PerAttemptTimeout: 50 * time.Millisecond}}, 0)
	w.loop.RunUntil(sim.Time(2 * time.Second))
	st := w.cluster.Node("db").Snapshot(w.loop.Now())
	if len(w.done) != 1 || w.done[0].OK || w.done[0].Class != ErrTimeout {
		t.Fatalf("results %+v, want one timeout", w.done)
	}
	// Each attempt reaches the server a few ms after it was issued (the first waits for the
	// monitor; each later one for a new connection, since a timed-out attempt's connection is
	// closed), so a little more than 150 ms of each 200 ms service comes after the client left.
	if st.Completed != 3 || st.WastedBusyTime < 450*time.Millisecond || st.WastedBusyTime > 465*time.Millisecond {
		t.Errorf("server completed %d, wasted %v; want 3 and 450–465ms", st.Completed, st.WastedBusyTime)
	}
	if c := w.clients[0].Snapshot(); c.ConnectionsCreated != 3 || c.ConnectionsClosed != 3 {
		t.Errorf("connections created %d closed %d; want 3 and 3 (timed-out attempts close theirs)", c.ConnectionsCreated, c.ConnectionsClosed)
	}
	c := w.clients[0].Snapshot()
	if c.AttemptsStarted != c.AttemptsSucceeded+c.AttemptsFailed {
		t.Errorf("command monitoring: %d started, %d+%d", c.AttemptsStarted, c.AttemptsSucceeded, c.AttemptsFailed)
	}
}

// TestCSOT: with timeoutMS the driver sends the remaining time as maxTimeMS, so the server
// aborts work the client has given up on (MaxTimeMSExpired) instead of wasting it.
func TestCSOT(t *testing.T) {
	mix, kinds := finds()
	node := server.Config{Address: "db", Workers: 64, Service: dist.Const(200 * time.Millisecond), RejectCost: server.DefaultRejectCost, HandshakeCost: server.DefaultHandshakeCost}
	o := DefaultOptions()
	o.Timeout = 50 * time.Millisecond
	w := newWorld(t, node, o, 1, Workload{ClientStats: true, Threads: 1, Mix: mix, Kinds: kinds, Stop: 1}, 0)
	w.loop.RunUntil(sim.Time(2 * time.Second))
	st := w.cluster.Node("db").Snapshot(w.loop.Now())
	if len(w.done) != 1 || w.done[0].Class != ErrTimeout || st.MaxTimeExpired != 1 || st.WastedBusyTime != 0 {
		t.Errorf("results %+v; server aborted %d, wasted %v; want a timeout, 1 abort, no waste", w.done, st.MaxTimeExpired, st.WastedBusyTime)
	}
}

func TestWorkloadValidation(t *testing.T) {
	mix, kinds := finds()
	p, _ := workload.Constant(1)
	for _, tc := range []struct {
		w    Workload
		want string
	}{
		{Workload{Mix: mix, Kinds: kinds}, "needs arrivals (open loop) or threads ≥ 1"},
		{Workload{Arrivals: workload.Poisson(p), Threads: 2, Mix: mix, Kinds: kinds}, "not both"},
		{Workload{Threads: 1}, "mix: empty"},
		{Workload{Threads: 1, Mix: mix, Kinds: kinds, Retry: AppRetry{Attempts: -1}}, "appRetry.attempts: -1"},
		{Workload{Threads: 1, Mix: mix, Kinds: kinds, Timeout: -time.Second}, "timeout: -1s"},
		{Workload{Threads: 1, Mix: mix, Kinds: kinds, Retry: AppRetry{Attempts: 2, Base: -time.Millisecond}}, "appRetry.base: -1ms: must be ≥ 0"},
	} {
		err := tc.w.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Validate() = %v, want %q", err, tc.want)
		}
		for _, part := range field.Parts(err) {
			if fe := (*field.Error)(nil); !errors.As(part, &fe) {
				t.Errorf("Validate(): %q holds no *field.Error", part)
			}
		}
	}
}

// TestGroupDriverStatsAddUp: a group's running total of its clients' counters, kept as they
// count, equals the sum of their Snapshots field for field, at every point of an overloaded run
// with adaptive retries (retries, refusals, backoff, token levels all move); its token levels
// are the clients' buckets read in order. Clients with the same options share one copy. A
// client cannot count into two groups.
func TestGroupDriverStatsAddUp(t *testing.T) {
	p, _ := workload.Constant(3000)
	mix, kinds := finds()
	o := DefaultOptions()
	o.Retry.AdaptiveRetries = true
	node := server.Config{Address: "db", Workers: 4, Service: dist.Const(time.Millisecond),
		RejectCost: server.DefaultRejectCost, HandshakeCost: server.DefaultHandshakeCost,
		RequestLimiter: server.RequestLimiterConfig{Enabled: true, AdmissionRatePerSec: 1000, AdmissionBurstCapacitySecs: 0.1}}
	w := newWorld(t, node, o, 5, Workload{ClientStats: true, Arrivals: workload.Poisson(p), Mix: mix, Kinds: kinds, Stop: sim.Time(4 * time.Second)}, 500*time.Microsecond)
	for _, at := range []time.Duration{0, 500 * time.Millisecond, 2 * time.Second, 5 * time.Second} {
		w.loop.RunUntil(sim.Time(at))
		var sum Stats
		wantMin, wantSum, wantN := math.NaN(), 0.0, 0
		for _, c := range w.clients {
			st := c.Snapshot()
			sum.Add(&st)
			if wantN == 0 || st.RetryTokens < wantMin {
				wantMin = st.RetryTokens
			}
			wantSum += st.RetryTokens
			wantN++
		}
		got := w.group.DriverStats()
		if !math.IsNaN(got.RetryTokens) {
			t.Errorf("at %v: DriverStats().RetryTokens = %v, want NaN", at, got.RetryTokens)
		}
		got.RetryTokens, sum.RetryTokens = 0, 0
		if got != sum {
			t.Errorf("at %v: DriverStats() =\n%+v\nwant the sum of the clients' Snapshots\n%+v", at, got, sum)
		}
		if q := w.group.DriverQueue(); q != int(sum.WaitsBegun-sum.WaitsEnded) {
			t.Errorf("at %v: DriverQueue() = %d, want %d, the clients' waits begun less ended", at, q, sum.WaitsBegun-sum.WaitsEnded)
		}
		if min, s, n := w.group.RetryTokens(); min != wantMin || s != wantSum || n != wantN {
			t.Errorf("at %v: RetryTokens() = %v, %v, %d; want %v, %v, %d", at, min, s, n, wantMin, wantSum, wantN)
		}
		if at == 2*time.Second && (sum.Retries == 0 || sum.RetriesRefusedNoToken == 0 && sum.BackoffTotal == 0) {
			t.Fatalf("at %v: %+v: the run is not overloaded enough to move the retry counters", at, sum)
		}
	}
	for i, c := range w.clients {
		if c.opts != w.clients[0].opts {
			t.Errorf("client %d holds its own copy of the group's options, want the one shared copy", i)
		}
	}
	if _, err := NewGroup(w.loop, "again", w.clients[:1], w.group.w, 1); err == nil || !strings.Contains(err.Error(), "already belongs to group app") {
		t.Errorf("NewGroup with a client of another group: %v, want a refusal", err)
	}
}

// TestClientStatsKept: a group keeps its clients' own counters only when asked
// (Workload.ClientStats); otherwise they count into the group's totals alone, Snapshot refuses
// to answer for one of them, and KeepStats gives it counters from then on.
func TestClientStatsKept(t *testing.T) {
	p, _ := workload.Constant(200)
	mix, kinds := finds()
	node := server.Config{Address: "db", Workers: 8, Service: dist.Const(time.Millisecond), RejectCost: server.DefaultRejectCost, HandshakeCost: server.DefaultHandshakeCost}
	for _, keep := range []bool{true, false} {
		w := newWorld(t, node, DefaultOptions(), 2, Workload{ClientStats: keep, Arrivals: workload.Poisson(p), Mix: mix, Kinds: kinds,
			Stop: sim.Time(2 * time.Second)}, 0)
		w.loop.RunUntil(sim.Time(time.Second))
		c := w.clients[0]
		if !keep {
			func() {
				defer func() {
					if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "Workload.ClientStats") {
						t.Errorf("Snapshot without kept counters: recovered %v, want a panic naming Workload.ClientStats", r)
					}
				}()
				c.Snapshot()
			}()
			c.KeepStats()
		}
		before := c.Snapshot().OpsIssued
		w.loop.RunUntil(sim.Time(3 * time.Second))
		total := w.group.DriverStats()
		if n := c.Snapshot().OpsIssued - before; n == 0 || n >= total.OpsIssued {
			t.Errorf("keep=%v: the client counted %d operations in the second half of %d in all", keep, n, total.OpsIssued)
		}
		if total.OpsIssued != w.group.Stats().Issued {
			t.Errorf("keep=%v: the group's driver totals count %d operations, the application issued %d", keep, total.OpsIssued, w.group.Stats().Issued)
		}
	}
}

// TestIdleClientsHoldNoRequests: between checks a monitor holds no request record, and an
// established connection none either: the Connect request went back to the group's pool when
// it was answered. So the requests a group holds follow how many are on the wire at once, not how
// many clients and connections it has.
func TestIdleClientsHoldNoRequests(t *testing.T) {
	p, _ := workload.Constant(200)
	mix, kinds := finds()
	w := newWorld(t, server.Config{Address: "db", Workers: 8, Service: dist.Const(time.Millisecond), RejectCost: server.DefaultRejectCost, HandshakeCost: server.DefaultHandshakeCost},
		DefaultOptions(), 20, Workload{Arrivals: workload.Poisson(p), Mix: mix, Kinds: kinds, Stop: sim.Time(30 * time.Second)}, 500*time.Microsecond)
	w.loop.RunUntil(sim.Time(35 * time.Second)) // the last heartbeats were answered a while ago
	conns := 0
	for _, c := range w.clients {
		for _, sv := range c.servers {
			if sv.mon.pending || sv.mon.req != nil {
				t.Errorf("%s: monitor between checks holds a request (pending %v)", c.Name(), sv.mon.pending)
			}
			for _, pc := range sv.pool.idle {
				conns++
				if pc.req != nil {
					t.Errorf("%s: an idle connection holds its %v request", c.Name(), pc.req.Cmd)
				}
			}
		}
	}
	if conns == 0 {
		t.Fatal("no idle connections to check")
	}
	if n := len(w.group.recs.reqs); n == 0 || n > 2*len(w.clients) {
		t.Errorf("the group's pool holds %d requests for %d clients", n, len(w.clients))
	}
}
