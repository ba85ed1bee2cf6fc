package mongos

import (
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/sim"
)

// docs/model.md §7.3, BackoffWithJitter, after backoff_with_jitter's unit test: base 100ms, max
// 4000ms, jitter forced to its maximum; the i-th overload failure waits min(max, base·2^i).
func TestBackoffWithJitterMax(t *testing.T) {
	cfg := DefaultConfig()
	cfg.BaseBackoff, cfg.MaxBackoff = 100*time.Millisecond, 4000*time.Millisecond
	r := &Router{cfg: cfg, jitter: maxJitter{}}
	want := []time.Duration{0, 200, 400, 800, 1600, 3200, 4000, 4000}
	for i, w := range want {
		if got := r.backoff(i, 0); got != w*time.Millisecond {
			t.Errorf("backoff(i=%d) = %v, want %v", i, got, w*time.Millisecond)
		}
	}
}

// docs/model.md §7.3: a server-supplied baseBackoffMS replaces the base: min(max, override·2^i),
// with the default cap of 10s (override 1000: i=0 → 0, i=1 → 2000, i=2 → 4000).
func TestBackoffWithJitterBaseBackoffOverride(t *testing.T) {
	r := &Router{cfg: DefaultConfig(), jitter: maxJitter{}}
	for _, tc := range []struct {
		i    int
		want time.Duration
	}{
		{0, 0},
		{1, 2000 * time.Millisecond},
		{2, 4000 * time.Millisecond},
		{4, 10 * time.Second}, // 16000 capped at defaultClientMaxBackoffMillis
		{200, 10 * time.Second},
	} {
		if got := r.backoff(tc.i, 1000); got != tc.want {
			t.Errorf("backoff(i=%d, baseBackoffMS=1000) = %v, want %v", tc.i, got, tc.want)
		}
	}
}

// docs/model.md §7.3: i = 0 gives a delay of 0, and BackoffWithJitter draws nothing for it; nor for a
// cap of 0 (base 0, as the server's retry-cap jstest sets).
func TestBackoffNoDrawWithoutOverload(t *testing.T) {
	j := &countJitter{j: maxJitter{}}
	r := &Router{cfg: DefaultConfig(), jitter: j}
	if d := r.backoff(0, 0); d != 0 || j.draws != 0 {
		t.Errorf("backoff(0) = %v with %d draws, want 0 with none", d, j.draws)
	}
	r.cfg.BaseBackoff, r.cfg.MaxBackoff = 0, 0
	if d := r.backoff(3, 0); d != 0 || j.draws != 0 {
		t.Errorf("backoff(3) with base 0 = %v with %d draws, want 0 with none", d, j.draws)
	}
}

// docs/model.md §7.3: the delay is a uniform integer number of milliseconds in [0, cap], both ends
// included. With cap 2ms the three values are equally likely; 30000 draws put each within
// 1/3 ± 0.015 (more than 5 standard deviations, √(2/9/30000) ≈ 0.0027).
func TestBackoffUniformInclusive(t *testing.T) {
	cfg := DefaultConfig()
	cfg.BaseBackoff = time.Millisecond
	r := &Router{cfg: cfg, jitter: sim.NewStream(1, "test/jitter")}
	var n [3]int
	const draws = 30000
	for range draws {
		d := r.backoff(1, 0)
		if d < 0 || d > 2*time.Millisecond || d%time.Millisecond != 0 {
			t.Fatalf("backoff = %v, want 0, 1ms or 2ms", d)
		}
		n[d/time.Millisecond]++
	}
	for v, k := range n {
		if p := float64(k) / draws; p < 1.0/3-0.015 || p > 1.0/3+0.015 {
			t.Errorf("P(%dms) = %.4f, want 1/3 ± 0.015", v, p)
		}
	}
}

func TestBackoffCapNoOverflow(t *testing.T) {
	if got := backoffCap(1<<40, 1<<50, 1000); got != 1<<50 {
		t.Errorf("backoffCap(2^40, 2^50, 1000) = %d, want 2^50", got)
	}
}
