package simreplay_test

import (
	"fmt"

	"github.com/overloadsim/overloadsim/lab/experiment"
	"github.com/overloadsim/overloadsim/lab/simreplay"
)

// Example replays the overload-then-ok experiment with the 2026-07 specification text: every
// find is rejected twice with 462 and succeeds on its third attempt, each retry after a backoff
// within 200 ms, then 400 ms.
func Example() {
	e, err := experiment.Load("../experiments/overload-then-ok.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	rec, err := simreplay.Replay(e, simreplay.Options{Policy: "mongodb-2026-07", Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rec.Runner, rec.Release, len(rec.Ops), "operations")
	op := rec.Ops[0]
	for _, a := range op.Attempts {
		fmt.Println(a.Server, a.Answer)
	}
	g := op.Gaps()
	fmt.Println("outcome:", op.Outcome.Class, "; gaps within ceilings:", g[0] <= 200 && g[1] <= 400)
	// Output:
	// sim sim:mongodb-2026-07 40 operations
	// n0 error 462
	// n0 error 462
	// n0 ok
	// outcome: ok ; gaps within ceilings: true
}
