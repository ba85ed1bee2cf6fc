// Package simtest is a kit for tests of code that runs on the sim kernel: the random streams a
// run would hand a component, by name and with a fixed seed, and scripts of values that change
// at given virtual times, for code that samples counters as the clock advances.
//
// # Streams
//
// A run has one seed and derives every component's stream from (seed, name) (sim.NewStream);
// Streams does the same for a test, so a test that names a stream as a component does draws the
// very numbers the component draws in a run with that seed. The same name always gives the same
// stream object, as in a run, where each name is taken once.
//
// # Scripts
//
// A Script is a step function of virtual time: a value before the first step, then the value of
// the last step at or before the time asked for. It stands in for a counter, a gauge or a
// configuration that changes during a run.
//
// # A floor for benchmarks
//
// MMc is a bare M/M/c simulator, the least work any simulator does for that queue; benchmarks run
// it beside the model in the same process and report the model's speed as a share of it.
package simtest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/overloadsim/overloadsim/sim"
)

// Seed is the run seed of Stream and of the kit's examples: a fixed number, so that a test's
// draws never change from one run to the next.
const Seed uint64 = 1

// Stream returns the stream called name in a run seeded with Seed: sim.NewStream(Seed, name).
func Stream(name string) *rand.Rand { return sim.NewStream(Seed, name) }

// Streams hands out named streams for one seed, as a run does. The zero value is not usable;
// call NewStreams or OnLoop.
type Streams struct {
	seed   uint64
	loop   *sim.Loop // nil: streams come from sim.NewStream
	byName map[string]*rand.Rand
	names  []string
}

// NewStreams returns the streams of a run seeded with seed.
func NewStreams(seed uint64) *Streams {
	return &Streams{seed: seed, byName: map[string]*rand.Rand{}}
}

// OnLoop returns the streams of a run seeded with seed, taken through loop.NewStream: the loop
// lists them in Loop.Streams and re-derives them on Loop.Branch, as it does a component's.
func OnLoop(loop *sim.Loop, seed uint64) *Streams {
	s := NewStreams(seed)
	s.loop = loop
	return s
}

// Seed returns the run seed the streams derive from.
func (s *Streams) Seed() uint64 { return s.seed }

// Get returns the stream called name: the first call derives it from (seed, name), later calls
// return the same stream, so draws continue where they left off.
func (s *Streams) Get(name string) *rand.Rand {
	if r, ok := s.byName[name]; ok {
		return r
	}
	var r *rand.Rand
	if s.loop != nil {
		r = s.loop.NewStream(s.seed, name)
	} else {
		r = sim.NewStream(s.seed, name)
	}
	s.byName[name] = r
	s.names = append(s.names, name)
	return r
}

// Names returns the names handed out so far, in the order Get first saw them.
func (s *Streams) Names() []string { return slices.Clone(s.names) }

// Step is one change of a Script: from At on, the value is Value.
type Step[T any] struct {
	At    sim.Time
	Value T
}

// Script is a value that changes at given virtual times: Initial before the first step, then
// the value of the latest step at or before the time asked for. Build one with NewScript and
// Set (or a composite literal whose Steps are in strictly increasing time order); the zero
// Script holds the zero value for ever.
type Script[T any] struct {
	// Initial is the value before the first step.
	Initial T
	// Steps are the changes, in strictly increasing order of At.
	Steps []Step[T]
}

const panicOrder = "simtest: Script step at %v is not after the previous step at %v"

// NewScript returns a script that holds initial until its first step.
func NewScript[T any](initial T) *Script[T] { return &Script[T]{Initial: initial} }

// Set adds a step: from at on, the value is v. Steps must be added in strictly increasing time
// order; anything else panics, naming both times. It returns s, so calls chain.
func (s *Script[T]) Set(at sim.Time, v T) *Script[T] {
	if n := len(s.Steps); n > 0 && at <= s.Steps[n-1].At {
		panic(fmt.Sprintf(panicOrder, at, s.Steps[n-1].At))
	}
	s.Steps = append(s.Steps, Step[T]{at, v})
	return s
}

// At returns the value in force at t: that of the latest step at or before t, or Initial
// before the first step. O(log n).
func (s *Script[T]) At(t sim.Time) T {
	i := sort.Search(len(s.Steps), func(i int) bool { return s.Steps[i].At > t })
	if i == 0 {
		return s.Initial
	}
	return s.Steps[i-1].Value
}

// Next returns the time of the first step after t, and false if there is none: when a sampler
// reading the script at t would next see it change.
func (s *Script[T]) Next(t sim.Time) (sim.Time, bool) {
	i := sort.Search(len(s.Steps), func(i int) bool { return s.Steps[i].At > t })
	if i == len(s.Steps) {
		return 0, false
	}
	return s.Steps[i].At, true
}

// Func returns s.At as a function, for code that takes its counter source as one.
func (s *Script[T]) Func() func(sim.Time) T { return s.At }

// MMc is the least a simulator can do for an M/M/c queue: a 4-ary heap of (time, seq) events,
// c servers, a count of customers waiting, and exponential draws from two streams of a run
// seeded with Seed. Each step is one model event, an arrival or a departure. Benchmarks run it
// beside a model for as many events and report the model's speed as a share of it: on a shared
// machine two speeds swing from run to run, their ratio much less.
type MMc struct {
	heap           []mmcEvent
	seq            uint64
	c              int
	busy, waiting  int
	arrive, serve  *rand.Rand
	lambda, mu     float64
	Arrivals, Done uint64 // customers arrived and served so far
}

type mmcEvent struct {
	at        sim.Time
	seq       uint64
	departure bool
}

// NewMMc returns an empty M/M/c queue with c servers, arrival rate lambda and service rate mu
// per server (both per second), its first arrival scheduled.
func NewMMc(c int, lambda, mu float64) *MMc {
	q := &MMc{c: c, lambda: lambda, mu: mu, arrive: Stream("mmc/arrivals"), serve: Stream("mmc/service")}
	q.push(mmcEvent{at: q.draw(q.arrive, lambda)})
	return q
}

func (q *MMc) draw(r *rand.Rand, rate float64) sim.Time {
	return sim.Time(r.ExpFloat64() / rate * 1e9)
}

// Run handles n model events.
func (q *MMc) Run(n int) {
	for range n {
		e := q.pop()
		if !e.departure {
			q.Arrivals++
			q.push(mmcEvent{at: e.at + q.draw(q.arrive, q.lambda)})
			if q.busy < q.c {
				q.busy++
				q.push(mmcEvent{at: e.at + q.draw(q.serve, q.mu), departure: true})
			} else {
				q.waiting++
			}
			continue
		}
		q.Done++
		if q.waiting > 0 {
			q.waiting--
			q.push(mmcEvent{at: e.at + q.draw(q.serve, q.mu), departure: true})
		} else {
			q.busy--
		}
	}
}

func (q *MMc) less(i, j int) bool {
	a, b := &q.heap[i], &q.heap[j]
	return a.at < b.at || (a.at == b.at && a.seq < b.seq)
}

func (q *MMc) push(e mmcEvent) {
	q.seq++
	e.seq = q.seq
	q.heap = append(q.heap, e)
	for i := len(q.heap) - 1; i > 0; {
		p := (i - 1) / 4
		if !q.less(i, p) {
			break
		}
		q.heap[i], q.heap[p] = q.heap[p], q.heap[i]
		i = p
	}
}

func (q *MMc) pop() mmcEvent {
	top := q.heap[0]
	n := len(q.heap) - 1
	q.heap[0] = q.heap[n]
	q.heap = q.heap[:n]
	for i := 0; ; {
		m := i
		for c := 4*i + 1; c <= 4*i+4 && c < n; c++ {
			if q.less(c, m) {
				m = c
			}
		}
		if m == i {
			break
		}
		q.heap[i], q.heap[m] = q.heap[m], q.heap[i]
		i = m
	}
	return top
}
