package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/overloadsim/overloadsim/bench"
	"github.com/overloadsim/overloadsim/record"
	"github.com/overloadsim/overloadsim/record/trace"
	"github.com/overloadsim/overloadsim/results"

	"github.com/spf13/pflag"
)

var runCommand = command{
	summary: "run a scenario, print a summary and write its result files",
	usage: `Usage: simulate run [SCENARIO|FILE] [options]

Runs a scenario (a library name, a YAML file, or - for standard input; default: the "spike"
scenario), prints a summary and writes run.json, timeseries.csv and summary.json into the
output folder.

With --serverstatus DIR it also writes what production's monitoring would have collected from
each MongoDB node: DIR/<node>/serverStatus.json, one db.serverStatus() document per line in
relaxed Extended JSON (one at time 0, before the load, then one at the end of every interval),
and DIR/<node>/getParameter.json, the node's ingress limiter and execution ticket settings.
The export changes nothing else the run writes. It is written whole or not at all, and not for
a run stopped before its horizon. DIR must be new or empty; --force replaces an export simulate
wrote there before, and nothing else.

Examples:
  simulate run
  simulate run healthy --seed 7 --out out/healthy
  simulate run spike --set 'clients[0].driver.adaptiveRetries=false' --format json
  simulate run spike --trace spike.json --trace-clients 2 --trace-window 10s:12s
  simulate run sharded-layered-retries --serverstatus out/export
  simulate run my-cluster.yaml --out results/today
  simulate show spike | simulate run - --set duration=30s`,
	flags: func(fs *pflag.FlagSet) func([]string, io.Writer, io.Writer) error {
		seed := fs.Uint64("seed", 0, "random seed (default: the scenario's)")
		sets := fs.StringArray("set", nil, "override a scenario field: path=value (repeatable)")
		out := fs.String("out", "", "output folder (default: out/<scenario>)")
		format := fs.String("format", "text", "summary on stdout: text, json or csv (the time series)")
		plotToo := fs.Bool("plot", false, "also draw the figures next to the results")
		lim := addLimitFlags(fs)
		traceFile := fs.String("trace", "", "write a Chrome/Perfetto trace-event JSON of a sample of operations to this file (.gz: compressed; -: stdout, the summary then on stderr)")
		traceClients := fs.Int("trace-clients", trace.DefaultClients, "trace the first N clients of each group")
		traceWindow := fs.String("trace-window", "", "trace only this virtual-time window, FROM:TO (e.g. 10s:20s; default: the whole run)")
		statusDir := fs.String("serverstatus", "", "also write each MongoDB node's serverStatus documents and getParameter settings into this folder, DIR/<node>/")
		force := fs.Bool("force", false, "with --serverstatus: replace the export an earlier run wrote into its folder")
		return func(args []string, stdout, stderr io.Writer) error {
			ref, err := scenarioArg(args)
			if err != nil {
				return err
			}
			for _, f := range []string{"trace-window", "trace-clients"} {
				if fs.Changed(f) && *traceFile == "" {
					return usageErrorf("--%s %s without --trace: it chooses what the trace records, and there is no trace; give --trace FILE too, or leave --%s out",
						f, fs.Lookup(f).Value, f)
				}
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
			if fs.Changed("force") && *statusDir == "" {
				return usageErrorf("--force without --serverstatus: it lets an export replace an earlier one, and there is no export; give --serverstatus DIR too, or leave --force out")
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
			if err := lim.Check(sc, 1, 1, ""); err != nil {
				return err
			}
			dir := *out
			if dir == "" {
				dir = filepath.Join("out", sc.Name)
			}
			// Before the run, not after it: a run is never thrown away for want of a folder.
			if err := prepareOut(dir); err != nil {
				return err
			}
			if *traceFile != "" && *traceFile != "-" {
				if err := checkWritable(*traceFile, false); err != nil {
					return fmt.Errorf("--trace: %w", err)
				}
			}
			if *traceFile == "-" && *format != "text" {
				return usageErrorf("--trace - writes the trace on stdout: it cannot go with --format %s", *format)
			}
			var status *record.StatusLog
			if *statusDir != "" {
				if err := checkStatusDir(*statusDir, dir, sc, *force); err != nil {
					return err
				}
				status = &record.StatusLog{}
			}
			opts := runOptions()
			opts.ServerStatus = status
			opts.Progress = newRunProgress(stderr, "run "+sc.Name).update
			opts.Attach = func(w *bench.World) {
				if tw != nil {
					tw.Attach(w.Groups...)
					tw.AddMetadata("scenario", sc.Name)
					tw.AddMetadata("seed", strconv.FormatUint(w.Seed, 10))
				}
			}
			_, unwatch := lim.enforce(context.Background(), stderr)
			run, err := bench.RunWith(sc, s, 0, opts)
			unwatch()
			stopped := errors.Is(err, bench.ErrStopped)
			if err != nil && !stopped {
				return err
			}
			if stopped {
				// What ran is kept, marked partial with the limit it crossed.
				run.Partial = stopCause() + "; " + run.Partial
			}
			exps := judged(sc, len(*sets) > 0, stderr)
			run.Summary.Verdicts = results.JudgeRun(exps, run.Summary.Expected)
			if tw != nil {
				tw.AddCounters(run.Series)
				if *traceFile == "-" {
					// The trace is the output; the summary goes with the diagnostics.
					if _, err := tw.WriteTo(stdout); err != nil {
						return err
					}
					stdout = stderr
				} else if err := tw.WriteFile(*traceFile); err != nil {
					return err
				}
				fmt.Fprintf(stderr, "wrote trace %s (%d events; open it in ui.perfetto.dev)\n", *traceFile, tw.Len())
				if n := tw.Dropped(); n > 0 {
					fmt.Fprintf(stderr, "trace: event cap reached, %d events dropped\n", n)
				}
			}
			if err := results.WriteRunDir(dir, run); err != nil {
				return err
			}
			fmt.Fprintf(stderr, "wrote %s\n", dir)
			switch {
			case status != nil && stopped:
				fmt.Fprintf(stderr, "--serverstatus: %s not written: the run stopped before its horizon\n", *statusDir)
			case status != nil:
				if err := writeStatusDir(*statusDir, status, *force); err != nil {
					return err
				}
				fmt.Fprintf(stderr, "wrote %s (serverStatus of %d node%s)\n", *statusDir, len(status.Nodes), plural(len(status.Nodes)))
			}
			if stopped {
				return fmt.Errorf("%s: %s holds the run so far, marked partial", run.Partial, dir)
			}
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
			printSummary(stdout, run, whereToday(sc.LoadContext(0)))
			return printVerdicts(stdout, exps, run.Summary.Verdicts, 0, run.Summary.Expected)
		}
	},
}
