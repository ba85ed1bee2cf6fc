package chart

import "image/color"

// Figure is a figure as data: its panels, their axes and their series, with the names, the
// sums and the colours already chosen, so that a renderer only draws what it is given.
type Figure struct {
	Name   string // the registry's name (Registry), or "interactive" for a report's charts (RunCharts)
	Panels []Panel
}

// Panel is one plot of a figure.
type Panel struct {
	Name   string // the panel's key in its figure ("rates")
	Series []Series
}

// Series is one line of a panel: its legend text, its colour and its points. A value of Y
// that is NaN is no value: the line has a gap there.
type Series struct {
	Label  string
	Colour color.NRGBA
	X, Y   []float64
}
