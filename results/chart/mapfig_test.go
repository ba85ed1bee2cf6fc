package chart

import (
	"image/color"
	"math"
	"testing"
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
