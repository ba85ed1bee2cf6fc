package main

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	mapexp "github.com/overloadsim/overloadsim/experiment/phasemap"
)

const tinyCut = "testdata/tiny-cut.yaml"

// TestMapWorkers: a map's files are byte-identical for any number of workers, and the map has a
// cell per combination in the order the axes were given.
func TestMapWorkers(t *testing.T) {
	args := func(dir, workers string) []string {
		return []string{"map", tinyCut, "--vary", "faults[0].speed=0.3,0.6", "--vary", "faults[0].for=200ms,2s",
			"--replications", "3", "--workers", workers, "--out", dir}
	}
	base := t.TempDir()
	var outs []string
	for _, w := range []string{"1", "2", "4"} {
		dir := filepath.Join(base, w)
		var stdout, stderr bytes.Buffer
		if s := run(args(dir, w), &stdout, &stderr); s != exitOK {
			t.Fatalf("workers %s: status %d: %s", w, s, stderr.String())
		}
		outs = append(outs, stdout.String())
		for _, f := range []string{"map.json", "map.csv"} {
			got, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				t.Fatal(err)
			}
			want, _ := os.ReadFile(filepath.Join(base, "1", f))
			if !bytes.Equal(got, want) {
				t.Errorf("workers %s: %s differs from workers 1", w, f)
			}
		}
	}
	if outs[0] != outs[1] || outs[0] != outs[2] {
		t.Errorf("stdout differs between worker counts")
	}
	csv, _ := os.ReadFile(filepath.Join(base, "1", "map.csv"))
	lines := strings.Split(strings.TrimSpace(string(csv)), "\n")
	want := []string{"faults[0].speed,faults[0].for,", "0.3,200ms,", "0.3,2s,", "0.6,200ms,", "0.6,2s,"}
	if len(lines) != len(want) {
		t.Fatalf("map.csv has %d lines, want %d:\n%s", len(lines), len(want), csv)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("map.csv line %d = %q, want it to start %q (axes in the order given, first slowest)", i, lines[i], w)
		}
	}
	// The heat map names its axes by their short names, or by --label, given to plot later; a
	// label of no axis is refused.
	var stdout, stderr bytes.Buffer
	if s := run([]string{"plot", filepath.Join(base, "1"), "--label", "faults[0].speed=share of CPU kept"}, &stdout, &stderr); s != exitOK {
		t.Fatalf("plot --label: status %d: %s", s, stderr.String())
	}
	svg, _ := os.ReadFile(filepath.Join(base, "1", "map.svg"))
	if !strings.Contains(string(svg), "share of CPU kept") || !strings.Contains(string(svg), "cut length") {
		t.Error("the heat map's axes are not named by --label and the short name")
	}
	stderr.Reset()
	if s := run([]string{"plot", filepath.Join(base, "1"), "--label", "faults[1].speed=x"}, &stdout, &stderr); s == exitOK || !strings.Contains(stderr.String(), "not a parameter of the map") {
		t.Errorf("plot --label of no axis: status %d: %s", s, stderr.String())
	}
	if !strings.Contains(outs[0], "sticks for faults[0].for above") {
		t.Errorf("the summary names no boundary:\n%s", outs[0])
	}
	// Each cell prints P(stuck) as k/n with its interval, and three replications never exclude
	// ½ (chart.Straddles): every cell that ran says it holds ½.
	if !strings.Contains(outs[0], "P(stuck) = k/n [95 %]") || strings.Count(outs[0], "(holds ½)") != 4 ||
		!(strings.Contains(outs[0], " = 0/3 [") || strings.Contains(outs[0], " = 3/3 [")) {
		t.Errorf("the cells' table lacks k/n or the mark of an interval that holds ½:\n%s", outs[0])
	}
}

// TestMapBadInput: every bad map is refused before anything runs, with a message naming the
// problem, and leaves no folder behind.
func TestMapBadInput(t *testing.T) {
	vary := func(specs ...string) []string {
		var out []string
		for _, s := range specs {
			out = append(out, "--vary", s)
		}
		return out
	}
	tests := []struct {
		name   string
		args   []string
		status int
		stderr string
	}{
		{"one axis", vary("faults[0].speed=0.3,0.6"), exitUsage, "a map has 2 or 3"},
		{"four axes", vary("faults[0].speed=0.3,0.6", "faults[0].for=1s,2s", "seed=1,2", "duration=10s,12s"), exitUsage, "a map has 2 or 3"},
		{"a field that does not exist", vary("faults[0].sped=0.3,0.6", "faults[0].for=1s,2s"), exitFailure, "sped"},
		{"not numeric", vary("faults[0].speed=0.3,0.6", "clients[0].driver.retryPolicy=none,mongodb-legacy"), exitUsage, "must be numbers of one kind"},
		{"a reversed range", vary("faults[0].speed=0.6:0.3:0.1", "faults[0].for=1s,2s"), exitFailure, "to must be ≥ from"},
		{"an empty range step", vary("faults[0].speed=0.3:0.6:0", "faults[0].for=1s,2s"), exitFailure, "step must be > 0"},
		{"a single value", vary("faults[0].speed=0.3", "faults[0].for=1s,2s"), exitUsage, "needs at least 2"},
		{"the same path twice", vary("faults[0].speed=0.3,0.6", "faults[0].speed=0.4,0.5"), exitUsage, "already an axis"},
		{"an invalid value", vary("faults[0].speed=0.3,-1", "faults[0].for=1s,2s"), exitFailure, "speed"},
		{"an unknown trigger", append(vary("faults[0].speed=0.3,0.6", "faults[0].for=1s,2s"), "--trigger", "gc"), exitUsage, `the scenario's triggers are cpu-cut`},
		{"too many runs", append(vary("faults[0].speed=0.1:0.9:0.001", "faults[0].for=1s:100s:1s"), "--replications", "10"), exitUsage, "more than --max-runs"},
		{"no replications", append(vary("faults[0].speed=0.3,0.6", "faults[0].for=1s,2s"), "--replications", "0"), exitUsage, "--replications 0"},
		{"a label without --plot", append(vary("faults[0].speed=0.3,0.6", "faults[0].for=1s,2s"), "--label", "faults[0].for=cut"), exitUsage, "give it with --plot"},
		{"a malformed label", append(vary("faults[0].speed=0.3,0.6", "faults[0].for=1s,2s"), "--plot", "--label", "cut"), exitUsage, "want PATH=NAME"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			var stdout, stderr bytes.Buffer
			args := append(append([]string{"map", tinyCut}, tc.args...), "--out", dir)
			if s := run(args, &stdout, &stderr); s != tc.status {
				t.Errorf("status %d, want %d; stderr: %s", s, tc.status, stderr.String())
			}
			if !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, stderr.String())
			}
			if _, err := os.Stat(dir); err == nil {
				t.Errorf("a refused map left %s behind", dir)
			}
		})
	}
}

// TestMapNoTrigger: a scenario without a trigger has nothing to map.
func TestMapNoTrigger(t *testing.T) {
	var stdout, stderr bytes.Buffer
	s := run([]string{"map", "healthy", "--vary", "clients[0].workload.rate=100/s,200/s", "--vary", "duration=10s,20s",
		"--out", filepath.Join(t.TempDir(), "m")}, &stdout, &stderr)
	if s != exitUsage || !strings.Contains(stderr.String(), "has no trigger") {
		t.Errorf("status %d, stderr %q; want a usage error naming the missing trigger", s, stderr.String())
	}
}

// TestMapInterrupted: an interrupted map keeps the cells whose replications all finished, leaves
// the others with no replications, and says it is partial.
func TestMapInterrupted(t *testing.T) {
	sc, err := loadScenario(tinyCut, nil)
	if err != nil {
		t.Fatal(err)
	}
	axes, err := mapAxes(sc, []string{"faults[0].speed=0.3,0.6", "faults[0].for=200ms,2s"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m, err := mapexp.Run(ctx, mapexp.Options{Scenario: sc, Axes: axes, Trigger: "cpu-cut", Seed: 1, Replications: 2, Workers: 1, Run: runOptions()})
	if err != nil {
		t.Fatal(err)
	}
	if !m.Partial || len(m.Cells) != 4 {
		t.Fatalf("partial %v, %d cells; want a partial map of 4 cells", m.Partial, len(m.Cells))
	}
	for _, c := range m.Cells {
		if c.Replications != 0 || !math.IsNaN(c.PStuck) {
			t.Errorf("cell %v ran %d replications after the interrupt", c.Params, c.Replications)
		}
	}
}
