package splitting_test

import (
	"context"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/overloadsim/overloadsim/analysis/splitting"
)

// TestWalkReplayReproducesPrefix checks the branching contract on the synthetic model directly:
// a branch after checkpoint a has its parent's positions at checkpoints 0…a, and fresh ones
// after; replaying a path gives the same trajectory every time.
func TestWalkReplayReproducesPrefix(t *testing.T) {
	w := walk{up: 0.45, start: 5}
	parent := splitting.Path{Root: 7}
	diverged := 0
	for depth := range 5 {
		pt, err := w.trace(parent, 400)
		if err != nil {
			t.Fatal(err)
		}
		again, _ := w.trace(parent, 400)
		if !slices.Equal(pt, again) {
			t.Fatalf("path %s: two replays differ", parent)
		}
		last := int64(0)
		if b, ok := parent.Last(); ok {
			last = b.At
		}
		a := last + int64(len(pt)-1-int(last))/2 // a checkpoint between the last branch and absorption
		if a <= last {
			t.Fatalf("path %s absorbed at %d, too soon to branch", parent, len(pt)-1)
		}
		for key := range uint64(8) {
			child := parent.Extend(a, key*0x9e3779b97f4a7c15+uint64(depth))
			ct, err := w.trace(child, 400)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ct[:a+1], pt[:a+1]) {
				t.Fatalf("child %s: prefix %v, parent's %v", child, ct[:a+1], pt[:a+1])
			}
			if !slices.Equal(ct, pt) {
				diverged++
			}
		}
		parent = parent.Extend(a, uint64(depth)+100)
	}
	if diverged < 30 { // of 40 children; an identical continuation is possible but rare
		t.Fatalf("only %d of 40 children diverged from their parent: the key does not take effect", diverged)
	}
}

// TestWalkRunMatchesTrace checks that Run stops where the trajectory first reaches the level
// after the branch point, and charges the replayed prefix.
func TestWalkRunMatchesTrace(t *testing.T) {
	w := walk{up: 0.45, start: 3}
	ctx := context.Background()
	for root := range uint64(50) {
		p := splitting.Path{Root: root}
		tr, _ := w.trace(p, -1)
		a := int64(len(tr)-1) / 2
		if a == 0 {
			continue
		}
		child := p.Extend(a, root+1000)
		ct, _ := w.trace(child, -1)
		s, err := w.Run(ctx, child, float64(tr[a]+1))
		if err != nil {
			t.Fatal(err)
		}
		want := int64(len(ct) - 1) // absorbed, unless the level is reached first
		for i := a + 1; i < int64(len(ct)); i++ {
			if ct[i] >= tr[a]+1 {
				want = i
				break
			}
		}
		if s.At != want || s.Score != float64(ct[want]) || s.Cost != float64(want) || s.Hit != (ct[want] >= tr[a]+1) {
			t.Fatalf("Run(%s) = %+v; trace says stop at %d with x = %d", child, s, want, ct[want])
		}
	}
}

// TestCheckReplayAcceptsWalk runs the contract check on root paths and branched paths, hits and
// misses.
func TestCheckReplayAcceptsWalk(t *testing.T) {
	ctx := context.Background()
	hits := 0
	for root := range uint64(20) {
		w := walk{up: 0.4, start: 2}
		if root%2 == 1 {
			w = walk{up: 0.2, up2: 0.2, start: 2} // scores that jump over levels
		}
		p := splitting.Path{Root: root}
		if err := splitting.CheckReplay(ctx, w, p, 4); err != nil {
			t.Fatal(err)
		}
		if s, _ := w.Run(ctx, p, 4); s.Hit {
			hits++
			if err := splitting.CheckReplay(ctx, w, p.Extend(s.At, root), 6); err != nil {
				t.Fatal(err)
			}
		}
	}
	if hits == 0 {
		t.Fatal("no path hit: the branched case was not checked")
	}
}

// broken wraps the walk and breaks one rule of the contract, to show that CheckReplay notices.
type broken struct {
	walk
	rule  string
	calls *atomic.Int64
}

func (b broken) Run(ctx context.Context, p splitting.Path, level float64) (splitting.Stop, error) {
	switch b.rule {
	case "ignores key":
		p = splitting.Path{Root: p.Root, Branches: zeroKeys(p.Branches)}
	case "level-dependent": // the continuation depends on the level
		if l, ok := p.Last(); ok {
			p = splitting.Path{Root: p.Root, Branches: append(slices.Clone(p.Branches[:len(p.Branches)-1]),
				splitting.Branch{At: l.At, Key: l.Key ^ math.Float64bits(level)})}
		} else {
			p.Root ^= math.Float64bits(level)
		}
	}
	s, err := b.walk.Run(ctx, p, level)
	switch b.rule {
	case "nondeterministic": // e.g. a generator shared between runs
		if b.calls.Add(1)%2 == 0 {
			s.Cost++
		}
	case "prefix free": // charges only the continuation
		if l, ok := p.Last(); ok {
			s.Cost -= float64(l.At)
		}
	}
	return s, err
}

func (b broken) Fingerprint(ctx context.Context, p splitting.Path, at int64) (uint64, error) {
	if b.rule == "ignores key" {
		p = splitting.Path{Root: p.Root, Branches: zeroKeys(p.Branches)}
	}
	return b.walk.Fingerprint(ctx, p, at)
}

func zeroKeys(bs []splitting.Branch) []splitting.Branch {
	out := make([]splitting.Branch, len(bs))
	for i, b := range bs {
		out[i] = splitting.Branch{At: b.At}
	}
	return out
}

// TestCheckReplayCatchesBrokenModels breaks each rule of the contract in turn and expects
// CheckReplay to name it.
func TestCheckReplayCatchesBrokenModels(t *testing.T) {
	ctx := context.Background()
	w := walk{up: 0.4, start: 2}
	// Paths that hit level 4 (so that the branched checks run): roots, and branches of them.
	var paths []splitting.Path
	for root := uint64(0); len(paths) < 8; root++ {
		p := splitting.Path{Root: root}
		if s, _ := w.Run(ctx, p, 4); s.Hit && s.At > 2 {
			paths = append(paths, p)
			for key := range uint64(20) {
				// A branch that needs two steps or more to hit, so that a model that charges only
				// the continuation charges its children less than it.
				if c := p.Extend(s.At, key); func() bool { cs, _ := w.Run(ctx, c, 4); return cs.Hit && cs.At > s.At+1 }() {
					paths = append(paths, c)
					break
				}
			}
		}
	}
	for rule, want := range map[string]string{
		"early":            "prefix is not reproduced",
		"ignores key":      "key does not take effect",
		"level-dependent":  "depends on the level",
		"nondeterministic": "not deterministic",
		"prefix free":      "the prefix must count",
	} {
		m := broken{walk: w, rule: rule, calls: new(atomic.Int64)}
		if rule == "early" { // the branch takes effect one checkpoint early
			m.walk.shift = -1
		}
		for _, p := range paths {
			err := splitting.CheckReplay(ctx, m, p, 4)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s, path %s: CheckReplay = %v, want an error saying %q", rule, p, err, want)
			}
		}
	}
}

// TestReachProbMatchesClosedForm checks the test's own linear solver against the gambler's-ruin
// closed form before it is trusted for the walk with jumps.
func TestReachProbMatchesClosedForm(t *testing.T) {
	for _, c := range []struct {
		p float64
		b int
	}{{0.3, 20}, {0.4, 6}, {0.25, 14}} {
		got, want := reachProb(walk{up: c.p, start: 1}, c.b), ruinProb(c.p, c.b)
		if math.Abs(got-want) > 1e-9*want {
			t.Errorf("p=%v B=%d: solver %v, closed form %v", c.p, c.b, got, want)
		}
	}
}
