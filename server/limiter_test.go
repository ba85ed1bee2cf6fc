package server

import (
	"math"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/dist"
	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
	"github.com/overloadsim/overloadsim/wire/wiretest"
)

func limited(rate, burst float64, depth int64) Config {
	return Config{Address: "n", Workers: 1000, Service: dist.Const(time.Millisecond),
		RequestLimiter: RequestLimiterConfig{Enabled: true, AdmissionRatePerSec: rate,
			AdmissionBurstCapacitySecs: burst, AdmissionMaxQueueDepth: depth}}
}

// TestRequestLimiterRate: a lazy token bucket admits min(λ, R) in the long run, and never more
// than R·T + capacity in a window of length T (docs/model.md §4.1: capacity = rate × burst,
// starts full, cost 1 per admission).
func TestRequestLimiterRate(t *testing.T) {
	const R, burst = 1000.0, 0.1 // capacity 100 tokens
	const T = 60 * time.Second
	for _, lambda := range []float64{500, 1000, 2000, 5000} {
		loop := sim.NewLoop()
		s, _ := New(loop, limited(R, burst, 0), 1)
		p := newProbe(loop, s, true)
		p.Keep = false
		startPoisson(p, lambda, wire.Find, sim.Time(T), 7)
		loop.Run()
		checkQueues(t, s)
		st := s.Snapshot(loop.Now())
		admitted := float64(st.SuccessfulAdmissions)
		if max := R*T.Seconds() + R*burst; admitted > max {
			t.Errorf("λ=%v: admitted %v > R·T + capacity = %v", lambda, admitted, max)
		}
		want := math.Min(lambda, R) * T.Seconds()
		// Below R the bucket rarely empties; at λ = R Poisson bunching costs a few per cent
		// (the bucket is a finite buffer); far above R it admits R·T plus the initial burst.
		tol := 0.03
		if math.Abs(admitted-want) > tol*want+R*burst {
			t.Errorf("λ=%v: admitted %.0f over %v, want min(λ, R)·T = %.0f ± %.0f%%", lambda, admitted, T, want, tol*100)
		}
		if st.RejectedAdmissions != uint64(p.ByCode[wire.IngressRequestRateLimitExceeded]) ||
			st.AttemptedAdmissions != st.SuccessfulAdmissions+st.RejectedAdmissions {
			t.Errorf("λ=%v: counters disagree: %+v, 462 replies %d", lambda, st, p.ByCode[wire.IngressRequestRateLimitExceeded])
		}
	}
}

// TestRequestLimiterBurstAndReply: a full bucket absorbs exactly its capacity at one instant;
// the rest get 462 IngressRequestRateLimitExceeded with SystemOverloadedError, RetryableError and
// NoWritesPerformed (docs/model.md §5.4), plus baseBackoffMS when externalClientBaseBackoffMS > 0.
func TestRequestLimiterBurstAndReply(t *testing.T) {
	loop := sim.NewLoop()
	cfg := limited(100, 0.5, 0) // capacity 50
	cfg.ExternalClientBaseBackoffMS = 50
	s, _ := New(loop, cfg, 1)
	p := newProbe(loop, s, true)
	for i := 0; i < 80; i++ {
		p.Send(0, wire.Find, nil)
	}
	loop.Run()
	checkQueues(t, s)
	if p.ByCode[wire.OK] != 50 || p.ByCode[wire.IngressRequestRateLimitExceeded] != 30 {
		t.Fatalf("replies by code %v, want 50 OK and 30 × 462", p.ByCode)
	}
	want := wire.SystemOverloadedError | wire.RetryableError | wire.NoWritesPerformed
	for _, r := range p.Replies {
		if r.Code == wire.IngressRequestRateLimitExceeded && (r.Labels != want || r.BaseBackoffMS != 50) {
			t.Fatalf("462 reply labels %v baseBackoffMS %d, want %v and 50", r.Labels, r.BaseBackoffMS, want)
		}
	}
}

// TestRequestLimiterExemptions: unauthenticated connections (monitoring, handshake) and
// exempted app names are never rate limited (docs/model.md §5.3); capacity < 1 rejects everything
// else (the server jstest's rate 1, burst 0.001).
func TestRequestLimiterExemptions(t *testing.T) {
	loop := sim.NewLoop()
	cfg := limited(1, 0.001, 0)
	cfg.RequestLimiter.ApplicationExemptions = []string{"mongosh"}
	s, _ := New(loop, cfg, 1)
	app := newProbe(loop, s, true)
	mon := newProbe(loop, s, false)
	shell := newProbe(loop, s, true)
	shell.Conn.AppName = "mongosh 2.3"
	for i := 0; i < 5; i++ {
		app.Send(0, wire.Find, nil)
		mon.Send(0, wire.Hello, nil)
		shell.Send(0, wire.Find, nil)
	}
	loop.Run()
	checkQueues(t, s)
	if app.ByCode[wire.IngressRequestRateLimitExceeded] != 5 || mon.ByCode[wire.OK] != 5 || shell.ByCode[wire.OK] != 5 {
		t.Fatalf("app %v, monitoring %v, exempt app %v", app.ByCode, mon.ByCode, shell.ByCode)
	}
	if st := s.Snapshot(loop.Now()); st.ExemptedAdmissions != 5 || st.RejectedAdmissions != 5 {
		t.Fatalf("exempted %d rejected %d, want 5 and 5 (monitoring hellos bypass the limiter entirely)",
			st.ExemptedAdmissions, st.RejectedAdmissions)
	}
}

// TestRequestLimiterQueue: with a max queue depth the limiter borrows tokens and each waiter is
// admitted at its reservation time, spaced exactly 1/R apart; beyond the depth it rejects
// (docs/model.md §4.1, acquireToken).
func TestRequestLimiterQueue(t *testing.T) {
	loop := sim.NewLoop()
	cfg := limited(100, 0.01, 5) // capacity 1, a token every 10 ms, 5 may wait
	cfg.Service = dist.Const(0)
	s, _ := New(loop, cfg, 1)
	p := newProbe(loop, s, true)
	for i := 0; i < 10; i++ {
		p.Send(0, wire.Find, nil)
	}
	loop.Run()
	checkQueues(t, s)
	var okTimes []sim.Time
	for _, r := range p.Replies {
		if r.OK() {
			okTimes = append(okTimes, r.Got)
		}
	}
	want := []sim.Time{0, sim.Time(10 * time.Millisecond), sim.Time(20 * time.Millisecond),
		sim.Time(30 * time.Millisecond), sim.Time(40 * time.Millisecond), sim.Time(50 * time.Millisecond)}
	if len(okTimes) != len(want) {
		t.Fatalf("admitted at %v, want %v", okTimes, want)
	}
	for i := range want {
		if okTimes[i] != want[i] {
			t.Errorf("admission %d at %v, want %v", i, okTimes[i], want[i])
		}
	}
	if p.ByCode[wire.IngressRequestRateLimitExceeded] != 4 {
		t.Errorf("%d rejected, want 4", p.ByCode[wire.IngressRequestRateLimitExceeded])
	}
	st := s.Snapshot(loop.Now())
	if st.AddedToQueue != 5 || st.RemovedFromQueue != 5 {
		t.Errorf("queue counters added %d removed %d, want 5 and 5", st.AddedToQueue, st.RemovedFromQueue)
	}
	// Little's law on the limiter queue: ∫queue dt = Σ waits = 10+20+30+40+50 ms.
	if math.Abs(st.ReqQueueArea-0.150) > 1e-9 {
		t.Errorf("∫ limiter queue dt = %v s, want 0.150 s (Σ of the reservation waits)", st.ReqQueueArea)
	}
}

// connect opens a new connection through p at now, giving up on it after timeout.
func connect(p *wiretest.Client, now sim.Time, timeout time.Duration) {
	conn := &wire.Conn{Authenticated: true, Link: wire.NewLink(nil, nil)}
	p.Send(now, wire.Connect, func(r *wire.Request) { r.Conn, r.ConnectTimeout = conn, timeout })
}

// TestConnectionLimiter mirrors the drivers' "Connection Pool Backpressure" test (docs/model.md
// §5.5): rate 20/s, burst 1 s, queue depth 1 and 100 simultaneous connection attempts: 20 tokens
// admit at once, one attempt waits for the next token (50 ms), and the other 79 are closed by
// the server — "at least 10" in the spec's words, exactly 79 here.
func TestConnectionLimiter(t *testing.T) {
	loop := sim.NewLoop()
	s, _ := New(loop, Config{Address: "n", HandshakeCost: time.Millisecond,
		ConnLimiter: ConnLimiterConfig{Enabled: true, RatePerSec: 20, BurstCapacitySecs: 1, MaxQueueDepth: 1}}, 1)
	p := newProbe(loop, s, true)
	for i := 0; i < 100; i++ {
		connect(p, 0, 30*time.Second)
	}
	loop.Run()
	checkQueues(t, s)
	if p.ByCode[wire.OK] != 21 || p.NetErrs != 79 {
		t.Fatalf("%d established, %d closed; want 21 and 79", p.ByCode[wire.OK], p.NetErrs)
	}
	last := p.Replies[len(p.Replies)-1]
	if !last.OK() || last.Got != sim.Time(51*time.Millisecond) {
		t.Errorf("the queued attempt was established at %v (%v), want 51ms (token at 50 ms + 1 ms handshake)", last.Got, last.Reply)
	}
	st := s.Snapshot(loop.Now())
	if st.ConnRejected != 79 || st.ConnectionsCurrent != 21 || st.ConnAddedToQueue != 1 {
		t.Errorf("stats: rejected %d current %d queued %d", st.ConnRejected, st.ConnectionsCurrent, st.ConnAddedToQueue)
	}
}

// TestConnectionQueueTimeout: a client whose connectTimeoutMS passes while it waits in the
// connection queue gives up; the server returns its token, so the next attempt is admitted
// earlier (docs/model.md §5.5: interruptedDueToClientDisconnect, token returned).
func TestConnectionQueueTimeout(t *testing.T) {
	loop := sim.NewLoop()
	s, _ := New(loop, Config{Address: "n",
		ConnLimiter: ConnLimiterConfig{Enabled: true, RatePerSec: 10, BurstCapacitySecs: 0.1, MaxQueueDepth: 10}}, 1)
	p := newProbe(loop, s, true)
	connect(p, 0, time.Second)                             // takes the one token
	connect(p, 0, 50*time.Millisecond)                     // would wait 100 ms: gives up at 50 ms
	connect(p, sim.Time(60*time.Millisecond), time.Second) // gets the returned reservation
	loop.Run()
	checkQueues(t, s)
	st := s.Snapshot(loop.Now())
	if st.ConnInterruptedInQueue != 1 || p.ByCode[wire.OK] != 2 {
		t.Fatalf("interrupted %d, established %d; want 1 and 2", st.ConnInterruptedInQueue, p.ByCode[wire.OK])
	}
	if got := p.Replies[1].Got; got != sim.Time(100*time.Millisecond) {
		t.Errorf("third attempt established at %v, want 100ms (the returned token's slot)", got)
	}
}

// TestAdmissionQueueOverflow: with a bounded worker queue, a command that finds every worker busy
// and the queue full is rejected with AdmissionQueueOverflow (433), labelled
// SystemOverloadedError only (error_codes.yml: 433 is in the SystemOverloadedError category but
// not RetriableError; docs/model.md §5.6).
func TestAdmissionQueueOverflow(t *testing.T) {
	loop := sim.NewLoop()
	s, _ := New(loop, Config{Address: "n", Workers: 1, MaxQueueDepth: 2, Service: dist.Const(10 * time.Millisecond)}, 1)
	p := newProbe(loop, s, true)
	for i := 0; i < 5; i++ {
		p.Send(0, wire.Find, nil)
	}
	loop.Run()
	checkQueues(t, s)
	if p.ByCode[wire.OK] != 3 || p.ByCode[wire.AdmissionQueueOverflow] != 2 {
		t.Fatalf("replies %v, want 3 OK (1 running + 2 queued) and 2 × 433", p.ByCode)
	}
	for _, r := range p.Replies {
		if r.Code == wire.AdmissionQueueOverflow && r.Labels != wire.SystemOverloadedError {
			t.Errorf("433 labels %v, want [SystemOverloadedError]", r.Labels)
		}
	}
	if st := s.Snapshot(loop.Now()); st.QueueOverflows != 2 {
		t.Errorf("QueueOverflows = %d, want 2", st.QueueOverflows)
	}
}

// TestDisconnect: a client closing a connection unregisters it (connections.current falls) and
// the node answers anything later sent on it with a network error.
func TestDisconnect(t *testing.T) {
	loop := sim.NewLoop()
	s, _ := New(loop, Config{Address: "n"}, 1)
	p := newProbe(loop, s, true)
	p.Send(0, wire.Connect, nil)
	loop.Run()
	if n := s.Snapshot(loop.Now()).ConnectionsCurrent; n != 1 {
		t.Fatalf("ConnectionsCurrent = %d after connecting, want 1", n)
	}
	p.Send(loop.Now(), wire.Disconnect, nil)
	loop.Run()
	if n := s.Snapshot(loop.Now()).ConnectionsCurrent; n != 0 || !p.Conn.Closed {
		t.Fatalf("ConnectionsCurrent = %d, closed %v after disconnecting; want 0, true", n, p.Conn.Closed)
	}
	p.Send(loop.Now(), wire.Find, nil)
	loop.Run()
	if p.NetErrs != 1 || len(p.Replies) != 2 {
		t.Errorf("%d replies, %d network errors; want the connect's OK and one network error (no reply to the disconnect)",
			len(p.Replies), p.NetErrs)
	}
}
