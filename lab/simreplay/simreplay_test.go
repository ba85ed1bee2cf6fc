package simreplay

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/overloadsim/overloadsim/client"
	"github.com/overloadsim/overloadsim/client/retry"
	"github.com/overloadsim/overloadsim/lab/experiment"
	"github.com/overloadsim/overloadsim/lab/record"
	"github.com/overloadsim/overloadsim/wire"
)

const spec = "mongodb-2026-07"

// load reads a shipped experiment.
func load(t *testing.T, name string) *experiment.Experiment {
	t.Helper()
	e, err := experiment.Load("../experiments/" + name + ".json")
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// replay replays e with policy and seed 1, failing the test on an error.
func replay(t *testing.T, e *experiment.Experiment, policy string) *record.Record {
	t.Helper()
	rec, err := Replay(e, Options{Policy: policy, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// answers returns an operation's attempts as "server answer" strings.
func answers(op record.Op) []string {
	var out []string
	for _, a := range op.Attempts {
		out = append(out, a.Server+" "+a.Answer)
	}
	return out
}

// outcomeKey is an outcome as "class code [labels]".
func outcomeKey(o record.Outcome) string {
	return o.Class + " " + strconv.Itoa(o.Code) + " [" + strings.Join(o.Labels, ",") + "]"
}

// failure is an error with code, the overload labels if overloaded, and network if set.
func failure(code int, overloaded, network bool) retry.Failure {
	f := retry.Failure{Code: wire.Code(code), Network: network}
	if overloaded {
		f.Labels = wire.SystemOverloadedError | wire.RetryableError
	}
	return f
}

// TestShippedExperimentsGiveTheSpecsAnswers: each shipped experiment replayed with a policy
// gives what that specification text says, op by op: the attempts as the nodes saw them (server
// and answer), the outcome, the gaps within the backoff's ceilings, and the handshakes. The
// experiments whose operations meet closed connections are replayed one operation at a time,
// where the text decides alone (at their own concurrency a closed connection clears the pool
// under every operation in flight; TestReplayEveryShippedExperiment covers them so).
func TestShippedExperimentsGiveTheSpecsAnswers(t *testing.T) {
	overload := "overload 462 [RetryableError,SystemOverloadedError]"
	cases := []struct {
		name, policy string
		serial       bool      // replay with concurrency 1
		attempts     []string  // every op's attempts
		outcome      string    // every op's outcome
		ceilings     []float64 // gap k's ceiling in ms (and its floor is 0)
		handshakes   []string  // the application handshakes' answers, when checked
	}{
		{name: "overload-then-ok", policy: spec, attempts: []string{"n0 error 462", "n0 error 462", "n0 ok"},
			outcome: "ok 0 []", ceilings: []float64{200, 400}},
		{name: "overload-always", policy: spec, attempts: []string{"n0 error 462", "n0 error 462", "n0 error 462"},
			outcome: overload, ceilings: []float64{200, 400}},
		{name: "overload-always", policy: "mongodb-2026-03", attempts: slices.Repeat([]string{"n0 error 462"}, 6),
			outcome: overload, ceilings: []float64{100, 200, 400, 800, 1600}},
		{name: "base-backoff", policy: spec, attempts: slices.Repeat([]string{"n0 error 462"}, 3),
			outcome: overload, ceilings: []float64{40, 80}},
		{name: "overload-retryreads-false", policy: spec, attempts: []string{"n0 error 462"}, outcome: overload},
		{name: "overload-max-adaptive-4", policy: spec, attempts: slices.Repeat([]string{"n0 error 462"}, 5),
			outcome: overload, ceilings: []float64{200, 400, 800, 1600}},
		// A policy that does not read maxAdaptiveRetries keeps its own cap, as a release that does
		// not know the option does.
		{name: "overload-max-adaptive-4", policy: "mongodb-2026-03", attempts: slices.Repeat([]string{"n0 error 462"}, 6),
			outcome: overload},
		{name: "overload-insert", policy: spec, attempts: slices.Repeat([]string{"n0 error 462"}, 3),
			outcome: "overload 462 [NoWritesPerformed,RetryableError,SystemOverloadedError]"},
		{name: "replicaset-retarget", policy: spec, attempts: []string{"n0 error 462", "n1 ok"}, outcome: "ok 0 []"},
		{name: "handshake-close", policy: spec, attempts: []string{"n0 ok"}, outcome: "ok 0 []",
			handshakes: []string{"n0 close", "n0 ok"}},
		{name: "handshake-overload", policy: spec, attempts: []string{"n0 ok"}, outcome: "ok 0 []",
			handshakes: []string{"n0 error 462", "n0 ok"}},
		// After the closed connection the server is Unknown until the monitor checks it again,
		// minHeartbeatFrequencyMS (500 ms) after its last check: the third attempt waits for it.
		{name: "mixed-errors", policy: spec, serial: true, attempts: []string{"n0 error 462", "n0 close", "n0 error 10107"},
			outcome: "server 10107 []", ceilings: []float64{200, 500}},
		// Under CSOT the retries before the first overload error are unbounded, then capped at
		// maxAdaptiveRetries: the overload error comes at the third attempt, past the cap.
		{name: "network-then-overload-csot", policy: spec, serial: true, attempts: []string{"n0 close", "n0 close", "n0 error 462"},
			outcome: overload},
	}
	for _, tc := range cases {
		t.Run(tc.name+"/"+tc.policy, func(t *testing.T) {
			e := load(t, tc.name)
			if tc.serial {
				e.Concurrency, e.Count = 1, 5
			}
			rec := replay(t, e, tc.policy)
			if rec.Experiment != tc.name || rec.Runner != "sim" || rec.Release != "sim:"+tc.policy || len(rec.Ops) != e.Count {
				t.Fatalf("record %s %s %s with %d ops, want %s sim sim:%s with %d", rec.Experiment, rec.Runner, rec.Release,
					len(rec.Ops), tc.name, tc.policy, e.Count)
			}
			maxGap := make([]float64, len(tc.ceilings))
			for i, op := range rec.Ops {
				if op.Index != i {
					t.Fatalf("op %d has index %d", i, op.Index)
				}
				if got := answers(op); !slices.Equal(got, tc.attempts) {
					t.Fatalf("op %d: attempts %v, want %v", i, got, tc.attempts)
				}
				if got := outcomeKey(op.Outcome); got != tc.outcome || op.Outcome.OK != (tc.outcome == "ok 0 []") {
					t.Fatalf("op %d: outcome %s (ok %v), want %s", i, got, op.Outcome.OK, tc.outcome)
				}
				if op.Attempts[0].AtMS != 0 {
					t.Errorf("op %d: first attempt at %v ms, want 0", i, op.Attempts[0].AtMS)
				}
				for k, g := range op.Gaps() {
					if k < len(tc.ceilings) && (g < 0 || g > tc.ceilings[k]) {
						t.Errorf("op %d: gap before retry %d = %.3f ms, want within [0, %v]", i, k+1, g, tc.ceilings[k])
					}
					if k < len(maxGap) {
						maxGap[k] = max(maxGap[k], g)
					}
				}
			}
			// Many operations' jitter reaches well into the ceiling: not a smaller one.
			if e.Count >= 40 && !tc.serial {
				for k, m := range maxGap {
					if m < tc.ceilings[k]/2 {
						t.Errorf("largest gap before retry %d = %.3f ms, want beyond half the ceiling %v", k+1, m, tc.ceilings[k])
					}
				}
			}
			if tc.handshakes != nil {
				var got []string
				for _, h := range rec.Handshakes {
					got = append(got, h.Server+" "+h.Answer)
				}
				if !slices.Equal(got, tc.handshakes) || rec.Handshakes[0].AtMS != 0 {
					t.Errorf("handshakes %v (first at %v ms), want %v from 0", got, rec.Handshakes[0].AtMS, tc.handshakes)
				}
			}
		})
	}
}

// TestShardedRetryGoesToTheOtherMongos: in sharded-deprioritize every operation's retry goes to
// the other mongos, wherever its first attempt landed; both mongoses take first attempts.
func TestShardedRetryGoesToTheOtherMongos(t *testing.T) {
	rec := replay(t, load(t, "sharded-deprioritize"), spec)
	first := map[string]int{}
	for _, op := range rec.Ops {
		a := op.Attempts
		if len(a) != 2 || a[0].Answer != "error 462" || a[1].Answer != "ok" || a[0].Server == a[1].Server || !op.Outcome.OK {
			t.Fatalf("op %d: %v, outcome %+v; want a 462 then ok on the other mongos", op.Index, answers(op), op.Outcome)
		}
		first[a[0].Server]++
	}
	if first["n0"] == 0 || first["n1"] == 0 {
		t.Errorf("first attempts by mongos %v, want both", first)
	}
}

// TestReplayEveryShippedExperiment: every shipped experiment replays with both specification
// texts at its own count and concurrency, every operation with an outcome of a known class.
func TestReplayEveryShippedExperiment(t *testing.T) {
	es, err := experiment.LoadDir("../experiments")
	if err != nil {
		t.Fatal(err)
	}
	classes := []string{"ok", "timeout", "selection", "network", "overload", "server", "other"}
	for _, e := range es {
		for _, policy := range []string{"mongodb-2026-03", spec} {
			rec := replay(t, e, policy)
			for _, op := range rec.Ops {
				if !slices.Contains(classes, op.Outcome.Class) || op.Outcome.OK != (op.Outcome.Class == "ok") {
					t.Errorf("%s/%s op %d: outcome %+v", e.Name, policy, op.Index, op.Outcome)
				}
			}
		}
	}
}

// TestReplayIsDeterministic: the same experiment and seed give the same record; another seed
// other backoffs.
func TestReplayIsDeterministic(t *testing.T) {
	for _, name := range []string{"overload-always", "mixed-errors", "sharded-deprioritize"} {
		e := load(t, name)
		a, b := replay(t, e, spec), replay(t, e, spec)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: two replays with seed 1 differ", name)
		}
		c, err := Replay(e, Options{Policy: spec, Seed: 2})
		if err != nil {
			t.Fatal(err)
		}
		if reflect.DeepEqual(a, c) {
			t.Errorf("%s: seeds 1 and 2 give the same record", name)
		}
	}
}

// TestProbabilisticAnswers: an answer with P applies to about that share of commands, drawn
// from the experiment's Seed: the same Seed gives the same answers, another Seed others.
func TestProbabilisticAnswers(t *testing.T) {
	e := &experiment.Experiment{Name: "p", Doc: "p", Rules: []string{"attempts"},
		Topology: experiment.Topology{Kind: "standalone", Nodes: 1}, URI: map[string]string{"retryReads": "false"},
		Operation: "find", Count: 1000, Concurrency: 10, Seed: 7,
		Script: []experiment.Entry{{Command: "find", Answers: []experiment.Answer{
			{Error: &experiment.Error{Code: 462, Labels: experiment.Overloaded}, P: 0.3}}}}}
	fails := func(seed uint64) (int, []bool) {
		e.Seed = seed
		rec := replay(t, e, spec)
		n, which := 0, make([]bool, len(rec.Ops))
		for i, op := range rec.Ops {
			if op.Attempts[0].Answer == "error 462" {
				n, which[i] = n+1, true
			}
		}
		return n, which
	}
	n, a := fails(7)
	if n < 250 || n > 350 {
		t.Errorf("%d of 1000 commands rejected with P 0.3, want about 300", n)
	}
	if _, b := fails(7); !slices.Equal(a, b) {
		t.Error("the same seed gave other answers")
	}
	if _, c := fails(8); slices.Equal(a, c) {
		t.Error("seeds 7 and 8 gave the same answers")
	}
}

// TestDelayAndTimeout: DelayMS delays the answer, so the gap before the retry is the delay plus
// the backoff; an answer later than timeoutMS ends the operation with a timeout.
func TestDelayAndTimeout(t *testing.T) {
	e := &experiment.Experiment{Name: "d", Doc: "d", Rules: []string{"attempts"},
		Topology: experiment.Topology{Kind: "standalone", Nodes: 1}, Operation: "find", Count: 50, Concurrency: 5,
		Script: []experiment.Entry{{Command: "find", Answers: []experiment.Answer{
			{Error: &experiment.Error{Code: 462, Labels: experiment.Overloaded}, DelayMS: 30}, {OK: true}}}}}
	for _, op := range replay(t, e, spec).Ops {
		if g := op.Gaps(); len(g) != 1 || g[0] < 30 || g[0] > 230 || !op.Outcome.OK {
			t.Errorf("op %d: gaps %v, outcome %+v; want one gap within [30, 230] and success", op.Index, g, op.Outcome)
		}
	}
	e.URI = map[string]string{"timeoutMS": "20"}
	for _, op := range replay(t, e, spec).Ops {
		if len(op.Attempts) != 1 || op.Outcome.Class != "timeout" {
			t.Errorf("op %d: %v, outcome %+v; want one attempt and a timeout", op.Index, answers(op), op.Outcome)
		}
	}
}

// TestOutcomeClassesFollowTheHarness: results are classified in the harness's order: timeout,
// selection, network (even with the overload label a failed handshake carries), overload,
// server, other.
func TestOutcomeClassesFollowTheHarness(t *testing.T) {
	cases := []struct {
		res  client.Result
		want string
	}{
		{client.Result{OK: true}, "ok 0 []"},
		{client.Result{Class: client.ErrTimeout, Err: failure(462, true, false)}, "timeout 462 [RetryableError,SystemOverloadedError]"},
		{client.Result{Class: client.ErrServerSelection}, "selection 0 []"},
		{client.Result{Class: client.ErrOverload, Err: failure(0, true, true)}, "network 0 [RetryableError,SystemOverloadedError]"},
		{client.Result{Class: client.ErrOverload, Err: failure(462, true, false)}, "overload 462 [RetryableError,SystemOverloadedError]"},
		{client.Result{Class: client.ErrServer, Err: failure(10107, false, false)}, "server 10107 []"},
		{client.Result{Class: client.ErrPoolCleared}, "other 0 []"},
	}
	for _, tc := range cases {
		if got := outcomeKey(outcome(&tc.res)); got != tc.want {
			t.Errorf("%+v: %s, want %s", tc.res, got, tc.want)
		}
	}
}

// TestOperations: each operation's attempts are matched by the script entry for the command a
// runner sends (find, insert, find again for runCommand, aggregate), and retried once after the
// scripted 462 as a retryable read, a retryable write, runCommand and aggregate with $out are.
func TestOperations(t *testing.T) {
	for _, op := range experiment.Operations {
		e := exp(nil)
		e.Operation, e.Count = op, 3
		e.Script = []experiment.Entry{
			{Command: "ping", Answers: []experiment.Answer{{Close: true}}}, // never the operation's
			{Command: experiment.Command(op), Answers: []experiment.Answer{
				{Error: &experiment.Error{Code: 462, Labels: experiment.Overloaded}}, {OK: true}}}}
		for _, o := range replay(t, e, spec).Ops {
			if got := answers(o); !slices.Equal(got, []string{"n0 error 462", "n0 ok"}) || !o.Outcome.OK {
				t.Errorf("%s op %d: %v, outcome %+v; want a 462 then ok", op, o.Index, got, o.Outcome)
			}
		}
	}
}

// TestClosedLoop: at most Concurrency operations run at a time, the next starting when one
// ends: with every find taking 100 ms, Concurrency connections are opened at the start and
// reused by every later operation.
func TestClosedLoop(t *testing.T) {
	for _, c := range []int{1, 3, 7} {
		e := exp(nil)
		e.Count, e.Concurrency = 20, c
		e.Script = []experiment.Entry{{Command: "find", Answers: []experiment.Answer{{OK: true, DelayMS: 100}}}}
		rec := replay(t, e, spec)
		if len(rec.Handshakes) != c {
			t.Errorf("concurrency %d: %d application connections, want %d", c, len(rec.Handshakes), c)
		}
		for _, h := range rec.Handshakes {
			if h.AtMS != 0 {
				t.Errorf("concurrency %d: a connection opened at %v ms, want all at the start", c, h.AtMS)
			}
		}
	}
}
