package sim

import (
	"fmt"
	"time"
)

// DelayLine is a queue of events that all come due the same fixed delay after they were set: a
// heartbeat every heartbeatFrequencyMS, a timeout of connectTimeoutMS set at every check. Set at
// a clock that never goes back, such events come due in the order they were set, so the line
// keeps them in a plain first-in first-out queue and has one event of its own on the loop, for
// its earliest: setting one is an append, cancelling one is O(1), and a fleet of 100 000 clients'
// monitors, all due at the same instant, is one loop event rather than 100 000 records in the
// loop's queue.
//
// Order. Events of one line run in the order they were set, the same instants' inside one loop
// event. Against the loop's other events they run where the line's own event stands: it is
// scheduled when the earliest live entry comes to the head of the line (when the line had none
// in waiting, at the Set that adds it; otherwise when the line fires), so the whole batch due at
// an instant runs at one point of that instant's (time, seq) order rather than each entry at its
// own. That is the one way a line differs from scheduling each event on the loop, and it is still
// deterministic: the same model makes the same calls in the same order on every machine.
//
// A cancelled entry stays in the line until its time, 24 bytes, and is skipped then; the loop
// event that was to fire it may still fire (and count in [Loop.Fired]) to find nothing to do.
// The zero DelayLine is not usable; call NewDelayLine.
type DelayLine struct {
	loop  *Loop
	delay time.Duration
	kind  int
	fire  Handler // the line's own loop event: one func value, made once
	q     []lineEntry
	head  int    // q[head:] are waiting; q[:head] have fired or were dropped
	base  uint64 // the serial number of q[0]
	live  int    // waiting entries not cancelled
	armed Timer  // the line's loop event, zero when none is scheduled
}

// lineEntry is one event set on a line: its handler, nil once cancelled or fired.
type lineEntry struct {
	at Time
	h  Handler
}

// compactLine is the number of spent entries at the front of a line's array above which the
// line moves its waiting entries down, when they are fewer than the spent ones: each entry is
// moved at most once per time the line's length doubles.
const compactLine = 1024

// LineTimer identifies one event set on a DelayLine, so that it can be cancelled. The zero
// LineTimer identifies nothing; cancelling it is a no-op.
type LineTimer struct {
	d *DelayLine
	n uint64 // the entry's serial number + 1
}

// NewDelayLine returns an empty line on loop whose events come due delay after they are set and
// are handled as h.HandleEvent(at, kind, nil). The delay must be positive: an event due at once
// would come due while the line is firing.
func NewDelayLine(loop *Loop, delay time.Duration, kind int) *DelayLine {
	if delay <= 0 {
		panic(fmt.Sprintf("sim: a delay line of %v: the delay must be positive", delay))
	}
	d := &DelayLine{loop: loop, delay: delay, kind: kind}
	d.fire = HandlerFunc(d.handle)
	return d
}

// Delay returns the line's delay.
func (d *DelayLine) Delay() time.Duration { return d.delay }

// Len returns the number of events waiting on the line (set, not fired nor cancelled).
func (d *DelayLine) Len() int { return d.live }

// Set schedules an event for h at Now()+Delay() and returns a LineTimer that can cancel it.
func (d *DelayLine) Set(h Handler) LineTimer {
	if h == nil {
		panic("sim: event set on a delay line with a nil Handler")
	}
	n := d.base + uint64(len(d.q))
	d.q = append(d.q, lineEntry{at: d.loop.now.Add(d.delay), h: h})
	d.live++
	if d.armed == (Timer{}) {
		d.arm()
	}
	return LineTimer{d: d, n: n + 1}
}

// entry returns t's entry while it waits on its line, nil once it fired, was cancelled or was
// dropped.
func (t LineTimer) entry() *lineEntry {
	d := t.d
	if d == nil || t.n-1 < d.base+uint64(d.head) || t.n-1 >= d.base+uint64(len(d.q)) {
		return nil
	}
	e := &d.q[t.n-1-d.base]
	if e.h == nil {
		return nil
	}
	return e
}

// Cancel cancels the event t identifies, and reports whether it was waiting. O(1).
func (t LineTimer) Cancel() bool {
	e := t.entry()
	if e == nil {
		return false
	}
	e.h = nil
	t.d.live--
	return true
}

// Pending reports whether the event t identifies is still waiting.
func (t LineTimer) Pending() bool { return t.entry() != nil }

// handle is the line's loop event: it runs every entry due by now, in the order they were set,
// then schedules itself for the next.
func (d *DelayLine) handle(now Time, _ int, _ any) {
	// d.armed still names this event while the entries run, so that Set, which arms the line
	// when nothing is armed, leaves that to the end here.
	for d.head < len(d.q) && d.q[d.head].at <= now {
		e := &d.q[d.head]
		h := e.h
		e.h = nil
		d.head++
		if h != nil {
			d.live--
			// The handler may set entries (appended after every one due now: the delay is
			// positive) and cancel others; q may move, so nothing here holds on to e.
			h.HandleEvent(now, d.kind, nil)
		}
	}
	d.armed = Timer{}
	d.arm()
}

// arm drops the cancelled entries at the head of the line and schedules the line's loop event for
// the first live one, if any. The line has no loop event scheduled when it is called.
func (d *DelayLine) arm() {
	for d.head < len(d.q) && d.q[d.head].h == nil {
		d.head++
	}
	switch {
	case d.head == len(d.q):
		clear(d.q) // the spent entries hold no handlers, but the array is reused from its start
		d.base += uint64(len(d.q))
		d.q, d.head = d.q[:0], 0
		return
	case d.head > compactLine && d.head > len(d.q)-d.head:
		n := copy(d.q, d.q[d.head:])
		clear(d.q[n:])
		d.base += uint64(d.head)
		d.q, d.head = d.q[:n], 0
	}
	d.armed = d.loop.At(d.q[d.head].at, d.fire, 0, nil)
}
