package server

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/dist"
	"github.com/overloadsim/overloadsim/field"
	"github.com/overloadsim/overloadsim/server/failpoint"
	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
	"github.com/overloadsim/overloadsim/wire/wiretest"
)

var ms = func(n int) sim.Time { return sim.Time(time.Duration(n) * time.Millisecond) }

// TestFailPointThroughServer checks that the node applies failCommand outcomes as MongoDB does:
// an injected error replies at once with the given code and labels (or the server's own labels
// when errorLabels is absent), closeConnection answers with a network error and closes the
// connection, blockConnection delays the command before its outcome, and commands not named in
// failCommands are untouched and do not consume a times count.
func TestFailPointThroughServer(t *testing.T) {
	overload := []string{"RetryableError", "SystemOverloadedError"}
	tests := []struct {
		name  string
		fp    failpoint.Config
		cmds  []wire.Command
		check func(t *testing.T, p *wiretest.Client, s *Server)
	}{
		{"times 2: two finds fail with the given code and labels, the third succeeds; inserts pass",
			failpoint.Config{Mode: failpoint.Times(2), FailCommands: []string{"find"},
				ErrorCode: 462, ErrorLabels: overload, HasErrorLabels: true},
			[]wire.Command{wire.Find, wire.Insert, wire.Find, wire.Find},
			func(t *testing.T, p *wiretest.Client, s *Server) {
				want := []wire.Code{462, 0, 462, 0}
				for i, r := range p.Replies {
					if r.Code != want[i] {
						t.Errorf("reply %d (%v): code %v, want %v", i, r.Cmd, r.Code, want[i])
					}
				}
				if l := p.Replies[0].Labels; l != wire.SystemOverloadedError|wire.RetryableError {
					t.Errorf("labels %v, want exactly the failpoint's", l)
				}
			}},
		{"errorLabels absent: the server's own labels (a retryable write error on insert)",
			failpoint.Config{Mode: failpoint.AlwaysOn(), FailCommands: []string{"insert"}, ErrorCode: 91},
			[]wire.Command{wire.Insert},
			func(t *testing.T, p *wiretest.Client, s *Server) {
				if r := p.Replies[0].Reply; r.Code != 91 || r.Labels != wire.RetryableWriteError {
					t.Errorf("reply %v %v, want ShutdownInProgress [RetryableWriteError]", r.Code, r.Labels)
				}
			}},
		{"closeConnection: network error, connection closed, later commands fail too",
			failpoint.Config{Mode: failpoint.Times(1), FailCommands: []string{"find"}, CloseConnection: true},
			[]wire.Command{wire.Find, wire.Find},
			func(t *testing.T, p *wiretest.Client, s *Server) {
				if p.NetErrs != 2 || !p.Conn.Closed {
					t.Errorf("net errors %d, closed %v; want 2, true", p.NetErrs, p.Conn.Closed)
				}
			}},
		{"blockConnection alone: delayed by blockTimeMS, then executed normally",
			failpoint.Config{Mode: failpoint.AlwaysOn(), FailCommands: []string{"find"},
				BlockConnection: true, BlockTimeMS: 100},
			[]wire.Command{wire.Find},
			func(t *testing.T, p *wiretest.Client, s *Server) {
				if r := p.Replies[0]; !r.OK() || r.Got != ms(110) {
					t.Errorf("reply %v at %v, want OK at 110ms (100 ms block + 10 ms service)", r.Reply, r.Got)
				}
			}},
		{"blockConnection with errorCode: the error comes after the block",
			failpoint.Config{Mode: failpoint.AlwaysOn(), FailCommands: []string{"find"},
				BlockConnection: true, BlockTimeMS: 100, ErrorCode: 2, ErrorLabels: overload, HasErrorLabels: true},
			[]wire.Command{wire.Find},
			func(t *testing.T, p *wiretest.Client, s *Server) {
				if r := p.Replies[0]; r.Code != wire.BadValue || r.Got != ms(100) {
					t.Errorf("reply %v at %v, want BadValue at 100ms", r.Code, r.Got)
				}
			}},
		{"skip 1: the first find passes, later ones fail",
			failpoint.Config{Mode: failpoint.Skip(1), FailCommands: []string{"find"}, ErrorCode: 2},
			[]wire.Command{wire.Find, wire.Find, wire.Find},
			func(t *testing.T, p *wiretest.Client, s *Server) {
				want := []wire.Code{0, 2, 2}
				for i, r := range p.Replies {
					if r.Code != want[i] {
						t.Errorf("reply %d: %v, want %v", i, r.Code, want[i])
					}
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			loop := sim.NewLoop()
			s, _ := New(loop, Config{Address: "n", Workers: 1, Service: dist.Const(10 * time.Millisecond)}, 1)
			fp, err := failpoint.New(tc.fp)
			if err != nil {
				t.Fatal(err)
			}
			s.SetFailPoint(0, fp)
			p := newProbe(loop, s, true)
			for i, c := range tc.cmds {
				// one at a time, so replies come back in order
				p.Send(sim.Time(i)*ms(1000), c, func(r *wire.Request) { r.Write = c == wire.Insert })
			}
			loop.Run()
			checkQueues(t, s)
			if len(p.Replies) != len(tc.cmds) {
				t.Fatalf("%d replies for %d commands", len(p.Replies), len(tc.cmds))
			}
			tc.check(t, p, s)
		})
	}
}

// TestMaxTimeMS: a command with maxTimeMS is aborted at its deadline with MaxTimeMSExpired
// (50), whether the deadline passes in the queue or on a worker; without it, work continues for
// a client that gave up, and that work is counted as wasted.
func TestMaxTimeMS(t *testing.T) {
	loop := sim.NewLoop()
	s, _ := New(loop, Config{Address: "n", Workers: 1, Service: dist.Const(100 * time.Millisecond)}, 1)
	p := newProbe(loop, s, true)
	p.Send(0, wire.Find, func(r *wire.Request) { r.MaxTime = 40 * time.Millisecond }) // aborted on the worker at 40 ms
	p.Send(0, wire.Find, func(r *wire.Request) { r.MaxTime = 30 * time.Millisecond }) // expires in the queue
	p.Send(ms(1), wire.Find, func(r *wire.Request) { r.GiveUpAt = ms(70) })           // runs 40–140 ms, client gone at 70
	loop.Run()
	checkQueues(t, s)
	got := map[uint64]wiretest.Reply{}
	for _, r := range p.Replies {
		got[r.ID] = r
	}
	if r := got[1]; r.Code != wire.MaxTimeMSExpired || r.Got != ms(40) {
		t.Errorf("first: %v at %v, want MaxTimeMSExpired at 40ms", r.Code, r.Got)
	}
	if r := got[2]; r.Code != wire.MaxTimeMSExpired || r.Got != ms(40) {
		t.Errorf("second: %v at %v, want MaxTimeMSExpired at 40ms (found expired when a worker freed)", r.Code, r.Got)
	}
	if r := got[3]; !r.OK() || r.Got != ms(140) {
		t.Errorf("third: %v at %v, want OK at 140ms", r.Code, r.Got)
	}
	st := s.Snapshot(loop.Now())
	if st.WastedBusyTime != 70*time.Millisecond || st.MaxTimeExpired != 2 || st.BusyTime != 140*time.Millisecond {
		t.Errorf("wasted %v, expired %d, busy %v; want 70ms, 2, 140ms", st.WastedBusyTime, st.MaxTimeExpired, st.BusyTime)
	}
}

// TestRejectCost: rejections go ahead of queued work and hold a worker for RejectCost, so a
// rejection storm takes capacity from real work; RejectCost 0 (the zero value) makes them free.
func TestRejectCost(t *testing.T) {
	for _, tc := range []struct {
		cost     time.Duration
		wantBusy time.Duration
	}{{5 * time.Millisecond, 10*time.Millisecond + 3*5*time.Millisecond}, {0, 10 * time.Millisecond}} {
		loop := sim.NewLoop()
		cfg := limited(1, 1, 0) // one token
		cfg.Workers, cfg.Service, cfg.RejectCost = 1, dist.Const(10*time.Millisecond), tc.cost
		s, _ := New(loop, cfg, 1)
		p := newProbe(loop, s, true)
		for i := 0; i < 4; i++ {
			p.Send(0, wire.Find, nil)
		}
		loop.Run()
		st := s.Snapshot(loop.Now())
		if st.BusyTime != tc.wantBusy || st.RejectBusyTime != tc.wantBusy-10*time.Millisecond {
			t.Errorf("cost %v: busy %v (rejecting %v), want %v", tc.cost, st.BusyTime, st.RejectBusyTime, tc.wantBusy)
		}
	}
}

func replicaSet(t *testing.T, loop *sim.Loop) *Cluster {
	t.Helper()
	svc := dist.Const(time.Second)
	c, err := NewCluster(loop, ClusterConfig{ElectionTime: time.Second, Nodes: []Config{
		{Address: "a", Role: wire.Primary, Service: svc},
		{Address: "b", Role: wire.Secondary, Service: svc},
		{Address: "c", Role: wire.Secondary, Service: svc},
	}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestStepDown: the primary steps down; its executing writes fail with
// InterruptedDueToReplStateChange (11602, RetryableWriteError), new writes get NotWritablePrimary
// (10107), reads carry on; after the election time the named successor is primary.
func TestStepDown(t *testing.T) {
	loop := sim.NewLoop()
	c := replicaSet(t, loop)
	if err := c.Schedule([]Fault{{At: 100 * time.Millisecond, Kind: FaultStepDown, Successor: "c"}}); err != nil {
		t.Fatal(err)
	}
	a := newProbe(loop, c.Node("a"), true)
	a.Send(0, wire.Insert, func(r *wire.Request) { r.Write = true })
	a.Send(0, wire.Find, nil)
	a.Send(ms(200), wire.Insert, func(r *wire.Request) { r.Write = true })
	loop.RunUntil(ms(1099))
	if c.Primary() != nil {
		t.Fatalf("primary %s during the election", c.Primary().Address())
	}
	loop.Run()
	if p := c.Primary(); p == nil || p.Address() != "c" {
		t.Fatalf("primary after election = %v, want c", p)
	}
	byID := map[uint64]wiretest.Reply{}
	for _, r := range a.Replies {
		byID[r.ID] = r
	}
	if r := byID[1]; r.Code != wire.InterruptedDueToReplStateChange || r.Got != ms(100) || !r.Labels.Has(wire.RetryableWriteError) {
		t.Errorf("in-flight write: %v %v at %v", r.Code, r.Labels, r.Got)
	}
	if r := byID[2]; !r.OK() {
		t.Errorf("in-flight read: %v, want OK", r.Code)
	}
	if r := byID[3]; r.Code != wire.NotWritablePrimary {
		t.Errorf("write after stepdown: %v, want NotWritablePrimary", r.Code)
	}
}

// TestDownUp: a node going down resets every connection (requests in flight get network
// errors) and refuses new ones; the primary's failure triggers an election; after For it comes
// back as a secondary with full limiter buckets.
func TestDownUp(t *testing.T) {
	loop := sim.NewLoop()
	c := replicaSet(t, loop)
	if err := c.Schedule([]Fault{{At: 100 * time.Millisecond, Kind: FaultDown, Node: "a", For: 5 * time.Second}}); err != nil {
		t.Fatal(err)
	}
	p := newProbe(loop, c.Node("a"), true)
	p.Send(0, wire.Connect, nil) // establish the probe's connection: the node resets it later
	p.Send(ms(10), wire.Find, nil)
	p.Send(ms(500), wire.Find, nil)
	connect(p, ms(600), time.Second)
	loop.Run()
	checkQueues(t, c.Node("a"))
	if p.ByCode[wire.OK] != 1 || p.NetErrs != 3 {
		t.Errorf("%d network errors, want 3 (in flight, while down, connect while down)", p.NetErrs)
	}
	if !p.Conn.Closed {
		t.Error("the connection is not closed after the node went down")
	}
	if pr := c.Primary(); pr == nil || pr.Address() != "b" || c.Node("a").Role() != wire.Secondary || c.Node("a").IsDown() {
		t.Errorf("after down+up: primary %v, a is %v down=%v", pr, c.Node("a").Role(), c.Node("a").IsDown())
	}
}

// TestCapacityFault: a CPU cut to half speed for a while slows work in progress and reverts.
func TestCapacityFault(t *testing.T) {
	loop := sim.NewLoop()
	c, _ := NewCluster(loop, ClusterConfig{Nodes: []Config{{Address: "n", Workers: 1, Service: dist.Const(100 * time.Millisecond)}}}, 1)
	if err := c.Schedule([]Fault{{At: 50 * time.Millisecond, Kind: FaultCapacity, Node: "n", Speed: 0.5, For: 100 * time.Millisecond}}); err != nil {
		t.Fatal(err)
	}
	p := newProbe(loop, c.Node("n"), true)
	p.Send(0, wire.Find, nil)
	loop.Run()
	// 50 ms at full speed do half the work; the other 50 ms of work at half speed take 100 ms,
	// so it ends exactly when the cut does: 150 ms.
	if got := p.Replies[0].Got; got != ms(150) {
		t.Errorf("reply at %v, want 150ms", got)
	}
}

// TestValidation: bad configuration is an error naming the field, value and rule; never a panic.
func TestValidation(t *testing.T) {
	tests := []struct {
		cfg  Config
		want []string
	}{
		{Config{}, []string{`address: "": must not be empty`}},
		{Config{Address: "n", Workers: -1}, []string{"workers: -1: must be ≥ 1"}},
		{Config{Address: "n", MaxQueueDepth: -2}, []string{"maxQueueDepth: -2"}},
		{Config{Address: "n", USLSigma: -0.1, USLKappa: math.NaN()}, []string{"uslSigma: -0.1", "uslKappa: NaN"}},
		{Config{Address: "n", Role: wire.Mongos}, []string{"router: nil: a mongos needs a router"}},
		{Config{Address: "n", Role: wire.Role(99)}, []string{"role: role(99): must be standalone, primary, secondary or mongos"}},
		{Config{Address: "n", Flavor: Flavor(7)}, []string{"flavor: flavor(7): must be mongodb or couchbase"}},
		{Config{Address: "n", ExternalClientBaseBackoffMS: -5}, []string{"externalClientBaseBackoffMS: -5"}},
		{Config{Address: "n", RejectCost: -time.Millisecond}, []string{`server "n": rejectCost: -1ms: must be ≥ 0 (0s = free)`}},
		{Config{Address: "n", HandshakeCost: -2 * time.Millisecond}, []string{`server "n": handshakeCost: -2ms: must be ≥ 0`}},
		{Config{Address: "n", RequestLimiter: RequestLimiterConfig{Enabled: true, AdmissionRatePerSec: -1, AdmissionBurstCapacitySecs: 0}},
			[]string{"ingressRequestAdmissionRatePerSec: -1: must be a finite number > 0", "ingressRequestAdmissionBurstCapacitySecs: 0"}},
		{Config{Address: "n", RequestLimiter: RequestLimiterConfig{Enabled: true, AdmissionRatePerSec: 1, AdmissionBurstCapacitySecs: 1, AdmissionMaxQueueDepth: -1}},
			[]string{"ingressRequestAdmissionMaxQueueDepth: -1"}},
		{Config{Address: "n", ConnLimiter: ConnLimiterConfig{Enabled: true, RatePerSec: math.NaN(), BurstCapacitySecs: 1}},
			[]string{"ingressConnectionEstablishmentRatePerSec: NaN"}},
	}
	for _, tc := range tests {
		_, err := New(sim.NewLoop(), tc.cfg, 1)
		for _, w := range tc.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("New(%+v) error = %v, want it to contain %q", tc.cfg, err, w)
			}
		}
		for _, part := range field.Parts(err) {
			if fe := (*field.Error)(nil); !errors.As(part, &fe) {
				t.Errorf("New(%+v): %q holds no *field.Error", tc.cfg, part)
			}
		}
	}
	// Zero costs are valid: they cost nothing.
	if _, err := New(sim.NewLoop(), Config{Address: "n"}, 1); err != nil {
		t.Errorf("zero costs: %v", err)
	}
	loop := sim.NewLoop()
	c := replicaSet(t, loop)
	err := c.Schedule([]Fault{
		{Kind: FaultDown, Node: "zz"},
		{Kind: FaultCapacity, Node: "a", Speed: -1},
		{Kind: FaultStepDown, Successor: "nope"},
		{Kind: FaultFailPoint, Node: "a", FailPoint: failpoint.Config{Mode: failpoint.Times(-1)}},
		{At: -time.Second, Kind: FaultUp, Node: "a"},
	})
	for _, w := range []string{"faults[0].node: zz: no such node", "faults[1].speed: -1", "faults[2].successor: nope",
		"faults[3].mode.times: -1", "faults[4].at: -1s"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("Schedule error = %v, want it to contain %q", err, w)
		}
	}
	if _, err := NewCluster(sim.NewLoop(), ClusterConfig{Nodes: []Config{{Address: "a", Role: wire.Secondary}}}, 1); err == nil ||
		!strings.Contains(err.Error(), "0 primaries") {
		t.Errorf("replica set without a primary: %v", err)
	}
}

// recorder collects a node's statistics per interval, as a results recorder samples them.
type recorder struct {
	at    []sim.Time
	stats []Stats
}

// sampleEvery snapshots s every interval from now on.
func (r *recorder) sampleEvery(loop *sim.Loop, s *Server, interval time.Duration) {
	var sample sim.HandlerFunc
	sample = func(now sim.Time, _ int, _ any) {
		r.at = append(r.at, now)
		r.stats = append(r.stats, s.Snapshot(now))
		loop.After(interval, sample, 0, nil)
	}
	loop.After(interval, sample, 0, nil)
}

// TestRuntimeFaults: a node's statistics sampled once per interval; a runtime
// limiter change (what MongoTune does) takes effect at its time with a full bucket; a network
// delay fault adds to every one-way delay on the node's links and is removed after For.
func TestRuntimeFaults(t *testing.T) {
	loop := sim.NewLoop()
	c, err := NewCluster(loop, ClusterConfig{Nodes: []Config{limited(10, 1, 0)}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	s := c.Node("n")
	rec := &recorder{}
	rec.sampleEvery(loop, s, time.Second)
	if err := c.Schedule([]Fault{
		{At: 2 * time.Second, Kind: FaultRequestLimiter, Node: "n",
			RequestLimiter: RequestLimiterConfig{Enabled: true, AdmissionRatePerSec: 100, AdmissionBurstCapacitySecs: 1}},
		{At: 3 * time.Second, Kind: FaultNetworkDelay, Node: "n", Delay: 5 * time.Millisecond, For: time.Second},
	}); err != nil {
		t.Fatal(err)
	}
	p := newProbe(loop, s, true)
	p.Send(0, wire.Connect, nil)
	// 50 requests at 1.5 s: the 10-token bucket admits 10; at 2.5 s the new 100-token bucket
	// (installed full at 2 s) admits all 50. Reports cover (t−1s, t].
	at := func(t sim.Time, f func(now sim.Time)) {
		loop.At(t, sim.HandlerFunc(func(now sim.Time, _ int, _ any) { f(now) }), 0, nil)
	}
	burst := func(now sim.Time) {
		for i := 0; i < 50; i++ {
			p.Send(now, wire.Find, nil)
		}
	}
	at(ms(1500), burst)
	at(ms(2500), burst)
	find := func(now sim.Time) { p.Send(now, wire.Find, nil) }
	at(ms(3500), find) // 5 ms each way + 1 ms service
	at(ms(4500), find) // the delay is gone
	loop.RunUntil(sim.Time(5 * time.Second))
	if len(rec.at) != 5 || rec.at[0] != sim.Time(time.Second) || rec.at[4] != sim.Time(5*time.Second) {
		t.Fatalf("reports at %v, want every second from 1s to 5s", rec.at)
	}
	// The report at 2 s follows the change (scheduled first, it runs first at that instant): the
	// reset keeps the 5 tokens refilled since 1.5 s instead of refilling to the new capacity
	// (folly BasicTokenBucket::reset, which admission::RateLimiter calls).
	if got := rec.stats[1].RequestLimiterTokens; math.Abs(got-5) > 1e-9 {
		t.Errorf("tokens right after the change = %v, want 5 (kept, not refilled)", got)
	}
	if got := rec.stats[2].SuccessfulAdmissions - rec.stats[1].SuccessfulAdmissions; got != 50 {
		t.Errorf("admitted %d in [2s, 3s), want 50 after the limiter change", got)
	}
	if got := rec.stats[1].SuccessfulAdmissions - rec.stats[0].SuccessfulAdmissions; got != 10 {
		t.Errorf("admitted %d in [1s, 2s), want 10", got)
	}
	last := p.Replies[len(p.Replies)-1]
	prev := p.Replies[len(p.Replies)-2]
	if prev.Got-prev.Sent != ms(11) || last.Got-last.Sent != ms(1) {
		t.Errorf("round trips %v and %v, want 11ms with the fault and 1ms after it", prev.Got-prev.Sent, last.Got-last.Sent)
	}
}

// TestDisconnectInFlight: a client's Disconnect expects no reply, so one that reaches a node
// after it went down, or after the node closed the connection itself, is dropped without an
// answer (there is no one to send it to). Both used to schedule a reply to nobody.
func TestDisconnectInFlight(t *testing.T) {
	for _, tc := range []struct {
		name   string
		faults []Fault
		at     time.Duration
	}{
		{"to a node that is down", []Fault{{At: 100 * time.Millisecond, Kind: FaultDown, Node: "a", For: time.Second}}, 100 * time.Millisecond},
		{"on a connection the node closed going down", []Fault{{At: 100 * time.Millisecond, Kind: FaultDown, Node: "a", For: 10 * time.Millisecond}}, 200 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			loop := sim.NewLoop()
			c := replicaSet(t, loop)
			if err := c.Schedule(tc.faults); err != nil {
				t.Fatal(err)
			}
			p := newProbe(loop, c.Node("a"), true)
			p.Send(0, wire.Connect, nil)
			loop.RunUntil(sim.Time(ms(50)))
			if p.ByCode[wire.OK] != 1 {
				t.Fatalf("connect: %d OK replies, want 1", p.ByCode[wire.OK])
			}
			bye := &wire.Request{Cmd: wire.Disconnect, Conn: p.Conn} // no ReplyTo, as a driver sends it
			loop.At(sim.Time(tc.at), c.Node("a"), wire.EvRequest, bye)
			loop.Run()
			if got := c.Node("a").Snapshot(loop.Now()).NetErrors; got != 0 {
				t.Errorf("%d network errors answered, want none for a Disconnect", got)
			}
			if !p.Conn.Closed {
				t.Error("the connection is not closed")
			}
			checkQueues(t, c.Node("a"))
		})
	}
}
