package chart

import "image/color"

// Figure is a figure as data: its title, its panels, their axes, series, reference lines,
// shaded windows and legends, with the names, the sums, the labels and the colours already
// chosen, so that a renderer only draws what it is given.
type Figure struct {
	Name     string // the registry's name (Registry), or "interactive" for a report's charts (Run.Charts)
	Title    string
	Subtitle string
	Panels   []Panel
	// Rows is how many panels each row holds, in order; nil is one panel a row.
	Rows []int
	// Weights are the rows' relative heights; nil (or a missing or zero weight) is 1.
	Weights []float64
}

// Grid returns the panels by row, as Rows arranges them.
func (f *Figure) Grid() [][]*Panel {
	var out [][]*Panel
	for i := 0; i < len(f.Panels); {
		n := 1
		if len(out) < len(f.Rows) {
			n = f.Rows[len(out)]
		}
		var row []*Panel
		for j := i; j < i+n && j < len(f.Panels); j++ {
			row = append(row, &f.Panels[j])
		}
		out = append(out, row)
		i += n
	}
	return out
}

// Panel is one plot of a figure. A renderer draws, in this order: the windows, the reference
// lines, the series, the empty message if any, and the windows' labels over everything; the
// legend is Keys, in order, beside the last panel of a row.
type Panel struct {
	Name         string // the panel's key in its figure ("rates")
	Title        string
	X, Y         Axis
	Windows      []Window // shaded stretches of x, under the data
	WindowLabels bool     // whether the windows' labels are written along the top
	Refs         []Ref    // horizontal reference lines
	Series       []Series
	Keys         []Key
	// Empty, when set, is the message of a panel with nothing to draw: the y axis then runs
	// from 0 to 1 without tick labels.
	Empty string
}

// Axis is an axis of a panel.
type Axis struct {
	Label string
	// Cover are values the axis reaches at least, beyond the data's range (0 for an axis from
	// zero). On a log axis (Log), their extremes are the positive range shown instead, padded
	// out to whole decades, and the series' values are drawn as their log10.
	Cover []float64
	Log   bool
	Ticks []Tick // fixed labelled ticks; nil lets the renderer choose them
}

// Tick is a labelled tick of an axis.
type Tick struct {
	Value float64
	Label string
}

// Dash is a line's pattern.
type Dash int

// The patterns.
const (
	Solid Dash = iota
	Dashed
	Dotted
)

// Line widths, in points.
const (
	Thin   = 1.25
	Medium = 1.75
	Thick  = 2.5
)

// Style is how a line is drawn: its colour, width (points) and pattern.
type Style struct {
	Colour color.NRGBA
	Width  float64
	Dash   Dash
}

// Shape is a point marker's shape.
type Shape int

// The shapes.
const (
	Circle Shape = iota
	Box
	Pyramid
	Square
	Triangle
	Cross
	Ring
)

// Glyph is a point marker: its shape and radius (points), in its line's colour.
type Glyph struct {
	Shape  Shape
	Radius float64
}

// Series is one line of a panel: its legend text (the report's charts), its style and its
// points, joined in order. A value of Y that is NaN is no value: the line has a gap there. A
// rate that holds over its interval is given as steps, a point at each end of the interval.
type Series struct {
	Label string
	Style
	X, Y  []float64
	Glyph *Glyph // drawn at every point when set
}

// Ref is a horizontal reference line across a panel ("1 = no retries").
type Ref struct {
	Y float64
	Style
}

// Window is a stretch of the x axis to shade: a fault's window or the warm-up, with its label
// in the colour of its edge. An instant (End = Start) is a dashed vertical line in Edge.
type Window struct {
	Start, End float64
	Label      string
	Fill, Edge color.NRGBA
}

// KeyKind is what a legend entry's icon shows.
type KeyKind int

// The icons.
const (
	KeyLine    KeyKind = iota // a horizontal line in the key's style (and its glyph)
	KeyFill                   // a rectangle filled with the key's colour (a window)
	KeyInstant                // a vertical line in the key's style (an instant fault)
)

// Key is one entry of a panel's legend.
type Key struct {
	Label string
	Kind  KeyKind
	Style
	Glyph *Glyph
}
