package sweep

import (
	"strings"
	"testing"
)

// TestNoHeadroomPastTheKnee pins that a sweep whose lowest load is already past the knee claims
// no headroom (LoadAnswers.Headroom; conventions §15, "Nothing silently wrong"): the knee lies
// somewhere below the sweep, so Knee ÷ Today (here 1.12×) would be a figure the sweep does not
// support. The answers say instead that the lowest point is past the knee.
func TestNoHeadroomPastTheKnee(t *testing.T) {
	// Goodput is short at every load; today's load is 1000/s, the lowest point 1120/s.
	pts := []*PointStats{loadPoint(1120, 800, 0.5), loadPoint(1500, 900, 0.8), loadPoint(2000, 950, 1.2)}
	a := AnswerLoad(pts, "total.", LoadContext{Today: 1000, SLO: 0.1})
	if !a.KneeFound || a.LastServed != 0 || a.Knee != 1120 {
		t.Fatalf("answers %+v: want the knee at the lowest point, 1120/s", a)
	}
	if a.Headroom != 0 || a.LatencyHeadroom != 0 {
		t.Errorf("headroom %.2f×, latency headroom %.2f×: want none claimed past the knee", a.Headroom, a.LatencyHeadroom)
	}
	text := strings.Join(a.Sentences(), " ")
	if strings.Contains(text, "Headroom over") || !strings.Contains(text, "No headroom is claimed: the lowest load swept is already past the knee") {
		t.Errorf("sentences %q: want no headroom figure, and that the lowest load swept is past the knee", text)
	}
	// A knee above the lowest point still gives its headroom.
	ok := AnswerLoad([]*PointStats{loadPoint(500, 500, 0.01), loadPoint(1120, 800, 0.5)}, "total.", LoadContext{Today: 1000, SLO: 0.1})
	if ok.Headroom != 1.12 || ok.LatencyHeadroom != 1.12 {
		t.Errorf("knee above the lowest point: headroom %v, latency headroom %v; want 1.12 both", ok.Headroom, ok.LatencyHeadroom)
	}
}
