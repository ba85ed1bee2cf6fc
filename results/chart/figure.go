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
	// KeysBelow puts the last panel's legend below the panels, in as many columns as fit the
	// figure's width, rather than in a gutter right of them: a legend of long entries (a
	// sweep's lines with their knees, its marks) then takes a strip of the height instead of a
	// third of the width.
	KeysBelow bool
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
// lines, the crosses, the series, the bounds, the outline, the empty message if any, the
// layers, and over everything the windows' labels, the bounds' labels, the rings and the point
// labels; the legend is Keys, in order, beside the last panel of a row (or below the figure,
// Figure.KeysBelow).
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

	// The marks of a scatter of estimates (the tuning's Pareto figure), on linear axes.
	Crosses []Crosses    // points with their intervals both ways, under the series
	Bounds  []Bound      // labelled lines at bounds on either axis, over the series
	Outline *Outline     // a rectangle over the data (a close-up's area)
	Rings   []Rings      // rings around points, over everything
	Labels  []PointLabel // labels beside points, over everything

	// Layers are drawn after the empty message, in order, for a figure whose elements
	// interleave (a sweep's: each line over its own band, the ideal over the lines, the marks
	// over everything); see Layer.
	Layers []Layer
}

// Axis is an axis of a panel.
type Axis struct {
	Label string
	// Cover are values the axis reaches at least, beyond the data's range (0 for an axis from
	// zero). On a log axis (Log), their extremes are the positive range shown instead, padded
	// out to whole decades, and the panel's values along it (series, layers, reference lines)
	// are drawn as their log10.
	Cover []float64
	Log   bool
	Ticks []Tick // fixed labelled ticks; nil lets the renderer choose them
	// Categorical says that Ticks name categories, one a unit apart (a sweep's policies): a
	// renderer slants the labels of a horizontal axis when they are wider than their share of
	// it, so that they do not run into each other.
	Categorical bool
	// Range, when set, is the axis's extent, taken instead of the data's and Cover's, so that
	// a figure that outlines one panel's area on another (the tuning's close-up) knows both
	// extents. A renderer still leaves its room above a linear y axis and ends it at a tick, as
	// on every panel.
	Range *Range
}

// Range is a stretch of an axis, from Min to Max.
type Range struct{ Min, Max float64 }

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
	Hollow // a ring Width wide, filled white: a point left hollow over its bars
	Open   // a ring Width wide, see-through: a ring around a point
)

// Glyph is a point marker: its shape and radius (points), in its line's colour.
type Glyph struct {
	Shape  Shape
	Radius float64
	Width  float64 // the ring's line width (points), for Hollow and Open
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

// Ref is a horizontal reference line across a panel ("1 = no retries"). Label names it where a
// renderer writes it on the line (the interactive charts); a figure's key names it otherwise.
type Ref struct {
	Y float64
	Style
	Label string
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
	KeyBand                   // a rectangle filled with Fill, then KeyLine's line: an Interval's band
	KeyWhisker                // a vertical bar in the key's style with its glyph: an Interval's whiskers
	KeyGlyph                  // the key's glyph alone, in its colour (Markers, Absent, Rings)
	KeyCrosses                // the key's Glyph with a bar each way in its style (Crosses)
	KeyOutline                // a rectangle in the key's style (an Outline)
	KeyText                   // no icon: a note
)

// Key is one entry of a panel's legend.
type Key struct {
	Label string
	Kind  KeyKind
	Style
	Glyph *Glyph
	Fill  color.NRGBA // KeyBand's band
}

// Layer is an element of a panel drawn in the order of Panel.Layers: a Series, a Ref, an
// Interval, Levels, Markers, Absent or VMarks.
type Layer interface{ layer() }

func (Series) layer()   {}
func (Ref) layer()      {}
func (Interval) layer() {}
func (Levels) layer()   {}
func (Markers) layer()  {}
func (Absent) layer()   {}
func (VMarks) layer()   {}

// Interval is a line of means with their confidence interval, Lo to Hi, at each point: over
// numbers, the line in Style with Glyph at every point over a band filled with Fill (drawn
// first); over categories (Whiskers), Glyph at each mean with a capped vertical bar from Lo to
// Hi, where a line between categories would mean nothing. A NaN is no value, as in Series.
type Interval struct {
	Style
	Fill         color.NRGBA
	Glyph        Glyph
	X, Y, Lo, Hi []float64
	Whiskers     bool
}

// Levels is a short horizontal line in Style at each (X, Y), HalfWidth either side in x
// units: a reference value per category.
type Levels struct {
	Style
	X, Y      []float64
	HalfWidth float64
}

// Markers is Glyph, in Colour, at each point, without a line (a knee's ring).
type Markers struct {
	Colour color.NRGBA
	Glyph  Glyph
	X, Y   []float64
}

// Absent marks the x positions where the panel's metric has no value (no operation succeeded,
// so no latency): Glyph, in Colour, along the bottom of the panel.
type Absent struct {
	Colour color.NRGBA
	Glyph  Glyph
	X      []float64
}

// VMarks are vertical lines across a panel, each with its label at the top in its colour. A
// renderer never lets the labels overlap: it may move one down, or leave it out when it finds
// no room (the keys name every mark in any case).
type VMarks []VMark

// VMark is one vertical line of VMarks.
type VMark struct {
	X     float64
	Label string
	Style
}

// Crosses are points with an interval both ways (the means of two metrics and their confidence
// intervals): a bar with caps over each interval, in Style, and Glyph at each mean, in Style's
// colour. A point whose mean is not finite is not drawn.
type Crosses struct {
	Style
	Glyph  Glyph
	Points []Estimate
}

// Estimate is one point of Crosses: its means and the half-widths of their intervals (0: no
// bar).
type Estimate struct{ X, XHalf, Y, YHalf float64 }

// Bound is a line across a panel at a bound on one of its axes, labelled in its colour: on x
// (Vertical) a vertical line labelled at its top, on y a horizontal line labelled above its
// right end.
type Bound struct {
	Vertical bool
	At       float64
	Label    string
	Style
}

// Outline is a rectangle drawn over the data: the area a close-up shows.
type Outline struct {
	X, Y Range
	Style
}

// Rings are Glyph, in Colour, drawn at each point over everything else.
type Rings struct {
	Colour color.NRGBA
	Glyph  Glyph
	Points []Point
}

// PointLabel is a label beside a point, which the renderer places clear of the other labels and
// points and inside the panel where it can: the bold ones first, in black, the rest in grey. A
// label without Text is a point the others keep clear of.
type PointLabel struct {
	Point
	Text string
	Bold bool
}
