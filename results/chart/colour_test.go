package chart

import (
	"image/color"
	"math"
	"testing"
)

// lab converts an sRGB colour to CIELAB (D65).
func lab(c color.NRGBA) [3]float64 {
	lin := func(v uint8) float64 {
		x := float64(v) / 255
		if x <= 0.04045 {
			return x / 12.92
		}
		return math.Pow((x+0.055)/1.055, 2.4)
	}
	r, g, b := lin(c.R), lin(c.G), lin(c.B)
	x := (0.4124*r + 0.3576*g + 0.1805*b) / 0.95047
	y := 0.2126*r + 0.7152*g + 0.0722*b
	z := (0.0193*r + 0.1192*g + 0.9505*b) / 1.08883
	f := func(t float64) float64 {
		if t > 216.0/24389 {
			return math.Cbrt(t)
		}
		return (24389.0/27*t + 16) / 116
	}
	return [3]float64{116*f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))}
}

// deltaE is the CIE76 colour difference: about 2.3 is just noticeable; 25 is plainly another
// colour.
func deltaE(a, b color.NRGBA) float64 {
	p, q := lab(a), lab(b)
	return math.Sqrt((p[0]-q[0])*(p[0]-q[0]) + (p[1]-q[1])*(p[1]-q[1]) + (p[2]-q[2])*(p[2]-q[2]))
}

// TestPalette: at least 12 line colours, each plainly different from every other and from every
// metric colour (a group's line is never read as a metric's), and dark enough for a line on
// white.
func TestPalette(t *testing.T) {
	const minDelta = 25
	if len(Palette) < 12 {
		t.Errorf("%d colours, want at least 12", len(Palette))
	}
	metrics := map[string]color.NRGBA{"offered": Offered, "attempts": Attempts, "goodput": Goodput,
		"failures": Failures, "rejections": Rejections, "total": Total}
	for i, c := range Palette {
		if l := lab(c)[0]; l > 78 {
			t.Errorf("Palette[%d] %v: lightness %.0f, too pale for a line on white", i, c, l)
		}
		for j := range i {
			if d := deltaE(c, Palette[j]); d < minDelta {
				t.Errorf("Palette[%d] %v and Palette[%d] %v: ΔE %.1f < %d", i, c, j, Palette[j], d, minDelta)
			}
		}
		for name, m := range metrics {
			if d := deltaE(c, m); d < minDelta {
				t.Errorf("Palette[%d] %v and the %s colour %v: ΔE %.1f < %d", i, c, name, m, d, minDelta)
			}
		}
	}
	if PaletteColour(len(Palette)) != Palette[0] {
		t.Error("PaletteColour does not cycle")
	}
}
