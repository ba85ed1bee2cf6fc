package phasemap_test

import (
	"fmt"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/phasemap"
)

// A cell of five replications after the trigger: three recovered (in 4, 6 and 9 s), one stuck,
// one too short to tell. P(stuck) is over the four that decided.
func ExampleNewCell() {
	c := phasemap.NewCell([]results.Param{{Path: "faults[0].for", Value: "5s"}},
		[]results.RecoveryOutcome{results.Recovered, results.Stuck, results.Recovered, results.Undecided, results.Recovered},
		[]float64{4, 0, 6, 0, 9})
	fmt.Printf("P(stuck) %.2f in [%.3f, %.3f], median recovery %g s\n", c.PStuck, c.PStuckLo, c.PStuckHi, c.RecoveryMedian)
	// Output:
	// P(stuck) 0.25 in [0.046, 0.699], median recovery 6 s
}
