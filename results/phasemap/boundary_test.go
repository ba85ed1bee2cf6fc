package phasemap

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/results"
)

// handMap builds a map over axes whose cell at value indices idx has stuck[idx] stuck
// replications out of reps (the rest recovered in 10 s); stuck returns -1 for a cell not run.
func handMap(reps int, stuck func(idx []int) int, axes ...results.Axis) Map {
	m := Map{
		Header:  results.Header{Scenario: "capacity-drop", Seed: 1, Duration: 120 * time.Second},
		Trigger: "cpu-cut",
		Axes:    axes,
	}
	for _, idx := range combos(&m, -1) {
		params := make([]results.Param, len(axes))
		for a, v := range idx {
			params[a] = results.Param{Path: axes[a].Path, Value: axes[a].Values[v]}
		}
		k := stuck(idx)
		if k < 0 {
			m.Cells = append(m.Cells, NewCell(params, nil, nil))
			m.Partial = true
			continue
		}
		outcomes := make([]results.RecoveryOutcome, reps)
		secs := make([]float64, reps)
		for i := range outcomes {
			outcomes[i], secs[i] = results.Recovered, 10
			if i < k {
				outcomes[i] = results.Stuck
			}
		}
		m.Cells = append(m.Cells, NewCell(params, outcomes, secs))
	}
	return m
}

// table returns a stuck function reading a grid of stuck counts, rows by the first axis.
func table(rows ...[]int) func([]int) int {
	return func(idx []int) int { return rows[idx[0]][idx[1]] }
}

var (
	speed  = results.Axis{Path: "faults[0].speed", Values: []string{"0.3", "0.5", "0.7"}}
	length = results.Axis{Path: "faults[0].for", Values: []string{"2s", "4s", "6s", "8s"}}
	load   = results.Axis{Path: "clients[0].workload.rate", Values: []string{"1500/s", "2000/s"}}
)

func TestBoundary(t *testing.T) {
	nan := math.NaN()
	type pt struct {
		kind       BoundaryKind
		at, lo, hi float64
		pLo, pHi   float64
		rising     bool
		fixed      string // the values of Fixed, joined by ","
		pMin, pMax float64
		unit       string
	}
	for _, c := range []struct {
		gloss string
		m     Map
		along int
		want  []pt
	}{
		{"a crossing in the middle of each line", handMap(10, table(
			[]int{0, 2, 8, 10},
			[]int{0, 0, 4, 6},
			[]int{0, 0, 0, 5},
		), speed, length), 1, []pt{
			{kind: Crossing, at: 5, lo: 4, hi: 6, pLo: 0.2, pHi: 0.8, rising: true, fixed: "0.3", pMin: 0, pMax: 1, unit: "s"},
			{kind: Crossing, at: 7, lo: 6, hi: 8, pLo: 0.4, pHi: 0.6, rising: true, fixed: "0.5", pMin: 0, pMax: 0.6, unit: "s"},
			// Exactly 1/2 is on the stuck side: the crossing is at that cell.
			{kind: Crossing, at: 8, lo: 6, hi: 8, pLo: 0, pHi: 0.5, rising: true, fixed: "0.7", pMin: 0, pMax: 0.5, unit: "s"},
		}},
		{"never and always stuck", handMap(4, table(
			[]int{4, 4, 4, 4},
			[]int{2, 3, 4, 4},
			[]int{0, 0, 1, 1},
			[]int{0, 0, 0, 0},
		), results.Axis{Path: "faults[0].speed", Values: []string{"0.2", "0.3", "0.4", "0.5"}}, length), 1, []pt{
			{kind: AlwaysStuck, at: nan, lo: 2, hi: 8, pLo: nan, pHi: nan, fixed: "0.2", pMin: 1, pMax: 1, unit: "s"},
			{kind: AlwaysStuck, at: nan, lo: 2, hi: 8, pLo: nan, pHi: nan, fixed: "0.3", pMin: 0.5, pMax: 1, unit: "s"},
			{kind: NeverStuck, at: nan, lo: 2, hi: 8, pLo: nan, pHi: nan, fixed: "0.4", pMin: 0, pMax: 0.25, unit: "s"},
			{kind: NeverStuck, at: nan, lo: 2, hi: 8, pLo: nan, pHi: nan, fixed: "0.5", pMin: 0, pMax: 0, unit: "s"},
		}},
		{"along the first axis, falling: deeper cuts stick", handMap(10, table(
			[]int{10, 10, 10, 10},
			[]int{10, 3, 7, 10},
			[]int{10, 0, 0, 0},
		), speed, length), 0, []pt{
			{kind: AlwaysStuck, at: nan, lo: 0.3, hi: 0.7, pLo: nan, pHi: nan, fixed: "2s", pMin: 1, pMax: 1},
			{kind: Crossing, at: 0.3 + 0.5/0.7*0.2, lo: 0.3, hi: 0.5, pLo: 1, pHi: 0.3, fixed: "4s", pMin: 0, pMax: 1},
			{kind: Crossing, at: 0.5 + 0.2/0.7*0.2, lo: 0.5, hi: 0.7, pLo: 0.7, pHi: 0, fixed: "6s", pMin: 0, pMax: 1},
			{kind: Crossing, at: 0.6, lo: 0.5, hi: 0.7, pLo: 1, pHi: 0, fixed: "8s", pMin: 0, pMax: 1},
		}},
		{"non-monotone noise: every crossing, in axis order", handMap(5, table(
			[]int{1, 3, 2, 4},
			[]int{0, 0, 0, 0},
			[]int{0, 0, 0, 0},
		), speed, length), 1, []pt{
			{kind: Crossing, at: 3.5, lo: 2, hi: 4, pLo: 0.2, pHi: 0.6, rising: true, fixed: "0.3", pMin: 0.2, pMax: 0.8, unit: "s"},
			{kind: Crossing, at: 5, lo: 4, hi: 6, pLo: 0.6, pHi: 0.4, rising: false, fixed: "0.3", pMin: 0.2, pMax: 0.8, unit: "s"},
			{kind: Crossing, at: 6.5, lo: 6, hi: 8, pLo: 0.4, pHi: 0.8, rising: true, fixed: "0.3", pMin: 0.2, pMax: 0.8, unit: "s"},
			{kind: NeverStuck, at: nan, lo: 2, hi: 8, pLo: nan, pHi: nan, fixed: "0.5", pMin: 0, pMax: 0, unit: "s"},
			{kind: NeverStuck, at: nan, lo: 2, hi: 8, pLo: nan, pHi: nan, fixed: "0.7", pMin: 0, pMax: 0, unit: "s"},
		}},
		{"cells not run are skipped; a line that did not run at all", handMap(10, table(
			[]int{0, -1, -1, 10},
			[]int{-1, -1, -1, -1},
			[]int{0, 0, 0, 0},
		), speed, length), 1, []pt{
			{kind: Crossing, at: 5, lo: 2, hi: 8, pLo: 0, pHi: 1, rising: true, fixed: "0.3", pMin: 0, pMax: 1, unit: "s"},
			{kind: NotRun, at: nan, lo: nan, hi: nan, pLo: nan, pHi: nan, fixed: "0.5", pMin: nan, pMax: nan, unit: "s"},
			{kind: NeverStuck, at: nan, lo: 2, hi: 8, pLo: nan, pHi: nan, fixed: "0.7", pMin: 0, pMax: 0, unit: "s"},
		}},
		{"axis values out of numeric order", handMap(10, table(
			[]int{10, 0, 5},
		), results.Axis{Path: "faults[0].speed", Values: []string{"0.3"}},
			results.Axis{Path: "faults[0].for", Values: []string{"8s", "2s", "500ms"}}), 1, []pt{
			// In ms (the largest value is 8 s, so seconds): 0.5 s, 2 s, 8 s → P 0.5, 0, 1.
			{kind: Crossing, at: 0.5, lo: 0.5, hi: 2, pLo: 0.5, pHi: 0, rising: false, fixed: "0.3", pMin: 0, pMax: 1, unit: "s"},
			{kind: Crossing, at: 5, lo: 2, hi: 8, pLo: 0, pHi: 1, rising: true, fixed: "0.3", pMin: 0, pMax: 1, unit: "s"},
		}},
		{"a third axis: one line per first × third value, first axis slowest", handMap(10, func(idx []int) int {
			// At 1500/s the boundary is one step later than at 2000/s.
			return []int{0, 0, 10, 10}[min(3, idx[1]+idx[2])]
		}, results.Axis{Path: "faults[0].speed", Values: []string{"0.4"}}, length, load), 1, []pt{
			{kind: Crossing, at: 5, lo: 4, hi: 6, pLo: 0, pHi: 1, rising: true, fixed: "0.4,1500/s", pMin: 0, pMax: 1, unit: "s"},
			{kind: Crossing, at: 3, lo: 2, hi: 4, pLo: 0, pHi: 1, rising: true, fixed: "0.4,2000/s", pMin: 0, pMax: 1, unit: "s"},
		}},
	} {
		got, err := Boundary(c.m, c.along)
		if err != nil {
			t.Errorf("%s: Boundary = %v", c.gloss, err)
			continue
		}
		if len(got) != len(c.want) {
			t.Errorf("%s: %d points, want %d: %+v", c.gloss, len(got), len(c.want), got)
			continue
		}
		same := func(a, b float64) bool {
			return math.IsNaN(a) && math.IsNaN(b) || math.Abs(a-b) < 1e-9
		}
		for i, w := range c.want {
			g := got[i]
			var fixed []string
			for _, f := range g.Fixed {
				fixed = append(fixed, f.Value)
			}
			ok := g.Kind == w.kind && same(g.At, w.at) && same(g.Lo, w.lo) && same(g.Hi, w.hi) &&
				same(g.PLo, w.pLo) && same(g.PHi, w.pHi) && g.Rising == w.rising &&
				same(g.PMin, w.pMin) && same(g.PMax, w.pMax) &&
				strings.Join(fixed, ",") == w.fixed && g.Unit == w.unit && g.Axis == c.m.Axes[c.along].Path
			if !ok {
				t.Errorf("%s: point %d = %+v, want %+v", c.gloss, i, g, w)
			}
		}
	}
}

func TestBoundaryErrors(t *testing.T) {
	m := handMap(1, func([]int) int { return 0 }, speed,
		results.Axis{Path: "clients[0].driver.retryPolicy", Values: []string{"none", "mongodb-2026-03"}})
	if _, err := Boundary(m, 1); err == nil {
		t.Error("Boundary along policy names = nil error, want one")
	}
	if _, err := Boundary(m, 2); err == nil {
		t.Error("Boundary along a third axis the map lacks = nil error, want one")
	}
	if a, ok := BoundaryAxis(m); !ok || a != 0 {
		t.Errorf("BoundaryAxis(speed × policy) = %d, %v, want 0 (the numeric first axis), true", a, ok)
	}
	if a, ok := BoundaryAxis(handMap(1, func([]int) int { return 0 }, speed, length)); !ok || a != 1 {
		t.Errorf("BoundaryAxis(speed × length) = %d, %v, want 1, true", a, ok)
	}
}

func TestSummary(t *testing.T) {
	for _, c := range []struct {
		gloss string
		m     Map
		want  string
	}{
		{"crossings, then lines that never stick, merged", handMap(10, table(
			[]int{0, 2, 8, 10},
			[]int{0, 0, 4, 6},
			[]int{0, 0, 0, 0},
			[]int{0, 0, 0, 0},
		), results.Axis{Path: "faults[0].speed", Values: []string{"0.3", "0.4", "0.6", "0.7"}}, length),
			"After cpu-cut in capacity-drop (10 replications per cell, 120 s horizon): " +
				"with faults[0].speed=0.3 it sticks for faults[0].for above 5 s (between 4 s and 6 s: P(stuck) 0.2 → 0.8); " +
				"with faults[0].speed=0.4 it sticks for faults[0].for above 7 s (between 6 s and 8 s: P(stuck) 0.4 → 0.6); " +
				"with faults[0].speed=0.6 and 0.7 it never sticks within the 120 s horizon."},
		{"always stuck, below 1/2, noise", handMap(5, table(
			[]int{5, 5, 5, 5},
			[]int{3, 4, 5, 5},
			[]int{1, 3, 2, 4},
			[]int{0, 1, 1, 2},
		), results.Axis{Path: "faults[0].speed", Values: []string{"0.2", "0.3", "0.4", "0.5"}}, length),
			"After cpu-cut in capacity-drop (5 replications per cell, 120 s horizon): " +
				"with faults[0].speed=0.2 it always sticks; " +
				"with faults[0].speed=0.3 P(stuck) is 1/2 or more throughout (at least 0.6); " +
				"with faults[0].speed=0.4 P(stuck) is not monotone along faults[0].for: it crosses 1/2 rising at 3.5 s, falling at 5 s and rising at 6.5 s (noise near 1/2, or a window); " +
				"with faults[0].speed=0.5 P(stuck) stays below 1/2 (at most 0.4)."},
		{"a third axis, undecided replications, a partial map", func() Map {
			m := handMap(4, func(idx []int) int {
				if idx[2] == 1 && idx[1] == 3 {
					return -1
				}
				return []int{0, 0, 4, 4}[min(3, idx[1]+idx[2])]
			}, results.Axis{Path: "faults[0].speed", Values: []string{"0.4"}}, length, load)
			m.Cells[0] = NewCell(m.Cells[0].Params, []results.RecoveryOutcome{results.Recovered, results.Undecided, results.Undecided, results.NoBaseline}, []float64{5, 0, 0, 0})
			return m
		}(),
			"After cpu-cut in capacity-drop (4 replications per cell, 120 s horizon): " +
				"At clients[0].workload.rate=1500/s, with faults[0].speed=0.4 it sticks for faults[0].for above 5 s (between 4 s and 6 s: P(stuck) 0 → 1). " +
				"At clients[0].workload.rate=2000/s, with faults[0].speed=0.4 it sticks for faults[0].for above 3 s (between 2 s and 4 s: P(stuck) 0 → 1). " +
				"2 of 28 replications were undecided (the horizon ended too soon to tell); 1 had no baseline before the trigger; the map is partial: 7 of 8 cells ran."},
		{"the second axis is names: the boundary along the first, falling", handMap(5, table(
			[]int{5, 4},
			[]int{2, 0},
			[]int{0, 0},
		), speed, results.Axis{Path: "clients[0].driver.retryPolicy", Values: []string{"none", "mongodb-2026-03"}}),
			"After cpu-cut in capacity-drop (5 replications per cell, 120 s horizon): " +
				"with clients[0].driver.retryPolicy=none it sticks for faults[0].speed below 0.467 (between 0.3 and 0.5: P(stuck) 1 → 0.4); " +
				"with clients[0].driver.retryPolicy=mongodb-2026-03 it sticks for faults[0].speed below 0.375 (between 0.3 and 0.5: P(stuck) 0.8 → 0)."},
		{"replications that vary between cells", func() Map {
			m := handMap(4, table([]int{0, 0, 4, 4}, []int{0, 0, 0, 0}, []int{0, 0, 0, 0}), speed, length)
			m.Cells[0] = NewCell(m.Cells[0].Params, []results.RecoveryOutcome{results.Recovered, results.Recovered}, []float64{1, 2})
			return m
		}(),
			"After cpu-cut in capacity-drop (2 to 4 replications per cell, 120 s horizon): " +
				"with faults[0].speed=0.3 it sticks for faults[0].for above 5 s (between 4 s and 6 s: P(stuck) 0 → 1); " +
				"with faults[0].speed=0.5 and 0.7 it never sticks within the 120 s horizon."},
		{"no numeric axis", handMap(2, func(idx []int) int { return idx[0] + idx[1] },
			results.Axis{Path: "clients[0].driver.retryPolicy", Values: []string{"none", "mongodb-2026-03"}},
			results.Axis{Path: "clients[0].driver.name", Values: []string{"a", "b"}}),
			"After cpu-cut in capacity-drop (2 replications per cell, 120 s horizon), P(stuck) ranges from 0 to 1 over the cells; no axis has numeric values to place the boundary on."},
		{"nothing ran", handMap(2, func([]int) int { return -1 }, speed, length),
			"After cpu-cut in capacity-drop (120 s horizon), no cell of the map ran."},
	} {
		if got := Summary(c.m); got != c.want {
			t.Errorf("%s:\n got: %s\nwant: %s", c.gloss, got, c.want)
		}
	}
}

func TestMapCell(t *testing.T) {
	m := handMap(10, table([]int{0, 2, 8, 10}, []int{0, 0, 4, 6}, []int{0, 0, 0, 5}), speed, length)
	c, ok := m.Cell("0.5", "8s")
	if !ok || c.Stuck != 6 || !slices.Equal([]results.Param{{Path: speed.Path, Value: "0.5"}, {Path: length.Path, Value: "8s"}}, c.Params) {
		t.Errorf("Cell(0.5, 8s) = %+v, %v, want the cell with 6 stuck", c, ok)
	}
	// A map whose cells are not in grid order is searched.
	shuffled := m
	shuffled.Cells = slices.Clone(m.Cells)
	slices.Reverse(shuffled.Cells)
	if c, ok := shuffled.Cell("0.5", "8s"); !ok || c.Stuck != 6 {
		t.Errorf("Cell(0.5, 8s) of the reversed cells = %+v, %v, want the cell with 6 stuck", c, ok)
	}
	if _, ok := m.Cell("0.5", "9s"); ok {
		t.Error("Cell(0.5, 9s) found a cell the map lacks")
	}
	if _, ok := m.Cell("0.5"); ok {
		t.Error("Cell with one value of two found a cell")
	}
}
