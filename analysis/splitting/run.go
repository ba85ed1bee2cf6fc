package splitting

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"runtime"

	"github.com/overloadsim/overloadsim/internal/parallel"
)

// Domains separate the streams of seeds derived for different purposes, so that, e.g., the
// roots of BruteForce never coincide with the roots of Estimate for the same seed.
const (
	domRep uint64 = iota + 1
	domRoot
	domKey
	domPerm
	domBrute
	domPilotRoot
	domPilotKey
	domPilotPerm
)

// splitmix64 is the SplitMix64 output function (Steele, Lea & Flood 2014): a bijection whose
// outputs for nearby inputs look unrelated.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// mix derives a seed from a sequence of words (a domain, a seed, a repetition, a stage, an
// index) by chaining splitmix64; the order of the words matters.
func mix(words ...uint64) uint64 {
	h := uint64(0x6a09e667f3bcc908) // any odd constant; not zero, so mix() of zeros is not zero
	for _, w := range words {
		h = splitmix64(h ^ w)
	}
	return h
}

// permutation returns a uniformly random permutation of 0..n−1 drawn from seed (Fisher–Yates on
// a SplitMix64 counter stream). It is written out rather than taken from math/rand/v2, whose
// Perm and Shuffle algorithms are not promised to stay the same across Go releases.
func permutation(n int, seed uint64) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	for i := n - 1; i > 0; i-- {
		// Multiply-shift maps a 64-bit draw onto [0, i]; the bias, below (i+1)/2⁶⁴, is nil in
		// practice.
		j, _ := bits.Mul64(splitmix64(seed+uint64(i)*0x9e3779b97f4a7c15), uint64(i+1))
		p[i], p[j] = p[j], p[i]
	}
	return p
}

// workerCount resolves a Workers setting: 0 means one per available CPU.
func workerCount(w int) int {
	if w == 0 {
		return runtime.GOMAXPROCS(0)
	}
	return w
}

// runBatch runs m on every path at level on up to workers goroutines (internal/parallel) and
// returns the stops in the order of paths, so the result does not depend on scheduling. The first failure cancels the
// runs still going; the error reported is that of the lowest-indexed path that failed for a
// reason of its own, or the cancellation of ctx.
func runBatch(ctx context.Context, m Model, paths []Path, level float64, workers int) ([]Stop, error) {
	stops, errs, _ := parallel.Map(ctx, len(paths), workers, func(ctx context.Context, i int) (Stop, error) {
		s, err := m.Run(ctx, paths[i], level)
		if err == nil {
			err = checkStop(paths[i], level, s)
		}
		return s, err
	}, nil)
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("cancelled: %w", err)
	}
	// Runs stopped by our own cancel report context.Canceled: report the cause, the first other
	// error, if there is one.
	first := -1
	for i, err := range errs {
		if err != nil && (first < 0 || errors.Is(errs[first], context.Canceled) && !errors.Is(err, context.Canceled)) {
			first = i
		}
	}
	if first >= 0 {
		return nil, fmt.Errorf("run %d (path %s, level %v): %w", first, paths[first], level, errs[first])
	}
	return stops, nil
}

// checkStop rejects stops that break the Model contract, which would otherwise bias the
// estimate silently.
func checkStop(p Path, level float64, s Stop) error {
	from := int64(math.MinInt64) // a root path observes every checkpoint
	if b, ok := p.Last(); ok {
		from = b.At
	}
	observed := s.At > from
	switch {
	case math.IsNaN(s.Score) || math.IsNaN(s.Max):
		return fmt.Errorf("model returned a NaN score (Score %v, Max %v)", s.Score, s.Max)
	case math.IsNaN(s.Cost) || math.IsInf(s.Cost, 0) || s.Cost < 0:
		return fmt.Errorf("model returned Cost %v: want a finite cost ≥ 0", s.Cost)
	case s.Hit && s.Score < level:
		return fmt.Errorf("model reported a hit with Score %v below the level", s.Score)
	case !s.Hit && observed && s.Score >= level:
		return fmt.Errorf("model reported a miss with Score %v at or above the level: the first checkpoint at the level is a hit", s.Score)
	case s.Hit && !observed, s.At < from:
		return fmt.Errorf("model stopped at checkpoint %d, not after the branch point %d", s.At, from)
	case observed && s.Max < s.Score:
		return fmt.Errorf("model returned Max %v below Score %v", s.Max, s.Score)
	}
	return nil
}
