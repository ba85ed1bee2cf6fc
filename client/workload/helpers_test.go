package workload

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/sim"
)

// testSeed is the run seed of every stream in these tests; each test names its own stream, so
// adding a test never changes another test's numbers.
const testSeed = 20260301

func stream(name string) *rand.Rand { return sim.NewStream(testSeed, "workload/test/"+name) }

// countingSource counts the 64-bit words a generator takes from it: every draw of a
// *rand.Rand built on it goes through Uint64.
type countingSource struct {
	src rand.Source
	n   int
}

func (c *countingSource) Uint64() uint64 { c.n++; return c.src.Uint64() }

func countingStream(name string) (*rand.Rand, *countingSource) {
	s1, s2 := sim.StreamSeeds(testSeed, "workload/test/"+name)
	c := &countingSource{src: rand.NewPCG(s1, s2)}
	return rand.New(c), c
}

// must returns p, or panics with err: for profiles that a test builds from valid constants.
func must(p Profile, err error) Profile {
	if err != nil {
		panic(err)
	}
	return p
}

// arrivalsUntil returns every arrival of a in (0, horizon], starting the process at 0.
func arrivalsUntil(t testing.TB, a Arrivals, r *rand.Rand, horizon time.Duration) []sim.Time {
	t.Helper()
	var out []sim.Time
	now := sim.Time(0)
	for {
		at, ok := a.Next(now, r)
		if !ok || at > sim.Time(horizon) {
			return out
		}
		if at <= now {
			t.Fatalf("%v.Next(%v) = %v, want > %v", a, now, at, now)
		}
		out = append(out, at)
		now = at
	}
}

// countWindows counts arrivals in the windows [k·w, (k+1)·w) for k = 0 … n−1.
func countWindows(arrivals []sim.Time, w time.Duration, n int) []int {
	counts := make([]int, n)
	for _, at := range arrivals {
		if k := int(time.Duration(at) / w); k < n {
			counts[k]++
		}
	}
	return counts
}

const (
	ms = time.Millisecond
	s  = time.Second
)
