package phasemap

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/overloadsim/overloadsim/results"
)

// BoundaryKind says how P(stuck) meets 1/2 along one axis of a metastability map.
type BoundaryKind string

// The kinds of boundary point.
const (
	// Crossing: P(stuck) is below 1/2 at one cell and at or above it at the next.
	Crossing BoundaryKind = "crossing"
	// NeverStuck: P(stuck) is below 1/2 at every cell that ran.
	NeverStuck BoundaryKind = "neverStuck"
	// AlwaysStuck: P(stuck) is at or above 1/2 at every cell that ran.
	AlwaysStuck BoundaryKind = "alwaysStuck"
	// NotRun: no cell along the axis ran (an interrupted map).
	NotRun BoundaryKind = "notRun"
)

// BoundaryPoint is where P(stuck) crosses 1/2 along one axis of a metastability map, at fixed
// values of the other axes; or, when it does not cross, which side of 1/2 the whole line is on.
// Values along the axis are in Unit (see results.ParseValues).
type BoundaryPoint struct {
	Fixed []results.Param `json:"fixed"` // the other axes' values, in axis order
	Axis  string          `json:"axis"`  // the path of the axis along which
	Kind  BoundaryKind    `json:"kind"`
	// At is where P(stuck) reaches 1/2 by linear interpolation between Lo and Hi; NaN unless
	// Kind is Crossing.
	At   float64 `json:"at"`
	Unit string  `json:"unit"` // "s", "ms", "µs", "/s" or "" (a plain number)
	// Lo < Hi are the two neighbouring values that ran whose P(stuck), PLo and PHi, straddle
	// 1/2 (Crossing); otherwise the lowest and highest values that ran, PLo and PHi NaN.
	Lo  float64 `json:"lo"`
	Hi  float64 `json:"hi"`
	PLo float64 `json:"pLo"`
	PHi float64 `json:"pHi"`
	// Rising is true when P(stuck) rises through 1/2 from Lo to Hi (the map sticks above At),
	// false when it falls (it sticks below At). Meaningful for a Crossing only.
	Rising bool `json:"rising"`
	// PMin and PMax are the lowest and highest P(stuck) along the line (NaN for NotRun).
	PMin float64 `json:"pMin"`
	PMax float64 `json:"pMax"`
}

// stuckSide reports whether p is on the stuck side of the boundary: P(stuck) ≥ 1/2.
func stuckSide(p float64) bool { return p >= 0.5 }

// Cell returns the cell whose parameter values are values (one per axis, in axis order, as
// text), and whether the map has it.
func (m *Map) Cell(values ...string) (Cell, bool) {
	if len(values) != len(m.Axes) {
		return Cell{}, false
	}
	idx := make([]int, len(values))
	for a, v := range values {
		if idx[a] = slices.Index(m.Axes[a].Values, v); idx[a] < 0 {
			return Cell{}, false
		}
	}
	if c := m.cellAt(idx); c != nil {
		return *c, true
	}
	return Cell{}, false
}

// cellAt returns the cell at the value indices idx (one per axis), or nil if the map has none.
// Cells are in grid order, so the cell's own slot is tried first; a map put together otherwise
// is searched.
func (m *Map) cellAt(idx []int) *Cell {
	match := func(c *Cell) bool {
		if len(c.Params) != len(idx) {
			return false
		}
		for a, i := range idx {
			if c.Params[a].Path != m.Axes[a].Path || c.Params[a].Value != m.Axes[a].Values[i] {
				return false
			}
		}
		return true
	}
	slot := 0
	for a, i := range idx {
		slot = slot*len(m.Axes[a].Values) + i
	}
	if slot < len(m.Cells) && match(&m.Cells[slot]) {
		return &m.Cells[slot]
	}
	for i := range m.Cells {
		if match(&m.Cells[i]) {
			return &m.Cells[i]
		}
	}
	return nil
}

// ran reports whether a cell has a P(stuck): it ran at least one replication.
func ran(c *Cell) bool { return c != nil && c.Replications > 0 && !math.IsNaN(c.PStuck) }

// combos returns the value index tuples of the grid with the axis skip left out (its entry
// -1; skip -1 leaves none out), in grid order: the first axis slowest.
func combos(m *Map, skip int) [][]int {
	out := [][]int{{}}
	for a := range m.Axes {
		var next [][]int
		for _, c := range out {
			if a == skip {
				next = append(next, append(slices.Clone(c), -1))
				continue
			}
			for v := range m.Axes[a].Values {
				next = append(next, append(slices.Clone(c), v))
			}
		}
		out = next
	}
	return out
}

// Boundary finds where P(stuck) crosses 1/2 along the axis at index along, for every
// combination of the other axes' values (in grid order, the first axis slowest): between the
// two neighbouring cells, in numeric order of the axis values and skipping the cells that did
// not run, of which one is below 1/2 and the other at or above it, by linear interpolation in
// the axis value. A line that crosses more than once (noise near 1/2, or a real window) gives
// one point per crossing, in axis order; a line that does not cross gives one NeverStuck,
// AlwaysStuck or NotRun point. The axis's values must all be numbers of one kind (results.ParseValue).
func Boundary(m Map, along int) ([]BoundaryPoint, error) {
	if along < 0 || along >= len(m.Axes) {
		return nil, fmt.Errorf("results: map boundary along axis %d: the map has %d axes", along, len(m.Axes))
	}
	ax := m.Axes[along]
	nums, _, unit, ok := results.ParseValues(ax.Values)
	if !ok {
		return nil, fmt.Errorf("results: map boundary along %s: values %q are not numbers of one kind", ax.Path, ax.Values)
	}
	order := make([]int, len(nums)) // value indices in numeric order
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(nums[a], nums[b]) })

	var out []BoundaryPoint
	for _, combo := range combos(&m, along) {
		var fixed []results.Param
		for a, v := range combo {
			if a != along {
				fixed = append(fixed, results.Param{Path: m.Axes[a].Path, Value: m.Axes[a].Values[v]})
			}
		}
		// The line's cells that ran, in numeric order.
		var xs, ps []float64
		for _, vi := range order {
			combo[along] = vi
			if c := m.cellAt(combo); ran(c) {
				xs, ps = append(xs, nums[vi]), append(ps, c.PStuck)
			}
		}
		base := BoundaryPoint{Fixed: fixed, Axis: ax.Path, Unit: unit, At: math.NaN(),
			Lo: math.NaN(), Hi: math.NaN(), PLo: math.NaN(), PHi: math.NaN(), PMin: math.NaN(), PMax: math.NaN()}
		if len(xs) == 0 {
			base.Kind = NotRun
			out = append(out, base)
			continue
		}
		base.PMin, base.PMax = slices.Min(ps), slices.Max(ps)
		crossed := false
		for i := 1; i < len(xs); i++ {
			if stuckSide(ps[i-1]) == stuckSide(ps[i]) {
				continue
			}
			crossed = true
			p := base
			p.Kind, p.Lo, p.Hi, p.PLo, p.PHi = Crossing, xs[i-1], xs[i], ps[i-1], ps[i]
			p.Rising = ps[i] > ps[i-1]
			p.At = xs[i-1] + float64((0.5-ps[i-1])/(ps[i]-ps[i-1])*(xs[i]-xs[i-1]))
			out = append(out, p)
		}
		if !crossed {
			base.Kind, base.Lo, base.Hi = NeverStuck, xs[0], xs[len(xs)-1]
			if stuckSide(ps[0]) {
				base.Kind = AlwaysStuck
			}
			out = append(out, base)
		}
	}
	return out, nil
}

// BoundaryAxis returns the index of the axis Summary and the map figure locate the 50 %
// boundary along: the second axis (the figure's x axis) when its values are numbers of one
// kind, else the first if its are; false when neither is.
func BoundaryAxis(m Map) (int, bool) {
	for _, a := range []int{1, 0} {
		if a < len(m.Axes) {
			if _, _, _, ok := results.ParseValues(m.Axes[a].Values); ok {
				return a, true
			}
		}
	}
	return -1, false
}

// Summary describes a metastability map in one paragraph of plain words, from its cells:
// the trigger, the horizon and the replications; then, for each value of the third axis (if
// any) and each value of the first, where along the second axis it sticks (BoundaryAxis,
// Boundary), with the two cells that bracket the crossing; lines that never or always stick
// are grouped; and the replications that were undecided or had no baseline, and the cells not
// run, if any.
func Summary(m Map) string {
	var b strings.Builder
	horizon := results.FormatSeconds(int64(m.Header.Duration)) + " s"
	trigger := m.Trigger
	if trigger == "" {
		trigger = "the trigger"
	}
	fmt.Fprintf(&b, "After %s", trigger)
	if m.Header.Scenario != "" {
		fmt.Fprintf(&b, " in %s", m.Header.Scenario)
	}
	total, ranCells, undecided, noBase := 0, 0, 0, 0
	fewest, most := math.MaxInt, 0
	for i := range m.Cells {
		c := &m.Cells[i]
		total += c.Replications
		undecided += c.Undecided
		noBase += c.NoBaseline
		if c.Replications > 0 {
			ranCells++
			fewest, most = min(fewest, c.Replications), max(most, c.Replications)
		}
	}
	switch {
	case ranCells == 0:
		fmt.Fprintf(&b, " (%s horizon)", horizon)
	case fewest == most:
		fmt.Fprintf(&b, " (%s per cell, %s horizon)", plural(most, "replication"), horizon)
	default:
		fmt.Fprintf(&b, " (%d to %d replications per cell, %s horizon)", fewest, most, horizon)
	}
	along, numeric := BoundaryAxis(m)
	switch {
	case ranCells == 0:
		b.WriteString(", no cell of the map ran.")
		return b.String()
	case !numeric:
		lo, hi := math.Inf(1), math.Inf(-1)
		for i := range m.Cells {
			if c := &m.Cells[i]; ran(c) {
				lo, hi = math.Min(lo, c.PStuck), math.Max(hi, c.PStuck)
			}
		}
		fmt.Fprintf(&b, ", P(stuck) ranges from %s to %s over the cells; no axis has numeric values to place the boundary on.",
			results.FormatValue(lo, ""), results.FormatValue(hi, ""))
	default:
		pts, err := Boundary(m, along)
		if err != nil { // BoundaryAxis checked the values
			fmt.Fprintf(&b, ": %v.", err)
			return b.String()
		}
		b.WriteString(": ")
		b.WriteString(describeBoundary(&m, along, pts, horizon))
	}
	var tail []string
	if undecided > 0 {
		verb := "were"
		if undecided == 1 {
			verb = "was"
		}
		tail = append(tail, fmt.Sprintf("%d of %d replications %s undecided (the horizon ended too soon to tell)", undecided, total, verb))
	}
	if noBase > 0 {
		tail = append(tail, fmt.Sprintf("%d had no baseline before the trigger", noBase))
	}
	if slots := len(combos(&m, -1)); ranCells < slots {
		tail = append(tail, fmt.Sprintf("the map is partial: %d of %d cells ran", ranCells, slots))
	}
	if len(tail) > 0 {
		t := strings.Join(tail, "; ")
		b.WriteString(" " + strings.ToUpper(t[:1]) + t[1:] + ".")
	}
	return b.String()
}

// describeBoundary writes the boundary points as clauses, one per line of the map (a value of
// the axis that is neither along nor the third), grouped under the third axis's values;
// consecutive lines that neither cross nor differ in wording are merged.
func describeBoundary(m *Map, along int, pts []BoundaryPoint, horizon string) string {
	type line struct {
		group string        // "path=value" of the third axis, "" without one
		row   results.Param // the line's value of the other axis
		pts   []BoundaryPoint
	}
	rowPath := m.Axes[1-along].Path // with two or three axes, the other of the first two
	var lines []*line
	for _, p := range pts {
		var l line
		for _, f := range p.Fixed {
			if f.Path == rowPath {
				l.row = f
			} else {
				l.group = f.Path + "=" + f.Value
			}
		}
		if n := len(lines); n > 0 && lines[n-1].group == l.group && lines[n-1].row == l.row {
			lines[n-1].pts = append(lines[n-1].pts, p)
			continue
		}
		l.pts = []BoundaryPoint{p}
		lines = append(lines, &l)
	}
	var b strings.Builder
	for i := 0; i < len(lines); {
		l := lines[i]
		switch {
		case l.group != "" && (i == 0 || lines[i-1].group != l.group):
			if i > 0 {
				b.WriteString(". ")
			}
			b.WriteString("At " + l.group + ", ")
		case i > 0:
			b.WriteString("; ")
		}
		text, crosses := lineClause(m.Axes[along].Path, l.pts, horizon)
		values := []string{l.row.Value}
		j := i + 1
		for ; !crosses && j < len(lines) && lines[j].group == l.group; j++ {
			if t, _ := lineClause(m.Axes[along].Path, lines[j].pts, horizon); t != text {
				break
			}
			values = append(values, lines[j].row.Value)
		}
		fmt.Fprintf(&b, "with %s=%s %s", rowPath, results.JoinAnd(values), text)
		i = j
	}
	b.WriteString(".")
	return b.String()
}

// lineClause words one line of the map from the points Boundary gave for it, and reports
// whether it crosses 1/2.
func lineClause(path string, pts []BoundaryPoint, horizon string) (text string, crosses bool) {
	p := pts[0]
	val := func(x float64) string { return results.FormatValue(x, p.Unit) }
	switch p.Kind {
	case NotRun:
		return "it was not run", false
	case NeverStuck:
		if p.PMax == 0 {
			return "it never sticks within the " + horizon + " horizon", false
		}
		return "P(stuck) stays below 1/2 (at most " + results.FormatValue(p.PMax, "") + ")", false
	case AlwaysStuck:
		if p.PMin == 1 {
			return "it always sticks", false
		}
		return "P(stuck) is 1/2 or more throughout (at least " + results.FormatValue(p.PMin, "") + ")", false
	}
	if len(pts) == 1 {
		dir := "above"
		if !p.Rising {
			dir = "below"
		}
		return fmt.Sprintf("it sticks for %s %s %s (between %s and %s: P(stuck) %s → %s)",
			path, dir, val(p.At), val(p.Lo), val(p.Hi), results.FormatValue(p.PLo, ""), results.FormatValue(p.PHi, "")), true
	}
	ats := make([]string, len(pts))
	for i, q := range pts {
		dir := "rising"
		if !q.Rising {
			dir = "falling"
		}
		ats[i] = dir + " at " + val(q.At)
	}
	return fmt.Sprintf("P(stuck) is not monotone along %s: it crosses 1/2 %s (noise near 1/2, or a window)",
		path, results.JoinAnd(ats)), true
}

// plural writes n and the noun, with an "s" unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
