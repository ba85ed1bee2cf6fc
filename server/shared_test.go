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

// meanResponse drives one node with Poisson arrivals and returns the mean response time (issue
// to reply, on a link without delay) of the commands sent in [warmup, horizon), and the node's
// utilisation over that window.
func meanResponse(t *testing.T, cfg Config, lambda float64, horizon, warmup time.Duration, seed uint64) (mean, util float64) {
	t.Helper()
	loop, s, p := newQueue(t, cfg, lambda, horizon, seed)
	loop.RunUntil(sim.Time(warmup))
	a := s.Snapshot(loop.Now())
	loop.RunUntil(sim.Time(horizon))
	st := diff(a, s.Snapshot(loop.Now()))
	loop.Run() // the last commands finish
	var sum float64
	var n int
	for _, r := range p.Replies {
		if r.Sent >= sim.Time(warmup) && r.Sent < sim.Time(horizon) {
			sum += r.Got.Sub(r.Sent).Seconds()
			n++
		}
	}
	return sum / float64(n), st.BusyArea / st.CapacityArea
}

// TestProcessorSharing validates shared execution (ExecShared) against closed forms, each over
// 30 replications whose 95 % Student-t interval of the mean response time must contain the
// formula's value:
//
//   - M/G/1-PS has the mean response of M/M/1, 1/(μ − λ), whatever the service distribution
//     (Kleinrock 1976, Queueing Systems vol. 2, §4.4: processor sharing is insensitive):
//     exponential, constant and lognormal service all give it, where FCFS would not;
//   - with c cores shared as min(1, c/n) and exponential service, the number in the system is
//     the birth–death process of M/M/c, so the mean response is Erlang C's Wq + 1/μ.
//
// Utilisation must be ρ within 0.03.
func TestProcessorSharing(t *testing.T) {
	ms10 := 10 * time.Millisecond
	exp10, _ := dist.Exp(ms10)
	lognormal10, _ := dist.LogNormal(ms10, 0.5)
	cases := []struct {
		name    string
		cores   int
		service dist.Duration
		lambda  float64
		want    float64
	}{
		{"M/M/1-PS", 1, exp10, 70, 1 / (100.0 - 70)},
		{"M/D/1-PS", 1, dist.Const(ms10), 70, 1 / (100.0 - 70)},
		{"M/lognormal/1-PS", 1, lognormal10, 70, 1 / (100.0 - 70)},
		{"M/M/4 on 4 shared cores", 4, exp10, 320, queueing.MMcWait(320, 100, 4) + 0.01},
	}
	const (
		reps    = 30
		horizon = 300 * time.Second
		warmup  = 20 * time.Second
	)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var means []float64
			for seed := uint64(1); seed <= reps; seed++ {
				m, u := meanResponse(t, Config{Workers: tc.cores, Service: tc.service, Execution: ExecShared}, tc.lambda, horizon, warmup, seed)
				means = append(means, m)
				if rho := tc.lambda * 0.01 / float64(tc.cores); math.Abs(u-rho) > 0.03 {
					t.Errorf("seed %d: utilisation %.4f, want ρ = %.3f ± 0.03", seed, u, rho)
				}
			}
			m, h := stats.MeanCI(means, 0.95)
			t.Logf("T = %.6f ± %.6f s; the closed form gives %.6f s", m, h, tc.want)
			if math.Abs(m-tc.want) > h {
				t.Errorf("mean response %.6f ± %.6f s does not contain %.6f s", m, h, tc.want)
			}
		})
	}
}

// TestSharedCores follows two commands sharing one core: both start at 0 with 10 ms and 30 ms
// of work; sharing, the first has its 10 ms at 20 ms, the second the rest alone, ending at
// 40 ms. Halving the speed at 30 ms (a CPU cut) stretches what is left; a pause from 32 to
// 37 ms freezes it; the busy time is the core's while it runs.
func TestSharedCores(t *testing.T) {
	run := func(busy time.Duration, mod func(loop *sim.Loop, s *Server)) map[uint64]sim.Time {
		loop := sim.NewLoop()
		s, err := New(loop, Config{Address: "n", Workers: 1, Execution: ExecShared,
			ServiceByCommand: map[wire.Command]dist.Duration{wire.Find: dist.Const(10 * time.Millisecond), wire.Insert: dist.Const(30 * time.Millisecond)}}, 1)
		if err != nil {
			t.Fatal(err)
		}
		p := newProbe(loop, s, true)
		p.Send(0, wire.Find, nil)
		p.Send(0, wire.Insert, nil)
		if mod != nil {
			mod(loop, s)
		}
		loop.Run()
		got := map[uint64]sim.Time{}
		for _, r := range p.Replies {
			got[r.ID] = r.Got
		}
		if st := s.Snapshot(loop.Now()); st.BusyTime != busy {
			t.Errorf("busy %v, want %v: one core busy while anything runs", st.BusyTime, busy)
		}
		return got
	}
	ms := func(x float64) sim.Time { return sim.Time(x * float64(time.Millisecond)) }
	if got := run(40*time.Millisecond, nil); got[1] != ms(20) || got[2] != ms(40) {
		t.Errorf("sharing: ends at %v and %v, want 20ms and 40ms", got[1], got[2])
	}
	// At 30 ms the insert has 10 ms of work left; at half speed it takes 20 ms: ends at 50 ms.
	// Its busy time is the core's wall time while it runs.
	speed := run(50*time.Millisecond, func(loop *sim.Loop, s *Server) {
		loop.At(ms(30), sim.HandlerFunc(func(now sim.Time, _ int, _ any) { _ = s.SetSpeed(now, 0.5) }), 0, nil)
	})
	if speed[2] != ms(50) {
		t.Errorf("speed halved at 30ms: the insert ends at %v, want 50ms", speed[2])
	}
	// At 32 ms the insert has 8 ms left; frozen for 5 ms, it ends at 45 ms, busy 40 ms.
	pause := run(40*time.Millisecond, func(loop *sim.Loop, s *Server) {
		loop.At(ms(32), sim.HandlerFunc(func(now sim.Time, _ int, _ any) { _ = s.Pause(now, 5*time.Millisecond) }), 0, nil)
	})
	if pause[1] != ms(20) || pause[2] != ms(45) {
		t.Errorf("paused 32–37ms: ends at %v and %v, want 20ms and 45ms", pause[1], pause[2])
	}
}

// msf is x milliseconds as a point in virtual time, for ends that fall between whole
// milliseconds.
func msf(x float64) sim.Time { return sim.Time(x * float64(time.Millisecond)) }

// msDur is x milliseconds as a duration.
func msDur(x float64) time.Duration { return time.Duration(msf(x)) }

// outcome is what a test expects for one request: its reply's code and arrival time.
type outcome struct {
	code wire.Code
	at   sim.Time
}

// playNode builds the node cfg (address "n", faults scheduled on it), plays steps from one
// authenticated probe connection on a link without delay, runs the loop dry and returns the
// replies by request ID (counted from 1 in the order the steps are sent) and the node. A node
// without faults is built alone, so it may be a secondary; one with faults is a cluster of one.
func playNode(t *testing.T, cfg Config, faults []Fault, steps ...wiretest.Step) (map[uint64]wiretest.Reply, *Server, *wiretest.Client) {
	t.Helper()
	loop := sim.NewLoop()
	var s *Server
	if len(faults) > 0 {
		s = oneNode(t, loop, cfg, faults)
	} else {
		cfg.Address = "n"
		var err error
		if s, err = New(loop, cfg, 1); err != nil {
			t.Fatal(err)
		}
	}
	p := newProbe(loop, s, true)
	p.Play(steps...)
	loop.Run()
	got := make(map[uint64]wiretest.Reply, len(p.Replies))
	for _, r := range p.Replies {
		got[r.ID] = r
	}
	return got, s, p
}

// checkOutcomes compares the replies to requests #1 to #len(want), in that order, with want.
func checkOutcomes(t *testing.T, got map[uint64]wiretest.Reply, want []outcome, p *wiretest.Client) {
	t.Helper()
	bad := len(got) != len(want)
	if bad {
		t.Errorf("%d replies, want %d", len(got), len(want))
	}
	for i, w := range want {
		id := uint64(i + 1)
		r, ok := got[id]
		switch {
		case !ok:
			t.Errorf("request #%d: no reply, want %v at %v", id, w.code, w.at)
			bad = true
		case r.NetErr || r.Code != w.code || r.Got != w.at:
			t.Errorf("request #%d = %s, want %v at %v", id, r, w.code, w.at)
			bad = true
		}
	}
	if bad {
		t.Logf("transcript:\n%s", p.Transcript())
	}
}

// steps returns n steps sending cmd at 0, each changed by mod if it is not nil.
func steps(n int, cmd wire.Command, mod func(*wire.Request)) []wiretest.Step {
	s := make([]wiretest.Step, n)
	for i := range s {
		s[i] = wiretest.Step{At: 0, Cmd: cmd, Mod: mod}
	}
	return s
}

// Rule (docs/model.md §5.9, and Pause's doc: "Faults applied meanwhile change the node's state
// at once … but act only at resume"): shared cores, like workers, are frozen while the node is
// paused. No running command receives work during the pause, even when a speed or core-count
// change during it makes the node bring its clock of work up to date; at resume each carries on
// from the work it had when the pause began, at the capacity in force then.
func TestSharedCoresStopWhilePaused(t *testing.T) {
	find := wiretest.Step{At: 0, Cmd: wire.Find}
	capacity := func(at, workers int, speed float64) Fault {
		return Fault{At: time.Duration(ms(at)), Kind: FaultCapacity, Node: "n", Workers: workers, Speed: speed}
	}
	tests := []struct {
		name   string
		steps  []wiretest.Step
		faults []Fault
		want   []outcome
		busy   time.Duration
		// fixed says the core count does not change, so capacity is workers × time not paused.
		fixed bool
	}{
		{"a find on a core ends the pause's length later",
			[]wiretest.Step{find}, []Fault{pause("n", 4, 20)},
			[]outcome{{wire.OK, ms(30)}}, 10 * time.Millisecond, true},
		{"a speed cut during the pause applies to the work left when it began",
			// 4 ms done at full speed; the 6 ms left take 12 ms at half speed from the resume.
			[]wiretest.Step{find}, []Fault{pause("n", 4, 20), capacity(10, 0, 0.5)},
			[]outcome{{wire.OK, ms(36)}}, 16 * time.Millisecond, true},
		{"a speed-up during the pause applies to the work left when it began",
			// The 6 ms left take 3 ms at double speed.
			[]wiretest.Step{find}, []Fault{pause("n", 4, 20), capacity(10, 0, 2)},
			[]outcome{{wire.OK, ms(27)}}, 7 * time.Millisecond, true},
		{"a core added during the pause shares the work left when it began",
			// Two finds share one core: 2 ms each by 4 ms. At resume each has a core for its 8 ms.
			[]wiretest.Step{find, find}, []Fault{pause("n", 4, 20), capacity(10, 2, 0)},
			[]outcome{{wire.OK, ms(32)}, {wire.OK, ms(32)}}, 20 * time.Millisecond, false},
		{"a maxTimeMS deadline that passes during the pause aborts at resume",
			[]wiretest.Step{{At: 0, Cmd: wire.Find, Mod: func(r *wire.Request) { r.MaxTime = 15 * time.Millisecond }}},
			[]Fault{pause("n", 4, 20)},
			[]outcome{{wire.MaxTimeMSExpired, ms(24)}}, 4 * time.Millisecond, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{Workers: 1, Execution: ExecShared, Service: dist.Const(10 * time.Millisecond)}
			got, s, p := playNode(t, cfg, tc.faults, tc.steps...)
			checkOutcomes(t, got, tc.want, p)
			st := s.Snapshot(s.loop.Now())
			if st.BusyTime != tc.busy || st.PausedTime != 20*time.Millisecond {
				t.Errorf("busy %v, paused %v; want %v and 20ms: no work is done while paused", st.BusyTime, st.PausedTime, tc.busy)
			}
			if tc.fixed {
				checkPauseAccounting(t, s, 20*time.Millisecond)
			}
		})
	}
}

// Rule (docs/model.md §5.7: with n running on `workers` cores each progresses at min(1,
// workers/n) of the node's speed; §5.8: a capacity fault's speed factor is a CPU cut): shared
// cores run at the node's speed. At speed f a command alone ends after work/f; two on one core
// (10 ms and 30 ms of work) end at 20/f and 40/f, the second running alone after the first
// leaves; the core is busy for the wall time it runs. The speed is set by a capacity fault at
// 0, before the commands arrive.
func TestSharedCoresHonourSpeed(t *testing.T) {
	svc := map[wire.Command]dist.Duration{wire.Find: dist.Const(10 * time.Millisecond), wire.Insert: dist.Const(30 * time.Millisecond)}
	for _, f := range []float64{1, 0.5, 2} {
		at := func(x float64) sim.Time { return msf(x / f) }
		for _, tc := range []struct {
			name  string
			steps []wiretest.Step
			want  []outcome
			busy  float64 // ms at speed 1
		}{
			{"a find alone", []wiretest.Step{{Cmd: wire.Find}},
				[]outcome{{wire.OK, at(10)}}, 10},
			{"a find and an insert sharing the core", []wiretest.Step{{Cmd: wire.Find}, {Cmd: wire.Insert}},
				[]outcome{{wire.OK, at(20)}, {wire.OK, at(40)}}, 40},
		} {
			t.Run(fmt.Sprintf("speed %v/%s", f, tc.name), func(t *testing.T) {
				cfg := Config{Workers: 1, Execution: ExecShared, ServiceByCommand: svc}
				got, s, p := playNode(t, cfg, []Fault{{At: 0, Kind: FaultCapacity, Node: "n", Speed: f}}, tc.steps...)
				checkOutcomes(t, got, tc.want, p)
				if st := s.Snapshot(s.loop.Now()); st.BusyTime != time.Duration(at(tc.busy)) {
					t.Errorf("busy %v, want %v: the core is busy while anything runs", st.BusyTime, time.Duration(at(tc.busy)))
				}
			})
		}
	}
}

// Rule (docs/model.md §5.7: "with n commands executing, itself included, it takes base × (1 +
// σ(n − 1) + κ·n(n − 1)) + k·n"): the concurrency a command's slowdown sees counts the command
// itself, under either execution. Three 10 ms finds arrive at once on four workers (or cores, so
// none shares one): the first starts with n = 1 and takes its base time, the second n = 2, the
// third n = 3. With k = 1 ms they take 11, 12 and 13 ms; with σ = 0.25 and κ = 0.125 (exact in
// binary) 10, 15 and 22.5 ms.
func TestSlowdownCountsTheNewCommand(t *testing.T) {
	for _, exec := range []Execution{ExecTickets, ExecShared} {
		for _, tc := range []struct {
			name string
			cfg  Config
			want [3]sim.Time
		}{
			{"in-flight penalty", Config{InFlightPenalty: time.Millisecond}, [3]sim.Time{ms(11), ms(12), ms(13)}},
			{"USL", Config{USLSigma: 0.25, USLKappa: 0.125}, [3]sim.Time{ms(10), ms(15), msf(22.5)}},
		} {
			t.Run(exec.String()+"/"+tc.name, func(t *testing.T) {
				cfg := tc.cfg
				cfg.Workers, cfg.Execution, cfg.Service = 4, exec, dist.Const(10*time.Millisecond)
				got, _, p := playNode(t, cfg, nil, steps(3, wire.Find, nil)...)
				want := make([]outcome, len(tc.want))
				for i, at := range tc.want {
					want[i] = outcome{wire.OK, at}
				}
				checkOutcomes(t, got, want, p)
			})
		}
	}
}

// Rule (docs/model.md §5.4 and §5.7: a rejection's worker time "is counted as wasted", and
// under shared execution "costly rejections … share the cores the same way"): the CPU a costly
// rejection takes is busy, rejection and wasted time alike, whichever the execution. One token:
// of four finds at once on one worker or core, the first runs its 10 ms, the other three are
// rejected at 5 ms of cost each. With tickets the rejections take the worker in turn once the
// find is done (10–25 ms); shared, the four share the core, the rejections getting their 5 ms
// each by 20 ms and the find its last 5 ms alone. Either way 25 ms busy, 15 of them wasted on
// rejections.
func TestRejectionCostIsWasted(t *testing.T) {
	rejected := wire.IngressRequestRateLimitExceeded
	for _, tc := range []struct {
		exec Execution
		want []outcome
	}{
		{ExecTickets, []outcome{{wire.OK, ms(10)}, {rejected, ms(15)}, {rejected, ms(20)}, {rejected, ms(25)}}},
		{ExecShared, []outcome{{wire.OK, ms(25)}, {rejected, ms(20)}, {rejected, ms(20)}, {rejected, ms(20)}}},
	} {
		t.Run(tc.exec.String(), func(t *testing.T) {
			cfg := limited(1, 1, 0) // one token
			cfg.Workers, cfg.Execution, cfg.Service, cfg.RejectCost = 1, tc.exec, dist.Const(10*time.Millisecond), 5*time.Millisecond
			got, s, p := playNode(t, cfg, nil, steps(4, wire.Find, nil)...)
			checkOutcomes(t, got, tc.want, p)
			st := s.Snapshot(s.loop.Now())
			if st.BusyTime != 25*time.Millisecond || st.RejectBusyTime != 15*time.Millisecond || st.WastedBusyTime != 15*time.Millisecond {
				t.Errorf("busy %v, rejecting %v, wasted %v; want 25ms, 15ms and 15ms: rejections' CPU is wasted capacity",
					st.BusyTime, st.RejectBusyTime, st.WastedBusyTime)
			}
		})
	}
}

// Rule (docs/model.md §5.7: "at that deadline the command is aborted with 50 MaxTimeMSExpired,
// in the queue or on a worker"): shared execution aborts a running command at its maxTimeMS
// deadline, which is wall-clock time however slowly the command progresses, and the share it
// held goes to the others at once. On one core with 10 ms finds.
func TestSharedMaxTimeMS(t *testing.T) {
	maxTime := func(d time.Duration) func(*wire.Request) {
		return func(r *wire.Request) { r.MaxTime = d }
	}
	tests := []struct {
		name           string
		steps          []wiretest.Step
		faults         []Fault
		want           []outcome
		busy           time.Duration
		expired, ended uint64
	}{
		{"alone, aborted at its deadline",
			[]wiretest.Step{{Cmd: wire.Find, Mod: maxTime(4 * time.Millisecond)}}, nil,
			[]outcome{{wire.MaxTimeMSExpired, ms(4)}}, 4 * time.Millisecond, 1, 0},
		{"a deadline after the work is done does not abort it",
			[]wiretest.Step{{Cmd: wire.Find, Mod: maxTime(50 * time.Millisecond)}}, nil,
			[]outcome{{wire.OK, ms(10)}}, 10 * time.Millisecond, 0, 1},
		{"a deadline is wall time: a command slowed by a CPU cut meets it sooner",
			// At half speed the find would end at 20 ms.
			[]wiretest.Step{{Cmd: wire.Find, Mod: maxTime(15 * time.Millisecond)}},
			[]Fault{{At: 0, Kind: FaultCapacity, Node: "n", Speed: 0.5}},
			[]outcome{{wire.MaxTimeMSExpired, ms(15)}}, 15 * time.Millisecond, 1, 0},
		{"sharing: the aborted command's share goes to the other",
			// Both have 7.5 ms by 15 ms; the second then runs its last 2.5 ms alone.
			[]wiretest.Step{{Cmd: wire.Find, Mod: maxTime(15 * time.Millisecond)}, {Cmd: wire.Find}}, nil,
			[]outcome{{wire.MaxTimeMSExpired, ms(15)}, {wire.OK, msf(17.5)}}, msDur(17.5), 1, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{Workers: 1, Execution: ExecShared, Service: dist.Const(10 * time.Millisecond)}
			got, s, p := playNode(t, cfg, tc.faults, tc.steps...)
			checkOutcomes(t, got, tc.want, p)
			st := s.Snapshot(s.loop.Now())
			if st.BusyTime != tc.busy || st.MaxTimeExpired != tc.expired || st.Completed != tc.ended {
				t.Errorf("busy %v, %d expired, %d completed; want %v, %d and %d",
					st.BusyTime, st.MaxTimeExpired, st.Completed, tc.busy, tc.expired, tc.ended)
			}
		})
	}
}

// TestSharedCoresWorkersChange checks that a change in the number of cores takes effect from
// its instant on (SetWorkers: "more or fewer cores: every running command's share changes"):
// the work done before it is credited at the share then in force. A 10 ms find and a 30 ms
// insert share one core (half each); at 5 ms each has 2.5 ms done and a core is added, so each
// runs alone: the find ends at 12.5 ms, the insert at 32.5 ms. Crediting the first 5 ms at
// the new share would end the find at 10 ms. The other way, two cores become one at 5 ms: each
// has 5 ms done, the find ends at 15 ms (5 ms left at half), the insert at 35 ms.
func TestSharedCoresWorkersChange(t *testing.T) {
	for _, tc := range []struct {
		gloss      string
		at         time.Duration
		workers    int
		find, ins  sim.Time
		startCores int
	}{
		{"a core added at 5ms", 5 * time.Millisecond, 2, msf(12.5), msf(32.5), 1},
		{"a core taken at 5ms", 5 * time.Millisecond, 1, msf(15), msf(35), 2},
	} {
		loop := sim.NewLoop()
		s, err := New(loop, Config{Address: "n", Workers: tc.startCores, Execution: ExecShared,
			ServiceByCommand: map[wire.Command]dist.Duration{wire.Find: dist.Const(10 * time.Millisecond), wire.Insert: dist.Const(30 * time.Millisecond)}}, 1)
		if err != nil {
			t.Fatal(err)
		}
		p := newProbe(loop, s, true)
		p.Send(0, wire.Find, nil)
		p.Send(0, wire.Insert, nil)
		loop.At(sim.Time(tc.at), sim.HandlerFunc(func(now sim.Time, _ int, _ any) {
			if err := s.SetWorkers(now, tc.workers); err != nil {
				t.Error(err)
			}
		}), 0, nil)
		loop.Run()
		got := map[uint64]sim.Time{}
		for _, r := range p.Replies {
			got[r.ID] = r.Got
		}
		if got[1] != tc.find || got[2] != tc.ins {
			t.Errorf("%s: find ends at %v, insert at %v; want %v and %v", tc.gloss, got[1], got[2], tc.find, tc.ins)
		}
	}
}
