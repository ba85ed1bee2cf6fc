package splitting_test

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/overloadsim/overloadsim/analysis/splitting"
)

// TestIntervalStudentTDegrees pins that Estimate's 95 % interval uses Student's t with R − 1
// degrees of freedom over its R repetitions (package doc, "Estimator and its variance": "the 95 %
// interval P̄ ± t_{0.975, R−1} s/√R (clipped to [0, 1])"). The quantiles come from a standard
// table, not from the code, and SE is recomputed from the repetitions as s/√R. R = 2 is where
// the degrees of freedom matter most: t is 12.706 with 1 and 4.303 with 2.
func TestIntervalStudentTDegrees(t *testing.T) {
	m := walk{up: 0.4, start: 1}
	for _, c := range []struct {
		reps int
		t975 float64 // t_{0.975, reps−1}
	}{
		{2, 12.7062},
		{3, 4.3027},
		{5, 2.7764},
		{10, 2.2622},
	} {
		cfg := splitting.Config{Levels: intLevels(2, 5), N: 200, Repetitions: c.reps, Seed: 21, Workers: 2}
		r, err := splitting.Estimate(context.Background(), cfg, m)
		if err != nil {
			t.Fatal(err)
		}
		mean, se := meanSE(r.Reps)
		if math.Abs(r.P-mean) > 1e-12 || math.Abs(r.SE-se) > 1e-12*max(se, 1) || se == 0 {
			t.Fatalf("Estimate(R = %d) = P %v, SE %v; want the repetitions' mean %v and s/√R %v (> 0)", c.reps, r.P, r.SE, mean, se)
		}
		var half float64
		switch {
		case r.CIHi < 1:
			half = r.CIHi - r.P
		case r.CILo > 0:
			half = r.P - r.CILo
		default:
			t.Fatalf("Estimate(R = %d): interval [%v, %v] clipped on both sides: the test cannot read its half-width", c.reps, r.CILo, r.CIHi)
		}
		if got := half / r.SE; math.Abs(got-c.t975) > 2e-4 {
			t.Errorf("Estimate(R = %d) interval [%.4g, %.4g] around %.4g = P ± %.4f·SE, want ± %.4f·SE (t_{0.975} with R − 1 = %d degrees of freedom)",
				c.reps, r.CILo, r.CIHi, r.P, got, c.t975, c.reps-1)
		}
	}
}

// shpUniform is a model whose pilot levels can be predicted: a root path observes one
// checkpoint, 1, with a score drawn uniformly in [0, 1) from its root, and stops there; a branch
// of it climbs straight to shpTop at checkpoint 2. So Pilot's first stage sees N distinct scores
// below the target, chooses its first level from them, and its second stage reaches the target
// with every run.
type shpUniform struct {
	mu    sync.Mutex
	first []float64 // the scores of the root paths run towards shpTop (the first stage)
}

const shpTop = 2

func (m *shpUniform) Run(_ context.Context, p splitting.Path, level float64) (splitting.Stop, error) {
	x := rand.New(rand.NewPCG(p.Root, 0x756e69)).Float64()
	if len(p.Branches) == 0 {
		if level == shpTop {
			m.mu.Lock()
			m.first = append(m.first, x)
			m.mu.Unlock()
		}
		return splitting.Stop{Hit: x >= level, At: 1, Score: x, Max: x, Cost: 1}, nil
	}
	return splitting.Stop{Hit: shpTop >= level, At: 2, Score: shpTop, Max: shpTop, Cost: 2}, nil
}

// TestPilotLevelOrderStatistic pins which order statistic Pilot takes as the next level
// (Pilot: "the next level is the (1−P0)-quantile of the highest scores they reached, so that
// about a fraction P0 of them reach it"; package doc, "Choosing levels"). Decided here, as the
// code reads: with need = ⌈P0·N⌉ runs that must reach a level, the level is the need-th highest
// of the N highest scores, so with distinct scores exactly need runs reach it and the pilot's
// P is need/N. need is written out per case (P0·N = 2.2 and 2.5 tell ⌈⌉ from ⌊⌋ and from
// rounding; N = 2 takes the highest).
func TestPilotLevelOrderStatistic(t *testing.T) {
	for _, c := range []struct {
		n    int
		p0   float64
		need int // ⌈P0·N⌉
	}{
		{10, 0.22, 3},
		{10, 0.25, 3},
		{20, 0.25, 5},
		{7, 0.5, 4},
		{2, 0.5, 1},
		{12, 0.9, 11},
	} {
		m := &shpUniform{}
		res, err := splitting.Pilot(context.Background(), splitting.PilotConfig{Target: shpTop, N: c.n, P0: c.p0, Seed: 5, Workers: 2}, m)
		if err != nil {
			t.Fatalf("Pilot(N = %d, P0 = %v): %v", c.n, c.p0, err)
		}
		scores := slices.Clone(m.first)
		slices.Sort(scores)
		slices.Reverse(scores)
		if len(scores) != c.n || len(slices.Compact(slices.Clone(scores))) != c.n {
			t.Fatalf("Pilot(N = %d): the first stage ran %d roots, scores %v; want %d distinct", c.n, len(scores), scores, c.n)
		}
		want := []float64{scores[c.need-1], shpTop}
		if !slices.Equal(res.Levels, want) {
			t.Errorf("Pilot(N = %d, P0 = %v).Levels = %v, want %v: score number %d from the top of the first stage's %v, then the target",
				c.n, c.p0, res.Levels, want, c.need, scores)
		}
		if wantP := float64(c.need) / float64(c.n); math.Abs(res.P-wantP) > 1e-15 {
			t.Errorf("Pilot(N = %d, P0 = %v).P = %v, want %d/%d = %v: the runs that reach the first level, then all of them",
				c.n, c.p0, res.P, c.need, c.n, wantP)
		}
	}
}
