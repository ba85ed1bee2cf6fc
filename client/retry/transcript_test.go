package retry

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/internal/golden"
	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
)

// TestTranscripts replays testdata/transcripts/*.txt: scripts of one operation's attempts under a
// policy, with the policy's decision and state after each, so that the retry rules can be
// reviewed by reading, one step at a time. The commands are those of transcriptDriver.do. To
// regenerate the outputs after a deliberate change to a policy:
//
//	go test ./client/retry -run TestTranscripts -update
//
// then read the diff against the specification before committing it.
func TestTranscripts(t *testing.T) {
	files, err := filepath.Glob("testdata/transcripts/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts in testdata/transcripts (%v)", err)
	}
	for _, path := range files {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txt"), func(t *testing.T) {
			d := &transcriptDriver{jitter: 1}
			golden.Transcript(t, path, d.do)
		})
	}
}

// transcriptClasses are the operations a transcript can begin, named as a driver's API or a
// Couchbase SDK names them.
var transcriptClasses = []struct {
	name, gloss string
	class       Class
}{
	{"find", "a retryable read", find},
	{"insertOne", "a retryable write", insert},
	{"updateMany", "a write no retryable-writes rule covers", updateMany},
	{"getMore", "a read no retryable-reads rule covers", getMore},
	{"runCommand", "the generic command helper", runCommand},
	{"txn-insertOne", "a retryable write inside a transaction", txnInsert},
	{"txn-find", "a retryable read inside a transaction", txnFind},
	{"kv-get", "a KV get (idempotent)", kvGet},
	{"kv-upsert", "a KV upsert (not idempotent)", kvUpsert},
	{"kv-unlock", "a KV unlock", kvUnlock},
	{"query-readonly", "a read-only query (idempotent)", queryRO},
	{"query-write", "a query that writes (not idempotent)", queryWrite},
	{"search", "a search request (idempotent)", searchReq},
}

// transcriptDriver runs one client's policy and one operation at a time, as a driver would: it
// counts the commands started, keeps the virtual clock (a retry starts when its backoff ends),
// and feeds each outcome to the policy.
type transcriptDriver struct {
	p        Policy
	st       State
	op       string
	started  int      // commands started for the current operation
	now      sim.Time // the operation starts at 0
	deadline sim.Time
	jitter   float64
	ended    bool
}

// do runs one command of a transcript:
//
//	policy NAME [adaptive] [capacity=N] [csot] [sharded] [retryReads=false] [retryWrites=false]
//	       [maxAdaptiveRetries=N] [retargeting] [kvTimeout=D]
//	                            a new client with that policy and those options
//	jitter V                    later backoffs draw V (default 1: every backoff is its ceiling)
//	begin OP [deadline=D]       a new operation at time 0 (OP: see transcriptClasses); the
//	                            deadline is CSOT's timeoutMS, or a Couchbase request's timeout
//	fail FAILURE [took=D] [repeat=N]
//	                            the next command fails after D (0 by default), N times
//	succeed [took=D]            the next command succeeds
//	tokens [set=N]              the retry token bucket (after setting it to N tokens)
//
// FAILURE is overload (code 2 with SystemOverloadedError and RetryableError, the spec tests'
// failpoint), rejected (462 IngressRequestRateLimitExceeded with those labels and
// NoWritesPerformed), network, pool-cleared, dispatch, circuit-open, no-node, or code=C with
// C a name or number, optionally with labels=A,B and baseBackoffMS=N; for Couchbase,
// status=kv:0x86, status=query:12004 or status=http:429.
func (d *transcriptDriver) do(t *testing.T, c golden.Command) string {
	switch c.Name {
	case "policy":
		return d.policy(t, c)
	case "jitter":
		if len(c.Args) != 1 {
			t.Fatalf("%s: jitter takes one value", c.Pos)
		}
		v, err := strconv.ParseFloat(c.Args[0], 64)
		if err != nil || v < 0 || v > 1 {
			t.Fatalf("%s: jitter %q: want a number in [0, 1]", c.Pos, c.Args[0])
		}
		d.jitter = v
		return fmt.Sprintf("later backoffs are %v × their ceiling", v)
	case "begin":
		return d.begin(t, c)
	case "fail":
		return d.fail(t, c)
	case "succeed":
		d.need(t, c)
		d.advance(t, c)
		d.started++
		d.p.Succeeded(&d.st)
		d.ended = true
		out := fmt.Sprintf("command %d succeeded at %v, after %s", d.started, d.now, plural(d.st.Retries(), "retry", "retries"))
		return out + "\n" + d.state()
	case "tokens":
		if d.p == nil || TokenBucket(d.p) == nil {
			t.Fatalf("%s: the policy has no retry token bucket", c.Pos)
		}
		b := TokenBucket(d.p)
		if v, ok := c.Arg("set"); ok {
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("%s: set=%q", c.Pos, v)
			}
			b.Set(n)
		}
		return "tokens " + formatFloat(b.Tokens())
	}
	t.Fatalf("%s: unknown command %q", c.Pos, c)
	return ""
}

// policy builds a new client's policy from the command's options.
func (d *transcriptDriver) policy(t *testing.T, c golden.Command) string {
	if len(c.Args) == 0 {
		t.Fatalf("%s: policy needs a name", c.Pos)
	}
	o := DefaultOptions()
	for _, a := range c.Args[1:] {
		k, v, _ := strings.Cut(a, "=")
		var err error
		switch k {
		case "adaptive":
			o.AdaptiveRetries = true
		case "csot":
			o.CSOT = true
		case "sharded":
			o.Sharded = true
		case "retargeting":
			o.EnableOverloadRetargeting = true
		case "retryReads":
			o.RetryReads, err = strconv.ParseBool(v)
		case "retryWrites":
			o.RetryWrites, err = strconv.ParseBool(v)
		case "capacity":
			o.RetryTokenCapacity, err = strconv.ParseFloat(v, 64)
		case "maxAdaptiveRetries":
			o.MaxAdaptiveRetries, err = strconv.Atoi(v)
		case "kvTimeout":
			o.KVTimeout, err = time.ParseDuration(v)
		default:
			t.Fatalf("%s: unknown option %q", c.Pos, a)
		}
		if err != nil {
			t.Fatalf("%s: %s: %v", c.Pos, a, err)
		}
	}
	p, err := New(c.Args[0], o)
	if err != nil {
		return "error: " + err.Error()
	}
	d.p, d.ended, d.started = p, true, 0
	out := p.Name() + ": " + o.String()
	if b := TokenBucket(p); b != nil {
		out += "\ntokens " + formatFloat(b.Tokens())
	}
	return out
}

// begin starts an operation at time 0.
func (d *transcriptDriver) begin(t *testing.T, c golden.Command) string {
	if d.p == nil || len(c.Args) == 0 {
		t.Fatalf("%s: begin needs a policy first and an operation", c.Pos)
	}
	for _, tc := range transcriptClasses {
		if tc.name != c.Args[0] {
			continue
		}
		d.op, d.started, d.now, d.ended, d.deadline = tc.name, 0, 0, false, sim.Never
		if v, ok := c.Arg("deadline"); ok {
			dl, err := time.ParseDuration(v)
			if err != nil {
				t.Fatalf("%s: deadline=%q: %v", c.Pos, v, err)
			}
			d.deadline = sim.Time(dl)
		} else if rt, ok := RequestTimeout(d.p, tc.class); ok {
			d.deadline = sim.Time(rt)
		}
		d.p.Begin(&d.st, tc.class, d.deadline)
		dl := "no deadline"
		if d.deadline != sim.Never {
			dl = "deadline " + d.deadline.String()
		}
		return fmt.Sprintf("%s: %s; %s", tc.name, tc.gloss, dl)
	}
	t.Fatalf("%s: unknown operation %q", c.Pos, c.Args[0])
	return ""
}

// fail feeds one failed command (or repeat=N of them) to the policy.
func (d *transcriptDriver) fail(t *testing.T, c golden.Command) string {
	d.need(t, c)
	f := d.failure(t, c)
	n := 1
	if v, ok := c.Arg("repeat"); ok {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			t.Fatalf("%s: repeat=%q", c.Pos, v)
		}
	}
	var out []string
	for range n {
		if d.ended {
			t.Fatalf("%s: the operation has ended; begin another", c.Pos)
		}
		d.advance(t, c)
		d.started++
		dec := d.p.Failed(&d.st, f, d.now, constJitter(d.jitter))
		out = append(out, fmt.Sprintf("command %d failed at %v: %v", d.started, d.now, f))
		if !dec.Retry {
			d.ended = true
			out = append(out, fmt.Sprintf("give up (%v): the application gets %v", dec.Why, dec.Err))
		} else {
			line := "retry"
			if dec.Backoff > 0 {
				line += " after " + dec.Backoff.String()
			} else {
				line += " at once"
			}
			if dec.Deprioritize {
				line += ", deprioritizing the server"
			}
			if dec.Cancel {
				line += ", cancelled when it fires (the request will have timed out)"
			}
			d.now = d.now.Add(dec.Backoff)
			out = append(out, line)
		}
		if dec.Reason != ReasonNone {
			out[len(out)-1] += " [reason " + dec.Reason.String() + "]"
		}
		out = append(out, d.state())
	}
	return strings.Join(out, "\n")
}

// plural returns "1 retry", "2 retries".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// need fails the test if no operation is running.
func (d *transcriptDriver) need(t *testing.T, c golden.Command) {
	if d.p == nil || d.ended {
		t.Fatalf("%s: %s needs an operation in progress (begin one)", c.Pos, c.Name)
	}
}

// advance moves the clock by the command's took=D: how long the command ran.
func (d *transcriptDriver) advance(t *testing.T, c golden.Command) {
	if v, ok := c.Arg("took"); ok {
		dur, err := time.ParseDuration(v)
		if err != nil || dur < 0 {
			t.Fatalf("%s: took=%q", c.Pos, v)
		}
		d.now = d.now.Add(dur)
	}
}

// state is the line after every step: the spec's attempt and allowed retries, whether an
// overload error was seen, and the token bucket.
func (d *transcriptDriver) state() string {
	s := fmt.Sprintf("state: attempt=%d retries=%d", d.st.Attempt(), d.st.Retries())
	if Couchbase(d.p.Name()) {
		// No allowed_retries: a Couchbase request retries until its deadline.
	} else if d.st.allowed == unlimited {
		s += " allowed=unlimited"
	} else {
		s += " allowed=" + strconv.Itoa(d.st.allowed)
	}
	if d.st.OverloadSeen() {
		s += " overload-seen"
	}
	s += " now=" + d.now.String()
	if b := TokenBucket(d.p); b != nil {
		s += " tokens=" + formatFloat(b.Tokens())
	}
	if r := d.st.Reasons(); len(r) > 0 {
		names := make([]string, len(r))
		for i, x := range r {
			names[i] = x.String()
		}
		s += " reasons=" + strings.Join(names, ",")
	}
	return s
}

// failure parses the FAILURE of a fail command.
func (d *transcriptDriver) failure(t *testing.T, c golden.Command) Failure {
	var f Failure
	set := false
	for _, a := range c.Args {
		k, v, _ := strings.Cut(a, "=")
		switch k {
		case "overload":
			f, set = specOverload, true
		case "rejected":
			f, set = rejected, true
		case "network":
			f.Network, set = true, true
		case "pool-cleared":
			f.PoolCleared, set = true, true
		case "dispatch":
			f.Dispatch, set = true, true
		case "circuit-open":
			f.CircuitOpen, f.Dispatch, set = true, true, true
		case "no-node":
			f.NoNode, f.Dispatch, set = true, true, true
		case "code":
			f.Code, set = parseCode(t, c, v), true
		case "status":
			f.Code, set = parseStatus(t, c, v), true
		case "labels":
			for _, name := range strings.Split(v, ",") {
				l, ok := wire.ParseLabel(name)
				if !ok {
					t.Fatalf("%s: unknown label %q (known: %s)", c.Pos, name, strings.Join(wire.LabelNames(), ", "))
				}
				f.Labels |= l
			}
		case "baseBackoffMS":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatalf("%s: %s", c.Pos, a)
			}
			f.BaseBackoffMS = n
		case "took", "repeat":
		default:
			t.Fatalf("%s: unknown failure argument %q", c.Pos, a)
		}
	}
	if !set {
		t.Fatalf("%s: fail needs a failure (overload, rejected, network, pool-cleared, code=…, status=…)", c.Pos)
	}
	return f
}

// parseCode reads a MongoDB error code by name or number.
func parseCode(t *testing.T, c golden.Command, v string) wire.Code {
	if n, err := strconv.Atoi(v); err == nil {
		return wire.Code(n)
	}
	for _, code := range wire.KnownCodes() {
		if code.String() == v {
			return code
		}
	}
	t.Fatalf("%s: unknown code %q", c.Pos, v)
	return 0
}

// parseStatus reads a Couchbase status: kv:0x86, query:12004, http:429.
func parseStatus(t *testing.T, c golden.Command, v string) wire.Code {
	svc, num, _ := strings.Cut(v, ":")
	n, err := strconv.ParseInt(num, 0, 32)
	if err == nil {
		if svc == "http" {
			return wire.HTTPStatus(int(n))
		}
		s := wire.ServiceKV
		if svc == "query" {
			s = wire.ServiceQuery
		}
		if code, ok := wire.CouchbaseStatus(s, int(n)); ok && (svc == "kv" || svc == "query") {
			return code
		}
	}
	t.Fatalf("%s: status=%q: want kv:0xNN, query:NNNNN or http:NNN of a known status", c.Pos, v)
	return 0
}

// TestTranscriptsCoverEveryPolicy: each registered policy has a transcript of its own, so that
// a new policy cannot land without one.
func TestTranscriptsCoverEveryPolicy(t *testing.T) {
	for _, name := range Names() {
		if _, err := os.Stat(filepath.Join("testdata", "transcripts", name+".txt")); err != nil {
			t.Errorf("policy %s has no transcript: write testdata/transcripts/%s.txt (%v)", name, name, err)
		}
	}
}
