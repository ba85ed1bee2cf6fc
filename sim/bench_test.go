package sim

import (
	"fmt"
	"math/rand/v2"
	"testing"
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
