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
