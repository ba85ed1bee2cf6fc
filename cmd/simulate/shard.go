package main

import (
	"fmt"
	"io"
	"path/filepath"
	"sync/atomic"

	"github.com/spf13/pflag"

	"github.com/overloadsim/overloadsim/experiment"
	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/scenarios"
)

// shardFlag adds --shard to a command that runs many runs.
func shardFlag(fs *pflag.FlagSet) *string {
	return fs.String("shard", "", "run only shard i of n (i/n, 0 ≤ i < n) and keep its runs for 'simulate merge': units are dealt round-robin, unit u to shard u mod n")
}

// parseShard parses --shard when it was given (nil when not), and checks the options that go
// with it: --format, and --plot, which a shard cannot honour (what: "sweep", "map" or "tuning").
func parseShard(fs *pflag.FlagSet, s, format string, plot bool, what string) (*experiment.Shard, error) {
	if err := checkFormat(format); err != nil {
		return nil, err
	}
	if !fs.Changed("shard") {
		return nil, nil
	}
	sh, err := experiment.ParseShard(s)
	if err != nil {
		return nil, usageErrorf("--shard: %v", err)
	}
	if plot {
		return nil, usageErrorf("--plot with --shard: a shard has no figures; draw them from the merged %s", what)
	}
	return &sh, nil
}

// shardDir is a shard's default output folder: out/<scenario><suffix>-shard-<i>-of-<n>.
func shardDir(out string, sc *scenarios.Scenario, suffix string, sh experiment.Shard) string {
	return outDir(out, sc, fmt.Sprintf("%s-shard-%d-of-%d", suffix, sh.Index, sh.Count))
}

// runShard runs the shard info describes (experiment.RunShard) under the command's limits and
// signals, with a progress bar: a shard stopped in any way and run again runs only what it had
// not finished. measures, for a tuning's shard, are what each run keeps in its summary's Expected
// (nil otherwise).
func runShard(lim *limits, info experiment.ShardInfo, points []scenarios.SweepPoint, seed uint64, workers int, dir string,
	measures []results.Expectation, stderr io.Writer) error {
	var running atomic.Int64
	ctx, stop := lim.guard(stderr, func() string { return fmt.Sprintf("%d runs in progress", running.Load()) },
		fmt.Sprintf("; the runs that finished are kept in %s and the same command resumes the shard", filepath.Join(dir, results.UnitsDir)))
	defer stop()
	return experiment.RunShard(ctx, experiment.ShardRun{Info: info, Points: points, Seed: seed, Workers: workers, Dir: dir,
		Options: runOptions(), Measures: measures, Interrupted: errInterrupted,
		Hooks: experiment.Hooks{Log: stderr, Bar: progressBars(stderr), Running: &running}})
}
