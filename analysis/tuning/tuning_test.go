package tuning

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/overloadsim/overloadsim/field"
)

// TestGrid: the coarse grid's values, evenly or geometrically, four significant digits, an
// integer parameter's rounded values once each.
func TestGrid(t *testing.T) {
	tests := []struct {
		gloss string
		p     Param
		want  []float64
	}{
		{"even", Param{Lo: 0, Hi: 4, Levels: 5}, []float64{0, 1, 2, 3, 4}},
		{"log", Param{Lo: 1, Hi: 10000, Levels: 5, Log: true}, []float64{1, 10, 100, 1000, 10000}},
		{"four significant digits", Param{Lo: 0, Hi: 1, Levels: 4}, []float64{0, 0.3333, 0.6667, 1}},
		{"integer, each value once", Param{Lo: 0, Hi: 2, Levels: 5, Integer: true}, []float64{0, 1, 2}},
	}
	for _, tc := range tests {
		if g := tc.p.Grid(); !slices.Equal(g, tc.want) {
			t.Errorf("%s: Grid() = %v, want %v", tc.gloss, g, tc.want)
		}
	}
	ps := []Param{{Lo: 0, Hi: 1, Levels: 2}, {Lo: 5, Hi: 6, Levels: 2}}
	if g := Grid(ps); fmt.Sprint(g) != "[[0 5] [0 6] [1 5] [1 6]]" || GridSize(ps) != 4 || RefineSize(ps) != 24 {
		t.Errorf("Grid = %v, GridSize %v, RefineSize %v", g, GridSize(ps), RefineSize(ps))
	}
}

// options are a search of x over 0:100 maximising measure 0 subject to measure 1 ≤ bound.
func options(bound float64) *Options {
	return &Options{Params: []Param{{Lo: 0, Hi: 100, Levels: 5}}, Measures: 2, Maximize: true,
		Constraints: []Constraint{{Measure: 1, Upper: true, Holds: func(x float64) bool { return x <= bound }}},
		ParetoY:     1, ParetoXMaximize: true, Replications: 2, Refine: 3, Confidence: 0.95,
		Key: func(vs []float64) string { return fmt.Sprint(vs) }}
}

// TestSearch: the grid, then refinements around the best feasible candidate, new settings only,
// converging on the bound; the callback is asked for each round in order.
func TestSearch(t *testing.T) {
	var rounds []int
	res, err := Search(options(1.85), func(r Round) ([][][]float64, []bool, error) {
		rounds = append(rounds, r.N)
		if (r.N == 0) != (r.Around == nil) {
			t.Errorf("round %d around %v", r.N, r.Around)
		}
		values := make([][][]float64, len(r.Candidates))
		done := make([]bool, len(r.Candidates))
		for i, vs := range r.Candidates {
			x := vs[0]
			values[i] = [][]float64{{500 + 10*x, 500 + 10*x}, {1 + x/50, 1 + x/50}}
			done[i] = true
		}
		return values, done, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rounds, []int{0, 1, 2, 3}) || res.Rounds != 4 || res.Stopped != nil {
		t.Errorf("rounds %v, Rounds %d, Stopped %v", rounds, res.Rounds, res.Stopped)
	}
	if best := res.Candidates[res.Best]; best.Values[0] != 40.62 || best.Stats[0].N != 2 {
		t.Errorf("best %+v, want x=40.62 over 2 replications", best)
	}
}

// TestSearchStopped: an eval's error keeps what finished and says where the search stopped.
func TestSearchStopped(t *testing.T) {
	stop := errors.New("stopped")
	res, err := Search(options(2), func(r Round) ([][][]float64, []bool, error) {
		values := make([][][]float64, len(r.Candidates))
		for i := range values {
			values[i] = [][]float64{{1}, {1}}
		}
		return values, []bool{true, false, true}, stop
	})
	if !errors.Is(err, stop) || res == nil || len(res.Candidates) != 2 || *res.Stopped != (Stop{Round: 0, Finished: 2, Of: 5}) {
		t.Fatalf("Search = %v, %+v", err, res)
	}
}

// TestValidate: every problem at once, each a *field.Error naming the option.
func TestValidate(t *testing.T) {
	o := options(1)
	if err := o.Validate(); err != nil {
		t.Fatalf("valid options: %v", err)
	}
	o.Params = []Param{{Lo: 2, Hi: 1, Levels: 1}, {Lo: 0, Hi: 1, Levels: 3, Log: true}}
	o.Refine, o.Replications, o.Key = -1, 0, nil
	o.Objective = 2
	err := o.Validate()
	if err == nil {
		t.Fatal("Validate = nil, want every problem")
	}
	var fe *field.Error
	if !errors.As(err, &fe) {
		t.Errorf("Validate = %v, want *field.Error problems", err)
	}
	for _, want := range []string{"Params[0]: Lo 2, Hi 1: want finite Lo < Hi", "Params[0].Levels: 1: must be ≥ 2",
		"Params[1].Lo: 0: log spacing needs Lo > 0", "Objective: 2", "Replications: 0: must be ≥ 1", "Refine: -1: must be ≥ 0", "Key: nil"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Validate = %q, missing %q", err, want)
		}
	}
	if _, err := Search(o, nil); err == nil {
		t.Error("Search with invalid options ran")
	}
}
