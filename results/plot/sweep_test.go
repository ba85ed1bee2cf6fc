package plot

import (
	"html"
	"regexp"
	"strconv"
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

// svgTextAt matches a text element of gonum's SVG with its position (y is negated: the canvas
// is flipped) and its text.
var svgTextAt = regexp.MustCompile(`<text x="([-0-9.]+)" y="([-0-9.]+)"[^>]*\n?[^>]*>([^<]*)</text>`)

// TestSweepLegendBelow: a sweep figure's legend is below its plot (chart.Figure.KeysBelow),
// every entry under the x axis title and within the figure's width, so that the plot keeps the
// figure's width instead of giving a third of it to long entries; and every entry is drawn.
func TestSweepLegendBelow(t *testing.T) {
	for _, fx := range sweepFixtures(t) {
		figs, err := sweepFigures(fx.dir, chart.SweepOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range figs {
			svg, err := f.svg()
			if err != nil {
				t.Fatal(err)
			}
			pos := map[string][2]float64{}
			for _, m := range svgTextAt.FindAllStringSubmatch(string(svg), -1) {
				x, _ := strconv.ParseFloat(m[1], 64)
				y, _ := strconv.ParseFloat(m[2], 64)
				pos[html.UnescapeString(m[3])] = [2]float64{x, -y}
			}
			pn := f.rows[len(f.rows)-1][0]
			xlabel, ok := pos[pn.p.X.Label.Text]
			if !ok {
				t.Fatalf("%s %s: no x axis title in the SVG", fx.name, f.name)
			}
			for _, k := range pn.keys {
				at, ok := pos[k]
				if !ok || at[1] >= xlabel[1] || at[0] < 0 || at[0] >= float64(figWidth.Points()) {
					t.Errorf("%s %s: legend entry %q at %v, want it drawn below the x axis title (y %v) within the figure", fx.name, f.name, k, at, xlabel[1])
				}
			}
		}
	}
}
