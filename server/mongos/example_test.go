package mongos_test

import (
	"fmt"
	"time"

	"github.com/overloadsim/overloadsim/dist"
	"github.com/overloadsim/overloadsim/server"
	"github.com/overloadsim/overloadsim/server/failpoint"
	"github.com/overloadsim/overloadsim/server/mongos"
	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
)

// app is the application's side: it records the mongos's answers.
type app struct{}

func (app) HandleEvent(now sim.Time, _ int, arg any) {
	r := arg.(*wire.Request)
	fmt.Printf("%-8v command %d: %v %v\n", now, r.ID, r.Reply.Code, r.Reply.Labels)
}

// Example routes three finds through a mongos to a one-shard replica set whose primary rejects
// the first five attempts with 462 (internal commands included). The first command runs out of
// retries after 1 + 3 attempts and gets 462 with the default exhausted-retry label, which a
// driver does not retry; the second fails once more, backs off and succeeds; the third succeeds
// at once. The budget lost a token per overload error and got 1.1 back after the overloaded
// attempt of the second command, and 0.1 for the third.
func Example() {
	loop := sim.NewLoop()
	const seed = 1

	// The shard: a primary and two secondaries, 1ms away from the mongos.
	shard := mongos.Shard{Name: "rs0"}
	var primary *server.Server
	for i, role := range []wire.Role{wire.Primary, wire.Secondary, wire.Secondary} {
		addr := fmt.Sprintf("rs0-%d", i)
		n, err := server.New(loop, server.Config{Address: addr, Role: role, ReplSetName: "rs0",
			Service: dist.Const(time.Millisecond), RejectCost: server.DefaultRejectCost, HandshakeCost: server.DefaultHandshakeCost}, seed)
		if err != nil {
			fmt.Println(err)
			return
		}
		if i == 0 {
			primary = n
		}
		link := wire.NewLink(dist.Const(time.Millisecond), sim.NewStream(seed, "link/mongos/"+addr))
		shard.Members = append(shard.Members, mongos.Member{Address: addr, Node: n, Link: link})
	}
	fp, _ := failpoint.New(failpoint.Config{Mode: failpoint.Times(5), FailCommands: []string{"find"},
		ErrorCode: int(wire.IngressRequestRateLimitExceeded), FailInternalCommands: true})
	primary.SetFailPoint(0, fp)

	// The router first, then the mongos node that uses it.
	cfg := mongos.DefaultConfig()
	cfg.Address = "mongos"
	router, err := mongos.New(loop, cfg, []mongos.Shard{shard}, seed)
	if err != nil {
		fmt.Println(err)
		return
	}
	node, err := server.New(loop, server.Config{Address: "mongos", Role: wire.Mongos, Router: router,
		RejectCost: server.DefaultRejectCost, HandshakeCost: server.DefaultHandshakeCost}, seed)
	if err != nil {
		fmt.Println(err)
		return
	}

	conn := &wire.Conn{Authenticated: true, AppName: "app", Link: wire.NewLink(nil, nil)}
	for i, at := range []time.Duration{0, 2 * time.Second, 4 * time.Second} {
		req := &wire.Request{ID: uint64(i + 1), Cmd: wire.Find, Conn: conn, GiveUpAt: sim.Never,
			ReplyTo: app{}, SentAt: sim.Time(at)}
		loop.At(sim.Time(at), node, wire.EvRequest, req)
	}
	loop.RunUntil(sim.Time(10 * time.Second))

	st := router.Stats()[0]
	fmt.Printf("shard %s: operations %d, retried due to overload %d (succeeded %d), overload retries %d, overload errors %d, backoff %v, budget %.1f\n",
		st.Shard, st.NumOperationsAttempted, st.NumOperationsRetriedAtLeastOnceDueToOverload,
		st.NumOperationsRetriedAtLeastOnceDueToOverloadAndSucceeded, st.NumRetriesDueToOverloadAttempted,
		st.NumOverloadErrorsReceived, st.TotalBackoffTime, st.RetryBudgetTokenBucketBalance)
	// Output:
	// 803ms    command 1: IngressRequestRateLimitExceeded [SystemOverloadedError]
	// 2.178s   command 2: OK []
	// 4.003s   command 3: OK []
	// shard rs0: operations 3, retried due to overload 2 (succeeded 1), overload retries 4, overload errors 5, backoff 964ms, budget 996.2
}
