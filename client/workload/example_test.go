package workload_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/overloadsim/overloadsim/client/workload"
	"github.com/overloadsim/overloadsim/dist"
	"github.com/overloadsim/overloadsim/sim"
)

// An open-loop application under a spike: Poisson arrivals at 100/s, 2000/s for 20s from 30s.
// The loop a client runs is: schedule the next arrival, issue an operation when it fires, ask
// for the next one. Counts per 10s window match the integrated rate.
func Example() {
	p, err := workload.Spike(100, 2000, 30*time.Second, 20*time.Second)
	if err != nil {
		fmt.Println(err)
		return
	}
	arrivals := workload.Poisson(p)
	fmt.Println(arrivals)

	r := sim.NewStream(1, "client/app/0/arrivals")
	counts := make([]int, 8)
	for now := sim.Time(0); ; {
		at, ok := arrivals.Next(now, r)
		if !ok || at >= sim.Time(80*time.Second) {
			break
		}
		counts[at/sim.Time(10*time.Second)]++
		now = at
	}
	for k, n := range counts {
		from := time.Duration(k) * 10 * time.Second
		fmt.Printf("[%v, %v): %5d arrivals, Λ = %5.0f\n", from, from+10*time.Second, n, p.Integral(from, from+10*time.Second))
	}
	// Output:
	// poisson(spike(100/s, 2000/s, 30s, 20s))
	// [0s, 10s):   993 arrivals, Λ =  1000
	// [10s, 20s):   968 arrivals, Λ =  1000
	// [20s, 30s):  1013 arrivals, Λ =  1000
	// [30s, 40s): 19830 arrivals, Λ = 20000
	// [40s, 50s): 20006 arrivals, Λ = 20000
	// [50s, 1m0s):   990 arrivals, Λ =  1000
	// [1m0s, 1m10s):  1026 arrivals, Λ =  1000
	// [1m10s, 1m20s):   963 arrivals, Λ =  1000
}

// The sine profile at quarter periods.
func ExampleSine() {
	p, err := workload.Sine(500, 400, time.Minute, workload.PhaseMeanUp)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p)
	for t := time.Duration(0); t <= time.Minute; t += 15 * time.Second {
		fmt.Printf("rate(%v) = %.0f/s\n", t, p.Rate(t))
	}
	fmt.Printf("one period: %.0f operations\n", p.Integral(0, time.Minute))

	_, err = workload.Sine(100, 150, time.Minute, 0)
	fmt.Println(err)
	// Output:
	// sine(500/s, 400/s, 1m0s, 0)
	// rate(0s) = 500/s
	// rate(15s) = 900/s
	// rate(30s) = 500/s
	// rate(45s) = 100/s
	// rate(1m0s) = 500/s
	// one period: 30000 operations
	// workload: sine: amplitude: 150: must be ≤ mean 100 (the rate would go negative)
}

// Fixed arrivals on a ramp from 0 to 100/s over 10s: the n-th arrival is where the integrated
// rate 5t² reaches n, at √(n/5) seconds.
func ExampleFixed() {
	p, err := workload.Ramp(0, 100, 0, 10*time.Second)
	if err != nil {
		fmt.Println(err)
		return
	}
	a := workload.Fixed(p)
	now := sim.Time(0)
	for range 5 {
		now, _ = a.Next(now, nil)
		fmt.Println(now)
	}
	// Output:
	// 447.213595ms
	// 632.455532ms
	// 774.596669ms
	// 894.427191ms
	// 1s
}

// A mix picks the kind of each operation; kinds come back sorted.
func ExampleNewMix() {
	m, err := workload.NewMix([]workload.Weight{{Kind: "insert", Weight: 30}, {Kind: "find", Weight: 70}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m, m.Kinds())
	r := sim.NewStream(1, "client/app/0/mix")
	counts := make([]int, m.Len())
	for range 10_000 {
		counts[m.Pick(r)]++
	}
	for i, n := range counts {
		fmt.Printf("%s: %d\n", m.Kind(i), n)
	}
	// Output:
	// mix(find=70, insert=30) [find insert]
	// find: 6961
	// insert: 3039
}

// A trace exported as CSV, replayed as a step function.
func ExampleReadTraceCSV() {
	const csv = `time,ops_per_sec
0,120
30s,900
1m,150
`
	points, err := workload.ReadTraceCSV(strings.NewReader(csv))
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := workload.TraceFile("peak-hour.csv", points)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p)
	for _, t := range []time.Duration{0, 29 * time.Second, 30 * time.Second, time.Hour} {
		fmt.Printf("rate(%v) = %v/s\n", t, p.Rate(t))
	}
	// Output:
	// trace(peak-hour.csv)
	// rate(0s) = 120/s
	// rate(29s) = 120/s
	// rate(30s) = 900/s
	// rate(1h0m0s) = 150/s
}

// A closed-loop thread issues its next operation a think time after the previous completed.
func ExampleThink() {
	none := workload.Think(nil) // no pause: the next operation follows the reply at once
	fmt.Println(none, none.Next(sim.Time(2*time.Second), nil))

	d, err := dist.Parse("exp(100ms)")
	if err != nil {
		fmt.Println(err)
		return
	}
	th := workload.Think(d)
	r := sim.NewStream(1, "client/app/0/thread/3")
	done := sim.Time(2 * time.Second)
	fmt.Println(th, th.Next(done, r), th.Next(done, r))
	// Output:
	// think(0s) 2s
	// think(exp(100ms)) 2.529670566s 2.008705242s
}
