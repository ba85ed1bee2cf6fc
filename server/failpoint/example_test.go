package failpoint_test

import (
	"fmt"

	"github.com/overloadsim/overloadsim/server/failpoint"
	"github.com/overloadsim/overloadsim/wire"
)

// The client-backpressure spec test "retries using operation loop": find fails twice with an
// overload error, and the third attempt succeeds. A ping in between does not use up a failure.
func Example() {
	p, err := failpoint.New(failpoint.Config{
		Mode:         failpoint.Times(2),
		FailCommands: []string{"find"},
		ErrorCode:    int(wire.IngressRequestRateLimitExceeded),
		ErrorLabels:  []string{"SystemOverloadedError", "RetryableError"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	from := failpoint.Client{AppName: "app"}
	for _, cmd := range []wire.Command{wire.Find, wire.Ping, wire.Find, wire.Find} {
		a := p.Evaluate(cmd, from, nil) // times mode draws nothing, so no stream is needed
		if a.Fire {
			fmt.Printf("%-5s fails: %v %v\n", cmd, a.Code, a.Labels)
		} else {
			fmt.Printf("%-5s runs\n", cmd)
		}
	}
	fmt.Println(p)
	// Output:
	// find  fails: IngressRequestRateLimitExceeded [SystemOverloadedError,RetryableError]
	// ping  runs
	// find  fails: IngressRequestRateLimitExceeded [SystemOverloadedError,RetryableError]
	// find  runs
	// {mode: {times: 2}, data: {failCommands: ["find"], errorCode: 462, errorLabels: ["RetryableError", "SystemOverloadedError"]}} active=false left=0 timesEntered=2
}

// Validate reports every problem at once.
func ExampleConfig_Validate() {
	err := failpoint.Config{
		Mode:            failpoint.ActivationProbability(2),
		FailCommands:    []string{"find"},
		BlockConnection: true,
	}.Validate()
	fmt.Println(err)
	// Output:
	// failpoint: mode.activationProbability: 2: must be in [0, 1]
	// failpoint: data.blockTimeMS: 0: must be > 0 when blockConnection is true
}
