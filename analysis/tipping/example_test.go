package tipping_test

import (
	"context"
	"fmt"

	"github.com/overloadsim/overloadsim/analysis/tipping"
)

// A synthetic stand-in for the simulator: each replication (each seed) has its own critical
// trigger length, spread over 26–34 s; a run whose trigger lasts longer than its critical
// length sticks. So P(stuck | trigger) rises from 0 at 26 s to 1 at 34 s and crosses 1/2 at
// 30 s. A real Probe would build the scenario with the trigger length x, seed it with the
// replication index, run it and classify the recovery.
//
// Near 30 s, 200 runs cannot tell P(stuck) from 1/2 (107/200 stuck), so the search stops at
// that tie with the bracket it had, wider than the Precision asked for; the logistic fit over
// all 480 runs gives a sharper point estimate.
func Example() {
	probe := func(trigger float64, replication int) (tipping.Outcome, error) {
		h := uint64(replication+1) * 0x9e3779b97f4a7c15 // a fixed scramble of the seed
		critical := 26 + 8*float64(h>>11)/(1<<53)
		if trigger > critical {
			return tipping.Stuck, nil
		}
		return tipping.Recovered, nil
	}
	res, err := tipping.Search(context.Background(), tipping.Config{
		Lo: 10, Hi: 60, // trigger length, seconds
		Increasing: true, // longer triggers stick more often
		Precision:  1,
		Batch:      20,
		MaxReps:    200,
		Workers:    4,
	}, probe)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("tips between %g s and %g s (%.0f %% confidence), best guess %g s\n",
		res.Lo, res.Hi, 100*res.Confidence, res.Boundary)
	for _, p := range res.Probes {
		fmt.Printf("  x=%-8g %3d/%-3d stuck  %v\n", p.X, p.Stuck, p.Stuck+p.Recovered, p.Verdict)
	}
	fmt.Printf("%d probes of at most %d, %d runs; bracket within Precision: %v\n",
		len(res.Probes), res.MaxProbes, res.Replications, res.Converged)
	if res.Fit != nil {
		fmt.Printf("logistic fit: P(stuck) = 1/2 at %.2f s [%.2f, %.2f]\n", res.Fit.X50, res.Fit.Lo, res.Fit.Hi)
	}
	// Output:
	// tips between 28.75 s and 31.875 s (95 % confidence), best guess 30.3125 s
	//   x=10         0/20  stuck  recovered side
	//   x=60        20/20  stuck  stuck side
	//   x=35        20/20  stuck  stuck side
	//   x=22.5       0/20  stuck  recovered side
	//   x=28.75     48/140 stuck  recovered side
	//   x=31.875    44/60  stuck  stuck side
	//   x=30.3125  107/200 stuck  tie
	// 7 probes of at most 8, 480 runs; bracket within Precision: false
	// logistic fit: P(stuck) = 1/2 at 30.00 s [29.65, 30.34]
}
