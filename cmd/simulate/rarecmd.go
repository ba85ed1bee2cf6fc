package main

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/overloadsim/overloadsim/experiment"
	rareengine "github.com/overloadsim/overloadsim/experiment/rare"
	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/rare"
	"github.com/overloadsim/overloadsim/scenarios"
)

var rareCommand = command{
	summary: "estimate a rare probability of sticking by multilevel splitting",
	usage: `Usage: simulate rare [SCENARIO|FILE] --score NAME (--levels L1,L2,...,TOP | --pilot TOP) [options]

Estimates P(the score reaches TOP at some interval end within the run) — for a backlog or an
amplification high enough to mean a stuck run — where it is too rare for plain replication, by
fixed-effort multilevel splitting: runs that reach a level are branched into fresh
continuations (the run is replayed to that instant, then every random stream is re-derived),
so each stage estimates a moderate conditional probability and their product the rare one
(method: 'go doc ./analysis/splitting'). It reports the estimate with its 95 % interval and
relative error over --repetitions independent repetitions, the cost in loop events, and, with
--brute-force, plain replication at the same cost for comparison. --pilot TOP chooses the
levels from a pilot run first. Writes rare.json into --out.

Scores: backlog (time-average worker-queue length over an interval, all servers) and
amplification (attempts per operation over an interval).

Examples:
  simulate rare cpu-cut-storm --set 'faults[0].for=4s' --score backlog --levels 20,100,500,2000
  simulate rare spike-collapse --set 'faults[0].for=500ms' --score backlog --pilot 2000 --brute-force`,
	flags: func(fs *pflag.FlagSet) func([]string, io.Writer, io.Writer) error {
		seed := fs.Uint64("seed", 0, "base random seed (default: the scenario's)")
		sets := fs.StringArray("set", nil, "override a scenario field: path=value (repeatable)")
		scoreName := fs.String("score", string(results.ScoreBacklog), "the score observed at every interval end: backlog or amplification")
		levelsText := fs.String("levels", "", "the levels, strictly increasing; the last is the rare event's threshold")
		pilot := fs.Float64("pilot", 0, "choose the levels by a pilot run toward this threshold instead of --levels")
		n := fs.Int("n", 100, "trajectories per stage")
		reps := fs.Int("repetitions", 10, "independent repetitions (their spread gives the interval)")
		brute := fs.Bool("brute-force", false, "also run plain replication at the same cost, for comparison")
		step := fs.Duration("step", 0, "observe the score every STEP (default: the scenario's interval); a finer step lets levels split a storm that builds within an interval")
		from := fs.String("from", "", "observe the score only after this time (default: the start of the scenario's first trigger, or 0s without one)")
		workers := fs.Int("workers", runtime.GOMAXPROCS(0), "runs at once")
		lim := addLimitFlags(fs)
		maxRuns := fs.Int("max-runs", 200_000, "refuse an estimate of more runs than this")
		out := fs.String("out", "", "output folder (default: out/<scenario>-rare)")
		return func(args []string, stdout, stderr io.Writer) error {
			ref, err := scenarioArg(args)
			if err != nil {
				return err
			}
			score, err := results.ParseScore(*scoreName)
			if err != nil {
				return usageErrorf("--score: %v", err)
			}
			levels, err := parseLevels(*levelsText)
			if err != nil {
				return err
			}
			if (len(levels) == 0) == (*pilot == 0) {
				return usageErrorf("give exactly one of --levels and --pilot")
			}
			if *workers < 1 {
				return usageErrorf("--workers %d: must be ≥ 1", *workers)
			}
			sc, err := loadScenario(ref, *sets)
			if err != nil {
				return err
			}
			stages := len(levels)
			if stages == 0 {
				stages = 10 // a pilot's levels are not known yet: assume ten
			}
			what := fmt.Sprintf("%d stages × %d trajectories × %d repetitions", stages, *n, *reps)
			if err := experiment.RefuseRuns(sc, float64(stages)*float64(*n)*float64(*reps), what, *workers, *maxRuns); err != nil {
				return err
			}
			if *step < 0 || *step > sc.Duration {
				return usageErrorf("--step %s: must be in (0s, duration %s]", *step, sc.Duration)
			}
			start, err := observeFrom(sc, *from)
			if err != nil {
				return err
			}
			opts := rareengine.Options{Scenario: sc, Score: score, From: start, Step: *step, Levels: levels,
				Pilot: *pilot, N: *n, Repetitions: *reps, BruteForce: *brute, Workers: *workers, Hooks: experiment.Hooks{Log: stderr}}
			// Each trajectory is recorded at --step: a finer one costs a row per checkpoint.
			if err := lim.CheckCost(sc, rareengine.TrajectoryCost(opts), float64(stages)*float64(*n)*float64(*reps), *workers, what); err != nil {
				return err
			}
			base, dir := seedOf(fs, *seed, sc), outDir(*out, sc, "-rare")
			if err := prepareOut(dir); err != nil {
				return err
			}
			ctx, stop := lim.guard(stderr, func() string { return "the runs in progress" }, "")
			defer stop()
			opts.Header, opts.Seed = experiment.Header(sc, base, label()), base
			r, err := rareengine.Run(ctx, opts)
			if err != nil {
				return err
			}
			if err := rare.Write(dir, r); err != nil {
				return err
			}
			fmt.Fprintf(stderr, "wrote %s\n", dir)
			printRare(stdout, r)
			return nil
		}
	},
}

// observeFrom returns when the score starts to count: the time given, or the start of the
// scenario's first trigger.
func observeFrom(sc *scenarios.Scenario, text string) (time.Duration, error) {
	if text == "" {
		if ws := sc.FaultWindows(); len(ws) > 0 {
			first := ws[0].Start
			for _, w := range ws {
				first = min(first, w.Start)
			}
			return time.Duration(first), nil
		}
		return 0, nil
	}
	d, err := time.ParseDuration(text)
	if err != nil || d < 0 || d >= sc.Duration {
		return 0, usageErrorf("--from %q: want a duration in [0s, duration %s)", text, sc.Duration)
	}
	return d, nil
}

// parseLevels reads a comma-separated list of strictly increasing finite numbers.
func parseLevels(text string) ([]float64, error) {
	if strings.TrimSpace(text) == "" {
		return nil, nil
	}
	var out []float64
	for _, f := range strings.Split(text, ",") {
		x, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, usageErrorf("--levels %q: %q is not a finite number", text, f)
		}
		if len(out) > 0 && x <= out[len(out)-1] {
			return nil, usageErrorf("--levels %q: %g is not above %g: levels must be strictly increasing", text, x, out[len(out)-1])
		}
		out = append(out, x)
	}
	return out, nil
}

// printRare prints the estimate, its stages and the comparison with plain replication.
func printRare(w io.Writer, r rare.Result) {
	fmt.Fprintf(w, "%s: %s\n\n", r.Header.Scenario, r.Describe())
	fmt.Fprintf(w, "%-12s %8s %8s %9s\n", "level", "runs", "hits", "P(next)")
	for _, st := range r.Splitting.Stages {
		fmt.Fprintf(w, "%-12.4g %8d %8d %9.3g\n", st.Level, st.Runs, st.Hits, float64(st.Hits)/float64(max(1, st.Runs)))
	}
}
