package main

import (
	"fmt"
	"io"
	"path/filepath"
	"sync/atomic"

	"github.com/spf13/pflag"

	"github.com/overloadsim/overloadsim/bench"
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
func parseShard(fs *pflag.FlagSet, s, format string, plot bool, what string) (*results.Shard, error) {
	if err := checkFormat(format); err != nil {
		return nil, err
	}
	if !fs.Changed("shard") {
		return nil, nil
	}
	sh, err := results.ParseShard(s)
	if err != nil {
		return nil, usageErrorf("--shard: %v", err)
	}
	if plot {
		return nil, usageErrorf("--plot with --shard: a shard has no figures; draw them from the merged %s", what)
	}
	return &sh, nil
}

// shardDir is a shard's default output folder: out/<scenario><suffix>-shard-<i>-of-<n>.
func shardDir(out string, sc *scenarios.Scenario, suffix string, sh results.Shard) string {
	return outDir(out, sc, fmt.Sprintf("%s-shard-%d-of-%d", suffix, sh.Index, sh.Count))
}

// shardInfo describes shard sh of the work of kind work (a sweep, a map or a tuning) over points.
func shardInfo(work string, hdr results.Header, sh results.Shard, points []scenarios.SweepPoint, reps int) results.ShardInfo {
	info := results.ShardInfo{Header: hdr, Work: work, Index: sh.Index, Count: sh.Count,
		Replications: reps, Units: len(points) * reps}
	for _, p := range points {
		info.Points = append(info.Points, p.Params)
	}
	return info
}

// runShard runs the units the shard info describes owns, on workers, keeping each finished run's
// summary in dir at once (results.OpenShard), so that a shard stopped in any way and run again
// runs only what it had not finished. When every unit is done it writes the shard's manifest;
// interrupted, it leaves the folder unfinished and says how far it got.
//
// measures, for a tuning's shard, are what each run keeps in its summary's Expected instead of
// the scenario's expectations: the tuning's objective and constraints (nil otherwise).
func runShard(lim *limits, info results.ShardInfo, points []scenarios.SweepPoint, seed uint64, workers int, dir string,
	measures []results.Expectation, stderr io.Writer) error {
	units, kept, err := results.OpenShard(dir, info)
	if err != nil {
		return err
	}
	for _, d := range units.Discarded {
		fmt.Fprintf(stderr, "not resuming from %s\n", d)
	}
	sh := info.Shard()
	owned := sh.Units(info.Units)
	if len(kept) > 0 {
		fmt.Fprintf(stderr, "resuming shard %s: %d of its %d runs kept in %s\n", sh, len(kept), len(owned), filepath.Join(dir, results.UnitsDir))
	}
	var running atomic.Int64
	ctx, stop := lim.guard(stderr, func() string { return fmt.Sprintf("%d runs in progress", running.Load()) },
		fmt.Sprintf("; the runs that finished are kept in %s and the same command resumes the shard", filepath.Join(dir, results.UnitsDir)))
	defer stop()
	bar := newProgressBar(stderr, "shard "+sh.String())
	reps := info.Replications
	_, done, err := experiment.RunIndexed(ctx, len(owned), workers, func(k int) (struct{}, error) {
		u := owned[k]
		if _, ok := kept[u]; ok {
			return struct{}{}, nil
		}
		running.Add(1)
		defer running.Add(-1)
		r, err := bench.RunWith(points[u/reps].Scenario, seed, u%reps, runOptions())
		if err != nil {
			return struct{}{}, fmt.Errorf("%s: %w", info.UnitName(u), err)
		}
		if measures != nil {
			r.Summary.Expected = results.Measure(measures, &r.Summary, r.Series)
		}
		return struct{}{}, units.Put(u, r.Summary)
	}, bar.update)
	if err != nil {
		return err
	}
	finished := 0
	for _, d := range done {
		if d {
			finished++
		}
	}
	if finished < len(owned) {
		return fmt.Errorf("%w: shard %s is unfinished: %d of its %d runs are kept in %s; run the same command to finish it",
			errInterrupted, sh, finished, len(owned), filepath.Join(dir, results.UnitsDir))
	}
	if err := results.FinishShard(dir, info); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "wrote shard %s of %s to %s: %d of %d runs; when all %d shards have finished, 'simulate merge' their folders\n",
		sh, info.Work, dir, len(owned), info.Units, sh.Count)
	return nil
}
