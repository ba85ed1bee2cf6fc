package sim

import (
	"fmt"
	"hash/fnv"
	"testing"
)

// TestStreamGolden pins the numbers a stream produces, so a change to the derivation (which would
// silently change every published result) fails here first.
func TestStreamGolden(t *testing.T) {
	s1, s2 := StreamSeeds(1, "client/app/0")
	r := NewStream(1, "client/app/0")
	got := fmt.Sprintf("%#x %#x %d %d %d", s1, s2, r.Uint64(), r.Uint64(), r.IntN(1000))
	const want = "0x4f0f5e4170a5c061 0x7c338e868a07a785 9532304844292251809 16685585333083536889 691"
	if got != want {
		t.Fatalf("stream golden changed:\n got %s\nwant %s", got, want)
	}
}

// TestStreamIndependence: adding stream "b" and drawing from it does not change stream "a".
func TestStreamIndependence(t *testing.T) {
	draw := func(withB bool) []uint64 {
		a := NewStream(7, "a")
		var b interface{ Uint64() uint64 }
		if withB {
			b = NewStream(7, "b")
		}
		var out []uint64
		for i := 0; i < 100; i++ {
			out = append(out, a.Uint64())
			if b != nil {
				b.Uint64()
			}
		}
		return out
	}
	x, y := draw(false), draw(true)
	for i := range x {
		if x[i] != y[i] {
			t.Fatalf("draw %d of stream a changed when stream b was added", i)
		}
	}
}

// TestStreamsDiffer: different names, and nearby seeds, give unrelated streams.
func TestStreamsDiffer(t *testing.T) {
	pairs := [][2]struct {
		seed uint64
		name string
	}{
		{{1, "a"}, {1, "b"}},
		{{1, "a"}, {2, "a"}},
		{{0, ""}, {1, ""}},
	}
	for _, p := range pairs {
		x, y := NewStream(p[0].seed, p[0].name), NewStream(p[1].seed, p[1].name)
		same := 0
		for i := 0; i < 64; i++ {
			if x.Uint64()&1 == y.Uint64()&1 {
				same++
			}
		}
		// 64 fair coin pairs agree 32 ± 4 times; fewer than 16 or more than 48 agreements is
		// a 4σ event for independent streams.
		if same < 16 || same > 48 {
			t.Errorf("%v vs %v: %d/64 low bits agree: streams look correlated", p[0], p[1], same)
		}
	}
}

// TestStreamSeedsDerivation checks the documented derivation against independent references:
// the standard library's FNV-1a and SplitMix64's published first output for state 0.
func TestStreamSeedsDerivation(t *testing.T) {
	if got := splitmix64(0); got != 0xe220a8397b1dcdaf {
		t.Fatalf("splitmix64(0) = %#x, want 0xe220a8397b1dcdaf (SplitMix64 reference)", got)
	}
	for _, name := range []string{"", "a", "server/a/service"} {
		h := fnv.New64a()
		h.Write([]byte(name))
		s1, s2 := StreamSeeds(99, name)
		w1 := splitmix64(99 ^ h.Sum64())
		if s1 != w1 || s2 != splitmix64(w1^0x9e3779b97f4a7c15) {
			t.Errorf("StreamSeeds(99, %q) = %#x, %#x; does not follow the documented derivation", name, s1, s2)
		}
	}
}

// TestLoopBranch: a loop's streams give the package-level NewStream's numbers, and Branch(key)
// continues every one of them with the numbers of NewStream(key, name), leaving what was drawn
// before untouched — the contract a splitting estimator replays trajectories by.
func TestLoopBranch(t *testing.T) {
	l := NewLoop()
	a, b := l.NewStream(7, "client/app/0"), l.NewStream(7, "server/db/service")
	wantA, wantB := NewStream(7, "client/app/0"), NewStream(7, "server/db/service")
	for i := 0; i < 5; i++ {
		if x, y := a.Uint64(), wantA.Uint64(); x != y {
			t.Fatalf("draw %d of a loop stream: %d, want NewStream's %d", i, x, y)
		}
		b.Uint64()
		wantB.Uint64()
	}
	l.Branch(99)
	branchA, branchB := NewStream(99, "client/app/0"), NewStream(99, "server/db/service")
	for i := 0; i < 5; i++ {
		if x, y := a.Uint64(), branchA.Uint64(); x != y {
			t.Fatalf("draw %d after Branch(99): %d, want NewStream(99, name)'s %d", i, x, y)
		}
		if x, y := b.Uint64(), branchB.Uint64(); x != y {
			t.Fatalf("second stream, draw %d after Branch(99): %d, want %d", i, x, y)
		}
	}
	if a.Uint64() == wantA.Uint64() {
		t.Error("after Branch the stream still follows the run seed's numbers")
	}
}
