package dist_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/overloadsim/overloadsim/dist"
	"github.com/overloadsim/overloadsim/sim"
)

// A scenario names a service time in text; the server draws from its own stream.
func Example() {
	d, err := dist.Parse(" lognormal( 3ms , 0.50 ) ")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d)
	fmt.Println("mean", d.Mean())
	fmt.Printf("E[S²] %.4g s²\n", d.SecondMoment())

	r := sim.NewStream(1, "server/a/service")
	for range 3 {
		fmt.Println(d.Sample(r))
	}

	_, err = dist.Parse("exp(-5ms)")
	fmt.Println(err)
	// Output:
	// lognormal(3ms, 0.5)
	// mean 3ms
	// E[S²] 1.156e-05 s²
	// 2.17018ms
	// 4.68048ms
	// 2.888518ms
	// dist: "exp(-5ms)": mean -5ms: must be > 0
}

// SecondMoment feeds the Pollaczek–Khinchine formula for the mean wait in an M/G/1 queue,
// W = λ·E[S²] / (2(1−ρ)) with ρ = λ·E[S]: at the same mean and load, the lognormal's and the
// gamma's smaller variance waits less than the exponential's, and a gamma with shape below 1
// waits more.
func ExampleDuration() {
	const lambda = 200.0 // arrivals per second
	for _, text := range []string{"const(3ms)", "lognormal(3ms, 0.5)", "gamma(3ms, 2)", "exp(3ms)", "gamma(3ms, 0.5)"} {
		d, err := dist.Parse(text)
		if err != nil {
			fmt.Println(err)
			return
		}
		rho := lambda * d.Mean().Seconds()
		w := lambda * d.SecondMoment() / (2 * (1 - rho))
		fmt.Printf("%-20s ρ=%.2f W=%.3gms\n", d, rho, w*1e3)
	}
	// Output:
	// const(3ms)           ρ=0.60 W=2.25ms
	// lognormal(3ms, 0.5)  ρ=0.60 W=2.89ms
	// gamma(3ms, 2)        ρ=0.60 W=3.37ms
	// exp(3ms)             ρ=0.60 W=4.5ms
	// gamma(3ms, 0.5)      ρ=0.60 W=6.75ms
}

// The scenarios package passes a loader that opens the named file and reads it with
// ReadEmpiricalCSV; here an in-memory file stands in for it.
func ExampleParseWith() {
	files := map[string]string{"rtt.csv": "latency_ms,host\n1,a\n2,b\n5,a\n"}
	load := func(name string) ([]time.Duration, error) {
		text, ok := files[name]
		if !ok {
			return nil, fmt.Errorf("open %s: no such file", name)
		}
		return dist.ReadEmpiricalCSV(strings.NewReader(text))
	}
	d, err := dist.ParseWith("empirical(rtt.csv)", load)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d, d.Mean())

	_, err = dist.ParseWith("empirical(other.csv)", load)
	fmt.Println(err)
	// Output:
	// empirical(rtt.csv) 2.666667ms
	// dist: "empirical(other.csv)": file "other.csv": open other.csv: no such file
}
