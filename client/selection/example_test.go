package selection_test

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/overloadsim/overloadsim/client/selection"
	"github.com/overloadsim/overloadsim/wire"
)

// A primaryPreferred read goes to the primary; the primary answers with an overload error and
// the driver retargets the retry by deprioritising it, so the retry goes to a secondary. Of
// the two secondaries, c is beyond the latency window (6 ms + 15 ms), so b is chosen.
func ExampleSelector_Select() {
	servers := []selection.Server{
		{Address: "a:27017", Role: wire.Primary, RTT: 5 * time.Millisecond},
		{Address: "b:27017", Role: wire.Secondary, RTT: 6 * time.Millisecond, InFlight: 3},
		{Address: "c:27017", Role: wire.Secondary, RTT: 40 * time.Millisecond},
	}
	rp := selection.ReadPreference{Mode: selection.PrimaryPreferred}
	var s selection.Selector
	r := rand.New(rand.NewPCG(1, 2))

	first := s.Select(selection.ReplicaSet, servers, rp, false, nil, selection.DefaultLocalThreshold, r)
	fmt.Println("attempt 1:", servers[first].Address)
	deprioritized := []string{servers[first].Address}
	retry := s.Select(selection.ReplicaSet, servers, rp, false, deprioritized, selection.DefaultLocalThreshold, r)
	fmt.Println("attempt 2:", servers[retry].Address)
	// Output:
	// attempt 1: a:27017
	// attempt 2: b:27017
}

// The average RTT takes its first sample as is, then moves a fifth of the way to each new one.
func ExampleRTT() {
	var avg selection.RTT
	for _, sample := range []time.Duration{10 * time.Millisecond, 20 * time.Millisecond, 20 * time.Millisecond} {
		avg.Add(sample)
		v, _ := avg.Value()
		fmt.Println(v)
	}
	avg.Reset()
	_, ok := avg.Value()
	fmt.Println("after Reset:", ok)
	// Output:
	// 10ms
	// 12ms
	// 13.6ms
	// after Reset: false
}
