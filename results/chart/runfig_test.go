package chart

import (
	"bytes"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/sim"
)

// quietRun is a run of one group of 50 operations/s that all succeed at once, against one
// server, for 6 s: offered, attempts and goodput coincide throughout; capacity is its summary's.
func quietRun(t *testing.T, capacity results.Capacity) *Run {
	t.Helper()
	s := &results.Series{Interval: time.Second, ErrClasses: []string{"overload"}}
	at := func(x int) sim.Time { return sim.Time(time.Duration(x) * time.Second) }
	for i := range 6 {
		g := results.GroupInterval{Start: at(i), End: at(i + 1), Name: "app", TokensMin: math.NaN()}
		g.Issued, g.Succeeded, g.Attempts, g.DriverOps = 50, 50, 50, 50
		g.Success.Record(4 * time.Millisecond)
		s.Groups = append(s.Groups, g)
		s.Servers = append(s.Servers, results.ServerInterval{Start: at(i), End: at(i + 1), Name: "db",
			Completed: 50, BusyArea: 0.2, CapacityArea: 4, Workers: 4, Connections: 5, Tokens: math.Inf(1)})
	}
	var b bytes.Buffer
	if err := results.WriteTimeseries(&b, s); err != nil {
		t.Fatal(err)
	}
	ts, err := results.ParseTimeseries(&b)
	if err != nil {
		t.Fatal(err)
	}
	hdr := results.Header{Scenario: "quiet", Duration: 6 * time.Second, Interval: time.Second}
	sum := results.NewRun(hdr, s).Summary
	sum.Capacity = capacity
	return NewRun(hdr, ts, &sum)
}

// TestCeilingLine: the rates over time — the timeseries figure's top panel and the interactive
// charts' rates — draw the configured ceiling (results.Capacity) as a reference line at its
// rate, with a key that names it, named on the line with its source when that is short, and a
// y axis that covers it even when goodput stays far below; a run whose ceiling is unknown has
// no such line.
func TestCeilingLine(t *testing.T) {
	const src = "ingress request limiter 1000/s on db"
	long := "the sum over 3 nodes: 8 workers at 1ms mean service on a; 8 workers at 1ms mean service on b; 8 workers at 1ms mean service on c"
	for _, c := range []struct {
		gloss    string
		capacity results.Capacity
		ref      string // the line's label, "" for no line
	}{
		{"a limiter", results.Capacity{Today: 300, Ceiling: 1000, Source: src}, "configured ceiling 1000/s (" + src + ")"},
		{"a long source, left to the answer", results.Capacity{Today: 300, Ceiling: 24000, Source: long}, "configured ceiling 24000/s"},
		{"no ceiling known", results.Capacity{Today: 300}, ""},
		{"nothing known", results.Capacity{}, ""},
	} {
		r := quietRun(t, c.capacity)
		for _, pn := range []Panel{r.TimeseriesFigure().Panels[0], r.Charts().Panels[0]} {
			var refs []Ref
			for _, ref := range pn.Refs {
				if ref.Style == ceilingStyle {
					refs = append(refs, ref)
				}
			}
			hasKey := slices.ContainsFunc(pn.Keys, func(k Key) bool { return k.Style == ceilingStyle })
			if c.ref == "" {
				if len(refs) > 0 || hasKey {
					t.Errorf("%s, %s: ceiling line %+v (key %v), want none", c.gloss, pn.Title, refs, hasKey)
				}
				continue
			}
			if len(refs) != 1 || refs[0].Y != c.capacity.Ceiling || refs[0].Label != c.ref {
				t.Errorf("%s, %s: ceiling lines %+v, want one at %v labelled %q", c.gloss, pn.Title, refs, c.capacity.Ceiling, c.ref)
			}
			if !slices.Contains(pn.Keys, Key{Label: c.capacity.CeilingLabel(), Style: ceilingStyle}) {
				t.Errorf("%s, %s: keys %+v lack %q", c.gloss, pn.Title, pn.Keys, c.capacity.CeilingLabel())
			}
			if !slices.Contains(pn.Y.Cover, c.capacity.Ceiling) {
				t.Errorf("%s, %s: the y axis covers %v, not the ceiling %v (goodput is 50/s)", c.gloss, pn.Title, pn.Y.Cover, c.capacity.Ceiling)
			}
		}
	}
}

// TestOfferedOverGoodput: where offered, attempts and goodput coincide (nothing fails, nothing
// retries), none hides another: in the rates over time each is drawn after every wider line, so
// that offered (narrowest, dashed) lies on top of attempts, and attempts on top of goodput
// (widest) — stripes, not one line. The keys keep their reading order, offered first.
func TestOfferedOverGoodput(t *testing.T) {
	r := quietRun(t, results.Capacity{})
	for _, c := range []struct {
		pn                         Panel
		offered, attempts, goodput string
		keys                       bool // the panel's keys make its legend
	}{
		{r.TimeseriesFigure().Panels[0], "offered load (operations)", "attempts (commands sent)", "goodput (successes)", true},
		{r.Charts().Panels[0], "offered", "attempts", "goodput", false},
	} {
		at := func(label string) int {
			return slices.IndexFunc(c.pn.Series, func(s Series) bool { return s.Label == label })
		}
		o, a, g := at(c.offered), at(c.attempts), at(c.goodput)
		if o < 0 || a < 0 || g < 0 {
			t.Fatalf("%s: series %v lack offered, attempts or goodput", c.pn.Title, c.pn.Series)
		}
		so, sa, sg := c.pn.Series[o], c.pn.Series[a], c.pn.Series[g]
		if !slices.Equal(so.Y, sg.Y) || !slices.Equal(sa.Y, sg.Y) {
			t.Fatalf("%s: the fixture's offered, attempts and goodput differ: %v %v %v", c.pn.Title, so.Y, sa.Y, sg.Y)
		}
		if !(g < a && a < o) {
			t.Errorf("%s: drawn in the order goodput %d, attempts %d, offered %d: a later line hides an earlier one as wide; want goodput, attempts, offered", c.pn.Title, g, a, o)
		}
		if !(so.Width < sa.Width && sa.Width < sg.Width) || so.Dash != Dashed {
			t.Errorf("%s: widths offered %v, attempts %v, goodput %v, offered dash %v: want each line on top narrower than the one under it, offered dashed",
				c.pn.Title, so.Width, sa.Width, sg.Width, so.Dash)
		}
		if !c.keys { // the interactive charts' legend is uPlot's, in drawing order
			continue
		}
		if k := slices.IndexFunc(c.pn.Keys, func(k Key) bool { return k.Label == c.offered }); k != 0 || c.pn.Keys[k].Style != so.Style {
			t.Errorf("%s: offered's key is at %d, want first, in the line's style", c.pn.Title, k)
		}
	}
}
