package sweep

import (
	"strings"
	"testing"
)

// TestNoHeadroomPastTheKnee pins that a sweep whose lowest load is already past the knee claims
// no headroom (LoadAnswers.Headroom, KneeBracket; conventions §15, "Nothing silently wrong"):
// the knee lies somewhere below the sweep, so Knee ÷ Today (here 1.12×) would be a figure the
// sweep does not support. The answers say instead that no load swept is safe.
func TestNoHeadroomPastTheKnee(t *testing.T) {
	// Goodput is short at every load; today's load is 1000/s, the lowest point 1120/s.
	pts := []*PointStats{loadPoint(1120, 800, 0.5), loadPoint(1500, 900, 0.8), loadPoint(2000, 950, 1.2)}
	a := AnswerLoad(pts, "total.", "", LoadContext{Today: 1000, SLO: 0.1})
	if !a.KneeFound || a.LastServed != 0 || a.Knee != 1120 {
		t.Fatalf("answers %+v: want the knee at the lowest point, 1120/s", a)
	}
	if a.Headroom != 0 || a.KneeBracket != [2]float64{} || a.LatencyBracket != [2]float64{} {
		t.Errorf("headroom %.2f×, brackets %v %v: want none claimed past the knee", a.Headroom, a.KneeBracket, a.LatencyBracket)
	}
	text := strings.Join(a.Sentences(), " ")
	if strings.Contains(text, "×") || !strings.Contains(text, "No load swept is safe") || !strings.Contains(text, "No headroom is claimed") {
		t.Errorf("sentences %q: want no headroom figure, and that no load swept is safe", text)
	}
	// A knee above the lowest point gives its bracket, and the safe load below it.
	ok := AnswerLoad([]*PointStats{loadPoint(500, 500, 0.01), loadPoint(1120, 800, 0.5)}, "total.", "", LoadContext{Today: 1000, SLO: 0.1})
	if ok.Headroom != 0.5 || ok.KneeBracket != [2]float64{0.5, 1.12} || ok.LatencyBracket != [2]float64{0.5, 1.12} {
		t.Errorf("knee above the lowest point: headroom %v, brackets %v %v; want 0.5, [0.5 1.12] both", ok.Headroom, ok.KneeBracket, ok.LatencyBracket)
	}
	if text := ok.Sentences()[0]; !strings.HasPrefix(text, "Today's load may already be past the safe load: safe only to 500/s (0.50× today's load)") {
		t.Errorf("safe load below today's: %q, want it to say that today's load may be past it", text)
	}
}
