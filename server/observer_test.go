package server

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/dist"
	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
	"github.com/overloadsim/overloadsim/wire/wiretest"
)

// logObserver writes one line per call, and adds up what CommandDone says.
type logObserver struct {
	b                   strings.Builder
	admitted, done      int
	queued, started     int
	waited, processing  time.Duration
	queueTime           time.Duration // CommandResult.Waited, added up
	startedDone, failed int
}

func (o *logObserver) CommandAdmitted(now sim.Time, cmd wire.Command) {
	o.admitted++
	fmt.Fprintf(&o.b, "%v admitted %v\n", now, cmd)
}

func (o *logObserver) CommandQueued(now sim.Time, cmd wire.Command) {
	o.queued++
	fmt.Fprintf(&o.b, "%v queued %v\n", now, cmd)
}

func (o *logObserver) CommandStarted(now sim.Time, cmd wire.Command, queued bool, waited time.Duration) {
	o.started++
	o.waited += waited
	if queued {
		fmt.Fprintf(&o.b, "%v started %v after the queue, waited %v\n", now, cmd, waited)
		return
	}
	fmt.Fprintf(&o.b, "%v started %v waited %v\n", now, cmd, waited)
}

func (o *logObserver) CommandDone(now sim.Time, cmd wire.Command, r CommandResult) {
	o.done++
	o.processing += r.Processing
	if r.Started {
		o.startedDone++
	}
	if r.Failed {
		o.failed++
	}
	o.queueTime += r.Waited
	fmt.Fprintf(&o.b, "%v done %v latency %v queued %v started %v processing %v failed %v\n",
		now, cmd, r.Latency, r.Queued, r.Started, r.Processing, r.Failed)
}

// observeNode builds the node cfg (address "n"; a cluster of one when there are faults), with
// o as its observer when o is not nil, plays steps from one authenticated probe connection on
// a link without delay, and runs the loop dry.
func observeNode(t *testing.T, loop *sim.Loop, cfg Config, faults []Fault, o CommandObserver, steps ...wiretest.Step) (*Server, *wiretest.Client) {
	t.Helper()
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
	if o != nil {
		s.SetCommandObserver(o)
	}
	p := newProbe(loop, s, true)
	p.Play(steps...)
	loop.Run()
	return s, p
}

// Rule (CommandObserver's doc): the observer hears a command when it passes the ingress request
// limiter, when it waits for a worker and gets one, and when it is answered, with its latency
// from admission and its processing from getting the worker; connections, monitoring hellos and
// 462 rejections are never heard of. One worker and 10 ms finds unless a row says otherwise;
// t0 = 0, every request sent at t0 on a link without delay.
func TestCommandObserver(t *testing.T) {
	find := wiretest.Step{Cmd: wire.Find}
	with := func(s wiretest.Step, mod func(*wire.Request)) wiretest.Step { s.Mod = mod; return s }
	maxTime := func(d time.Duration) func(*wire.Request) { return func(r *wire.Request) { r.MaxTime = d } }
	tests := []struct {
		name   string
		cfg    Config
		faults []Fault
		steps  []wiretest.Step
		want   string
	}{
		{"a free worker: admitted, started at once, answered after its service",
			Config{}, nil, []wiretest.Step{find}, `
0s admitted find
0s started find waited 0s
10ms done find latency 10ms queued false started true processing 10ms failed false`},
		{"a busy worker: the second find waits 10 ms for it",
			Config{}, nil, []wiretest.Step{find, find}, `
0s admitted find
0s started find waited 0s
0s admitted find
0s queued find
10ms done find latency 10ms queued false started true processing 10ms failed false
10ms started find after the queue, waited 10ms
20ms done find latency 20ms queued true started true processing 10ms failed false`},
		{"maxTimeMS runs out in the queue: answered when dequeued, never started",
			Config{}, nil, []wiretest.Step{find, with(find, maxTime(5*time.Millisecond))}, `
0s admitted find
0s started find waited 0s
0s admitted find
0s queued find
10ms done find latency 10ms queued false started true processing 10ms failed false
10ms done find latency 10ms queued true started false processing 0s failed true`},
		{"maxTimeMS runs out on the worker: processing up to the abort",
			Config{}, nil, []wiretest.Step{with(find, maxTime(4*time.Millisecond))}, `
0s admitted find
0s started find waited 0s
4ms done find latency 4ms queued false started true processing 4ms failed true`},
		{"not heard of: a connection, a monitoring hello, a 462 rejection",
			// One token: the first find takes it, the second is rejected.
			Config{RequestLimiter: RequestLimiterConfig{Enabled: true, AdmissionRatePerSec: 1, AdmissionBurstCapacitySecs: 1}}, nil,
			[]wiretest.Step{
				with(find, func(r *wire.Request) { r.Cmd, r.Conn = wire.Connect, wiretest.NewConn("app", true) }),
				with(find, func(r *wire.Request) { r.Cmd, r.Conn = wire.Hello, wiretest.NewConn("monitor", false) }),
				find, find}, `
0s admitted find
0s started find waited 0s
10ms done find latency 10ms queued false started true processing 10ms failed false`},
		{"the limiter's queue: admitted when it leaves it, latency from then",
			// One token, one every 10 ms, one may wait: the second find waits until 10 ms.
			Config{Service: dist.Const(5 * time.Millisecond),
				RequestLimiter: RequestLimiterConfig{Enabled: true, AdmissionRatePerSec: 100, AdmissionBurstCapacitySecs: 0.01, AdmissionMaxQueueDepth: 1}},
			nil, []wiretest.Step{find, find}, `
0s admitted find
0s started find waited 0s
5ms done find latency 5ms queued false started true processing 5ms failed false
10ms admitted find
10ms started find waited 0s
15ms done find latency 5ms queued false started true processing 5ms failed false`},
		{"shared cores: both start at once, each at half speed",
			Config{Execution: ExecShared}, nil, []wiretest.Step{find, find}, `
0s admitted find
0s started find waited 0s
0s admitted find
0s started find waited 0s
20ms done find latency 20ms queued false started true processing 20ms failed false
20ms done find latency 20ms queued false started true processing 20ms failed false`},
		{"a full worker queue: 433 is admitted and answered without work",
			Config{MaxQueueDepth: 1}, nil, []wiretest.Step{find, find, find}, `
0s admitted find
0s started find waited 0s
0s admitted find
0s queued find
0s admitted find
0s done find latency 0s queued false started false processing 0s failed true
10ms done find latency 10ms queued false started true processing 10ms failed false
10ms started find after the queue, waited 10ms
20ms done find latency 20ms queued true started true processing 10ms failed false`},
		{"a secondary: a primary-only read is admitted and refused",
			Config{Role: wire.Secondary}, nil, []wiretest.Step{find}, `
0s admitted find
0s done find latency 0s queued false started false processing 0s failed true`},
		{"the node goes down at 5 ms: running and queued commands fail",
			Config{}, []Fault{{At: 5 * time.Millisecond, Kind: FaultDown}}, []wiretest.Step{find, find}, `
0s admitted find
0s started find waited 0s
0s admitted find
0s queued find
5ms done find latency 5ms queued false started true processing 5ms failed true
5ms done find latency 5ms queued true started false processing 0s failed true`},
		{"a 100 ms pause at 5 ms: processing is wall time, the frozen time in it",
			Config{}, []Fault{{At: 5 * time.Millisecond, Kind: FaultPause, For: 100 * time.Millisecond}}, []wiretest.Step{find}, `
0s admitted find
0s started find waited 0s
110ms done find latency 110ms queued false started true processing 110ms failed false`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.Workers = 1
			if cfg.Service == nil {
				cfg.Service = dist.Const(10 * time.Millisecond)
			}
			for i := range tc.faults {
				tc.faults[i].Node = "n"
			}
			o := &logObserver{}
			_, p := observeNode(t, sim.NewLoop(), cfg, tc.faults, o, tc.steps...)
			if got, want := strings.TrimSpace(o.b.String()), strings.TrimSpace(tc.want); got != want {
				t.Errorf("observer heard:\n%s\nwant:\n%s\nreplies:\n%s", got, want, p.Transcript())
			}
		})
	}
}

// Rule (CommandObserver's doc: a mongos routes): a mongos's commands are admitted and answered,
// never queued or started; their latency is the routing's.
func TestCommandObserverMongos(t *testing.T) {
	loop := sim.NewLoop()
	s, err := New(loop, Config{Address: "m", Role: wire.Mongos, Router: &echoRouter{loop: loop, delay: 10 * time.Millisecond}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	o := &logObserver{}
	s.SetCommandObserver(o)
	p := newProbe(loop, s, true)
	p.Send(0, wire.Find, nil)
	loop.Run()
	want := "0s admitted find\n10ms done find latency 10ms queued false started false processing 0s failed false\n"
	if got := o.b.String(); got != want || p.Count != 1 {
		t.Errorf("observer heard:\n%swant:\n%s(%d replies)", got, want, p.Count)
	}
}

// Rule (CommandObserver's doc: an observer only listens): a node with an observer answers
// every request at the same instant with the same reply, and counts the same, as without one;
// what the observer hears adds up to the node's own counters. Poisson finds and inserts at
// twice a node's capacity through a limiter with a queue, a bounded worker queue, maxTimeMS
// on a third of them, a pause and an outage, with tickets and with shared cores.
func TestCommandObserverChangesNothing(t *testing.T) {
	for _, exec := range []Execution{ExecTickets, ExecShared} {
		t.Run(exec.String(), func(t *testing.T) {
			svc, _ := dist.Exp(2 * time.Millisecond)
			cfg := Config{Workers: 4, Service: svc, Execution: exec, RejectCost: 20 * time.Microsecond,
				RequestLimiter: RequestLimiterConfig{Enabled: true, AdmissionRatePerSec: 3000, AdmissionBurstCapacitySecs: 0.01, AdmissionMaxQueueDepth: 20}}
			if exec == ExecTickets {
				cfg.MaxQueueDepth = 50
			}
			faults := []Fault{
				{At: 2 * time.Second, Kind: FaultPause, For: 300 * time.Millisecond, Node: "n"},
				{At: 4 * time.Second, Kind: FaultDown, For: 200 * time.Millisecond, Node: "n"},
			}
			run := func(o CommandObserver) (string, Stats) {
				loop := sim.NewLoop()
				s := oneNode(t, loop, cfg, faults)
				if o != nil {
					s.SetCommandObserver(o)
				}
				p := newProbe(loop, s, true)
				gen := startPoisson(p, 4000, wire.Find, sim.Time(6*time.Second), 7)
				n := 0
				gen.mod = func(r *wire.Request) {
					n++
					if n%3 == 0 {
						r.MaxTime = 5 * time.Millisecond
					}
					if n%5 == 0 {
						r.Cmd = wire.Insert
					}
				}
				loop.Run()
				return p.Transcript(), s.Snapshot(loop.Now())
			}
			plainReplies, plain := run(nil)
			o := &logObserver{}
			seenReplies, seen := run(o)
			if plainReplies != seenReplies {
				t.Errorf("the replies differ with an observer")
			}
			if !reflect.DeepEqual(plain, seen) {
				t.Errorf("the node's statistics differ with an observer:\n%+v\n%+v", plain, seen)
			}
			if o.admitted == 0 || o.admitted != o.done || o.started != o.startedDone {
				t.Errorf("admitted %d, done %d, started %d, of which answered %d: want admitted = done > 0, every started answered",
					o.admitted, o.done, o.started, o.startedDone)
			}
			// The limiter's successes include the reservations that were still waiting in its
			// queue when the node went down: those never passed it.
			dropped := seen.AddedToQueue - seen.RemovedFromQueue
			if want := int(seen.SuccessfulAdmissions - dropped); o.admitted != want || dropped == 0 {
				t.Errorf("admitted %d, the limiter admitted %d and dropped %d from its queue (want some)", o.admitted, seen.SuccessfulAdmissions, dropped)
			}
			if o.queueTime != seen.QueueWait || o.waited > o.queueTime {
				t.Errorf("queue time heard %v (of which before a start %v), the node's queue wait %v", o.queueTime, o.waited, seen.QueueWait)
			}
			if o.failed == 0 || seen.Errors+seen.NetErrors == 0 {
				t.Errorf("failures heard %d, node errors %d: the case should have some", o.failed, seen.Errors+seen.NetErrors)
			}
		})
	}
}

// Rule (CommandResult.Processing: wall time on the worker): with execution tickets and no
// pause, the processing heard of adds up to the node's busy time without its rejections', and
// the waits to its queue wait.
func TestCommandObserverProcessingIsBusyTime(t *testing.T) {
	loop := sim.NewLoop()
	svc, _ := dist.Exp(2 * time.Millisecond)
	o := &logObserver{}
	s, _ := observeNode(t, loop, Config{Workers: 2, Service: svc, MaxQueueDepth: 30, RejectCost: 10 * time.Microsecond}, nil, o)
	p := newProbe(loop, s, true)
	startPoisson(p, 1500, wire.Find, sim.Time(3*time.Second), 3)
	loop.Run()
	st := s.Snapshot(loop.Now())
	if want := st.BusyTime - st.RejectBusyTime; o.processing != want || st.QueueOverflows == 0 {
		t.Errorf("processing heard %v, busy time less rejections %v (%d overflows, want some)", o.processing, want, st.QueueOverflows)
	}
	if o.waited != st.QueueWait || o.queueTime != st.QueueWait || uint64(o.started) != st.Dequeued {
		t.Errorf("waited %v over %d starts (%v in all); the node: %v over %d dequeued", o.waited, o.started, o.queueTime, st.QueueWait, st.Dequeued)
	}
}
