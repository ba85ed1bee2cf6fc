package client_test

import (
	"fmt"
	"time"

	"github.com/overloadsim/overloadsim/client"
	"github.com/overloadsim/overloadsim/client/selection"
	"github.com/overloadsim/overloadsim/dist"
	"github.com/overloadsim/overloadsim/server"
	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
)

// timeline prints the steps of a client's operations that show a retry: each attempt, its
// outcome, each backoff, and the result.
type timeline struct{}

func (timeline) OpIssued(now sim.Time, op client.TraceOp) {
	fmt.Printf("%-10v op %d: %v issued\n", us(now), op.ID, op.Kind)
}
func (timeline) CheckoutStarted(sim.Time, client.TraceOp, string)                              {}
func (timeline) CheckoutEnded(sim.Time, client.TraceOp, string, sim.Time, client.TraceOutcome) {}
func (timeline) AttemptSent(now sim.Time, op client.TraceOp, server string, attempt int) {
	fmt.Printf("%-10v op %d: attempt %d sent to %s\n", us(now), op.ID, attempt, server)
}
func (timeline) AttemptEnded(now sim.Time, op client.TraceOp, _ string, attempt int, _ sim.Time, out client.TraceOutcome) {
	result := "ok"
	if !out.OK {
		result = out.Failure.String()
	}
	fmt.Printf("%-10v op %d: attempt %d: %s\n", us(now), op.ID, attempt, result)
}
func (timeline) BackoffStarted(now sim.Time, op client.TraceOp, retry int, d time.Duration) {
	fmt.Printf("%-10v op %d: retry %d after a backoff of %v\n", us(now), op.ID, retry, d.Round(time.Microsecond))
}
func (timeline) BackoffEnded(sim.Time, client.TraceOp, int, sim.Time, time.Duration) {}
func (timeline) OpDone(now sim.Time, op client.TraceOp, r *client.Result) {
	fmt.Printf("%-10v op %d: done, ok %v after %d attempts, latency %v\n", us(now), op.ID, r.OK, r.Attempts, r.Latency().Round(time.Microsecond))
}

// us rounds a virtual time to the microsecond for printing.
func us(t sim.Time) time.Duration { return time.Duration(t).Round(time.Microsecond) }

// ignore is the application: it issues operations and needs nothing back.
type ignore struct{}

func (ignore) OperationDone(sim.Time, *client.Result) {}

// Example runs one MongoClient (the default mongodb-2026-03 policy, jitter from the client's
// own stream) against a node whose ingress request rate limiter holds one token and gets one
// more every 50 ms, 1 ms away over the network. Two finds are issued at the same instant: the
// first takes the token; the second is rejected with 462 (SystemOverloadedError, RetryableError
// and NoWritesPerformed), backs off for a random fraction of 100 ms, then of 200 ms, and is
// retried until a token is there. The node's monitoring hellos are never limited, and the two
// connections are established before the first attempts (1 ms each way).
func Example() {
	loop := sim.NewLoop()
	const seed = 1
	node, err := server.New(loop, server.Config{Address: "db", Service: dist.Const(time.Millisecond),
		RequestLimiter: server.RequestLimiterConfig{Enabled: true, AdmissionRatePerSec: 20, AdmissionBurstCapacitySecs: 0.05}}, seed)
	if err != nil {
		fmt.Println(err)
		return
	}
	link := wire.NewLink(dist.Const(time.Millisecond), loop.NewStream(seed, "link/app/db"))
	c, err := client.New(loop, client.DefaultOptions(), selection.Single,
		[]client.Node{{Address: "db", Handler: node, Link: link}}, seed, "client/app/0")
	if err != nil {
		fmt.Println(err)
		return
	}
	c.SetTracer(timeline{})
	loop.At(sim.Time(100*time.Millisecond), sim.HandlerFunc(func(now sim.Time, _ int, _ any) {
		c.Execute(now, client.Spec{Kind: client.Find}, ignore{})
		c.Execute(now, client.Spec{Kind: client.Find}, ignore{})
	}), 0, nil)
	loop.RunUntil(sim.Time(time.Second))
	st := node.Snapshot(loop.Now())
	fmt.Printf("limiter: %d admitted, %d rejected\n", st.SuccessfulAdmissions, st.RejectedAdmissions)
	// Output:
	// 100ms      op 1: find issued
	// 100ms      op 2: find issued
	// 102ms      op 1: attempt 1 sent to db
	// 102ms      op 2: attempt 1 sent to db
	// 104ms      op 2: attempt 1: IngressRequestRateLimitExceeded(462) [SystemOverloadedError,RetryableError,NoWritesPerformed]
	// 104ms      op 2: retry 1 after a backoff of 29.843ms
	// 105ms      op 1: attempt 1: ok
	// 105ms      op 1: done, ok true after 1 attempts, latency 5ms
	// 133.843ms  op 2: attempt 2 sent to db
	// 135.843ms  op 2: attempt 2: IngressRequestRateLimitExceeded(462) [SystemOverloadedError,RetryableError,NoWritesPerformed]
	// 135.843ms  op 2: retry 2 after a backoff of 94.42ms
	// 230.263ms  op 2: attempt 3 sent to db
	// 233.263ms  op 2: attempt 3: ok
	// 233.263ms  op 2: done, ok true after 3 attempts, latency 133.263ms
	// limiter: 2 admitted, 2 rejected
}
