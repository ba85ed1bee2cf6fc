package plot

import (
	"testing"

	"github.com/overloadsim/overloadsim/results/chart"
)

// TestCategoryLabelsSlant: category names wider than their share of the axis are slanted so
// that they do not run into each other; short ones stay level.
func TestCategoryLabelsSlant(t *testing.T) {
	long := []string{"none", "mongodb-legacy", "mongodb-2026-03", "mongodb-2026-07", "grpc", "aws-standard",
		"aws-adaptive", "finagle", "envoy", "sre-throttle", "custom"}
	for _, tc := range []struct {
		values []string
		slant  bool
	}{{long, true}, {[]string{"none", "grpc", "custom"}, false}} {
		x := chart.Axis{Categorical: true}
		for i, v := range tc.values {
			x.Ticks = append(x.Ticks, chart.Tick{Value: float64(i), Label: v})
		}
		p := renderPanel(&chart.Panel{X: x}).p
		if got := p.X.Tick.Label.Rotation != 0; got != tc.slant {
			t.Errorf("%d categories: slanted %v, want %v", len(tc.values), got, tc.slant)
		}
	}
}
