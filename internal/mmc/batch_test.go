package mmc

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/internal/queueing"
)

// TestWaitCICoversErlangC checks the batch-means interval of one run: at 95 % it must contain
// Erlang C's exact Wq in most seeds. A correct interval misses one seed in twenty on average;
// 20 seeds with at most 3 misses (at least 17 covering) leave room for the chance of 4 or more
// misses with exact coverage, 1.6 %, and for the slight undercoverage of batches that are not
// quite independent. The seeds are fixed, so the test is deterministic.
//
// The horizons are short (tens of thousands of customers a run), but each batch stays many
// times longer than the wait's autocorrelation time, which grows as 1/(1−ρ)².
func TestWaitCICoversErlangC(t *testing.T) {
	for _, tc := range []struct {
		lambda, mu      float64
		c               int
		horizon, warmup time.Duration
	}{
		{lambda: 5, mu: 10, c: 1, horizon: 4000 * time.Second, warmup: 100 * time.Second},  // ρ = 0.5
		{lambda: 200, mu: 100, c: 4, horizon: 100 * time.Second, warmup: 5 * time.Second},  // ρ = 0.5
		{lambda: 320, mu: 100, c: 4, horizon: 200 * time.Second, warmup: 10 * time.Second}, // ρ = 0.8
		{lambda: 1600, mu: 200, c: 10, horizon: 40 * time.Second, warmup: 2 * time.Second}, // ρ = 0.8
	} {
		t.Run(fmt.Sprintf("M/M/%d λ=%g μ=%g", tc.c, tc.lambda, tc.mu), func(t *testing.T) {
			want := queueing.MMcWait(tc.lambda, tc.mu, tc.c)
			covered := 0
			for seed := uint64(1); seed <= 20; seed++ {
				r, err := Run(Config{Lambda: tc.lambda, Mu: tc.mu, C: tc.c, Horizon: tc.horizon, Warmup: tc.warmup, Seed: seed})
				if err != nil {
					t.Fatal(err)
				}
				mean, half := r.WaitCI(0.95)
				if mean != r.MeanWait || !(half > 0) {
					t.Fatalf("seed %d: WaitCI = %v ± %v, want MeanWait %v ± a positive half-width", seed, mean, half, r.MeanWait)
				}
				if math.Abs(mean-want) <= half {
					covered++
				} else {
					t.Logf("seed %d: %.6f ± %.6f s misses Erlang C %.6f s", seed, mean, half, want)
				}
			}
			if covered < 17 {
				t.Errorf("the 95 %% interval contains Erlang C's Wq %.6f s in %d of 20 seeds, want at least 17", want, covered)
			}
		})
	}
}
