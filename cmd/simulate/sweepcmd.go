package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"overloadsim/results"
	"overloadsim/scenarios"
	"runtime"
	"strings"

	"github.com/spf13/pflag"
)

var sweepCommand = command{
	summary: "vary parameters over replications and write points with confidence intervals",
	usage: `Usage: simulate sweep [SCENARIO|FILE] [options]

Runs every combination of the varied parameters (--vary, or the scenario's sweep block),
each --replications times on --workers independent runs, and writes points.csv and
sweep.json (mean and 95 % confidence half-width per metric). The results are the same for
any number of workers. Ctrl-C stops the sweep and keeps the points already complete.

Examples:
  simulate sweep spike --vary 'clients[0].workload.rate=1000/s:4000/s:500/s' --replications 5
  simulate sweep policy-comparison --workers 2 --out out/policies`,
	flags: func(fs *pflag.FlagSet) func([]string, io.Writer, io.Writer) error {
		seed := fs.Uint64("seed", 0, "base random seed (default: the scenario's)")
		sets := fs.StringArray("set", nil, "override a scenario field: path=value (repeatable)")
		vary := fs.StringArray("vary", nil, "vary a field: path=from:to:step or path=a,b,c (repeatable, at most 2)")
		reps := fs.Int("replications", 0, "runs per point (default: the scenario's, else 10)")
		workers := fs.Int("workers", runtime.GOMAXPROCS(0), "runs at once")
		out := fs.String("out", "", "output folder (default: out/<scenario>-sweep)")
		plotToo := fs.Bool("plot", false, "also draw the figures next to the results")
		return func(args []string, stdout, stderr io.Writer) error {
			ref, err := scenarioArg(args)
			if err != nil {
				return err
			}
			if len(*vary) > 2 {
				return usageErrorf("--vary: %d parameters: at most 2", len(*vary))
			}
			if *workers < 1 {
				return usageErrorf("--workers %d: must be ≥ 1", *workers)
			}
			if fs.Changed("replications") && *reps < 1 {
				return usageErrorf("--replications %d: must be ≥ 1", *reps)
			}
			sc, err := loadScenario(ref, *sets)
			if err != nil {
				return err
			}
			for _, v := range *vary {
				path, spec, ok := strings.Cut(v, "=")
				if !ok {
					return usageErrorf("--vary %q: want path=from:to:step or path=a,b,c", v)
				}
				if err := sc.Vary(strings.TrimSpace(path), strings.TrimSpace(spec)); err != nil {
					return err // its message starts with the --vary it came from
				}
			}
			if fs.Changed("replications") {
				if err := sc.Set("sweep.replications", fmt.Sprint(*reps)); err != nil {
					return err
				}
			}
			base, dir := seedOf(fs, *seed, sc), outDir(*out, sc, "-sweep")
			ctx, stop := interruptible()
			defer stop()
			if err := runSweep(ctx, sc, base, *workers, dir, stdout, stderr); err != nil {
				return err
			}
			if *plotToo {
				return writeFigures(dir, stderr)
			}
			return nil
		}
	},
}

// runSweep runs the sweep and writes it. Interrupted, it writes the points whose replications
// all finished and reports the interruption as a failure.
func runSweep(ctx context.Context, sc *scenarios.Scenario, seed uint64, workers int, dir string, stdout, stderr io.Writer) error {
	points, err := sc.Points()
	if err != nil {
		return err
	}
	reps := sc.Sweep.Replications
	n := len(points) * reps
	bar := newProgressBar(stderr, "sweep")
	runs, done, err := runParallel(ctx, n, workers, func(i int) (results.Summary, error) {
		r, err := scenarios.RunWith(points[i/reps].Scenario, seed, i%reps, runOptions())
		if err != nil {
			return results.Summary{}, err
		}
		return r.Summary, nil
	}, bar.update)
	if err != nil {
		return err
	}
	var complete []results.PointResult
	for p := range points {
		pr := results.PointResult{Params: points[p].Params}
		ok := true
		for r := 0; r < reps; r++ {
			ok = ok && done[p*reps+r]
			pr.Replications = append(pr.Replications, runs[p*reps+r])
		}
		if ok {
			complete = append(complete, pr)
		}
	}
	hdr := sweepHeader(sc, seed)
	stats := results.Aggregate(complete)
	if err := results.WriteSweepDir(dir, hdr, stats); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "wrote %s: %d of %d points, %d replications each\n", dir, len(complete), len(points), reps)
	printSweep(stdout, stats)
	if ctx.Err() != nil {
		return errors.New("interrupted: the points above are complete, the rest were not run")
	}
	return nil
}
