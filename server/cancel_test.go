package server

import (
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/dist"
	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
)

// TestCancelledRequest: a request its client cancelled (wire.Request.Cancelled, a hedged copy
// that lost) is dropped unstarted when a worker takes it from the queue, answered Interrupted
// without work; one already running finishes.
func TestCancelledRequest(t *testing.T) {
	loop := sim.NewLoop()
	s, err := New(loop, Config{Address: "n", Workers: 1, Service: dist.Const(10 * time.Millisecond)}, 1)
	if err != nil {
		t.Fatal(err)
	}
	p := newProbe(loop, s, true)
	running := p.Send(0, wire.Find, nil)
	queued := p.Send(0, wire.Find, nil)
	p.Send(0, wire.Find, nil)
	loop.At(sim.Time(time.Millisecond), sim.HandlerFunc(func(sim.Time, int, any) {
		running.Cancelled, queued.Cancelled = true, true
	}), 0, nil)
	loop.Run()
	got := []wire.Code{}
	for _, r := range p.Replies {
		got = append(got, r.Code)
	}
	want := []wire.Code{wire.OK, wire.Interrupted, wire.OK}
	if len(got) != len(want) {
		t.Fatalf("replies %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("replies %v, want %v", got, want)
		}
	}
	if st := s.Snapshot(loop.Now()); st.Completed != 2 || st.BusyTime != 20*time.Millisecond {
		t.Errorf("completed %d in %v; want 2 in 20ms: the cancelled one took no work", st.Completed, st.BusyTime)
	}
}

// TestNodePushback: a node's RetryPushbackMS rides on its overload errors (here the request
// limiter's 462) and on nothing else.
func TestNodePushback(t *testing.T) {
	loop := sim.NewLoop()
	s, err := New(loop, Config{Address: "n", Workers: 1, Service: dist.Const(time.Millisecond), RetryPushbackMS: 300,
		RequestLimiter: RequestLimiterConfig{Enabled: true, AdmissionRatePerSec: 1, AdmissionBurstCapacitySecs: 1}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	p := newProbe(loop, s, true)
	p.Send(0, wire.Find, nil)
	p.Send(0, wire.Find, nil)
	loop.Run()
	if len(p.Replies) != 2 {
		t.Fatalf("%d replies, want 2", len(p.Replies))
	}
	// The rejection replies at once, before the admitted command's work ends.
	if r := p.Replies[0]; r.Code != wire.IngressRequestRateLimitExceeded || !r.Pushback || r.PushbackMS != 300 {
		t.Errorf("first reply %v (pushback %v %d ms): want 462 with pushback 300 ms", r, r.Pushback, r.PushbackMS)
	}
	if r := p.Replies[1]; r.Code != wire.OK || r.Pushback {
		t.Errorf("second reply %v: want OK without pushback", r)
	}
}
