package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/overloadsim/overloadsim/client/retry"
	"github.com/overloadsim/overloadsim/lab/compare"
	"github.com/overloadsim/overloadsim/lab/experiment"
	"github.com/overloadsim/overloadsim/lab/harness"
	"github.com/overloadsim/overloadsim/lab/record"
	"github.com/overloadsim/overloadsim/lab/simreplay"
)

func init() {
	commands["check"] = command{
		summary: "compare a release with the simulator's preset of it: --release go-2.10.0 [--recorded] [--policy P] [--out DIR] [NAME...]",
		run:     checkCmd,
	}
	commands["sim"] = command{
		summary: "replay experiments through the simulator: --policy go-2.10.0 [--seed N] [--out DIR] [NAME...]",
		run:     simCmd,
	}
}

// checkCmd measures a real release (or reads its committed records), replays every experiment
// through the simulator with the preset of the same name, and compares them rule by rule. Any
// difference exits 1.
func checkCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	release := fs.String("release", "", "the driver release: go-<x.y.z> or node-<x.y.z> (required)")
	policy := fs.String("policy", "", "the simulator's policy to compare with (default: the preset named as the release)")
	recorded := fs.Bool("recorded", false, "compare the committed records instead of measuring the release now")
	seed := fs.Uint64("seed", 1, "the simulator's seed")
	expDir := fs.String("experiments", "", "the experiments' folder (default: the lab's experiments)")
	recDir := fs.String("records", "", "the records' folder, DIR/<release>/<experiment>.json (default: the lab's records)")
	outDir := fs.String("out", "", "also write both records to DIR/<release>/ and DIR/sim-<policy>/")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: lab check --release go-2.10.0 [--recorded] [--policy P] [--out DIR] [NAME...]")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *release == "" {
		return usageError{errors.New("--release: required (go-<x.y.z> or node-<x.y.z>)")}
	}
	if *policy == "" {
		if !retry.Release(*release) {
			return usageError{fmt.Errorf("--release %s: the simulator has no preset of this release; name one to compare with in --policy", *release)}
		}
		*policy = *release
	}
	lab, err := labFolders(map[*string]string{expDir: "experiments", recDir: "records"})
	if err != nil {
		return err
	}
	exps, err := selectExperiments(*expDir, fs.Args())
	if err != nil {
		return err
	}
	var runner harness.Runner
	if !*recorded {
		if runner, err = harness.Release(lab, *release); err != nil {
			return usageError{err}
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	sim := simreplay.Options{Policy: *policy, Seed: *seed}
	var differ []string
	for _, e := range exps {
		real, err := realRecord(ctx, e, runner, filepath.Join(*recDir, *release, e.Name+".json"))
		if err != nil {
			return fmt.Errorf("%s: %w", e.Name, err)
		}
		replayed, err := simreplay.Replay(e, sim)
		if err != nil {
			return fmt.Errorf("%s: the simulator: %w", e.Name, err)
		}
		if *outDir != "" {
			for _, r := range []*record.Record{real, replayed} {
				if err := writeRecord(*outDir, r); err != nil {
					return err
				}
			}
		}
		rep := compare.Compare(e, real, replayed)
		fmt.Fprintln(stdout, rep.String())
		if !rep.Agrees() {
			differ = append(differ, e.Name)
		}
	}
	if len(differ) > 0 {
		return fmt.Errorf("%s and the simulator's %s differ on %d of %d experiments: %s",
			*release, *policy, len(differ), len(exps), strings.Join(differ, ", "))
	}
	fmt.Fprintf(stdout, "%s and the simulator's %s agree on all %d experiments\n", *release, *policy, len(exps))
	return nil
}

// realRecord measures e against the release (runner), or reads its committed record when runner
// is nil.
func realRecord(ctx context.Context, e *experiment.Experiment, runner harness.Runner, file string) (*record.Record, error) {
	if runner != nil {
		return harness.Run(ctx, e, runner)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("no record of the release (measure it with lab run): %w", err)
	}
	var r record.Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if r.Experiment != e.Name {
		return nil, fmt.Errorf("%s: experiment: %q: the record is of another experiment", file, r.Experiment)
	}
	return &r, nil
}

// simCmd writes the simulator's records of the experiments.
func simCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("sim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	policy := fs.String("policy", "", "the simulator's retry policy or release preset (required)")
	seed := fs.Uint64("seed", 1, "the simulator's seed")
	expDir := fs.String("experiments", "", "the experiments' folder (default: the lab's experiments)")
	outDir := fs.String("out", "", "where records go, as DIR/sim-<policy>/<experiment>.json (default: print summaries only)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *policy == "" {
		return usageError{errors.New("--policy: required")}
	}
	if _, err := labFolders(map[*string]string{expDir: "experiments"}); err != nil {
		return err
	}
	exps, err := selectExperiments(*expDir, fs.Args())
	if err != nil {
		return err
	}
	for _, e := range exps {
		r, err := simreplay.Replay(e, simreplay.Options{Policy: *policy, Seed: *seed})
		if err != nil {
			return fmt.Errorf("%s: %w", e.Name, err)
		}
		if *outDir != "" {
			if err := writeRecord(*outDir, r); err != nil {
				return err
			}
		}
		fmt.Fprintf(stdout, "%-28s %s\n", e.Name, summary(r))
	}
	return nil
}
