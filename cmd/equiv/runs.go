package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/overloadsim/overloadsim/internal/parallel"
	"github.com/overloadsim/overloadsim/results"
)

// side names the two binaries or configurations compared.
var sides = [2]string{"old", "new"}

// runResult is the metrics of one run, in the order the summary lists them.
type runResult []results.Metric

// scenarioRuns are one scenario's runs: runs[side][seed-1].
type scenarioRuns struct {
	name    string
	version [2]string // the simulator's version as each side's first summary states it
	runs    [2][]runResult
}

// collect runs every scenario's seeds on both sides, scenario by scenario, on o.jobs workers,
// in a temporary folder removed at the end. Results are kept by index, so they do not depend
// on the number of workers.
func collect(ctx context.Context, o options, stderr io.Writer) ([]scenarioRuns, error) {
	tmp, err := os.MkdirTemp("", "equiv-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	fmt.Fprintf(stderr, "equiv: %s × %d seeds × 2 sides = %d runs on %s\n",
		plural(len(o.scenarios), "scenario"), o.seeds, 2*len(o.scenarios)*o.seeds, plural(o.jobs, "worker"))
	out := make([]scenarioRuns, len(o.scenarios))
	for si, name := range o.scenarios {
		start := time.Now()
		sr := scenarioRuns{name: name}
		sr.runs[0], sr.runs[1] = make([]runResult, o.seeds), make([]runResult, o.seeds)
		type run struct {
			m       runResult
			version string
		}
		// Run i is side i%2 at seed i/2+1; the one worker pool of the module hands them out.
		runs, errs, _ := parallel.Map(ctx, 2*o.seeds, o.jobs, func(ctx context.Context, i int) (run, error) {
			side, seed := i%2, i/2+1
			bin, set := o.oldBin, o.oldSet
			if side == 1 {
				bin, set = o.newBin, o.newSet
			}
			dir := filepath.Join(tmp, fmt.Sprintf("%d-%s-%d", si, sides[side], seed))
			m, version, err := runOne(ctx, bin, name, seed, set, dir)
			return run{m, version}, err
		}, nil)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err := errors.Join(errs...); err != nil {
			return nil, err
		}
		for i, r := range runs {
			sr.runs[i%2][i/2] = r.m
		}
		sr.version = [2]string{runs[0].version, runs[1].version}
		out[si] = sr
		fmt.Fprintf(stderr, "equiv: [%d/%d] %s: %d seeds × 2 sides done in %.1fs\n", si+1, len(o.scenarios), name, o.seeds, time.Since(start).Seconds())
	}
	return out, nil
}

// runOne runs one scenario and seed with bin into dir, reads its summary through the folder's
// manifest, and removes the folder. A run whose expect: block fails (exit 3) is a result like
// any other: the protocol compares what the runs measured, not what the scenario claims.
func runOne(ctx context.Context, bin, scenario string, seed int, set []string, dir string) (runResult, string, error) {
	args := []string{"run", scenario, "--seed", strconv.Itoa(seed), "--out", dir}
	for _, s := range set {
		args = append(args, "--set", s)
	}
	var errb bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout, cmd.Stderr = io.Discard, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 3) {
		return nil, "", fmt.Errorf("%s %s: %v: %s", bin, quoteArgs(args), err, lastLines(errb.String(), 5))
	}
	defer os.RemoveAll(dir)
	if _, err := results.ReadManifestOf(dir, results.KindRun); err != nil {
		return nil, "", fmt.Errorf("%s %s: %w", bin, quoteArgs(args), err)
	}
	sum, err := results.ReadSummary(dir)
	if err != nil {
		return nil, "", fmt.Errorf("%s %s: %w", bin, quoteArgs(args), err)
	}
	version := ""
	if sum.Header != nil {
		version = sum.Header.Tool + " " + sum.Header.Version
	}
	return sum.Metrics(), version, nil
}

// quoteArgs writes args as a shell would need them.
func quoteArgs(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if strings.ContainsAny(a, " '\"()[]{}*?$;&|<>") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		q[i] = a
	}
	return strings.Join(q, " ")
}
