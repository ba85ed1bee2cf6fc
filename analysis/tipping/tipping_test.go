package tipping

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/field"
)

// base is the Config most tests start from: [10, 60] to within 1, batches of 10, at most 100.
func base() Config {
	return Config{Lo: 10, Hi: 60, Increasing: true, Precision: 1, Batch: 10, MaxReps: 100, Workers: 1}
}

// Rule: a look's verdict is the exact binomial test of P(stuck) = 1/2 at level β, one-sided in
// each direction, with undecided runs left out; and the reported Clopper–Pearson interval
// excludes 1/2 exactly when there is a verdict.
func TestJudge(t *testing.T) {
	tail := func(n, k int) float64 { // P(Bin(n, 1/2) ≥ k) by brute force
		var p float64
		for i := k; i <= n; i++ {
			c := 1.0
			for j := 0; j < i; j++ {
				c = c * float64(n-j) / float64(j+1)
			}
			p += c
		}
		return p / math.Pow(2, float64(n))
	}
	for _, tc := range []struct {
		s, r int
		beta float64
		want Verdict
	}{
		{0, 0, 0.05, Open},
		{5, 0, 0.05, StuckSide},     // 2^−5 = 0.031
		{4, 0, 0.05, Open},          // 2^−4 = 0.0625
		{0, 5, 0.05, RecoveredSide}, // mirrored
		{18, 2, 6.25e-4, StuckSide}, // 211/2^20 = 2.0e-4
		{17, 3, 6.25e-4, Open},      // 1351/2^20 = 1.3e-3
		{3, 17, 6.25e-4, Open},      // mirrored
		{2, 18, 6.25e-4, RecoveredSide},
		{50, 50, 0.3, Open},         // exactly balanced never decides
		{60, 40, 0.05, StuckSide},   // P(≥60 | 100) = 0.028
		{59, 41, 0.03, Open},        // P(≥59 | 100) = 0.044
		{11, 0, 6.25e-4, StuckSide}, // 2^−11 = 4.9e-4
		{10, 0, 6.25e-4, Open},      // 2^−10 = 9.8e-4
	} {
		got := judge(tc.s, tc.r, tc.beta)
		if got != tc.want {
			t.Errorf("judge(%d stuck, %d recovered, β=%g) = %v, want %v (tails %.3g, %.3g)",
				tc.s, tc.r, tc.beta, got, tc.want, tail(tc.s+tc.r, tc.s), tail(tc.s+tc.r, tc.r))
		}
	}
	for n := 1; n <= 60; n++ {
		for s := 0; s <= n; s++ {
			if d := math.Abs(halfTail(n, s) - tail(n, s)); d > 1e-12 {
				t.Fatalf("halfTail(%d, %d) off by %g", n, s, d)
			}
			for _, beta := range []float64{0.05, 1e-3, 1e-5} {
				v := judge(s, n-s, beta)
				lo, hi := clopperPearson(s, n-s, beta)
				if (v == StuckSide) != (lo > 0.5) || (v == RecoveredSide) != (hi < 0.5) || lo > float64(s)/float64(n) || hi < float64(s)/float64(n) {
					t.Fatalf("n=%d s=%d β=%g: verdict %v but interval [%g, %g]", n, s, beta, v, lo, hi)
				}
			}
		}
	}
}

// Rule: a bad Config is refused with an error naming the field and its value.
func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"Lo not below Hi", func(c *Config) { c.Lo = 60 }, "Config: Lo: 60: must be less than Hi = 60"},
		{"Lo NaN", func(c *Config) { c.Lo = math.NaN() }, "Config: Lo: NaN: must be finite"},
		{"Hi infinite", func(c *Config) { c.Hi = math.Inf(1) }, "Config: Hi: +Inf: must be finite"},
		{"Precision zero", func(c *Config) { c.Precision = 0 }, "Config: Precision: 0: must be greater than 0"},
		{"Precision negative", func(c *Config) { c.Precision = -1 }, "Config: Precision: -1: must be greater than 0"},
		{"Precision too wide", func(c *Config) { c.Precision = 50 }, "Config: Precision: 50: must be less than Hi − Lo = 50"},
		{"Precision too fine", func(c *Config) { c.Precision = 1e-300 }, "Config: Precision: 1e-300: is too small"},
		{"Batch zero", func(c *Config) { c.Batch = 0 }, "Config: Batch: 0: must be at least 1"},
		{"MaxReps below Batch", func(c *Config) { c.MaxReps = 5 }, "Config: MaxReps: 5: must be at least Batch = 10"},
		{"MaxReps too few for a verdict", func(c *Config) { c.Batch, c.MaxReps = 1, 10 }, "Config: MaxReps: 10: is too few: even 10 of 10 runs stuck would not pass the test at level 0.00063 per look (confidence 0.95 over 8 probes × 10 looks); needs at least 11"},
		{"Confidence one", func(c *Config) { c.Confidence = 1 }, "Config: Confidence: 1: must be between 0 and 1"},
		{"Integer fractional Lo", func(c *Config) { c.Integer, c.Lo = true, 10.5 }, "Config: Lo: 10.5: must be a whole number"},
		{"Integer Precision below 1", func(c *Config) { c.Integer, c.Precision = true, 0.5 }, "Config: Precision: 0.5: must be at least 1 when Integer is set"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := base()
			tc.edit(&cfg)
			calls := 0
			_, err := Search(context.Background(), cfg, func(float64, int) (Outcome, error) { calls++; return Stuck, nil })
			var fe *field.Error
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want a *field.Error containing %q", err, tc.want)
			}
			if calls != 0 {
				t.Errorf("probe called %d times for a bad Config", calls)
			}
		})
	}
	if _, err := Search(context.Background(), base(), nil); err == nil {
		t.Error("nil Probe accepted")
	}
}

// Rule: a Config with several bad fields is refused with every one of them at once, each a
// *field.Error (docs/conventions.md §6).
func TestConfigErrorsAll(t *testing.T) {
	cfg := base()
	cfg.Hi, cfg.Batch, cfg.Confidence = math.NaN(), 0, 2
	_, err := Search(context.Background(), cfg, func(float64, int) (Outcome, error) { return Stuck, nil })
	var got []string
	for _, p := range field.Parts(err) {
		var fe *field.Error
		if !errors.As(p, &fe) {
			t.Fatalf("part %v holds no *field.Error", p)
		}
		got = append(got, fe.Field)
	}
	if want := []string{"Hi", "Batch", "Confidence"}; !slices.Equal(got, want) {
		t.Errorf("Search(Hi NaN, Batch 0, Confidence 2) reports fields %v, want %v (err %v)", got, want, err)
	}
}

// Rule: on a noise-free step the search converges to the step within Precision with the
// fewest probes (2 ends + ⌈log2((Hi−Lo)/Precision)⌉ midpoints, which is also MaxProbes; for
// integers bisection rounds down, so a path can be one shorter), each decided at the first look
// that can decide, in either direction and for integer parameters.
func TestStep(t *testing.T) {
	for _, tc := range []struct {
		name           string
		cfg            func() Config
		step           float64
		wantLo, wantHi float64
		wantProbes     int
	}{
		{"increasing", base, 37.3, 36.5625, 37.34375, 8},
		{"decreasing", func() Config { c := base(); c.Increasing = false; return c }, 37.3, 36.5625, 37.34375, 8},
		{"at a grid point", base, 35, 34.21875, 35, 8},
		{"near Lo", base, 10.2, 10, 10.78125, 8},
		{"near Hi", base, 59.9, 59.21875, 60, 8},
		{"fine precision", func() Config { c := base(); c.Precision = 0.001; return c }, 37.3, 37.29949951171875, 37.300262451171875, 18},
		{"integer", func() Config { c := base(); c.Lo, c.Hi, c.Integer = 0, 100, true; return c }, 37, 36, 37, 9},
		{"integer decreasing", func() Config { c := base(); c.Lo, c.Hi, c.Integer, c.Increasing = 0, 100, true, false; return c }, 37, 37, 38, 8}, // floor halving can reach width 1 in 6 steps
		{"integer precision 4", func() Config { c := base(); c.Lo, c.Hi, c.Integer, c.Precision = 0, 100, true, 4; return c }, 37, 34, 37, 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg()
			res, err := Search(context.Background(), cfg, stepProbe(tc.step, cfg.Increasing))
			if err != nil {
				t.Fatal(err)
			}
			if res.Lo != tc.wantLo || res.Hi != tc.wantHi || !res.Converged || res.Hi-res.Lo > cfg.Precision {
				t.Errorf("bracket [%v, %v] converged %v, want [%v, %v]", res.Lo, res.Hi, res.Converged, tc.wantLo, tc.wantHi)
			}
			if res.Boundary != (res.Lo+res.Hi)/2 {
				t.Errorf("Boundary %v, want the midpoint of [%v, %v]", res.Boundary, res.Lo, res.Hi)
			}
			if len(res.Probes) != tc.wantProbes || res.MaxProbes < tc.wantProbes || (!cfg.Integer && res.MaxProbes != tc.wantProbes) {
				t.Errorf("%d probes, MaxProbes %d, want %d", len(res.Probes), res.MaxProbes, tc.wantProbes)
			}
			n := minVerdictReps(res.LookAlpha)
			want := (n + cfg.Batch - 1) / cfg.Batch * cfg.Batch
			for _, p := range res.Probes {
				if p.Replications != want || p.Undecided != 0 || (p.Stuck != 0 && p.Recovered != 0) {
					t.Errorf("probe %+v: want %d replications, all one way", p, want)
				}
			}
			if res.Fit != nil {
				t.Errorf("Fit %+v on separated data, want nil", *res.Fit)
			}
		})
	}
}

// Rule: with Increasing false the search is the mirror image of the increasing search on the
// mirrored problem: the same verdicts at mirrored points, the mirrored bracket.
func TestDecreasingMirrorsIncreasing(t *testing.T) {
	for seed := uint64(0); seed < 20; seed++ {
		inc := Config{Lo: 0, Hi: 64, Increasing: true, Precision: 1, Batch: 8, MaxReps: 200}
		dec := inc
		dec.Increasing = false
		up := logisticProbe(seed, 20+float64(seed), 1.5, true, seed%2 == 0)
		down := func(x float64, r int) (Outcome, error) { return up(64-x, r) }
		ri, erri := Search(context.Background(), inc, up)
		rd, errd := Search(context.Background(), dec, down)
		if erri != nil || errd != nil {
			t.Fatal(erri, errd)
		}
		if rd.Lo != 64-ri.Hi || rd.Hi != 64-ri.Lo || rd.Boundary != 64-ri.Boundary || rd.Converged != ri.Converged {
			t.Errorf("seed %d: decreasing [%v, %v] ~ %v, increasing [%v, %v] ~ %v: not mirrored", seed, rd.Lo, rd.Hi, rd.Boundary, ri.Lo, ri.Hi, ri.Boundary)
		}
		if len(rd.Probes) != len(ri.Probes) || len(ri.Probes) < 2 {
			t.Fatalf("seed %d: %d probes decreasing, %d increasing", seed, len(rd.Probes), len(ri.Probes))
		}
		for k := range ri.Probes {
			j := k // the ends are listed Lo first, so they swap
			if k < 2 {
				j = 1 - k
			}
			a, b := ri.Probes[j], rd.Probes[k]
			if b.X != 64-a.X || a.Stuck != b.Stuck || a.Recovered != b.Recovered || a.Verdict != b.Verdict {
				t.Errorf("seed %d: probe %d %+v does not mirror %+v", seed, k, b, a)
			}
		}
	}
}

// Rule: the true crossing lies in [Lo, Hi] with probability at least Confidence. Checked on 200
// hash-based synthetic problems per level, with P(stuck | x) logistic, varied widths, slopes
// (some much wider than Precision, so the search stops at ties), directions, and with and
// without common random numbers. A failed search counts as a miss.
func TestCoverage(t *testing.T) {
	scales := []float64{0.001, 0.005, 0.02, 0.05} // × (Hi − Lo); x* is at least 5 scales from the ends
	for _, conf := range []float64{0.8, 0.95} {
		misses, ties, probes := 0, 0, 0
		const problems = 200
		for k := range problems {
			seed := uint64(k) + uint64(conf*1000)<<32
			w := 10 + 20*float64(k%5)
			cfg := Config{
				Lo: float64(k%13) - 5, Increasing: k%2 == 0, Precision: w / float64(int(8)<<(k%4)),
				Batch: 5 + 5*(k%3), MaxReps: 60 + 60*(k%3), Confidence: conf,
			}
			cfg.Hi = cfg.Lo + w
			xstar := cfg.Lo + w*(0.25+0.5*uniform(seed, 0, -1, true))
			scale := scales[(k/4)%4] * w
			inner := logisticProbe(seed, xstar, scale, cfg.Increasing, (k/2)%2 == 0)
			probe := func(x float64, r int) (Outcome, error) {
				if x < cfg.Lo || x > cfg.Hi {
					return 0, fmt.Errorf("x=%v outside [%v, %v]", x, cfg.Lo, cfg.Hi)
				}
				return inner(x, r)
			}
			res, err := Search(context.Background(), cfg, probe)
			probes += len(res.Probes)
			if !res.Converged {
				ties++
			}
			if err != nil || res.Lo > xstar || xstar > res.Hi {
				misses++
				t.Logf("confidence %g, problem %d: x* = %v, bracket [%v, %v], err %v", conf, k, xstar, res.Lo, res.Hi, err)
			}
			if err == nil && (res.Confidence != conf || res.Lo < cfg.Lo || res.Hi > cfg.Hi || res.Lo >= res.Hi) {
				t.Errorf("problem %d: bad result %+v", k, res)
			}
		}
		t.Logf("confidence %g: %d of %d brackets miss x*, %d stopped at ties, %.1f probes on average",
			conf, misses, problems, ties, float64(probes)/problems)
		if allowed := int((1 - conf) * problems); misses > allowed {
			t.Errorf("confidence %g: %d of %d brackets miss x*, more than %d", conf, misses, problems, allowed)
		}
		if ties == 0 || ties == problems {
			t.Errorf("confidence %g: %d ties in %d problems; the test set should have both kinds", conf, ties, problems)
		}
	}
}

// Rule: ends that do not bracket a flip give an *EndsError that says in words what was seen,
// with the counts, and the ends' evidence.
func TestEnds(t *testing.T) {
	for _, tc := range []struct {
		name       string
		increasing bool
		lo, hi     func(r int) Outcome // outcome at Lo and at Hi
		want       string
	}{
		{"both stuck", true,
			func(r int) Outcome { return Stuck }, func(r int) Outcome { return Stuck },
			"tipping: no flip between 10 and 60: both stuck (20/20 and 20/20 replications)"},
		{"both stuck, noisy", true,
			func(r int) Outcome { return map[bool]Outcome{true: Recovered, false: Stuck}[r%10 == 3] },
			func(r int) Outcome { return Stuck },
			"tipping: no flip between 10 and 60: both stuck (18/20 and 20/20 replications)"},
		{"both recovered", false,
			func(r int) Outcome { return Recovered }, func(r int) Outcome { return Recovered },
			"tipping: no flip between 10 and 60: both recovered (20/20 and 20/20 replications)"},
		{"both stuck with undecided", true,
			func(r int) Outcome { return map[bool]Outcome{true: Undecided, false: Stuck}[r%5 == 0] },
			func(r int) Outcome { return Stuck },
			"tipping: no flip between 10 and 60: both stuck (16/16 and 20/20 replications; 4 and 0 more undecided)"},
		{"the other way", true,
			func(r int) Outcome { return Stuck }, func(r int) Outcome { return Recovered },
			"tipping: the flip runs the other way between 10 and 60: stuck at 10 (20/20 stuck) but recovered at 60 (0/20 stuck), while Config.Increasing says increasing"},
		{"the other way, decreasing", false,
			func(r int) Outcome { return Recovered }, func(r int) Outcome { return Stuck },
			"tipping: the flip runs the other way between 10 and 60: recovered at 10 (0/20 stuck) but stuck at 60 (20/20 stuck), while Config.Increasing says decreasing"},
		{"tie at Lo", true,
			func(r int) Outcome { return Outcome(1 + r%2) }, func(r int) Outcome { return Stuck },
			"tipping: no verdict at the end 10 of [10, 60]: P(stuck) is indistinguishable from 1/2 there (50/100 stuck) while 60 is on the stuck side (20/20 stuck); the boundary is at or beyond 10 within the noise — widen the interval or raise MaxReps"},
		{"tie at Hi", true,
			func(r int) Outcome { return Recovered }, func(r int) Outcome { return Outcome(1 + r%2) },
			"tipping: no verdict at the end 60 of [10, 60]: P(stuck) is indistinguishable from 1/2 there (50/100 stuck) while 10 is on the recovered side (0/20 stuck); the boundary is at or beyond 60 within the noise — widen the interval or raise MaxReps"},
		{"ties at both", true,
			func(r int) Outcome { return Outcome(1 + r%2) }, func(r int) Outcome { return Outcome(1 + r%2) },
			"tipping: no verdict at either end between 10 and 60: P(stuck) is indistinguishable from 1/2 at both (50/100 stuck and 50/100 stuck)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := base()
			cfg.Increasing = tc.increasing
			res, err := Search(context.Background(), cfg, func(x float64, r int) (Outcome, error) {
				if x == cfg.Lo {
					return tc.lo(r), nil
				}
				if x == cfg.Hi {
					return tc.hi(r), nil
				}
				return 0, fmt.Errorf("probe at %v before the ends bracket a flip", x)
			})
			var ee *EndsError
			if !errors.As(err, &ee) {
				t.Fatalf("err = %v, want an *EndsError", err)
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("message\n%s\nwant prefix\n%s", err, tc.want)
			}
			if len(res.Probes) != 2 || ee.Lo != res.Probes[0] || ee.Hi != res.Probes[1] || res.Converged {
				t.Errorf("evidence %+v, error ends %+v %+v", res.Probes, ee.Lo, ee.Hi)
			}
		})
	}
}

// Rule: the Result does not depend on Workers, even when runs finish in a scrambled order.
func TestWorkersDoNotChangeResult(t *testing.T) {
	for _, tc := range []struct {
		name  string
		scale float64 // relative to Precision 1: small converges, large stops at a tie
	}{{"converges", 0.05}, {"tie", 5}} {
		t.Run(tc.name, func(t *testing.T) {
			inner := logisticProbe(7, 33.3, tc.scale, true, true)
			probe := func(x float64, r int) (Outcome, error) {
				time.Sleep(time.Duration(mix(uint64(r)^math.Float64bits(x))%200) * time.Microsecond)
				return inner(x, r)
			}
			var first Result
			for _, w := range []int{1, 2, 4, 8} {
				cfg := base()
				cfg.Batch, cfg.MaxReps, cfg.Workers = 7, 120, w
				res, err := Search(context.Background(), cfg, probe)
				if err != nil {
					t.Fatal(err)
				}
				if w == 1 {
					first = res
					continue
				}
				if !reflect.DeepEqual(res, first) {
					t.Errorf("Workers %d: %+v\nWorkers 1: %+v", w, res, first)
				}
			}
			if first.Converged != (tc.name == "converges") {
				t.Errorf("Converged = %v", first.Converged)
			}
		})
	}
}

// Rule: with Integer set every probe is at a whole number and the bracket has whole ends
// within ⌊Precision⌋.
func TestInteger(t *testing.T) {
	for _, prec := range []float64{1, 2.5, 7} {
		for _, step := range []float64{1, 2, 37, 99, 100} {
			cfg := Config{Lo: 0, Hi: 100, Increasing: true, Integer: true, Precision: prec, Batch: 4, MaxReps: 40}
			res, err := Search(context.Background(), cfg, func(x float64, r int) (Outcome, error) {
				if x != math.Trunc(x) {
					return 0, fmt.Errorf("x=%v not whole", x)
				}
				return stepProbe(step, true)(x, r)
			})
			if err != nil {
				t.Fatalf("precision %v, step %v: %v", prec, step, err)
			}
			if res.Lo != math.Trunc(res.Lo) || res.Hi != math.Trunc(res.Hi) || res.Hi-res.Lo > math.Floor(prec) ||
				!(res.Lo < step && step <= res.Hi) || len(res.Probes) > res.MaxProbes {
				t.Errorf("precision %v, step %v: bracket [%v, %v] after %d of %d probes", prec, step, res.Lo, res.Hi, len(res.Probes), res.MaxProbes)
			}
		}
	}
}

// Rule: a cancelled context stops the search between batches; the Result holds every run made
// as evidence and the error says the search was interrupted and wraps the cause.
func TestCancel(t *testing.T) {
	full, err := Search(context.Background(), base(), logisticProbe(3, 40, 0.1, true, true))
	if err != nil {
		t.Fatal(err)
	}
	for _, stopAt := range []int64{0, 5, 25, 95} {
		for _, workers := range []int{1, 4} {
			ctx, cancel := context.WithCancel(context.Background())
			var calls atomic.Int64
			if stopAt == 0 {
				cancel()
			}
			inner := logisticProbe(3, 40, 0.1, true, true)
			cfg := base()
			cfg.Workers = workers
			res, err := Search(ctx, cfg, func(x float64, r int) (Outcome, error) {
				if calls.Add(1) == stopAt {
					cancel()
				}
				return inner(x, r)
			})
			cancel()
			if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "interrupted") {
				t.Fatalf("stop at %d: err = %v, want interrupted, wrapping context.Canceled", stopAt, err)
			}
			if int64(res.Replications) != calls.Load() || res.Replications >= full.Replications || len(res.Probes) == 0 {
				t.Errorf("stop at %d: %d replications in the result, %d calls, %d in a full search", stopAt, res.Replications, calls.Load(), full.Replications)
			}
			// The evidence so far is the full search's, cut short.
			for k, p := range res.Probes {
				if q := full.Probes[k]; p.X != q.X || p.Replications > q.Replications || (p.Verdict != Open && p != q) {
					t.Errorf("stop at %d: probe %d %+v is not a prefix of %+v", stopAt, k, p, q)
				}
			}
			if last := res.Probes[len(res.Probes)-1]; last.Verdict != Open || last.Replications%cfg.Batch != 0 {
				t.Errorf("stop at %d: last probe %+v, want open after whole batches", stopAt, last)
			}
		}
	}
}

// Rule: a Probe error ends the search with an error that names x and the replication (the
// first failing replication by index, whatever the Workers) and wraps the cause.
func TestProbeError(t *testing.T) {
	boom := errors.New("simulator exploded")
	var msgs []string
	for _, w := range []int{1, 3, 8} {
		cfg := base()
		cfg.Workers = w
		res, err := Search(context.Background(), cfg, func(x float64, r int) (Outcome, error) {
			if x == 35 && r >= 13 {
				return 0, boom
			}
			return stepProbe(37, true)(x, r)
		})
		if !errors.Is(err, boom) || len(res.Probes) != 3 {
			t.Fatalf("Workers %d: err %v with %d probes", w, err, len(res.Probes))
		}
		msgs = append(msgs, err.Error())
	}
	want := "tipping: probe at x=35, replication 13: simulator exploded"
	for _, m := range msgs {
		if m != want {
			t.Errorf("message %q, want %q", m, want)
		}
	}
	if _, err := Search(context.Background(), base(), func(float64, int) (Outcome, error) { return 7, nil }); err == nil || !strings.Contains(err.Error(), "unknown outcome 7") {
		t.Errorf("bad outcome: err = %v", err)
	}
}

// Rule: undecided runs count as neither side, are reported, and many of them give a warning.
func TestUndecided(t *testing.T) {
	step := stepProbe(37.3, true)
	res, err := Search(context.Background(), base(), func(x float64, r int) (Outcome, error) {
		if r%4 == 0 {
			return Undecided, nil
		}
		return step(x, r)
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Lo != 36.5625 || res.Hi != 37.34375 {
		t.Errorf("bracket [%v, %v], want the step's", res.Lo, res.Hi)
	}
	for _, p := range res.Probes {
		if p.Undecided != p.Replications/4 || p.Stuck+p.Recovered+p.Undecided != p.Replications || p.Replications != 20 {
			t.Errorf("probe %+v", p)
		}
	}
	if len(res.Warnings) != len(res.Probes) || !strings.Contains(res.Warnings[0], "at x=10 5 of 20 replications were undecided (25 %)") {
		t.Errorf("warnings %q", res.Warnings)
	}
}

// Rule: a probe undecided after MaxReps is a tie: the search stops there, reports it as the
// boundary with the bracket around it, not converged, with a warning.
func TestTie(t *testing.T) {
	res, err := Search(context.Background(), base(), func(x float64, r int) (Outcome, error) {
		switch {
		case x < 30:
			return Recovered, nil
		case x > 40:
			return Stuck, nil
		}
		return Outcome(1 + r%2), nil // exactly balanced: never decides
	})
	if err != nil {
		t.Fatal(err)
	}
	last := res.Probes[len(res.Probes)-1]
	if res.Converged || last.Verdict != Tie || last.X != 35 || res.Boundary != 35 || res.Lo != 10 || res.Hi != 60 ||
		last.Replications != 100 || len(res.Probes) != 3 {
		t.Errorf("result %+v", res)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "stopped at a tie at x=35: 50 stuck and 50 recovered after 100 replications") {
		t.Errorf("warnings %q", res.Warnings)
	}
}

// Rule: when several runs of a round fail, the error reported is the first by replication
// index, not the first to finish (here all runs are in flight at once and all three failures
// happen).
func TestRunJobsFirstError(t *testing.T) {
	jobs := make([]job, 8)
	for i := range jobs {
		jobs[i] = job{x: 1, rep: i}
	}
	for range 20 {
		var started sync.WaitGroup
		started.Add(len(jobs))
		_, err := runJobs(jobs, len(jobs), func(x float64, r int) (Outcome, error) {
			started.Done()
			started.Wait() // every job has started: none is skipped after a failure
			if r == 3 || r == 5 || r == 6 {
				return 0, fmt.Errorf("failure %d", r)
			}
			return Stuck, nil
		})
		if err == nil || err.Error() != "tipping: probe at x=1, replication 3: failure 3" {
			t.Fatalf("err = %v, want replication 3's", err)
		}
	}
}
