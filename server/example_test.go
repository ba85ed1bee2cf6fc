package server_test

import (
	"fmt"
	"time"

	"overloadsim/dist"
	"overloadsim/internal/queueing"
	"overloadsim/server"
	"overloadsim/sim"
	"overloadsim/wire"
)

// source sends Poisson arrivals to a node and counts the replies; it is all a client needs to be.
type source struct {
	loop    *sim.Loop
	node    sim.Handler
	conn    *wire.Conn
	replies int
}

func (s *source) HandleEvent(now sim.Time, kind int, arg any) {
	if kind == 1 { // a reply
		s.replies++
		return
	}
	req := &wire.Request{Cmd: wire.Find, Conn: s.conn, GiveUpAt: sim.Never, ReplyTo: s, ReplyKind: 1, SentAt: now}
	s.loop.At(now, s.node, wire.EvRequest, req)
}

// Example runs a seeded M/M/1 queue through a node's full request path and compares the mean
// wait with theory.
func Example() {
	loop := sim.NewLoop()
	svc, _ := dist.Exp(10 * time.Millisecond) // μ = 100/s
	node, _ := server.New(loop, server.Config{Address: "db", Workers: 1, Service: svc}, 1)
	src := &source{loop: loop, node: node, conn: &wire.Conn{Authenticated: true}}
	arrivals := sim.NewStream(1, "example/arrivals")
	t := sim.Time(0)
	for i := 0; i < 200000; i++ { // λ = 50/s for about 4000 s
		t = t.Add(time.Duration(arrivals.ExpFloat64() / 50 * 1e9))
		loop.At(t, src, 0, nil)
	}
	loop.Run()
	st := node.Snapshot(loop.Now())
	fmt.Printf("replies %d, utilisation %.2f\n", src.replies, st.BusyArea/st.CapacityArea)
	fmt.Printf("mean wait %.3f s, M/M/1 theory %.3f s\n",
		st.QueueWait.Seconds()/float64(st.Dequeued), queueing.MM1Wait(50, 100))
	// Output:
	// replies 200000, utilisation 0.50
	// mean wait 0.010 s, M/M/1 theory 0.010 s
}
