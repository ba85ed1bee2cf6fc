package splitting_test

import (
	"context"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/overloadsim/overloadsim/analysis/splitting"
)

// TestDeterminism: the Result is identical for Workers 1, 2 and 4 and for repeated calls, for
// Estimate, BruteForce and Pilot; results are stored by index, never in completion order.
func TestDeterminism(t *testing.T) {
	ctx := context.Background()
	m := walk{up: 0.3, up2: 0.05, start: 1}
	var est, brute []splitting.Result
	var pilots []splitting.PilotResult
	for _, w := range []int{1, 2, 4, 4} {
		r, err := splitting.Estimate(ctx, splitting.Config{Levels: intLevels(2, 10), N: 50, Repetitions: 4, Seed: 9, Workers: w}, m)
		if err != nil {
			t.Fatal(err)
		}
		est = append(est, r)
		b, err := splitting.BruteForce(ctx, 5000, 6, 9, w, m)
		if err != nil {
			t.Fatal(err)
		}
		brute = append(brute, b)
		p, err := splitting.Pilot(ctx, splitting.PilotConfig{Target: 14, N: 100, P0: 0.2, Seed: 9, Workers: w}, m)
		if err != nil {
			t.Fatal(err)
		}
		pilots = append(pilots, p)
	}
	for i := 1; i < len(est); i++ {
		if !reflect.DeepEqual(est[i], est[0]) {
			t.Errorf("Estimate: call %d differs from call 0:\n%+v\n%+v", i, est[i], est[0])
		}
		if !reflect.DeepEqual(brute[i], brute[0]) {
			t.Errorf("BruteForce: call %d differs from call 0:\n%+v\n%+v", i, brute[i], brute[0])
		}
		if !reflect.DeepEqual(pilots[i], pilots[0]) {
			t.Errorf("Pilot: call %d differs from call 0:\n%+v\n%+v", i, pilots[i], pilots[0])
		}
	}
	// A different seed gives a different estimate: the seed reaches the roots.
	r, _ := splitting.Estimate(ctx, splitting.Config{Levels: intLevels(2, 10), N: 50, Repetitions: 4, Seed: 10, Workers: 2}, m)
	if slices.Equal(r.Reps, est[0].Reps) {
		t.Error("seeds 9 and 10 gave the same repetitions")
	}
}

// call is one Run the recorder saw.
type call struct {
	path  splitting.Path
	level float64
	stop  splitting.Stop
}

// recorder wraps a model and records every Run, to check what the estimator asks of it.
type recorder struct {
	splitting.Model
	mu    sync.Mutex
	calls []call
}

func (r *recorder) Run(ctx context.Context, p splitting.Path, level float64) (splitting.Stop, error) {
	s, err := r.Model.Run(ctx, p, level)
	r.mu.Lock()
	r.calls = append(r.calls, call{p, level, s})
	r.mu.Unlock()
	return s, err
}

// TestStagesBranchFromEntranceStates checks the structure of fixed-effort splitting on the runs
// the estimator makes (Garvels & Kroese 1998; L'Ecuyer, Demers & Tuffin 2007): stage 1 runs N
// distinct roots; every run of stage k ≥ 2 is its parent's path — a hit of stage k−1 — plus
// one branch at the parent's hitting checkpoint; every key is fresh; each entrance state gets
// ⌊N/R⌋ or ⌈N/R⌉ starts, the extra ones not simply to the first found; and hits/N per stage
// multiply to the repetition's estimate.
func TestStagesBranchFromEntranceStates(t *testing.T) {
	levels := intLevels(2, 9)
	// One worker, so that the calls arrive in index order and the assignment can be checked.
	cfg := splitting.Config{Levels: levels, N: 60, Repetitions: 3, Seed: 4, Workers: 1}
	rec := &recorder{Model: walk{up: 0.35, start: 1}}
	res, err := splitting.Estimate(context.Background(), cfg, rec)
	if err != nil {
		t.Fatal(err)
	}
	// Stages run one after the other, so consecutive calls with one level form a stage; a return
	// to the first level starts a repetition.
	type stage struct {
		level float64
		calls []call
	}
	var reps [][]stage
	for i, c := range rec.calls {
		switch {
		case c.level == levels[0] && (i == 0 || rec.calls[i-1].level != levels[0]):
			reps = append(reps, []stage{{level: c.level}})
		case c.level != rec.calls[i-1].level:
			reps[len(reps)-1] = append(reps[len(reps)-1], stage{level: c.level})
		}
		st := reps[len(reps)-1]
		st[len(st)-1].calls = append(st[len(st)-1].calls, c)
	}
	if len(reps) != cfg.Repetitions {
		t.Fatalf("saw %d repetitions, want %d", len(reps), cfg.Repetitions)
	}
	keys := map[uint64]bool{}
	uneven, inOrder := 0, 0 // stages where N mod R ≠ 0; those where the first entrances got the extras
	for r, stages := range reps {
		if len(stages) != len(res.Stages[r]) {
			t.Fatalf("repetition %d: ran %d stages, Result says %d", r, len(stages), len(res.Stages[r]))
		}
		p := 1.0
		var entrances map[string]call // the previous stage's hits, by path
		var order []string            // and in the order they were found
		for k, st := range stages {
			sr := res.Stages[r][k]
			if st.level != levels[k] || len(st.calls) != cfg.N || sr.Runs != cfg.N || sr.Jumped != 0 {
				t.Fatalf("repetition %d stage %d: level %v, %d runs, Result %+v", r, k+1, st.level, len(st.calls), sr)
			}
			children := map[string]int{}
			hits := map[string]call{}
			var hitOrder []string
			for _, c := range st.calls {
				if c.stop.Hit {
					hits[c.path.String()] = c
					hitOrder = append(hitOrder, c.path.String())
				}
				if k == 0 {
					if len(c.path.Branches) != 0 || keys[c.path.Root] {
						t.Fatalf("stage 1 path %s: want a root path with a fresh root", c.path)
					}
					keys[c.path.Root] = true
					continue
				}
				if len(c.path.Branches) == 0 {
					t.Fatalf("stage %d path %s: a root path, not a branch of an entrance state", k+1, c.path)
				}
				parent := splitting.Path{Root: c.path.Root, Branches: c.path.Branches[:len(c.path.Branches)-1]}
				e, ok := entrances[parent.String()]
				last, _ := c.path.Last()
				switch {
				case !ok:
					t.Fatalf("stage %d path %s: its parent %s is not an entrance state of stage %d", k+1, c.path, parent, k)
				case last.At != e.stop.At:
					t.Fatalf("stage %d path %s branches at %d, its parent hit level %v at %d", k+1, c.path, last.At, e.level, e.stop.At)
				case keys[last.Key]:
					t.Fatalf("stage %d path %s reuses key %#x", k+1, c.path, last.Key)
				}
				keys[last.Key] = true
				children[parent.String()]++
			}
			if k > 0 {
				lo, hi := cfg.N/len(entrances), (cfg.N+len(entrances)-1)/len(entrances)
				for e := range entrances {
					if n := children[e]; n < lo || n > hi {
						t.Fatalf("stage %d: entrance %s has %d starts, want %d to %d", k+1, e, n, lo, hi)
					}
				}
				// The extra starts go to entrances chosen at random, not to the first found.
				if extra := cfg.N % len(entrances); extra > 0 {
					uneven++
					first := true
					for i, e := range order {
						if (i < extra) != (children[e] == hi) {
							first = false
						}
					}
					if first {
						inOrder++
					}
				}
			}
			if sr.Hits != len(hits) || sr.P != float64(len(hits))/float64(cfg.N) {
				t.Fatalf("repetition %d stage %d: Result %+v, saw %d hits", r, k+1, sr, len(hits))
			}
			p *= sr.P
			entrances, order = hits, hitOrder
		}
		if p != res.Reps[r] {
			t.Fatalf("repetition %d: product of stages %v, Reps %v", r, p, res.Reps[r])
		}
	}
	if uneven < 5 || inOrder == uneven {
		t.Errorf("in %d of %d stages with N mod R ≠ 0 the extra starts went to the first entrances found", inOrder, uneven)
	}
}
