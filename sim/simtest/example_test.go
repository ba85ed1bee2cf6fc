package simtest_test

import (
	"fmt"
	"time"

	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/sim/simtest"
)

// ExampleStreams draws from the stream a component called "client/app/0" gets in a run seeded
// with 7: the same numbers sim.NewStream(7, "client/app/0") gives, and the same numbers on every
// machine.
func ExampleStreams() {
	streams := simtest.NewStreams(7)
	a := streams.Get("client/app/0")
	fmt.Printf("%.4f %.4f\n", a.Float64(), a.Float64())
	b := sim.NewStream(7, "client/app/0")
	fmt.Printf("%.4f %.4f\n", b.Float64(), b.Float64())
	fmt.Println(streams.Get("client/app/0") == a, streams.Names())
	// Output:
	// 0.0982 0.8433
	// 0.0982 0.8433
	// true [client/app/0]
}

// ExampleScript stands in for a node's rejected-requests counter during a run: 0 until 1 s,
// 40 from then, 95 from 2.5 s. A sampler reading it every second sees the value in force at
// each instant.
func ExampleScript() {
	sec := func(s float64) sim.Time { return sim.FromSeconds(s) }
	rejected := simtest.NewScript[uint64](0).Set(sec(1), 40).Set(sec(2.5), 95)
	for t := sim.Time(0); t <= sec(3); t = t.Add(time.Second) {
		fmt.Printf("%v: %d\n", t, rejected.At(t))
	}
	next, _ := rejected.Next(sec(1))
	fmt.Println("changes next at", next)
	// Output:
	// 0s: 0
	// 1s: 40
	// 2s: 40
	// 3s: 95
	// changes next at 2.5s
}
