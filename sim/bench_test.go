package sim

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// The hold model (Jones, "An empirical comparison of priority-queue and event-set
// implementations", CACM 1986): keep n events pending; each step removes the earliest and
// schedules one more at now + an exponential increment. Increments are precomputed so that the
// benchmark measures the queue, not the generator; the kernel and the floors draw the same table.

var holdIncrements = func() []Time {
	r := rand.New(rand.NewPCG(1, 1))
	inc := make([]Time, 1<<16)
	for i := range inc {
		inc[i] = Time(r.ExpFloat64()*1e6) + 1 // mean 1 ms
	}
	return inc
}()

var holdSizes = []int{1e2, 1e4, 1e6}

// holdHandler reschedules itself: one pop and one push per event, as in a running model.
type holdHandler struct {
	l *Loop
	i int
}

func (h *holdHandler) HandleEvent(now Time, kind int, arg any) {
	h.i = (h.i + 1) & (len(holdIncrements) - 1)
	h.l.At(now+holdIncrements[h.i], h, kind, arg)
}

// BenchmarkLoop measures the kernel on the hold model; BenchmarkLoop/floor is a bare 4-ary heap of
// (time, seq) pairs doing the same pops and pushes, so the kernel/floor ratio comes out of one
// run: go test -bench 'BenchmarkLoop' -benchmem ./sim
func BenchmarkLoop(b *testing.B) {
	for _, n := range holdSizes {
		b.Run(fmt.Sprintf("kernel/pending=%d", n), func(b *testing.B) {
			l := NewLoop()
			h := &holdHandler{l: l}
			for i := 0; i < n; i++ {
				l.At(holdIncrements[i&(len(holdIncrements)-1)], h, 0, nil)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				l.Step()
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
		b.Run(fmt.Sprintf("floor/pending=%d", n), func(b *testing.B) {
			benchBareHeap(b, n, 4)
		})
	}
}

// BenchmarkHeapArity compares bare binary and 4-ary heaps: the measurement behind the arity
// constant in loop.go.
func BenchmarkHeapArity(b *testing.B) {
	for _, n := range holdSizes {
		for _, d := range []int{2, 4, 8} {
			b.Run(fmt.Sprintf("d=%d/pending=%d", d, n), func(b *testing.B) { benchBareHeap(b, n, d) })
		}
	}
}

type bareEntry struct {
	at  Time
	seq uint64
}

func (a bareEntry) less(b bareEntry) bool { return a.at < b.at || (a.at == b.at && a.seq < b.seq) }

// bareHeap is a d-ary min-heap with nothing but the (time, seq) key: the floor a kernel can reach.
type bareHeap struct {
	shift uint // log2 of the arity: children of i are (i<<shift)+1 …, a shift not a division
	h     []bareEntry
	seq   uint64
}

func (q *bareHeap) push(at Time) {
	q.seq++
	q.h = append(q.h, bareEntry{at, q.seq})
	h, i := q.h, len(q.h)-1
	e := h[i]
	for i > 0 {
		p := (i - 1) >> q.shift
		if !e.less(h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = e
}

func (q *bareHeap) pop() bareEntry {
	h := q.h
	top := h[0]
	n := len(h) - 1
	e := h[n]
	h = h[:n]
	q.h = h
	if n == 0 {
		return top
	}
	i := 0
	for {
		c := i<<q.shift + 1
		if c >= n {
			break
		}
		m := c
		end := min(c+1<<q.shift, n)
		for j := c + 1; j < end; j++ {
			if h[j].less(h[m]) {
				m = j
			}
		}
		if !h[m].less(e) {
			break
		}
		h[i] = h[m]
		i = m
	}
	h[i] = e
	return top
}

func benchBareHeap(b *testing.B, n, d int) {
	shift := uint(0)
	for 1<<shift < d {
		shift++
	}
	q := &bareHeap{shift: shift, h: make([]bareEntry, 0, n+1)}
	for i := 0; i < n; i++ {
		q.push(holdIncrements[i&(len(holdIncrements)-1)])
	}
	k := 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e := q.pop()
		k = (k + 1) & (len(holdIncrements) - 1)
		q.push(e.at + holdIncrements[k])
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkHeartbeats measures n periodic timers (a fleet's monitors, every 10 s, all started at
// the same instant) kept on a DelayLine against the same timers on the loop, one event each:
// nanoseconds per heartbeat, so the two sub-benchmarks' ratio is what a line saves.
//
//	go test -run '^$' -bench BenchmarkHeartbeats -benchmem ./sim
func BenchmarkHeartbeats(b *testing.B) {
	for _, n := range []int{1e3, 1e5} {
		b.Run(fmt.Sprintf("line/timers=%d", n), func(b *testing.B) {
			l := NewLoop()
			line := NewDelayLine(l, heartbeatPeriod, 0)
			bs := make([]beater, n)
			for i := range bs {
				bs[i].line = line
				line.Set(&bs[i])
			}
			runPeriods(b, l, n, func() (fired int) {
				for i := range bs {
					fired += bs[i].n
				}
				return fired
			})
		})
		b.Run(fmt.Sprintf("loop/timers=%d", n), func(b *testing.B) {
			l := NewLoop()
			bs := make([]loopBeater, n)
			for i := range bs {
				bs[i].l = l
				l.After(heartbeatPeriod, &bs[i], 0, nil)
			}
			runPeriods(b, l, n, func() (fired int) {
				for i := range bs {
					fired += bs[i].n
				}
				return fired
			})
		})
	}
}

// heartbeatPeriod is BenchmarkHeartbeats' period, heartbeatFrequencyMS's default.
const heartbeatPeriod = 10 * time.Second

// runPeriods runs l for whole periods, b.N heartbeats of n timers in all, and fails if fired
// counts none.
func runPeriods(b *testing.B, l *Loop, n int, fired func() int) {
	b.ReportAllocs()
	b.ResetTimer()
	for range max(b.N/n, 1) {
		l.RunUntil(l.Now().Add(heartbeatPeriod))
	}
	b.StopTimer()
	if fired() == 0 {
		b.Fatal("no heartbeat fired")
	}
}

// loopBeater re-schedules itself on the loop each time it fires, as a monitor's check did before
// delay lines.
type loopBeater struct {
	l *Loop
	n int
}

func (b *loopBeater) HandleEvent(Time, int, any) {
	b.n++
	b.l.After(heartbeatPeriod, b, 0, nil)
}
