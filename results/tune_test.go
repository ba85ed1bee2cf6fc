package results

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseTuneParam(t *testing.T) {
	good := []struct {
		gloss, spec string
		want        TuneParam
		grid        []float64
	}{
		{"plain, default levels", "clients[0].driver.maxAdaptiveRetries=0:4",
			TuneParam{Path: "clients[0].driver.maxAdaptiveRetries", Range: "0:4", Lo: 0, Hi: 4, Levels: 5},
			[]float64{0, 1, 2, 3, 4}},
		{"steps", "faults[0].speed=0:1:3", TuneParam{Path: "faults[0].speed", Range: "0:1:3", Lo: 0, Hi: 1, Levels: 3},
			[]float64{0, 0.5, 1}},
		{"log", "clients[0].driver.retryTokenCapacity=1:10000:log",
			TuneParam{Path: "clients[0].driver.retryTokenCapacity", Range: "1:10000:log", Lo: 1, Hi: 10000, Levels: 5, Log: true},
			[]float64{1, 10, 100, 1000, 10000}},
		{"steps and log", "x=1:100:3:log", TuneParam{Path: "x", Range: "1:100:3:log", Lo: 1, Hi: 100, Levels: 3, Log: true},
			[]float64{1, 10, 100}},
		{"durations, in seconds", "faults[0].for=1s:3s:3", TuneParam{Path: "faults[0].for", Range: "1s:3s:3", Unit: "s", Lo: 1, Hi: 3, Levels: 3},
			[]float64{1, 2, 3}},
		{"rates", "clients[0].workload.rate=500/s:1500/s:3", TuneParam{Path: "clients[0].workload.rate", Range: "500/s:1500/s:3", Unit: "/s", Lo: 500, Hi: 1500, Levels: 3},
			[]float64{500, 1000, 1500}},
		{"spaces trimmed", " x = 0 : 1 : 2 ", TuneParam{Path: "x", Range: "0 : 1 : 2", Lo: 0, Hi: 1, Levels: 2}, []float64{0, 1}},
		{"four significant digits", "x=0:1:4", TuneParam{Path: "x", Range: "0:1:4", Lo: 0, Hi: 1, Levels: 4}, []float64{0, 0.3333, 0.6667, 1}},
	}
	for _, tc := range good {
		got, err := ParseTuneParam(tc.spec)
		if err != nil {
			t.Errorf("%s: ParseTuneParam(%q) = %v, want no error", tc.gloss, tc.spec, err)
			continue
		}
		if got != tc.want {
			t.Errorf("%s: ParseTuneParam(%q) = %+v, want %+v", tc.gloss, tc.spec, got, tc.want)
		}
		if g := got.Grid(); !slices.Equal(g, tc.grid) {
			t.Errorf("%s: Grid() = %v, want %v", tc.gloss, g, tc.grid)
		}
	}
	bad := []struct{ gloss, spec, want string }{
		{"no =", "clients[0].driver.maxAdaptiveRetries", "want PATH=LO:HI[:STEPS|log]"},
		{"no path", "=0:4", "want PATH=LO:HI"},
		{"one end", "x=4", "want PATH=LO:HI"},
		{"too many parts", "x=0:1:2:log:3", "want PATH=LO:HI"},
		{"LO above HI", "x=4:0", "LO 4 is not below HI 0: want LO < HI"},
		{"LO equal to HI", "x=2:2", "want LO < HI"},
		{"LO not a number", "x=a:4", `LO "a" is not a number`},
		{"HI not a number", "x=0:many", `HI "many" is not a number`},
		{"NaN", "x=NaN:4", `LO "NaN" is not a number`},
		{"kinds differ", "x=1s:4", "of different kinds"},
		{"one step", "x=0:4:1", `STEPS "1": want a whole number ≥ 2`},
		{"steps not whole", "x=0:4:2.5", `STEPS "2.5"`},
		{"log from zero", "x=0:4:log", "log spacing needs LO > 0, got LO 0"},
		{"log from below zero", "x=-1:4:3:log", "log spacing needs LO > 0"},
	}
	for _, tc := range bad {
		_, err := ParseTuneParam(tc.spec)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: ParseTuneParam(%q) = %v, want an error containing %q", tc.gloss, tc.spec, err, tc.want)
		}
	}
}

func TestTuneParamText(t *testing.T) {
	tests := []struct {
		gloss string
		p     TuneParam
		x     float64
		want  string
	}{
		{"an integer field rounds", TuneParam{Integer: true}, 2.5, "3"},
		{"a plain number", TuneParam{}, 0.3333, "0.3333"},
		{"a large number, no exponent", TuneParam{}, 1e6, "1000000"},
		{"a duration", TuneParam{Unit: "s"}, 0.25, "250ms"},
		{"a rate", TuneParam{Unit: "/s"}, 1500, "1500/s"},
	}
	for _, tc := range tests {
		if got := tc.p.Text(tc.x); got != tc.want {
			t.Errorf("%s: Text(%v) = %q, want %q", tc.gloss, tc.x, got, tc.want)
		}
	}
	// An integer field's grid takes each rounded value once.
	p := TuneParam{Lo: 0, Hi: 2, Levels: 5, Integer: true}
	if g := p.Grid(); !slices.Equal(g, []float64{0, 1, 2}) {
		t.Errorf("integer 0:2 in 5 levels: Grid() = %v, want [0 1 2]", g)
	}
}

func TestParseTuneConstraint(t *testing.T) {
	w0, w1 := 5*time.Second, 25*time.Second
	good := []struct {
		gloss, s string
		want     TuneConstraint
		text     string // String()
	}{
		{"at most", "total.amplification<=1.05", TuneConstraint{Metric: "total.amplification", From: w0, To: w1, Op: "<=", Bound: 1.05},
			"total.amplification over 5s–25s ≤ 1.05"},
		{"at least a rate", "total.goodput >= 900/s", TuneConstraint{Metric: "total.goodput", From: w0, To: w1, Op: ">=", Bound: 900},
			"total.goodput over 5s–25s ≥ 900/s"},
		{"below a duration", "group.a.latency_ok_p99<200ms", TuneConstraint{Metric: "group.a.latency_ok_p99", From: w0, To: w1, Op: "<", Bound: 0.2},
			"group.a.latency_ok_p99 over 5s–25s < 200ms"},
		{"above, plain seconds", "group.a.latency_ok_p50>0.001", TuneConstraint{Metric: "group.a.latency_ok_p50", From: w0, To: w1, Op: ">", Bound: 0.001},
			"group.a.latency_ok_p50 over 5s–25s > 1ms"},
		{"a window of its own", "group.a.amplification@10s:30s<=1.5", TuneConstraint{Metric: "group.a.amplification", From: 10 * time.Second, To: 30 * time.Second, Op: "<=", Bound: 1.5},
			"group.a.amplification over 10s–30s ≤ 1.5"},
		{"a trigger's outcome, never windowed", "fault.cut.stuck<=0.1", TuneConstraint{Metric: "fault.cut.stuck", Op: "<=", Bound: 0.1},
			"fault.cut.stuck ≤ 0.1"},
	}
	for _, tc := range good {
		got, err := ParseTuneConstraint(tc.s, w0, w1)
		if err != nil {
			t.Errorf("%s: ParseTuneConstraint(%q) = %v", tc.gloss, tc.s, err)
			continue
		}
		tc.want.Text = strings.TrimSpace(tc.s)
		if got != tc.want {
			t.Errorf("%s: ParseTuneConstraint(%q) = %+v, want %+v", tc.gloss, tc.s, got, tc.want)
		}
		if got.String() != tc.text {
			t.Errorf("%s: String() = %q, want %q", tc.gloss, got.String(), tc.text)
		}
	}
	bad := []struct{ gloss, s, want string }{
		{"no comparison", "total.goodput", "no comparison"},
		{"equality", "total.goodput==3", `comparison "=="`},
		{"two comparisons", "1<total.goodput<3", "more than one comparison"},
		{"no bound", "total.goodput>=", "no bound"},
		{"no metric", "<=3", "no metric"},
		{"a bound that is not a number", "total.goodput>=lots", `bound "lots" is not a number`},
		{"a duration on a rate", "total.goodput>=200ms", `bound "200ms" is a duration, but total.goodput is not a latency`},
		{"a rate on a latency", "total.latency_ok_p99<=900/s", "is a rate, but total.latency_ok_p99 is not a rate"},
		{"a bad window", "total.goodput@30s:10s>=1", "want 0s ≤ FROM < TO"},
		{"a window on a trigger", "fault.cut.stuck@1s:2s<=0.5", "a trigger's outcome has no window"},
	}
	for _, tc := range bad {
		_, err := ParseTuneConstraint(tc.s, 0, 0)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: ParseTuneConstraint(%q) = %v, want an error containing %q", tc.gloss, tc.s, err, tc.want)
		}
	}
}

func TestConstraintHolds(t *testing.T) {
	tests := []struct {
		op   string
		x    float64
		want bool
	}{
		{"<=", 1, true}, {"<=", 1.0001, false},
		{"<", 1, false}, {"<", 0.999, true},
		{">=", 1, true}, {">=", 0.999, false},
		{">", 1, false}, {">", 1.001, true},
		{"<=", math.NaN(), false}, {">=", math.NaN(), false},
	}
	for _, tc := range tests {
		c := TuneConstraint{Metric: "total.amplification", Op: tc.op, Bound: 1}
		if got := c.Holds(tc.x); got != tc.want {
			t.Errorf("%s 1 Holds(%v) = %v, want %v", tc.op, tc.x, got, tc.want)
		}
	}
}

func TestParseTuneWindow(t *testing.T) {
	if f, to, err := ParseTuneWindow("10s:30s"); err != nil || f != 10*time.Second || to != 30*time.Second {
		t.Errorf("ParseTuneWindow(10s:30s) = %v, %v, %v", f, to, err)
	}
	for _, s := range []string{"10s", "30s:10s", "10s:10s", "-1s:2s", "a:b"} {
		if _, _, err := ParseTuneWindow(s); err == nil {
			t.Errorf("ParseTuneWindow(%q) = nil, want an error", s)
		}
	}
}

func TestFormatMetric(t *testing.T) {
	tests := []struct {
		metric string
		x      float64
		want   string
	}{
		{"total.latency_ok_p99", 0.21341, "213.4ms"},
		{"fault.cut.recovery_time", 12.3456, "12.35s"},
		{"total.goodput", 998.25, "998.2/s"},
		{"total.amplification", 1.20512, "1.205"},
		{"total.amplification", math.NaN(), "no value"},
	}
	for _, tc := range tests {
		if got := FormatMetric(tc.metric, tc.x); got != tc.want {
			t.Errorf("FormatMetric(%s, %v) = %q, want %q", tc.metric, tc.x, got, tc.want)
		}
	}
	if got := FormatMetricCI("total.goodput", MetricStats{Mean: 998.25, CI95: 3.14159}); got != "998.2/s ± 3.1/s" {
		t.Errorf("FormatMetricCI = %q", got)
	}
}

// tuneFixture is a tuning of one parameter x over lo:hi, maximising total.goodput subject to
// total.amplification <= 1.5 unless cons says otherwise.
func tuneFixture(t *testing.T, spec string, sense string, cons ...string) *Tuning {
	t.Helper()
	p, err := ParseTuneParam(spec)
	if err != nil {
		t.Fatal(err)
	}
	var cs []TuneConstraint
	for _, s := range cons {
		c, err := ParseTuneConstraint(s, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, c)
	}
	hdr := Header{Tool: "overloadsim", Version: "test", Scenario: "fixture", Canonical: "name: fixture\n", Seed: 7}
	return NewTuning(hdr, []TuneParam{p}, TuneObjective{Metric: "total.goodput", Sense: sense}, cs, 3, 1)
}

// withCandidates adds candidates to tu: one per entry, values (x) with goodput and amplification
// means and half-widths.
func withCandidates(tu *Tuning, cands ...[5]float64) {
	for _, c := range cands {
		tc := TuneCandidate{Values: []float64{c[0]}, Params: []Param{{Path: tu.Params[0].Path, Value: tu.Params[0].Text(c[0])}}, Replications: tu.Replications}
		for _, m := range tu.Measures {
			st := MetricStats{Name: m.Name(), Mean: math.NaN(), CI95: math.NaN()}
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
			tu.Select()
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
	tu.Select()
	if !slices.Equal(tu.Pareto, []int{0, 2, 4}) {
		t.Errorf("Pareto = %v, want [0 2 4]", tu.Pareto)
	}
	if got := tu.Notes; len(got) != 0 {
		t.Errorf("Notes = %q, want none (the recommendation, 4, is inside 0:5)", got)
	}
	// At an end of its range, the recommendation says a better one may lie beyond.
	tu = tuneFixture(t, "x=0:5", "maximize")
	withCandidates(tu, [5]float64{0, 800, 1, 1, 0}, [5]float64{5, 900, 1, 1, 0})
	tu.Select()
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
func fakeEval(tu *Tuning, asked map[int][]float64) TuneEval {
	return func(round int, cands []TuneCandidate) ([][][]float64, []bool, error) {
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
	if err := tu.Search(fakeEval(tu, asked)); err != nil {
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
	if err := tu.Search(fakeEval(tu, asked)); err != nil {
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
	err := tu.Search(func(round int, cands []TuneCandidate) ([][][]float64, []bool, error) {
		v, done, _ := inner(round, cands)
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
	if err := tu.Search(fakeEval(tu, map[int][]float64{})); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := WriteTuneDir(dir, tu); err != nil {
		t.Fatal(err)
	}
	m, err := ReadManifestOf(dir, KindTune)
	if err != nil {
		t.Fatal(err)
	}
	if !m.Has(TuneFile) || !m.Has(TuneCandidatesFile) || m.Partial != "" {
		t.Errorf("manifest %+v", m)
	}
	back, err := ReadTune(dir)
	if err != nil {
		t.Fatal(err)
	}
	if back.Schema != TuneSchema || back.Recommendation == nil || back.Recommendation.Candidate != tu.Recommendation.Candidate ||
		len(back.Candidates) != len(tu.Candidates) || back.Digest != ScenarioDigest(tu.Header.Canonical) {
		t.Errorf("tune.json reads back as %+v", back)
	}
	csv, _ := os.ReadFile(filepath.Join(dir, TuneCandidatesFile))
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
	if err := WriteTuneDir(dir, tu); err != nil {
		t.Fatal(err)
	}
	m, _ = ReadManifest(dir)
	csv, _ = os.ReadFile(filepath.Join(dir, TuneCandidatesFile))
	if m.Partial != "stopped in round 1" || !bytes.HasPrefix(csv, []byte("# partial: stopped in round 1\n")) {
		t.Errorf("a partial tuning: manifest partial %q, candidates.csv starts %q", m.Partial, csv[:min(40, len(csv))])
	}
}

// TestNewTuningMeasures: the measures are the objective, the constraints' and the Pareto
// figure's, each once; the figure's y is an amplification and its x the objective unless that
// is the amplification.
func TestNewTuningMeasures(t *testing.T) {
	hdr := Header{Canonical: "x"}
	p, _ := ParseTuneParam("x=0:1")
	c1, _ := ParseTuneConstraint("group.a.amplification<=1.5", 0, 0)
	c2, _ := ParseTuneConstraint("total.latency_ok_p99<=200ms", 0, 0)
	tests := []struct {
		gloss    string
		obj      TuneObjective
		cons     []TuneConstraint
		measures []string
		x, y     string
	}{
		{"goodput with a group's amplification", TuneObjective{Metric: "group.a.goodput", Sense: "maximize"}, []TuneConstraint{c1},
			[]string{"group.a.goodput", "group.a.amplification"}, "group.a.goodput", "group.a.amplification"},
		{"a group's objective, no amplification named", TuneObjective{Metric: "group.a.goodput", Sense: "maximize"}, []TuneConstraint{c2},
			[]string{"group.a.goodput", "total.latency_ok_p99", "group.a.amplification"}, "group.a.goodput", "group.a.amplification"},
		{"a windowed objective", TuneObjective{Metric: "total.goodput", From: time.Second, To: 2 * time.Second, Sense: "maximize"}, nil,
			[]string{"total.goodput@1s:2s", "total.amplification@1s:2s"}, "total.goodput@1s:2s", "total.amplification@1s:2s"},
		{"minimise amplification: x is the first constraint", TuneObjective{Metric: "total.amplification", Sense: "minimize"}, []TuneConstraint{c2},
			[]string{"total.amplification", "total.latency_ok_p99"}, "total.latency_ok_p99", "total.amplification"},
		{"minimise amplification alone: x is goodput", TuneObjective{Metric: "total.amplification", Sense: "minimize"}, nil,
			[]string{"total.amplification", "total.goodput"}, "total.goodput", "total.amplification"},
	}
	for _, tc := range tests {
		tu := NewTuning(hdr, []TuneParam{p}, tc.obj, tc.cons, 2, 0)
		var names []string
		for _, m := range tu.Measures {
			names = append(names, m.Name())
		}
		if !slices.Equal(names, tc.measures) || tu.ParetoX != tc.x || tu.ParetoY != tc.y {
			t.Errorf("%s: measures %q, x %q, y %q; want %q, %q, %q", tc.gloss, names, tu.ParetoX, tu.ParetoY, tc.measures, tc.x, tc.y)
		}
	}
}
