package main

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/spf13/pflag"

	"github.com/overloadsim/overloadsim/analysis/tipping"
	"github.com/overloadsim/overloadsim/experiment"
	tipexp "github.com/overloadsim/overloadsim/experiment/tip"
	"github.com/overloadsim/overloadsim/field"
	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/tip"
	"github.com/overloadsim/overloadsim/scenarios"
)

var tipCommand = command{
	summary: "find the tipping point: the value of one parameter where runs flip from recovering to sticking",
	usage: `Usage: simulate tip [SCENARIO|FILE] --param PATH --range FROM:TO --precision STEP [options]

Searches FROM..TO for the value of PATH at which P(stuck) after the trigger crosses 1/2, by
noisy bisection: at each probe it runs replications in batches until an exact binomial test
says which side of 1/2 the probe is on, then halves the bracket, until it is at most
--precision wide (the method and its guarantee: 'go doc ./analysis/tipping'). It reports the
boundary with its confidence interval and every probe, and writes tip.json into --out. A range
whose ends come out on one side is an answer too, written and quoted: never stuck up to the end
where runs would stick first (or stuck throughout), with the exact 95 % interval for P(stuck)
there. The values are numbers, rates (2000/s) or durations (5s); --sticks says on which side
runs stick. The answer leads with what needs no model: the value up to which every run
recovered, and the first value where runs stuck, k of n. --plot draws tip.svg and tip.png
(P(stuck) at every value tested, with its interval); 'simulate report DIR' writes the page.

Examples (the first takes about 23 s of CPU time, some 12 s on two free cores):
  simulate tip cpu-cut-storm --param 'faults[0].for' --range 2s:12s --precision 250ms
  simulate tip spike-collapse --param 'clients[0].workload.rate' --range 600/s:1400/s --precision 25/s
  simulate tip pause-collapse --param 'clients[0].appRetry.attempts' --range 1:5 --precision 1`,
	flags: func(fs *pflag.FlagSet) func([]string, io.Writer, io.Writer) error {
		seed := fs.Uint64("seed", 0, "base random seed (default: the scenario's)")
		sets := fs.StringArray("set", nil, "override a scenario field: path=value (repeatable)")
		param := fs.String("param", "", "the field to search (required)")
		span := fs.String("range", "", "the interval to search, FROM:TO (required)")
		precision := fs.String("precision", "", "stop when the bracket is at most this wide (required)")
		sticks := fs.String("sticks", "above", "where runs stick: above or below the boundary")
		trigger := fs.String("trigger", "", "the trigger whose outcome decides (default: the scenario's first)")
		batch := fs.Int("batch", 4, "replications per round at one probe")
		maxReps := fs.Int("max-reps", 40, "replications at most per probe; undecided after that, the probe is a tie")
		confidence := fs.Float64("confidence", 0.95, "confidence level of the reported interval")
		workers := fs.Int("workers", runtime.GOMAXPROCS(0), "runs at once")
		lim := addLimitFlags(fs)
		maxRuns := fs.Int("max-runs", experiment.DefaultMaxRuns, "refuse a search that could take more runs than this")
		out := fs.String("out", "", "output folder (default: out/<scenario>-tip)")
		plotIt := fs.Bool("plot", false, "draw the figure (tip.svg and tip.png: P(stuck) against the parameter) into --out")
		return func(args []string, stdout, stderr io.Writer) error {
			ref, err := scenarioArg(args)
			if err != nil {
				return err
			}
			if *param == "" || *span == "" || *precision == "" {
				return usageErrorf("--param, --range and --precision are required")
			}
			if *sticks != "above" && *sticks != "below" {
				return usageErrorf("--sticks %q: want above or below", *sticks)
			}
			if *workers < 1 {
				return usageErrorf("--workers %d: must be ≥ 1", *workers)
			}
			sc, err := loadScenario(ref, *sets)
			if err != nil {
				return err
			}
			axis, err := tipRange(sc, *param, *span, *precision)
			if err != nil {
				return err
			}
			noteLoadScale(stderr, sc, []string{*param})
			name, err := studyTrigger(sc, *trigger)
			if err != nil {
				return err
			}
			probes := axis.MaxProbes()
			what := fmt.Sprintf("up to %d probes × %d replications", probes, *maxReps)
			if err := experiment.RefuseRuns(sc, float64(probes)*float64(*maxReps), what, *workers, *maxRuns); err != nil {
				return err
			}
			if err := lim.Check(sc, float64(probes)*float64(*maxReps), *workers, what); err != nil {
				return err
			}
			base, dir := seedOf(fs, *seed, sc), outDir(*out, sc, "-tip")
			if err := prepareOut(dir); err != nil {
				return err
			}
			ctx, stop := lim.guard(stderr, func() string { return "the runs in progress" }, "")
			defer stop()
			t, err := tipexp.Run(ctx, tipexp.Options{Scenario: sc, Header: experiment.Header(sc, base, label()), Range: axis,
				Trigger: name, Sticks: *sticks, Batch: *batch, MaxReps: *maxReps, Confidence: *confidence,
				Seed: base, Workers: *workers, Run: runOptions(), Hooks: experiment.Hooks{Log: stderr}})
			var cfgErr *field.Error
			var ends *tipping.EndsError
			switch {
			case errors.As(err, &cfgErr):
				return usageErrorf("%s", tipConfigText(err))
			case errors.As(err, &ends):
				return errors.New(endsText(&axis, ends, *sticks))
			}
			if werr := tip.Write(dir, t); werr != nil {
				return werr
			}
			fmt.Fprintf(stderr, "wrote %s\n", dir)
			printTip(stdout, t)
			if *plotIt {
				if perr := writeFigures(dir, stderr); perr != nil {
					return perr
				}
			}
			if err != nil {
				return fmt.Errorf("%w (the probes above are the evidence so far; %s is marked partial)", err, dir)
			}
			return nil
		}
	},
}

// tipRange reads --param, --range and --precision: both ends numbers of one kind, valid values
// of the field, lo < hi, and a precision of the same kind narrower than the range.
func tipRange(sc *scenarios.Scenario, path, span, precision string) (tipexp.Range, error) {
	from, to, ok := strings.Cut(span, ":")
	if !ok {
		return tipexp.Range{}, usageErrorf("--range %q: want FROM:TO", span)
	}
	lo, k1, ok1 := results.ParseValue(strings.TrimSpace(from))
	hi, k2, ok2 := results.ParseValue(strings.TrimSpace(to))
	if !ok1 || !ok2 || k1 != k2 {
		return tipexp.Range{}, usageErrorf("--range %q: the ends must be numbers of one kind (plain, rates such as 2000/s, or durations such as 5s)", span)
	}
	if !(lo < hi) {
		return tipexp.Range{}, usageErrorf("--range %q: FROM must be below TO", span)
	}
	p, k3, ok3 := results.ParseValue(strings.TrimSpace(precision))
	if !ok3 || k3 != k1 {
		return tipexp.Range{}, usageErrorf("--precision %q: must be of the same kind as the range (%s)", precision, span)
	}
	if !(p > 0) || p >= hi-lo {
		return tipexp.Range{}, usageErrorf("--precision %q: must be > 0 and narrower than the range", precision)
	}
	return tipexp.NewRange(sc, path, k1, lo, hi, p)
}

// endsText says why the search of a could not start, in a's units and the flags' words.
func endsText(a *tipexp.Range, e *tipping.EndsError, sticks string) string {
	tally := func(p tipping.ProbeResult) string {
		s := fmt.Sprintf("%d/%d stuck", p.Stuck, p.Stuck+p.Recovered)
		if p.Undecided > 0 {
			s += fmt.Sprintf(", %d undecided", p.Undecided)
		}
		return s
	}
	lo, hi := e.Lo, e.Hi
	at := fmt.Sprintf("%s=%s (%s) and %s (%s)", a.Path, a.Text(lo.X), tally(lo), a.Text(hi.X), tally(hi))
	switch {
	case lo.Verdict == tipping.Tie || hi.Verdict == tipping.Tie:
		return "no verdict at an end of the range: P(stuck) is 1/2 within the noise at " + at +
			"; widen --range or raise --max-reps"
	}
	other := map[string]string{"above": "below", "below": "above"}[sticks]
	return fmt.Sprintf("the flip runs the other way: %s; runs stick %s the boundary, not %s (--sticks %s)", at, other, sticks, other)
}

// tipConfigText rewords the problems of a tipping.Config, each a *field.Error, in the command's
// flags, one a line.
func tipConfigText(err error) string {
	var lines []string
	for _, p := range field.Parts(err) {
		var e *field.Error
		if !errors.As(p, &e) {
			lines = append(lines, p.Error())
			continue
		}
		flag := map[string]string{"Batch": "--batch", "MaxReps": "--max-reps", "Confidence": "--confidence",
			"Precision": "--precision", "Lo": "--range", "Hi": "--range", "Workers": "--workers"}[e.Field]
		if flag == "" {
			flag = e.Field
		}
		lines = append(lines, fmt.Sprintf("%s %s: %s", flag, e.Value, e.Rule))
	}
	return strings.Join(lines, "\n")
}

// printTip prints the lead (the conservative bound: recovered in every run up to a value, and
// the first value where runs stuck), then the boundary with its interval, and the evidence:
// every probe with the exact 95 % interval for P(stuck) there.
func printTip(w io.Writer, t tip.Result) {
	fmt.Fprintf(w, "%s: %s\n", t.Header.Scenario, t.Lead())
	if t.NoFlip == nil {
		fmt.Fprintf(w, "%s\n", t.Describe())
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%-16s %5s %5s %5s %5s  %-9s  %s\n", t.Param, "reps", "stuck", "rec", "undec", "verdict", "P(stuck), 95 % interval")
	for _, p := range t.Probes {
		fmt.Fprintf(w, "%-16s %5d %5d %5d %5d  %-9s  %s\n", p.Value, p.Replications, p.Stuck, p.Recovered, p.Undecided, p.Verdict, tip.ProbeP(&p))
	}
	for _, warn := range t.Warnings {
		fmt.Fprintf(w, "note: %s\n", warn)
	}
}
