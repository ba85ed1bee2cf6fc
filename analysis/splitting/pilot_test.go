package splitting_test

import (
	"context"
	"strings"
	"testing"

	"github.com/overloadsim/overloadsim/analysis/splitting"
)

// TestPilotThenEstimate: adaptive levels (Cérou & Guyader 2007) chosen by a pilot, then used with
// other seeds by Estimate, give intervals that cover the exact probability — for the gambler's
// ruin (closed form) and for walks with jumps (first-step equations), where the scores reached
// are integers and tie at the quantile, and where an entrance state can already be above the next
// level (with P0 = 0.5 the third case needs that entrance as it is, not a branch of it). A single
// 95 % interval misses one time in twenty, so each case runs three seeds and demands that two
// cover (a 95 % interval fails that with probability 0.7 %).
func TestPilotThenEstimate(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		w      walk
		target int
		p0     float64
	}{
		{walk{up: 0.3, start: 1}, 20, 0.2},
		{walk{up: 0.15, up2: 0.1, start: 1}, 30, 0.2},
		{walk{up: 0.05, up2: 0.3, start: 1}, 25, 0.5},
	} {
		want := reachProb(c.w, c.target)
		pilot, err := splitting.Pilot(ctx, splitting.PilotConfig{Target: float64(c.target), N: 200, P0: c.p0, Seed: 3, Workers: 2}, c.w)
		if err != nil {
			t.Fatal(err)
		}
		for i := 1; i < len(pilot.Levels); i++ {
			if pilot.Levels[i] <= pilot.Levels[i-1] {
				t.Fatalf("pilot levels %v: not strictly increasing", pilot.Levels)
			}
		}
		if pilot.Levels[len(pilot.Levels)-1] != float64(c.target) {
			t.Fatalf("pilot levels %v: the last is not the target %d", pilot.Levels, c.target)
		}
		t.Logf("%+v to %d: exact %.3g; pilot %.3g (cost %.3g), levels %v", c.w, c.target, want, pilot.P, pilot.Cost, pilot.Levels)
		covered := 0
		for seed := range uint64(3) {
			// N follows the package documentation: with p_k ≈ 0.2 and up to 17 levels,
			// Σ (1 − p_k)/(N p_k) ≈ 0.1 needs N ≈ 600.
			r, err := splitting.Estimate(ctx, splitting.Config{Levels: pilot.Levels, N: 600, Repetitions: 5, Seed: seed + 1, Workers: 2}, c.w)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("  seed %d: %.3g [%.3g, %.3g], relative error %.3f, cost %.3g", seed+1, r.P, r.CILo, r.CIHi, r.RelErr, r.Cost)
			if r.CILo <= want && want <= r.CIHi {
				covered++
			}
		}
		if covered < 2 {
			t.Errorf("%+v: %d of 3 intervals cover %.3g", c.w, covered, want)
		}
	}
}

// TestPilotFailsWhereItCannotClimb: a walk that only goes down never rises above its first
// checkpoint; a target too far for MaxLevels is reported as such.
func TestPilotFailsWhereItCannotClimb(t *testing.T) {
	ctx := context.Background()
	_, err := splitting.Pilot(ctx, splitting.PilotConfig{Target: 10, N: 20, P0: 0.2}, walk{up: 0, start: 5})
	if err == nil || !strings.Contains(err.Error(), "no run went above level 4") {
		t.Errorf("down-only walk: %v", err)
	}
	_, err = splitting.Pilot(ctx, splitting.PilotConfig{Target: 30, N: 50, P0: 0.2, MaxLevels: 3}, walk{up: 0.3, start: 1})
	if err == nil || !strings.Contains(err.Error(), "MaxLevels = 3") {
		t.Errorf("MaxLevels 3: %v", err)
	}
}
