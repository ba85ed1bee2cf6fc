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
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/overloadsim/overloadsim/lab/experiment"
	"github.com/overloadsim/overloadsim/lab/harness"
	"github.com/overloadsim/overloadsim/lab/record"
)

func init() {
	commands["run"] = command{
		summary: "run experiments against a real driver release: --release go-2.10.0 [--experiments DIR] [--out DIR] [NAME...]",
		run:     runCmd,
	}
}

func runCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	release := fs.String("release", "", "the driver release to run: go-<x.y.z> or node-<x.y.z> (required)")
	expDir := fs.String("experiments", "", "the experiments' folder (default: the lab's experiments)")
	outDir := fs.String("out", "", "where records go, as DIR/<release>/<experiment>.json (default: the lab's records)")
	lines := fs.Bool("lines", false, "also write the runner's outcome lines, messages included, as <experiment>.lines.jsonl")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: lab run --release go-2.10.0 [--experiments DIR] [--out DIR] [NAME...]")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *release == "" {
		return usageError{errors.New("--release: required (go-<x.y.z> or node-<x.y.z>)")}
	}
	lab, err := labFolders(map[*string]string{expDir: "experiments", outDir: "records"})
	if err != nil {
		return err
	}
	runner, err := harness.Release(lab, *release)
	if err != nil {
		return usageError{err}
	}
	exps, err := selectExperiments(*expDir, fs.Args())
	if err != nil {
		return err
	}
	dir := filepath.Join(*outDir, runner.Release())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var failed []string
	for _, e := range exps {
		t0 := time.Now()
		res, err := harness.Execute(ctx, e, runner)
		if err == nil && *lines {
			err = writeLines(filepath.Join(dir, e.Name+".lines.jsonl"), res.Lines)
		}
		if err == nil {
			err = writeFile(filepath.Join(dir, e.Name+".json"), recordJSON(res.Record))
		}
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", e.Name, err)
			failed = append(failed, e.Name)
			if ctx.Err() != nil {
				return fmt.Errorf("interrupted at %s", e.Name)
			}
			var be *harness.BuildError
			if errors.As(err, &be) { // every other experiment would fail the same way
				return fmt.Errorf("%s: the runner could not be built", runner.Release())
			}
			continue
		}
		fmt.Fprintf(stdout, "%-28s %s  (%.1fs)\n", e.Name, summary(res.Record), time.Since(t0).Seconds())
	}
	if len(failed) > 0 {
		return fmt.Errorf("%s: %d of %d experiments failed: %s", runner.Release(), len(failed), len(exps), strings.Join(failed, ", "))
	}
	return nil
}

// selectExperiments loads every experiment in dir, or only those named, in the order named.
func selectExperiments(dir string, names []string) ([]*experiment.Experiment, error) {
	if len(names) == 0 {
		return experiment.LoadDir(dir)
	}
	var out []*experiment.Experiment
	var errs []error
	for _, n := range names {
		e, err := experiment.Load(filepath.Join(dir, n+".json"))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, e)
	}
	return out, errors.Join(errs...)
}

// summary is one line about a record: the histogram of attempts per operation, the outcome
// classes (with the code when not ok), and the application handshakes.
func summary(rec *record.Record) string {
	attempts := map[int]int{}
	outcomes := map[string]int{}
	for _, op := range rec.Ops {
		attempts[len(op.Attempts)]++
		c := op.Outcome.Class
		if op.Outcome.Code != 0 {
			c += fmt.Sprintf("(%d)", op.Outcome.Code)
		}
		outcomes[c]++
	}
	var a []string
	keys := make([]int, 0, len(attempts))
	for k := range attempts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		a = append(a, fmt.Sprintf("%d×%d", k, attempts[k]))
	}
	var o []string
	for c, n := range outcomes {
		o = append(o, fmt.Sprintf("%s×%d", c, n))
	}
	sort.Strings(o)
	return fmt.Sprintf("attempts %s  outcomes %s  handshakes %d",
		strings.Join(a, " "), strings.Join(o, " "), len(rec.Handshakes))
}

// recordJSON is a record as written: indented JSON with a trailing newline.
func recordJSON(rec *record.Record) func() ([]byte, error) {
	return func() ([]byte, error) {
		b, err := json.MarshalIndent(rec, "", "  ")
		return append(b, '\n'), err
	}
}

// writeLines writes the runner's lines, one JSON object a line.
func writeLines(path string, lines []harness.Line) error {
	return writeFile(path, func() ([]byte, error) {
		var b []byte
		for _, l := range lines {
			j, err := json.Marshal(l)
			if err != nil {
				return nil, err
			}
			b = append(append(b, j...), '\n')
		}
		return b, nil
	})
}

// writeFile writes the bytes content makes through a temporary file in the same folder, renamed
// into place, so an interrupted run leaves no complete-looking file.
func writeFile(path string, content func() ([]byte, error)) error {
	b, err := content()
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() { _ = os.Remove(tmp) }() // after a successful rename there is nothing to remove
	if _, err := f.Write(b); err != nil {
		_ = f.Close()
		return err
	}
	// CreateTemp makes the file private; a record is as readable as any file written.
	if err := f.Chmod(0o644); err != nil {
		_ = f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
