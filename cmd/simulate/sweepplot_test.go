package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	if !strings.HasPrefix(lines[0], "clients[0].driver.retryPolicy,clients[0].workload.rate,") ||
		!strings.HasPrefix(lines[1], "none,500/s,") || !strings.HasPrefix(lines[2], "none,1000/s,") {
		t.Errorf("points.csv does not keep the --vary order, the first slowest:\n%s\n%s\n%s", lines[0], lines[1], lines[2])
	}
	svg := func() string {
		b, err := os.ReadFile(filepath.Join(dir, "sweep-goodput.svg"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, want := range []string{"Goodput vs offered load", "one line per value of clients[0].driver.retryPolicy", ">mongodb-2026-03<"} {
		if !strings.Contains(svg(), want) {
			t.Errorf("sweep-goodput.svg does not say %q", want)
		}
	}
	runOK(t, "plot", dir, "--x", "clients[0].driver.retryPolicy")
	for _, want := range []string{"Goodput vs clients[0].driver.retryPolicy", "one line per value of clients[0].workload.rate", ">1500/s<"} {
		if !strings.Contains(svg(), want) {
			t.Errorf("with --x the policy: sweep-goodput.svg does not say %q", want)
		}
	}
	if s, _, errb := runStatus("plot", dir, "--x", "clients[0].count"); s == exitOK || !strings.Contains(errb, "not a parameter of the sweep") {
		t.Errorf("--x of no parameter: exit %d, %s", s, errb)
	}
	runOK(t, "check", "--baseline", filepath.Join(dir, "sweep.json"), dir) // the folder is whole after the redraw
}
