package plot

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot/palette/brewer"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/chart"
	"github.com/overloadsim/overloadsim/results/phasemap"
)

// The map fixtures are hand-built metastability maps with the pattern a CPU cut gives: the
// deeper (lower speed) and longer the cut, and the higher the load, the likelier the system
// sticks; P(stuck) is logistic in the cut's length around a length that grows with the speed
// and falls with the load. Recovery takes longer near the boundary.

var (
	mapSpeed  = results.Axis{Path: "faults[0].speed", Values: []string{"0.3", "0.4", "0.5", "0.6", "0.7"}}
	mapLength = results.Axis{Path: "faults[0].for", Values: []string{"2s", "4s", "6s", "8s", "10s", "12s"}}
	mapLoad   = results.Axis{Path: "clients[0].workload.rate", Values: []string{"1500/s", "2000/s", "2500/s"}}
)

// cutMap builds a map over speed × length (× load, if withLoad) with reps replications per
// cell; notRun lists cells (by index in grid order) left unrun, as an interrupted map leaves
// them.
func cutMap(reps int, withLoad bool, notRun ...int) phasemap.Map {
	axes := []results.Axis{mapSpeed, mapLength}
	loads := []float64{2000}
	if withLoad {
		axes = append(axes, mapLoad)
		loads = []float64{1500, 2000, 2500}
	}
	m := phasemap.Map{
		Header: results.Header{Tool: "overloadsim", Version: "test", Scenario: "capacity-drop", Seed: 7,
			Duration: 120 * time.Second, Interval: time.Second, Warmup: 10 * time.Second},
		Trigger: "cpu-cut",
		Axes:    axes,
	}
	for si, speed := range []float64{0.3, 0.4, 0.5, 0.6, 0.7} {
		for li := range mapLength.Values {
			length := float64(2 + 2*li)
			for zi, load := range loads {
				params := []results.Param{{Path: mapSpeed.Path, Value: mapSpeed.Values[si]}, {Path: mapLength.Path, Value: mapLength.Values[li]}}
				if withLoad {
					params = append(params, results.Param{Path: mapLoad.Path, Value: mapLoad.Values[zi]})
				}
				if slices.Contains(notRun, len(m.Cells)) {
					m.Cells = append(m.Cells, phasemap.NewCell(params, nil, nil))
					m.Partial = true
					continue
				}
				l50 := 3 + 28*(speed-0.3)*(2000/load)*(2000/load)
				p := 1 / (1 + math.Exp(-1.6*(length-l50)))
				k := int(math.Round(p * float64(reps)))
				outcomes := make([]results.RecoveryOutcome, reps)
				secs := make([]float64, reps)
				for i := range outcomes {
					outcomes[i] = results.Recovered
					secs[i] = math.Round(2+length*(1-speed)*(1+p)*2+float64(i%3)) / 1
					switch {
					case i < k:
						outcomes[i] = results.Stuck
					case i == reps-1 && p > 0.3 && p < 0.7:
						outcomes[i] = results.Undecided
					}
				}
				m.Cells = append(m.Cells, phasemap.NewCell(params, outcomes, secs))
			}
		}
	}
	return m
}

// policyMap is speed × retry policy: the policies are names, so the boundary runs along the
// speed (the y axis), one crossing per policy; "legacy" is not monotone.
func policyMap() phasemap.Map {
	policies := results.Axis{Path: "clients[0].driver.retryPolicy", Values: []string{"none", "mongodb-2026-03", "mongodb-legacy"}}
	m := phasemap.Map{
		Header:  results.Header{Tool: "overloadsim", Version: "test", Scenario: "policy-comparison", Seed: 3, Duration: 90 * time.Second},
		Trigger: "spike",
		Axes:    []results.Axis{mapSpeed, policies},
	}
	stuck := [][]int{ // by speed, then policy; 5 replications
		{5, 4, 5},
		{3, 1, 4},
		{1, 0, 2},
		{0, 0, 3},
		{0, 0, 0},
	}
	for si := range mapSpeed.Values {
		for pi := range policies.Values {
			outcomes := make([]results.RecoveryOutcome, 5)
			secs := make([]float64, 5)
			for i := range outcomes {
				outcomes[i], secs[i] = results.Recovered, float64(4+3*pi+i)
				if i < stuck[si][pi] {
					outcomes[i] = results.Stuck
				}
			}
			m.Cells = append(m.Cells, phasemap.NewCell([]results.Param{{Path: mapSpeed.Path, Value: mapSpeed.Values[si]},
				{Path: policies.Path, Value: policies.Values[pi]}}, outcomes, secs))
		}
	}
	return m
}

// writeMap writes m into a temporary folder and returns it.
func writeMap(t *testing.T, m phasemap.Map) string {
	t.Helper()
	dir := t.TempDir()
	if err := phasemap.Write(dir, m); err != nil {
		t.Fatal(err)
	}
	return dir
}

// mapFixtures are the map folders of the tests: plain (speed × length, 10 replications),
// loads (with load as a third axis, three panels), partial (an interrupted map: some cells not
// run, one replication each) and policies (a categorical x axis, the boundary along y).
func mapFixtures(t *testing.T) []struct{ name, dir string } {
	partial := cutMap(1, false, 3, 17, 24, 25, 26, 27, 28, 29)
	return []struct{ name, dir string }{
		{"plain", writeMap(t, cutMap(10, false))},
		{"loads", writeMap(t, cutMap(8, true))},
		{"partial", writeMap(t, partial)},
		{"policies", writeMap(t, policyMap())},
	}
}

func TestMapFigures(t *testing.T) {
	look := os.Getenv("PLOT_LOOK_DIR") // to look at the PNGs: PLOT_LOOK_DIR=/tmp/look go test -run TestMapFigures
	for _, fx := range mapFixtures(t) {
		t.Run(fx.name, func(t *testing.T) {
			names, err := WriteMapFigures(fx.dir, nil)
			if err != nil {
				t.Fatalf("WriteMapFigures(%s) = %v", fx.name, err)
			}
			checkWritten(t, fx.dir, names, []string{chart.Map})
			if look != "" {
				b, _ := os.ReadFile(filepath.Join(fx.dir, chart.Map+".png"))
				if err := os.MkdirAll(look, 0o755); err == nil {
					os.WriteFile(filepath.Join(look, fx.name+".png"), b, 0o644)
				}
			}
		})
	}
}

// TestMapFigureContent checks what a reader relies on in the map figures, as text and marks in
// the SVG: the title names the trigger and the scenario; the axes are labelled with the paths
// and every value is a tick label with its unit ("2 s", "1500/s"); the legend explains every
// mark; each cell with a recovery time carries it, each cell that ran its k/n (stuck of decided
// replications), each cell with undecided replications a "?", and each cell whose 95 % interval
// for P(stuck) holds ½ (chart.Straddles) a dashed frame; the cells not run are hatched; the
// boundary is drawn as the lines of phasemap.Boundary say.
func TestMapFigureContent(t *testing.T) {
	type want struct {
		texts    []string
		inSub    []string // in the subtitle
		absent   []string
		boundary int // bold black paths in the data areas (boundary polylines and bars)
		notRun   int // hatched cells
		straddle int // cells framed because their interval holds ½, and the legend's sample
	}
	cases := map[string]want{
		"plain": {
			texts: []string{"capacity-drop — Where cpu-cut sticks: P(stuck) over faults[0].for × faults[0].speed",
				"faults[0].for", "faults[0].speed", "2 s", "12 s", "0.3", "0.7", "P(stuck)", "0.50 — boundary",
				"P(stuck) = ½, interpolated", "median recovery time, s", "stuck of decided runs, k/n", "blank: none recovered",
				"some replications undecided", "95 % interval holds ½",
				"colour: share of replications stuck after cpu-cut · 10 replications per cell · horizon 120 s · seed 7"},
			absent:   []string{"not run", "faults[0].for (s)", "2"},
			boundary: 1, // one line: every speed but 0.7 crosses once, the lines joined
			straddle: 6, // 2/10, 8/10, 6/9, 3/10, 7/10 and the sample
		},
		"loads": {
			texts:    []string{"clients[0].workload.rate = 1500/s", "clients[0].workload.rate = 2500/s"},
			inSub:    []string{"· one panel per clients[0].workload.rate"},
			boundary: 3,
			straddle: 9,
		},
		"partial": {
			texts:    []string{"not run"},
			inSub:    []string{"· partial: 22 of 30 cells ran", "· 1 replication per cell ·"},
			absent:   []string{"some replications undecided"},
			boundary: 1,
			notRun:   8,
			straddle: 0, // one replication a cell never decides a side: every cell, said in the subtitle
		},
		"policies": {
			texts:    []string{"clients[0].driver.retryPolicy", "none", "mongodb-2026-03", "mongodb-legacy"},
			boundary: 5, // a bar each for none and mongodb-2026-03, three for legacy; never joined
			straddle: 8,
		},
	}
	maps := map[string]phasemap.Map{}
	for _, fx := range mapFixtures(t) {
		m, err := phasemap.Read(fx.dir)
		if err != nil {
			t.Fatal(err)
		}
		maps[fx.name] = m
	}
	for name, w := range cases {
		m := maps[name]
		svg, err := MapSVG(m)
		if err != nil {
			t.Fatal(err)
		}
		have := texts(svg)
		for _, s := range w.texts {
			if !slices.Contains(have, s) {
				t.Errorf("%s: %q is not in the SVG", name, s)
			}
		}
		f, err := newMapFig(m, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range f.Keys {
			if !slices.Contains(have, k.Label) {
				t.Errorf("%s: legend entry %q is not in the SVG", name, k.Label)
			}
		}
		for _, s := range w.inSub {
			if !strings.Contains(f.Subtitle, s) || !slices.Contains(have, f.Subtitle) {
				t.Errorf("%s: the subtitle %q lacks %q", name, f.Subtitle, s)
			}
		}
		for _, s := range w.absent {
			if slices.Contains(have, s) {
				t.Errorf("%s: %q is in the SVG, want it absent", name, s)
			}
		}
		// Every recovery time, every k/n and every "?" is written, once per cell; every cell
		// whose interval holds ½ is framed.
		var wantNums []string
		undecided, straddle, ran := 0, 0, 0
		for _, c := range m.Cells {
			if c.Replications > 0 && valid(c.PStuck) {
				ran++
				wantNums = append(wantNums, fmt.Sprintf("%d/%d", c.Stuck, c.Stuck+c.Recovered))
				if c.PStuckLo < 0.5 && c.PStuckHi > 0.5 {
					straddle++
				}
			}
			if c.Replications > 0 && valid(c.RecoveryMedian) {
				wantNums = append(wantNums, chart.RecoveryText(c.RecoveryMedian))
			}
			if c.Undecided > 0 {
				undecided++
			}
		}
		for _, n := range wantNums {
			if count(have, n) < count(wantNums, n) {
				t.Errorf("%s: %d cells with recovery time %s, the SVG has %d", name, count(wantNums, n), n, count(have, n))
			}
		}
		if undecided > 0 {
			undecided++ // the legend's sample
		}
		if got := count(have, "?"); got != undecided {
			t.Errorf("%s: %d \"?\" in the SVG, want %d", name, got, undecided)
		}
		switch {
		case straddle == ran: // every cell: said once in the subtitle, no frame
			straddle = 0
			if !strings.Contains(f.Subtitle, chart.AllStraddleNote) {
				t.Errorf("%s: every cell's interval holds ½, the subtitle %q does not say so", name, f.Subtitle)
			}
		case straddle > 0:
			straddle++ // the legend's sample
		}
		if got := strings.Count(string(svg), "stroke-dasharray:3,2"); got != straddle || straddle != w.straddle {
			t.Errorf("%s: %d dashed frames in the SVG, %d cells whose interval holds ½ (and the legend's sample), want %d", name, got, straddle, w.straddle)
		}
		// Bold black strokes: the boundary's, plus the colour bar's ½ mark and the legend's sample.
		bold := strings.Count(string(svg), `style="fill:none;stroke:#000000;stroke-width:3"`) - 2
		if bold != w.boundary {
			t.Errorf("%s: %d boundary paths, want %d", name, bold, w.boundary)
		}
		hatched := strings.Count(string(svg), `style="fill:#EEEEEE"`)
		if w.notRun > 0 {
			w.notRun++ // the legend's sample
		}
		if hatched != w.notRun {
			t.Errorf("%s: %d hatched cells (and legend sample), want %d", name, hatched, w.notRun)
		}
	}
}

func count(xs []string, x string) int {
	n := 0
	for _, s := range xs {
		if s == x {
			n++
		}
	}
	return n
}

// TestMapFigureDeterministic draws every map twice and wants the same bytes, SVG and PNG, and
// MapSVG to give the bytes of map.svg.
func TestMapFigureDeterministic(t *testing.T) {
	for _, fx := range mapFixtures(t) {
		if _, err := WriteMapFigures(fx.dir, nil); err != nil {
			t.Fatal(err)
		}
		svg, _ := os.ReadFile(filepath.Join(fx.dir, "map.svg"))
		png, _ := os.ReadFile(filepath.Join(fx.dir, "map.png"))
		if _, err := WriteMapFigures(fx.dir, nil); err != nil {
			t.Fatal(err)
		}
		svg2, _ := os.ReadFile(filepath.Join(fx.dir, "map.svg"))
		png2, _ := os.ReadFile(filepath.Join(fx.dir, "map.png"))
		if !bytes.Equal(svg, svg2) || !bytes.Equal(png, png2) {
			t.Errorf("%s: the map figure differs between two writes", fx.name)
		}
		m, err := phasemap.Read(fx.dir)
		if err != nil {
			t.Fatal(err)
		}
		man, err := results.ReadManifest(fx.dir)
		if err != nil {
			t.Fatal(err)
		}
		if b, err := MapSVG(m); err != nil || !bytes.Equal(results.MarkSVG(b, man.ResultDigest()), svg) {
			t.Errorf("%s: MapSVG differs from map.svg (err %v)", fx.name, err)
		}
	}
}

func TestMapFigureErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := WriteMapFigures(dir, nil); err == nil {
		t.Error("WriteMapFigures(empty folder) = nil error, want one")
	}
	one := cutMap(2, false)
	one.Axes = one.Axes[:1]
	if _, err := MapSVG(one); err == nil {
		t.Error("MapSVG(a map with one axis) = nil error, want one")
	}
	empty := cutMap(2, false)
	empty.Axes[1].Values = nil
	if _, err := MapSVG(empty); err == nil {
		t.Error("MapSVG(an axis without values) = nil error, want one")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the failed write left %d files", len(entries))
	}
}

// TestStuckStops: chart's P(stuck) scale is ColorBrewer's YlOrRd with 9 classes, as gonum's
// palette has it.
func TestStuckStops(t *testing.T) {
	want := brewer.YlOrRd[9].Colors()
	if len(want) != len(chart.StuckStops) {
		t.Fatalf("%d stops, want %d", len(chart.StuckStops), len(want))
	}
	for i, c := range want {
		if got := chart.StuckStops[i]; got != color.NRGBAModel.Convert(c).(color.NRGBA) {
			t.Errorf("stop %d = %v, want %v", i, got, c)
		}
	}
}
