package plot

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/chart"
	"github.com/overloadsim/overloadsim/sim"
)

// TestSweepAxes: the x axis is the first numeric parameter whatever the order the sweep gave
// (a policy × load sweep has the load on x and one line per policy), --x overrides it, a
// categorical x keeps every line's points within their category, and an --x that is not a
// parameter is an error naming the parameters.
func TestSweepAxes(t *testing.T) {
	var dir string
	for _, fx := range sweepFixtures(t) {
		if fx.name == "policy-load" {
			dir = fx.dir
		}
	}
	s, err := chart.ReadSweep(dir, chart.SweepOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s.X.Path != "clients[0].workload.rate" || s.By != "clients[0].driver.retryPolicy" || len(s.Lines) != 4 {
		t.Fatalf("x %q, lines by %q (%d lines); want the rate on x and one line per policy", s.X.Path, s.By, len(s.Lines))
	}
	if s.Lines[0].Name != "none" || s.Lines[3].Name != "mongodb-2026-07" || len(s.Lines[0].X) != 11 {
		t.Errorf("lines %q with %d points, want the policies in the order given, 11 loads each", s.Lines[0].Name, len(s.Lines[0].X))
	}

	s, err = chart.ReadSweep(dir, chart.SweepOptions{X: "clients[0].driver.retryPolicy"})
	if err != nil {
		t.Fatal(err)
	}
	if !s.X.Categorical() || s.By != "clients[0].workload.rate" || len(s.Lines) != 11 {
		t.Fatalf("--x policy: x kind %v, by %q, %d lines", s.X.Kind, s.By, len(s.Lines))
	}
	if lo, hi := s.Dodge(0), s.Dodge(len(s.Lines)-1); lo < -0.5 || hi > 0.5 || hi-lo > 0.6+1e-9 {
		t.Errorf("11 lines over categories stand from %.2f to %.2f: wider than a category", lo, hi)
	}

	if _, err := chart.ReadSweep(dir, chart.SweepOptions{X: "clients[0].count"}); err == nil ||
		!strings.Contains(err.Error(), "--x clients[0].count: not a parameter") || !strings.Contains(err.Error(), "clients[0].driver.retryPolicy, clients[0].workload.rate") {
		t.Errorf("--x of no parameter: %v", err)
	}
}

// TestHonestRunFigures: rates are steps over their own interval (so a dip starts where its
// fault does), panels side by side share their scale, and the servers figure shows only what
// the run has: no tokens panel without a limiter, no refused-connections panel without refusals.
func TestHonestRunFigures(t *testing.T) {
	for _, fx := range runFixtures(t) {
		r, err := chart.ReadRun(fx.dir)
		if err != nil {
			t.Fatal(err)
		}
		figs, err := runFigures(fx.dir)
		if err != nil {
			t.Fatal(err)
		}
		byName := map[string]*figure{}
		for _, f := range figs {
			byName[f.name] = f
		}
		l := r.Steps("", []float64{1, 2}, chart.Style{})
		if len(r.Starts) < 2 || l.X[0] != r.Starts[0] || l.X[1] != r.Ends[0] || l.X[2] != r.Starts[1] || l.Y[0] != 1 || l.Y[1] != 1 || l.Y[2] != 2 {
			t.Errorf("%s: steps %v %v, want each value from its interval's start %v to its end %v", fx.name, l.X, l.Y, r.Starts, r.Ends)
		}
		if ts := byName["timeseries"]; len(ts.rows) > 1 {
			good, fail := ts.rows[1][0].p.Y, ts.rows[1][1].p.Y
			if good.Max != fail.Max || good.Min != fail.Min {
				t.Errorf("%s: goodput by group on [%v, %v], failures by group on [%v, %v]: sibling panels on different scales", fx.name, good.Min, good.Max, fail.Min, fail.Max)
			}
		}
		var titles []string
		for _, row := range byName["servers"].rows {
			for _, pn := range row {
				titles = append(titles, pn.p.Title.Text)
			}
		}
		has := func(column string) bool {
			for _, s := range r.Servers {
				for _, v := range r.TS.Metric(results.KindServer, s, column) {
					if valid(v) && v != 0 {
						return true
					}
				}
			}
			return false
		}
		for column, title := range map[string]string{"tokens": "Request-limiter tokens", "rejected_conn": "Connections refused", "wasted_share": "Work wasted"} {
			shown := slices.ContainsFunc(titles, func(s string) bool { return strings.HasPrefix(s, title) })
			if shown != has(column) {
				t.Errorf("%s: servers figure %q: %s panel shown %v, but the run has %s: %v", fx.name, titles, title, shown, column, has(column))
			}
		}
	}
}

// TestShardsFigure: a run with mongos routers (shards.csv) gets the shards figure, a line per
// (mongos, shard) for attempts per operation and for the budget's balance; a run without gets
// none.
func TestShardsFigure(t *testing.T) {
	s := stormSeries()
	for i := 0; i < 3; i++ {
		for _, shard := range []string{"s0", "s1"} {
			s.Shards = append(s.Shards, results.ShardInterval{Start: sim.Time(i) * sim.Time(time.Second), End: sim.Time(i+1) * sim.Time(time.Second),
				Mongos: "m1", Shard: shard, Attempted: 100, OverloadRetries: uint64(50 * i), Balance: float64(900 - 300*i)})
		}
	}
	dir := writeRun(t, "sharded", s, 0)
	names, err := WriteRunFigures(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(names, chart.Shards) {
		t.Fatalf("figures %v: no %s for a run with shards.csv", names, chart.Shards)
	}
	svg, _ := os.ReadFile(filepath.Join(dir, chart.Shards+".svg"))
	for _, want := range []string{"m1 → s0", "m1 → s1", "Retry budget balance"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("shards.svg does not say %q", want)
		}
	}
	for _, fx := range runFixtures(t) {
		if names, _ := WriteRunFigures(fx.dir); slices.Contains(names, chart.Shards) {
			t.Errorf("%s: a run without mongos routers got a shards figure", fx.name)
		}
	}
}
