package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
)

// options are equiv's command line.
type options struct {
	oldBin, newBin  string
	oldSet, newSet  []string // --set arguments of each side's runs
	seeds           int
	scenarios       []string
	alpha           float64
	jobs            int
	report, jsonOut string
	maxRuns         int
}

// sets is a repeatable PATH=VALUE flag.
type sets []string

func (s *sets) String() string { return strings.Join(*s, " ") }

func (s *sets) Set(v string) error {
	if path, _, ok := strings.Cut(v, "="); !ok || strings.TrimSpace(path) == "" {
		return fmt.Errorf("%q: want PATH=VALUE", v)
	}
	*s = append(*s, v)
	return nil
}

func parseArgs(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("equiv", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.StringVar(&o.oldBin, "old", "", "the simulate binary before the change (required)")
	fs.StringVar(&o.newBin, "new", "", "the simulate binary after the change (required; may be --old, with --old-set or --new-set)")
	fs.IntVar(&o.seeds, "seeds", 30, "seeds 1..N per scenario and side (at least 2)")
	scen := fs.String("scenarios", "", "comma-separated library scenarios or scenario files (default: every library scenario)")
	fs.Float64Var(&o.alpha, "alpha", 0.05, "family-wise error rate over every test of the run (Holm–Bonferroni)")
	fs.IntVar(&o.jobs, "j", 2, "runs side by side")
	fs.StringVar(&o.report, "report", "", "write the Markdown report to this file (default: stdout)")
	fs.StringVar(&o.jsonOut, "json", "", "also write the comparison as JSON to this file")
	fs.Var((*sets)(&o.oldSet), "old-set", "PATH=VALUE passed as --set to every run of the old side (repeatable)")
	fs.Var((*sets)(&o.newSet), "new-set", "PATH=VALUE passed as --set to every run of the new side (repeatable)")
	fs.IntVar(&o.maxRuns, "max-runs", 2000, "refuse work of more runs than this (both sides counted)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: go run ./cmd/equiv --old BIN --new BIN [--seeds N] [--scenarios a,b] [--alpha A] [-j N] [--report FILE] [--json FILE] [--old-set P=V]... [--new-set P=V]... [--max-runs N]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q: every input is a flag", fs.Args())
	}
	var probs []string
	if o.oldBin == "" {
		probs = append(probs, "--old: missing: give the simulate binary before the change")
	}
	if o.newBin == "" {
		probs = append(probs, "--new: missing: give the simulate binary after the change")
	}
	if o.seeds < 2 || o.seeds > 100000 {
		probs = append(probs, fmt.Sprintf("--seeds: %d: must be from 2 to 100000 (a spread needs two values)", o.seeds))
	}
	if !(o.alpha > 0 && o.alpha < 1) {
		probs = append(probs, fmt.Sprintf("--alpha: %v: must be between 0 and 1", o.alpha))
	}
	if o.jobs < 1 || o.jobs > 64 {
		probs = append(probs, fmt.Sprintf("-j: %d: must be from 1 to 64", o.jobs))
	}
	if o.maxRuns < 1 {
		probs = append(probs, fmt.Sprintf("--max-runs: %d: must be at least 1", o.maxRuns))
	}
	if *scen != "" {
		for _, s := range strings.Split(*scen, ",") {
			s = strings.TrimSpace(s)
			if s == "" || slices.Contains(o.scenarios, s) {
				probs = append(probs, fmt.Sprintf("--scenarios: %q: names must be non-empty and given once", *scen))
				break
			}
			o.scenarios = append(o.scenarios, s)
		}
	}
	if o.report != "" && o.report == o.jsonOut {
		probs = append(probs, fmt.Sprintf("--json: %q: is also --report", o.jsonOut))
	}
	if len(probs) > 0 {
		return o, fmt.Errorf("%s", strings.Join(probs, "\n       "))
	}
	return o, nil
}

// resolve checks both binaries and fills the default scenarios: the old binary's library, which
// the new one must list too; named scenarios must be in both libraries, or be files.
func (o *options) resolve(ctx context.Context) error {
	oldLib, err := library(ctx, o.oldBin)
	if err != nil {
		return fmt.Errorf("--old: %w", err)
	}
	newLib, err := library(ctx, o.newBin)
	if err != nil {
		return fmt.Errorf("--new: %w", err)
	}
	if len(o.scenarios) == 0 {
		var missing []string
		for _, n := range oldLib {
			if !slices.Contains(newLib, n) {
				missing = append(missing, n)
			}
		}
		if len(missing) > 0 {
			return fmt.Errorf("--new: %s does not have the old binary's scenarios %s: choose --scenarios", o.newBin, strings.Join(missing, ", "))
		}
		o.scenarios = oldLib
		return nil
	}
	for _, s := range o.scenarios {
		inLib := slices.Contains(oldLib, s) && slices.Contains(newLib, s)
		if fi, err := os.Stat(s); !inLib && (err != nil || !fi.Mode().IsRegular()) {
			return fmt.Errorf("--scenarios: %q: neither a scenario of both binaries' libraries (%s) nor a file", s, strings.Join(oldLib, ", "))
		}
	}
	return nil
}

// library asks bin for its library's scenario names.
func library(ctx context.Context, bin string) ([]string, error) {
	if fi, err := os.Stat(bin); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", bin)
	}
	var out, errb bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "list", "--format", "json")
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s list --format json: %v: %s", bin, err, lastLines(errb.String(), 5))
	}
	var list []struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(out.Bytes(), &list); err != nil {
		return nil, fmt.Errorf("%s list --format json: not a simulate binary's list: %v", bin, err)
	}
	names := make([]string, len(list))
	for i, e := range list {
		names[i] = e.Name
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%s list --format json: no scenarios", bin)
	}
	return names, nil
}

// lastLines is the last n lines of s, trimmed.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
