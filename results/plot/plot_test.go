package plot

import (
	"bytes"
	"html"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/internal/golden"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/chart"
)

// checkWritten checks the files WriteRunFigures or WriteSweepFigures wrote: the names in
// order, each SVG equal to its golden file, each PNG 1200 × 800 px, no temporary files left.
func checkWritten(t *testing.T, dir string, names, want []string) {
	t.Helper()
	if !slices.Equal(names, want) {
		t.Fatalf("names = %q, want %q", names, want)
	}
	for _, n := range names {
		svg, err := os.ReadFile(filepath.Join(dir, n+".svg"))
		if err != nil {
			t.Fatal(err)
		}
		golden.Check(t, filepath.Join("testdata", t.Name(), n+".svg"), svg)
		f, err := os.Open(filepath.Join(dir, n+".png"))
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := png.DecodeConfig(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s.png: %v", n, err)
		}
		if cfg.Width != 1200 || cfg.Height != 800 {
			t.Errorf("%s.png is %d × %d px, want 1200 × 800", n, cfg.Width, cfg.Height)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left in %s", e.Name(), dir)
		}
	}
}

func TestRunFigures(t *testing.T) {
	for _, fx := range runFixtures(t) {
		t.Run(fx.name, func(t *testing.T) {
			names, err := WriteRunFigures(fx.dir)
			if err != nil {
				t.Fatalf("WriteRunFigures(%s) = %v", fx.name, err)
			}
			checkWritten(t, fx.dir, names, RunFigures)
		})
	}
}

func TestSweepFigures(t *testing.T) {
	for _, fx := range sweepFixtures(t) {
		t.Run(fx.name, func(t *testing.T) {
			names, err := WriteSweepFigures(fx.dir, chart.SweepOptions{})
			if err != nil {
				t.Fatalf("WriteSweepFigures(%s) = %v", fx.name, err)
			}
			want := SweepFigures
			if _, err := os.Stat(filepath.Join(fx.dir, chart.SweepDecision+".svg")); err != nil {
				want = slices.DeleteFunc(slices.Clone(want), func(n string) bool { return n == chart.SweepDecision }) // no policy varied
			}
			checkWritten(t, fx.dir, names, want)
		})
	}
}

var svgText = regexp.MustCompile(`<text[^>]*>([^<]*)</text>`)

// texts returns the text elements of an SVG, unescaped.
func texts(svg []byte) []string {
	var out []string
	for _, m := range svgText.FindAllSubmatch(svg, -1) {
		out = append(out, html.UnescapeString(string(m[1])))
	}
	return out
}

// TestFiguresLabelled checks that every figure of every fixture says what it shows: a title,
// both axis labels on every panel, and a legend, all present as text in the SVG.
func TestFiguresLabelled(t *testing.T) {
	var cases []struct {
		name string
		figs []*figure
	}
	for _, fx := range runFixtures(t) {
		figs, err := runFigures(fx.dir)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, struct {
			name string
			figs []*figure
		}{"run " + fx.name, figs})
	}
	for _, fx := range sweepFixtures(t) {
		figs, err := sweepFigures(fx.dir, chart.SweepOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, struct {
			name string
			figs []*figure
		}{"sweep " + fx.name, figs})
	}
	for _, c := range cases {
		for _, f := range c.figs {
			svg, err := f.svg()
			if err != nil {
				t.Fatal(err)
			}
			have := texts(svg)
			want := func(what, s string) {
				t.Helper()
				if s == "" {
					t.Errorf("%s %s: no %s", c.name, f.name, what)
				} else if !slices.Contains(have, s) {
					t.Errorf("%s %s: %s %q is not in the SVG", c.name, f.name, what, s)
				}
			}
			want("title", f.title)
			want("subtitle", f.subtitle)
			keys := 0
			for _, row := range f.rows {
				for _, pn := range row {
					want("x axis label", pn.p.X.Label.Text)
					want("y axis label", pn.p.Y.Label.Text)
					for _, k := range pn.keys {
						want("legend entry", k)
					}
					keys += len(pn.keys)
				}
			}
			if keys == 0 {
				t.Errorf("%s %s: no legend", c.name, f.name)
			}
		}
	}
}

// TestDeterministic writes every figure twice and wants the same bytes, SVG and PNG.
func TestDeterministic(t *testing.T) {
	check := func(dir string, write func(string) ([]string, error)) {
		t.Helper()
		names, err := write(dir)
		if err != nil {
			t.Fatal(err)
		}
		first := map[string][]byte{}
		for _, n := range names {
			for _, ext := range []string{".svg", ".png"} {
				b, err := os.ReadFile(filepath.Join(dir, n+ext))
				if err != nil {
					t.Fatal(err)
				}
				first[n+ext] = b
			}
		}
		if _, err := write(dir); err != nil {
			t.Fatal(err)
		}
		for name, b := range first {
			again, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(b, again) {
				t.Errorf("%s differs between two writes", name)
			}
		}
	}
	for _, fx := range runFixtures(t) {
		check(fx.dir, WriteRunFigures)
	}
	for _, fx := range sweepFixtures(t) {
		check(fx.dir, func(dir string) ([]string, error) { return WriteSweepFigures(dir, chart.SweepOptions{}) })
	}
}

func TestMissingFiles(t *testing.T) {
	dir := t.TempDir()
	if _, err := WriteRunFigures(dir); err == nil {
		t.Error("WriteRunFigures(empty folder) = nil error, want one")
	}
	if _, err := WriteSweepFigures(dir, chart.SweepOptions{}); err == nil {
		t.Error("WriteSweepFigures(empty folder) = nil error, want one")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the failed writes left %d files", len(entries))
	}
}

// TestReadTimeseries reads back what results writes: the rows, the rates to six significant
// digits, empty cells as NaN; and the fault windows from the summary.
func TestReadTimeseries(t *testing.T) {
	s := stormSeries()
	dir := writeRun(t, "storm", s, time.Second)
	ts, err := results.ReadTimeseries(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ts.Columns, results.TimeseriesColumns(s)[3:]) {
		t.Errorf("Columns = %q, want %q", ts.Columns, results.TimeseriesColumns(s)[3:])
	}
	if got, want := len(ts.Rows), len(s.Groups)+len(s.Servers); got != want {
		t.Fatalf("%d rows, want %d", got, want)
	}
	if got, want := ts.Names(results.KindGroup), []string{"alpha", "beta"}; !slices.Equal(got, want) {
		t.Errorf("Names(group) = %q, want %q", got, want)
	}
	if got, want := ts.Names(results.KindServer), []string{"db1", "db2"}; !slices.Equal(got, want) {
		t.Errorf("Names(server) = %q, want %q", got, want)
	}
	ends := ts.Ends()
	if len(ends) != 11 || ends[10] != at(10.5) {
		t.Errorf("Ends() = %v, want 11 ends, the last at 10.5 s", ends)
	}
	near := func(got, want float64) bool {
		if math.IsNaN(want) || math.IsInf(want, 0) {
			return math.IsNaN(got)
		}
		return math.Abs(got-want) <= 1e-5*math.Abs(want)
	}
	goodput := ts.Metric(results.KindGroup, "beta", "goodput")
	tokens := ts.Metric(results.KindGroup, "beta", "retry_tokens_mean")
	i := 0
	for k := range s.Groups {
		g := &s.Groups[k]
		if g.Name != "beta" {
			continue
		}
		if !near(goodput[i], g.Goodput()) || !near(tokens[i], g.TokensMean()) {
			t.Errorf("interval %d: goodput, tokens = %v, %v, want %v, %v", i, goodput[i], tokens[i], g.Goodput(), g.TokensMean())
		}
		i++
	}
	limiter := ts.Metric(results.KindServer, "db2", "tokens")
	if !math.IsNaN(limiter[0]) {
		t.Errorf("db2 tokens (limiter off) = %v, want NaN", limiter[0])
	}
	if got := ts.Metric(results.KindServer, "db1", "no such column"); !math.IsNaN(got[0]) {
		t.Errorf("an absent column = %v, want NaN", got[0])
	}
	sum, err := results.ReadSummary(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := results.FaultWindows(&sum); !slices.Equal(got, s.Faults) {
		t.Errorf("FaultWindows(summary) = %v, want %v", got, s.Faults)
	}
}

func TestParseTimeseriesErrors(t *testing.T) {
	for _, c := range []struct {
		gloss, text string
	}{
		{"an empty file", ""},
		{"a header without time,kind,name", "kind,name,offered\n"},
		{"a time that is not seconds", "time,kind,name,offered\nx,group,a,1\n"},
		{"a value that is not a number", "time,kind,name,offered\n1,group,a,many\n"},
	} {
		if _, err := results.ParseTimeseries(strings.NewReader(c.text)); err == nil {
			t.Errorf("ParseTimeseries(%s) = nil error, want one", c.gloss)
		}
	}
}

func TestTicks(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		want   []string
	}{
		{0, 12500, []string{"0", "2500", "5000", "7500", "10000", "12500"}},
		{0, 1, []string{"0.0", "0.2", "0.4", "0.6", "0.8", "1.0"}},
		{-1, 1, []string{"-1.0", "-0.5", "0.0", "0.5", "1.0"}},
		{0, 45, []string{"0", "10", "20", "30", "40"}},
	} {
		var got []string
		for _, tk := range (niceTicks{}).Ticks(c.lo, c.hi) {
			got = append(got, tk.Label)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("niceTicks.Ticks(%v, %v) = %q, want %q", c.lo, c.hi, got, c.want)
		}
	}
	var got []string
	for _, tk := range (logTicks{}).Ticks(0, 4) {
		if tk.Label != "" {
			got = append(got, tk.Label)
		}
	}
	if want := []string{"1", "10", "100", "1000", "10000"}; !slices.Equal(got, want) {
		t.Errorf("logTicks.Ticks(0, 4) labels = %q, want %q", got, want)
	}
}
