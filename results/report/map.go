package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/chart"
	"github.com/overloadsim/overloadsim/results/phasemap"
	"github.com/overloadsim/overloadsim/results/plot"
)

// mapFigure is the figure of a metastability map. The report draws it when the folder lacks
// it: Write into the folder (map.svg and map.png, as `simulate plot` would), Render in memory
// only.
var mapFigure = chart.Lookup(chart.Map)

// mapView is what the template shows of a metastability map.
type mapView struct {
	Summary    string // phasemap.Summary
	Axes       []mapAxisView
	Params     []string // the axes' paths, the cells table's first columns
	NoBaseline bool     // some replication had no baseline: show the column
	Rows       []mapRow
}

type mapAxisView struct{ Path, Values string }

// mapRow is one cell of the map, formatted.
type mapRow struct {
	Params                                            []string
	Replications, Recovered, Stuck, Undecided, NoBase string
	PStuck, Recovery                                  string
	Interval                                          string // the 95 % interval of P(stuck), "" if none
	NotRun                                            bool
	StuckSide                                         bool // P(stuck) ≥ 1/2
	Straddle                                          bool // the interval holds 1/2 (chart.Straddles)
}

// drawMapFigure writes map.svg and map.png into the map folder dir, and lists them in its
// manifest m, when m does not list map.svg.
func drawMapFigure(dir string, m *results.Manifest) error {
	if m.Has(mapFigure.File()) {
		stale, err := results.StaleFigures(dir, m)
		if err != nil || !slices.Contains(stale, mapFigure.File()) {
			return err
		}
	}
	names, err := plot.WriteMapFigures(dir, nil)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	var files []string
	for _, n := range names {
		files = append(files, n+".svg", n+".png")
	}
	return results.AddFiles(dir, files...)
}

// loadMap reads a map folder: the page, and its figure, from map.svg or, when the folder lacks
// it, drawn in memory.
func loadMap(dir string, man *results.Manifest) (*view, error) {
	m, err := phasemap.Read(dir)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	v := mapPage(m)
	v.Result = man.ResultDigest()
	figs, err := loadFigures(dir, man)
	if err != nil {
		return nil, err
	}
	for _, f := range figs {
		if f.File == mapFigure.File() {
			v.Figures = figs
			return v, nil
		}
	}
	svg, err := plot.MapSVG(m)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	n := len(figs) + 1
	html, err := inlineSVG(results.MarkSVG(svg, man.ResultDigest()), "fig"+strconv.Itoa(n)+"-")
	if err != nil {
		return nil, fmt.Errorf("report: drawn %s: %w", mapFigure.File(), err)
	}
	v.Figures = append(figs, figure{Number: n, File: mapFigure.File(), Caption: mapFigure.Caption, SVG: html})
	return v, nil
}

func mapPage(m phasemap.Map) *view {
	h := m.Header
	v := commonPage(h, "map")
	mv := &mapView{Summary: phasemap.Summary(m)}
	var paths []string
	slots := 1
	for _, a := range m.Axes {
		paths = append(paths, a.Path)
		mv.Axes = append(mv.Axes, mapAxisView{a.Path, strings.Join(a.Values, ", ")})
		slots *= len(a.Values)
	}
	mv.Params = paths
	// The axes' values as a planner reads them: numbers with their unit ("2 s", "1500/s").
	shown := make([]map[string]string, len(m.Axes))
	for i, a := range m.Axes {
		shown[i] = map[string]string{}
		if nums, _, unit, ok := results.ParseValues(a.Values); ok {
			for j, val := range a.Values {
				shown[i][val] = results.FormatValue(nums[j], unit)
			}
		}
	}
	ran, fewest, most := 0, math.MaxInt, 0
	for _, c := range m.Cells {
		if c.Replications > 0 {
			ran++
			fewest, most = min(fewest, c.Replications), max(most, c.Replications)
		}
		mv.NoBaseline = mv.NoBaseline || c.NoBaseline > 0
	}
	reps := noValue
	switch {
	case ran > 0 && fewest == most:
		reps = strconv.Itoa(most)
	case ran > 0:
		reps = strconv.Itoa(fewest) + " to " + strconv.Itoa(most)
	}
	cells := strconv.Itoa(slots)
	if ran < slots {
		cells = strconv.Itoa(ran) + " of " + strconv.Itoa(slots) + " ran"
	}
	trigger := m.Trigger
	if trigger == "" {
		trigger = noValue
	}
	v.Facts = []fact{
		{"tool", toolText(h)},
		{"trigger", trigger},
		{"axes", strings.Join(paths, " × ")},
		{"cells", cells},
		{"replications per cell", reps},
		{"base seed", strconv.FormatUint(h.Seed, 10)},
		{"horizon", seconds(h.Duration)},
		{"interval", seconds(h.Interval)},
		{"warm-up", warmupText(h)},
	}
	for _, c := range m.Cells {
		r := mapRow{Replications: strconv.Itoa(c.Replications)}
		for i := range paths {
			cell := noValue
			if i < len(c.Params) {
				cell = c.Params[i].Value
				if s, ok := shown[i][cell]; ok {
					cell = s
				}
			}
			r.Params = append(r.Params, cell)
		}
		if c.Replications == 0 || missing(c.PStuck) {
			r.NotRun = true
			r.Recovered, r.Stuck, r.Undecided, r.NoBase = noValue, noValue, noValue, noValue
			r.PStuck, r.Recovery = "not run", noValue
			mv.Rows = append(mv.Rows, r)
			continue
		}
		r.Recovered, r.Stuck = strconv.Itoa(c.Recovered), strconv.Itoa(c.Stuck)
		r.Undecided, r.NoBase = strconv.Itoa(c.Undecided), strconv.Itoa(c.NoBaseline)
		r.PStuck = strconv.Itoa(c.Stuck) + "/" + strconv.Itoa(c.Stuck+c.Recovered) + " = " + fixed(c.PStuck, 2)
		r.StuckSide = c.PStuck >= 0.5
		r.Straddle = chart.Straddles(&c)
		if !missing(c.PStuckLo) && !missing(c.PStuckHi) {
			r.Interval = fixed(c.PStuckLo, 2) + "–" + fixed(c.PStuckHi, 2)
		}
		r.Recovery = noValue
		if !missing(c.RecoveryMedian) {
			r.Recovery = fixed(c.RecoveryMedian, 1) + " s"
		}
		mv.Rows = append(mv.Rows, r)
	}
	v.Map = mv
	return v
}
