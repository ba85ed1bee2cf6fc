package chart

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/sweep"
)

const (
	ratePath   = "clients[0].workload.rate"
	policyPath = "clients[0].driver.retryPolicy"
)

// sweepPoint is a point of a hand-built sweep offered x/s against a capacity of 250/s: goodput
// min(x, 250), p99 5 ms up to the capacity and 100 times that above it, policy's latency
// missing when it is "down" (nothing succeeded), with a confidence interval of half the mean
// (of the whole mean for the p99 at 400/s, whose band then reaches zero).
func sweepPoint(x float64, policy string) sweep.PointStats {
	p99 := 0.005
	if x > 250 {
		p99 = 0.5
	}
	if policy == "down" {
		p99 = math.NaN()
	}
	params := []results.Param{{Path: ratePath, Value: fmt.Sprintf("%.0f/s", x)}}
	if policy != "" {
		params = append(params, results.Param{Path: policyPath, Value: policy})
	}
	p := sweep.PointStats{Params: params, Replications: 3}
	for _, m := range []struct {
		name string
		v    float64
	}{{"offered", x}, {"goodput", min(x, 250)}, {"amplification", 1}, {"latency_ok_p99", p99}} {
		ci := m.v / 2
		if m.name == "latency_ok_p99" && x == 400 {
			ci = m.v
		}
		p.Metrics = append(p.Metrics, results.MetricStats{Name: "total." + m.name, Mean: m.v, CI95: ci, N: 3})
	}
	return p
}

// sweepFigures writes a sweep folder of points, with a load context of today 150/s against
// a configured ceiling of 250/s, and builds its figures with x on the axis.
func sweepFigures(t *testing.T, points []sweep.PointStats, x string) (goodput, amp, p99 *Figure) {
	t.Helper()
	dir := t.TempDir()
	hdr := results.Header{Tool: "overloadsim", Version: "test", Scenario: "fixture", Seed: 1, Duration: 10 * time.Second, Interval: time.Second}
	if err := sweep.WriteSweepDir(dir, hdr, points, "", &sweep.LoadContext{Today: 150, Ceiling: 250}); err != nil {
		t.Fatal(err)
	}
	figs, err := SweepFigures(dir, SweepOptions{X: x})
	if err != nil {
		t.Fatal(err)
	}
	if len(figs) < 3 { // and the decision's, for a sweep of a policy (decisionfig_test.go)
		t.Fatalf("%d figures, want 3 or more", len(figs))
	}
	for i, name := range Names(results.KindSweep)[:3] {
		if figs[i].Name != name || len(figs[i].Panels) != 1 {
			t.Fatalf("figure %d is %q with %d panels, want %q with one", i, figs[i].Name, len(figs[i].Panels), name)
		}
	}
	return figs[0], figs[1], figs[2]
}

func keyLabels(pn *Panel) []string {
	var out []string
	for _, k := range pn.Keys {
		out = append(out, k.Label)
	}
	return out
}

func layerTypes(pn *Panel) []string {
	var out []string
	for _, l := range pn.Layers {
		out = append(out, fmt.Sprintf("%T", l))
	}
	return out
}

// TestSweepFigureOneLoadLine: a load sweep of one line has its knee and latency knee as
// labelled vertical marks with today's load (no ring), the ideal under the configured ceiling,
// and, on the p99 figure, a log axis when the latencies span more than a factor of 50, with
// the latency knee's threshold and every band's low end above zero.
func TestSweepFigureOneLoadLine(t *testing.T) {
	var pts []sweep.PointStats
	for _, x := range []float64{100, 200, 300, 400} {
		pts = append(pts, sweepPoint(x, ""))
	}
	goodput, amp, p99 := sweepFigures(t, pts, "")

	if goodput.Title != "Goodput vs offered load" || goodput.Subtitle != "scenario fixture · 4 points × 3 replications · lines: mean; bands: 95 % confidence interval (Student t)" {
		t.Errorf("goodput title %q, subtitle %q", goodput.Title, goodput.Subtitle)
	}
	pn := &goodput.Panels[0]
	if pn.X.Label != "total offered load, all groups (operations/s) · swept: clients[0].workload.rate" || !slices.Equal(pn.X.Cover, []float64{100, 200, 300, 400, 91, 409}) || pn.X.Categorical {
		t.Errorf("x axis %+v, want the load covering every value, with a margin of 3 %% of the range either side", pn.X)
	}
	if !slices.Equal(pn.Y.Cover, fromZero) {
		t.Errorf("goodput y axis %+v, want it from zero", pn.Y)
	}
	if got, want := layerTypes(pn), []string{"chart.Interval", "chart.Series", "chart.VMarks"}; !slices.Equal(got, want) {
		t.Errorf("goodput layers %v, want %v: no ring for one load line", got, want)
	}
	if got, want := keyLabels(pn), []string{"all groups", "ideal: min(offered, configured ceiling 250/s)",
		"today's load (the scenario as configured)", "safe: served in full within the latency rule",
		"knee and latency knee, at the same load"}; !slices.Equal(got, want) {
		t.Errorf("goodput keys\n%q, want\n%q", got, want)
	}
	if iv := pn.Layers[0].(Interval); iv.Whiskers || pn.Keys[0].Kind != KeyBand || iv.Fill != pn.Keys[0].Fill || iv.Colour != PaletteColour(0) {
		t.Errorf("the line %+v, key %+v: want a band under a line, keyed so", iv, pn.Keys[0])
	}
	marks := pn.Layers[2].(VMarks)
	var labels []string
	for _, m := range marks {
		labels = append(labels, m.Label)
	}
	// The knee and the latency knee are the same point: one mark, so that neither hides the other.
	if want := []string{"today 150/s · safe to 1.33×", "safe 200/s", "knees 300/s"}; !slices.Equal(labels, want) ||
		marks[0].X != 150 || marks[0].Dash != Dotted || marks[1].X != 200 || marks[1].Dash != Solid || marks[1].Colour != Goodput ||
		marks[2].Dash != Dashed || marks[2].Colour != FaultEdge {
		t.Errorf("marks %+v, want today dotted, the safe load solid, the knees dashed, labelled %q", marks, want)
	}

	pn = &amp.Panels[0]
	if amp.Title != "Retry amplification vs offered load" || len(pn.Refs) != 1 || pn.Refs[0].Y != 1 ||
		!slices.Equal(keyLabels(pn), []string{"all groups", "1 = no retries"}) {
		t.Errorf("amplification %q: refs %+v, keys %q", amp.Title, pn.Refs, keyLabels(pn))
	}

	pn = &p99.Panels[0]
	if !pn.Y.Log || pn.Y.Label != "p99 latency (ms, log scale)" || !slices.Equal(pn.Y.Cover, []float64{2.5, 1000}) {
		t.Errorf("p99 y axis %+v, want log over the bands' extremes in ms", pn.Y)
	}
	if got, want := layerTypes(pn), []string{"chart.Interval", "chart.VMarks", "chart.Ref"}; !slices.Equal(got, want) {
		t.Errorf("p99 layers %v, want %v", got, want)
	}
	if ref := pn.Layers[2].(Ref); ref.Y != 10 || pn.Keys[len(pn.Keys)-1].Label != "latency knee threshold 10 ms" {
		t.Errorf("threshold %+v keyed %q, want 10 ms", ref, pn.Keys[len(pn.Keys)-1].Label)
	}
	// The band that reaches zero runs off the bottom of the log axis: a millionth of its mean.
	if iv := pn.Layers[0].(Interval); !slices.Equal(iv.Y, []float64{5, 5, 500, 500}) || !slices.Equal(iv.Lo, []float64{2.5, 2.5, 250, 500e-6}) {
		t.Errorf("p99 line %v, low ends %v: want ms, the last a millionth of its mean", iv.Y, iv.Lo)
	}
}

// TestSweepFigureLines: a load sweep of several lines rings each line's knee in its colour
// and names it in the line's key; a line without successes has no p99, and its loads are
// marked absent, keyed once, and a sweep without any success has an empty p99 panel; over
// categories (--x policy) the lines are whiskers side by side, the ideal a level per category,
// the knees (by the rule, x not being the load) rings, and the axis a tick per category.
func TestSweepFigureLines(t *testing.T) {
	var pts []sweep.PointStats
	for _, policy := range []string{"none", "down"} {
		for _, x := range []float64{100, 200, 300, 400} {
			pts = append(pts, sweepPoint(x, policy))
		}
	}
	goodput, _, p99 := sweepFigures(t, pts, "")
	pn := &goodput.Panels[0]
	if pn.Title != "one line per value of clients[0].driver.retryPolicy (all groups)" {
		t.Errorf("panel title %q", pn.Title)
	}
	if got, want := layerTypes(pn), []string{"chart.Interval", "chart.Interval", "chart.Series", "chart.Markers", "chart.Markers", "chart.VMarks"}; !slices.Equal(got, want) {
		t.Errorf("goodput layers %v, want %v", got, want)
	}
	for i := range 2 {
		col, _ := (&Sweep{By: policyPath}).LineColour(i)
		// The two knees are at the same point: nested rings, the first line's the wider.
		ring := Glyph{Shape: Ring, Radius: []float64{8.5, 7}[i]}
		if m := pn.Layers[3+i].(Markers); m.Colour != col || m.Glyph != ring || !slices.Equal(m.X, []float64{300}) || !slices.Equal(m.Y, []float64{250}) {
			t.Errorf("line %d's knee %+v, want a ring of %+v in its colour at 300/s", i, m, ring)
		}
	}
	if got, want := keyLabels(pn), []string{"none (knee 300/s, safe to 1.33×)", "down (knee 300/s, safe to 1.33×)", "ideal: min(offered, configured ceiling 250/s)",
		"knee: first load not served in full", "today's load (the scenario as configured)"}; !slices.Equal(got, want) {
		t.Errorf("goodput keys\n%q, want\n%q", got, want)
	}
	if k := pn.Keys[3]; k.Kind != KeyGlyph || *k.Glyph != kneeKeyGlyph {
		t.Errorf("knee key %+v, want a ring", k)
	}

	pn = &p99.Panels[0]
	absent := pn.Layers[2].(Absent)
	if !slices.Equal(absent.X, []float64{100, 200, 300, 400}) || pn.Keys[2].Label != "no value: no operation succeeded" || pn.Keys[2].Kind != KeyGlyph {
		t.Errorf("absent %+v keyed %+v, want every load of the line without successes", absent, pn.Keys[2])
	}

	_, _, p99 = sweepFigures(t, pts[4:], "")
	if pn := &p99.Panels[0]; pn.Empty != "no successful operations" || pn.Y.Log || pn.Y.Cover != nil {
		t.Errorf("p99 of a sweep without successes: empty %q, y axis %+v", pn.Empty, pn.Y)
	}

	goodput, _, _ = sweepFigures(t, pts, policyPath)
	pn = &goodput.Panels[0]
	if !pn.X.Categorical || !slices.Equal(pn.X.Cover, []float64{-0.5, 1.5}) || !slices.Equal(pn.X.Ticks, []Tick{{0, "none"}, {1, "down"}}) {
		t.Errorf("categorical x axis %+v", pn.X)
	}
	if got, want := layerTypes(pn), []string{"chart.Interval", "chart.Interval", "chart.Interval", "chart.Interval", "chart.Levels", "chart.Markers", "chart.Markers"}; !slices.Equal(got, want) {
		t.Errorf("categorical goodput layers %v, want %v", got, want)
	}
	first, last := pn.Layers[0].(Interval), pn.Layers[3].(Interval)
	if !first.Whiskers || pn.Keys[0].Kind != KeyWhisker || !(first.X[0] < 0 && last.X[0] > 0 && last.X[0] < 0.5) {
		t.Errorf("categorical lines at %v … %v, want whiskers side by side within their category", first.X, last.X)
	}
	if goodput.Subtitle != "scenario fixture · 8 points × 3 replications · points: mean; bars: 95 % confidence interval (Student t)" {
		t.Errorf("categorical subtitle %q", goodput.Subtitle)
	}
}

// TestSweepFigureMarksOnTotalLoad: a load sweep's x axis is the total offered load (XAxis.OnOffered),
// so that its marks, which are in total offered load (sweep.LoadAnswers, today's load), sit on
// the points they name: a sweep of one group's rate while another group offers 100/s more
// draws its points at the total (200…500/s, not the rate's 100…400/s) and the knee's mark at
// the knee point's x; a sweep of the load factor is a load sweep too, drawn the same way with
// the same marks (today, safe, knees).
func TestSweepFigureMarksOnTotalLoad(t *testing.T) {
	// Both sweeps are offered a total of 200, 300, 400, 500/s, goodput min(offered, 350/s):
	// the knee is the point offered 400/s, the safe load 300/s.
	total := []float64{200, 300, 400, 500}
	shifted := func(path, value string, offered float64) sweep.PointStats {
		p := sweepPoint(offered, "")
		p.Params = []results.Param{{Path: path, Value: value}}
		for i := range p.Metrics {
			if p.Metrics[i].Name == "total.goodput" {
				p.Metrics[i].Mean, p.Metrics[i].CI95 = min(offered, 350), 1
			}
			if p.Metrics[i].Name == "total.latency_ok_p99" {
				p.Metrics[i].Mean, p.Metrics[i].CI95 = 0.005, 0.001
			}
		}
		return p
	}
	for _, c := range []struct {
		gloss, path string
		values      []string
	}{
		{"one group's rate, another offering 100/s", ratePath, []string{"100/s", "200/s", "300/s", "400/s"}},
		{"the load factor", "load", []string{"1", "1.5", "2", "2.5"}},
	} {
		var pts []sweep.PointStats
		for i, v := range c.values {
			pts = append(pts, shifted(c.path, v, total[i]))
		}
		dir := t.TempDir()
		hdr := results.Header{Tool: "overloadsim", Version: "test", Scenario: "fixture", Seed: 1, Duration: 10 * time.Second, Interval: time.Second}
		if err := sweep.WriteSweepDir(dir, hdr, pts, "", &sweep.LoadContext{Today: 200, Ceiling: 350}); err != nil {
			t.Fatal(err)
		}
		figs, err := SweepFigures(dir, SweepOptions{})
		if err != nil {
			t.Fatal(err)
		}
		pn := &figs[0].Panels[0]
		line := pn.Layers[0].(Interval)
		if !slices.Equal(line.X, total) || !strings.HasPrefix(pn.X.Label, "total offered load, all groups (operations/s)") {
			t.Errorf("%s: points at %v on %q, want the total offered load %v", c.gloss, line.X, pn.X.Label, total)
		}
		marks, ok := pn.Layers[len(pn.Layers)-1].(VMarks)
		if !ok {
			t.Errorf("%s: layers %v, want the load marks last", c.gloss, layerTypes(pn))
			continue
		}
		got := map[string]float64{}
		for _, m := range marks {
			got[strings.Fields(m.Label)[0]] = m.X
		}
		// Each mark at the x of the point it names: today the first, safe the second, the
		// knees the third.
		if want := map[string]float64{"today": line.X[0], "safe": line.X[1], "knee": line.X[2]}; !maps.Equal(got, want) {
			t.Errorf("%s: marks %v, want %v", c.gloss, got, want)
		}
	}
}

// TestSweepFigureLinesByAnotherLoad: when the lines are values of another load (a second
// group's rate), each line is offered its own total at one swept value, and each point stands
// at its own total offered load, not at the mean over the lines (SweepLine.X).
func TestSweepFigureLinesByAnotherLoad(t *testing.T) {
	const other = "clients[1].workload.rate"
	var pts []sweep.PointStats
	for _, o := range []float64{100, 300} {
		for _, x := range []float64{100, 200, 300} {
			p := sweepPoint(x+o, "")
			p.Params = []results.Param{{Path: ratePath, Value: fmt.Sprintf("%.0f/s", x)}, {Path: other, Value: fmt.Sprintf("%.0f/s", o)}}
			pts = append(pts, p)
		}
	}
	goodput, _, _ := sweepFigures(t, pts, ratePath)
	pn := &goodput.Panels[0]
	for i, want := range [][]float64{{200, 300, 400}, {400, 500, 600}} {
		if line := pn.Layers[i].(Interval); !slices.Equal(line.X, want) {
			t.Errorf("line %d at %v, want its own total offered loads %v", i, line.X, want)
		}
	}
}

// TestOnOfferedPositions pins where a load parameter's values stand once on the total offered
// load (XAxis.OnOffered, docs/metrics.md §17): each value at the mean total.offered of its
// points, the position its ticks and a comparison's points take, not at the swept value.
func TestOnOfferedPositions(t *testing.T) {
	var pts []sweep.PointStats
	for _, c := range []struct {
		value   string
		offered []float64 // one point per line of a second parameter
	}{{"100/s", []float64{190, 210}}, {"200/s", []float64{300, 300}}} {
		for i, o := range c.offered {
			p := sweepPoint(o, fmt.Sprint("line", i))
			p.Params[0].Value = c.value
			pts = append(pts, p)
		}
	}
	a := NewXAxis(ratePath, []string{"100/s", "200/s"})
	a.OnOffered(pts, "web rate")
	if !a.IsLoad() || a.Pos["100/s"] != 200 || a.Pos["200/s"] != 300 {
		t.Errorf("positions %v (a load axis: %v), want 100/s at 200 and 200/s at 300, the mean total offered of their points", a.Pos, a.IsLoad())
	}
}
