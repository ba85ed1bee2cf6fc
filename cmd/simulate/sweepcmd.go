package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"github.com/overloadsim/overloadsim/experiment"
	sweepexp "github.com/overloadsim/overloadsim/experiment/sweep"
	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/chart"
	"github.com/overloadsim/overloadsim/results/sweep"
	"github.com/overloadsim/overloadsim/scenarios"

	"github.com/spf13/pflag"
)

var sweepCommand = command{
	summary: "vary parameters over replications and write points with confidence intervals",
	usage: `Usage: simulate sweep [SCENARIO|FILE] [options]

Runs every combination of the varied parameters (--vary, or the scenario's sweep block, in
the order given, the first varying slowest), each --replications times on --workers
independent runs, and writes points.csv and sweep.json (mean and 95 % confidence half-width
per metric). The results are the same for any number of workers. Ctrl-C (or SIGTERM) stops the sweep after the runs in progress and
writes the points already complete, marked partial; a second Ctrl-C stops at once. Every
finished run is kept in the folder's units/, so the same command resumes where it stopped.
With --plot, the first numeric parameter is the figures' x axis (or --x) and the other
parameter one line per value; a load sweep's x is the total offered load of all groups, and
parameters are named by short names from the scenario or --label PATH=NAME. --shard i/n runs only shard i of n; 'simulate merge' joins them.

Examples:
  simulate sweep spike --vary 'clients[0].workload.rate=1000/s:4000/s:500/s' --replications 5
  simulate sweep healthy --vary 'topology.nodes[0].service=exp(5ms),lognormal(5ms, 0.5)'
  simulate sweep policy-comparison --workers 2 --out out/policies`,
	flags: func(fs *pflag.FlagSet) func([]string, io.Writer, io.Writer) error {
		seed := fs.Uint64("seed", 0, "base random seed (default: the scenario's)")
		sets := fs.StringArray("set", nil, "override a scenario field: path=value (repeatable)")
		vary := fs.StringArray("vary", nil, "vary a field: path=from:to:step, path=a,b,c or path=[a, b] (a comma inside brackets, braces, parentheses or quotes belongs to its value; repeatable, at most 2)")
		reps := fs.Int("replications", 0, "runs per point (default: the scenario's, else 10)")
		workers := fs.Int("workers", runtime.GOMAXPROCS(0), "runs at once")
		lim := addLimitFlags(fs)
		out := fs.String("out", "", "output folder (default: out/<scenario>-sweep)")
		plotToo := fs.Bool("plot", false, "also draw the figures next to the results")
		slo := fs.Duration("slo", 0, "p99 latency objective for a load sweep's latency knee (default: 2 × the p99 at the lowest load)")
		x := fs.String("x", "", "with --plot: the parameter on the figures' x axis (default: the first numeric one)")
		labels := labelFlag(fs)
		shardSpec := shardFlag(fs)
		format := jsonFormat(fs, "sweep.json")
		return func(args []string, stdout, stderr io.Writer) error {
			ref, err := scenarioArg(args)
			if err != nil {
				return err
			}
			shard, err := parseShard(fs, *shardSpec, *format, *plotToo, "sweep")
			if err != nil {
				return err
			}
			names, err := labels()
			if err != nil {
				return err
			}
			if len(names) > 0 && !*plotToo {
				return usageErrorf("--label names the parameters in the figures: give --plot too, or give --label to 'simulate plot'")
			}
			if len(*vary) > 2 {
				return usageErrorf("--vary: %d parameters: at most 2", len(*vary))
			}
			if *workers < 1 {
				return usageErrorf("--workers %d: must be ≥ 1", *workers)
			}
			if *slo < 0 {
				return usageErrorf("--slo %s: must be ≥ 0 (0: twice the p99 at the lowest load)", *slo)
			}
			if fs.Changed("replications") && *reps < 1 {
				return usageErrorf("--replications %d: must be ≥ 1", *reps)
			}
			sc, err := loadScenario(ref, *sets)
			if err != nil {
				return err
			}
			varied := map[string]string{}
			for _, v := range *vary {
				path, spec, ok := strings.Cut(v, "=")
				if !ok {
					return usageErrorf("--vary %q: want path=from:to:step or path=a,b,c", v)
				}
				if prev, dup := varied[strings.TrimSpace(path)]; dup {
					return usageErrorf("--vary %q: %s is already varied by --vary %q; give each path once", v, strings.TrimSpace(path), prev)
				}
				varied[strings.TrimSpace(path)] = v
				if err := sc.Vary(strings.TrimSpace(path), strings.TrimSpace(spec)); err != nil {
					return err // its message starts with the --vary it came from
				}
			}
			if fs.Changed("replications") {
				if err := sc.Set("sweep.replications", fmt.Sprint(*reps)); err != nil {
					return err
				}
			}
			if _, ok := sc.Sweep.Parameters["seed"]; ok {
				return errSeedParameter
			}
			noteLoadScale(stderr, sc, sc.Sweep.Paths())
			npoints := 1.0
			for _, p := range sc.Sweep.Parameters {
				npoints *= float64(len(p.Values))
			}
			reps := float64(sc.Sweep.Replications)
			runs, what := npoints*reps, fmt.Sprintf("%.0f points × %.0f replications", npoints, reps)
			if shard != nil {
				runs = float64(len(shard.Units(int(runs))))
				what = fmt.Sprintf("shard %s: %.0f of the %s", shard, runs, what)
			}
			if err := lim.Check(sc, runs, *workers, what); err != nil {
				return err
			}
			base, dir := seedOf(fs, *seed, sc), outDir(*out, sc, "-sweep")
			if shard != nil {
				dir = shardDir(*out, sc, "-sweep", *shard)
			}
			if err := prepareOut(dir); err != nil {
				return err
			}
			if shard != nil {
				points, err := sc.Points()
				if err != nil {
					return err
				}
				info := experiment.NewShardInfo(results.KindSweep, experiment.Header(sc, base, label()), *shard, points, sc.Sweep.Replications)
				ctx := sc.SweepLoadContext(points, *slo)
				info.Context, info.Expect = &ctx, judged(sc, len(*sets) > 0 || len(*vary) > 0, stderr)
				return runShard(lim, info, points, base, *workers, dir, nil, stderr)
			}
			exps := judged(sc, len(*sets) > 0 || len(*vary) > 0, stderr)
			err = runSweep(lim, sc, exps, base, *workers, *slo, dir, textOr(*format, stdout), stderr)
			err = printJSONFile(*format, stdout, filepath.Join(dir, results.SweepFile), err)
			if err != nil && !errors.Is(err, errExpectation) {
				return err
			}
			if *plotToo { // a sweep whose claim fails is drawn all the same
				if perr := writeFiguresWith(dir, chart.SweepOptions{X: *x, Labels: names}, stderr); perr != nil {
					return perr
				}
			}
			return err
		}
	},
}

// runSweep runs the sweep (experiment/sweep), keeping its units in dir so that a sweep stopped
// in any way resumes where it stopped, and writes it into dir. Interrupted (SIGINT or SIGTERM),
// it finishes the runs in progress, writes the points whose replications all finished, marked
// partial, and reports the interruption.
func runSweep(lim *limits, sc *scenarios.Scenario, exps []results.Expectation, seed uint64, workers int, slo time.Duration, dir string, stdout, stderr io.Writer) error {
	points, err := sc.Points()
	if err != nil {
		return err
	}
	reps := sc.Sweep.Replications
	hdr := experiment.Header(sc, seed, label())
	var running atomic.Int64
	ctx, stop := lim.guard(stderr, func() string { return fmt.Sprintf("%d runs in progress", running.Load()) },
		fmt.Sprintf("; the runs that finished are kept in %s and the same command resumes the sweep", filepath.Join(dir, results.UnitsDir)))
	defer stop()
	r, err := sweepexp.Run(ctx, sweepexp.Options{Header: hdr, Points: points, Replications: reps, Seed: seed, Workers: workers,
		Run: runOptions(), Expect: exps, Dir: dir,
		Hooks: experiment.Hooks{Log: stderr, Bar: progressBars(stderr), Running: &running}})
	if err != nil {
		return err
	}
	load := sc.SweepLoadContext(points, slo)
	err = writeSweep(dir, hdr, &load, exps, r, reps, stdout, stderr)
	if err != nil && !errors.Is(err, errExpectation) {
		return err
	}
	if werr := r.Written(); werr != nil { // written whole, whatever its verdict
		return werr
	}
	return err
}

// writeSweep writes the sweep r into dir, with the answers of a load sweep judged against ctx,
// and prints its table and answers: the points whose replications all finished, the sweep
// marked partial when some did not, which is then also the error returned.
func writeSweep(dir string, hdr results.Header, ctx *sweep.LoadContext, exps []results.Expectation, r sweepexp.Result, reps int, stdout, stderr io.Writer) error {
	partial := ""
	if r.Partial() {
		partial = fmt.Sprintf("%s: %d of %d points complete (%d of %d runs); run the same sweep into the same folder to finish it",
			stopCause(), len(r.Stats), r.Points, r.Finished, r.Runs)
	}
	ctx = withGroups(ctx, hdr) // a policy decision reads the varied group (printDecision)
	if err := sweep.WriteSweepDir(dir, hdr, r.Stats, partial, ctx, r.Verdicts...); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "wrote %s: %d of %d points, %d replications each\n", dir, len(r.Stats), r.Points, reps)
	printSweep(stdout, r.Stats)
	if ctx != nil {
		printAnswers(stdout, sweep.SweepAnswers(r.Stats, *ctx), *ctx)
	}
	printDecision(stdout, r.Stats, ctx)
	verr := printVerdicts(stdout, exps, r.Verdicts, len(r.Stats), nil)
	if partial != "" {
		return fmt.Errorf("%w: the sweep is partial (%s)", errInterrupted, partial)
	}
	return verr
}

// offeredShown reports whether a sweep's point lines show the total offered load: when a
// parameter is a load (sweep.IsLoadPath) that is not the whole load in operations/s — the
// load factor, or one group's rate while other groups offer theirs — so that every point can
// be read against the answers and the figures, which are in total offered load.
func offeredShown(points []sweep.PointStats) bool {
	if len(points) == 0 {
		return false
	}
	groups := 0
	for _, m := range points[0].Metrics {
		if strings.HasPrefix(m.Name, "group.") && strings.HasSuffix(m.Name, ".offered") {
			groups++
		}
	}
	values := map[string][]string{}
	var paths []string
	for _, p := range points {
		for _, pr := range p.Params {
			if _, ok := values[pr.Path]; !ok {
				paths = append(paths, pr.Path)
			}
			values[pr.Path] = append(values[pr.Path], pr.Value)
		}
	}
	for _, path := range paths {
		if sweep.IsLoadPath(path, values[path]) && (path == "load" || groups > 1) {
			return true
		}
	}
	return false
}
