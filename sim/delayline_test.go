package sim

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// fired is a log of the events handled: when, by whom.
type fired struct {
	at Time
	id int
}

// logHandler appends (now, id) to log when it fires.
type logHandler struct {
	id  int
	log *[]fired
}

func (h *logHandler) HandleEvent(now Time, kind int, _ any) {
	*h.log = append(*h.log, fired{now, h.id})
}

// TestDelayLineMatchesLoopTimers sets the same random sequence of fixed-delay events (and
// cancellations) on a line and as plain loop timers, and checks that both fire the same events
// at the same times in the same order: the rule a line keeps is that events set with one delay
// on a clock that never goes back come due in the order they were set.
func TestDelayLineMatchesLoopTimers(t *testing.T) {
	// The driver acts at multiples of 2 ms and the events come due 10.001 ms after it set them,
	// so no event comes due at an instant where the driver acts: how a batch interleaves with
	// other events of its instant is where a line may differ from plain timers (see DelayLine).
	const delay = 10*time.Millisecond + time.Microsecond
	for seed := uint64(1); seed <= 20; seed++ {
		run := func(useLine bool) []fired {
			l := NewLoop()
			r := rand.New(rand.NewPCG(seed, 0))
			var log []fired
			line := NewDelayLine(l, delay, 7)
			var lineTimers []LineTimer
			var loopTimers []Timer
			var driver HandlerFunc
			id := 0
			driver = func(now Time, _ int, _ any) {
				for range r.IntN(4) { // set a few
					h := &logHandler{id: id, log: &log}
					id++
					if useLine {
						lineTimers = append(lineTimers, line.Set(h))
					} else {
						loopTimers = append(loopTimers, l.After(delay, h, 7, nil))
					}
				}
				if r.IntN(3) == 0 && id > 0 { // cancel one, perhaps one already fired
					k := r.IntN(id)
					if useLine {
						lineTimers[k].Cancel()
					} else {
						l.Cancel(loopTimers[k])
					}
				}
				if now < Time(time.Second) {
					// Sometimes at the same instant as a batch coming due, sometimes between.
					l.After(time.Duration(r.IntN(4))*2*time.Millisecond, driver, 0, nil)
				}
			}
			l.At(0, driver, 0, nil)
			l.Run()
			return log
		}
		viaLine, viaLoop := run(true), run(false)
		if len(viaLoop) == 0 {
			t.Fatalf("seed %d: nothing fired", seed)
		}
		if !slices.Equal(viaLine, viaLoop) {
			t.Fatalf("seed %d: the line fired\n%v\nplain timers fired\n%v", seed, viaLine, viaLoop)
		}
	}
}

// TestDelayLineBatchIsOneEvent: 1000 events set at one instant come due together and run inside
// one loop event, in the order they were set, with the line's kind.
func TestDelayLineBatchIsOneEvent(t *testing.T) {
	l := NewLoop()
	var log []fired
	kinds := map[int]bool{}
	line := NewDelayLine(l, time.Second, 3)
	for i := range 1000 {
		line.Set(HandlerFunc(func(now Time, kind int, _ any) {
			log = append(log, fired{now, i})
			kinds[kind] = true
		}))
	}
	if got := line.Len(); got != 1000 {
		t.Fatalf("Len = %d, want 1000", got)
	}
	if n := l.Run(); n != 1 {
		t.Fatalf("%d loop events, want 1", n)
	}
	for i, f := range log {
		if f != (fired{Time(time.Second), i}) {
			t.Fatalf("log[%d] = %v, want {1s %d}", i, f, i)
		}
	}
	if len(kinds) != 1 || !kinds[3] {
		t.Fatalf("kinds %v, want only 3", kinds)
	}
	if line.Len() != 0 {
		t.Fatalf("Len = %d after firing, want 0", line.Len())
	}
}

func TestDelayLineCancel(t *testing.T) {
	l := NewLoop()
	var log []fired
	line := NewDelayLine(l, time.Second, 0)
	a := line.Set(&logHandler{1, &log})
	b := line.Set(&logHandler{2, &log})
	switch {
	case !a.Pending() || !b.Pending():
		t.Fatal("a timer just set is not pending")
	case !a.Cancel():
		t.Fatal("Cancel of a waiting event returned false")
	case a.Cancel():
		t.Fatal("a second Cancel returned true")
	case a.Pending():
		t.Fatal("a cancelled event is pending")
	case (LineTimer{}).Cancel() || (LineTimer{}).Pending():
		t.Fatal("the zero LineTimer names an event")
	case line.Len() != 1:
		t.Fatalf("Len = %d, want 1", line.Len())
	}
	l.Run()
	if !slices.Equal(log, []fired{{Time(time.Second), 2}}) {
		t.Fatalf("fired %v, want only 2 at 1s", log)
	}
	if b.Pending() || b.Cancel() {
		t.Fatal("an event that fired is still pending")
	}
}

// TestDelayLineAllCancelled: a line whose every entry was cancelled fires nothing, and a new
// entry set afterwards fires at its own time.
func TestDelayLineAllCancelled(t *testing.T) {
	l := NewLoop()
	var log []fired
	line := NewDelayLine(l, time.Second, 0)
	line.Set(&logHandler{1, &log}).Cancel()
	l.RunUntil(Time(1500 * time.Millisecond))
	line.Set(&logHandler{2, &log})
	l.Run()
	if !slices.Equal(log, []fired{{Time(2500 * time.Millisecond), 2}}) {
		t.Fatalf("fired %v, want only 2 at 2.5s", log)
	}
}

// beater re-sets itself on its line each time it fires, as a heartbeat does.
type beater struct {
	line *DelayLine
	n    int
}

func (b *beater) HandleEvent(Time, int, any) {
	b.n++
	b.line.Set(b)
}

// TestDelayLineSteadyState: a line of 10 000 heartbeats keeps its array at the number waiting
// (the front is reused), and allocates nothing once running.
func TestDelayLineSteadyState(t *testing.T) {
	l := NewLoop()
	line := NewDelayLine(l, time.Second, 0)
	bs := make([]*beater, 10000)
	for i := range bs {
		bs[i] = &beater{line: line}
		l.After(time.Duration(i)*time.Microsecond, HandlerFunc(func(Time, int, any) { line.Set(bs[i]) }), 0, nil)
	}
	l.RunUntil(Time(10 * time.Second))
	if c := cap(line.q); c > 4*len(bs) {
		t.Fatalf("the line's array holds %d entries for %d waiting", c, len(bs))
	}
	allocs := testing.AllocsPerRun(5, func() { l.RunUntil(l.Now() + Time(time.Second)) })
	if allocs != 0 {
		t.Fatalf("%v allocations per simulated second, want 0", allocs)
	}
	for i, b := range bs {
		if b.n < 10 {
			t.Fatalf("beater %d fired %d times in 15 s, want at least 10", i, b.n)
		}
	}
}

func TestDelayLineNonPositiveDelayPanics(t *testing.T) {
	for _, d := range []time.Duration{0, -time.Second} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("NewDelayLine(%v) did not panic", d)
				}
			}()
			NewDelayLine(NewLoop(), d, 0)
		}()
	}
}
