package sim

import "math/rand/v2"

// StreamSeeds returns the two PCG seed words that NewStream(seed, name) uses.
//
// The derivation is documented so that a run header can record it and another implementation
// can reproduce it:
//
//	h  = FNV-1a 64 of the bytes of name
//	s1 = splitmix64(seed ^ h)
//	s2 = splitmix64(s1 ^ 0x9e3779b97f4a7c15)
//
// where splitmix64 is Steele, Lea and Flood's finaliser (the SplitMix64 output function). FNV
// spreads the name; splitmix decorrelates nearby seeds, so seeds 1 and 2 give unrelated streams.
func StreamSeeds(seed uint64, name string) (s1, s2 uint64) {
	const (
		fnvOffset = 14695981039346656037
		fnvPrime  = 1099511628211
	)
	h := uint64(fnvOffset)
	for i := 0; i < len(name); i++ {
		h ^= uint64(name[i])
		h *= fnvPrime
	}
	s1 = splitmix64(seed ^ h)
	s2 = splitmix64(s1 ^ 0x9e3779b97f4a7c15)
	return s1, s2
}

func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// NewStream returns the random stream named name in the run seeded by seed. Streams with
// different names are independent; the same (seed, name) gives the same numbers on every run
// and machine (math/rand/v2's PCG output is pinned by the Go project's regression tests).
//
// Names are stable, slash-separated paths such as "client/app/17" or "server/a/service".
func NewStream(seed uint64, name string) *rand.Rand {
	s1, s2 := StreamSeeds(seed, name)
	return rand.New(rand.NewPCG(s1, s2))
}

// namedSource is one stream a Loop handed out: its name and seeds, and the generator behind it.
type namedSource struct {
	Stream
	pcg *rand.PCG
}

// Stream names one random stream a Loop handed out, with the two PCG seed words StreamSeeds
// derived for it.
type Stream struct {
	Name   string
	S1, S2 uint64
}

// Streams returns every stream the loop has handed out, in the order NewStream made them: what
// a run's header records, so that it lists exactly the streams the run drew from.
func (l *Loop) Streams() []Stream {
	out := make([]Stream, 0, l.streams.n)
	for _, chunk := range l.streams.chunks {
		for _, s := range chunk {
			out = append(out, s.Stream)
		}
	}
	return out
}

// streamList is the streams a loop handed out, in order, in chunks that are never moved: a run
// with a million clients hands out millions of streams, and one growing array would copy them
// all each time it outgrew itself.
type streamList struct {
	chunks [][]namedSource
	n      int
}

// streamChunk is the number of streams in one chunk of a streamList.
const streamChunk = 4096

func (s *streamList) add(ns namedSource) {
	if k := len(s.chunks); k == 0 || len(s.chunks[k-1]) == cap(s.chunks[k-1]) {
		size := streamChunk
		if k == 0 {
			size = 16 // a small model draws a handful of streams
		}
		s.chunks = append(s.chunks, make([]namedSource, 0, size))
	}
	last := &s.chunks[len(s.chunks)-1]
	*last = append(*last, ns)
	s.n++
}

// NewStream returns the random stream named name in the run seeded by seed — the same numbers
// as the package-level NewStream(seed, name) — and remembers it, so that Branch can re-derive
// it. Components that live on a loop take their streams here.
func (l *Loop) NewStream(seed uint64, name string) *rand.Rand {
	s1, s2 := StreamSeeds(seed, name)
	pcg := rand.NewPCG(s1, s2)
	l.streams.add(namedSource{Stream{name, s1, s2}, pcg})
	return rand.New(pcg)
}

// Branch re-derives every stream the loop has handed out from key, as if the run had been
// seeded with key: stream "name" continues with the numbers of NewStream(key, name). Everything
// before the call is unchanged, so a run replayed to the same instant and branched with
// different keys continues along independent trajectories from an identical past — how a
// rare-event estimator splits one trajectory into many without snapshots. Call it between
// events (between RunUntil calls), never from a handler.
func (l *Loop) Branch(key uint64) {
	for _, chunk := range l.streams.chunks {
		for _, s := range chunk {
			s.pcg.Seed(StreamSeeds(key, s.Name))
		}
	}
}
