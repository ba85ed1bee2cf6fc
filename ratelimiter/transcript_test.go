package ratelimiter_test

import (
	"cmp"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/internal/golden"
	"github.com/overloadsim/overloadsim/ratelimiter"
	"github.com/overloadsim/overloadsim/sim"
)

// TestTranscripts replays the transcripts in testdata/*.txt, each as a subtest with a fresh
// driver: readable scripts of events on the package's three buckets and the state after each,
// for a reviewer who knows the server's rate limiter and the driver's retry bucket but not Go.
// Each file opens with the rules it shows and the sources they come from; the commands are
// described on the driver's methods below. To regenerate the outputs after a change of
// behaviour, run
//
//	go test ./ratelimiter -run TestTranscripts -update
//
// and review the diff line by line as if it were code (docs/conventions.md §10).
func TestTranscripts(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no transcripts in testdata/*.txt")
	}
	for _, path := range files {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txt"), func(t *testing.T) {
			d := &driver{}
			golden.Transcript(t, path, d.do)
		})
	}
}

// driver holds the state of one transcript: a virtual clock and at most one bucket of each
// kind. A command that creates a bucket replaces the previous one of its kind.
type driver struct {
	now    sim.Time
	bucket *ratelimiter.TokenBucket
	// callers are the bucket's callers of Acquire, by id − 1, so that cancel can name one.
	callers []caller
	retry   *ratelimiter.RetryTokenBucket
	budget  *ratelimiter.RetryBudget
}

// caller is one call of Acquire as the driver saw it.
type caller struct {
	r         ratelimiter.Reservation
	ok        bool // false: rejected, holds no reservation
	cancelled bool // CancelWait returned true for it
}

// do runs one command and returns its output. A command the driver does not know, a bad
// argument, and a panic of the package (a broken precondition, such as time going backwards)
// fail the test, naming the command's position.
func (d *driver) do(t *testing.T, c golden.Command) string {
	defer func() {
		if p := recover(); p != nil {
			t.Fatalf("%s: %s: panic: %v", c.Pos, c, p)
		}
	}()
	a := args{t: t, c: c}
	switch c.Name {
	// TokenBucket
	case "bucket":
		return d.newBucket(a)
	case "try":
		return d.try(a)
	case "acquire":
		return d.acquire(a)
	case "cancel":
		return d.cancel(a)
	case "tokens":
		return d.tokens(a)
	case "queued":
		return d.queued(a)
	case "stats":
		return d.stats(a)
	case "set-rate":
		return d.setRate(a)
	case "set-queue":
		return d.setQueue(a)
	case "exempt":
		return d.exempt(a)
	// RetryTokenBucket
	case "retry-bucket":
		return d.newRetry(a)
	case "consume":
		return d.consume(a)
	case "deposit":
		return d.deposit(a)
	case "set":
		return d.set(a)
	// RetryBudget
	case "budget":
		return d.newBudget(a)
	case "acquire-token":
		return d.acquireToken(a)
	case "not-overloaded":
		return d.notOverloaded(a)
	case "set-capacity":
		return d.setCapacity(a)
	case "set-return-rate":
		return d.setReturnRate(a)
	case "balance":
		a.only()
		d.mustBudget(a)
		return d.budgetState()
	}
	t.Fatalf("%s: unknown command %q", c.Pos, c)
	return ""
}

// args reads a command's arguments; anything it cannot read fails the test at the command.
type args struct {
	t *testing.T
	c golden.Command
}

// fatalf fails the test at the command, naming its position and text.
func (a args) fatalf(format string, v ...any) {
	a.t.Helper()
	a.t.Fatalf("%s: %s: %s", a.c.Pos, a.c, fmt.Sprintf(format, v...))
}

// only fails unless every argument is one of keys, so that a misspelt argument is not ignored.
func (a args) only(keys ...string) {
	a.t.Helper()
	for _, w := range a.c.Args {
		k, _, _ := strings.Cut(w, "=")
		if !slices.Contains(keys, k) {
			a.fatalf("unknown argument %q (this command takes %v)", w, keys)
		}
	}
}

// str returns the value of key=value, or def if there is no such argument.
func (a args) str(key, def string) string {
	if v, ok := a.c.Arg(key); ok {
		return v
	}
	return def
}

// float returns the number key=value ("NaN" and "Inf" included, to test validation), or def.
func (a args) float(key string, def float64) float64 {
	a.t.Helper()
	v, ok := a.c.Arg(key)
	if !ok {
		return def
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		a.fatalf("%s=%q is not a number", key, v)
	}
	return f
}

// mustFloat is float for a required argument.
func (a args) mustFloat(key string) float64 {
	a.t.Helper()
	if !a.c.Has(key) {
		a.fatalf("missing %s=", key)
	}
	return a.float(key, 0)
}

// count returns the integer key=value, at least least, or def.
func (a args) count(key string, def, least int) int {
	a.t.Helper()
	v, ok := a.c.Arg(key)
	if !ok {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < least {
		a.fatalf("%s=%q: want an integer ≥ %d", key, v, least)
	}
	return n
}

// at moves the driver's clock to the required argument at=DURATION (time since the start of
// the transcript) and returns it. The clock must not go back: the bucket would panic.
func (d *driver) at(a args) sim.Time {
	a.t.Helper()
	v, ok := a.c.Arg("at")
	if !ok {
		a.fatalf("missing at= (the time of the command, such as at=250ms)")
	}
	dur, err := time.ParseDuration(v)
	if err != nil {
		a.fatalf("at=%q: %v", v, err)
	}
	now := sim.Time(dur)
	if now < d.now {
		a.fatalf("at=%v is before the previous command's time %v: time must not go back", now, d.now)
	}
	d.now = now
	return now
}

// num formats a float exactly: the shortest text that reads back to the same float64.
func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// mustBucket returns the current TokenBucket, failing if no bucket command made one.
func (d *driver) mustBucket(a args) *ratelimiter.TokenBucket {
	a.t.Helper()
	if d.bucket == nil {
		a.fatalf("no token bucket: start with a valid bucket command")
	}
	return d.bucket
}

// newBucket: bucket rate=R burst=B [queue=Q] [at=T] makes a full TokenBucket with
// RatePerSec R, BurstCapacitySecs B and MaxQueueDepth Q (default 0), valid from T (default 0s,
// which restarts the clock), and numbers its callers from #1 again. It prints the capacity,
// the tokens and the queue depth, or the validation error (and then there is no bucket).
func (d *driver) newBucket(a args) string {
	a.only("rate", "burst", "queue", "at")
	cfg := ratelimiter.Config{
		RatePerSec:        a.mustFloat("rate"),
		BurstCapacitySecs: a.mustFloat("burst"),
		MaxQueueDepth:     int64(a.count("queue", 0, -1<<31)), // a negative depth is for Validate to reject
	}
	d.now, d.bucket, d.callers = 0, nil, nil
	if a.c.Has("at") {
		d.at(a)
	}
	b, err := ratelimiter.NewTokenBucket(cfg, d.now)
	if err != nil {
		return "error: " + err.Error()
	}
	d.bucket = b
	return fmt.Sprintf("capacity %s; tokens %s at %v; MaxQueueDepth %d",
		num(b.Capacity()), num(b.Tokens(d.now)), d.now, b.Config().MaxQueueDepth)
}

// try: try at=T [n=K] makes K (default 1) TryAcquire calls at T and prints how many were
// admitted and rejected, and the tokens left.
func (d *driver) try(a args) string {
	a.only("at", "n")
	b := d.mustBucket(a)
	now, n := d.at(a), a.count("n", 1, 1)
	admitted, rejected := 0, 0
	for range n {
		if b.TryAcquire(now) {
			admitted++
		} else {
			rejected++
		}
	}
	return fmt.Sprintf("admitted %d, rejected %d; tokens %s", admitted, rejected, num(b.Tokens(now)))
}

// acquire: acquire at=T [n=K] makes K (default 1) Acquire calls at T, giving each caller the
// next id. It prints one line per caller (runs of identical outcomes joined as #a..#b):
// admitted at once, queued until its reservation time, or rejected with the facts the driver
// saw just before the call (the capacity if it is below one token, otherwise how many were
// waiting and the MaxQueueDepth). A last line gives the tokens and the queue.
func (d *driver) acquire(a args) string {
	a.only("at", "n")
	b := d.mustBucket(a)
	now, n := d.at(a), a.count("n", 1, 1)
	var ids []int
	var outcomes []string
	for range n {
		var why string
		if c := b.Capacity(); c < 1 {
			why = fmt.Sprintf("capacity %s < 1 token", num(c))
		} else {
			why = fmt.Sprintf("%d waiting, MaxQueueDepth %d", b.Queued(now), b.Config().MaxQueueDepth)
		}
		r, ok := b.Acquire(now)
		d.callers = append(d.callers, caller{r: r, ok: ok})
		ids = append(ids, len(d.callers))
		switch {
		case !ok:
			outcomes = append(outcomes, "rejected ("+why+")")
		case r.At == now:
			outcomes = append(outcomes, "admitted at once")
		default:
			outcomes = append(outcomes, fmt.Sprintf("queued until %v (waits %v)", r.At, r.Wait()))
		}
	}
	var lines []string
	for i := 0; i < len(outcomes); {
		j := i + 1
		for j < len(outcomes) && outcomes[j] == outcomes[i] {
			j++
		}
		who := fmt.Sprintf("#%d", ids[i])
		if j-i > 1 {
			who += fmt.Sprintf("..#%d", ids[j-1])
		}
		lines = append(lines, who+" "+outcomes[i])
		i = j
	}
	lines = append(lines, fmt.Sprintf("tokens %s; %s", num(b.Tokens(now)), d.queue(now)))
	return strings.Join(lines, "\n")
}

// queue describes the waiters at now: the bucket's count (Queued), then the callers the driver
// holds whose reservation time is later than now and who did not give up, by time.
func (d *driver) queue(now sim.Time) string {
	var waiting []int
	for i, c := range d.callers {
		if c.ok && !c.cancelled && c.r.At > now {
			waiting = append(waiting, i)
		}
	}
	slices.SortStableFunc(waiting, func(i, j int) int { return cmp.Compare(d.callers[i].r.At, d.callers[j].r.At) })
	s := fmt.Sprintf("queued %d", d.bucket.Queued(now))
	for k, i := range waiting {
		sep := ", "
		if k == 0 {
			sep = ": "
		}
		s += fmt.Sprintf("%s#%d until %v", sep, i+1, d.callers[i].r.At)
	}
	return s
}

// cancel: cancel at=T id=I has caller #I give up at T (CancelWait). It prints whether
// CancelWait withdrew the caller, then the tokens and the queue. Cancelling a caller that was
// rejected or has already given up is a mistake in the script.
func (d *driver) cancel(a args) string {
	a.only("at", "id")
	b := d.mustBucket(a)
	now, id := d.at(a), a.count("id", 0, 1)
	if !a.c.Has("id") || id > len(d.callers) {
		a.fatalf("want id=I naming one of the %d callers of acquire", len(d.callers))
	}
	c := &d.callers[id-1]
	switch {
	case !c.ok:
		a.fatalf("#%d was rejected: it holds no reservation", id)
	case c.cancelled:
		a.fatalf("#%d has already given up", id)
	}
	var first string
	if b.CancelWait(now, c.r) {
		c.cancelled = true
		first = fmt.Sprintf("#%d gives up: CancelWait true (it was queued until %v)", id, c.r.At)
	} else {
		first = fmt.Sprintf("#%d: CancelWait false (its time %v has come)", id, c.r.At)
	}
	return first + "\n" + fmt.Sprintf("tokens %s; %s", num(b.Tokens(now)), d.queue(now))
}

// tokens: tokens at=T prints the balance at T (negative while waiters are owed tokens).
func (d *driver) tokens(a args) string {
	a.only("at")
	b := d.mustBucket(a)
	return "tokens " + num(b.Tokens(d.at(a)))
}

// queued: queued at=T prints the queue at T, as acquire's last line does.
func (d *driver) queued(a args) string {
	a.only("at")
	d.mustBucket(a)
	return d.queue(d.at(a))
}

// stats: stats at=T prints every field of Stats at T, one per line and named as in the Go
// struct, then checks the identity the Stats documentation states.
func (d *driver) stats(a args) string {
	a.only("at")
	s := d.mustBucket(a).Stats(d.at(a))
	var lines []string
	v := reflect.ValueOf(s)
	for i := range v.NumField() {
		f := v.Field(i)
		var text string
		switch x := f.Interface().(type) {
		case time.Duration:
			text = x.String()
		case int64:
			text = strconv.FormatInt(x, 10)
		case float64:
			text = num(x)
		default:
			a.fatalf("Stats.%s has type %T, which the driver cannot print", v.Type().Field(i).Name, x)
		}
		lines = append(lines, v.Type().Field(i).Name+": "+text)
	}
	rel, holds := "=", ""
	if s.AttemptedAdmissions != s.SuccessfulAdmissions+s.RejectedAdmissions+s.InterruptedInQueue+s.Queued {
		rel, holds = "≠", " (DOES NOT HOLD)"
	}
	lines = append(lines, fmt.Sprintf("Attempted = Successful + Rejected + InterruptedInQueue + Queued: %d %s %d + %d + %d + %d%s",
		s.AttemptedAdmissions, rel, s.SuccessfulAdmissions, s.RejectedAdmissions, s.InterruptedInQueue, s.Queued, holds))
	return strings.Join(lines, "\n")
}

// setRate: set-rate at=T rate=R burst=B calls SetRate at T and prints the capacity and the
// tokens after it; on invalid values, the error and the unchanged capacity and tokens.
func (d *driver) setRate(a args) string {
	a.only("at", "rate", "burst")
	b := d.mustBucket(a)
	now := d.at(a)
	var out string
	if err := b.SetRate(now, a.mustFloat("rate"), a.mustFloat("burst")); err != nil {
		out = "error: " + err.Error() + "\n"
	}
	return out + fmt.Sprintf("capacity %s; tokens %s", num(b.Capacity()), num(b.Tokens(now)))
}

// setQueue: set-queue depth=Q calls SetMaxQueueDepth and prints the depth in force after it,
// after the error if Q is invalid.
func (d *driver) setQueue(a args) string {
	a.only("depth")
	b := d.mustBucket(a)
	if !a.c.Has("depth") {
		a.fatalf("missing depth=")
	}
	var out string
	if err := b.SetMaxQueueDepth(int64(a.count("depth", 0, -1<<31))); err != nil { // negative: for the error
		out = "error: " + err.Error() + "\n"
	}
	return out + fmt.Sprintf("MaxQueueDepth %d", b.Config().MaxQueueDepth)
}

// exempt: exempt [n=K] calls RecordExemption K times (default 1) and prints the count and the
// tokens at the current time, to show that an exemption takes none.
func (d *driver) exempt(a args) string {
	a.only("n")
	b := d.mustBucket(a)
	for range a.count("n", 1, 1) {
		b.RecordExemption()
	}
	return fmt.Sprintf("ExemptedAdmissions: %d; tokens %s", b.Stats(d.now).ExemptedAdmissions, num(b.Tokens(d.now)))
}

// newRetry: retry-bucket [capacity=N] makes a full RetryTokenBucket (default capacity
// DefaultRetryTokenCapacity) and prints it with the spec's constants RetryCost and
// RetryTokenReturn, which consume and deposit use by default; or the error.
func (d *driver) newRetry(a args) string {
	a.only("capacity")
	b, err := ratelimiter.NewRetryTokenBucket(a.float("capacity", ratelimiter.DefaultRetryTokenCapacity))
	d.retry = b
	if err != nil {
		return "error: " + err.Error()
	}
	return fmt.Sprintf("capacity %s; tokens %s; RetryCost %s, RetryTokenReturn %s",
		num(b.Capacity()), num(b.Tokens()), num(ratelimiter.RetryCost), num(ratelimiter.RetryTokenReturn))
}

// mustRetry returns the current RetryTokenBucket, failing if no retry-bucket command made one.
func (d *driver) mustRetry(a args) *ratelimiter.RetryTokenBucket {
	a.t.Helper()
	if d.retry == nil {
		a.fatalf("no retry token bucket: start with a valid retry-bucket command")
	}
	return d.retry
}

// consume: consume [n=X] [times=K] calls Consume(X) K times (defaults RetryCost, 1) and prints
// how many calls succeeded and were refused, and the tokens left.
func (d *driver) consume(a args) string {
	a.only("n", "times")
	b := d.mustRetry(a)
	n, times := a.float("n", ratelimiter.RetryCost), a.count("times", 1, 1)
	ok, refused := 0, 0
	for range times {
		if b.Consume(n) {
			ok++
		} else {
			refused++
		}
	}
	return fmt.Sprintf("Consume(%s): %d succeeded, %d refused; tokens %s", num(n), ok, refused, num(b.Tokens()))
}

// deposit: deposit [n=X] [times=K] [each] calls Deposit(X) K times (defaults RetryTokenReturn,
// 1) and prints the tokens after the last, or after every one with each.
func (d *driver) deposit(a args) string {
	a.only("n", "times", "each")
	b := d.mustRetry(a)
	n := a.float("n", ratelimiter.RetryTokenReturn)
	return a.repeat("tokens", func() { b.Deposit(n) }, b.Tokens)
}

// set: set n=X puts the bucket at X tokens, as the spec's prose tests do.
func (d *driver) set(a args) string {
	a.only("n")
	b := d.mustRetry(a)
	b.Set(a.mustFloat("n"))
	return "tokens " + num(b.Tokens())
}

// newBudget: budget [capacity=N] [rate=X] makes a full RetryBudget (defaults those of
// DefaultRetryBudgetConfig) and prints it, or the error.
func (d *driver) newBudget(a args) string {
	a.only("capacity", "rate")
	def := ratelimiter.DefaultRetryBudgetConfig()
	b, err := ratelimiter.NewRetryBudget(ratelimiter.RetryBudgetConfig{
		Capacity:   a.float("capacity", def.Capacity),
		ReturnRate: a.float("rate", def.ReturnRate),
	})
	d.budget = b
	if err != nil {
		return "error: " + err.Error()
	}
	return d.budgetState()
}

// budgetState describes the retry budget: its configuration and balance.
func (d *driver) budgetState() string {
	c := d.budget.Config()
	return fmt.Sprintf("capacity %s; return rate %s; balance %s", num(c.Capacity), num(c.ReturnRate), num(d.budget.Balance()))
}

// mustBudget returns the current RetryBudget, failing if no budget command made one.
func (d *driver) mustBudget(a args) *ratelimiter.RetryBudget {
	a.t.Helper()
	if d.budget == nil {
		a.fatalf("no retry budget: start with a valid budget command")
	}
	return d.budget
}

// acquireToken: acquire-token [times=K] calls TryAcquireToken K times (default 1), as K
// overloaded attempts would, and prints how many got a token and the balance.
func (d *driver) acquireToken(a args) string {
	a.only("times")
	b := d.mustBudget(a)
	ok, refused := 0, 0
	for range a.count("times", 1, 1) {
		if b.TryAcquireToken() {
			ok++
		} else {
			refused++
		}
	}
	return fmt.Sprintf("TryAcquireToken: %d succeeded, %d refused; balance %s", ok, refused, num(b.Balance()))
}

// notOverloaded: not-overloaded [previous=overloaded|not-overloaded] [times=K] [each] calls
// RecordNotOverloaded K times (default 1) with whether the operation's previous attempt was
// overloaded (default not) and prints the balance after the last, or after every one with each.
func (d *driver) notOverloaded(a args) string {
	a.only("previous", "times", "each")
	b := d.mustBudget(a)
	var prev bool
	switch p := a.str("previous", "not-overloaded"); p {
	case "overloaded":
		prev = true
	case "not-overloaded":
	default:
		a.fatalf("previous=%q: want overloaded or not-overloaded", p)
	}
	return a.repeat("balance", func() { b.RecordNotOverloaded(prev) }, b.Balance)
}

// repeat runs step times=K times (default 1) and prints what (the value of value) after the
// last, or after every one with the bare word each.
func (a args) repeat(what string, step func(), value func() float64) string {
	times := a.count("times", 1, 1)
	var lines []string
	for i := 1; i <= times; i++ {
		step()
		if a.c.Has("each") {
			lines = append(lines, fmt.Sprintf("after %d: %s %s", i, what, num(value())))
		}
	}
	if !a.c.Has("each") {
		lines = append(lines, what+" "+num(value()))
	}
	return strings.Join(lines, "\n")
}

// setCapacity: set-capacity n=N calls SetCapacity and prints the budget after it, after the
// error if N is invalid.
func (d *driver) setCapacity(a args) string {
	a.only("n")
	b := d.mustBudget(a)
	var out string
	if err := b.SetCapacity(a.mustFloat("n")); err != nil {
		out = "error: " + err.Error() + "\n"
	}
	return out + d.budgetState()
}

// setReturnRate: set-return-rate n=X calls SetReturnRate and prints the budget after it, after
// the error if X is invalid.
func (d *driver) setReturnRate(a args) string {
	a.only("n")
	b := d.mustBudget(a)
	var out string
	if err := b.SetReturnRate(a.mustFloat("n")); err != nil {
		out = "error: " + err.Error() + "\n"
	}
	return out + d.budgetState()
}
