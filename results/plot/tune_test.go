package plot

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tuneexp "github.com/overloadsim/overloadsim/experiment/tune"
	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/chart"
	"github.com/overloadsim/overloadsim/results/tune"
)

// The tuning fixtures are hand-built tunings with the trade-off a retry budget gives: a larger
// budget buys goodput during an overload at the price of amplification, and the constraint on
// amplification cuts the largest budgets off.

// tuneHeader is the fixtures' scenario.
var tuneHeader = results.Header{Tool: "overloadsim", Version: "test", Scenario: "spike", Canonical: "name: spike\n", Seed: 1,
	Duration: 45 * time.Second, Interval: time.Second}

// budgetTuning tunes a retry-token capacity over 10…3000 (log) for goodput, amplification ≤ 1.2
// over the spike's window, with one refinement round; without the constraint when free.
func budgetTuning(t *testing.T, free bool) *tune.Tuning {
	t.Helper()
	p, err := results.ParseTuneParam("clients[0].driver.retryTokenCapacity=10:3000:log")
	if err != nil {
		t.Fatal(err)
	}
	obj := results.TuneObjective{Metric: "group.adaptive.goodput", From: 10 * time.Second, To: 30 * time.Second, Sense: "maximize"}
	var cons []results.TuneConstraint
	if !free {
		c, err := results.ParseTuneConstraint("group.adaptive.amplification<=1.2", 10*time.Second, 30*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		cons = append(cons, c)
	}
	tu := tune.New(tuneHeader, []results.TuneParam{p}, obj, cons, 5, 1)
	for i, x := range []float64{10, 41.62, 173.2, 720.8, 3000, 84.9, 353.3} {
		round := 0
		if i >= 5 {
			round = 1
		}
		amp := 1 + 0.37*math.Pow(x/1000, 0.9)
		good := 226 + 29*(amp-1)/0.37
		addCandidate(tu, round, []float64{x}, map[string][2]float64{
			tu.Measures[0].Name(): {good, 3}, tu.ParetoY: {amp, 0.002 * amp}})
	}
	tuneexp.Select(tu)
	return tu
}

// latencyTuning tunes two fields, retries and a timeout, to minimise the p99 latency of
// successes with total goodput ≥ 900/s: its x axis is a latency (lower is better), in ms.
func latencyTuning(t *testing.T) *tune.Tuning {
	t.Helper()
	a, err := results.ParseTuneParam("clients[0].driver.maxAdaptiveRetries=0:2:3")
	if err != nil {
		t.Fatal(err)
	}
	a.Integer = true
	b, err := results.ParseTuneParam("clients[0].driver.timeoutMS=100ms:400ms:3")
	if err != nil {
		t.Fatal(err)
	}
	obj := results.TuneObjective{Metric: "total.latency_ok_p99", Sense: "minimize"}
	c, err := results.ParseTuneConstraint("total.goodput>=900/s", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	tu := tune.New(tuneHeader, []results.TuneParam{a, b}, obj, []results.TuneConstraint{c}, 4, 0)
	for _, r := range []float64{0, 1, 2} {
		for _, to := range []float64{0.1, 0.25, 0.4} {
			p99 := 0.02 + 0.04*r + 0.1*to
			good := 820 + 60*r + 100*to
			addCandidate(tu, 0, []float64{r, to}, map[string][2]float64{
				tu.Measures[0].Name(): {p99, 0.004}, "total.goodput": {good, 6}, "total.amplification": {1 + 0.3*r, 0.01}})
		}
	}
	tuneexp.Select(tu)
	return tu
}

// addCandidate adds the candidate with values vs of round round to tu, its measures' means and
// half-widths from stats (NaN for a measure not given), over tu.Replications replications.
func addCandidate(tu *tune.Tuning, round int, vs []float64, stats map[string][2]float64) {
	c := tune.Candidate{Values: vs, Round: round, Replications: tu.Replications}
	for i, p := range tu.Params {
		c.Params = append(c.Params, results.Param{Path: p.Path, Value: p.Text(vs[i])})
	}
	for _, m := range tu.Measures {
		st, ok := stats[m.Name()]
		if !ok {
			st = [2]float64{math.NaN(), math.NaN()}
		}
		c.Metrics = append(c.Metrics, results.MetricStats{Name: m.Name(), Mean: st[0], CI95: st[1], N: tu.Replications})
	}
	tu.AddCandidate(c)
}

// writeTune writes tu into a temporary folder and returns it.
func writeTune(t *testing.T, tu *tune.Tuning) string {
	t.Helper()
	dir := t.TempDir()
	if err := tune.WriteDir(dir, tu); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestTuneFigures(t *testing.T) {
	look := os.Getenv("PLOT_LOOK_DIR") // to look at the PNGs: PLOT_LOOK_DIR=/tmp/look go test -run TestTuneFigures
	for _, fx := range []struct {
		name string
		tu   *tune.Tuning
	}{
		{"budget", budgetTuning(t, false)},
		{"free", budgetTuning(t, true)},
		{"latency", latencyTuning(t)},
	} {
		t.Run(fx.name, func(t *testing.T) {
			dir := writeTune(t, fx.tu)
			names, err := WriteTuneFigures(dir)
			if err != nil {
				t.Fatalf("WriteTuneFigures(%s) = %v", fx.name, err)
			}
			checkWritten(t, dir, names, []string{chart.TunePareto})
			if look != "" {
				b, _ := os.ReadFile(filepath.Join(dir, chart.TunePareto+".png"))
				if err := os.MkdirAll(look, 0o755); err == nil {
					os.WriteFile(filepath.Join(look, "tune-"+fx.name+".png"), b, 0o644)
				}
			}
		})
	}
}

// TestTuneFigureContent checks what a planner reads off the figure, as text in the SVG: the
// title names the tuned field and the objective, the subtitle the constraints; the axes name
// the metrics with their units and which way is better; the recommendation is labelled with its
// parameters; the key explains every mark that is drawn, and only those.
func TestTuneFigureContent(t *testing.T) {
	cases := []struct {
		name   string
		tu     *tune.Tuning
		texts  []string
		absent []string
	}{
		{"budget", budgetTuning(t, false), []string{
			"Tuning clients[0].driver.retryTokenCapacity: maximize group.adaptive.goodput over 10s–30s",
			"subject to group.adaptive.amplification over 10s–30s ≤ 1.2",
			"group.adaptive.goodput over 10s–30s", "(operations/s, higher is better)",
			"group.adaptive.amplification over 10s–30s", "(attempts per operation, lower is better)",
			"recommended: retryTokenCapacity=353.3", "constraint ≤ 1.2", "constraint bound",
			"Pareto front (feasible)", "infeasible", "runner-up: intervals overlap", "labels: retryTokenCapacity",
			"every candidate", "close-up of the feasible candidates", "3000", "41.62"},
			nil},
		{"free", budgetTuning(t, true), []string{"no constraints", "recommended: retryTokenCapacity=3000"},
			[]string{"infeasible", "constraint bound", "close-up"}},
		{"latency", latencyTuning(t), []string{
			"total.latency_ok_p99", "(ms, lower is better)", "total.amplification", "(attempts per operation, lower is better)",
			"subject to total.goodput ≥ 900/s", "labels: maxAdaptiveRetries, timeoutMS",
			"recommended", "maxAdaptiveRetries=1", "timeoutMS=250ms", "1, 400ms"},
			[]string{"constraint bound"}}, // the constraint is on goodput, on neither axis
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			svg, err := TuneSVG(tc.tu)
			if err != nil {
				t.Fatal(err)
			}
			text := strings.Join(texts(svg), "\n")
			for _, want := range tc.texts {
				if !strings.Contains(text, want) {
					t.Errorf("the figure lacks %q", want)
				}
			}
			for _, no := range tc.absent {
				if strings.Contains(text, no) {
					t.Errorf("the figure has %q", no)
				}
			}
		})
	}
}

// TestTuneFigureDeterministic: the same tuning draws the same bytes.
func TestTuneFigureDeterministic(t *testing.T) {
	a, err := TuneSVG(budgetTuning(t, false))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := TuneSVG(budgetTuning(t, false))
	if !bytes.Equal(a, b) {
		t.Error("the same tuning drew two different SVGs")
	}
}

// TestTuneFigureErrors: a tuning without candidates, and a folder without a finished tuning,
// are refused.
func TestTuneFigureErrors(t *testing.T) {
	empty := tune.New(tuneHeader, nil, results.TuneObjective{Metric: "total.goodput", Sense: "maximize"}, nil, 1, 0)
	if _, err := TuneSVG(empty); err == nil || !strings.Contains(err.Error(), "no candidates") {
		t.Errorf("TuneSVG(no candidates) = %v, want an error saying so", err)
	}
	dir := writeTune(t, budgetTuning(t, false))
	if err := os.Remove(filepath.Join(dir, results.ManifestFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteTuneFigures(dir); err == nil {
		t.Error("WriteTuneFigures drew a folder without a manifest")
	}
}
