package splitting

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
)

// CheckReplay tests that m honours the [Model] contract on path p at level, and returns every
// breach it finds (nil if none). It is meant for the tests of a real model: call it on root
// paths and on paths with branches, some that hit and some that miss. It checks that
//
//   - running p twice gives the same Stop (determinism, cost included);
//   - the trajectory does not depend on the level: a hair below level the run stops at the same
//     place, run to its end (level +Inf) it passes where the run at level stopped, and run to
//     the highest score it reached it stops there (spot checks: a dependence that leaves these
//     runs alike goes unseen);
//   - p and its branches give the same Stops when run concurrently as in sequence (no state is
//     shared between runs);
//   - if m is a [Fingerprinter] and p has a branch point: p has its parent's state there;
//
// and, if the run hits, for two branches of p at its hitting checkpoint with different keys:
//
//   - each gives the same Stop twice, and stops after the branch point unless it is a miss
//     there (the branch point is the horizon);
//   - each, stopped at its first checkpoint, costs at least as much as p's run, which it
//     replays as its prefix;
//   - if m is a [Fingerprinter]: both have p's state at the branch point (the prefix is
//     reproduced), and their states differ where they stop (the key takes effect).
func CheckReplay(ctx context.Context, m Model, p Path, level float64) error {
	c := &checker{ctx: ctx, m: m, p: p, level: level}
	c.check()
	return errors.Join(c.errs...)
}

type checker struct {
	ctx   context.Context
	m     Model
	p     Path
	level float64
	errs  []error
}

func (c *checker) fail(format string, args ...any) {
	c.errs = append(c.errs, fmt.Errorf("splitting: CheckReplay(%s, level %v): "+format, append([]any{c.p, c.level}, args...)...))
}

// run runs q at level and reports a failure or a Stop that breaks the contract.
func (c *checker) run(q Path, level float64) (Stop, bool) {
	s, err := c.m.Run(c.ctx, q, level)
	if err == nil {
		err = checkStop(q, level, s)
	}
	if err != nil {
		c.fail("Run(%s, %v): %v", q, level, err)
		return Stop{}, false
	}
	return s, true
}

// finger returns the fingerprint of q at checkpoint at, if the model gives fingerprints.
func (c *checker) finger(q Path, at int64) (uint64, bool) {
	fp, ok := c.m.(Fingerprinter)
	if !ok {
		return 0, false
	}
	h, err := fp.Fingerprint(c.ctx, q, at)
	if err != nil {
		c.fail("Fingerprint(%s, %d): %v", q, at, err)
		return 0, false
	}
	return h, true
}

func (c *checker) check() {
	p, level := c.p, c.level
	s, ok := c.run(p, level)
	if !ok {
		return
	}
	if again, ok := c.run(p, level); ok && again != s {
		c.fail("not deterministic: %+v, then %+v", s, again)
	}
	c.levelFree(s)
	if b, ok := p.Last(); ok {
		parent := Path{Root: p.Root, Branches: p.Branches[:len(p.Branches)-1]}
		h, ok1 := c.finger(p, b.At)
		hp, ok2 := c.finger(parent, b.At)
		if ok1 && ok2 && h != hp {
			c.fail("state %#x at the branch point %d, its parent %s %#x: the prefix is not reproduced", h, b.At, parent, hp)
		}
	}
	if len(c.errs) > 0 {
		return
	}
	var children []Path
	var cs []Stop
	if s.Hit {
		children, cs = c.branches(s)
		if len(c.errs) > 0 {
			return
		}
	}
	// The same runs, all at once, twice over: a model that shares state between runs differs.
	all := append([]Path{p, p}, append(children, children...)...)
	want := append([]Stop{s, s}, append(cs, cs...)...)
	got := make([]Stop, len(all))
	errs := make([]error, len(all))
	var wg sync.WaitGroup
	for i, q := range all {
		wg.Go(func() { got[i], errs[i] = c.m.Run(c.ctx, q, level) })
	}
	wg.Wait()
	for i := range all {
		if errs[i] != nil {
			c.fail("concurrent Run(%s): %v", all[i], errs[i])
		} else if got[i] != want[i] {
			c.fail("concurrent Run(%s) = %+v, in sequence %+v: runs share state", all[i], got[i], want[i])
		}
	}
}

// levelFree spot-checks that the trajectory does not depend on the level, which only says
// where to stop; s is the run at c.level.
func (c *checker) levelFree(s Stop) {
	p, level := c.p, c.level
	// A hair below the level the run stops at the same place, unless a checkpoint scored in
	// between.
	lower := math.Nextafter(level, math.Inf(-1))
	if u, ok := c.run(p, lower); ok && u != s && !(u.Hit && u.Score < level && u.At <= s.At) {
		c.fail("at level %v it stopped at %+v, at level %v at %+v: the trajectory depends on the level", lower, u, level, s)
	}
	full, ok := c.run(p, math.Inf(1))
	if !ok {
		return
	}
	switch {
	case !s.Hit && full != s:
		c.fail("run to its end it stopped at %+v, at level %v at %+v, a miss: the trajectory depends on the level", full, level, s)
	case s.Hit && (full.At < s.At || full.Max < s.Score || full.Cost < s.Cost):
		c.fail("run to its end it stopped at %+v, before the hit %+v: the trajectory depends on the level", full, s)
	case !math.IsInf(full.Max, 0):
		u, ok := c.run(p, full.Max)
		if ok && (!u.Hit || u.Score != full.Max || u.At > full.At || (s.Hit && u.At < s.At)) {
			c.fail("at level %v, the highest score of its trajectory, it stopped at %+v: the trajectory depends on the level", full.Max, u)
		}
	}
	if s.Hit {
		if u, ok := c.run(p, s.Score); ok && u != s {
			c.fail("at level %v, the score of its hit, it stopped at %+v, not at the hit %+v: the trajectory depends on the level", s.Score, u, s)
		}
	}
}

// branches checks two branches of p at its hit s and returns them with their Stops.
func (c *checker) branches(s Stop) ([]Path, []Stop) {
	p, level := c.p, c.level
	children := []Path{
		p.Extend(s.At, mix(0x636865636b, p.Root, uint64(s.At), 1)),
		p.Extend(s.At, mix(0x636865636b, p.Root, uint64(s.At), 2)),
	}
	cs := make([]Stop, len(children))
	parent, hasFP := c.finger(p, s.At)
	for i, q := range children {
		var ok bool
		if cs[i], ok = c.run(q, level); !ok {
			continue
		}
		if again, ok := c.run(q, level); ok && again != cs[i] {
			c.fail("branch %s not deterministic: %+v, then %+v", q, cs[i], again)
		}
		// Stopped at its first checkpoint, the branch has replayed its parent's whole run.
		if first, ok := c.run(q, -math.MaxFloat64); ok && (first.Cost < s.Cost || first.At > cs[i].At) {
			c.fail("branch %s run to its first checkpoint stopped at %+v: its cost is below that of its parent's run (%v), which it replays, so the prefix must count",
				q, first, s.Cost)
		}
		if h, ok := c.finger(q, s.At); hasFP && ok && h != parent {
			c.fail("branch %s has state %#x at its branch point, its parent %#x: the prefix is not reproduced", q, h, parent)
		}
	}
	// (Branches at the horizon stop at once, in their parent's state.)
	if hasFP && cs[0].At == cs[1].At && cs[0].At > s.At && len(c.errs) == 0 {
		h0, ok0 := c.finger(children[0], cs[0].At)
		h1, ok1 := c.finger(children[1], cs[1].At)
		if ok0 && ok1 && h0 == h1 {
			c.fail("branches %s and %s have the same state %#x at checkpoint %d: the key does not take effect", children[0], children[1], h0, cs[0].At)
		}
	}
	return children, cs
}
