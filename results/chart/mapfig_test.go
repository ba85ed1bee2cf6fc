package chart

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/phasemap"
)

// TestStuckColour: the scale runs from the palette's first colour to its last, and gets darker
// all the way, so that it reads in greyscale.
func TestStuckColour(t *testing.T) {
	if got := StuckColour(0); got != StuckStops[0] {
		t.Errorf("StuckColour(0) = %v, want %v", got, StuckStops[0])
	}
	if got := StuckColour(1); got != StuckStops[len(StuckStops)-1] {
		t.Errorf("StuckColour(1) = %v, want %v", got, StuckStops[len(StuckStops)-1])
	}
	luma := func(c color.NRGBA) float64 { return 0.299*float64(c.R) + 0.587*float64(c.G) + 0.114*float64(c.B) }
	prev := math.Inf(1)
	for i := 0; i <= 100; i++ {
		l := luma(StuckColour(float64(i) / 100))
		if l > prev+0.5 { // rounding to whole channel values
			t.Errorf("StuckColour(%v) is lighter (%.1f) than just below (%.1f)", float64(i)/100, l, prev)
		}
		prev = l
	}
}

func TestRecoveryText(t *testing.T) {
	for _, c := range []struct {
		secs float64
		want string
	}{{7.5, "7.5"}, {7.25, "7.3"}, {0, "0"}, {9.96, "10"}, {12.4, "12"}, {125, "125"}} {
		if got := RecoveryText(c.secs); got != c.want {
			t.Errorf("RecoveryText(%v) = %q, want %q", c.secs, got, c.want)
		}
	}
}

// TestStraddles pins the rule of the map's mark: a cell is marked when its 95 % interval for
// P(stuck) holds ½ strictly inside; an interval that ends at or short of ½ decides a side.
func TestStraddles(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		want   bool
	}{
		{0.0456, 0.699, true},  // 1 of 4
		{0.3006, 0.9544, true}, // 3 of 4
		{0, 0.4899, false},     // 0 of 4
		{0.5101, 1, false},     // 4 of 4
		{0, 0.5, false},        // ends at ½
		{0.5, 0.9, false},      // starts at ½
		{0, 0.7935, true},      // 0 of 1: one replication never decides
	} {
		cell := phasemap.Cell{PStuckLo: c.lo, PStuckHi: c.hi}
		if got := Straddles(&cell); got != c.want {
			t.Errorf("Straddles([%v, %v]) = %v, want %v", c.lo, c.hi, got, c.want)
		}
	}
}

// TestMapCells: every cell that ran carries k/n (stuck of decided replications, what its colour
// is) and is marked when its interval holds ½; the axes' values carry their units; the legend
// explains the mark only when a cell has it.
func TestMapCells(t *testing.T) {
	params := func(speed, length string) []results.Param {
		return []results.Param{{Path: "faults[0].speed", Value: speed}, {Path: "faults[0].for", Value: length}}
	}
	outcomes := func(stuck, recovered, undecided int) []results.RecoveryOutcome {
		var out []results.RecoveryOutcome
		for range stuck {
			out = append(out, results.Stuck)
		}
		for range recovered {
			out = append(out, results.Recovered)
		}
		for range undecided {
			out = append(out, results.Undecided)
		}
		return out
	}
	secs := func(n int) []float64 { return make([]float64, n) }
	m := phasemap.Map{Trigger: "cut", Axes: []results.Axis{
		{Path: "faults[0].speed", Values: []string{"0.3", "0.5"}}, {Path: "faults[0].for", Values: []string{"500ms", "2s"}}},
		Cells: []phasemap.Cell{
			phasemap.NewCell(params("0.3", "500ms"), outcomes(0, 10, 0), secs(10)),
			phasemap.NewCell(params("0.3", "2s"), outcomes(3, 6, 1), secs(10)),
			phasemap.NewCell(params("0.5", "500ms"), outcomes(10, 0, 0), secs(10)),
			phasemap.NewCell(params("0.5", "2s"), nil, nil),
		}}
	f, err := BuildMap(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range f.Panels[0].Cells {
		got = append(got, fmt.Sprintf("%s %v", c.Count, c.Straddle))
	}
	if want := []string{"0/10 false", "3/9 true", "10/10 false", " false"}; !slices.Equal(got, want) {
		t.Errorf("cells (k/n, marked): %q, want %q", got, want)
	}
	var ticks []string
	for _, tk := range f.X.Ticks {
		ticks = append(ticks, tk.Label)
	}
	if want := []string{"0.5 s", "2 s"}; !slices.Equal(ticks, want) || f.X.Label != "faults[0].for" {
		t.Errorf("x axis %q with ticks %q, want the values with their unit %q", f.X.Label, ticks, want)
	}
	if !slices.ContainsFunc(f.Keys, func(k MapKey) bool { return k.Kind == MapKeyStraddle }) {
		t.Error("the legend does not explain the mark")
	}
	m.Cells[1] = phasemap.NewCell(params("0.3", "2s"), outcomes(0, 10, 0), secs(10))
	if f, _ := BuildMap(m, nil); slices.ContainsFunc(f.Keys, func(k MapKey) bool { return k.Kind == MapKeyStraddle }) {
		t.Error("the legend explains a mark no cell has")
	}
	// Three replications a cell: no cell can exclude ½, and the subtitle says so once
	// instead of a frame on every cell.
	m.Cells = []phasemap.Cell{
		phasemap.NewCell(params("0.3", "500ms"), outcomes(0, 3, 0), secs(3)),
		phasemap.NewCell(params("0.3", "2s"), outcomes(3, 0, 0), secs(3)),
		phasemap.NewCell(params("0.5", "500ms"), outcomes(0, 3, 0), secs(3)),
		phasemap.NewCell(params("0.5", "2s"), outcomes(3, 0, 0), secs(3)),
	}
	f, _ = BuildMap(m, nil)
	if slices.ContainsFunc(f.Panels[0].Cells, func(c MapCell) bool { return c.Straddle }) || !strings.HasSuffix(f.Subtitle, AllStraddleNote) ||
		slices.ContainsFunc(f.Keys, func(k MapKey) bool { return k.Kind == MapKeyStraddle }) {
		t.Errorf("every cell holds ½: want no frames, no legend entry, and the subtitle %q to end with %q", f.Subtitle, AllStraddleNote)
	}
	// With the scenario recorded, the axes and the title name the parameters by their short
	// names (ParamLabel), not by their paths.
	m.Header.Canonical = "faults:\n  - kind: capacity\n    at: 10s\n"
	f, _ = BuildMap(m, nil)
	if f.X.Label != "cut length" || f.Y.Label != "CPU left" || !strings.Contains(f.Title, "over cut length × CPU left") {
		t.Errorf("with the scenario: axes %q and %q, title %q; want cut length, CPU left and both in the title", f.X.Label, f.Y.Label, f.Title)
	}
}
