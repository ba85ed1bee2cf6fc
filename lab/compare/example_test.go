package compare_test

import (
	"fmt"

	"github.com/overloadsim/overloadsim/lab/compare"
	"github.com/overloadsim/overloadsim/lab/experiment"
	"github.com/overloadsim/overloadsim/lab/simreplay"
)

// Example compares the two Client Backpressure texts on overload-always, each replayed through
// the simulator: 2026-03 makes six attempts with backoffs from 100 ms × 2^(n−1), 2026-07 three
// from 100 ms × 2^n, so the attempts differ, and so do the gaps before the first two retries;
// the later retries have no gaps on the 2026-07 side.
func Example() {
	e, err := experiment.Load("../experiments/overload-always.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	old, err := simreplay.Replay(e, simreplay.Options{Policy: "mongodb-2026-03", Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	late, err := simreplay.Replay(e, simreplay.Options{Policy: "mongodb-2026-07", Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	r := compare.Compare(e, old, late)
	fmt.Println("agrees:", r.Agrees())
	for _, f := range r.Findings {
		fmt.Println(f.Rule, f.Verdict)
	}
	fmt.Println(r.Findings[0])
	// Output:
	// agrees: false
	// attempts differs
	// outcome agrees
	// gaps differs
	// gaps differs
	// gaps too few
	// gaps too few
	// gaps too few
	// attempts: differs: sim:mongodb-2026-03 {6: 300}, sim:mongodb-2026-07 {3: 300}
}
