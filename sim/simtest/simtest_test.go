package simtest

import (
	"slices"
	"strings"
	"testing"

	"github.com/overloadsim/overloadsim/sim"
)

// TestStreamsAreTheRunsStreams: a stream handed out by name draws what sim.NewStream(seed, name)
// draws, whichever order the names are asked in, and a name asked twice gives the same stream,
// not a restarted one.
func TestStreamsAreTheRunsStreams(t *testing.T) {
	s := NewStreams(42)
	b := s.Get("server/b/service")
	a := s.Get("server/a/service")
	for _, tc := range []struct {
		name string
		got  float64
	}{{"server/a/service", a.Float64()}, {"server/b/service", b.Float64()}} {
		if want := sim.NewStream(42, tc.name).Float64(); tc.got != want {
			t.Errorf("Get(%q) first draw %v, want sim.NewStream's %v", tc.name, tc.got, want)
		}
	}
	if s.Get("server/a/service") != a {
		t.Error("a name asked twice must give the same stream")
	}
	if got := s.Names(); !slices.Equal(got, []string{"server/b/service", "server/a/service"}) {
		t.Errorf("Names() = %q, want the order of first use", got)
	}
	if s.Seed() != 42 || Stream("x").Uint64() != sim.NewStream(Seed, "x").Uint64() {
		t.Error("Seed or Stream disagree with the kernel")
	}
}

// TestOnLoopStreamsBranch: streams taken on a loop are listed by it and re-derived by Branch, as
// a component's are.
func TestOnLoopStreamsBranch(t *testing.T) {
	loop := sim.NewLoop()
	s := OnLoop(loop, 3)
	r := s.Get("client/app/0")
	r.Uint64()
	if st := loop.Streams(); len(st) != 1 || st[0].Name != "client/app/0" {
		t.Fatalf("loop.Streams() = %+v, want the one stream", st)
	}
	loop.Branch(9)
	if got, want := r.Uint64(), sim.NewStream(9, "client/app/0").Uint64(); got != want {
		t.Errorf("after Branch(9) drew %d, want sim.NewStream(9, name)'s first %d", got, want)
	}
}

// TestScript: the value in force is Initial before the first step and the latest step's at or
// after it, exactly at a step's time included; Next names the next change.
func TestScript(t *testing.T) {
	s := NewScript("idle").Set(10, "busy").Set(20, "overloaded")
	for _, tc := range []struct {
		at   sim.Time
		want string
	}{{0, "idle"}, {9, "idle"}, {10, "busy"}, {19, "busy"}, {20, "overloaded"}, {sim.Never, "overloaded"}} {
		if got := s.At(tc.at); got != tc.want {
			t.Errorf("At(%d) = %q, want %q", tc.at, got, tc.want)
		}
	}
	if f := s.Func(); f(15) != "busy" {
		t.Errorf("Func()(15) = %q, want busy", f(15))
	}
	if n, ok := s.Next(10); !ok || n != 20 {
		t.Errorf("Next(10) = %v, %v; want 20, true", n, ok)
	}
	if _, ok := s.Next(20); ok {
		t.Error("Next(20): no change after the last step")
	}
	var zero Script[int]
	if zero.At(5) != 0 {
		t.Error("the zero Script holds the zero value")
	}
}

// TestScriptOrder: a step that is not after the previous one panics, naming both times.
func TestScriptOrder(t *testing.T) {
	defer func() {
		msg, _ := recover().(string)
		if !strings.Contains(msg, "10ns") || !strings.Contains(msg, "5ns") {
			t.Errorf("panic %q, want it to name both times", msg)
		}
	}()
	NewScript(0).Set(10, 1).Set(5, 2)
}

// TestMMcIsAQueue: the floor queue is an M/M/c queue. Over a million events at ρ = 0.9 on 8
// servers, arrivals and departures balance (the queue is stable) and the arrival rate the clock
// shows is λ within 1 % (a Poisson count of some 500 000 has a relative σ of 0.14 %).
func TestMMcIsAQueue(t *testing.T) {
	q := NewMMc(8, 7200, 1000)
	q.Run(1_000_000)
	if q.Arrivals+q.Done != 1_000_000 {
		t.Fatalf("%d arrivals + %d departures, want 1 000 000 events", q.Arrivals, q.Done)
	}
	if d := int64(q.Arrivals) - int64(q.Done); d < 0 || d > 1000 {
		t.Errorf("%d arrived, %d served: the queue at ρ 0.9 should not grow by %d", q.Arrivals, q.Done, d)
	}
	elapsed := q.heap[0].at.Seconds()
	if rate := float64(q.Arrivals) / elapsed; rate < 7200*0.99 || rate > 7200*1.01 {
		t.Errorf("arrival rate %.0f/s over %.1f s, want 7200 ± 1 %%", rate, elapsed)
	}
}
