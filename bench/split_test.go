package bench

import (
	"context"
	"github.com/overloadsim/overloadsim/scenarios"
	"math"
	"testing"

	"github.com/overloadsim/overloadsim/analysis/splitting"
	"github.com/overloadsim/overloadsim/results"
)

// tinyCut is a small scenario whose runs stick after a CPU cut with a probability that the cut's
// length sets: a node at 60 % load, application retries on a 100 ms timeout.
func tinyCut(t testing.TB, cut string) *scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.Parse("tiny-cut", []byte(`
name: tiny-cut
duration: 12s
topology:
  nodes:
    - {name: db, workers: 2, service: exp(5ms)}
clients:
  - name: app
    count: 2
    workload: {rate: 240/s}
    mix: {find: 1}
    appRetry: {attempts: 3, perAttemptTimeout: 100ms}
faults:
  - {name: cpu-cut, kind: capacity, node: db, at: 4s, speed: 0.6, for: `+cut+`}
`))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestSplitModelReplay: the scenario model keeps splitting's contract — a path replays its
// parent's prefix exactly and continues differently after a branch, runs are deterministic and
// independent of the level, and a branch's cost includes its replayed prefix.
func TestSplitModelReplay(t *testing.T) {
	m := &SplitModel{Scenario: tinyCut(t, "460ms"), Score: results.ScoreBacklog}
	ctx := context.Background()
	for _, p := range []splitting.Path{
		{Root: 1},
		{Root: 2, Branches: []splitting.Branch{{At: 5, Key: 77}}},
		{Root: 3, Branches: []splitting.Branch{{At: 4, Key: 5}, {At: 6, Key: 9}}},
	} {
		if err := splitting.CheckReplay(ctx, m, p, 50); err != nil {
			t.Errorf("path %s: %v", p, err)
		}
	}
	// A branch at the horizon sees nothing more: a miss where it stands.
	st, err := m.Run(ctx, splitting.Path{Root: 1, Branches: []splitting.Branch{{At: m.Checkpoints(), Key: 3}}}, 1)
	if err != nil || st.Hit || st.At != m.Checkpoints() {
		t.Errorf("branch at the horizon: %+v, %v; want a miss at checkpoint %d", st, err, m.Checkpoints())
	}
}

// TestSplittingAgreesWithBruteForce: where sticking is not rare (after a cut of 460 ms the
// backlog passes 200 in about one run in ten), multilevel splitting on the backlog and plain replication estimate the same
// probability: their 95 % intervals overlap.
func TestSplittingAgreesWithBruteForce(t *testing.T) {
	if testing.Short() {
		t.Skip("runs about 600 short simulations")
	}
	m := &SplitModel{Scenario: tinyCut(t, "460ms"), Score: results.ScoreBacklog}
	ctx := context.Background()
	const top = 200
	bf, err := splitting.BruteForce(ctx, 200, top, 11, 0, m)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := splitting.Estimate(ctx, splitting.Config{Levels: []float64{5, 30, top}, N: 40, Repetitions: 5, Seed: 12}, m)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("brute force %.3f [%.3f, %.3f]; splitting %.3f [%.3f, %.3f] rel. error %.2f", bf.P, bf.CILo, bf.CIHi, sp.P, sp.CILo, sp.CIHi, sp.RelErr)
	if bf.P < 0.02 || bf.P > 0.98 {
		t.Fatalf("brute force P = %.3f: the case is meant to be common enough for plain replication", bf.P)
	}
	if sp.CIHi < bf.CILo || bf.CIHi < sp.CILo {
		t.Errorf("intervals do not overlap: brute force [%.3f, %.3f], splitting [%.3f, %.3f]", bf.CILo, bf.CIHi, sp.CILo, sp.CIHi)
	}
	if math.IsNaN(sp.RelErr) || sp.RelErr > 0.5 {
		t.Errorf("splitting's relative error %.2f, want ≤ 0.5", sp.RelErr)
	}
}
