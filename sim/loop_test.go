package sim

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"testing/quick"
	"time"
)

// recorder is a Handler that appends the payload id of every event it handles.
type recorder struct {
	ids   []int
	times []Time
}

func (r *recorder) HandleEvent(now Time, kind int, _ any) {
	r.ids = append(r.ids, kind)
	r.times = append(r.times, now)
}

// naive is the reference scheduler of docs/conventions.md §12: it keeps every pending event in a slice and
// sorts the whole slice by (time, seq) before each step.
type naive struct {
	seq     uint64
	pending []naiveEvent
}

type naiveEvent struct {
	at  Time
	seq uint64
	id  int
}

func (n *naive) schedule(at Time, id int) {
	n.seq++
	n.pending = append(n.pending, naiveEvent{at, n.seq, id})
}

func (n *naive) cancel(id int) bool {
	for i, e := range n.pending {
		if e.id == id {
			n.pending = slices.Delete(n.pending, i, i+1)
			return true
		}
	}
	return false
}

func (n *naive) pop() (naiveEvent, bool) {
	if len(n.pending) == 0 {
		return naiveEvent{}, false
	}
	slices.SortFunc(n.pending, func(a, b naiveEvent) int {
		if a.at != b.at {
			if a.at < b.at {
				return -1
			}
			return 1
		}
		if a.seq < b.seq {
			return -1
		}
		return 1
	})
	e := n.pending[0]
	n.pending = n.pending[1:]
	return e, true
}

// spreads are the ranges event times are drawn from, ahead of now: a few nanoseconds, so that
// equal times are common; a few far buckets; and past the ring into the overflow.
var spreads = []int64{8, 8, 3 << farShift, 150 << farShift}

// checkAgainstNaive drives a Loop and the naive reference with the same random script of
// schedule, cancel and step operations and reports the first divergence. Each time is drawn from
// one of spreads, so that equal times are common and far buckets and the overflow are used.
func checkAgainstNaive(t *testing.T, seed uint64, ops int) bool {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 0))
	l := NewLoop()
	rec := &recorder{}
	ref := &naive{}
	timers := map[int]Timer{}
	nextID := 0
	for op := 0; op < ops; op++ {
		switch c := rng.IntN(10); {
		case c < 5: // schedule, often at the same time as others
			at := l.Now() + Time(rng.Int64N(spreads[rng.IntN(len(spreads))]))
			id := nextID
			nextID++
			timers[id] = l.At(at, rec, id, nil)
			ref.schedule(at, id)
		case c < 7 && nextID > 0: // cancel a random id: pending, fired or already cancelled
			id := rng.IntN(nextID)
			got := l.Cancel(timers[id])
			want := ref.cancel(id)
			if got != want {
				t.Errorf("seed %d op %d: Cancel(id %d) = %v, want %v", seed, op, id, got, want)
				return false
			}
		default:
			want, ok := ref.pop()
			if got := l.Step(); got != ok {
				t.Errorf("seed %d op %d: Step() = %v, want %v", seed, op, got, ok)
				return false
			}
			if !ok {
				continue
			}
			last := len(rec.ids) - 1
			if rec.ids[last] != want.id || rec.times[last] != want.at || l.Now() != want.at {
				t.Errorf("seed %d op %d: fired id %d at %v, want id %d at %v",
					seed, op, rec.ids[last], rec.times[last], want.id, want.at)
				return false
			}
		}
		if l.Len() != len(ref.pending) {
			t.Errorf("seed %d op %d: Len() = %d, want %d", seed, op, l.Len(), len(ref.pending))
			return false
		}
	}
	return true
}

// TestOrderingAgainstNaive checks the (time, seq) ordering rule (package doc, "Ordering
// guarantee") against a sort-everything reference on random schedule/cancel/step scripts.
func TestOrderingAgainstNaive(t *testing.T) {
	f := func(seed uint64) bool { return checkAgainstNaive(t, seed, 600) }
	if err := quick.Check(f, &quick.Config{MaxCount: 300, Rand: nil}); err != nil {
		t.Fatal(err)
	}
}

// FuzzOrdering is the same property as TestOrderingAgainstNaive under the coverage-guided fuzzer.
func FuzzOrdering(f *testing.F) {
	for _, s := range []uint64{0, 1, 42, 1 << 40} {
		f.Add(s, uint16(300))
	}
	f.Fuzz(func(t *testing.T, seed uint64, ops uint16) {
		checkAgainstNaive(t, seed, int(ops%2000))
	})
}

// TestEqualTimesRunInSchedulingOrder: events due at the same instant run in scheduling order,
// including events scheduled for "now" by a handler running at that instant.
func TestEqualTimesRunInSchedulingOrder(t *testing.T) {
	l := NewLoop()
	var got []int
	var h HandlerFunc
	h = func(now Time, kind int, _ any) {
		got = append(got, kind)
		if kind == 1 {
			l.At(now, h, 10, nil) // same instant, scheduled later than 2 and 3
		}
	}
	for k := 1; k <= 3; k++ {
		l.At(5, h, k, nil)
	}
	l.Run()
	if want := []int{1, 2, 3, 10}; !slices.Equal(got, want) {
		t.Fatalf("order = %v, want %v", got, want)
	}
}

// TestCancel covers the four cancellation cases the kernel must get right.
func TestCancel(t *testing.T) {
	setup := func() (*Loop, *recorder, []Timer) {
		l := NewLoop()
		rec := &recorder{}
		var ts []Timer
		for i := 0; i < 5; i++ {
			ts = append(ts, l.At(Time(10*(i+1)), rec, i, nil))
		}
		return l, rec, ts
	}
	tests := []struct {
		name      string
		act       func(l *Loop, ts []Timer) bool // returns the Cancel result under test
		wantOK    bool
		wantFired []int
	}{
		{"head: the earliest pending event", func(l *Loop, ts []Timer) bool { return l.Cancel(ts[0]) },
			true, []int{1, 2, 3, 4}},
		{"tail: the latest pending event", func(l *Loop, ts []Timer) bool { return l.Cancel(ts[4]) },
			true, []int{0, 1, 2, 3}},
		{"already fired: no effect, returns false", func(l *Loop, ts []Timer) bool {
			l.Step()
			return l.Cancel(ts[0])
		}, false, []int{0, 1, 2, 3, 4}},
		{"already cancelled: second cancel returns false", func(l *Loop, ts []Timer) bool {
			l.Cancel(ts[2])
			return l.Cancel(ts[2])
		}, false, []int{0, 1, 3, 4}},
		{"zero Timer: no-op", func(l *Loop, ts []Timer) bool { return l.Cancel(Timer{}) },
			false, []int{0, 1, 2, 3, 4}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, rec, ts := setup()
			if got := tc.act(l, ts); got != tc.wantOK {
				t.Errorf("Cancel = %v, want %v", got, tc.wantOK)
			}
			l.Run()
			if !slices.Equal(rec.ids, tc.wantFired) {
				t.Errorf("fired %v, want %v", rec.ids, tc.wantFired)
			}
		})
	}
}

// TestStaleTimerAfterReuse: a Timer whose record was recycled for a new event must not cancel
// the new event (the generation count tells them apart).
func TestStaleTimerAfterReuse(t *testing.T) {
	l := NewLoop()
	rec := &recorder{}
	old := l.At(1, rec, 1, nil)
	l.Run()
	fresh := l.At(5, rec, 2, nil) // reuses the freed record
	if l.Cancel(old) {
		t.Fatal("Cancel(stale timer) = true, want false")
	}
	if !l.Pending(fresh) {
		t.Fatal("the new event was affected by a stale timer")
	}
	l.Run()
	if !slices.Equal(rec.ids, []int{1, 2}) {
		t.Fatalf("fired %v, want [1 2]", rec.ids)
	}
}

// TestCompaction: cancelling most events (as timeouts usually are) compacts the heap, and the
// survivors still fire in order.
func TestCompaction(t *testing.T) {
	l := NewLoop()
	rec := &recorder{}
	var ts []Timer
	for i := 0; i < 1000; i++ {
		ts = append(ts, l.At(Time(1000-i), rec, i, nil))
	}
	for i := 0; i < 1000; i++ {
		if i%10 != 0 {
			l.Cancel(ts[i])
		}
	}
	if l.Len() != 100 {
		t.Fatalf("Len() = %d, want 100", l.Len())
	}
	if len(l.heap) > 2*100+compactMin {
		t.Fatalf("heap holds %d entries for 100 live events: not compacted", len(l.heap))
	}
	l.Run()
	if len(rec.ids) != 100 || !slices.IsSortedFunc(rec.times, func(a, b Time) int { return int(a - b) }) {
		t.Fatalf("fired %d events, times sorted=%v", len(rec.ids), slices.IsSorted(rec.times))
	}
}

// TestFarEvents: events spread over five minutes, scheduled in random order and mostly
// cancelled (as periodic timeouts are), wait in far buckets and the overflow, which are
// compacted too, and the survivors fire in (time, seq) order, across empty stretches of time.
func TestFarEvents(t *testing.T) {
	l := NewLoop()
	rec := &recorder{}
	rng := rand.New(rand.NewPCG(3, 4))
	var ts []Timer
	var want []Time
	for i := 0; i < 5000; i++ {
		at := Time(rng.Int64N(int64(5 * time.Minute)))
		ts = append(ts, l.At(at, rec, i, nil))
		if i%10 == 0 {
			want = append(want, at)
		}
	}
	if len(l.heap) > 100 {
		t.Errorf("%d of 5000 events in the heap, want only those of the first bucket", len(l.heap))
	}
	for i := range ts {
		if i%10 != 0 {
			l.Cancel(ts[i])
		}
	}
	if l.Len() != 500 {
		t.Fatalf("Len() = %d, want 500", l.Len())
	}
	if far := l.ringN + len(l.over); far > 2*500+compactMin {
		t.Errorf("far buckets hold %d entries for 500 live events: not compacted", far)
	}
	l.Run()
	slices.Sort(want)
	if len(rec.times) != len(want) || !slices.Equal(rec.times, want) {
		t.Fatalf("fired %d events; times in order: %v", len(rec.times), slices.Equal(rec.times, want))
	}
	for i, id := range rec.ids {
		if id%10 != 0 {
			t.Fatalf("event %d fired: it was cancelled", id)
		}
		if i > 0 && rec.times[i] == rec.times[i-1] && id < rec.ids[i-1] {
			t.Fatalf("events %d and %d at the same time fired out of scheduling order", rec.ids[i-1], id)
		}
	}
	if l.Len() != 0 || l.Step() {
		t.Errorf("after Run: Len() = %d, want 0 and nothing to step", l.Len())
	}
}

func TestSchedulePastPanics(t *testing.T) {
	l := NewLoop()
	rec := &recorder{}
	l.At(100, rec, 0, nil)
	l.Run()
	defer func() {
		msg, _ := recover().(string)
		if !strings.Contains(msg, "50ns") || !strings.Contains(msg, "100ns") {
			t.Fatalf("panic message %q does not name both times", msg)
		}
	}()
	l.At(50, rec, 0, nil)
}

func TestNegativeAfterPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("After(-1ns) did not panic")
		}
	}()
	NewLoop().After(-1, &recorder{}, 0, nil)
}

// TestWideKindPanics: a record keeps 32 bits of an event's kind, so a kind beyond them is a bug
// in the model, refused when scheduled rather than delivered truncated.
func TestWideKindPanics(t *testing.T) {
	defer func() {
		if msg, _ := recover().(string); !strings.Contains(msg, "4294967296") {
			t.Fatalf("panic message %q does not name the kind", msg)
		}
	}()
	NewLoop().At(0, &recorder{}, 1<<32, nil)
}

// TestRunUntilAndStop: RunUntil runs events due at or before the horizon and leaves the clock
// there; Stop returns control after the current event and keeps the rest pending.
func TestRunUntilAndStop(t *testing.T) {
	l := NewLoop()
	rec := &recorder{}
	for i := 1; i <= 5; i++ {
		l.At(Time(i)*Time(time.Second), rec, i, nil)
	}
	if n := l.RunUntil(Time(3 * time.Second)); n != 3 {
		t.Fatalf("RunUntil(3s) handled %d events, want 3", n)
	}
	if l.Now() != Time(3*time.Second) {
		t.Fatalf("Now() = %v after RunUntil(3s)", l.Now())
	}
	if n := l.RunUntil(Time(3500 * time.Millisecond)); n != 0 || l.Now() != Time(3500*time.Millisecond) {
		t.Fatalf("RunUntil(3.5s) handled %d, now %v; want 0, 3.5s", n, l.Now())
	}
	stopper := HandlerFunc(func(Time, int, any) { l.Stop() })
	l.At(Time(4*time.Second), stopper, 0, nil) // scheduled after event 4: runs after it
	if n := l.Run(); n != 2 {
		t.Fatalf("Run with Stop handled %d events, want 2 (event 4, then the stopper)", n)
	}
	if l.Len() != 1 {
		t.Fatalf("Len() = %d after Stop, want 1", l.Len())
	}
	l.Run()
	if !slices.Equal(rec.ids, []int{1, 2, 3, 4, 5}) {
		t.Fatalf("fired %v", rec.ids)
	}
}

// TestSteadyStateAllocatesNothing: the hold model (each event schedules one more) allocates
// nothing once the pools are warm (package doc, "Allocation").
func TestSteadyStateAllocatesNothing(t *testing.T) {
	l := NewLoop()
	rng := rand.New(rand.NewPCG(1, 2))
	var h HandlerFunc
	h = func(now Time, kind int, arg any) {
		l.At(now+Time(1+rng.IntN(1000)), h, kind, arg)
	}
	payload := &recorder{}
	for i := 0; i < 1000; i++ {
		l.At(Time(i), h, i, payload)
	}
	for i := 0; i < 10000; i++ {
		l.Step()
	}
	if a := testing.AllocsPerRun(10000, func() { l.Step() }); a != 0 {
		t.Fatalf("allocs per event = %v, want 0", a)
	}
	// Cancel-heavy steady state: every event schedules a timeout and cancels the previous one.
	var prev Timer
	var ht HandlerFunc
	ht = func(now Time, kind int, arg any) {
		l.Cancel(prev)
		prev = l.At(now+Time(30*time.Second), ht, kind, arg)
		l.At(now+Time(1+rng.IntN(1000)), h, kind, arg)
	}
	for i := 0; i < 10000; i++ {
		l.At(l.Now(), ht, 0, nil)
		l.Step()
	}
	if a := testing.AllocsPerRun(10000, func() { l.At(l.Now(), ht, 0, nil); l.Step() }); a != 0 {
		t.Fatalf("allocs per event with cancellations = %v, want 0", a)
	}
}

func TestTimeArithmetic(t *testing.T) {
	if got := Time(5).Add(time.Duration(1 << 62)).Add(time.Duration(1 << 62)); got != Never {
		t.Errorf("Add overflow = %v, want Never", got)
	}
	if got := FromSeconds(1.5); got != Time(1500*time.Millisecond) {
		t.Errorf("FromSeconds(1.5) = %d", got)
	}
	if got := Time(2 * time.Second).Sub(Time(500 * time.Millisecond)); got != 1500*time.Millisecond {
		t.Errorf("Sub = %v", got)
	}
	if Never.String() != "never" || Time(1500*time.Millisecond).String() != "1.5s" {
		t.Errorf("String: %q %q", Never, Time(1500*time.Millisecond))
	}
}

// TestCancelFarFreesAtOnce: a cancelled event in a far bucket leaves it at once and its record
// is reused by the next event scheduled, so a model that sets a 30 s timeout per round trip and
// cancels it a moment later holds records for its live events only; one in the overflow stays
// until compaction. The survivors still fire in (time, seq) order.
func TestCancelFarFreesAtOnce(t *testing.T) {
	l := NewLoop()
	rec := &recorder{}
	const n = 1000
	var live []Time
	for round := 0; round < 5; round++ {
		var ts []Timer
		for i := 0; i < n; i++ {
			at := Time(30*time.Second) + Time(round*n+i)
			ts = append(ts, l.At(at, rec, round*n+i, nil))
		}
		for i, tm := range ts {
			if i%100 == 0 {
				live = append(live, Time(30*time.Second)+Time(round*n+i))
				continue
			}
			if !l.Cancel(tm) {
				t.Fatalf("round %d: Cancel(%d) = false for a pending event", round, i)
			}
		}
	}
	if got, want := l.ringN, len(live); got != want {
		t.Errorf("ring holds %d entries, want the %d live ones", got, want)
	}
	if len(l.recs) > n+len(live) {
		t.Errorf("%d records for %d live events: cancelled far events kept theirs", len(l.recs), len(live))
	}
	beyond := l.At(Time(10*time.Minute), rec, -1, nil) // past the ring: the overflow
	l.Cancel(beyond)
	if l.Len() != len(live) {
		t.Fatalf("Len() = %d, want %d", l.Len(), len(live))
	}
	l.Run()
	if !slices.Equal(rec.times, live) {
		t.Fatalf("fired at %v, want %v", rec.times, live)
	}
}

// TestEventsAtNow: an event scheduled for the current instant runs after every event already
// due at that instant (scheduled earlier, so with a smaller seq), and those scheduled for the
// current instant run in the order they were scheduled — the (time, seq) rule of the package doc,
// kept by the queue of events due now that bypasses the heap. A cancelled one does not run.
func TestEventsAtNow(t *testing.T) {
	l := NewLoop()
	rec := &recorder{}
	var cancelMe Timer
	chain := HandlerFunc(func(now Time, kind int, _ any) {
		rec.HandleEvent(now, kind, nil)
		if kind == 1 { // at t=10: three events for now, one of them cancelled
			l.At(now, rec, 4, nil)
			cancelMe = l.At(now, rec, 99, nil)
			l.At(now, rec, 5, nil)
			l.Cancel(cancelMe)
			if got := l.Len(); got != 5 { // 2, 3 (in the heap, due now), 4, 5 and 6
				t.Errorf("Len() = %d at t=10, want 5", got)
			}
		}
	})
	l.At(10, chain, 1, nil)
	l.At(10, rec, 2, nil)
	l.At(10, rec, 3, nil)
	l.At(11, rec, 6, nil)
	l.Run()
	if want := []int{1, 2, 3, 4, 5, 6}; !slices.Equal(rec.ids, want) {
		t.Fatalf("ran %v, want %v", rec.ids, want)
	}
	// After RunUntil leaves the clock at a horizon with nothing due, an event for Now runs first.
	l.At(100, rec, 8, nil)
	l.RunUntil(50)
	l.At(50, rec, 7, nil)
	l.Run()
	if want := []int{1, 2, 3, 4, 5, 6, 7, 8}; !slices.Equal(rec.ids, want) {
		t.Fatalf("ran %v, want %v", rec.ids, want)
	}
}

// TestRingArraysFollowBucketSizes: a model with one large far bucket now and then (10 000
// heartbeats due in the same second every 10 s) among small ones (a few timeouts a second) keeps
// about two large arrays in its ring and spares — the bucket filling and the one just emptied —
// rather than letting the large arrays pass to small buckets until every slot holds one.
func TestRingArraysFollowBucketSizes(t *testing.T) {
	l := NewLoop()
	const beats = 10000
	var h HandlerFunc
	h = func(now Time, kind int, _ any) {
		switch kind {
		case 1: // a heartbeat: the next in 10 s
			l.At(now.Add(10*time.Second), h, 1, nil)
		case 2: // a tick: a few far timeouts, and the next tick in 250 ms
			for i := 0; i < 3; i++ {
				l.At(now.Add(time.Duration(5+i)*time.Second), h, 3, nil)
			}
			l.At(now.Add(250*time.Millisecond), h, 2, nil)
		}
	}
	for i := 0; i < beats; i++ {
		l.At(Time(i), h, 1, nil)
	}
	l.At(0, h, 2, nil)
	l.RunUntil(Time(10 * time.Minute))
	total := 0
	for _, b := range l.ring {
		total += cap(b)
	}
	for _, s := range l.spare[:l.spareN] {
		total += cap(s)
	}
	if limit := 2*2*beats + 64*64; total > limit {
		t.Errorf("ring and spares hold %d entries of capacity for buckets of %d and of ~12: want ≤ %d", total, beats, limit)
	}
}
