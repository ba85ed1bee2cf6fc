package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/overloadsim/overloadsim/calibrate"
	"github.com/overloadsim/overloadsim/field"
	"github.com/overloadsim/overloadsim/results"
)

var calibrateCommand = command{
	summary: "write a scenario of your cluster from its serverStatus documents, or check one against them",
	usage: `Usage: simulate calibrate INPUT... [--out FILE] [--name NAME] [--cores N]
       simulate calibrate --check SCENARIO INPUT...

Reads a production cluster's diagnostic documents and writes a scenario of it: the topology
(standalone, replica set, or mongos nodes and shards), each mongod's workers and service-time
distributions (fitted: exponential, log-normal and gamma, the lowest AIC kept, KS distance
printed), the ingress limiters' settings exactly, and one client group carrying the commands
the cluster served at today's rates. Every fitted field is commented with its source and the
fit's quality; a field the documents cannot give is left at its default and says so.

INPUT is a file or a directory of them (*.json, *.jsonl, *.ejson, *.log), in any combination:
  serverStatus documents, two or more per node taken some seconds apart, as
    mongosh --quiet --eval 'EJSON.stringify(db.serverStatus({opLatencies: {histograms: true}}))'
    prints them (one per line, or one per file; every member and mongos);
  the getParameter output of each node, mongosh --eval 'EJSON.stringify(db.adminCommand({getParameter: "*"}))',
    in the node's directory or named <host>.getParameter.json;
  the structured mongod log (JSON lines): slow-query entries give per-operation service
    times, client-metadata entries the number of client hosts.

With --check, runs SCENARIO at today's load and compares, node by node, each command's rate,
the mean, p50 and p99 server latency of reads and writes, utilisation, connections and limiter
rejections with what the documents showed, each with its tolerance; exit 1 when a point is
outside it. docs/calibration.md maps every metric to its field.

Examples:
  simulate calibrate prod/ --out my.yaml
  simulate calibrate --check my.yaml prod/
  simulate calibrate rs0a.json rs0b.json rs0c.json mongod.log --cores 16 --out my.yaml`,
	flags: func(fs *pflag.FlagSet) func([]string, io.Writer, io.Writer) error {
		out := fs.String("out", "", "write the scenario to FILE (default: standard output, the report to standard error)")
		force := fs.Bool("force", false, "replace --out FILE when it exists")
		name := fs.String("name", "calibrated", "the scenario's name")
		cores := fs.Int("cores", 0, "the hosts' CPU cores: with fewer cores than execution tickets, commands share the cores")
		duration := fs.Duration("duration", 60*time.Second, "the scenario's duration")
		check := fs.String("check", "", "run SCENARIO and compare it with the documents instead of writing one")
		lim := addLimitFlags(fs)
		return func(args []string, stdout, stderr io.Writer) error {
			if len(args) == 0 {
				return usageErrorf("want at least one INPUT: serverStatus, getParameter or mongod log files, or directories of them")
			}
			if *cores < 0 {
				return usageErrorf("--cores %d: must be ≥ 0", *cores)
			}
			if *duration <= 0 {
				return usageErrorf("--duration %s: must be > 0", *duration)
			}
			if *check != "" && *out != "" {
				return usageErrorf("--check compares a scenario; it writes none: leave out --out")
			}
			if *out != "" && !*force && fileExists(*out) {
				return usageErrorf("--out %s: the file exists; add --force to replace it", *out)
			}
			in, err := calibrate.Load(args)
			if err != nil {
				return err
			}
			if *check != "" {
				sc, err := loadScenario(*check, nil)
				if err != nil {
					return err
				}
				if err := lim.Check(sc, 1, 1, ""); err != nil {
					return err
				}
				opts := runOptions()
				opts.Progress = newRunProgress(stderr, "check "+sc.Name).update
				_, unwatch := lim.enforce(context.Background(), stderr)
				cmp, err := calibrate.Check(sc, in, opts)
				unwatch()
				if err != nil {
					return err
				}
				cmp.Print(stdout)
				if !cmp.Agrees() {
					return errors.New("the scenario disagrees with production")
				}
				return nil
			}
			res, err := calibrate.Calibrate(in, calibrate.Options{Name: *name, Cores: *cores, Duration: *duration, Warmup: min(10*time.Second, *duration/2)})
			if fe := (*field.Error)(nil); errors.As(err, &fe) && fe.Field == "--name" {
				return errUsage{err}
			}
			if err != nil {
				return err
			}
			report := stderr
			if *out != "" {
				if err := results.WriteFileAtomic(*out, func(w io.Writer) error { _, err := w.Write(res.YAML); return err }); err != nil {
					return err
				}
				report = stdout
			} else if _, err := stdout.Write(res.YAML); err != nil {
				return err
			}
			printCalibration(report, res, *out)
			return nil
		}
	},
}

// printCalibration is the report of a calibration: what each node showed, the fits, the notes.
func printCalibration(w io.Writer, res *calibrate.Result, out string) {
	for _, win := range res.Windows {
		var cmds []string
		for _, c := range sortedNames(win.Commands) {
			cmds = append(cmds, fmt.Sprintf("%s %.1f/s", c, win.Commands[c].Total))
		}
		util := "utilisation unknown"
		if !math.IsNaN(win.Utilisation) {
			util = fmt.Sprintf("utilisation %.1f %%", 100*win.Utilisation)
		}
		fmt.Fprintf(w, "%s: %s over %s; %s; %.0f connections, %.1f opened/s\n", win.Node.Host, strings.Join(cmds, ", "),
			time.Duration(win.Seconds*float64(time.Second)).Round(time.Millisecond), util, win.Connections.Mean, win.Connections.CreatedPer)
	}
	for _, f := range res.Fits {
		fmt.Fprintf(w, "fit %s %s pool: %s (mean from %s)\n", f.Node, f.Pool, f.Chosen.Dist(), f.MeanFrom)
		for _, t := range f.Tried {
			mark := " "
			if t.Family == f.Chosen.Family {
				mark = "*"
			}
			fmt.Fprintf(w, "   %s %-9s AIC %10.1f  KS %.4f  (%s, n %d)\n", mark, t.Family, t.AIC, t.KS, t.Dist(), t.N)
		}
		if len(f.Tried) == 0 {
			fmt.Fprintf(w, "    shape from %s\n", f.Source)
		}
	}
	for _, n := range res.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	if out != "" {
		fmt.Fprintf(w, "wrote %s; next: simulate calibrate --check %s <the same inputs>\n", out, out)
	}
}

func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
