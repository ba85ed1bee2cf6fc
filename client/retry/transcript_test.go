package retry

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
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
	{"request", "a request (this stack's policy does not look at its class)", Class{}},
}

// transcriptDriver runs one client's policy and one operation at a time, as a driver would: it
// counts the commands started, keeps the virtual clock (a retry starts when its backoff ends),
// and feeds each outcome to the policy.
type transcriptDriver struct {
	p        Policy
	st       State
	op       string
	started  int      // commands (or, hedging, copies' results) reported for the current operation
	sent     int      // hedging: copies sent for the current operation
	now      sim.Time // the operation starts at 0 until an `at` command sets the clock
	clocked  bool     // an `at` command was given since the policy: begin starts at the clock
	deadline sim.Time
	jitter   float64
	ended    bool // the operation is over for the policy (it gave up, or one attempt succeeded)
	endedOp  bool // Ender.Ended was called for the current operation
}

// do runs one command of a transcript:
//
//	policy NAME [adaptive] [capacity=N] [csot] [sharded] [retryReads=false] [retryWrites=false]
//	       [maxAdaptiveRetries=N] [retargeting] [kvTimeout=D] [BLOCK.PATH=VALUE ...]
//	                            a new client with that policy and those options, at time 0
//	jitter V                    later backoffs draw V (default 1: every backoff is its ceiling)
//	at D                        set the clock to D (never back); from then on, begin starts the
//	                            next operation at the clock instead of at 0
//	begin OP [deadline=D]       a new operation (OP: see transcriptClasses) at 0, or at the
//	                            clock once `at` was used; the deadline, D after the start, is
//	                            CSOT's timeoutMS, a Couchbase request's timeout or a call's
//	                            deadline
//	admit                       the policy's Gate decides on the attempt about to be sent; a
//	                            hold-back moves the clock (a rejection is then written as
//	                            `fail throttled`)
//	hedge                       the policy's Hedger is asked for another copy of the request
//	fail FAILURE [took=D] [repeat=N]
//	                            the next command (hedging: an outstanding copy) fails
//	                            after D (0 by default), N times
//	succeed [took=D]            the next command (hedging: a copy) succeeds
//	end                         the driver tells the policy's Ender that the operation ended
//	tokens [set=N]              the retry token bucket (after setting it to N tokens)
//
// BLOCK.PATH=VALUE sets a field of the policy's option block (Options.Block; BLOCK is its key,
// as BlockKeys lists them) by the yaml names of its fields, as a scenario spells them:
// grpc.maxAttempts=3, grpc.retryThrottling.maxTokens=10, custom.retryOn=overload,network. The
// block, and a nil nested block on the way, is made with its defaults (NewBlock, SetDefaults),
// as a scenario's decoder makes them; VALUE is a
// duration (100ms), a number, true/false, a comma-separated list, or, for a nested block itself,
// none (nil) or default (its SetDefaults). For policies other than MongoDB's and Couchbase's,
// policy prints the effective option block in the same syntax, and the hedging parameters when
// the policy hedges.
//
// FAILURE is overload (code 2 with SystemOverloadedError and RetryableError, the spec tests'
// failpoint), rejected (462 IngressRequestRateLimitExceeded with those labels and
// NoWritesPerformed), network, pool-cleared, dispatch, circuit-open, no-node, throttled (the
// policy's own Gate rejected the attempt), or code=C with C a name or number, optionally with
// labels=A,B and baseBackoffMS=N; for Couchbase, status=kv:0x86, status=query:12004 or
// status=http:429. pushback=N adds server pushback: retry after N ms, or not at all when N < 0.
//
// OP request is a request whose class other stacks' policies ignore. For a policy that hedges,
// begin sends the first copy, hedge and a failure the policy answers with Retry send the
// others, and the operation ends with a success, a fatal failure (NotRetryable), or another
// refusal once no copy is outstanding.
//
// After every step a state line shows the spec's attempt, the retries granted, allowed
// retries, the clock, and the policy's client-wide state: the retry token bucket, and whatever
// a policy's clientState() string method returns (a throttle's token count, a quota, a budget).
// A policy with a failureClass(Failure) string method has each failure's class in its own
// vocabulary (a gRPC status code, an AWS error category) shown in brackets after the failure.
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
	case "at":
		if len(c.Args) != 1 {
			t.Fatalf("%s: at takes one duration", c.Pos)
		}
		v, err := time.ParseDuration(c.Args[0])
		if err != nil || sim.Time(v) < d.now {
			t.Fatalf("%s: at %q: want a duration no earlier than the clock (%v)", c.Pos, c.Args[0], d.now)
		}
		d.now, d.clocked = sim.Time(v), true
		return "the clock is at " + d.now.String()
	case "begin":
		return d.begin(t, c)
	case "admit":
		return d.admit(t, c)
	case "hedge":
		return d.hedge(t, c)
	case "fail":
		return d.fail(t, c)
	case "succeed":
		d.need(t, c)
		d.advance(t, c)
		d.started++
		d.p.Succeeded(&d.st, d.now)
		d.ended = true
		if d.hedging() {
			return fmt.Sprintf("copy result %d: success at %v (outstanding copies cancelled: %d)", d.started, d.now,
				d.sent-d.started) + "\n" + d.state()
		}
		out := fmt.Sprintf("command %d succeeded at %v, after %s", d.started, d.now, plural(d.st.Retries(), "retry", "retries"))
		return out + "\n" + d.state()
	case "end":
		e, ok := d.p.(Ender)
		if !ok || d.op == "" || d.endedOp {
			t.Fatalf("%s: end needs a policy that is an Ender and an operation not yet ended", c.Pos)
		}
		e.Ended(&d.st, d.now)
		d.ended, d.endedOp = true, true
		return "the operation ended at " + d.now.String() + "\n" + d.state()
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

// hedging reports whether the policy hedges instead of retrying.
func (d *transcriptDriver) hedging() bool {
	h, ok := d.p.(Hedger)
	if !ok {
		return false
	}
	_, _, ok = h.Hedging()
	return ok
}

// admit asks the policy's Gate about the attempt about to be sent.
func (d *transcriptDriver) admit(t *testing.T, c golden.Command) string {
	d.need(t, c)
	g, ok := d.p.(Gate)
	if !ok {
		t.Fatalf("%s: %s has no Gate", c.Pos, d.p.Name())
	}
	a := g.Admit(&d.st, d.now, constJitter(d.jitter))
	out := "admit at " + d.now.String() + ": "
	switch {
	case a.Reject:
		out += "rejected: the attempt is not sent (the driver fails it locally as throttled)"
	case a.Delay > 0:
		d.now = d.now.Add(a.Delay)
		out += "held back " + a.Delay.String() + ", sent at " + d.now.String()
	default:
		out += "sent at once"
	}
	return out + "\n" + d.state()
}

// hedge asks the policy's Hedger for another copy.
func (d *transcriptDriver) hedge(t *testing.T, c golden.Command) string {
	d.need(t, c)
	if !d.hedging() {
		t.Fatalf("%s: %s does not hedge", c.Pos, d.p.Name())
	}
	out := "hedge at " + d.now.String() + ": "
	if d.p.(Hedger).Hedge(&d.st, d.now) {
		d.sent++
		out += fmt.Sprintf("copy %d sent", d.sent)
	} else {
		out += "no copy sent"
	}
	return out + "\n" + d.state()
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
			if !strings.Contains(k, ".") {
				t.Fatalf("%s: unknown option %q", c.Pos, a)
			}
			err = setBlockOption(&o, k, v)
		}
		if err != nil {
			t.Fatalf("%s: %s: %v", c.Pos, a, err)
		}
	}
	p, err := New(c.Args[0], o)
	if err != nil {
		return "error: " + err.Error()
	}
	d.p, d.ended, d.started, d.op, d.now, d.clocked = p, true, 0, "", 0, false
	name := c.Args[0]
	if MongoDBDriver(name) || Couchbase(name) {
		out := p.Name() + ": " + o.String()
		if b := TokenBucket(p); b != nil {
			out += "\ntokens " + formatFloat(b.Tokens())
		}
		return out
	}
	// Another stack's policy: its option block, in the syntax that sets it.
	var fields []string
	if k := lookup(name).block; k != nil {
		describeBlock(effectiveBlock(&o, k), k.key+".", &fields)
	}
	out := p.Name() + ": " + strings.Join(fields, " ")
	if h, ok := p.(Hedger); ok {
		if delay, n, ok := h.Hedging(); ok {
			out += fmt.Sprintf("\nhedging: up to %d copies, one every %v", n, delay)
		}
	}
	if cs, ok := p.(interface{ clientState() string }); ok && cs.clientState() != "" {
		out += "\n" + cs.clientState()
	}
	return out
}

// effectiveBlock returns the block of kind k as the policy sees it: the block given, or its
// defaults.
func effectiveBlock(o *Options, k *blockKind) reflect.Value {
	if o.Block != nil {
		return reflect.ValueOf(o.Block).Elem()
	}
	return reflect.ValueOf(k.new()).Elem()
}

// setBlockOption sets the field at path (block.field[.field...], by yaml names) of o's option
// block, which it makes with its defaults when o has none.
func setBlockOption(o *Options, path, v string) error {
	key, rest, _ := strings.Cut(path, ".")
	switch {
	case blockKindByKey(key) == nil:
		return fmt.Errorf("no option block %q", key)
	case o.Block == nil:
		o.Block = NewBlock(key)
	case BlockKey(o.Block) != key:
		return fmt.Errorf("option block %q given already", BlockKey(o.Block))
	}
	return setPath(reflect.ValueOf(o.Block).Elem(), strings.Split(rest, "."), v)
}

// setPath sets the field at path under the addressable value v, allocating nil blocks on the
// way with their SetDefaults.
func setPath(v reflect.Value, path []string, text string) error {
	if v.Kind() == reflect.Pointer && v.Type().Elem().Kind() == reflect.Struct {
		if len(path) == 0 && text == "none" {
			v.SetZero()
			return nil
		}
		if v.IsNil() || len(path) == 0 && text == "default" {
			v.Set(reflect.New(v.Type().Elem()))
			if d, ok := v.Interface().(interface{ SetDefaults() }); ok {
				d.SetDefaults()
			}
		}
		if len(path) == 0 && text == "default" {
			return nil
		}
		v = v.Elem()
	}
	if len(path) == 0 {
		return setLeaf(v, text)
	}
	if v.Kind() != reflect.Struct || v.Type() == reflect.TypeFor[time.Duration]() {
		return fmt.Errorf("%s: a %s has no fields", path[0], v.Type())
	}
	var known []string
	for i := range v.NumField() {
		tag, ok := v.Type().Field(i).Tag.Lookup("yaml")
		name, _, _ := strings.Cut(tag, ",")
		if !ok || name == "" {
			continue
		}
		if name == path[0] {
			return setPath(v.Field(i), path[1:], text)
		}
		known = append(known, name)
	}
	return fmt.Errorf("no field %q in %s (known: %s)", path[0], v.Type(), strings.Join(known, ", "))
}

// setLeaf sets v from text.
func setLeaf(v reflect.Value, text string) error {
	var err error
	switch {
	case v.Type() == reflect.TypeFor[time.Duration]():
		var d time.Duration
		d, err = time.ParseDuration(text)
		v.SetInt(int64(d))
	case v.Kind() == reflect.String:
		v.SetString(text)
	case v.Kind() == reflect.Bool:
		var b bool
		b, err = strconv.ParseBool(text)
		v.SetBool(b)
	case v.CanInt():
		var n int64
		n, err = strconv.ParseInt(text, 10, v.Type().Bits())
		v.SetInt(n)
	case v.CanUint():
		var n uint64
		n, err = strconv.ParseUint(text, 10, v.Type().Bits())
		v.SetUint(n)
	case v.CanFloat():
		var f float64
		f, err = strconv.ParseFloat(text, v.Type().Bits())
		v.SetFloat(f)
	case v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.String:
		list := []string{}
		if text != "" {
			list = strings.Split(text, ",")
		}
		v.Set(reflect.ValueOf(list).Convert(v.Type()))
	default:
		return fmt.Errorf("cannot set a %s from text", v.Type())
	}
	return err
}

// describeBlock appends the fields of the block struct v as prefix+name=value, nested blocks
// by their paths (none when nil).
func describeBlock(v reflect.Value, prefix string, out *[]string) {
	for i := range v.NumField() {
		tag, ok := v.Type().Field(i).Tag.Lookup("yaml")
		name, _, _ := strings.Cut(tag, ",")
		if !ok || name == "" {
			continue
		}
		f := v.Field(i)
		switch {
		case f.Kind() == reflect.Pointer && f.IsNil():
			*out = append(*out, prefix+name+"=none")
		case f.Kind() == reflect.Pointer:
			describeBlock(f.Elem(), prefix+name+".", out)
		case f.Kind() == reflect.Struct:
			describeBlock(f, prefix+name+".", out)
		case f.Type() == reflect.TypeFor[time.Duration]():
			*out = append(*out, prefix+name+"="+time.Duration(f.Int()).String())
		case f.CanFloat():
			*out = append(*out, prefix+name+"="+formatFloat(f.Float()))
		case f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.String:
			*out = append(*out, prefix+name+"="+strings.Join(f.Interface().([]string), ","))
		default:
			*out = append(*out, prefix+name+"="+fmt.Sprint(f.Interface()))
		}
	}
}

// begin starts an operation at time 0, or at the clock once an `at` command has set it.
func (d *transcriptDriver) begin(t *testing.T, c golden.Command) string {
	if d.p == nil || len(c.Args) == 0 {
		t.Fatalf("%s: begin needs a policy first and an operation", c.Pos)
	}
	for _, tc := range transcriptClasses {
		if tc.name != c.Args[0] {
			continue
		}
		if !d.clocked {
			d.now = 0
		}
		d.op, d.started, d.sent, d.ended, d.endedOp, d.deadline = tc.name, 0, 1, false, false, sim.Never
		if v, ok := c.Arg("deadline"); ok {
			dl, err := time.ParseDuration(v)
			if err != nil {
				t.Fatalf("%s: deadline=%q: %v", c.Pos, v, err)
			}
			d.deadline = d.now.Add(dl)
		} else if rt, ok := RequestTimeout(d.p, tc.class); ok {
			d.deadline = d.now.Add(rt)
		}
		d.p.Begin(&d.st, tc.class, d.now, d.deadline)
		dl := "no deadline"
		if d.deadline != sim.Never {
			dl = "deadline " + d.deadline.String()
		}
		out := fmt.Sprintf("%s: %s; %s", tc.name, tc.gloss, dl)
		if d.clocked {
			out += "; starts at " + d.now.String()
		}
		if d.hedging() {
			out += "; copy 1 sent"
		}
		return out
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
	hedging := d.hedging()
	for range n {
		if d.ended {
			t.Fatalf("%s: the operation has ended; begin another", c.Pos)
		}
		if hedging && d.started >= d.sent {
			t.Fatalf("%s: no copy is outstanding", c.Pos)
		}
		d.advance(t, c)
		d.started++
		dec := d.p.Failed(&d.st, f, d.now, constJitter(d.jitter))
		what := f.String()
		if fc, ok := d.p.(interface{ failureClass(Failure) string }); ok {
			what += " [" + fc.failureClass(f) + "]"
		}
		if hedging {
			out = append(out, fmt.Sprintf("copy result %d: failed at %v: %s", d.started, d.now, what))
		} else {
			out = append(out, fmt.Sprintf("command %d failed at %v: %s", d.started, d.now, what))
		}
		switch {
		case hedging && !dec.Retry && dec.Why != NotRetryable && d.started < d.sent:
			out = append(out, fmt.Sprintf("no further copy (%v); %s still outstanding", dec.Why,
				plural(d.sent-d.started, "copy", "copies")))
		case hedging && !dec.Retry:
			d.ended = true
			if d.started < d.sent {
				out = append(out, fmt.Sprintf("a fatal error (outstanding copies cancelled: %d)", d.sent-d.started))
			}
			out = append(out, fmt.Sprintf("give up (%v): the application gets %v", dec.Why, dec.Err))
		case hedging:
			d.now = d.now.Add(dec.Backoff)
			d.sent++
			line := fmt.Sprintf("copy %d sent", d.sent)
			if dec.Backoff > 0 {
				line += " after " + dec.Backoff.String() + ", at " + d.now.String()
			} else {
				line += " at once"
			}
			if dec.Deprioritize {
				line += ", deprioritizing the servers tried"
			}
			out = append(out, line)
		case !dec.Retry && dec.Succeed:
			d.ended = true
			out = append(out, fmt.Sprintf("give up (%v): the driver reports success (the write was not performed)", dec.Why))
		case !dec.Retry:
			d.ended = true
			out = append(out, fmt.Sprintf("give up (%v): the application gets %v", dec.Why, dec.Err))
		default:
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
// overload error was seen, the token bucket, and the policy's clientState when it has one.
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
	if cs, ok := d.p.(interface{ clientState() string }); ok && cs.clientState() != "" {
		s += " " + cs.clientState()
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
		case "handshake": // establishing the connection failed: CMAP labels it (client/pool.go)
			f.Network, f.Handshake, set = true, true, true
			f.Labels |= wire.SystemOverloadedError | wire.RetryableError
		case "pool-cleared":
			f.PoolCleared, set = true, true
		case "dispatch":
			f.Dispatch, set = true, true
		case "circuit-open":
			f.CircuitOpen, f.Dispatch, set = true, true, true
		case "no-node":
			f.NoNode, f.Dispatch, set = true, true, true
		case "throttled":
			f.Throttled, f.Dispatch, set = true, true, true
		case "pushback":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatalf("%s: %s", c.Pos, a)
			}
			f.Pushback, f.PushbackMS = true, n
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
		t.Fatalf("%s: fail needs a failure (overload, rejected, network, pool-cleared, dispatch, throttled, code=…, status=…)", c.Pos)
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
		if r := releaseRules(name); r != nil {
			// A release preset shares the transcript of its behaviour class: the first release
			// in the registry with the same rules.
			for _, first := range releases {
				if first.rules == r {
					name = first.name
					break
				}
			}
		}
		if _, err := os.Stat(filepath.Join("testdata", "transcripts", name+".txt")); err != nil {
			t.Errorf("policy %s has no transcript: write testdata/transcripts/%s.txt (%v)", name, name, err)
		}
	}
}

// TestSetBlockOption checks the transcripts' generic option setter: fields by their yaml names,
// nested blocks allocated with their SetDefaults, none and default for a nested block, and
// errors that name what is known.
func TestSetBlockOption(t *testing.T) {
	grpcOf := func(o *Options) *GRPCOptions { return o.Block.(*GRPCOptions) }
	tests := []struct {
		path, value string
		check       func(o *Options) bool
		err         string
	}{
		{"grpc.maxAttempts", "3", func(o *Options) bool { return grpcOf(o).MaxAttempts == 3 && grpcOf(o).MaxBackoff == time.Second }, ""},
		{"grpc.initialBackoff", "250ms", func(o *Options) bool { return grpcOf(o).InitialBackoff == 250*time.Millisecond }, ""},
		{"grpc.backoffMultiplier", "1.5", func(o *Options) bool { return grpcOf(o).BackoffMultiplier == 1.5 }, ""},
		{"grpc.retryableStatusCodes", "ABORTED,INTERNAL", func(o *Options) bool {
			return strings.Join(grpcOf(o).RetryableStatusCodes, " ") == "ABORTED INTERNAL"
		}, ""},
		{"grpc.retryThrottling.maxTokens", "4", func(o *Options) bool {
			return *grpcOf(o).RetryThrottling == GRPCThrottling{MaxTokens: 4, TokenRatio: 0.1}
		}, ""},
		{"grpc.hedgingPolicy", "default", func(o *Options) bool { return grpcOf(o).HedgingPolicy.MaxAttempts == 4 }, ""},
		{"grpc.hedgingPolicy", "none", func(o *Options) bool { return grpcOf(o).HedgingPolicy == nil }, ""},
		{"aws.behavior", "legacy", func(o *Options) bool {
			return *o.Block.(*AWSOptions) == AWSOptions{Behavior: "legacy", RetryQuota: 500, AdaptiveWait: "reserve"}
		}, ""},
		{"aws.retryQuota", "x", nil, `strconv.ParseInt: parsing "x": invalid syntax`},
		{"aws.quota", "1", nil, `no field "quota" in retry.AWSOptions (known: behavior, maxAttempts, retryQuota, preset, service, adaptiveWait)`},
		{"nope.x", "1", nil, `no option block "nope"`},
		{"grpc.maxAttempts", "3", nil, `option block "aws" given already`},
		{"grpc.maxAttempts.x", "1", nil, "x: a int has no fields"},
	}
	for _, tc := range tests {
		o := DefaultOptions()
		if tc.err == `option block "aws" given already` {
			o.Block = NewBlock("aws")
		}
		err := setBlockOption(&o, tc.path, tc.value)
		switch {
		case tc.err != "" && (err == nil || err.Error() != tc.err):
			t.Errorf("%s=%s: error %v, want %q", tc.path, tc.value, err, tc.err)
		case tc.err == "" && (err != nil || !tc.check(&o)):
			t.Errorf("%s=%s: error %v, options %+v", tc.path, tc.value, err, o)
		}
	}
	// describeBlock writes the block back in the same syntax.
	o := DefaultOptions()
	if err := setBlockOption(&o, "grpc.retryThrottling.tokenRatio", "0.5"); err != nil {
		t.Fatal(err)
	}
	var fields []string
	describeBlock(effectiveBlock(&o, lookup(NameGRPC).block), "grpc.", &fields)
	want := "grpc.maxAttempts=4 grpc.initialBackoff=100ms grpc.maxBackoff=1s grpc.backoffMultiplier=2 " +
		"grpc.retryableStatusCodes=UNAVAILABLE,RESOURCE_EXHAUSTED grpc.retryThrottling.maxTokens=10 " +
		"grpc.retryThrottling.tokenRatio=0.5 grpc.hedgingPolicy=none grpc.backoffJitter=grpc-go-1.69"
	if got := strings.Join(fields, " "); got != want {
		t.Errorf("describeBlock:\n got %s\nwant %s", got, want)
	}
}
