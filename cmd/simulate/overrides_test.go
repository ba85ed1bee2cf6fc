package main

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/overloadsim/overloadsim/scenarios"
)

// TestSetOrderDoesNotMatter: the --set overrides are applied together and validated once.
// sustained-overload's warm-up is 15 s: a 10 s run without warm-up is accepted whichever of the
// two overrides comes first, and the shorter duration alone is refused, naming the override
// and the file's warm-up.
func TestSetOrderDoesNotMatter(t *testing.T) {
	for _, sets := range [][]string{
		{"--set", "duration=10s", "--set", "warmup=0s"},
		{"--set", "warmup=0s", "--set", "duration=10s"},
	} {
		args := append([]string{"run", "sustained-overload", "--out", filepath.Join(t.TempDir(), "run")}, sets...)
		if out := runOK(t, args...); !strings.Contains(out, "measured 10s after a 0s warm-up") {
			t.Errorf("simulate %s: the summary does not say a 10s run without warm-up:\n%s", strings.Join(args, " "), out)
		}
	}

	var out, errb bytes.Buffer
	status := run([]string{"run", "sustained-overload", "--set", "duration=10s", "--out", filepath.Join(t.TempDir(), "run")}, &out, &errb)
	want := "simulate run: --set duration=10s: sustained-overload.yaml:10: warmup: 15s: must be in [0s, duration 10s), or auto\n"
	if status != exitFailure || errb.String() != want || out.Len() > 0 {
		t.Errorf("simulate run sustained-overload --set duration=10s: exit %d, stderr\n%s\nwant exit %d, stderr\n%s", status, errb.String(), exitFailure, want)
	}
}

// TestOverrideMessages: an error names the override it came from once, not twice
// ("--set X: --set X: …"), and a --vary value's problem does not repeat its path and value.
func TestOverrideMessages(t *testing.T) {
	tests := []struct {
		args   []string
		status int
		stderr string
	}{
		{[]string{"run", "healthy", "--set", "clients[0].count=0"}, exitFailure,
			"simulate run: --set clients[0].count=0: clients[0].count: 0: must be in [1, 1000000]\n"},
		{[]string{"run", "healthy", "--set", "warmup=1s", "--set", "clients[0].count=0"}, exitFailure,
			"simulate run: --set clients[0].count=0: clients[0].count: 0: must be in [1, 1000000]\n"},
		{[]string{"run", "healthy", "--set", "clients.x=1"}, exitFailure,
			"simulate run: scenarios: --set clients.x=1: path \"clients.x\": clients is not a mapping\n"},
		{[]string{"run", "healthy", "--set", "duration"}, exitUsage,
			"simulate run: --set \"duration\": want path=value\nrun 'simulate run --help' for usage\n"},
		{[]string{"sweep", "healthy", "--vary", "clients[0].count=1,0"}, exitFailure,
			"simulate sweep: --vary clients[0].count=1,0: sweep.parameters.clients[0].count: 0: must be in [1, 1000000]\n"},
		{[]string{"sweep", "healthy", "--vary", "topology.nodes[0].service=lognormal(1ms, 0.5,exp(2ms)"}, exitFailure,
			"simulate sweep: --vary topology.nodes[0].service=lognormal(1ms, 0.5,exp(2ms): sweep.parameters.topology.nodes[0].service: lognormal(1ms, 0.5,exp(2ms): '(' at character 10 is never closed\n"},
	}
	for _, tc := range tests {
		var out, errb bytes.Buffer
		args := append(tc.args, "--out", filepath.Join(t.TempDir(), "out"))
		status := run(args, &out, &errb)
		if status != tc.status || errb.String() != tc.stderr || out.Len() > 0 {
			t.Errorf("simulate %s: exit %d, stderr\n%s\nwant exit %d, stderr\n%s", strings.Join(args, " "), status, errb.String(), tc.status, tc.stderr)
		}
	}
}

// TestVaryValuesWithCommas: a sweep over values that hold commas runs one point per value.
func TestVaryValuesWithCommas(t *testing.T) {
	for _, vary := range []string{
		"topology.nodes[0].service=lognormal(1ms, 0.5),exp(2ms)",
		"topology.nodes[0].service=[lognormal(1ms, 0.5), exp(2ms)]",
		"clients[0].workload.rate={kind: step, before: 300/s, after: 600/s, at: 1s},400/s",
	} {
		dir := filepath.Join(t.TempDir(), "sweep")
		var out, errb bytes.Buffer
		args := []string{"sweep", "healthy", "--set", "duration=2s", "--set", "warmup=0s", "--vary", vary,
			"--replications", "1", "--workers", "1", "--out", dir}
		if s := run(args, &out, &errb); s != exitOK {
			t.Fatalf("simulate %s: exit %d\n%s", strings.Join(args, " "), s, errb.String())
		}
		if !strings.Contains(errb.String(), "2 of 2 points") {
			t.Errorf("simulate %s: want 2 points, stderr:\n%s", strings.Join(args, " "), errb.String())
		}
	}
}

// TestMMCConfidenceInterval: simulate mmc prints the mean wait with its 95 % batch-means
// half-width and says whether Erlang C's exact Wq lies inside the interval.
func TestMMCConfidenceInterval(t *testing.T) {
	wqLine := func(out string) string {
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(line, "mean wait Wq (s)") {
				return line
			}
		}
		return ""
	}
	out := runOK(t, "mmc", "--horizon", "60s", "--warmup", "3s", "--seed", "2")
	if wq := wqLine(out); !strings.Contains(wq, "±") {
		t.Errorf("the mean wait line %q has no ±; output:\n%s", wq, out)
	}
	if !strings.Contains(out, "Erlang C's Wq 0.007455 lies inside the 95 % interval [") {
		t.Errorf("no line says Erlang C's Wq lies inside the interval:\n%s", out)
	}
	// Unstable: no steady state, so no interval and no comparison.
	out = runOK(t, "mmc", "--lambda", "500", "--horizon", "2s", "--warmup", "0s")
	if wq := wqLine(out); wq == "" || strings.Contains(wq, "±") || strings.Contains(out, "lies") {
		t.Errorf("an unstable queue has no interval:\n%s", out)
	}
}

// TestScenarioFromStdin: "-" reads a scenario from standard input, for run (and every command
// that takes SCENARIO|FILE) and validate, with the bounds and messages of a file named "stdin".
func TestScenarioFromStdin(t *testing.T) {
	defer func(r io.Reader) { stdin = r }(stdin)
	healthy, err := scenarios.Source("healthy")
	if err != nil {
		t.Fatal(err)
	}
	stdin = bytes.NewReader(healthy)
	dir := filepath.Join(t.TempDir(), "out")
	if out := runOK(t, "run", "-", "--set", "duration=3s", "--set", "warmup=1s", "--out", dir); !strings.Contains(out, "healthy") {
		t.Errorf("run - printed:\n%s", out)
	}
	stdin = strings.NewReader("name: bad\nduration: -5s\n")
	s, _, errb := runStatus("validate", "-")
	if s != exitFailure || !strings.Contains(errb, "stdin:2") || !strings.Contains(errb, "duration") {
		t.Errorf("validate - of a bad scenario: exit %d\n%s", s, errb)
	}
	stdin = strings.NewReader(strings.Repeat("#", scenarios.MaxFileBytes+1))
	if s, _, errb := runStatus("validate", "-"); s != exitFailure || !strings.Contains(errb, "stdin") {
		t.Errorf("validate - of an oversized input: exit %d\n%s", s, errb)
	}
}
