package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/spf13/pflag"

	"github.com/overloadsim/overloadsim/experiment"
	mapexp "github.com/overloadsim/overloadsim/experiment/phasemap"
	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/chart"
	"github.com/overloadsim/overloadsim/results/phasemap"
	"github.com/overloadsim/overloadsim/scenarios"
)

var mapCommand = command{
	summary: "map where an overload sticks: P(stuck) over a grid of two or three parameters",
	usage: `Usage: simulate map [SCENARIO|FILE] --vary PATH=VALUES --vary PATH=VALUES [--vary PATH=VALUES] [options]

Runs the scenario at every cell of a grid of two or three numeric parameters, --replications
times each, and decides after the trigger (--trigger, default the scenario's first) whether each
run recovered, stuck or was undecided (the rule: 'simulate help metrics'). Writes
map.csv and map.json (P(stuck) with its 95 % Wilson interval and the median recovery time per
cell) and prints where the outcome flips. The first --vary is the map's y axis, the second its
x axis, a third makes small multiples; the results are the same for any number of workers.

Examples:
  simulate map cpu-cut-storm --vary 'faults[0].speed=0.3:0.7:0.1' --vary 'faults[0].for=2s:12s:2s' --replications 5 --plot
  simulate map spike-collapse --vary 'faults[0].factor=1.5:3:0.5' --vary 'faults[0].for=5s:20s:5s' \
      --vary 'clients[0].workload.rate=1000/s,1500/s'`,
	flags: func(fs *pflag.FlagSet) func([]string, io.Writer, io.Writer) error {
		seed := fs.Uint64("seed", 0, "base random seed (default: the scenario's)")
		sets := fs.StringArray("set", nil, "override a scenario field: path=value (repeatable)")
		vary := fs.StringArray("vary", nil, "an axis: path=from:to:step or path=a,b,c (2 or 3 of them, numeric values)")
		trigger := fs.String("trigger", "", "the trigger whose outcome is mapped (default: the scenario's first)")
		reps := fs.Int("replications", 5, "runs per cell")
		workers := fs.Int("workers", runtime.GOMAXPROCS(0), "runs at once")
		lim := addLimitFlags(fs)
		maxRuns := fs.Int("max-runs", experiment.DefaultMaxRuns, "refuse a map of more runs than this")
		out := fs.String("out", "", "output folder (default: out/<scenario>-map)")
		plotToo := fs.Bool("plot", false, "also draw the heat map next to the results")
		labels := labelFlag(fs)
		shardSpec := shardFlag(fs)
		format := jsonFormat(fs, "map.json")
		return func(args []string, stdout, stderr io.Writer) error {
			ref, err := scenarioArg(args)
			if err != nil {
				return err
			}
			shard, err := parseShard(fs, *shardSpec, *format, *plotToo, "map")
			if err != nil {
				return err
			}
			names, err := labels()
			if err != nil {
				return err
			}
			if len(names) > 0 && !*plotToo {
				return usageErrorf("--label names the heat map's axes: give it with --plot (or to 'simulate plot' later)")
			}
			if n := len(*vary); n < 2 || n > 3 {
				return usageErrorf("--vary: %d axes: a map has 2 or 3", n)
			}
			if *reps < 1 {
				return usageErrorf("--replications %d: must be ≥ 1", *reps)
			}
			if *workers < 1 {
				return usageErrorf("--workers %d: must be ≥ 1", *workers)
			}
			sc, err := loadScenario(ref, *sets)
			if err != nil {
				return err
			}
			axes, err := mapAxes(sc, *vary)
			if err != nil {
				return err
			}
			noteLoadScale(stderr, sc, axisPaths(axes))
			name, err := studyTrigger(sc, *trigger)
			if err != nil {
				return err
			}
			cells := 1
			for _, a := range axes {
				cells *= len(a.Values)
			}
			what := fmt.Sprintf("%d cells × %d replications", cells, *reps)
			runs := float64(cells) * float64(*reps)
			if shard != nil { // the limits are this machine's: they apply to its shard
				runs = float64(len(shard.Units(cells * *reps)))
				what = fmt.Sprintf("shard %s: %.0f of the %s", shard, runs, what)
			}
			if err := experiment.RefuseRuns(sc, runs, what, *workers, *maxRuns); err != nil {
				return err
			}
			if err := lim.Check(sc, runs, *workers, what); err != nil {
				return err
			}
			base, dir := seedOf(fs, *seed, sc), outDir(*out, sc, "-map")
			if shard != nil {
				dir = shardDir(*out, sc, "-map", *shard)
				if err := prepareOut(dir); err != nil {
					return err
				}
				points, err := sc.Grid(axes)
				if err != nil {
					return err
				}
				info := experiment.NewShardInfo(results.KindMap, experiment.Header(sc, base, label()), *shard, points, *reps)
				info.Trigger, info.Axes = name, axes
				return runShard(lim, info, points, base, *workers, dir, nil, stderr)
			}
			if err := prepareOut(dir); err != nil {
				return err
			}
			ctx, stop := lim.guard(stderr, func() string { return "the runs in progress" }, "")
			defer stop()
			m, err := mapexp.Run(ctx, mapexp.Options{Scenario: sc, Header: experiment.Header(sc, base, label()), Axes: axes,
				Trigger: name, Replications: *reps, Seed: base, Workers: *workers, Run: runOptions(),
				Hooks: experiment.Hooks{Bar: progressBars(stderr)}})
			if err != nil {
				return err
			}
			err = writeMap(dir, m, *plotToo, names, textOr(*format, stdout), stderr)
			return printJSONFile(*format, stdout, filepath.Join(dir, results.MapFile), err)
		}
	},
}

// mapAxes checks and expands the --vary axes: each path a scenario field, each value set
// numeric and of one kind, every value valid. The scenario's own sweep block is dropped: the map's
// axes replace it.
func mapAxes(sc *scenarios.Scenario, vary []string) ([]results.Axis, error) {
	if len(sc.Sweep.Parameters) > 0 {
		if err := sc.Set("sweep.parameters", "null"); err != nil {
			return nil, err
		}
	}
	var axes []results.Axis
	for _, v := range vary {
		path, spec, ok := strings.Cut(v, "=")
		path, spec = strings.TrimSpace(path), strings.TrimSpace(spec)
		if !ok || path == "" || spec == "" {
			return nil, usageErrorf("--vary %q: want path=from:to:step or path=a,b,c", v)
		}
		for _, a := range axes {
			if a.Path == path {
				return nil, usageErrorf("--vary %s: the path is already an axis", path)
			}
		}
		if path == "seed" {
			return nil, errSeedParameter
		}
		if err := sc.Vary(path, spec); err != nil {
			return nil, err // its message starts with the --vary it came from
		}
		values := sc.Sweep.Parameters[path].Values
		if _, _, _, ok := results.ParseValues(values); !ok {
			return nil, usageErrorf("--vary %s: %s: a map axis must be numbers of one kind (plain, rates such as 2000/s, or durations such as 5s)", path, strings.Join(values, ","))
		}
		if len(values) < 2 {
			return nil, usageErrorf("--vary %s: %d value: a map axis needs at least 2", v, len(values))
		}
		axes = append(axes, results.Axis{Path: path, Values: values})
	}
	return axes, nil
}

// studyTrigger returns the trigger a map or a tipping-point search judges (experiment.Trigger),
// a missing one a usage error in the command's words.
func studyTrigger(sc *scenarios.Scenario, want string) (string, error) {
	name, err := experiment.Trigger(sc, want)
	var te *experiment.TriggerError
	switch {
	case !errors.As(err, &te):
		return name, err
	case len(te.Names) == 0:
		return "", usageErrorf("scenario %s has no trigger (a fault, or a spike, step or ramp in a group's rate): nothing to recover from", sc.Name)
	}
	return "", usageErrorf("--trigger %q: the scenario's triggers are %s", want, strings.Join(te.Names, ", "))
}

// writeMap writes the map into dir, draws its heat map when plot is set (its axes named by
// labels, --label), and prints it.
func writeMap(dir string, m phasemap.Map, plot bool, labels map[string]string, stdout, stderr io.Writer) error {
	if err := phasemap.Write(dir, m); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "wrote %s\n", dir)
	if plot {
		if err := writeFiguresWith(dir, chart.SweepOptions{Labels: labels}, stderr); err != nil {
			return err
		}
	}
	printMap(stdout, m)
	if m.Partial {
		return fmt.Errorf("%w: the map is partial (cells with 0 replications were not run)", errInterrupted)
	}
	return nil
}

// printMap prints the map's summary paragraph and a table of its cells: P(stuck) as k/n with
// its 95 % interval, and "holds ½" where that interval holds ½ (chart.Straddles): the cell's
// replications do not say on which side of the boundary it lies.
func printMap(w io.Writer, m phasemap.Map) {
	fmt.Fprintf(w, "%s: P(stuck) after %s, %d cells\n\n", m.Header.Scenario, m.Trigger, len(m.Cells))
	for _, a := range m.Axes {
		fmt.Fprintf(w, "%-28s ", a.Path)
	}
	fmt.Fprintf(w, "%5s %5s %5s %5s  %-28s %s\n", "reps", "rec", "stuck", "undec", "P(stuck) = k/n [95 %]", "median recovery")
	for _, c := range m.Cells {
		for _, p := range c.Params {
			fmt.Fprintf(w, "%-28s ", p.Value)
		}
		p, rec := "-", "-"
		if c.Replications > 0 && !math.IsNaN(c.PStuck) {
			p = fmt.Sprintf("%.2f = %d/%d [%.2f, %.2f]", c.PStuck, c.Stuck, c.Stuck+c.Recovered, c.PStuckLo, c.PStuckHi)
		}
		if !math.IsNaN(c.RecoveryMedian) {
			rec = fmt.Sprintf("%.1f s", c.RecoveryMedian)
		}
		if chart.Straddles(&c) {
			rec += "  (holds ½)"
		}
		fmt.Fprintf(w, "%5d %5d %5d %5d  %-28s %s\n", c.Replications, c.Recovered, c.Stuck, c.Undecided, p, rec)
	}
	fmt.Fprintf(w, "\n%s\n", phasemap.Summary(m))
}
