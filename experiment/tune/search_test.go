package tune

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/tune"
)

// tuneFixture is a tuning of one parameter x over lo:hi, maximising total.goodput subject to
// total.amplification <= 1.5 unless cons says otherwise.
func tuneFixture(t *testing.T, spec string, sense string, cons ...string) *tune.Tuning {
	t.Helper()
	p, err := results.ParseTuneParam(spec)
	if err != nil {
		t.Fatal(err)
	}
	var cs []results.TuneConstraint
	for _, s := range cons {
		c, err := results.ParseTuneConstraint(s, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, c)
	}
	hdr := results.Header{Tool: "overloadsim", Version: "test", Scenario: "fixture", Canonical: "name: fixture\n", Seed: 7}
	return tune.New(hdr, []results.TuneParam{p}, results.TuneObjective{Metric: "total.goodput", Sense: sense}, cs, 3, 1)
}

// withCandidates adds candidates to tu: one per entry, values (x) with goodput and amplification
// means and half-widths.
func withCandidates(tu *tune.Tuning, cands ...[5]float64) {
	for _, c := range cands {
		tc := tune.Candidate{Values: []float64{c[0]}, Params: []results.Param{{Path: tu.Params[0].Path, Value: tu.Params[0].Text(c[0])}}, Replications: tu.Replications}
		for _, m := range tu.Measures {
			st := results.MetricStats{Name: m.Name(), Mean: math.NaN(), CI95: math.NaN()}
			switch m.Metric {
			case "total.goodput":
				st.Mean, st.CI95 = c[1], c[2]
			case "total.amplification":
				st.Mean, st.CI95 = c[3], c[4]
			}
			tc.Metrics = append(tc.Metrics, st)
		}
		tu.AddCandidate(tc)
	}
}

// TestTuneSelect: feasibility, the recommendation and its tie-break, the runners-up, what each
// constraint excluded, and the message when nothing is feasible.
func TestTuneSelect(t *testing.T) {
	tests := []struct {
		gloss      string
		sense      string
		cons       []string
		cands      [][5]float64 // x, goodput, ci, amplification, ci
		feasible   []bool
		rec        int // -1: none
		runnersUp  []int
		excluded   []int
		infeasible string
	}{
		{"the best feasible, not the best", "maximize", []string{"total.amplification<=1.5"},
			[][5]float64{{0, 800, 10, 1, 0}, {1, 900, 10, 1.4, 0.1}, {2, 950, 10, 1.6, 0.1}},
			[]bool{true, true, false}, 1, nil, []int{1}, ""},
		{"feasibility is on the mean, not the interval", "maximize", []string{"total.amplification<=1.5"},
			[][5]float64{{0, 800, 10, 1.5, 0.3}, {1, 900, 10, 1.51, 0.3}},
			[]bool{true, false}, 0, nil, []int{1}, ""},
		{"runners-up overlap the recommendation's interval, best first", "maximize", []string{"total.amplification<=1.5"},
			[][5]float64{{0, 880, 12, 1, 0}, {1, 900, 10, 1.1, 0}, {2, 894, 2, 1.2, 0}, {3, 850, 10, 1.3, 0}},
			[]bool{true, true, true, true}, 1, []int{2, 0}, []int{0}, ""},
		{"a tie goes to the smaller value", "maximize", nil,
			[][5]float64{{3, 900, 10, 1, 0}, {1, 900, 10, 1, 0}, {2, 900, 10, 1, 0}},
			[]bool{true, true, true}, 1, []int{2, 0}, nil, ""},
		{"minimise", "minimize", nil,
			[][5]float64{{0, 800, 1, 1, 0}, {1, 700, 1, 1, 0}, {2, 750, 1, 1, 0}},
			[]bool{true, true, true}, 1, nil, nil, ""},
		{"an objective without a value is not feasible", "maximize", nil,
			[][5]float64{{0, math.NaN(), math.NaN(), 1, 0}, {1, 10, 1, 1, 0}},
			[]bool{false, true}, 1, nil, nil, ""},
		{"one constraint excludes everything", "maximize", []string{"total.amplification<=1.05", "total.goodput>=100"},
			[][5]float64{{0, 800, 10, 1.21, 0}, {1, 900, 10, 1.4, 0}},
			[]bool{false, false}, -1, nil, []int{2, 0},
			"no candidate met total.amplification ≤ 1.05: the least was 1.21 at x=0"},
		{"a lower bound excludes everything", "maximize", []string{"total.goodput>=1000/s"},
			[][5]float64{{0, 800, 10, 1, 0}, {1, 900, 10, 1, 0}},
			[]bool{false, false}, -1, nil, []int{2},
			"no candidate met total.goodput ≥ 1000/s: the most was 900/s at x=1"},
		{"together, not alone", "maximize", []string{"total.amplification<=1.2", "total.goodput>=850"},
			[][5]float64{{0, 800, 10, 1.1, 0}, {1, 900, 10, 1.4, 0}},
			[]bool{false, false}, -1, nil, []int{1, 1},
			"no candidate met every constraint at once: total.amplification ≤ 1.2 excluded 1 of 2 (the least was 1.1 at x=0); total.goodput ≥ 850/s excluded 1 of 2 (the most was 900/s at x=1)"},
	}
	for _, tc := range tests {
		t.Run(tc.gloss, func(t *testing.T) {
			tu := tuneFixture(t, "x=0:3", tc.sense, tc.cons...)
			withCandidates(tu, tc.cands...)
			Select(tu)
			for i, c := range tu.Candidates {
				if c.Feasible != tc.feasible[i] {
					t.Errorf("candidate %d: Feasible = %v, want %v (failed %q)", i, c.Feasible, tc.feasible[i], c.Failed)
				}
			}
			got := -1
			if tu.Recommendation != nil {
				got = tu.Recommendation.Candidate
			}
			if got != tc.rec {
				t.Errorf("recommendation = %d, want %d", got, tc.rec)
			}
			var ups []int
			for _, r := range tu.RunnersUp {
				ups = append(ups, r.Candidate)
			}
			if !slices.Equal(ups, tc.runnersUp) {
				t.Errorf("runners-up = %v, want %v", ups, tc.runnersUp)
			}
			var ex []int
			for _, e := range tu.Exclusions {
				ex = append(ex, e.Excluded)
			}
			if !slices.Equal(ex, tc.excluded) {
				t.Errorf("excluded = %v, want %v", ex, tc.excluded)
			}
			if msg := tu.Infeasible(); msg != tc.infeasible {
				t.Errorf("Infeasible() = %q, want %q", msg, tc.infeasible)
			}
		})
	}
}

// TestTunePareto: the front holds the feasible candidates that none beats on both axes, in
// increasing x.
func TestTunePareto(t *testing.T) {
	tu := tuneFixture(t, "x=0:5", "maximize", "total.amplification<=2")
	withCandidates(tu,
		[5]float64{0, 800, 1, 1.0, 0}, // on the front: least amplification
		[5]float64{1, 790, 1, 1.1, 0}, // dominated by 0
		[5]float64{2, 900, 1, 1.5, 0}, // on the front
		[5]float64{3, 900, 1, 1.6, 0}, // dominated by 2 (same goodput, more amplification)
		[5]float64{4, 950, 1, 1.9, 0}, // on the front: most goodput feasible
		[5]float64{5, 990, 1, 2.5, 0}) // infeasible
	Select(tu)
	if !slices.Equal(tu.Pareto, []int{0, 2, 4}) {
		t.Errorf("Pareto = %v, want [0 2 4]", tu.Pareto)
	}
	if got := tu.Notes; len(got) != 0 {
		t.Errorf("Notes = %q, want none (the recommendation, 4, is inside 0:5)", got)
	}
	// At an end of its range, the recommendation says a better one may lie beyond.
	tu = tuneFixture(t, "x=0:5", "maximize")
	withCandidates(tu, [5]float64{0, 800, 1, 1, 0}, [5]float64{5, 900, 1, 1, 0})
	Select(tu)
	if len(tu.Notes) != 1 || !strings.Contains(tu.Notes[0], "upper end of x's range (5)") {
		t.Errorf("Notes = %q, want one about the upper end", tu.Notes)
	}
}

// goodputModel is a fake simulator: goodput rises with x and amplification with it, so that a
// bound on amplification stops x at 42.5; replication r adds the same noise at every x, as
// common random numbers do.
func goodputModel(x float64, r int) (goodput, amp float64) {
	noise := []float64{-1, 0.5, 0.5}[r%3]
	return 500 + 10*x + noise, 1 + x/50 + noise/1000
}

// fakeEval evaluates candidates with goodputModel, recording every candidate it was asked for
// by round.
func fakeEval(tu *tune.Tuning, asked map[int][]float64) Eval {
	return func(rd Round) ([][][]float64, []bool, error) {
		round, cands := rd.N, rd.Candidates
		values := make([][][]float64, len(cands))
		done := make([]bool, len(cands))
		for i, c := range cands {
			asked[round] = append(asked[round], c.Values[0])
			values[i] = make([][]float64, len(tu.Measures))
			for r := 0; r < tu.Replications; r++ {
				g, a := goodputModel(c.Values[0], r)
				for m, ms := range tu.Measures {
					v := map[string]float64{"total.goodput": g, "total.amplification": a}[ms.Metric]
					values[i][m] = append(values[i][m], v)
				}
			}
			done[i] = true
		}
		return values, done, nil
	}
}

// TestTuneSearch: the coarse grid, then each refinement round between the best feasible
// candidate's neighbours, new candidates only, converging on the bound.
func TestTuneSearch(t *testing.T) {
	tu := tuneFixture(t, "x=0:100", "maximize", "total.amplification<=1.85")
	tu.Refine = 3
	asked := map[int][]float64{}
	if err := Search(tu, fakeEval(tu, asked)); err != nil {
		t.Fatal(err)
	}
	want := map[int][]float64{
		0: {0, 25, 50, 75, 100}, // coarse grid; 25 is the best feasible (amplification 1.5)
		1: {37.5, 12.5},         // between 0 and 50 around 25: 12.5 and 37.5, in grid order
		2: {31.25, 43.75},       // around 37.5, between 25 and 50
		3: {40.62, 34.38},       // around 37.5 again (43.75 breaks the bound), between 31.25 and 43.75
	}
	for r := 0; r <= 3; r++ {
		got := slices.Clone(asked[r])
		w := slices.Clone(want[r])
		slices.Sort(got)
		slices.Sort(w)
		if !slices.Equal(got, w) {
			t.Errorf("round %d ran %v, want %v", r, asked[r], want[r])
		}
	}
	if tu.Rounds != 4 {
		t.Errorf("Rounds = %d, want 4", tu.Rounds)
	}
	rec := tu.Candidates[tu.Recommendation.Candidate]
	if rec.Values[0] != 40.62 || rec.Round != 3 {
		t.Errorf("recommended x=%v from round %d, want 40.62 from round 3", rec.Values[0], rec.Round)
	}
	seen := map[float64]bool{}
	for _, c := range tu.Candidates {
		if seen[c.Values[0]] {
			t.Errorf("x=%v ran twice", c.Values[0])
		}
		seen[c.Values[0]] = true
	}
	// The statistics are the replications' (Student t, as a sweep's).
	g := rec.Metric("total.goodput")
	if math.Abs(g.Mean-(500+406.2)) > 1e-9 || g.N != 3 || !(g.CI95 > 0) {
		t.Errorf("goodput at 40.62 = %+v, want mean 906.2 over 3 with an interval", g)
	}
}

// TestTuneSearchNoRefinementWithoutFeasible: without a feasible candidate there is nothing to
// refine around, and the search ends after the grid.
func TestTuneSearchNoRefinementWithoutFeasible(t *testing.T) {
	tu := tuneFixture(t, "x=0:100", "maximize", "total.amplification<=0.5")
	asked := map[int][]float64{}
	if err := Search(tu, fakeEval(tu, asked)); err != nil {
		t.Fatal(err)
	}
	if len(asked) != 1 || tu.Recommendation != nil {
		t.Errorf("ran rounds %v, recommendation %v; want the grid only and none", asked, tu.Recommendation)
	}
	if !strings.HasPrefix(tu.Infeasible(), "no candidate met total.amplification ≤ 0.5: the least was 1 at x=0") {
		t.Errorf("Infeasible() = %q", tu.Infeasible())
	}
}

// TestTuneSearchStopped: a round that fails keeps the candidates that finished and marks the
// tuning partial.
func TestTuneSearchStopped(t *testing.T) {
	tu := tuneFixture(t, "x=0:100", "maximize")
	stop := errors.New("stopped")
	inner := fakeEval(tu, map[int][]float64{})
	err := Search(tu, func(rd Round) ([][][]float64, []bool, error) {
		v, done, _ := inner(rd)
		done[1], done[3] = false, false
		return v, done, stop
	})
	if !errors.Is(err, stop) {
		t.Fatalf("Search = %v, want the eval's error", err)
	}
	if len(tu.Candidates) != 3 || tu.Partial == "" || tu.Recommendation == nil {
		t.Errorf("%d candidates, partial %q, recommendation %v; want 3, partial, and one", len(tu.Candidates), tu.Partial, tu.Recommendation)
	}
}

// TestWriteTuneDir: tune.json reads back as written, candidates.csv has a row per candidate
// with its choice, and the folder's manifest says what it holds; a partial tuning says so.
func TestWriteTuneDir(t *testing.T) {
	tu := tuneFixture(t, "x=0:100", "maximize", "total.amplification<=1.85")
	if err := Search(tu, fakeEval(tu, map[int][]float64{})); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := tune.WriteDir(dir, tu); err != nil {
		t.Fatal(err)
	}
	m, err := results.ReadManifestOf(dir, results.KindTune)
	if err != nil {
		t.Fatal(err)
	}
	if !m.Has(results.TuneFile) || !m.Has(results.TuneCandidatesFile) || m.Partial != "" {
		t.Errorf("manifest %+v", m)
	}
	back, err := tune.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if back.Schema != tune.Schema || back.Recommendation == nil || back.Recommendation.Candidate != tu.Recommendation.Candidate ||
		len(back.Candidates) != len(tu.Candidates) || back.Digest != results.ScenarioDigest(tu.Header.Canonical) {
		t.Errorf("tune.json reads back as %+v", back)
	}
	csv, _ := os.ReadFile(filepath.Join(dir, results.TuneCandidatesFile))
	lines := strings.Split(strings.TrimSpace(string(csv)), "\n")
	if lines[0] != "round,x,replications,feasible,choice,failed,total.goodput_mean,total.goodput_ci95,total.goodput_n,"+
		"total.amplification_mean,total.amplification_ci95,total.amplification_n" {
		t.Errorf("candidates.csv header = %q", lines[0])
	}
	if len(lines) != 1+len(tu.Candidates) || !strings.Contains(string(csv), ",recommended,") {
		t.Errorf("candidates.csv:\n%s", csv)
	}
	if !strings.Contains(string(csv), "false,,total.amplification ≤ 1.85,") {
		t.Errorf("candidates.csv names no broken constraint:\n%s", csv)
	}

	tu.Partial = "stopped in round 1"
	if err := tune.WriteDir(dir, tu); err != nil {
		t.Fatal(err)
	}
	m, _ = results.ReadManifest(dir)
	csv, _ = os.ReadFile(filepath.Join(dir, results.TuneCandidatesFile))
	if m.Partial != "stopped in round 1" || !bytes.HasPrefix(csv, []byte("# partial: stopped in round 1\n")) {
		t.Errorf("a partial tuning: manifest partial %q, candidates.csv starts %q", m.Partial, csv[:min(40, len(csv))])
	}
}
