package client

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/client/selection"
	"github.com/overloadsim/overloadsim/server/failpoint"
	"github.com/overloadsim/overloadsim/sim"
)

// stepTracer writes every hook as one line of a transcript, times relative to t0.
type stepTracer struct {
	t0    sim.Time
	lines []string
}

func (s *stepTracer) add(now sim.Time, op TraceOp, format string, a ...any) {
	s.lines = append(s.lines, fmt.Sprintf("%v op%d %s ", now.Sub(s.t0), op.ID, op.Kind)+fmt.Sprintf(format, a...))
}

func describeOutcome(out TraceOutcome) string {
	switch {
	case out.OK:
		return "ok"
	case out.TimedOut:
		return "timed out"
	}
	f := out.Failure
	return fmt.Sprintf("code=%d labels=%v network=%v poolCleared=%v overload=%v", f.Code, f.Labels, f.Network, f.PoolCleared, out.Overload())
}

func (s *stepTracer) OpIssued(now sim.Time, op TraceOp) {
	s.add(now, op, "issued at %v", op.Issued.Sub(s.t0))
}
func (s *stepTracer) CheckoutStarted(now sim.Time, op TraceOp, server string) {
	s.add(now, op, "checkout %s", server)
}
func (s *stepTracer) CheckoutEnded(now sim.Time, op TraceOp, server string, start sim.Time, out TraceOutcome) {
	s.add(now, op, "checkout %s ended after %v: %s", server, now.Sub(start), describeOutcome(out))
}
func (s *stepTracer) AttemptSent(now sim.Time, op TraceOp, server string, attempt int) {
	s.add(now, op, "attempt %d sent to %s", attempt, server)
}
func (s *stepTracer) AttemptEnded(now sim.Time, op TraceOp, server string, attempt int, start sim.Time, out TraceOutcome) {
	s.add(now, op, "attempt %d to %s ended after %v: %s", attempt, server, now.Sub(start), describeOutcome(out))
}
func (s *stepTracer) BackoffStarted(now sim.Time, op TraceOp, retry int, d time.Duration) {
	s.add(now, op, "backoff %d for %v", retry, d)
}
func (s *stepTracer) BackoffEnded(now sim.Time, op TraceOp, retry int, start sim.Time, d time.Duration) {
	s.add(now, op, "backoff %d ended after %v of %v", retry, now.Sub(start), d)
}
func (s *stepTracer) OpDone(now sim.Time, op TraceOp, r *Result) {
	s.add(now, op, "done ok=%v class=%v attempts=%d retries=%d", r.OK, r.Class, r.Attempts, r.Retries)
}

var _ Tracer = (*stepTracer)(nil)

func checkTranscript(t *testing.T, got []string, want string) {
	t.Helper()
	if g := strings.Join(got, "\n"); g != strings.TrimSpace(want) {
		t.Errorf("trace:\n%s\nwant:\n%s", g, strings.TrimSpace(want))
	}
}

// TestTracerRetryLoop: the retry-loop scenario of TestRetryLoop (two overload failures, then
// success; jitter pinned at 1 so the 2026-03 backoffs are 100 ms and 200 ms) as a Tracer hears it.
// The first checkout waits 2 ms for a connection to be established, the later ones find it idle;
// the failpoint answers at once, the successful find takes its 1 ms of service.
func TestTracerRetryLoop(t *testing.T) {
	e := newEnv(t, envConfig{nodes: standalone(nil), kind: selection.Single, opts: opts("mongodb-2026-03", nil), jitter: 1})
	e.arm("db", failpoint.Config{Mode: failpoint.Times(2), FailCommands: []string{"find"}, ErrorCode: 2,
		ErrorLabels: overloadLabels, HasErrorLabels: true})
	tr := &stepTracer{t0: discovered}
	e.client.SetTracer(tr)
	e.run(discovered, Spec{Kind: Find})
	checkTranscript(t, tr.lines, `
0s op1 find issued at 0s
0s op1 find checkout db
2ms op1 find checkout db ended after 2ms: ok
2ms op1 find attempt 1 sent to db
2ms op1 find attempt 1 to db ended after 0s: code=2 labels=[SystemOverloadedError,RetryableError] network=false poolCleared=false overload=true
2ms op1 find backoff 1 for 100ms
102ms op1 find backoff 1 ended after 100ms of 100ms
102ms op1 find checkout db
102ms op1 find checkout db ended after 0s: ok
102ms op1 find attempt 2 sent to db
102ms op1 find attempt 2 to db ended after 0s: code=2 labels=[SystemOverloadedError,RetryableError] network=false poolCleared=false overload=true
102ms op1 find backoff 2 for 200ms
302ms op1 find backoff 2 ended after 200ms of 200ms
302ms op1 find checkout db
302ms op1 find checkout db ended after 0s: ok
302ms op1 find attempt 3 sent to db
303ms op1 find attempt 3 to db ended after 1ms: ok
303ms op1 find done ok=true class=none attempts=3 retries=2
`)
}

// TestTracerDeadline: the application's deadline (150 ms) cuts the second backoff (200 ms) short:
// BackoffEnded comes early, then OpDone with the timeout.
func TestTracerDeadline(t *testing.T) {
	e := newEnv(t, envConfig{nodes: standalone(nil), kind: selection.Single, opts: opts("mongodb-2026-03", nil), jitter: 1})
	e.arm("db", failpoint.Config{Mode: failpoint.AlwaysOn(), FailCommands: []string{"find"}, ErrorCode: 2,
		ErrorLabels: overloadLabels, HasErrorLabels: true})
	tr := &stepTracer{t0: discovered}
	e.client.SetTracer(tr)
	e.run(discovered, Spec{Kind: Find, Timeout: 150 * time.Millisecond})
	checkTranscript(t, tr.lines, `
0s op1 find issued at 0s
0s op1 find checkout db
2ms op1 find checkout db ended after 2ms: ok
2ms op1 find attempt 1 sent to db
2ms op1 find attempt 1 to db ended after 0s: code=2 labels=[SystemOverloadedError,RetryableError] network=false poolCleared=false overload=true
2ms op1 find backoff 1 for 100ms
102ms op1 find backoff 1 ended after 100ms of 100ms
102ms op1 find checkout db
102ms op1 find checkout db ended after 0s: ok
102ms op1 find attempt 2 sent to db
102ms op1 find attempt 2 to db ended after 0s: code=2 labels=[SystemOverloadedError,RetryableError] network=false poolCleared=false overload=true
102ms op1 find backoff 2 for 200ms
150ms op1 find backoff 2 ended after 48ms of 200ms
150ms op1 find done ok=false class=timeout attempts=2 retries=2
`)
}

// TestTracerInFlightTimeout: the deadline passes while the attempt is on the wire (the server
// blocks it for 1 s): AttemptEnded is timed out, then OpDone; the late reply is not traced.
func TestTracerInFlightTimeout(t *testing.T) {
	e := newEnv(t, envConfig{nodes: standalone(nil), kind: selection.Single, opts: opts("mongodb-2026-03", nil), jitter: 1})
	e.arm("db", failpoint.Config{Mode: failpoint.AlwaysOn(), FailCommands: []string{"find"},
		BlockConnection: true, BlockTimeMS: 1000})
	tr := &stepTracer{t0: discovered}
	e.client.SetTracer(tr)
	e.run(discovered, Spec{Kind: Find, Timeout: 50 * time.Millisecond})
	e.loop.RunUntil(e.loop.Now().Add(2 * time.Second)) // the late reply comes and goes
	checkTranscript(t, tr.lines, `
0s op1 find issued at 0s
0s op1 find checkout db
2ms op1 find checkout db ended after 2ms: ok
2ms op1 find attempt 1 sent to db
50ms op1 find attempt 1 to db ended after 48ms: timed out
50ms op1 find done ok=false class=timeout attempts=1 retries=0
`)
}

// nopTracer hears every hook and does nothing: the hooks' own cost.
type nopTracer struct{ calls uint64 }

func (n *nopTracer) OpIssued(sim.Time, TraceOp)                                          { n.calls++ }
func (n *nopTracer) CheckoutStarted(sim.Time, TraceOp, string)                           { n.calls++ }
func (n *nopTracer) CheckoutEnded(sim.Time, TraceOp, string, sim.Time, TraceOutcome)     { n.calls++ }
func (n *nopTracer) AttemptSent(sim.Time, TraceOp, string, int)                          { n.calls++ }
func (n *nopTracer) AttemptEnded(sim.Time, TraceOp, string, int, sim.Time, TraceOutcome) { n.calls++ }
func (n *nopTracer) BackoffStarted(sim.Time, TraceOp, int, time.Duration)                { n.calls++ }
func (n *nopTracer) BackoffEnded(sim.Time, TraceOp, int, sim.Time, time.Duration)        { n.calls++ }
func (n *nopTracer) OpDone(sim.Time, TraceOp, *Result)                                   { n.calls++ }

// TestTracingAllocations: in the reference scenario's steady state (after the 25 s warm-up
// BenchmarkReference uses), an attempt allocates nothing with tracing off, and nothing either
// with a tracer that itself does not allocate: the hooks pass values, never fresh pointers.
func TestTracingAllocations(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the reference scenario for 26 s of virtual time")
	}
	for _, traced := range []bool{false, true} {
		t.Run(fmt.Sprintf("traced=%v", traced), func(t *testing.T) {
			w := referenceWorld(t)
			var nop nopTracer
			if traced {
				for _, c := range w.clients {
					c.SetTracer(&nop)
				}
			}
			w.loop.RunUntil(sim.Time(25 * time.Second))
			attempts := w.attempts()
			// Mallocs counts the whole process, the runtime's own occasional allocations
			// included, so measure on one P (as testing.AllocsPerRun does) and require
			// amortised zero: at most one allocation per 10 000 attempts. An allocation per
			// attempt would be tens of thousands here.
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			for i := 0; i < 100_000; i++ {
				w.loop.Step()
			}
			runtime.ReadMemStats(&m1)
			n := w.attempts() - attempts
			if n == 0 {
				t.Fatal("no attempts in 100 000 events")
			}
			if allocs := m1.Mallocs - m0.Mallocs; allocs > n/10_000 {
				t.Errorf("%d allocations over %d attempts (%.5f per attempt), want amortised zero (≤ 1 per 10 000)",
					allocs, n, float64(allocs)/float64(n))
			}
			if traced && nop.calls == 0 {
				t.Error("the tracer heard nothing")
			}
		})
	}
}
