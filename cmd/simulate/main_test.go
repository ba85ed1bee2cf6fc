package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestCLI runs the CLI end to end through run(args, stdout, stderr) and checks exit status,
// where the output went, and what it says (docs/conventions.md §15: data on stdout, diagnostics on stderr,
// 0 ok / 1 failure / 2 usage).
func TestCLI(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantStatus int
		stdout     []string // substrings stdout must contain
		stderr     []string // substrings stderr must contain
		quietOut   bool     // stdout must be empty
	}{
		{"no arguments: usage on stderr", nil, exitUsage, nil, []string{"Usage: simulate", "run", "sweep", "check", "version"}, true},
		{"help: usage on stdout", []string{"--help"}, exitOK, []string{"Commands:"}, nil, false},
		{"help: the list on stdout", []string{"help"}, exitOK, append([]string{"Commands:", "help "}, commandNames()...), nil, false},
		{"-h: the list on stdout", []string{"-h"}, exitOK, []string{"Commands:", "simulate help <command>"}, nil, false},
		{"help help", []string{"help", "help"}, exitOK, []string{"Commands:"}, nil, false},
		{"help of an unknown command", []string{"help", "nope"}, exitUsage, nil, []string{`unknown command or topic "nope"`, "Commands:"}, true},
		{"help of two commands", []string{"help", "run", "sweep"}, exitUsage, nil, []string{"at most one command"}, true},
		{"unknown flag: how to get help", []string{"run", "--nope"}, exitUsage, nil, []string{"unknown flag: --nope", "simulate run --help"}, true},
		{"show without a name", []string{"show"}, exitUsage, nil, []string{"want exactly one NAME"}, true},
		{"unknown command", []string{"frobnicate"}, exitUsage, nil, []string{`unknown command "frobnicate"`}, true},
		{"version", []string{"version"}, exitOK, []string{"simulate "}, nil, false},
		{"version with an argument", []string{"version", "x"}, exitUsage, nil, []string{"no arguments"}, true},
		{"mmc", []string{"mmc", "--horizon", "20s", "--warmup", "1s"}, exitOK,
			[]string{"M/M/4", "ρ=0.8000", "mean wait Wq (s)", "Erlang C", "utilisation", "events/s"}, nil, false},
		{"mmc unstable", []string{"mmc", "--lambda", "500", "--horizon", "2s", "--warmup", "0s"}, exitOK,
			[]string{"unstable"}, nil, false},
		{"mmc with an argument", []string{"mmc", "x"}, exitUsage, nil, []string{"no arguments"}, true},
		{"mmc bad flag value", []string{"mmc", "--c", "zero"}, exitUsage, nil, []string{"invalid argument", "--c"}, true},
		{"mmc unknown flag", []string{"mmc", "--nope"}, exitUsage, nil, []string{"unknown flag: --nope"}, true},
		{"mmc invalid config names field and rule", []string{"mmc", "--mu", "-3", "--c", "0"}, exitUsage, nil,
			[]string{"mu: -3: must be a finite number > 0", "c: 0: must be ≥ 1"}, true},
		{"mmc --help: help on stdout", []string{"mmc", "--help"}, exitOK, []string{"Usage: simulate mmc", "Examples:", "--lambda"}, nil, false},
		{"run unknown scenario", []string{"run", "no-such-scenario"}, exitUsage, nil, []string{"neither a library scenario", "spike"}, true},
		{"run two scenarios", []string{"run", "a", "b"}, exitUsage, nil, []string{"at most one"}, true},
		{"run bad format", []string{"run", "--format", "xml"}, exitUsage, nil, []string{"--format \"xml\""}, true},
		{"run bad --set", []string{"run", "healthy", "--set", "duration"}, exitUsage, nil, []string{"want path=value"}, true},
		{"run --set to a bad value", []string{"run", "healthy", "--set", "duration=-5s"}, exitFailure, nil, []string{"duration", "-5s"}, true},
		{"list", []string{"list"}, exitOK, []string{"* spike", "healthy", "default scenario"}, nil, false},
		{"show", []string{"show", "healthy"}, exitOK, []string{"name: healthy", "claim:"}, nil, false},
		{"show unknown", []string{"show", "nope"}, exitUsage, nil, []string{"nope"}, true},
		{"validate without files", []string{"validate"}, exitUsage, nil, []string{"at least one FILE"}, true},
		{"sweep too many --vary", []string{"sweep", "--vary", "a=1,2", "--vary", "b=1,2", "--vary", "c=1,2"}, exitUsage, nil, []string{"at most 2"}, true},
		{"sweep over the seed", []string{"sweep", "healthy", "--vary", "seed=1,2"}, exitUsage, nil, []string{"varying seed would change nothing", "--replications"}, true},
		{"map over the seed", []string{"map", tinyCut, "--vary", "seed=1,2", "--vary", "faults[0].for=1s,2s"}, exitUsage, nil, []string{"varying seed would change nothing"}, true},
		{"sweep zero workers", []string{"sweep", "--workers", "0"}, exitUsage, nil, []string{"--workers 0"}, true},
		{"check needs one mode", []string{"check", "dir"}, exitUsage, nil, []string{"exactly one of --baseline and --write-baseline"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			got := run(tc.args, &out, &errb)
			if got != tc.wantStatus {
				t.Errorf("run(%q) = %d, want %d\nstderr: %s", tc.args, got, tc.wantStatus, errb.String())
			}
			for _, s := range tc.stdout {
				if !strings.Contains(out.String(), s) {
					t.Errorf("stdout lacks %q:\n%s", s, out.String())
				}
			}
			for _, s := range tc.stderr {
				if !strings.Contains(errb.String(), s) {
					t.Errorf("stderr lacks %q:\n%s", s, errb.String())
				}
			}
			if tc.quietOut && out.Len() > 0 {
				t.Errorf("stdout should be empty on error, got:\n%s", out.String())
			}
		})
	}
}

// TestRunMMCDeterministic: the same flags give the same measurements (the events/s line, which
// reads the wall clock, is the only line allowed to differ).
func TestRunMMCDeterministic(t *testing.T) {
	once := func() string {
		var out bytes.Buffer
		if s := run([]string{"mmc", "--horizon", "30s", "--warmup", "1s", "--seed", "3"}, &out, &bytes.Buffer{}); s != 0 {
			t.Fatalf("status %d", s)
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		return strings.Join(lines[:len(lines)-1], "\n")
	}
	if a, b := once(), once(); a != b {
		t.Fatalf("two runs differ:\n%s\n---\n%s", a, b)
	}
}

// TestDocListsEveryCommand keeps the package documentation (go doc ./cmd/simulate)
// true: it names every command, and each command lives in its own <command>cmd.go.
func TestDocListsEveryCommand(t *testing.T) {
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	for name := range commands {
		if !strings.Contains(string(src), "//\t"+name+" ") {
			t.Errorf("main.go's doc comment does not list the command %q", name)
		}
		if _, err := os.Stat(name + "cmd.go"); err != nil {
			t.Errorf("command %q: %v (one file per command)", name, err)
		}
	}
}
