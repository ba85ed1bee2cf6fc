package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/spf13/pflag"

	"overloadsim/record/trace"
	"overloadsim/results"
	"overloadsim/scenarios"
)

// loadScenario resolves a library name or a file path (the default scenario when ref is empty)
// and applies the --set overrides in order.
func loadScenario(ref string, sets []string) (*scenarios.Scenario, error) {
	if ref == "" {
		ref = scenarios.Default()
	}
	var sc *scenarios.Scenario
	var err error
	if slices.Contains(scenarios.Names(), ref) {
		sc, err = scenarios.Lookup(ref)
	} else if _, statErr := os.Stat(ref); statErr == nil {
		sc, err = scenarios.Load(ref)
	} else {
		return nil, usageErrorf("%q is neither a library scenario (%s) nor a file", ref, strings.Join(scenarios.Names(), ", "))
	}
	if err != nil {
		return nil, err
	}
	for _, kv := range sets {
		path, value, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, usageErrorf("--set %q: want path=value", kv)
		}
		if err := sc.Set(strings.TrimSpace(path), strings.TrimSpace(value)); err != nil {
			return nil, fmt.Errorf("--set %s: %w", kv, err)
		}
	}
	return sc, nil
}

// seedOf returns the base seed: --seed when it was given, else the scenario's own.
func seedOf(fs *pflag.FlagSet, seed uint64, sc *scenarios.Scenario) uint64 {
	if fs.Changed("seed") {
		return seed
	}
	return sc.Seed
}

// outDir returns the output folder: --out when it was given, else out/<scenario><suffix>.
func outDir(out string, sc *scenarios.Scenario, suffix string) string {
	if out != "" {
		return out
	}
	return filepath.Join("out", sc.Name+suffix)
}

// interruptible returns a context that Ctrl-C (SIGINT) and SIGTERM cancel: a long command stops
// starting new runs and keeps what finished.
func interruptible() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// scenarioArg returns the optional single SCENARIO|FILE argument.
func scenarioArg(args []string) (string, error) {
	switch len(args) {
	case 0:
		return "", nil
	case 1:
		return args[0], nil
	}
	return "", usageErrorf("want at most one SCENARIO or FILE, got %d arguments", len(args))
}

var runCommand = command{
	summary: "run a scenario, print a summary and write its result files",
	usage: `Usage: simulate run [SCENARIO|FILE] [options]

Runs a scenario (a library name or a YAML file; default: the "spike" scenario), prints a
summary and writes run.json, timeseries.csv and summary.json into the output folder.

Examples:
  simulate run
  simulate run healthy --seed 7 --out out/healthy
  simulate run spike --set 'clients[0].driver.adaptiveRetries=false' --format json
  simulate run spike --trace spike.json --trace-clients 2 --trace-window 10s:12s
  simulate run my-cluster.yaml --out results/today`,
	flags: func(fs *pflag.FlagSet) func([]string, io.Writer, io.Writer) error {
		seed := fs.Uint64("seed", 0, "random seed (default: the scenario's)")
		sets := fs.StringArray("set", nil, "override a scenario field: path=value (repeatable)")
		out := fs.String("out", "", "output folder (default: out/<scenario>)")
		format := fs.String("format", "text", "summary on stdout: text, json or csv (the time series)")
		plotToo := fs.Bool("plot", false, "also draw the figures next to the results")
		traceFile := fs.String("trace", "", "write a Chrome/Perfetto trace-event JSON of a sample of operations to this file")
		traceClients := fs.Int("trace-clients", trace.DefaultClients, "trace the first N clients of each group")
		traceWindow := fs.String("trace-window", "", "trace only this virtual-time window, FROM:TO (e.g. 10s:20s; default: the whole run)")
		return func(args []string, stdout, stderr io.Writer) error {
			ref, err := scenarioArg(args)
			if err != nil {
				return err
			}
			var tw *trace.Writer
			if *traceFile != "" {
				from, to, err := trace.ParseWindow(*traceWindow)
				if err != nil {
					return usageErrorf("--trace-window: %v", err)
				}
				if tw, err = trace.New(trace.Config{Clients: *traceClients, From: from, To: to}); err != nil {
					return usageErrorf("--trace-clients/--trace-window: %v", err)
				}
			}
			if !slices.Contains([]string{"text", "json", "csv"}, *format) {
				return usageErrorf("--format %q: must be text, json or csv", *format)
			}
			sc, err := loadScenario(ref, *sets)
			if err != nil {
				return err
			}
			s := sc.Seed
			if fs.Changed("seed") {
				s = *seed
			}
			opts := runOptions()
			opts.Attach = func(w *scenarios.World) {
				if tw != nil {
					tw.Attach(w.Groups...)
					tw.AddMetadata("scenario", sc.Name)
					tw.AddMetadata("seed", strconv.FormatUint(w.Seed, 10))
				}
			}
			run, err := scenarios.RunWith(sc, s, 0, opts)
			if err != nil {
				return err
			}
			if tw != nil {
				if err := tw.WriteFile(*traceFile); err != nil {
					return err
				}
				fmt.Fprintf(stderr, "wrote trace %s (%d events; open it in ui.perfetto.dev)\n", *traceFile, tw.Len())
				if n := tw.Dropped(); n > 0 {
					fmt.Fprintf(stderr, "trace: event cap reached, %d events dropped\n", n)
				}
			}
			dir := *out
			if dir == "" {
				dir = filepath.Join("out", sc.Name)
			}
			if err := results.WriteRunDir(dir, run); err != nil {
				return err
			}
			fmt.Fprintf(stderr, "wrote %s\n", dir)
			if *plotToo {
				if err := writeFigures(dir, stderr); err != nil {
					return err
				}
			}
			switch *format {
			case "json":
				return writeFileTo(stdout, filepath.Join(dir, "summary.json"))
			case "csv":
				return results.WriteTimeseries(stdout, run.Series)
			}
			printSummary(stdout, run)
			return nil
		}
	},
}

func writeFileTo(w io.Writer, path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

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

var listCommand = command{
	summary: "list the library's scenarios and what each demonstrates",
	usage:   "Usage: simulate list",
	flags: func(fs *pflag.FlagSet) func([]string, io.Writer, io.Writer) error {
		return func(args []string, stdout, _ io.Writer) error {
			if len(args) > 0 {
				return usageErrorf("list takes no arguments, got %q", args)
			}
			for _, name := range scenarios.Names() {
				sc, err := scenarios.Lookup(name)
				if err != nil {
					return err
				}
				mark := " "
				if name == scenarios.Default() {
					mark = "*"
				}
				fmt.Fprintf(stdout, "%s %-24s %s\n", mark, name, sc.Claim)
			}
			fmt.Fprintln(stdout, "\n* the default scenario of simulate run")
			return nil
		}
	},
}

var showCommand = command{
	summary: "print a library scenario's YAML",
	usage:   "Usage: simulate show NAME\n\nPrints the scenario as written; copy it to start a scenario of your own.",
	flags: func(fs *pflag.FlagSet) func([]string, io.Writer, io.Writer) error {
		return func(args []string, stdout, _ io.Writer) error {
			if len(args) != 1 {
				return usageErrorf("want exactly one NAME (%s)", strings.Join(scenarios.Names(), ", "))
			}
			src, err := scenarios.Source(args[0])
			if err != nil {
				return usageErrorf("%v", err)
			}
			_, err = stdout.Write(src)
			return err
		}
	},
}

var validateCommand = command{
	summary: "check scenario files and report every problem",
	usage:   "Usage: simulate validate FILE...\n\nReports every problem of every file as file:line: field: value: rule.",
	flags: func(fs *pflag.FlagSet) func([]string, io.Writer, io.Writer) error {
		return func(args []string, stdout, stderr io.Writer) error {
			if len(args) == 0 {
				return usageErrorf("want at least one FILE")
			}
			bad := 0
			for _, f := range args {
				if _, err := scenarios.Load(f); err != nil {
					bad++
					fmt.Fprintln(stderr, err)
					continue
				}
				fmt.Fprintf(stdout, "%s: ok\n", f)
			}
			if bad > 0 {
				return fmt.Errorf("%d of %d files invalid", bad, len(args))
			}
			return nil
		}
	},
}

var checkCommand = command{
	summary: "compare a run or sweep with a baseline; exit 1 on a regression",
	usage: `Usage: simulate check --baseline FILE [--tolerance metric=x,...] RESULT_DIR
       simulate check --write-baseline FILE RESULT_DIR

Compares the run or sweep in RESULT_DIR with the baseline and names every metric and point
that regressed: goodput below the baseline's confidence band, amplification or p99 latency
above it, each widened by its relative tolerance. --write-baseline makes a baseline instead.

Examples:
  simulate run spike --out out/spike
  simulate check --baseline results/baselines/spike.json out/spike`,
	flags: func(fs *pflag.FlagSet) func([]string, io.Writer, io.Writer) error {
		baseline := fs.String("baseline", "", "baseline file to compare with")
		write := fs.String("write-baseline", "", "write a baseline of RESULT_DIR to this file")
		tol := fs.StringToString("tolerance", nil, "relative tolerances: goodput=0.05,amplification=0.05,p99=0.10")
		return func(args []string, stdout, _ io.Writer) error {
			if len(args) != 1 {
				return usageErrorf("want exactly one RESULT_DIR")
			}
			if (*baseline == "") == (*write == "") {
				return usageErrorf("give exactly one of --baseline and --write-baseline")
			}
			dir := args[0]
			hdr, got, err := readResult(dir)
			if err != nil {
				return err
			}
			if *write != "" {
				if err := results.WriteBaseline(*write, results.NewBaseline(hdr, got)); err != nil {
					return err
				}
				fmt.Fprintf(stdout, "wrote baseline %s (%d points)\n", *write, len(got))
				return nil
			}
			t, err := parseTolerance(*tol)
			if err != nil {
				return err
			}
			b, err := results.LoadBaseline(*baseline)
			if err != nil {
				return err
			}
			regs := results.Check(b, got, t)
			for _, r := range regs {
				fmt.Fprintln(stdout, r)
			}
			if len(regs) > 0 {
				return fmt.Errorf("%d regressions against %s", len(regs), *baseline)
			}
			fmt.Fprintf(stdout, "ok: %s matches %s within tolerance\n", dir, *baseline)
			return nil
		}
	},
}

// readResult reads a run folder (one point, one replication) or a sweep folder.
func readResult(dir string) (results.Header, []results.PointStats, error) {
	if _, err := os.Stat(filepath.Join(dir, "sweep.json")); err == nil {
		return results.ReadSweep(dir)
	}
	hdr, err := results.ReadHeader(dir)
	if err != nil {
		return results.Header{}, nil, err
	}
	pts, err := results.ReadPoints(dir)
	return hdr, pts, err
}

func parseTolerance(m map[string]string) (results.Tolerance, error) {
	t := results.DefaultTolerance
	for k, v := range m {
		var x float64
		if _, err := fmt.Sscan(v, &x); err != nil || x < 0 {
			return t, usageErrorf("--tolerance %s=%s: must be a number ≥ 0", k, v)
		}
		switch k {
		case "goodput":
			t.Goodput = x
		case "amplification":
			t.Amplification = x
		case "p99":
			t.P99 = x
		default:
			return t, usageErrorf("--tolerance %s: unknown metric (goodput, amplification, p99)", k)
		}
	}
	return t, nil
}
