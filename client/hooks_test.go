package client

import (
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/client/retry"
	"github.com/overloadsim/overloadsim/dist"
	"github.com/overloadsim/overloadsim/server"
	"github.com/overloadsim/overloadsim/server/failpoint"
	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
)

// scripted is a retry policy whose hooks the test sets: it checks that the driver calls
// retry.Gate, retry.Ender and retry.Hedger as their contracts say, whatever a real policy
// decides.
type scripted struct {
	admit    func(n int) retry.Admission // the n-th Admit (from 0)
	failed   func(f retry.Failure) retry.Decision
	hedges   int           // copies per operation; 0: no hedging
	delay    time.Duration // hedging delay
	admits   int
	ended    int
	succeded int
	failures []retry.Failure
	hedged   int
}

func (p *scripted) Name() string { return "scripted" }
func (p *scripted) Begin(st *retry.State, c retry.Class, now, deadline sim.Time) {
}
func (p *scripted) Succeeded(*retry.State, sim.Time) { p.succeded++ }
func (p *scripted) Failed(st *retry.State, f retry.Failure, now sim.Time, j retry.Jitter) retry.Decision {
	p.failures = append(p.failures, f)
	if p.failed != nil {
		return p.failed(f)
	}
	return retry.Decision{Why: retry.NotRetryable, Err: f}
}
func (p *scripted) Admit(st *retry.State, now sim.Time, j retry.Jitter) retry.Admission {
	p.admits++
	if p.admit == nil {
		return retry.Admission{}
	}
	return p.admit(p.admits - 1)
}
func (p *scripted) Ended(*retry.State, sim.Time) { p.ended++ }
func (p *scripted) Hedging() (time.Duration, int, bool) {
	return p.delay, p.hedges, p.hedges > 0
}
func (p *scripted) Hedge(*retry.State, sim.Time) bool { p.hedged++; return true }

func scriptedEnv(t *testing.T, p *scripted, mod func(*server.Config)) *env {
	e := newEnv(t, envConfig{nodes: standalone(mod), opts: DefaultOptions(), jitter: 1})
	e.client.setPolicy(p)
	return e
}

// TestGateDelay: an Admission's Delay holds the attempt back before server selection
// (retry.Gate), and the client counts the time held.
func TestGateDelay(t *testing.T) {
	p := &scripted{admit: func(int) retry.Admission { return retry.Admission{Delay: 50 * time.Millisecond} }}
	e := scriptedEnv(t, p, nil)
	r := e.run(discovered, Spec{Kind: Find})[0]
	// 50 ms held, then 1 ms of service on a connection the pool must open first.
	if !r.OK || r.Done.Sub(r.Issued) < 51*time.Millisecond {
		t.Errorf("result %+v: want success no sooner than 51 ms after issue", r)
	}
	if st := e.client.Snapshot(); st.AdmitDelay != 50*time.Millisecond || st.AttemptsStarted != 1 {
		t.Errorf("AdmitDelay %v, attempts %d; want 50ms and 1", st.AdmitDelay, st.AttemptsStarted)
	}
	if p.admits != 1 || p.ended != 1 || p.succeded != 1 {
		t.Errorf("admits %d, ended %d, succeeded %d; want 1 each", p.admits, p.ended, p.succeded)
	}
}

// TestGateReject: a rejected attempt is never sent; the policy sees Failure.Throttled and the
// application an overload-class error (retry.Gate: "fails the attempt locally").
func TestGateReject(t *testing.T) {
	p := &scripted{admit: func(int) retry.Admission { return retry.Admission{Reject: true} }}
	e := scriptedEnv(t, p, nil)
	r := e.run(discovered, Spec{Kind: Find})[0]
	if r.OK || r.Class != ErrOverload || !r.Err.Throttled {
		t.Errorf("result %+v: want a throttled overload failure", r)
	}
	st := e.client.Snapshot()
	if st.AttemptsStarted != 0 || st.LocallyRejected != 1 {
		t.Errorf("attempts %d, locally rejected %d; want 0 and 1", st.AttemptsStarted, st.LocallyRejected)
	}
	if len(p.failures) != 1 || !p.failures[0].Throttled || !p.failures[0].Dispatch {
		t.Errorf("the policy saw %v; want one throttled dispatch failure", p.failures)
	}
}

// TestEnderOncePerOperation: Ended is called exactly once per operation, however it ends
// (retry.Ender): a success, a failure the policy gives up on, and the application's timeout.
func TestEnderOncePerOperation(t *testing.T) {
	p := &scripted{}
	e := scriptedEnv(t, p, func(c *server.Config) { c.Service = dist.Const(time.Second) })
	e.arm("db", failpoint.Config{Mode: failpoint.Times(1), FailCommands: []string{"find"}, ErrorCode: int(wire.BadValue)})
	rs := e.run(discovered, Spec{Kind: Find}, Spec{Kind: Find}, Spec{Kind: Find, Timeout: 10 * time.Millisecond})
	var ok, failed int
	for _, r := range rs {
		if r.OK {
			ok++
		} else {
			failed++
		}
	}
	if ok != 1 || failed != 2 || p.ended != 3 {
		t.Errorf("%d ok, %d failed, Ended %d times; want 1, 2 and 3", ok, failed, p.ended)
	}
}

// TestPushbackOnTheWire: a failpoint's retryPushbackMS reaches the policy as Failure.Pushback,
// and a node's RetryPushbackMS rides on its overload errors only.
func TestPushbackOnTheWire(t *testing.T) {
	p := &scripted{}
	e := scriptedEnv(t, p, func(c *server.Config) { c.RetryPushbackMS = -1 })
	e.arm("db", failpoint.Config{Mode: failpoint.Times(1), FailCommands: []string{"find"}, ErrorCode: int(wire.BadValue),
		RetryPushbackMS: 250, HasRetryPushback: true})
	e.run(discovered, Spec{Kind: Find})
	e.results = nil
	e.arm("db", failpoint.Config{Mode: failpoint.Times(1), FailCommands: []string{"find"}, ErrorCode: int(wire.BadValue),
		ErrorLabels: overloadLabels})
	e.run(discovered+sim.Time(time.Second), Spec{Kind: Find})
	e.results = nil
	e.arm("db", failpoint.Config{Mode: failpoint.Times(1), FailCommands: []string{"find"}, ErrorCode: int(wire.BadValue)})
	e.run(discovered+sim.Time(2*time.Second), Spec{Kind: Find})
	want := []struct {
		on bool
		ms int64
	}{{true, 250}, {true, -1}, {false, 0}}
	if len(p.failures) != len(want) {
		t.Fatalf("the policy saw %d failures, want %d", len(p.failures), len(want))
	}
	for i, w := range want {
		if f := p.failures[i]; f.Pushback != w.on || f.PushbackMS != w.ms {
			t.Errorf("failure %d: pushback %v %d ms; want %v %d ms", i, f.Pushback, f.PushbackMS, w.on, w.ms)
		}
	}
}

// TestHedgingCancelsLosers: with one worker, the first copy runs while the later ones queue;
// its success cancels them (retry.Hedger: "the first success wins and the driver cancels the
// copies still outstanding"). The node starts the second copy the moment the first ends, before
// the cancellation can arrive, so it runs to its end; the third is dropped unstarted.
func TestHedgingCancelsLosers(t *testing.T) {
	p := &scripted{hedges: 3, delay: 10 * time.Millisecond}
	e := scriptedEnv(t, p, func(c *server.Config) { c.Workers = 1; c.Service = dist.Const(100 * time.Millisecond) })
	r := e.run(discovered, Spec{Kind: Find})[0]
	e.loop.RunUntil(e.loop.Now() + sim.Time(time.Second)) // the cancelled copies' replies
	if !r.OK || r.Attempts != 3 {
		t.Errorf("result %+v: want success after 3 copies sent", r)
	}
	st := e.client.Snapshot()
	if st.HedgedCopies != 2 || st.AttemptsCancelled != 2 || st.AttemptsStarted != 3 || st.AttemptsFailed != 2 {
		t.Errorf("hedged %d, cancelled %d, started %d, failed %d; want 2, 2, 3, 2",
			st.HedgedCopies, st.AttemptsCancelled, st.AttemptsStarted, st.AttemptsFailed)
	}
	if st.CheckedOut != st.CheckedIn {
		t.Errorf("checked out %d, checked in %d: a cancelled copy's connection never came back", st.CheckedOut, st.CheckedIn)
	}
	ns := e.cluster.Node("db").Snapshot(e.loop.Now())
	if ns.Completed != 2 || ns.BusyTime != 200*time.Millisecond || ns.Errors != 1 {
		t.Errorf("node completed %d in %v busy, %d errors; want 2 in 200ms and 1 (the third copy dropped unstarted)",
			ns.Completed, ns.BusyTime, ns.Errors)
	}
	if p.ended != 1 || p.succeded != 1 || len(p.failures) != 0 {
		t.Errorf("ended %d, succeeded %d, failures %v; want 1, 1, none (cancelled copies are not failures to the policy)",
			p.ended, p.succeded, p.failures)
	}
}

// TestHedgingOccupiesServer: copies already running when the winner replies keep their workers
// busy until they finish: the cost of hedging a planner must see.
func TestHedgingOccupiesServer(t *testing.T) {
	p := &scripted{hedges: 2, delay: 10 * time.Millisecond}
	e := scriptedEnv(t, p, func(c *server.Config) { c.Workers = 2; c.Service = dist.Const(100 * time.Millisecond) })
	r := e.run(discovered, Spec{Kind: Find})[0]
	e.loop.RunUntil(e.loop.Now() + sim.Time(time.Second))
	if !r.OK {
		t.Fatalf("result %+v", r)
	}
	ns := e.cluster.Node("db").Snapshot(e.loop.Now())
	if ns.Completed != 2 || ns.BusyTime != 200*time.Millisecond {
		t.Errorf("node completed %d in %v busy; want 2 in 200ms (the loser ran to its end)", ns.Completed, ns.BusyTime)
	}
	if st := e.client.Snapshot(); st.CheckedOut != st.CheckedIn || st.AttemptsCancelled != 1 {
		t.Errorf("checked out %d, in %d, cancelled %d; want equal and 1", st.CheckedOut, st.CheckedIn, st.AttemptsCancelled)
	}
}

// TestHedgingRetriedFailureSendsNextAtOnce: a copy failing with an error the policy retries
// sends the next copy without waiting for the hedging delay; a fatal one cancels the rest.
func TestHedgingRetriedFailureSendsNextAtOnce(t *testing.T) {
	p := &scripted{hedges: 3, delay: time.Second, failed: func(f retry.Failure) retry.Decision {
		if f.Code == wire.BadValue {
			return retry.Decision{Retry: true}
		}
		return retry.Decision{Why: retry.NotRetryable, Err: f}
	}}
	e := scriptedEnv(t, p, nil)
	e.arm("db", failpoint.Config{Mode: failpoint.Times(1), FailCommands: []string{"find"}, ErrorCode: int(wire.BadValue)})
	r := e.run(discovered, Spec{Kind: Find})[0]
	if !r.OK || r.Attempts != 2 || r.Done.Sub(r.Issued) > 100*time.Millisecond {
		t.Errorf("result %+v: want success on the second copy, sent at once (not after the 1 s delay)", r)
	}
	e.results = nil
	e.arm("db", failpoint.Config{Mode: failpoint.Times(1), FailCommands: []string{"find"}, ErrorCode: int(wire.InternalError)})
	r = e.run(e.loop.Now()+sim.Time(time.Second), Spec{Kind: Find})[0]
	if r.OK || r.Err.Code != wire.InternalError || r.Attempts != 1 {
		t.Errorf("result %+v: want the fatal InternalError after one copy", r)
	}
}

// rechecking is a scripted gate whose waits are re-checked (retry.Notifier): the driver asks
// Admit again when a wait ends, and wake ends the longest wait at once.
type rechecking struct {
	scripted
	wake func()
}

func (p *rechecking) Notify(wake func()) bool { p.wake = wake; return true }

// TestGateRecheck: with a gate whose waits are re-checked (retry.Notifier, botocore's blocking
// TokenBucket.acquire, docs/policies.md §3.6), a Delay reserves nothing: when it ends the driver
// asks Admit again, and a wake ends the wait of the attempt held back longest, which asks again
// at once; the client counts the time each was actually held. Two finds are held back 100 ms at
// t0; a wake at t0 + 30 ms lets the first go (its second Admit answers go), the second asks
// again when its 100 ms end and goes; a third, with a 20 ms timeout, is held until it gives up
// and is counted for the 20 ms it waited, not the 100 ms it was told.
func TestGateRecheck(t *testing.T) {
	p := &rechecking{}
	p.admit = func(n int) retry.Admission {
		if n < 3 { // each operation's first Admit: wait 100 ms
			return retry.Admission{Delay: 100 * time.Millisecond}
		}
		return retry.Admission{}
	}
	e := newEnv(t, envConfig{nodes: standalone(nil), opts: DefaultOptions(), jitter: 1})
	e.client.setPolicy(p)
	if p.wake == nil {
		t.Fatal("setPolicy did not hand a Notifier the client's wake")
	}
	t0 := discovered
	e.loop.At(t0+sim.Time(30*time.Millisecond), sim.HandlerFunc(func(sim.Time, int, any) { p.wake() }), 0, nil)
	rs := e.run(t0, Spec{Kind: Find}, Spec{Kind: Find}, Spec{Kind: Find, Timeout: 20 * time.Millisecond})
	if len(rs) != 3 {
		t.Fatalf("%d results, want 3", len(rs))
	}
	// Results arrive in completion order: the timeout at 20 ms, the woken find, the other.
	if rs[0].OK || rs[0].Done != t0+sim.Time(20*time.Millisecond) {
		t.Errorf("the 20 ms operation: %+v; want a failure at t0 + 20ms", rs[0])
	}
	woken, waited := rs[1], rs[2]
	if !woken.OK || woken.Done.Sub(t0) < 30*time.Millisecond || woken.Done.Sub(t0) >= 100*time.Millisecond {
		t.Errorf("the woken find ended %v after t0; want between 30 ms and 100 ms (sent at the wake)", woken.Done.Sub(t0))
	}
	if !waited.OK || waited.Done.Sub(t0) < 100*time.Millisecond {
		t.Errorf("the other find ended %v after t0; want no sooner than its 100 ms wait", waited.Done.Sub(t0))
	}
	if p.admits != 5 {
		t.Errorf("Admit called %d times, want 5: three first asks, the woken find's and the other's second", p.admits)
	}
	// 30 ms + 100 ms + 20 ms actually held.
	if st := e.client.Snapshot(); st.AdmitDelay != 150*time.Millisecond || st.AttemptsStarted != 2 {
		t.Errorf("AdmitDelay %v, attempts %d; want 150ms held and 2 attempts", st.AdmitDelay, st.AttemptsStarted)
	}
}
