package fit_test

import (
	"fmt"
	"sort"

	"github.com/overloadsim/overloadsim/calibrate/fit"
	"github.com/overloadsim/overloadsim/dist"
	"github.com/overloadsim/overloadsim/results/serverstatus"
	"github.com/overloadsim/overloadsim/sim"
)

// Service times drawn from a gamma with mean 5ms and shape 2 are fitted as samples and as
// MongoDB's opLatencies histogram; both pick the gamma and recover its parameters.
func Example() {
	d, err := dist.Parse("gamma(5ms, 2)")
	if err != nil {
		fmt.Println(err)
		return
	}
	r := sim.NewStream(1, "example/service")
	xs := make([]float64, 20000)
	for i := range xs {
		xs[i] = d.Sample(r).Seconds()
	}

	fits, err := fit.Samples(xs)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range fits {
		fmt.Println(f)
	}
	fmt.Println("best:", fit.Best(fits).Dist())

	// The same latencies as opLatencies counts them: every range listed, empty ones with 0.
	b := serverstatus.LowerBounds
	lower, counts := make([]float64, len(b)), make([]int64, len(b))
	for i, us := range b {
		lower[i] = float64(us) * 1e-6
	}
	for _, x := range xs {
		counts[sort.Search(len(b), func(i int) bool { return float64(b[i]) > x*1e6 })-1]++
	}
	hist, err := fit.Histogram(lower, counts)
	if err != nil {
		fmt.Println(err)
		return
	}
	best := fit.Best(hist)
	fmt.Println("histogram best:", best)
	fmt.Println("with a mean from counters:", best.WithMean(0.00503).Dist())

	_, err = fit.Samples(xs[:10])
	fmt.Println(err)
	// Output:
	// exp(4.96ms) AIC=-172231 KS=0.1375 n=20000
	// lognormal(5.23ms, 0.805) AIC=-175045 KS=0.0488 n=20000
	// gamma(4.96ms, 1.98) AIC=-176777 KS=0.0038 n=20000
	// best: gamma(4.96ms, 1.98)
	// histogram best: gamma(4.97ms, 1.98) AIC=82983.7 KS=0.0022 n=20000
	// with a mean from counters: gamma(5.03ms, 1.98)
	// fit: samples: 10 values: need at least 30
}
