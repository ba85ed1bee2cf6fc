package wiretest_test

import (
	"fmt"
	"time"

	"github.com/overloadsim/overloadsim/dist"
	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
	"github.com/overloadsim/overloadsim/wire/wiretest"
)

// Example scripts both ends of a connection with a 1 ms one-way link: the node rejects the
// first find with the rate limiter's 462, takes 5 ms over the second, and closes the connection
// on the third; the client connects, sends three finds 10 ms apart, and a fourth after the close.
// Each side's record is the transcript of what it saw.
func Example() {
	loop := sim.NewLoop()
	node := wiretest.NewNode(loop, wire.Standalone).
		On(wire.Find, wiretest.RateLimited(), wiretest.OK().After(5*time.Millisecond), wiretest.CloseConn())
	client := wiretest.NewClient(loop, node)
	client.Conn.Link = wire.NewLink(dist.Const(time.Millisecond), sim.NewStream(1, "link/app/db"))
	ms := func(n int) sim.Time { return sim.Time(time.Duration(n) * time.Millisecond) }
	client.Play(
		wiretest.Step{At: 0, Cmd: wire.Connect},
		wiretest.Step{At: ms(10), Cmd: wire.Find},
		wiretest.Step{At: ms(20), Cmd: wire.Find},
		wiretest.Step{At: ms(30), Cmd: wire.Find},
		wiretest.Step{At: ms(40), Cmd: wire.Find},
	)
	loop.Run()
	fmt.Print("node:\n", node.Transcript())
	fmt.Print("client:\n", client.Transcript())
	fmt.Println("network errors:", client.NetErrs, "closed:", client.Conn.Closed)
	// Output:
	// node:
	// 1ms connect #1 on conn 0: OK
	// 11ms find #2 on conn 1: IngressRequestRateLimitExceeded [SystemOverloadedError,RetryableError,NoWritesPerformed]
	// 21ms find #3 on conn 1: OK after 5ms
	// 31ms find #4 on conn 1: close the connection
	// 41ms find #5 on conn 1: close the connection
	// client:
	// 2ms connect #1 sent 0s: OK
	// 12ms find #2 sent 10ms: IngressRequestRateLimitExceeded [SystemOverloadedError,RetryableError,NoWritesPerformed]
	// 27ms find #3 sent 20ms: OK
	// 32ms find #4 sent 30ms: network error
	// 42ms find #5 sent 40ms: network error
	// network errors: 2 closed: true
}
