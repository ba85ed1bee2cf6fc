package calibrate

import (
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/bench"
	"github.com/overloadsim/overloadsim/internal/golden"
	"github.com/overloadsim/overloadsim/scenarios"
)

// TestCompareWindowsEdges puts each compared measurement on and just past its tolerance: rates
// ±5 % of the observed rate (a rate 5 % off is within, 5.1 % is outside, above or below), or
// three standard deviations of their Poisson noise when that is wider, mean
// latency ±10 %, p50 and p99 ±25 %, utilisation ±0.05 absolute, 462 rejections ±5 % or 1/s,
// whichever is more; connections are shown, never judged; a command under 1/s, or one no
// workload operation stands for, is not compared.
func TestCompareWindowsEdges(t *testing.T) {
	type side struct {
		rate, mean, p50, util, conns, rejected float64
	}
	window := func(s side) *Window {
		// Windows long enough that 5 % is wider than a rate's Poisson noise (rateTolerance).
		w := &Window{Seconds: 10000, Commands: map[string]Rate{}, Latency: map[string]LatencyObs{}, Utilisation: math.NaN()}
		if s.rate != 0 {
			w.Commands["find"] = Rate{Total: s.rate}
			w.Commands["ping"] = Rate{Total: 3 * s.rate}
		}
		if s.mean != 0 {
			w.Latency["reads"] = LatencyObs{Ops: 1_000_000, Mean: s.mean, MeanOK: true, P50: s.p50, P99: 4 * s.p50, QuantilesOK: s.p50 != 0}
		}
		if s.util != 0 {
			w.Utilisation = s.util
		}
		w.Connections.Mean = s.conns
		if s.rejected != 0 {
			w.Limiter = &LimiterObs{Rejected: s.rejected}
		}
		return w
	}
	tests := []struct {
		gloss     string
		metric    string
		obs, sim  side
		within    bool
		unjudged  bool // shown with a note, not judged
		noCompare bool // no row at all
	}{
		{"rate equal", "find", side{rate: 100}, side{rate: 100}, true, false, false},
		{"rate 5 % above: within", "find", side{rate: 100}, side{rate: 105}, true, false, false},
		{"rate 5 % below: within", "find", side{rate: 100}, side{rate: 95}, true, false, false},
		{"rate 5 % above a large rate: within", "find", side{rate: 2750}, side{rate: 2887.5}, true, false, false},
		{"rate 5.1 % above: outside", "find", side{rate: 100}, side{rate: 105.1}, false, false, false},
		{"rate 5.1 % below: outside", "find", side{rate: 100}, side{rate: 94.9}, false, false, false},
		{"a rate under 1/s: not compared", "find", side{rate: 0.9}, side{rate: 5}, true, false, true},
		{"a command no operation stands for: not compared", "ping", side{rate: 100}, side{rate: 500}, true, false, true},
		{"mean latency 10 % above: within", "mean reads", side{mean: 2000}, side{mean: 2200}, true, false, false},
		{"mean latency 10 % below: within", "mean reads", side{mean: 2000}, side{mean: 1800}, true, false, false},
		{"mean latency 10.1 % above: outside", "mean reads", side{mean: 2000}, side{mean: 2202}, false, false, false},
		{"p50 25 % above: within", "p50 reads", side{mean: 2000, p50: 1000}, side{mean: 2000, p50: 1250}, true, false, false},
		{"p50 25.1 % below: outside", "p50 reads", side{mean: 2000, p50: 1000}, side{mean: 2000, p50: 749}, false, false, false},
		{"p99 25 % below: within", "p99 reads", side{mean: 2000, p50: 1000}, side{mean: 2000, p50: 750}, true, false, false},
		{"utilisation 0.05 above: within", "utilisation", side{util: 0.5}, side{util: 0.55}, true, false, false},
		{"utilisation 0.05 below: within", "utilisation", side{util: 0.5}, side{util: 0.45}, true, false, false},
		{"utilisation 0.05 above 0.75: within", "utilisation", side{util: 0.75}, side{util: 0.8}, true, false, false},
		{"utilisation 0.051 above: outside", "utilisation", side{util: 0.5}, side{util: 0.551}, false, false, false},
		{"utilisation 0.051 below: outside", "utilisation", side{util: 0.5}, side{util: 0.449}, false, false, false},
		{"utilisation is absolute: 0.04 on 0.1 (40 %) is within", "utilisation", side{util: 0.1}, side{util: 0.14}, true, false, false},
		{"connections five times as many: shown, not judged", "connections", side{conns: 100}, side{conns: 500}, true, true, false},
		{"rejections 1/s apart on a small rate: within", "462 rejections", side{rejected: 4}, side{rejected: 5}, true, false, false},
		{"rejections 5 % apart on a large rate: within", "462 rejections", side{rejected: 400}, side{rejected: 420}, true, false, false},
		{"rejections 5.1 % apart on a large rate: outside", "462 rejections", side{rejected: 400}, side{rejected: 420.4}, false, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.gloss, func(t *testing.T) {
			rows := compareWindows("db", window(tc.obs), window(tc.sim), false)
			var row *Row
			for i := range rows {
				if rows[i].Metric == tc.metric {
					row = &rows[i]
				}
			}
			if tc.noCompare {
				if row != nil {
					t.Fatalf("compareWindows gave %+v, want no %s row", *row, tc.metric)
				}
				return
			}
			if row == nil {
				t.Fatalf("compareWindows gave %+v, want a %s row", rows, tc.metric)
			}
			if row.Within != tc.within {
				t.Errorf("%s: observed %g, simulated %g: within %v, want %v", tc.metric, row.Observed, row.Simulated, row.Within, tc.within)
			}
			if (row.Note != "") != tc.unjudged {
				t.Errorf("%s: note %q, want a note: %v", tc.metric, row.Note, tc.unjudged)
			}
		})
	}
}

// TestPrint pins the check's table and its verdict line, agreeing and disagreeing
// (go test ./calibrate -update rewrites testdata/TestPrint).
func TestPrint(t *testing.T) {
	rows := []Row{
		{Node: "rs0a", Metric: "find", Unit: "/s", Observed: 800, Simulated: 798, Tol: TolRate, Within: true},
		{Node: "rs0a", Metric: "mean reads", Unit: "s", Observed: 0.00122, Simulated: 0.00115, Tol: TolMean, Within: true},
		{Node: "rs0a", Metric: "p99 reads", Unit: "s", Observed: 0.00414, Simulated: 0.00395, Tol: TolQuantile, Within: true},
		{Node: "rs0a", Metric: "utilisation", Unit: "share", Observed: 0.158, Simulated: 0.157, Tol: TolUtilisation, Abs: true, Within: true},
		{Node: "rs0a", Metric: "connections", Unit: "conns", Observed: 143.3, Simulated: 22.06, Tol: TolConnections, Within: true,
			Note: "shown, not judged (idle pooled connections)"},
		{Node: "sh0a", Metric: "462 rejections", Unit: "/s", Observed: 400, Simulated: 405, Tol: TolRate, Within: true},
	}
	outside := append(append([]Row(nil), rows...),
		Row{Node: "sh0a", Metric: "insert", Unit: "/s", Observed: 1000, Simulated: 1060, Tol: TolRate, Within: false},
		Row{Node: "sh0a", Metric: "utilisation", Unit: "share", Observed: 0.252, Simulated: 0.31, Tol: TolUtilisation, Abs: true, Within: false})
	for _, tc := range []struct {
		name string
		rows []Row
	}{{"agrees", rows}, {"disagrees", outside}} {
		t.Run(tc.name, func(t *testing.T) {
			c := &Comparison{Scenario: "calibrated", Window: 50 * time.Second, Rows: tc.rows}
			var b strings.Builder
			c.Print(&b)
			golden.Check(t, filepath.Join("testdata", "TestPrint", tc.name+".txt"), []byte(b.String()))
			if c.Agrees() != (tc.name == "agrees") {
				t.Errorf("Agrees() = %v", c.Agrees())
			}
		})
	}
}

// TestCheckNoMatchingNode: a scenario none of whose nodes is named for a production host is an
// error naming the scenario, its nodes and the naming rule.
func TestCheckNoMatchingNode(t *testing.T) {
	sc, err := scenarios.Parse("nomatch.yaml", []byte(`
name: nomatch
duration: 3s
warmup: 1s
topology:
  nodes:
    - name: other
clients:
  - name: app
    workload: {rate: 50/s}
`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Check(sc, loadSet(t, "standalone-7.0"), bench.RunOptions{})
	want := "calibrate: no production host matches a node of scenario nomatch (nodes: other): the node names must be the hosts without their ports"
	if err == nil || err.Error() != want {
		t.Errorf("Check = %v,\nwant %q", err, want)
	}
}

// TestCheckAgreesWithItsCalibration: the scenario calibrated from the standalone and
// replica-set datasets, run, agrees with them.
func TestCheckAgreesWithItsCalibration(t *testing.T) {
	for _, name := range []string{"standalone-7.0", "replset-8.0"} {
		t.Run(name, func(t *testing.T) {
			in := loadSet(t, name)
			res := calibrate(t, in, Options{})
			cmp, err := Check(res.Scenario, in, bench.RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !cmp.Agrees() {
				var b strings.Builder
				cmp.Print(&b)
				t.Errorf("the calibrated scenario disagrees with its inputs:\n%s", b.String())
			}
		})
	}
}

// TestRateTolerance: a command's rate is judged within 5 %, or within three standard deviations
// of the difference of two Poisson rates when that is wider: 10/s over 30 s and 50 s varies by
// about 7 % from chance alone.
func TestRateTolerance(t *testing.T) {
	for _, tc := range []struct {
		r, obs, sim float64
		want        float64
	}{
		{1000, 60, 60, TolRate},
		{100, 10000, 10000, TolRate},
		{10, 30, 50, 0.22}, // 3 × √(1/300 + 1/500) = 0.219, rounded up to the percent
		{1, 30, 50, 0.70},
	} {
		if got := rateTolerance(tc.r, tc.obs, tc.sim); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("rateTolerance(%g/s over %gs and %gs) = %g, want %g", tc.r, tc.obs, tc.sim, got, tc.want)
		}
	}
}
