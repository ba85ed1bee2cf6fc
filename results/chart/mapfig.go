package chart

import (
	"cmp"
	"fmt"
	"image/color"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/phasemap"
)

// MapFigure is the metastability map as data: one panel of cells per value of the third axis,
// each cell coloured by P(stuck) on the heat scale (StuckColour) and labelled with its median
// recovery time, the 50 % boundary as lines in the panels' coordinates, and the legend's keys.
// Cell i of an axis is centred on position i, whatever the spacing of the values.
type MapFigure struct {
	Title, Subtitle string
	X, Y            MapAxis // X: the map's second axis, Y: its first
	Panels          []MapPanel
	Boundary        bool // whether the map has a boundary (the colour bar marks ½ as it)
	Keys            []MapKey
}

// MapAxis is one axis of the map's panels: its label, its number of cells and its ticks.
type MapAxis struct {
	Label string
	Cells int
	Ticks []Tick
}

// MapPanel is the cells at one value of the third axis. Title names the value by the axis's
// full path, ShortTitle by its last element, for panels too narrow for Title ("" without a
// third axis). Boundary holds the boundary's polylines in the panel's (x, y) positions.
type MapPanel struct {
	Title, ShortTitle string
	Cells             []MapCell // row by row from the bottom, left to right
	Boundary          [][]Point
}

// Point is a point in a panel's coordinates.
type Point struct{ X, Y float64 }

// MapCell is one cell at positions (X, Y). A cell that did not run (or has no P(stuck)) is
// hatched, without text; one that ran is filled with Fill and carries Text (its median
// recovery time, "" when none recovered), Count (k/n: stuck of decided replications, the
// share the colour is) and, with undecided replications, a "?" in its corner, all in Ink;
// Straddle cells, whose 95 % interval for P(stuck) holds ½ (so the replications do not say on
// which side of the boundary the cell lies), are framed with a dashed line in Ink.
type MapCell struct {
	X, Y      int
	Ran       bool
	Fill      color.NRGBA
	Ink       color.Color
	Text      string
	Count     string
	Undecided bool
	Straddle  bool
}

// AllStraddleNote is what a map whose every cell's interval holds ½ says once, in its subtitle,
// instead of framing every cell: too few replications for any cell to decide its side (at
// least 4 decided replications, all on one side, exclude ½ from the Wilson interval).
const AllStraddleNote = "too few replications for any cell's 95 % interval to exclude ½"

// Straddles is the rule of a map cell's mark: its 95 % interval for P(stuck) (the Wilson
// interval of phasemap.Cell, PStuckLo to PStuckHi) holds ½ strictly inside, so that its
// replications do not decide on which side of the boundary it lies.
func Straddles(c *phasemap.Cell) bool { return c.PStuckLo < 0.5 && c.PStuckHi > 0.5 }

// MapKeyKind is what a map legend entry's sample shows.
type MapKeyKind int

// The samples.
const (
	MapKeyBoundary MapKeyKind = iota // the boundary's line
	MapKeyText                       // Text on a cell of Fill, in Ink
	MapKeyHatch                      // a cell that did not run
	MapKeyStraddle                   // a cell framed with a dashed line: its interval holds ½
)

// MapKey is one entry of the map's legend.
type MapKey struct {
	Label string
	Kind  MapKeyKind
	Text  string
	Fill  color.NRGBA
	Ink   color.Color
}

// Colours of the map figure's cells that did not run.
var (
	NotRunFill  = color.NRGBA{0xee, 0xee, 0xee, 0xff}
	NotRunHatch = color.NRGBA{0x9a, 0x9a, 0x9a, 0xff}
)

// StuckStops is the P(stuck) scale: ColorBrewer's sequential YlOrRd (9 classes), from pale
// yellow (never stuck) to dark red (always stuck). Its lightness falls monotonically, so it
// reads in greyscale and to most colour-blind readers.
var StuckStops = []color.NRGBA{
	{0xff, 0xff, 0xcc, 0xff}, {0xff, 0xed, 0xa0, 0xff}, {0xfe, 0xd9, 0x76, 0xff},
	{0xfe, 0xb2, 0x4c, 0xff}, {0xfd, 0x8d, 0x3c, 0xff}, {0xfc, 0x4e, 0x2a, 0xff},
	{0xe3, 0x1a, 0x1c, 0xff}, {0xbd, 0x00, 0x26, 0xff}, {0x80, 0x00, 0x26, 0xff},
}

// StuckColour returns the colour of P(stuck) = p on the fixed 0–1 scale, interpolated
// linearly between the classes of StuckStops.
func StuckColour(p float64) color.NRGBA {
	p = math.Max(0, math.Min(1, p))
	t := float64(p * float64(len(StuckStops)-1))
	i := min(int(t), len(StuckStops)-2)
	f := t - float64(i)
	a, b := StuckStops[i], StuckStops[i+1]
	mix := func(x, y uint8) uint8 { return uint8(math.Round(float64(x) + float64(f*(float64(y)-float64(x))))) }
	return color.NRGBA{mix(a.R, b.R), mix(a.G, b.G), mix(a.B, b.B), 0xff}
}

// InkOn returns the text colour that reads on a fill: white on dark fills, black on light ones.
func InkOn(c color.NRGBA) color.Color {
	if float64(0.299*float64(c.R))+float64(0.587*float64(c.G))+float64(0.114*float64(c.B)) < 140 {
		return color.White
	}
	return color.Black
}

// RecoveryText writes a recovery time in seconds as a planner reads it off a cell: whole
// seconds from 10 s, one decimal below ("7.5", "12"); the unit is in the legend, so that the
// numbers fit the narrow cells of three panels side by side.
func RecoveryText(secs float64) string {
	if secs >= 10 {
		return strconv.FormatFloat(math.Round(secs), 'f', 0, 64)
	}
	return results.FormatValue(math.Round(secs*10)/10, "")
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// mapAxis is one axis of the map as drawn: its values in display order (ascending when they
// are numbers) at positions 0, 1, 2, …, and its label.
type mapAxis struct {
	path   string
	values []string  // display order
	index  []int     // display position → index in the map's axis values
	nums   []float64 // display order, in unit; nil when the values are not numbers
	unit   string    // of nums: "s", "ms", "/s", or "" for plain numbers
	label  string
}

// newMapAxis lays out the map's axis a, titled by its parameter's name given in labels, else
// its short name (ParamLabel, from the scenario's names in info: "cut length", "web rate").
func newMapAxis(a results.Axis, info ParamInfo, labels map[string]string) *mapAxis {
	ax := &mapAxis{path: a.Path, label: ParamLabel(a.Path, info, labels)}
	order := make([]int, len(a.Values))
	for i := range order {
		order[i] = i
	}
	nums, _, unit, ok := results.ParseValues(a.Values)
	if ok {
		slices.SortStableFunc(order, func(x, y int) int { return cmp.Compare(nums[x], nums[y]) })
		ax.unit = unit
	}
	for _, i := range order {
		ax.index = append(ax.index, i)
		ax.values = append(ax.values, a.Values[i])
		if ok {
			ax.nums = append(ax.nums, nums[i])
		}
	}
	return ax
}

// axis returns the axis as drawn: every position labelled with its value, numbers with their
// unit ("2 s", "1500/s"), or every k-th when there are more than maxTicks.
func (ax *mapAxis) axis() MapAxis {
	const maxTicks = 14
	step := (len(ax.values) + maxTicks - 1) / maxTicks
	out := MapAxis{Label: ax.label, Cells: len(ax.values)}
	for i, v := range ax.values {
		if i%step != 0 {
			continue
		}
		if ax.nums != nil {
			v = results.FormatValue(ax.nums[i], ax.unit)
		}
		out.Ticks = append(out.Ticks, Tick{Value: float64(i), Label: v})
	}
	return out
}

// pos returns the position of the value x (in unit) on the axis: between the cells of the two
// values around it, linearly in the value, as phasemap.Boundary interpolates.
func (ax *mapAxis) pos(x float64) float64 {
	n := len(ax.nums)
	if n == 0 || !finite(x) {
		return math.NaN()
	}
	for i := 1; i < n; i++ {
		if x <= ax.nums[i] {
			lo, hi := ax.nums[i-1], ax.nums[i]
			if hi == lo {
				return float64(i)
			}
			return float64(i-1) + (x-lo)/(hi-lo)
		}
	}
	return float64(n - 1)
}

// mapBuild holds what building a MapFigure needs across its panels.
type mapBuild struct {
	m      phasemap.Map
	x, y   *mapAxis // x: the second axis, y: the first
	z      *mapAxis // the third axis, nil without one
	along  int      // the axis the boundary runs along (0: y, 1: x), -1 for none
	bounds []phasemap.BoundaryPoint
}

// BuildMap builds the figure of the metastability map m (two or three axes), its parameters
// named by labels (path → name, --label) or else by their short names (ParamLabel).
func BuildMap(m phasemap.Map, labels map[string]string) (*MapFigure, error) {
	if n := len(m.Axes); n < 2 || n > 3 {
		return nil, fmt.Errorf("chart: a metastability map has two or three axes, this one %d", n)
	}
	var paths []string
	for _, a := range m.Axes {
		if len(a.Values) == 0 {
			return nil, fmt.Errorf("chart: map axis %s has no values", a.Path)
		}
		paths = append(paths, a.Path)
	}
	for _, path := range slices.Sorted(maps.Keys(labels)) {
		if !slices.Contains(paths, path) {
			return nil, fmt.Errorf("chart: --label %s=%s: not a parameter of the map (its axes: %s)", path, labels[path], strings.Join(paths, ", "))
		}
	}
	info := ParamInfoOf(m.Header.Canonical)
	b := &mapBuild{m: m, y: newMapAxis(m.Axes[0], info, labels), x: newMapAxis(m.Axes[1], info, labels), along: -1}
	if len(m.Axes) == 3 {
		b.z = newMapAxis(m.Axes[2], info, labels)
	}
	if a, ok := phasemap.BoundaryAxis(m); ok {
		bp, err := phasemap.Boundary(m, a)
		if err != nil {
			return nil, fmt.Errorf("chart: %w", err)
		}
		b.along, b.bounds = a, bp
	}
	f := &MapFigure{X: b.x.axis(), Y: b.y.axis(), Boundary: b.along >= 0}
	f.Title, f.Subtitle = b.titles()
	zs := []int{-1}
	if b.z != nil {
		zs = b.z.index
	}
	var notRun, undecided bool
	ran, straddling := 0, 0
	for k, zi := range zs {
		p := MapPanel{Title: b.panelTitle(k, false), ShortTitle: b.panelTitle(k, true)}
		for yi, my := range b.y.index {
			for xi, mx := range b.x.index {
				cell := b.cellAt(my, mx, zi)
				notRun = notRun || cell == nil || cell.Replications == 0
				undecided = undecided || cell != nil && cell.Undecided > 0
				c := MapCell{X: xi, Y: yi, Ran: cell != nil && cell.Replications > 0 && finite(cell.PStuck)}
				if c.Ran {
					c.Fill = StuckColour(cell.PStuck)
					c.Ink = InkOn(c.Fill)
					if finite(cell.RecoveryMedian) {
						c.Text = RecoveryText(cell.RecoveryMedian)
					}
					c.Undecided = cell.Undecided > 0
					c.Count = strconv.Itoa(cell.Stuck) + "/" + strconv.Itoa(cell.Stuck+cell.Recovered)
					c.Straddle = Straddles(cell)
					ran++
					if c.Straddle {
						straddling++
					}
				}
				p.Cells = append(p.Cells, c)
			}
		}
		if b.along >= 0 {
			p.Boundary = b.boundary(zi)
		}
		f.Panels = append(f.Panels, p)
	}
	sample := func(label, text string, p float64) {
		fill := StuckColour(p)
		f.Keys = append(f.Keys, MapKey{Label: label, Kind: MapKeyText, Text: text, Fill: fill, Ink: InkOn(fill)})
	}
	if f.Boundary {
		f.Keys = append(f.Keys, MapKey{Label: "P(stuck) = ½, interpolated", Kind: MapKeyBoundary})
	}
	sample("median recovery time, s", "7.5", 0.25)
	sample("stuck of decided runs, k/n", "3/10", 0.3)
	sample("blank: none recovered", "", 1)
	if undecided {
		sample("some replications undecided", "?", 0.25)
	}
	if straddling == ran && ran > 0 {
		// Every cell holds ½: a frame on each would say nothing a line cannot, and hide the
		// map. The subtitle says it once.
		for k := range f.Panels {
			for i := range f.Panels[k].Cells {
				f.Panels[k].Cells[i].Straddle = false
			}
		}
		f.Subtitle += " · " + AllStraddleNote
	} else if straddling > 0 {
		fill := StuckColour(0.5)
		f.Keys = append(f.Keys, MapKey{Label: "95 % interval holds ½", Kind: MapKeyStraddle, Fill: fill, Ink: InkOn(fill)})
	}
	if notRun {
		f.Keys = append(f.Keys, MapKey{Label: "not run", Kind: MapKeyHatch, Fill: NotRunFill})
	}
	return f, nil
}

// panelTitle names the third axis's value of panel k: "path = value", or with short "name =
// value" by the last element of the path; "" without a third axis.
func (b *mapBuild) panelTitle(k int, short bool) string {
	if b.z == nil {
		return ""
	}
	name := b.z.path
	if short {
		name = name[strings.LastIndex(name, ".")+1:]
	}
	return name + " = " + b.z.values[k]
}

// cellAt returns the cell at map value indices (y, x, z), z -1 without a third axis; nil if
// the map has none.
func (b *mapBuild) cellAt(y, x, z int) *phasemap.Cell {
	values := []string{b.m.Axes[0].Values[y], b.m.Axes[1].Values[x]}
	if z >= 0 {
		values = append(values, b.m.Axes[2].Values[z])
	}
	if c, ok := b.m.Cell(values...); ok {
		return &c
	}
	return nil
}

// titles returns the figure's title (the trigger and the scenario) and its subtitle (what the
// colours and numbers are, and the run's facts).
func (b *mapBuild) titles() (string, string) {
	trig := b.m.Trigger
	if trig == "" {
		trig = "the trigger"
	}
	title := "Where " + trig + " sticks: P(stuck) over " + b.x.label + " × " + b.y.label
	if b.m.Header.Scenario != "" {
		title = b.m.Header.Scenario + " — " + title
	}
	fewest, most, ran := math.MaxInt, 0, 0
	for _, c := range b.m.Cells {
		if c.Replications > 0 {
			fewest, most, ran = min(fewest, c.Replications), max(most, c.Replications), ran+1
		}
	}
	reps := strconv.Itoa(most) + " replications per cell"
	switch {
	case ran == 0:
		reps = "no cell ran"
	case most == 1:
		reps = "1 replication per cell"
	case fewest != most:
		reps = strconv.Itoa(fewest) + "–" + strconv.Itoa(most) + " replications per cell"
	}
	sub := fmt.Sprintf("colour: share of replications stuck after %s · %s · horizon %s s · seed %d",
		trig, reps, strconv.FormatFloat(b.m.Header.Duration.Seconds(), 'f', -1, 64), b.m.Header.Seed)
	cells := len(b.x.values) * len(b.y.values)
	if b.z != nil {
		cells *= len(b.z.values)
		sub += " · one panel per " + b.z.path
	}
	if ran < cells {
		sub += fmt.Sprintf(" · partial: %d of %d cells ran", ran, cells)
	}
	return title, sub
}

// crossings returns, for each line across the boundary's axis (display order), the positions
// along it where P(stuck) crosses ½ in the panel at third-axis value index zIdx.
func (b *mapBuild) crossings(zIdx int) [][]float64 {
	alongAx, across := b.x, b.y
	if b.along == 0 {
		alongAx, across = b.y, b.x
	}
	acrossAxis := 1 - b.along
	out := make([][]float64, len(across.values))
	for _, bp := range b.bounds {
		if bp.Kind != phasemap.Crossing {
			continue
		}
		line := -1
		zOK := zIdx < 0
		for _, fx := range bp.Fixed {
			switch {
			case fx.Path == b.m.Axes[acrossAxis].Path:
				line = slices.Index(across.values, fx.Value)
			case b.z != nil && fx.Path == b.z.path:
				zOK = fx.Value == b.m.Axes[2].Values[zIdx]
			}
		}
		if line >= 0 && zOK {
			out[line] = append(out[line], alongAx.pos(bp.At))
		}
	}
	return out
}

// boundary returns the 50 % boundary of one panel (phasemap.Boundary) as polylines: where
// P(stuck) = ½ on each line of cells along the boundary's axis, a bar across the line's cell;
// the bars of neighbouring lines that each cross once are joined into one polyline when the
// lines are numbers (not policy names, between which nothing is interpolated).
func (b *mapBuild) boundary(zIdx int) [][]Point {
	// pt maps (position along, line) to the panel, whichever axis the boundary runs along.
	pt := func(along, line float64) Point {
		if b.along == 0 {
			return Point{X: line, Y: along}
		}
		return Point{X: along, Y: line}
	}
	var paths [][]Point
	var run []Point // the polyline of consecutive lines that cross once
	flush := func() {
		if len(run) > 0 {
			paths = append(paths, run)
			run = nil
		}
	}
	cr := b.crossings(zIdx)
	join := b.y.nums != nil
	if b.along == 0 {
		join = b.x.nums != nil
	}
	for line, xs := range cr {
		l := float64(line)
		switch len(xs) {
		case 0:
			flush()
		case 1:
			if len(run) == 0 {
				run = append(run, pt(xs[0], l-0.5)) // from the line's outer edge
			}
			run = append(run, pt(xs[0], l))
			if !join || line+1 == len(cr) || len(cr[line+1]) != 1 {
				run = append(run, pt(xs[0], l+0.5))
				flush()
			}
		default: // not monotone: a bar at each crossing, joined to nothing
			flush()
			for _, x := range xs {
				paths = append(paths, []Point{pt(x, l-0.5), pt(x, l+0.5)})
			}
		}
	}
	return paths
}
