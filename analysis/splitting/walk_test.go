package splitting_test

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"math"
	"math/rand/v2"

	"github.com/overloadsim/overloadsim/analysis/splitting"
)

// walk is the synthetic model of the tests: a random walk on the integers that starts at start,
// moves to x+2 with probability up2, to x+1 with probability up and to x−1 otherwise, and is
// absorbed at 0 or below. Every step ends at a checkpoint; the score is x; the cost is the number
// of steps simulated, replay included. With up2 = 0 it is the gambler's ruin.
//
// It honours the branching contract exactly: its randomness is one PCG seeded from the root,
// replaced by a PCG seeded from Key after checkpoint At of each branch point.
type walk struct {
	up, up2 float64
	start   int
	horizon int64 // a run that reaches this checkpoint stops (a miss); 0 means 1<<20
	// shift moves where branches take effect: after checkpoint At+shift. Any value but 0
	// breaks the contract; the tests use it to show that CheckReplay notices.
	shift int64
}

// The second PCG seed words; any constants do, as long as roots and keys use different ones.
const (
	rootStream = 0x726f6f74
	keyStream  = 0x6b6579
)

var errAbsorbedPrefix = errors.New("walk: the path's prefix is absorbed before its last branch point")

// play runs the walk along p. It calls visit at every checkpoint t ≥ 1 with the position x and
// whether the checkpoint is observed (after the last branch point), and stops when visit returns
// false, at checkpoint until (before the branch at until takes effect; −1 for none), when the
// walk is absorbed or at the horizon. It returns the last checkpoint, the position there and the
// generator that would draw the next step.
func (w walk) play(ctx context.Context, p splitting.Path, until int64, visit func(t int64, x int, observed bool) bool) (int64, int, rand.PCG, error) {
	horizon := w.horizon
	if horizon == 0 {
		horizon = 1 << 20
	}
	var last int64 = -1
	if b, ok := p.Last(); ok {
		last = b.At
	}
	var rng rand.PCG // a value, reseeded in place: allocating a generator per branch would dominate
	rng.Seed(p.Root, rootStream)
	x, t, next := w.start, int64(0), 0
	for {
		if t == until {
			return t, x, rng, nil
		}
		if next < len(p.Branches) {
			b := p.Branches[next]
			if b.At+w.shift < t || (next > 0 && b.At <= p.Branches[next-1].At) {
				return 0, 0, rand.PCG{}, fmt.Errorf("walk: path %s: branch points must be increasing and ≥ 0", p)
			}
			if b.At+w.shift == t {
				rng.Seed(b.Key, keyStream)
				next++
			}
		}
		if x <= 0 || t >= horizon {
			if t < last {
				return 0, 0, rand.PCG{}, fmt.Errorf("%w (path %s, stopped at %d)", errAbsorbedPrefix, p, t)
			}
			return t, x, rng, nil // at the last branch point: a miss that observed nothing
		}
		u := float64(rng.Uint64()>>11) / (1 << 53) // as rand.Float64
		switch {
		case u < w.up2:
			x += 2
		case u < w.up2+w.up:
			x++
		default:
			x--
		}
		t++
		if !visit(t, x, t > last) {
			return t, x, rng, nil
		}
		if t&(1<<14-1) == 0 && ctx.Err() != nil {
			return 0, 0, rand.PCG{}, ctx.Err()
		}
	}
}

// Run implements splitting.Model.
func (w walk) Run(ctx context.Context, p splitting.Path, level float64) (splitting.Stop, error) {
	s := splitting.Stop{Max: math.Inf(-1)}
	t, x, _, err := w.play(ctx, p, -1, func(_ int64, x int, observed bool) bool {
		if !observed {
			return true
		}
		s.Max = max(s.Max, float64(x))
		return float64(x) < level
	})
	if err != nil {
		return splitting.Stop{}, err
	}
	s.At, s.Score, s.Cost = t, float64(x), float64(t)
	last, _ := p.Last()
	s.Hit = (len(p.Branches) == 0 || t > last.At) && s.Score >= level // only an observed checkpoint hits
	return s, nil
}

var fingerSeed = maphash.MakeSeed()

// Fingerprint implements splitting.Fingerprinter: a hash of the checkpoint, the position and the
// generator's next output (so the generator's state counts).
func (w walk) Fingerprint(ctx context.Context, p splitting.Path, at int64) (uint64, error) {
	t, x, rng, err := w.play(ctx, p, at, func(int64, int, bool) bool { return true })
	if err != nil {
		return 0, err
	}
	if t != at {
		return 0, fmt.Errorf("walk: path %s stops at checkpoint %d, before %d", p, t, at)
	}
	var h maphash.Hash
	h.SetSeed(fingerSeed)
	fmt.Fprint(&h, t, x, rng.Uint64())
	return h.Sum64(), nil
}

// trace returns the positions at checkpoints 0…n of the trajectory of p, shorter if it is
// absorbed; the branch at n, if any, has not taken effect.
func (w walk) trace(p splitting.Path, n int64) ([]int, error) {
	xs := []int{w.start}
	_, _, _, err := w.play(context.Background(), p, n, func(_ int64, x int, _ bool) bool {
		xs = append(xs, x)
		return true
	})
	return xs, err
}

// ruinProb is the gambler's-ruin closed form: from 1, with up-probability p and r = q/p ≠ 1,
// P(reach b before 0) = (1 − r)/(1 − r^b).
func ruinProb(p float64, b int) float64 {
	r := (1 - p) / p
	return (1 - r) / (1 - math.Pow(r, float64(b)))
}

// reachProb is the exact probability that w, from w.start, reaches b or above before 0: the
// solution of the first-step equations h(x) = up2·h(x+2) + up·h(x+1) + down·h(x−1) for
// 0 < x < b, with h = 0 at or below 0 and h = 1 at or above b, by Gaussian elimination with
// partial pivoting.
func reachProb(w walk, b int) float64 {
	n := b - 1 // unknowns h(1) … h(b−1), at indices 0 … n−1
	a := make([][]float64, n)
	for i := range a {
		a[i] = make([]float64, n+1) // the last column is the right-hand side
		x := i + 1
		a[i][i] = 1
		for _, m := range []struct {
			dx int
			p  float64
		}{{2, w.up2}, {1, w.up}, {-1, 1 - w.up - w.up2}} {
			switch y := x + m.dx; {
			case y >= b:
				a[i][n] += m.p
			case y > 0:
				a[i][y-1] -= m.p
			}
		}
	}
	for c := range n {
		piv := c
		for r := c + 1; r < n; r++ {
			if math.Abs(a[r][c]) > math.Abs(a[piv][c]) {
				piv = r
			}
		}
		a[c], a[piv] = a[piv], a[c]
		for r := c + 1; r < n; r++ {
			f := a[r][c] / a[c][c]
			for k := c; k <= n; k++ {
				a[r][k] -= f * a[c][k]
			}
		}
	}
	h := make([]float64, n)
	for r := n - 1; r >= 0; r-- {
		s := a[r][n]
		for k := r + 1; k < n; k++ {
			s -= a[r][k] * h[k]
		}
		h[r] = s / a[r][r]
	}
	return h[w.start-1]
}

// intLevels returns the levels from, from+1, …, to.
func intLevels(from, to int) []float64 {
	var l []float64
	for x := from; x <= to; x++ {
		l = append(l, float64(x))
	}
	return l
}
