package chart

import (
	"fmt"
	"image/color"
	"strconv"
)

// Colours of the figures, chosen here once: the gonum renderer (results/plot) draws them and
// the report's interactive charts (results/report) write them as hex. The metric colours are
// the fixed colours of the rates over time; Palette colours the groups, servers and sweep lines
// in order.
var (
	Offered    = color.NRGBA{0x44, 0x44, 0x44, 0xff}
	Attempts   = color.NRGBA{0xf2, 0x8e, 0x2b, 0xff}
	Goodput    = color.NRGBA{0x2c, 0x8c, 0x3c, 0xff}
	Failures   = color.NRGBA{0xd6, 0x27, 0x28, 0xff}
	Rejections = color.NRGBA{0x8a, 0x5c, 0xa8, 0xff}

	FaultFill  = color.NRGBA{0xe1, 0x57, 0x59, 0x2e}
	FaultEdge  = color.NRGBA{0xb0, 0x30, 0x30, 0xff}
	WarmupFill = color.NRGBA{0x80, 0x80, 0x80, 0x26}
	Grid       = color.NRGBA{0xdd, 0xdd, 0xdd, 0xff}
	Reference  = color.NRGBA{0x60, 0x60, 0x60, 0xff}
	Note       = color.NRGBA{0x55, 0x55, 0x55, 0xff}
	Total      = color.NRGBA{0x11, 0x11, 0x11, 0xff}

	// Palette: 12 colours dark enough for lines on white, each at least 25 apart (CIE76 ΔE in
	// CIELAB) from every other and from every metric colour above, so that a group or a sweep
	// line is never taken for a metric or for another line (results/plot's TestPalette). The
	// first ones are the most saturated, for the common case of few lines.
	Palette = []color.NRGBA{
		{0x00, 0x77, 0xbb, 0xff}, // blue
		{0xee, 0x33, 0x77, 0xff}, // magenta
		{0x00, 0x99, 0x88, 0xff}, // teal
		{0x33, 0x22, 0x88, 0xff}, // indigo
		{0xbc, 0xbd, 0x22, 0xff}, // olive
		{0x88, 0x22, 0x55, 0xff}, // wine
		{0x66, 0xcc, 0xee, 0xff}, // cyan
		{0x88, 0x2d, 0x17, 0xff}, // rust
		{0xe3, 0x77, 0xc2, 0xff}, // pink
		{0x65, 0x45, 0x22, 0xff}, // brown
		{0xc2, 0xb2, 0x80, 0xff}, // sand
		{0xff, 0x9d, 0xa7, 0xff}, // rose
	}
)

// PaletteColour is the i-th colour of Palette, cycling: the colour of the i-th group or server
// in name order, or of the i-th line of a figure.
func PaletteColour(i int) color.NRGBA { return Palette[i%len(Palette)] }

// WithAlpha returns c with alpha a (c is not premultiplied).
func WithAlpha(c color.NRGBA, a uint8) color.NRGBA { c.A = a; return c }

// Hex writes an opaque colour as CSS writes it: "#0077bb".
func Hex(c color.NRGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }

// RGBA is c as a CSS colour with its transparency: "rgba(214,39,40,0.118)".
func RGBA(c color.NRGBA) string {
	return fmt.Sprintf("rgba(%d,%d,%d,%s)", c.R, c.G, c.B, strconv.FormatFloat(float64(c.A)/255, 'f', 3, 64))
}
