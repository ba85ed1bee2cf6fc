// Equiv is the equivalence protocol (docs/equivalence.md): it runs every library scenario over
// the same seeds with two simulate binaries, or one binary under two configurations, and tests
// whether every summary metric keeps its distribution. A change allowed to move the event order
// (a faster queue, a reordered draw) changes outputs byte for byte; it must not change them in
// distribution.
//
//	go run ./cmd/equiv --old BIN --new BIN [--seeds N] [--scenarios a,b] [--alpha A] [-j N]
//	    [--report FILE] [--json FILE] [--old-set PATH=VALUE]... [--new-set PATH=VALUE]...
//	    [--max-runs N]
//
// For each scenario and seed s in 1..N it runs "BIN run NAME --seed s --out DIR" on both sides
// (a run whose expect: block fails, exit 3, is still a result), reads summary.json through its
// manifest, and takes every metric that expect: accepts (results.Summary.Metrics). Per scenario
// and metric: identical seed by seed, no test; the fault verdict indicators (fault.*.recovered,
// stuck, undecided) by their shares, Fisher's exact test with Wilson 95 % intervals; every other
// metric by Welch's t-test on the means and the two-sample Kolmogorov–Smirnov test, on the
// finite values; and, where either side has NaN values, Fisher's exact test on the NaN counts.
// Holm–Bonferroni holds the family-wise error at --alpha over every test of the run.
//
// The report (Markdown) is the same bytes for the same inputs, whatever -j. Progress goes to
// stderr. Exit status: 0 no rejection, 1 a rejection or a run that failed, 2 a usage error or
// work refused up front (more than --max-runs runs), 130 interrupted.
//
// The tool lives under cmd/ rather than internal/ because it reads result folders with the
// results package, which the import-direction rule (internal/lint, Layers) lets only the
// layers above results import; internal/... packages are helpers that import only sim.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run is the command: it returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parseArgs(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "equiv:", err)
		return 2
	}
	if err := o.resolve(ctx); err != nil {
		fmt.Fprintln(stderr, "equiv:", err)
		return 2
	}
	if runs := 2 * o.seeds * len(o.scenarios); runs > o.maxRuns {
		fmt.Fprintf(stderr, "equiv: refused: %d runs (%s × %d seeds × 2 sides) exceed --max-runs %d; raise --max-runs, or choose fewer --scenarios or --seeds\n",
			runs, plural(len(o.scenarios), "scenario"), o.seeds, o.maxRuns)
		return 2
	}
	res, err := collect(ctx, o, stderr)
	if ctx.Err() != nil {
		fmt.Fprintln(stderr, "equiv: interrupted; no report written")
		return 130
	}
	if err != nil {
		fmt.Fprintln(stderr, "equiv:", err)
		return 1
	}
	rep := compare(o, res)
	if err := rep.write(o, stdout); err != nil {
		fmt.Fprintln(stderr, "equiv:", err)
		return 1
	}
	fmt.Fprintln(stderr, "equiv:", rep.summaryLine())
	if rep.Rejected > 0 {
		return 1
	}
	return 0
}
