package server

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/dist"
	"github.com/overloadsim/overloadsim/server/failpoint"
	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
	"github.com/overloadsim/overloadsim/wire/wiretest"
)

// pause is a pause fault of node n from a for d, both in milliseconds.
func pause(n string, a, d int) Fault {
	return Fault{At: time.Duration(ms(a)), Kind: FaultPause, Node: n, For: time.Duration(ms(d))}
}

// atTime runs f at t on loop.
func atTime(loop *sim.Loop, t sim.Time, f func(now sim.Time)) {
	loop.At(t, sim.HandlerFunc(func(now sim.Time, _ int, _ any) { f(now) }), 0, nil)
}

// oneNode builds a cluster of the single node cfg (address "n") with faults scheduled.
func oneNode(t *testing.T, loop *sim.Loop, cfg Config, faults []Fault) *Server {
	t.Helper()
	cfg.Address = "n"
	c, err := NewCluster(loop, ClusterConfig{Nodes: []Config{cfg}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Schedule(faults); err != nil {
		t.Fatal(err)
	}
	return c.Node("n")
}

// checkPauseAccounting asserts the time accounting of a pause: paused time is neither busy nor
// capacity, and the busy integral agrees with the busy time handed out span by span.
func checkPauseAccounting(t *testing.T, s *Server, paused time.Duration) {
	t.Helper()
	now := s.loop.Now()
	st := s.Snapshot(now)
	if st.PausedTime != paused {
		t.Errorf("paused time %v, want %v", st.PausedTime, paused)
	}
	if want := float64(st.Workers) * (now.Seconds() - paused.Seconds()); math.Abs(st.CapacityArea-want) > 1e-9 {
		t.Errorf("capacity area %.9f worker·s, want %.9f (workers × time not paused)", st.CapacityArea, want)
	}
	if math.Abs(st.BusyArea-st.BusyTime.Seconds()) > 1e-9 {
		t.Errorf("busy area %.9f worker·s, busy time %v: frozen work counted as busy", st.BusyArea, st.BusyTime)
	}
}

// Rule (Pause: work in flight freezes): a command on a worker when the pause starts makes no
// progress during it and, at resume, runs for the time it had left — its reply comes exactly
// the pause's length later than without the pause, with the same busy time. Overlapping pauses
// merge into their union; a speed change during the pause rescales the work left at its start;
// a maxTimeMS deadline (wall-clock) that passes during the pause aborts the command at resume.
func TestPauseShiftsWorkInFlight(t *testing.T) {
	tests := []struct {
		name     string
		cfg      Config
		mod      func(*wire.Request)
		faults   []Fault
		code     wire.Code
		at       sim.Time      // the reply's time with the faults
		shift    time.Duration // at minus the reply's time without the pauses; <0: not a shift
		busy     time.Duration
		pausedFr time.Duration
	}{
		{"a find on a worker ends the pause's length later",
			Config{Workers: 1, Service: dist.Const(10 * time.Millisecond)}, nil,
			[]Fault{pause("n", 4, 20)}, wire.OK, ms(30), 20 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond},
		{"a rejection's cost on a worker is frozen too",
			Config{Workers: 1, RejectCost: 5 * time.Millisecond, RequestLimiter: RequestLimiterConfig{
				Enabled: true, AdmissionRatePerSec: 1, AdmissionBurstCapacitySecs: 0.001}}, nil,
			[]Fault{pause("n", 2, 20)}, wire.IngressRequestRateLimitExceeded, ms(25), 20 * time.Millisecond, 5 * time.Millisecond, 20 * time.Millisecond},
		{"overlapping pauses: the second extends the first to its end",
			Config{Workers: 1, Service: dist.Const(10 * time.Millisecond)}, nil,
			[]Fault{pause("n", 4, 20), pause("n", 14, 30)}, wire.OK, ms(50), 40 * time.Millisecond, 10 * time.Millisecond, 40 * time.Millisecond},
		{"a pause inside a pause does not shorten it",
			Config{Workers: 1, Service: dist.Const(10 * time.Millisecond)}, nil,
			[]Fault{pause("n", 4, 40), pause("n", 10, 10)}, wire.OK, ms(50), 40 * time.Millisecond, 10 * time.Millisecond, 40 * time.Millisecond},
		{"a speed cut during the pause applies to the work left when it began",
			// 4 ms done at full speed; the 6 ms left take 12 ms at half speed from the resume.
			Config{Workers: 1, Service: dist.Const(10 * time.Millisecond)}, nil,
			[]Fault{pause("n", 4, 20), {At: 10 * time.Millisecond, Kind: FaultCapacity, Node: "n", Speed: 0.5}},
			wire.OK, ms(36), -1, 16 * time.Millisecond, 20 * time.Millisecond},
		{"a maxTimeMS deadline that passes during the pause aborts at resume",
			Config{Workers: 1, Service: dist.Const(10 * time.Millisecond)},
			func(r *wire.Request) { r.MaxTime = 15 * time.Millisecond },
			[]Fault{pause("n", 4, 20)}, wire.MaxTimeMSExpired, ms(24), -1, 4 * time.Millisecond, 20 * time.Millisecond},
	}
	run := func(t *testing.T, cfg Config, mod func(*wire.Request), faults []Fault) (wiretest.Reply, *Server) {
		loop := sim.NewLoop()
		s := oneNode(t, loop, cfg, faults)
		p := newProbe(loop, s, true)
		p.Send(0, wire.Find, mod)
		loop.Run()
		checkQueues(t, s)
		if len(p.Replies) != 1 {
			t.Fatalf("%d replies, want 1", len(p.Replies))
		}
		return p.Replies[0], s
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, s := run(t, tc.cfg, tc.mod, tc.faults)
			if got.Code != tc.code || got.Got != tc.at {
				t.Errorf("reply %v at %v, want %v at %v", got.Code, got.Got, tc.code, tc.at)
			}
			if st := s.Snapshot(s.loop.Now()); st.BusyTime != tc.busy {
				t.Errorf("busy time %v, want %v: paused time is not work", st.BusyTime, tc.busy)
			}
			checkPauseAccounting(t, s, tc.pausedFr)
			if tc.shift < 0 {
				return
			}
			var others []Fault
			for _, f := range tc.faults {
				if f.Kind != FaultPause {
					others = append(others, f)
				}
			}
			unpaused, _ := run(t, tc.cfg, tc.mod, others)
			if d := got.Got.Sub(unpaused.Got); d != tc.shift {
				t.Errorf("reply %v later than without the pause, want exactly %v", d, tc.shift)
			}
		})
	}
}

// Rule (Pause: arrivals are held): requests that reach a paused node are neither processed
// nor dropped during the pause; at resume all of them go through the normal path, in the
// order they arrived.
func TestPauseHoldsArrivals(t *testing.T) {
	loop := sim.NewLoop()
	s := oneNode(t, loop, Config{Workers: 1, Service: dist.Const(10 * time.Millisecond)}, []Fault{pause("n", 1, 100)})
	p := newProbe(loop, s, true)
	for i := 1; i <= 5; i++ {
		p.Send(ms(10*i), wire.Find, nil) // ids 1..5 arrive at 10..50 ms
	}
	loop.RunUntil(ms(100))
	st := s.Snapshot(loop.Now())
	if len(p.Replies) != 0 || st.Enqueued != 0 || st.AttemptedAdmissions+st.ExemptedAdmissions != 0 || !st.Paused || st.HeldMessages != 5 {
		t.Fatalf("during the pause: %d replies, %d enqueued, paused %v, held %d; want 0, 0, true, 5",
			len(p.Replies), st.Enqueued, st.Paused, st.HeldMessages)
	}
	loop.Run()
	checkQueues(t, s)
	if len(p.Replies) != 5 {
		t.Fatalf("%d replies, want 5: none dropped", len(p.Replies))
	}
	// All enqueued at the resume (101 ms) in arrival order; one worker serves them FIFO.
	for i, r := range p.Replies {
		if want := ms(111 + 10*i); r.ID != uint64(i+1) || !r.OK() || r.Got != want {
			t.Errorf("reply %d: id %d %v at %v, want id %d OK at %v", i, r.ID, r.Code, r.Got, i+1, want)
		}
	}
	if st := s.Snapshot(loop.Now()); st.QueueWait != 100*time.Millisecond || st.Enqueued != 5 {
		t.Errorf("queue wait %v over %d, want 100ms (0+10+20+30+40) over 5: waits count from the resume", st.QueueWait, st.Enqueued)
	}
	checkPauseAccounting(t, s, 100*time.Millisecond)
}

// Rule (Pause: no reply of any kind): a paused node answers no monitoring hello (heartbeat or
// RTT probe) during the pause; every hello that reached it is answered at the resume instant,
// and hellos outside the pause at once.
func TestPauseAnswersNoHeartbeat(t *testing.T) {
	loop := sim.NewLoop()
	s := oneNode(t, loop, Config{}, []Fault{pause("n", 50, 100)})
	p := newProbe(loop, s, false) // unauthenticated: a monitoring connection
	for at := 5; at < 200; at += 10 {
		p.Send(ms(at), wire.Hello, nil)
	}
	loop.Run()
	if len(p.Replies) != 20 {
		t.Fatalf("%d replies to 20 hellos", len(p.Replies))
	}
	for _, r := range p.Replies {
		want := r.Sent
		if r.Sent > ms(50) && r.Sent < ms(150) {
			want = ms(150)
		}
		if !r.OK() || r.Got != want {
			t.Errorf("hello sent at %v: %v at %v, want OK at %v", r.Sent, r.Code, r.Got, want)
		}
	}
}

// Rule (Pause: the node's own timers): a timer of the node that falls due during the pause — a
// handshake's end, a failpoint's blockConnection, a request-limiter queue's admission, a
// connection-limiter queue's admission — is handled at the resume instant (not shifted by the
// pause), in the order it fell due with everything else held.
func TestPauseDefersTimers(t *testing.T) {
	block := failpoint.Config{Mode: failpoint.AlwaysOn(), FailCommands: []string{"find"}, BlockConnection: true, BlockTimeMS: 10}
	tests := []struct {
		name  string
		cfg   Config
		fp    *failpoint.Config
		send  func(p *wiretest.Client)
		want  []sim.Time // reply times in order
		codes []wire.Code
		check func(t *testing.T, st Stats)
	}{
		{"a handshake that ends during the pause completes at resume",
			Config{HandshakeCost: 10 * time.Millisecond}, nil,
			func(p *wiretest.Client) {
				connect(p, ms(45), time.Minute) // handshake would end at 55 ms
				connect(p, ms(60), time.Minute) // held: its handshake starts at 150 ms
			},
			[]sim.Time{ms(150), ms(160)}, []wire.Code{wire.OK, wire.OK}, nil},
		{"a failpoint's block that ends during the pause releases the command at resume",
			Config{Service: dist.Const(time.Millisecond)}, &block,
			func(p *wiretest.Client) { p.Send(ms(45), wire.Find, nil) }, // unblocked at 55 ms without the pause
			[]sim.Time{ms(151)}, []wire.Code{wire.OK}, nil},
		{"request-limiter queue admissions that fall due during the pause happen at resume",
			// capacity 1: the first find takes the token, the others are due at 55 and 65 ms
			Config{Service: dist.Const(time.Millisecond), RequestLimiter: RequestLimiterConfig{
				Enabled: true, AdmissionRatePerSec: 100, AdmissionBurstCapacitySecs: 0.01, AdmissionMaxQueueDepth: 10}}, nil,
			func(p *wiretest.Client) {
				for range 3 {
					p.Send(ms(45), wire.Find, nil)
				}
			},
			[]sim.Time{ms(46), ms(151), ms(151)}, []wire.Code{wire.OK, wire.OK, wire.OK}, nil},
		{"a connection-limiter queue admission that falls due during the pause happens at resume",
			Config{ConnLimiter: ConnLimiterConfig{Enabled: true, RatePerSec: 20, BurstCapacitySecs: 0.05, MaxQueueDepth: 1}}, nil,
			func(p *wiretest.Client) {
				connect(p, ms(45), time.Minute) // the token
				connect(p, ms(45), time.Minute) // waits for the next, due at 95 ms
			},
			[]sim.Time{ms(45), ms(150)}, []wire.Code{wire.OK, wire.OK}, nil},
		{"held connects whose clients gave up meanwhile: one abandoned after admission, one leaves the queue at resume",
			Config{ConnLimiter: ConnLimiterConfig{Enabled: true, RatePerSec: 20, BurstCapacitySecs: 0.05, MaxQueueDepth: 5}}, nil,
			func(p *wiretest.Client) {
				connect(p, ms(45), time.Minute)         // the token, answered at once
				connect(p, ms(60), 20*time.Millisecond) // held; takes the refilled token at 150 ms, its client long gone
				connect(p, ms(61), 20*time.Millisecond) // held; queued at 150 ms behind a client that left at 81 ms
			},
			[]sim.Time{ms(45)}, []wire.Code{wire.OK},
			func(t *testing.T, st Stats) {
				if st.ConnAbandoned != 1 || st.ConnInterruptedInQueue != 1 || st.ConnCreated != 1 {
					t.Errorf("abandoned %d, interrupted in queue %d, created %d; want 1, 1, 1", st.ConnAbandoned, st.ConnInterruptedInQueue, st.ConnCreated)
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			loop := sim.NewLoop()
			s := oneNode(t, loop, tc.cfg, []Fault{pause("n", 50, 100)})
			if tc.fp != nil {
				fp, err := failpoint.New(*tc.fp)
				if err != nil {
					t.Fatal(err)
				}
				s.SetFailPoint(0, fp)
			}
			p := newProbe(loop, s, true)
			tc.send(p)
			loop.Run()
			checkQueues(t, s)
			if len(p.Replies) != len(tc.want) {
				t.Fatalf("%d replies, want %d", len(p.Replies), len(tc.want))
			}
			for i, r := range p.Replies {
				if r.NetErr || r.Code != tc.codes[i] || r.Got != tc.want[i] {
					t.Errorf("reply %d: %+v at %v, want %v at %v", i, r.Reply, r.Got, tc.codes[i], tc.want[i])
				}
			}
			if tc.check != nil {
				tc.check(t, s.Snapshot(loop.Now()))
			}
		})
	}
}

// Rule (Pause: held requests meet the limiter at resume): the ingress request limiter judges a
// held request at the resume instant, with the tokens and parameters in force then — not those
// of its arrival.
func TestPauseLimiterAtResume(t *testing.T) {
	cfg := Config{Workers: 1000, Service: dist.Const(time.Millisecond),
		RequestLimiter: RequestLimiterConfig{Enabled: true, AdmissionRatePerSec: 100, AdmissionBurstCapacitySecs: 0.05}} // 5 tokens
	tests := []struct {
		name     string
		faults   []Fault
		ok, r462 int
	}{
		// At 20 ms the bucket has refilled 2 tokens; at the 105 ms resume it is full again (5).
		{"tokens are counted at resume", []Fault{pause("n", 5, 100)}, 5, 5},
		{"a limiter turned off during the pause admits every held request", []Fault{pause("n", 5, 100),
			{At: 50 * time.Millisecond, Kind: FaultRequestLimiter, Node: "n"}}, 10, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			loop := sim.NewLoop()
			s := oneNode(t, loop, cfg, tc.faults)
			p := newProbe(loop, s, true)
			for range 5 {
				p.Send(0, wire.Find, nil) // empty the bucket
			}
			for range 10 {
				p.Send(ms(20), wire.Find, nil) // held
			}
			loop.Run()
			checkQueues(t, s)
			ok, r462 := 0, 0
			for _, r := range p.Replies[5:] { // the first five were answered at 1 ms
				if r.Got < ms(105) {
					t.Errorf("held request %d answered at %v, during the pause", r.ID, r.Got)
				}
				switch r.Code {
				case wire.OK:
					ok++
				case wire.IngressRequestRateLimitExceeded:
					r462++
				}
			}
			if len(p.Replies) != 15 || ok != tc.ok || r462 != tc.r462 {
				t.Errorf("%d replies; held requests: %d OK, %d × 462; want 15 replies, %d OK, %d × 462",
					len(p.Replies), ok, r462, tc.ok, tc.r462)
			}
		})
	}
}

// Rule (Pause: going down ends it; a stepdown acts at resume): a node that goes down while
// paused resets everything it holds at once — frozen work and held requests get network
// errors at the down instant, none earlier; a stepdown during a pause interrupts the frozen
// write only at resume, and held writes then meet the new role.
func TestPauseDownAndStepDown(t *testing.T) {
	t.Run("down during a pause", func(t *testing.T) {
		loop := sim.NewLoop()
		c := replicaSet(t, loop) // service 1 s
		if err := c.Schedule([]Fault{pause("a", 100, 1000), {At: 500 * time.Millisecond, Kind: FaultDown, Node: "a", For: time.Second}}); err != nil {
			t.Fatal(err)
		}
		p := newProbe(loop, c.Node("a"), true)
		p.Send(0, wire.Find, nil) // frozen on its worker
		p.Send(ms(200), wire.Find, nil)
		p.Send(ms(300), wire.Find, nil)
		loop.Run()
		a := c.Node("a")
		checkQueues(t, a)
		if p.NetErrs != 3 || len(p.Replies) != 3 {
			t.Fatalf("%d replies, %d network errors; want 3 and 3", len(p.Replies), p.NetErrs)
		}
		for _, r := range p.Replies {
			if r.Got != ms(500) {
				t.Errorf("request %d answered at %v, want 500ms (when the node went down)", r.ID, r.Got)
			}
		}
		if a.IsPaused() || a.IsDown() {
			t.Errorf("after down and up: paused %v down %v", a.IsPaused(), a.IsDown())
		}
		if st := a.Snapshot(loop.Now()); st.PausedTime != 400*time.Millisecond || st.BusyTime != 100*time.Millisecond {
			t.Errorf("paused %v busy %v, want 400ms and 100ms", st.PausedTime, st.BusyTime)
		}
	})
	t.Run("stepdown during a pause", func(t *testing.T) {
		loop := sim.NewLoop()
		c := replicaSet(t, loop)
		if err := c.Schedule([]Fault{pause("a", 100, 500), {At: 300 * time.Millisecond, Kind: FaultStepDown, Node: "a"}}); err != nil {
			t.Fatal(err)
		}
		p := newProbe(loop, c.Node("a"), true)
		write := func(r *wire.Request) { r.Write = true }
		p.Send(0, wire.Insert, write)       // frozen on its worker
		p.Send(ms(400), wire.Insert, write) // held
		loop.Run()
		want := []wire.Code{wire.InterruptedDueToReplStateChange, wire.NotWritablePrimary}
		if len(p.Replies) != 2 {
			t.Fatalf("%d replies, want 2", len(p.Replies))
		}
		for i, r := range p.Replies {
			if r.Code != want[i] || r.Got != ms(600) {
				t.Errorf("write %d: %v at %v, want %v at 600ms (the resume)", r.ID, r.Code, r.Got, want[i])
			}
		}
	})
}

// Rule (Pause: a mongos's answers wait): the answer a paused mongos's router gives is held and
// reaches the client at resume.
func TestPauseMongosHoldsRouterAnswers(t *testing.T) {
	loop := sim.NewLoop()
	s, err := New(loop, Config{Address: "m", Role: wire.Mongos, Router: &echoRouter{loop: loop, delay: 10 * time.Millisecond}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	atTime(loop, ms(5), func(now sim.Time) { _ = s.Pause(now, 100*time.Millisecond) })
	p := newProbe(loop, s, true)
	p.Send(0, wire.Find, nil) // routed at 0, answered by the router at 10 ms
	loop.Run()
	if len(p.Replies) != 1 || !p.Replies[0].OK() || p.Replies[0].Got != ms(105) {
		t.Fatalf("replies %+v, want one OK at 105ms", p.Replies)
	}
}

// Rule (Pause: validation): a pause must end — For > 0 — both for Schedule and Pause; a node
// that is down cannot be paused.
func TestPauseValidation(t *testing.T) {
	loop := sim.NewLoop()
	c := replicaSet(t, loop)
	err := c.Schedule([]Fault{{Kind: FaultPause, Node: "a"}, {Kind: FaultPause, Node: "b", For: -time.Second}, {Kind: FaultPause, Node: "zz", For: time.Second}})
	for _, w := range []string{"faults[0].for: 0s: a pause lasts a while", "faults[1].for: -1s", "faults[2].node: zz: no such node"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("Schedule error = %v, want it to contain %q", err, w)
		}
	}
	if FaultPause.String() != "pause" {
		t.Errorf("FaultPause is called %q, want pause", FaultPause)
	}
	a := c.Node("a")
	if err := a.Pause(0, 0); err == nil {
		t.Error("Pause for 0s: no error")
	}
	a.GoDown(0)
	if err := a.Pause(0, time.Second); err != nil || a.IsPaused() {
		t.Errorf("Pause of a down node: %v, paused %v; want nil, false", err, a.IsPaused())
	}
}

// pausedRun runs a node under Poisson load from two clients with a request-limiter queue,
// monitoring hellos, connection attempts and overlapping pauses and capacity cuts, and returns
// every reply and the node's final statistics.
func pausedRun(t *testing.T, seed uint64) ([]wiretest.Reply, Stats) {
	loop := sim.NewLoop()
	exp, _ := dist.Exp(2 * time.Millisecond)
	cfg := Config{Address: "n", Workers: 4, Service: exp, HandshakeCost: time.Millisecond,
		RequestLimiter: RequestLimiterConfig{Enabled: true, AdmissionRatePerSec: 1500, AdmissionBurstCapacitySecs: 0.1, AdmissionMaxQueueDepth: 50},
		ConnLimiter:    ConnLimiterConfig{Enabled: true, RatePerSec: 10, BurstCapacitySecs: 0.2, MaxQueueDepth: 5}}
	c, err := NewCluster(loop, ClusterConfig{Nodes: []Config{cfg}}, seed)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Schedule([]Fault{pause("n", 500, 300), pause("n", 700, 400), pause("n", 2000, 50),
		{At: 900 * time.Millisecond, Kind: FaultCapacity, Node: "n", Workers: 2, Speed: 0.5, For: time.Second}}); err != nil {
		t.Fatal(err)
	}
	s := c.Node("n")
	app, mon := newProbe(loop, s, true), newProbe(loop, s, false)
	startPoisson(app, 1200, wire.Find, sim.Time(3*time.Second), seed)
	startPoisson(mon, 20, wire.Hello, sim.Time(3*time.Second), seed+1)
	for i := range 30 {
		connect(app, ms(100*i+3), 50*time.Millisecond)
	}
	loop.Run()
	checkQueues(t, s)
	return append(app.Replies, mon.Replies...), s.Snapshot(loop.Now())
}

// Rule (determinism): the same seed gives the same run, pauses included — every reply, its
// time and code, and every statistic.
func TestPauseDeterminism(t *testing.T) {
	r1, st1 := pausedRun(t, 7)
	r2, st2 := pausedRun(t, 7)
	// [500 ms, 800 ms] ∪ [700 ms, 1.1 s] ∪ [2 s, 2.05 s]
	if st1.HeldMessages == 0 || st1.PausedTime != 650*time.Millisecond {
		t.Fatalf("held %d, paused %v: the run must exercise pauses (want 650ms paused)", st1.HeldMessages, st1.PausedTime)
	}
	if !reflect.DeepEqual(st1, st2) {
		t.Errorf("same seed, different statistics:\n%+v\n%+v", st1, st2)
	}
	if !reflect.DeepEqual(r1, r2) {
		t.Errorf("same seed, different replies (%d and %d)", len(r1), len(r2))
	}
}

// Rule (Pause: no cost without a pause): a node that has been through a pause is back on an
// allocation-free path — the held list's array is reused and no event allocates.
func TestPauseSteadyStateAllocatesNothing(t *testing.T) {
	exp, _ := dist.Exp(time.Millisecond)
	loop := sim.NewLoop()
	s, err := New(loop, Config{Address: "n", Workers: 8, Service: exp}, 1)
	if err != nil {
		t.Fatal(err)
	}
	p := newProbe(loop, s, true)
	p.Keep = false
	startPoisson(p, 7200, wire.Find, sim.Never, 1)
	atTime(loop, ms(100), func(now sim.Time) { _ = s.Pause(now, 50*time.Millisecond) })
	loop.RunUntil(ms(2000)) // the pause, then pools warm
	if st := s.Snapshot(loop.Now()); st.HeldMessages == 0 {
		t.Fatal("the pause held nothing")
	}
	if allocs := testing.AllocsPerRun(20000, func() { loop.Step() }); allocs != 0 {
		t.Errorf("%v allocations per event in steady state, want 0", allocs)
	}
}
