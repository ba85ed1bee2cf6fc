package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRareWorkers: a splitting estimate (with its plain-replication comparison) writes the same
// rare.json for any number of workers, and says what it estimated.
func TestRareWorkers(t *testing.T) {
	base := t.TempDir()
	var outs []string
	for _, w := range []string{"1", "2"} {
		var stdout, stderr bytes.Buffer
		args := []string{"rare", tinyCut, "--set", "faults[0].for=400ms", "--score", "backlog", "--levels", "5,40",
			"--n", "20", "--repetitions", "2", "--brute-force", "--workers", w, "--out", filepath.Join(base, w)}
		if s := run(args, &stdout, &stderr); s != exitOK {
			t.Fatalf("workers %s: status %d: %s", w, s, stderr.String())
		}
		outs = append(outs, stdout.String())
	}
	a, _ := os.ReadFile(filepath.Join(base, "1", "rare.json"))
	b, _ := os.ReadFile(filepath.Join(base, "2", "rare.json"))
	if !bytes.Equal(a, b) || outs[0] != outs[1] {
		t.Error("rare.json or stdout differs between 1 and 2 workers")
	}
	for _, want := range []string{"P(backlog ≥ 40 over a 1s step between 4s and 12s)", "plain replication at the same cost"} {
		if !strings.Contains(outs[0], want) {
			t.Errorf("stdout lacks %q:\n%s", want, outs[0])
		}
	}
}

// TestRareBadInput: bad estimates are refused before anything runs.
func TestRareBadInput(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"no levels", []string{"--score", "backlog"}, "exactly one of --levels and --pilot"},
		{"levels and pilot", []string{"--levels", "1,2", "--pilot", "3"}, "exactly one of --levels and --pilot"},
		{"levels not increasing", []string{"--levels", "5,5"}, "strictly increasing"},
		{"a level that is not a number", []string{"--levels", "5,lots"}, "not a finite number"},
		{"an unknown score", []string{"--score", "latency", "--levels", "1"}, `score "latency"`},
		{"a step beyond the run", []string{"--levels", "1", "--step", "1h"}, "--step 1h0m0s"},
		{"from beyond the run", []string{"--levels", "1", "--from", "20s"}, `--from "20s"`},
		{"too many runs", []string{"--levels", "1,2,3", "--n", "100000", "--repetitions", "10"}, "more than --max-runs"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			var stdout, stderr bytes.Buffer
			if s := run(append(append([]string{"rare", tinyCut}, tc.args...), "--out", dir), &stdout, &stderr); s != exitUsage {
				t.Errorf("status %d, want %d; stderr: %s", s, exitUsage, stderr.String())
			}
			if !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, stderr.String())
			}
			if _, err := os.Stat(dir); err == nil {
				t.Errorf("a refused estimate left %s behind", dir)
			}
		})
	}
}
