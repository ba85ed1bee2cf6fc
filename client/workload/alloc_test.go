package workload

import (
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/dist"
	"github.com/overloadsim/overloadsim/sim"
)

// allocProfiles is one profile of each family, with enough pieces that Next has to search.
func allocProfiles() []Profile {
	var pts []Point
	for i := range 1000 {
		pts = append(pts, Point{time.Duration(i) * s, float64(i % 7 * 100)})
	}
	return []Profile{
		must(Constant(1000)),
		must(Spike(100, 2000, 30*s, 20*s)),
		must(Ramp(0, 1000, 0, time.Minute)),
		must(Sine(500, 400, time.Minute, 0)),
		must(Piecewise(pts)),
		must(Trace(pts)),
	}
}

// TestZeroAllocs checks that drawing an arrival, a think time or a kind allocates nothing.
func TestZeroAllocs(t *testing.T) {
	r := stream("allocs")
	for _, p := range allocProfiles() {
		for _, a := range []Arrivals{Poisson(p), Fixed(p)} {
			now := sim.Time(0)
			if n := testing.AllocsPerRun(1000, func() {
				at, ok := a.Next(now, r)
				if ok {
					now = at
				}
			}); n != 0 {
				t.Errorf("%v.Next: %v allocations per call, want 0", a, n)
			}
		}
	}
	m, err := NewMix([]Weight{{"find", 60}, {"insert", 25}, {"update", 10}, {"delete", 5}})
	if err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(1000, func() { m.Pick(r) }); n != 0 {
		t.Errorf("Pick: %v allocations per call, want 0", n)
	}
	exp, err := dist.Exp(100 * ms)
	if err != nil {
		t.Fatal(err)
	}
	for _, th := range []ThinkTime{Think(exp), {}} {
		if n := testing.AllocsPerRun(1000, func() { th.Next(0, r) }); n != 0 {
			t.Errorf("%v.Next: %v allocations per call, want 0", th, n)
		}
	}
}

// BenchmarkNext measures one arrival per profile family and process.
func BenchmarkNext(b *testing.B) {
	for _, p := range allocProfiles() {
		for _, a := range []Arrivals{Poisson(p), Fixed(p)} {
			name := a.String()
			if len(name) > 40 {
				name = name[:40]
			}
			b.Run(name, func(b *testing.B) {
				r := stream("bench")
				now := sim.Time(0)
				for b.Loop() {
					at, ok := a.Next(now, r)
					if !ok || at > sim.Time(time.Hour) {
						at = 0
					}
					now = at
				}
			})
		}
	}
}

// BenchmarkPick measures one draw from a five-kind mix.
func BenchmarkPick(b *testing.B) {
	m, err := NewMix([]Weight{{"find", 60}, {"insert", 25}, {"update", 10}, {"delete", 4}, {"aggregate", 1}})
	if err != nil {
		b.Fatal(err)
	}
	r := stream("bench/pick")
	for b.Loop() {
		m.Pick(r)
	}
}
