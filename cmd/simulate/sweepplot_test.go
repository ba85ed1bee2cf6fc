package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/sweep"
)

// TestSweepKeepsOrder is the policy × load sweep a planner runs first, with the policy named
// first: the sweep keeps that order (the policy varies slowest, and is the first column), the
// figures still put the load on x with one line per policy, and --x puts the policy on x.
func TestSweepKeepsOrder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "policies")
	runOK(t, "sweep", "healthy", "--vary", "clients[0].driver.retryPolicy=none,mongodb-2026-03",
		"--vary", "clients[0].workload.rate=500/s:1500/s:500/s", "--set", "clients[0].driver.adaptiveRetries=false", "--set", "duration=3s", "--set", "warmup=1s",
		"--replications", "2", "--plot", "--out", dir)
	csv, err := os.ReadFile(filepath.Join(dir, "points.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(csv), "\n")
	if !strings.HasPrefix(lines[0], "clients[0].driver.retryPolicy,clients[0].workload.rate_per_s,") ||
		!strings.HasPrefix(lines[1], "none,500,") || !strings.HasPrefix(lines[2], "none,1000,") {
		t.Errorf("points.csv does not keep the --vary order, the first slowest:\n%s\n%s\n%s", lines[0], lines[1], lines[2])
	}
	svg := func() string {
		b, err := os.ReadFile(filepath.Join(dir, "sweep-goodput.svg"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	// The parameters are named by their short names (chart.ParamLabel), read from the scenario
	// the sweep records: the group app's retry policy and rate.
	for _, want := range []string{"Goodput vs offered load", "one line per value of app retry policy", ">mongodb-2026-03 (knee ", "swept: app rate"} {
		if !strings.Contains(svg(), want) {
			t.Errorf("sweep-goodput.svg does not say %q", want)
		}
	}
	runOK(t, "plot", dir, "--x", "clients[0].driver.retryPolicy")
	for _, want := range []string{"Goodput vs app retry policy", "one line per value of app rate", ">1500/s<"} {
		if !strings.Contains(svg(), want) {
			t.Errorf("with --x the policy: sweep-goodput.svg does not say %q", want)
		}
	}
	if s, _, errb := runStatus("plot", dir, "--x", "clients[0].count"); s == exitOK || !strings.Contains(errb, "not a parameter of the sweep") {
		t.Errorf("--x of no parameter: exit %d, %s", s, errb)
	}
	// --label names a parameter over its short name; a malformed one, or one of no parameter
	// of the sweep, is refused, and so is --label on a sweep drawing no figure.
	runOK(t, "plot", dir, "--label", "clients[0].driver.retryPolicy=policy", "--label", "clients[0].workload.rate=app load")
	for _, want := range []string{"one line per value of policy", "swept: app load"} {
		if !strings.Contains(svg(), want) {
			t.Errorf("with --label: sweep-goodput.svg does not say %q", want)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"plot", dir, "--label", "policy"}, "--label \"policy\": want PATH=NAME"},
		{[]string{"plot", dir, "--label", "a=b", "--label", "a=c"}, "a is already named \"b\""},
		{[]string{"plot", dir, "--label", "clients[0].count=clients"}, "--label clients[0].count=clients: not a parameter of the sweep"},
		{[]string{"sweep", "healthy", "--label", "load=load"}, "give --plot too"},
	} {
		if s, _, errb := runStatus(c.args...); s == exitOK || !strings.Contains(errb, c.want) {
			t.Errorf("%q: exit %d, %s; want it refused saying %q", c.args, s, errb, c.want)
		}
	}
	runOK(t, "check", "--baseline", filepath.Join(dir, "sweep.json"), dir) // the folder is whole after the redraw
}

// TestLoadSweepAnswers: a load sweep prints its answers, records them with their context in
// sweep.json, and --slo sets the latency knee's rule.
func TestLoadSweepAnswers(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "load")
	out := runOK(t, "sweep", "healthy", "--vary", "clients[0].workload.rate=500/s:1500/s:500/s", "--set", "duration=10s",
		"--set", "warmup=2s", "--replications", "2", "--slo", "300ms", "--out", dir)
	for _, want := range []string{"The configured ceiling is 1000/s (ingress request limiter 1000/s on db). Today's load (the scenario as configured) is 500/s.",
		"Safe to 1.98× today's load (992/s): beyond it, at 1488/s,", "The knee is between 992/s (1.98×", "and 1488/s (2.98×", "p99 latency above the 300ms SLO"} {
		if !strings.Contains(out, want) {
			t.Errorf("the sweep's summary does not say %q:\n%s", want, out)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "sweep.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"context": {`, `"today": 500`, `"ceiling": 1000`, `"slo": 0.3`, `"answers": [`, `"kneeFound": true`, `"headroom": 1.98`, `"kneeBracket": [`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("sweep.json lacks %s", want)
		}
	}
	if s, _, errb := runStatus("sweep", "healthy", "--slo", "-1s"); s != exitUsage || !strings.Contains(errb, "--slo -1s: must be ≥ 0") {
		t.Errorf("--slo -1s: exit %d %s", s, errb)
	}
}

// TestSweepPrintsTotalOffered: when the swept parameter is not the whole load in operations/s
// (one group's rate beside another group, or the load factor), each point line shows the
// total offered load, which the answers and the figures' x axis are in (offeredShown); a
// sweep of the one group's rate, which is the whole load, does not repeat it.
func TestSweepPrintsTotalOffered(t *testing.T) {
	pt := func(path, value string, groups ...string) sweep.PointStats {
		p := sweep.PointStats{Params: []results.Param{{Path: path, Value: value}}, Replications: 2,
			Metrics: []results.MetricStats{{Name: "total.offered", Mean: 1234.5, CI95: 6, N: 2}, {Name: "total.goodput", Mean: 1000, CI95: 1, N: 2}}}
		for _, g := range groups {
			p.Metrics = append(p.Metrics, results.MetricStats{Name: "group." + g + ".offered", Mean: 600, N: 2})
		}
		return p
	}
	for _, c := range []struct {
		gloss string
		point sweep.PointStats
		want  bool
	}{
		{"one group's rate of two", pt("clients[0].workload.rate", "500/s", "web", "batch"), true},
		{"the load factor", pt("load", "1.5", "web"), true},
		{"the one group's rate", pt("clients[0].workload.rate", "500/s", "web"), false},
		{"no load", pt("clients[0].driver.retryPolicy", "none", "web", "batch"), false},
	} {
		var b bytes.Buffer
		printSweep(&b, []sweep.PointStats{c.point})
		if got := strings.Contains(b.String(), "  offered 1234 ± 6/s  goodput"); got != c.want {
			t.Errorf("%s: the total offered load shown %v, want %v:\n%s", c.gloss, got, c.want, b.String())
		}
	}
}
