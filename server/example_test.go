package server_test

import (
	"fmt"
	"time"

	"github.com/overloadsim/overloadsim/dist"
	"github.com/overloadsim/overloadsim/internal/queueing"
	"github.com/overloadsim/overloadsim/server"
	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
	"github.com/overloadsim/overloadsim/wire/wiretest"
)

// Example runs a seeded M/M/1 queue through a node's full request path and compares the mean
// wait with theory.
func Example() {
	loop := sim.NewLoop()
	svc, _ := dist.Exp(10 * time.Millisecond) // μ = 100/s
	node, _ := server.New(loop, server.Config{Address: "db", Workers: 1, Service: svc}, 1)
	app := wiretest.NewClient(loop, node) // all a client needs to be: it sends and counts replies
	app.Keep = false
	arrivals := sim.NewStream(1, "example/arrivals")
	t := sim.Time(0)
	for i := 0; i < 200000; i++ { // λ = 50/s for about 4000 s
		t = t.Add(time.Duration(arrivals.ExpFloat64() / 50 * 1e9))
		app.Send(t, wire.Find, nil)
	}
	loop.Run()
	st := node.Snapshot(loop.Now())
	fmt.Printf("replies %d, utilisation %.2f\n", app.Count, st.BusyArea/st.CapacityArea)
	fmt.Printf("mean wait %.3f s, M/M/1 theory %.3f s\n",
		st.QueueWait.Seconds()/float64(st.Dequeued), queueing.MM1Wait(50, 100))
	// Output:
	// replies 200000, utilisation 0.50
	// mean wait 0.010 s, M/M/1 theory 0.010 s
}
