package workload

import (
	"errors"
	"math"
	"slices"
	"testing"
	"testing/quick"

	"github.com/overloadsim/overloadsim/sim"
)

// TestMixFrequencies checks that each kind is picked with probability weight/sum: over n picks
// its count is Binomial(n, p), so it must be within 4 standard deviations √(n·p·(1−p)) of n·p
// (normal approximation; every n·p here is at least 5000). A kind of weight 0 is never picked.
func TestMixFrequencies(t *testing.T) {
	const n = 200_000
	m, err := NewMix([]Weight{{"update", 10}, {"find", 60}, {"aggregate", 0}, {"insert", 25}, {"delete", 5}})
	if err != nil {
		t.Fatal(err)
	}
	counts := make([]int, m.Len())
	r := stream("mix")
	for range n {
		counts[m.Pick(r)]++
	}
	for i, k := range m.Kinds() {
		p := m.Prob(i)
		if p == 0 {
			if counts[i] != 0 {
				t.Errorf("%s (weight 0): picked %d times, want 0", k, counts[i])
			}
			continue
		}
		sd := math.Sqrt(n * p * (1 - p))
		if z := (float64(counts[i]) - n*p) / sd; math.Abs(z) > 4 {
			t.Errorf("%s: picked %d of %d times, want %.0f: off by %.2fσ (tolerance 4)", k, counts[i], n, n*p, z)
		}
	}
}

// TestMixCanonical checks that kinds are sorted whatever the input order, and the text.
func TestMixCanonical(t *testing.T) {
	a, err := NewMix([]Weight{{"insert", 30}, {"find", 70}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewMix([]Weight{{"find", 70}, {"insert", 30}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := a.Kinds(), []string{"find", "insert"}; !slices.Equal(got, want) {
		t.Errorf("Kinds() = %q, want %q", got, want)
	}
	if a.String() != b.String() || a.String() != "mix(find=70, insert=30)" {
		t.Errorf("String() = %q and %q, want mix(find=70, insert=30) for both", a, b)
	}
	if got := a.Kind(1); got != "insert" {
		t.Errorf("Kind(1) = %q, want insert", got)
	}
	if got := a.Prob(0); got != 0.7 {
		t.Errorf("Prob(0) = %v, want 0.7", got)
	}
	a.Kinds()[0] = "changed"
	if a.Kind(0) != "find" {
		t.Errorf("changing the slice Kinds returned changed the mix")
	}
	// One kind: always index 0, still one draw.
	one, err := NewMix([]Weight{{"find", 1}})
	if err != nil {
		t.Fatal(err)
	}
	r, src := countingStream("mix/one")
	for range 100 {
		if i := one.Pick(r); i != 0 {
			t.Fatalf("Pick() = %d on a single-kind mix", i)
		}
	}
	if src.n != 100 {
		t.Errorf("100 picks drew %d words, want 100 (one Float64 each)", src.n)
	}
}

// TestMixValidation checks every rule, with the exact message.
func TestMixValidation(t *testing.T) {
	tests := []struct {
		gloss   string
		weights []Weight
		want    string
	}{
		{"no kinds", nil, "workload: mix: []: must list at least one kind"},
		{"a negative weight", []Weight{{"find", 1}, {"insert", -1}},
			"workload: mix: insert: -1: must be a finite number ≥ 0"},
		{"a NaN weight", []Weight{{"find", math.NaN()}},
			"workload: mix: find: NaN: must be a finite number ≥ 0"},
		{"an infinite weight", []Weight{{"find", math.Inf(1)}},
			"workload: mix: find: +Inf: must be a finite number ≥ 0"},
		{"all weights 0", []Weight{{"find", 0}, {"insert", 0}},
			"workload: mix: weights summing to 0: the sum must be finite and > 0"},
		{"weights summing beyond float range", []Weight{{"find", math.MaxFloat64}, {"insert", math.MaxFloat64}},
			"workload: mix: weights summing to +Inf: the sum must be finite and > 0"},
		{"an empty kind", []Weight{{"find", 1}, {"", 1}}, `workload: mix: weights[1].kind: "": must not be empty`},
		{"a kind listed twice, and a bad weight", []Weight{{"find", 1}, {"insert", 1}, {"find", -2}},
			`workload: mix: weights[2].kind: "find": listed twice` + "\n" +
				"workload: mix: find: -2: must be a finite number ≥ 0"},
	}
	for _, tt := range tests {
		m, err := NewMix(tt.weights)
		switch {
		case err == nil:
			t.Errorf("%s: got %v, want error %q", tt.gloss, m, tt.want)
		case err.Error() != tt.want:
			t.Errorf("%s: error\n%s\nwant\n%s", tt.gloss, err, tt.want)
		case !errors.Is(err, ErrInvalid):
			t.Errorf("%s: errors.Is(%v, ErrInvalid) = false", tt.gloss, err)
		}
	}
}

// TestPickAgainstLinearScan checks the binary search against the obvious linear scan of the
// cumulative weights, on random mixes (many zero weights, at either end too) and the same u.
func TestPickAgainstLinearScan(t *testing.T) {
	kinds := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
	check := func(seed uint64) bool {
		r := sim.NewStream(seed, "workload/test/pick")
		var ws []Weight
		for _, k := range kinds[:1+r.IntN(len(kinds))] {
			w := 0.0
			if r.IntN(2) == 0 {
				w = r.Float64() * 100
			}
			ws = append(ws, Weight{k, w})
		}
		m, err := NewMix(ws)
		if err != nil {
			return true // all zero: rejected, as TestMixValidation checks
		}
		sum := 0.0
		for _, w := range ws {
			sum += w.Weight
		}
		for range 100 {
			s1, s2 := r.Uint64(), r.Uint64()
			got := m.Pick(sim.NewStream(s1^s2, "pick"))
			u := sim.NewStream(s1^s2, "pick").Float64()
			want, acc := -1, 0.0
			for i, w := range ws { // ws is already sorted: kinds are in order
				acc += w.Weight
				if w.Weight > 0 && u < acc/sum {
					want = i
					break
				}
			}
			if want < 0 { // acc/sum rounded below 1: the last kind with weight
				for i, w := range ws {
					if w.Weight > 0 {
						want = i
					}
				}
			}
			if got != want {
				t.Errorf("seed %d: %v.Pick with u = %v = %d, linear scan %d", seed, m, u, got, want)
				return false
			}
		}
		return true
	}
	if err := quick.Check(check, &quick.Config{MaxCount: 500, Rand: newQuickRand()}); err != nil {
		t.Error(err)
	}
}

// TestPickZeroMix checks the message of the one misuse Pick panics on.
func TestPickZeroMix(t *testing.T) {
	defer func() {
		if got := recover(); got != "workload: Pick on a Mix not made by NewMix" {
			t.Errorf("recover() = %v", got)
		}
	}()
	var m Mix
	m.Pick(stream("zero"))
}
