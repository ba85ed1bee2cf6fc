package sim

import (
	"fmt"
	"time"
)

// Handler receives the events scheduled for it. kind says which action to take (a component
// usually declares its own small enum) and arg is the payload given at scheduling time.
//
// To keep the loop allocation-free, pass a pointer (or nil) as arg: a pointer stored in an
// interface does not allocate, most other values do.
type Handler interface {
	HandleEvent(now Time, kind int, arg any)
}

// HandlerFunc adapts a function to Handler. Create the value once (e.g. in a constructor) and
// reuse it: a func value stored in an interface does not allocate, but a fresh closure per event
// would.
type HandlerFunc func(now Time, kind int, arg any)

// HandleEvent calls f(now, kind, arg).
func (f HandlerFunc) HandleEvent(now Time, kind int, arg any) { f(now, kind, arg) }

// Timer identifies one scheduled event so that it can be cancelled. The zero Timer identifies
// nothing; cancelling it is a no-op. A Timer stays safe to use after its event fired or was
// cancelled: the record it pointed to may be reused, but a generation count tells them apart.
type Timer struct {
	slot int32 // record index + 1, so that the zero Timer is invalid
	gen  uint32
}

// record is a pooled event record; entries in the heap point at it by index.
type record struct {
	h    Handler // nil once fired or cancelled: a record is live iff h != nil
	arg  any
	kind int32
	gen  uint32
	// where says which queue holds the entry. In the ring it is ring[ring][pos], so that
	// cancelling it removes it at once: a cancelled timeout (30 s ahead, cancelled a round trip
	// after it was set) frees its record then rather than when its bucket comes due.
	where place
	ring  uint8
	pos   int32
}

// place is where a record's entry waits.
type place uint8

const (
	inHeap place = iota // the heap: due before the ring's first bucket
	inNow               // nowQ: due at the current instant
	inRing              // a far bucket of the ring
	inOver              // the overflow, beyond the ring
)

// entry is one heap element. The ordering key is stored inline so that sifting never touches the
// record table.
type entry struct {
	at   Time
	seq  uint64
	slot int32
}

func (a *entry) less(b *entry) bool {
	return a.at < b.at || (a.at == b.at && a.seq < b.seq)
}

// arity is the heap's branching factor, chosen by measurement (BenchmarkHeapArity in
// bench_test.go, hold model, median of 5 on a 2-core amd64 machine): binary and 4-ary heaps tie
// at 10² and 10⁴ pending events (54.7 vs 54.6 ns, 107.9 vs 109.9 ns), the 4-ary heap is about
// 9 % faster at 10⁶ (383 vs 420 ns: half as many levels to sift through, and a node's four
// children share a cache line), and an 8-ary heap is slowest at every size. A calendar queue
// was not chosen: its speed depends on the spread of event times, which in an overload model
// swings from sub-millisecond service times to 30-second timeouts within one run.
const arity = 4

// compactMin is the heap size below which dead (cancelled) entries are never compacted away:
// popping them is cheaper than rebuilding.
const compactMin = 64

// Far events. Only events due before the loop's limit (the end of the current bucket of 2^farShift
// ns, about 1.07 s) are in the heap; later ones wait unsorted in a ring of farRing buckets, one
// per 1.07 s, or, beyond the ring (about 68 s ahead), in an overflow heap. When the heap runs dry,
// the next bucket moves into it whole. A model with many periodic timers (a heartbeat per
// monitor every 10 s, a 30 s timeout per check) thus keeps its heap at the size of the next
// second's events rather than of every timer pending: the heap stays in cache, and a far timer
// costs an append to schedule. The firing order is unchanged: every event in the heap is due
// before every far one, and the heap orders by (at, seq) as before.
const (
	farShift = 30
	farRing  = 64
	// maxSpare is how many emptied bucket arrays wait for reuse. A steady model empties one
	// bucket and starts another about every 1.07 s, so a few suffice for scheduling to allocate
	// nothing, while keeping an array for every slot would hold the largest bucket's size 64
	// times over.
	maxSpare = 4
)

// Loop is a discrete-event loop: it owns the virtual clock and the queue of pending events.
// The zero value is not usable; call NewLoop.
//
// A Loop is not safe for concurrent use. Parallelism belongs across runs, each with its own Loop.
type Loop struct {
	now  Time
	seq  uint64
	heap []entry
	recs []record
	free []int32
	dead int // cancelled entries still in the heap
	// Far events: bucket b (events due in [b<<farShift, (b+1)<<farShift)) for next ≤ b <
	// next+farRing is ring[b%farRing]; later buckets are in over, a heap. Everything in the heap
	// is due before next<<farShift.
	next     int64
	ring     [farRing][]entry
	ringN    int
	spare    [maxSpare][]entry // emptied bucket arrays, for buckets that start or outgrow theirs
	spareN   int
	over     []entry
	overDead int // cancelled entries in the overflow
	// Events due at the current instant (scheduled for Now, from a handler running now: a
	// zero-delay hop, a check run at once) skip the heap and wait in nowQ, first in first out
	// from nowHead, which is their (at, seq) order: they share at, and their seq grows. An event
	// in the heap due at the same instant was scheduled before the clock got there, so its seq
	// is smaller and it runs first. Time never moves on with nowQ non-empty.
	nowQ    []entry
	nowHead int
	nowDead int // cancelled entries in nowQ
	fired   uint64
	stopped bool
	streams streamList // the streams handed out by NewStream, for Branch
}

// NewLoop returns an empty loop at time 0.
func NewLoop() *Loop { return &Loop{next: 1} }

// Now returns the current virtual time: the time of the event being handled, or where the last
// Run call left the clock.
func (l *Loop) Now() Time { return l.now }

// Len returns the number of pending (scheduled, not cancelled) events.
func (l *Loop) Len() int {
	return len(l.heap) - l.dead + l.ringN + len(l.over) - l.overDead + len(l.nowQ) - l.nowHead - l.nowDead
}

// Fired returns the number of events handled so far.
func (l *Loop) Fired() uint64 { return l.fired }

// At schedules an event for h at the absolute time at, and returns a Timer that can cancel it.
// It panics if at is before Now: an event in the past is a bug in the model.
func (l *Loop) At(at Time, h Handler, kind int, arg any) Timer {
	if at < l.now {
		panic(fmt.Sprintf("sim: event scheduled at %v, before now %v", at, l.now))
	}
	if h == nil {
		panic("sim: event scheduled with a nil Handler")
	}
	if int(int32(kind)) != kind { // kinds are small enums; a record keeps 32 bits of one
		panic(fmt.Sprintf("sim: event kind %d does not fit in 32 bits", kind))
	}
	var slot int32
	if n := len(l.free); n > 0 {
		slot = l.free[n-1]
		l.free = l.free[:n-1]
	} else {
		slot = int32(len(l.recs))
		l.recs = append(l.recs, record{})
	}
	r := &l.recs[slot]
	r.h, r.arg, r.kind = h, arg, int32(kind)
	l.seq++
	e := entry{at: at, seq: tieKey(l.seq), slot: slot}
	if at == l.now && !shuffleTies {
		r.where = inNow
		l.nowQ = append(l.nowQ, e)
	} else if b := int64(at) >> farShift; b >= l.next {
		l.placeFar(b, e)
	} else {
		r.where = inHeap
		l.heap = append(l.heap, e)
		l.siftUp(len(l.heap) - 1)
	}
	return Timer{slot: slot + 1, gen: r.gen}
}

// placeFar files e, due in far bucket b, in the ring or, beyond it, in the overflow.
func (l *Loop) placeFar(b int64, e entry) {
	if b < l.next+farRing {
		l.toRing(b, e)
		return
	}
	l.recs[e.slot].where = inOver
	l.over = append(l.over, e)
	siftUpIn(l.over, len(l.over)-1)
}

// After schedules an event for h at Now()+d. A negative d panics, as At does for the past.
func (l *Loop) After(d time.Duration, h Handler, kind int, arg any) Timer {
	if d < 0 {
		panic(fmt.Sprintf("sim: event scheduled after a negative delay %v at now %v", d, l.now))
	}
	return l.At(l.now.Add(d), h, kind, arg)
}

// Cancel cancels the event t identifies. It reports whether the event was pending; cancelling
// an event that already fired, was already cancelled, or the zero Timer returns false. O(1).
func (l *Loop) Cancel(t Timer) bool {
	r := l.record(t)
	if r == nil {
		return false
	}
	r.h, r.arg = nil, nil
	switch r.where {
	case inNow:
		l.nowDead++
	case inRing:
		// Swap-remove: a bucket is unsorted, and the heap orders it by (at, seq) when it comes
		// due, so the firing order does not depend on where an entry sits in it.
		b := l.ring[r.ring]
		n := len(b) - 1
		if int(r.pos) != n {
			b[r.pos] = b[n]
			l.recs[b[r.pos].slot].pos = r.pos
		}
		b[n] = entry{}
		l.ring[r.ring] = b[:n]
		l.ringN--
		l.release(int32(t.slot - 1))
	case inOver:
		l.overDead++
		if l.overDead > compactMin && l.overDead > len(l.over)/2 {
			l.compactFar()
		}
	case inHeap:
		l.dead++
		if l.dead > compactMin && l.dead > len(l.heap)/2 {
			l.compact()
		}
	}
	return true
}

// Pending reports whether the event t identifies is still scheduled.
func (l *Loop) Pending(t Timer) bool { return l.record(t) != nil }

func (l *Loop) record(t Timer) *record {
	i := int(t.slot) - 1
	if i < 0 || i >= len(l.recs) {
		return nil
	}
	r := &l.recs[i]
	if r.gen != t.gen || r.h == nil {
		return nil
	}
	return r
}

// Stop makes the current Run call return after the event being handled. Events still pending
// stay scheduled; a later Run call continues from there.
func (l *Loop) Stop() { l.stopped = true }

// Step handles the next pending event, advancing the clock to its time. It reports whether there
// was one.
func (l *Loop) Step() bool {
	if _, ok := l.peek(); !ok {
		return false
	}
	var e entry // live: peek dropped the dead ones
	if l.nowHead < len(l.nowQ) && (len(l.heap) == 0 || l.heap[0].at != l.now) {
		e = l.popNow()
	} else {
		e = l.popMin()
	}
	r := &l.recs[e.slot]
	h, kind, arg := r.h, r.kind, r.arg
	r.h, r.arg = nil, nil
	r.gen++
	l.free = append(l.free, e.slot)
	l.now = e.at
	l.fired++
	h.HandleEvent(e.at, int(kind), arg)
	return true
}

// RunUntil handles events in (time, seq) order until the next one is after horizon, the queue is
// empty, or Stop is called. Unless stopped, the clock then stands at horizon (events due exactly
// at horizon have run). It returns the number of events handled.
func (l *Loop) RunUntil(horizon Time) uint64 {
	if horizon < l.now {
		panic(fmt.Sprintf("sim: run until %v, before now %v", horizon, l.now))
	}
	start := l.fired
	l.stopped = false
	for !l.stopped {
		at, ok := l.peek()
		if !ok || at > horizon {
			if horizon != Never {
				l.now = horizon
			}
			break
		}
		l.Step()
	}
	return l.fired - start
}

// Run handles events until the queue is empty or Stop is called, leaving the clock at the time of
// the last event. It returns the number of events handled.
func (l *Loop) Run() uint64 { return l.RunUntil(Never) }

// peek returns the time of the next live event, discarding dead entries at the head and moving
// far buckets into the heap when it runs dry.
func (l *Loop) peek() (Time, bool) {
	for {
		for len(l.heap) > 0 {
			e := &l.heap[0]
			if l.recs[e.slot].h != nil {
				if e.at == l.now { // before nowQ's events: see Loop.nowQ
					return e.at, true
				}
				break
			}
			slot := e.slot
			l.popMin()
			l.dead--
			l.release(slot)
		}
		for l.nowHead < len(l.nowQ) {
			if l.recs[l.nowQ[l.nowHead].slot].h != nil {
				return l.now, true
			}
			l.nowDead--
			l.release(l.popNow().slot)
		}
		if len(l.heap) > 0 {
			return l.heap[0].at, true
		}
		if !l.advance() {
			return 0, false
		}
	}
}

// popNow takes the first entry of nowQ, and empties the queue for reuse once it is drained.
func (l *Loop) popNow() entry {
	e := l.nowQ[l.nowHead]
	l.nowHead++
	if l.nowHead == len(l.nowQ) {
		l.nowQ, l.nowHead = l.nowQ[:0], 0
	}
	return e
}

// advance moves the next non-empty far bucket into the (empty) heap and slides the ring past it,
// refilling the ring's new last bucket from the overflow. It reports false when no far event is
// left. The bucket's entries go in in any order: the heap sorts them by (at, seq).
func (l *Loop) advance() bool {
	for {
		if l.ringN == 0 {
			if len(l.over) == 0 {
				return false
			}
			// Nothing in the ring: jump to the overflow's first bucket and refill the ring from
			// there (which drops the overflow's cancelled entries, and may leave it empty again).
			l.next = int64(l.over[0].at) >> farShift
			l.refill()
			continue
		}
		i := l.next % farRing
		bucket := l.ring[i]
		l.next++
		l.ringN -= len(bucket)
		for _, e := range bucket { // all live: a cancelled entry leaves its bucket at once
			r := &l.recs[e.slot]
			r.where = inHeap
			l.heap = append(l.heap, e)
			l.siftUp(len(l.heap) - 1)
		}
		clear(bucket)
		l.ring[i] = nil
		l.keepSpare(bucket[:0])
		l.refill()
		if len(bucket) > 0 {
			return true
		}
	}
}

// refill moves the overflow's events that now fall inside the ring into their buckets.
func (l *Loop) refill() {
	for len(l.over) > 0 {
		b := int64(l.over[0].at) >> farShift
		if b >= l.next+farRing {
			return
		}
		e := l.over[0]
		n := len(l.over) - 1
		l.over[0] = l.over[n]
		l.over = l.over[:n]
		if n > 1 {
			siftDownIn(l.over, 0)
		}
		if l.recs[e.slot].h == nil { // cancelled while in the overflow
			l.overDead--
			l.release(e.slot)
			continue
		}
		l.toRing(b, e)
	}
}

// toRing appends e to bucket b's slot of the ring. A slot that starts a bucket takes the
// smallest array a moved bucket left behind, and a full bucket trades its array for the
// smallest spare that is larger: once the ring has gone round, scheduling a far event allocates
// nothing, and a model whose buckets differ widely in size (100 000 monitors' heartbeats due in
// the same second, a few timeouts in the next) keeps its few large arrays for its few large
// buckets instead of handing them to small ones, which would make every array in the ring
// grow to the largest bucket's size in turn.
func (l *Loop) toRing(b int64, e entry) {
	i := b % farRing
	if bk := l.ring[i]; bk == nil || len(bk) == cap(bk) {
		if j := l.spareFor(len(bk)); j >= 0 {
			s := append(l.spare[j], bk...) // within its capacity: no allocation
			if bk == nil {
				l.spareN--
				l.spare[j], l.spare[l.spareN] = l.spare[l.spareN], nil
			} else {
				l.spare[j] = bk[:0]
			}
			l.ring[i] = s
		}
	}
	r := &l.recs[e.slot]
	r.where, r.ring, r.pos = inRing, uint8(i), int32(len(l.ring[i]))
	l.ring[i] = append(l.ring[i], e)
	l.ringN++
}

// spareFor returns the index of the smallest spare array with room for more than n entries,
// -1 if none.
func (l *Loop) spareFor(n int) int {
	j := -1
	for k, s := range l.spare[:l.spareN] {
		if cap(s) > n && (j < 0 || cap(s) < cap(l.spare[j])) {
			j = k
		}
	}
	return j
}

// keepSpare keeps an emptied bucket array for reuse; with maxSpare arrays kept already, it
// replaces the smallest if it is larger, so that the spares can take the largest bucket.
func (l *Loop) keepSpare(s []entry) {
	if cap(s) == 0 {
		return
	}
	if l.spareN < maxSpare {
		l.spare[l.spareN] = s
		l.spareN++
		return
	}
	j := 0
	for k := range l.spare {
		if cap(l.spare[k]) < cap(l.spare[j]) {
			j = k
		}
	}
	if cap(s) > cap(l.spare[j]) {
		l.spare[j] = s
	}
}

// compactFar drops the dead entries of the overflow (the ring has none: see Cancel).
func (l *Loop) compactFar() {
	l.over = l.dropDead(l.over)
	l.overDead = 0
}

func (l *Loop) release(slot int32) {
	r := &l.recs[slot]
	r.h, r.arg = nil, nil
	r.gen++
	l.free = append(l.free, slot)
}

// compact drops every dead entry and rebuilds the heap in O(n). The firing order is unaffected:
// (at, seq) is a total order, so any valid heap pops the same sequence.
func (l *Loop) compact() {
	l.heap = l.dropDead(l.heap)
	l.dead = 0
}

// dropDead removes the cancelled entries of the heap-ordered es in place, releasing their
// records, and orders the rest as a heap again.
func (l *Loop) dropDead(es []entry) []entry {
	out := es[:0]
	for _, e := range es {
		if l.recs[e.slot].h != nil {
			out = append(out, e)
		} else {
			l.release(e.slot)
		}
	}
	clear(es[len(out):])
	heapify(out)
	return out
}

// heapify orders h as a heap in O(len(h)).
func heapify(h []entry) {
	for i := (len(h) - 2) / arity; i >= 0 && len(h) > 1; i-- {
		siftDownIn(h, i)
	}
}

func (l *Loop) popMin() entry {
	h := l.heap
	top := h[0]
	n := len(h) - 1
	if n > 0 {
		h[0] = h[n]
	}
	l.heap = h[:n]
	if n > 1 {
		l.siftDown(0)
	}
	return top
}

func (l *Loop) siftUp(i int) { siftUpIn(l.heap, i) }

func (l *Loop) siftDown(i int) { siftDownIn(l.heap, i) }

// siftUpIn and siftDownIn restore the heap order of h, a 4-ary min-heap by (at, seq), after h[i]
// changed.
func siftUpIn(h []entry, i int) {
	e := h[i]
	for i > 0 {
		p := int(uint(i-1) / arity) // unsigned: a plain shift
		if !e.less(&h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = e
}

func siftDownIn(h []entry, i int) {
	n := len(h)
	e := h[i]
	for {
		c := arity*i + 1
		if c >= n {
			break
		}
		m := c
		end := min(c+arity, n)
		for j := c + 1; j < end; j++ {
			if h[j].less(&h[m]) {
				m = j
			}
		}
		if !h[m].less(&e) {
			break
		}
		h[i] = h[m]
		i = m
	}
	h[i] = e
}
