package stats

import (
	"math"
	"testing"
)

func TestMeanCI(t *testing.T) {
	// Five values with mean 3 and sample sd √2.5; t_{0.975,4} = 2.776445 (standard t table).
	m, h := MeanCI([]float64{1, 2, 3, 4, 5}, 0.95)
	if m != 3 || math.Abs(h-2.776445*math.Sqrt(2.5)/math.Sqrt(5)) > 1e-5 {
		t.Fatalf("MeanCI = %v ± %v", m, h)
	}
	if _, h := MeanCI([]float64{7}, 0.95); !math.IsNaN(h) {
		t.Fatalf("one sample: half-width %v, want NaN", h)
	}
}
