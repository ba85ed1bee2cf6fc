package server

import (
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/dist"
	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
)

// TestRejectOrder: a costly rejection waits for its worker ahead of queued commands
// (RejectAhead, the default) or in line with them (RejectFIFO); docs/model.md §5.4. One worker,
// 10 ms commands, 5 ms rejections, two tokens: #1 runs at once, #2 queues, #3 is rejected.
func TestRejectOrder(t *testing.T) {
	for _, c := range []struct {
		order          RejectOrder
		second, reject time.Duration // when #2's answer and the rejection come back
	}{
		{RejectAhead, 25 * time.Millisecond, 15 * time.Millisecond},
		{RejectFIFO, 20 * time.Millisecond, 25 * time.Millisecond},
	} {
		loop := sim.NewLoop()
		cfg := limited(2, 1, 0)
		cfg.Workers, cfg.Service, cfg.RejectCost, cfg.RejectOrder = 1, dist.Const(10*time.Millisecond), 5*time.Millisecond, c.order
		s, err := New(loop, cfg, 1)
		if err != nil {
			t.Fatal(err)
		}
		p := newProbe(loop, s, true)
		for range 3 {
			p.Send(0, wire.Find, nil)
		}
		loop.Run()
		got := map[uint64]sim.Time{}
		for _, r := range p.Replies {
			got[r.ID] = r.Got
		}
		if got[2] != sim.Time(c.second) || got[3] != sim.Time(c.reject) {
			t.Errorf("%s: #2 answered at %v, the rejection at %v; want %v and %v\n%s", c.order, got[2], got[3], c.second, c.reject, p.Transcript())
		}
		st := s.Snapshot(loop.Now())
		// #1 passes through the queue at once, #2 waits until its start: rejections are not
		// commands, whichever queue they wait in.
		if wait := c.second - 10*time.Millisecond; st.Dequeued != 2 || st.QueueWait != wait {
			t.Errorf("%s: %d commands dequeued after %v in all; want 2 after %v", c.order, st.Dequeued, st.QueueWait, wait)
		}
	}
	if _, ok := ParseRejectOrder("fifo"); !ok || RejectFIFO.String() != "fifo" || RejectAhead.String() != "ahead" {
		t.Error("reject order names do not round-trip")
	}
}
