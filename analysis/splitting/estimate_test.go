package splitting_test

import (
	"context"
	"math"
	"testing"

	"github.com/overloadsim/overloadsim/analysis/splitting"
)

// coverage runs Estimate for seeds 1…seeds and returns the fraction of 95 % intervals that cover
// want, the z-score of the grand mean of all repetitions against want, and the ratio of the mean
// estimated variance of P to the variance of P across seeds (≈ 1 if the standard error is right).
func coverage(t *testing.T, m splitting.Model, cfg splitting.Config, seeds int, want float64) (cover, z, varRatio float64) {
	t.Helper()
	var covered int
	var all, ps []float64
	var meanVar float64
	for s := range seeds {
		cfg.Seed = uint64(s + 1)
		r, err := splitting.Estimate(context.Background(), cfg, m)
		if err != nil {
			t.Fatal(err)
		}
		if r.CILo <= want && want <= r.CIHi {
			covered++
		}
		all = append(all, r.Reps...)
		ps = append(ps, r.P)
		meanVar += r.SE * r.SE / float64(seeds)
	}
	gm, gse := meanSE(all)
	_, pse := meanSE(ps)
	varAcross := pse * pse * float64(len(ps)) // the sample variance of the seeds' P
	return float64(covered) / float64(seeds), (gm - want) / gse, meanVar / varAcross
}

func meanSE(xs []float64) (mean, se float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(xs)-1) / float64(len(xs)))
}

// TestGamblersRuinCoverage: the gambler's ruin from 1 with up-probability p reaches B before 0
// with probability (1 − r)/(1 − r^B), r = q/p. With levels 2…B (N = 200, R = 5), over 40
// independent seeds the 95 % intervals cover the closed form about 95 % of the time (≥ 85 %
// demanded: fewer than 34 of 40 has probability < 1 % at 95 % coverage, ~5 % at the 91 % seen
// with N = 100), the 200 pooled repetitions are unbiased (|z| < 3.5), and the standard error
// matches the spread across seeds (mean SE² over the variance of P across seeds in [0.6, 1.6];
// with 40 seeds that ratio has a relative error of about 0.22).
func TestGamblersRuinCoverage(t *testing.T) {
	if raceEnabled {
		// 120 estimates take 10 s under the detector and add nothing to it: the concurrent
		// paths are those of TestDeterminism, which runs.
		t.Skip("statistical test, skipped under -race")
	}
	for _, c := range []struct {
		p float64
		b int
	}{
		{0.3, 17},  // 7.4e-7
		{0.2, 13},  // 4.5e-8
		{0.25, 14}, // 4.2e-7
	} {
		want := ruinProb(c.p, c.b)
		cfg := splitting.Config{Levels: intLevels(2, c.b), N: 200, Repetitions: 5, Workers: 2}
		cover, z, vr := coverage(t, walk{up: c.p, start: 1}, cfg, 40, want)
		t.Logf("p=%v B=%d P=%.3g: coverage %.3f, z of pooled mean %.2f, estimated/actual variance %.2f", c.p, c.b, want, cover, z, vr)
		if cover < 0.85 || math.Abs(z) > 3.5 || vr < 0.6 || vr > 1.6 {
			t.Errorf("p=%v B=%d: coverage %.3f, z %.2f, variance ratio %.2f", c.p, c.b, cover, z, vr)
		}
	}
}

// TestJumpingWalk: a walk that can also jump +2 overshoots levels, so some entrance states are
// already above the next level (StageResult.Jumped > 0). The estimate must still cover the
// exact probability, from the first-step equations (reachProb).
func TestJumpingWalk(t *testing.T) {
	w := walk{up: 0.15, up2: 0.1, start: 1}
	const b = 26 // P = 2.7e-7
	want := reachProb(w, b)
	cfg := splitting.Config{Levels: intLevels(2, b), N: 200, Repetitions: 20, Seed: 3, Workers: 2}
	r, err := splitting.Estimate(context.Background(), cfg, w)
	if err != nil {
		t.Fatal(err)
	}
	jumped := 0
	for _, rep := range r.Stages {
		for _, s := range rep {
			jumped += s.Jumped
		}
	}
	t.Logf("exact %.4g; splitting %.4g [%.4g, %.4g], relative error %.3f, cost %.3g, %d starts jumped", want, r.P, r.CILo, r.CIHi, r.RelErr, r.Cost, jumped)
	if jumped == 0 {
		t.Fatal("no entrance state overshot a level: the test does not exercise Jumped")
	}
	if want < r.CILo || want > r.CIHi {
		t.Fatalf("interval [%.4g, %.4g] misses the exact %.4g", r.CILo, r.CIHi, want)
	}
}

// TestAgreesWithBruteForce: where the event is not rare (gambler's ruin, p = 0.4, B = 6:
// P = 0.0481), splitting and plain replication on the same model agree: both intervals cover the
// closed form, so they overlap.
func TestAgreesWithBruteForce(t *testing.T) {
	ctx := context.Background()
	m := walk{up: 0.4, start: 1}
	want := ruinProb(0.4, 6)
	s, err := splitting.Estimate(ctx, splitting.Config{Levels: intLevels(2, 6), N: 500, Repetitions: 10, Seed: 11, Workers: 2}, m)
	if err != nil {
		t.Fatal(err)
	}
	b, err := splitting.BruteForce(ctx, 20000, 6, 11, 2, m)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("closed form %.4f; splitting %.4f [%.4f, %.4f] cost %.3g; brute force %.4f [%.4f, %.4f] cost %.3g",
		want, s.P, s.CILo, s.CIHi, s.Cost, b.P, b.CILo, b.CIHi, b.Cost)
	for name, r := range map[string]splitting.Result{"splitting": s, "brute force": b} {
		if want < r.CILo || want > r.CIHi {
			t.Errorf("%s: [%.4f, %.4f] misses %.4f", name, r.CILo, r.CIHi, want)
		}
	}
	if s.CIHi < b.CILo || b.CIHi < s.CILo {
		t.Errorf("the intervals do not overlap")
	}
}

// TestEqualCostBruteForceSeesNothing: at P ≈ 5e-8 (gambler's ruin p = 0.3, B = 20), give plain
// replication the cost that splitting spent. Brute force sees no hit — its interval is [0, u]
// with u far above P — while splitting gives a finite estimate with relative error below 0.5
// whose interval covers the closed form.
func TestEqualCostBruteForceSeesNothing(t *testing.T) {
	ctx := context.Background()
	m := walk{up: 0.3, start: 1}
	want := ruinProb(0.3, 20)
	s, err := splitting.Estimate(ctx, splitting.Config{Levels: intLevels(2, 20), N: 100, Repetitions: 10, Seed: 5, Workers: 2}, m)
	if err != nil {
		t.Fatal(err)
	}
	// A plain run from 1 lasts 1/(q − p) = 2.5 steps on average (Wald): size brute force to
	// the same total cost.
	n := int(s.Cost * (0.7 - 0.3))
	b, err := splitting.BruteForce(ctx, n, 20, 5, 2, m)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("closed form %.3g; splitting %.3g [%.3g, %.3g], relative error %.3f, cost %.3g; brute force %d runs: %d hits, [%.3g, %.3g], cost %.3g",
		want, s.P, s.CILo, s.CIHi, s.RelErr, s.Cost, n, b.Stages[0][0].Hits, b.CILo, b.CIHi, b.Cost)
	t.Logf("work-normalised relative variance: splitting %.3g; brute force needs %.3g steps for the same relative error",
		s.RelVarCost(), (1-want)/want*2.5/(s.RelErr*s.RelErr))
	if math.Abs(b.Cost-s.Cost) > 0.05*s.Cost {
		t.Fatalf("costs differ: brute force %.3g, splitting %.3g", b.Cost, s.Cost)
	}
	if b.P != 0 || !math.IsInf(b.RelErr, 1) || b.CIHi < 100*want {
		t.Errorf("brute force estimated %.3g (relative error %.3g, interval up to %.3g) at equal cost", b.P, b.RelErr, b.CIHi)
	}
	if !(s.P > 0 && s.RelErr < 0.5) || want < s.CILo || want > s.CIHi {
		t.Errorf("splitting: %.3g [%.3g, %.3g], relative error %.3f", s.P, s.CILo, s.CIHi, s.RelErr)
	}
}

// TestHorizon: with a finite horizon, some entrance states are at the horizon itself, so their
// branches have nothing left to observe and must count as misses, not errors. The estimate
// covers the exact probability of reaching B before 0 within the horizon (a forward recursion on
// the distribution of the walk), and CheckReplay accepts a path that hits at the horizon.
func TestHorizon(t *testing.T) {
	const b, horizon = 9, 16
	w := walk{up: 0.4, start: 1, horizon: horizon}
	// dist[x] = P(at x at step t, not absorbed, B not reached yet).
	want, dist := 0.0, map[int]float64{1: 1}
	for range horizon {
		next := map[int]float64{}
		for x, q := range dist {
			next[x+1] += q * w.up
			next[x-1] += q * (1 - w.up)
		}
		want += next[b]
		delete(next, b)
		delete(next, 0)
		dist = next
	}
	rec := &recorder{Model: w}
	r, err := splitting.Estimate(context.Background(), splitting.Config{Levels: intLevels(2, b), N: 200, Repetitions: 10, Seed: 8, Workers: 2}, rec)
	if err != nil {
		t.Fatal(err)
	}
	atHorizon := 0
	for _, c := range rec.calls {
		if l, ok := c.path.Last(); ok && l.At == horizon {
			atHorizon++
			if c.stop.Hit || c.stop.At != horizon {
				t.Fatalf("branch at the horizon: %+v", c.stop)
			}
		}
	}
	t.Logf("exact %.4g; splitting %.4g [%.4g, %.4g], relative error %.3f; %d runs branched at the horizon", want, r.P, r.CILo, r.CIHi, r.RelErr, atHorizon)
	if atHorizon == 0 {
		t.Fatal("no run branched at the horizon: the test does not exercise it")
	}
	if want < r.CILo || want > r.CIHi {
		t.Errorf("interval [%.4g, %.4g] misses the exact %.4g", r.CILo, r.CIHi, want)
	}
	for _, c := range rec.calls {
		if c.stop.Hit && c.stop.At == horizon {
			if err := splitting.CheckReplay(context.Background(), w, c.path, c.level); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatal("no run hit at the horizon")
}
