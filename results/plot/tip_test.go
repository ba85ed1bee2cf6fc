package plot

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/chart"
	"github.com/overloadsim/overloadsim/results/tip"
)

// The tipping-point fixtures: a cut whose search ended at a tie (the README's shape, with a
// logistic fit), a rate that sticks below its boundary, and a range without a flip.

func tipProbe(value string, x float64, stuck, recovered, undecided int, lo, hi float64) tip.Probe {
	return tip.Probe{Value: value, X: x, Replications: stuck + recovered + undecided, Stuck: stuck, Recovered: recovered,
		Undecided: undecided, Lo95: lo, Hi95: hi}
}

func tipFixtures() map[string]tip.Result {
	nan := math.NaN()
	hdr := results.Header{Tool: "overloadsim", Version: "test", Scenario: "cpu-cut-storm", Seed: 1}
	return map[string]tip.Result{
		"cut": {Header: hdr, Trigger: "cpu-cut", Param: "faults[0].for", Name: "cut length", Unit: "s", Sticks: "above",
			Boundary: 6.375, Lo: 5.5, Hi: 7.25, Confidence: 0.95, Replications: 119, FitX50: 6.6, FitLo: 6.1, FitHi: 7.1,
			Probes: []tip.Probe{tipProbe("2s", 2, 0, 12, 0, 0, 0.2646), tipProbe("16s", 16, 12, 0, 0, 0.7354, 1),
				tipProbe("9s", 9, 12, 0, 0, 0.7354, 1), tipProbe("5.5s", 5.5, 0, 12, 0, 0, 0.2646),
				tipProbe("7.25s", 7.25, 26, 6, 0, 0.6356, 0.9279), tipProbe("6.375s", 6.375, 19, 19, 1, 0.3338, 0.6662)}},
		"below": {Header: hdr, Trigger: "spike", Param: "clients[0].appRetry.attempts", Name: "web retry attempts", Sticks: "below",
			Boundary: 3, Lo: 2, Hi: 4, Confidence: 0.95, Replications: 36, FitX50: nan, FitLo: nan, FitHi: nan,
			Probes: []tip.Probe{tipProbe("1", 1, 12, 0, 0, 0.7354, 1), tipProbe("5", 5, 0, 12, 0, 0, 0.2646),
				tipProbe("3", 3, 4, 8, 0, 0.0992, 0.6511)}},
		"noflip": {Header: hdr, Trigger: "cpu-cut", Param: "faults[0].for", Name: "cut length", Unit: "s", Sticks: "above",
			Boundary: nan, Lo: nan, Hi: nan, Confidence: 0.95, Replications: 24, FitX50: nan, FitLo: nan, FitHi: nan,
			Probes: []tip.Probe{tipProbe("1ms", 0.001, 0, 12, 0, 0, 0.2646), tipProbe("20ms", 0.02, 0, 12, 0, 0, 0.2646)},
			NoFlip: &tip.NoFlip{Side: "recovered", Value: "20ms", X: 0.02, Runs: 12, PHi: 0.2646, Level: 0.95}},
	}
}

// TestTipFigures draws every fixture's figure (golden SVG, a 1200 × 800 PNG) and checks the
// SVG writes what a planner reads off it: the k/n of every value tested and the bound's label.
func TestTipFigures(t *testing.T) {
	look := os.Getenv("PLOT_LOOK_DIR") // to look at the PNGs: PLOT_LOOK_DIR=/tmp/look go test -run TestTipFigures
	for name, r := range tipFixtures() {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := tip.Write(dir, r); err != nil {
				t.Fatal(err)
			}
			names, err := WriteTipFigures(dir)
			if err != nil {
				t.Fatalf("WriteTipFigures(%s) = %v", name, err)
			}
			checkWritten(t, dir, names, []string{chart.Tip})
			svg, err := os.ReadFile(filepath.Join(dir, chart.Tip+".svg"))
			if err != nil {
				t.Fatal(err)
			}
			have := texts(svg)
			for _, p := range r.Probes {
				if s := p.Stuck; !slices.ContainsFunc(have, func(x string) bool { return strings.HasPrefix(x, strconv.Itoa(s)+"/"+strconv.Itoa(p.Decided())) }) {
					t.Errorf("%s: no label %d/%d in the SVG", name, s, p.Decided())
				}
			}
			if b := r.Bound(); b.Safe != nil {
				toward := map[string]string{"above": "up to", "below": "down to"}[r.Sticks]
				if want := "all recovered " + toward + " " + r.Tested(b.Safe.X); !slices.Contains(have, want) {
					t.Errorf("%s: %q is not in the SVG", name, want)
				}
			}
			if look != "" {
				b, _ := os.ReadFile(filepath.Join(dir, chart.Tip+".png"))
				if err := os.MkdirAll(look, 0o755); err == nil {
					os.WriteFile(filepath.Join(look, "tip-"+name+".png"), b, 0o644)
				}
			}
		})
	}
}
