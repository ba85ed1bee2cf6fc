package tipping

import (
	"math"
	"testing"
)

// TestInterval pins the exact two-sided interval at a level: with no run stuck out of n, the
// upper end is 1 − ((1−level)/2)^(1/n) (0/12 at 95 %: 26.5 %), and with all stuck the lower end
// is ((1−level)/2)^(1/n) — the rule of three's exact form.
func TestInterval(t *testing.T) {
	lo, hi := Interval(0, 12, 0.95)
	if want := 1 - math.Pow(0.025, 1.0/12); lo != 0 || math.Abs(hi-want) > 1e-12 {
		t.Errorf("Interval(0 of 12) = [%v, %v], want [0, %v]", lo, hi, want)
	}
	lo, hi = Interval(12, 0, 0.95)
	if want := math.Pow(0.025, 1.0/12); hi != 1 || math.Abs(lo-want) > 1e-12 {
		t.Errorf("Interval(12 of 12) = [%v, %v], want [%v, 1]", lo, hi, want)
	}
}
