package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/pflag"

	"github.com/overloadsim/overloadsim/bench"
	"github.com/overloadsim/overloadsim/experiment"
	tuneexp "github.com/overloadsim/overloadsim/experiment/tune"
	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/tune"
	"github.com/overloadsim/overloadsim/scenarios"
)

// defaultMaxCandidates is how many candidates the coarse grid of a tuning may have without
// --max-candidates.
const defaultMaxCandidates = 1000

var tuneCommand = command{
	summary: "search parameters for the setting that optimises a metric under constraints, with evidence",
	usage: `Usage: simulate tune [SCENARIO|FILE] --tune PATH=LO:HI[:STEPS|log] ... (--maximize|--minimize) METRIC
                     [--subject-to 'METRIC<=X' ...] [--window FROM:TO] [options]

Searches the tuned fields for the setting with the best mean of one metric whose means meet
every constraint. It runs a coarse grid (STEPS values of each field from LO to HI, default 5,
evenly or, with log, geometrically; integer fields take whole values), every candidate
--replications times with common random numbers (replication r of every candidate has the same
seed), then --refine rounds of a finer grid between the best feasible candidate's neighbours.
Metrics are named and measured as in a scenario's expect: block ('simulate help metrics'):
total.goodput, group.NAME.amplification, group.NAME.latency_ok_p99, server.NAME.reject_share,
fault.NAME.recovery_time, …, over the measured window, --window FROM:TO, or a window of their own
(METRIC@FROM:TO). A constraint compares the mean with <=, >=, < or >, in the metric's unit
(seconds for a latency; 200ms and 900/s are read too). Prints the recommendation with every
metric's mean ± 95 % confidence half-width, the runners-up whose objective interval overlaps it,
and what each constraint excluded; writes tune.json and candidates.csv into --out, and with
--plot the Pareto figure (tune-pareto.svg and .png). The results are the same for any number of
workers. When no candidate meets the constraints it says which one excluded everything and the
closest any candidate came, and writes nothing.

Examples:
  simulate tune policy-comparison --tune 'clients[4].driver.maxAdaptiveRetries=0:4:3' \
      --maximize group.v2026-07.goodput --subject-to 'group.v2026-07.amplification<=1.8' --plot
  simulate tune sustained-overload --tune 'topology.nodes[0].ingressRequestAdmissionRatePerSec=500/s:2000/s' \
      --maximize total.goodput --subject-to 'total.latency_ok_p99<=150ms' --refine 2
  simulate tune spike --set 'clients[1].driver={retryPolicy: mongodb-2026-07}' --window 10s:30s \
      --tune 'clients[1].driver.maxAdaptiveRetries=0:5:6' --minimize total.latency_ok_p99 \
      --subject-to 'total.amplification<=2'`,
	flags: func(fs *pflag.FlagSet) func([]string, io.Writer, io.Writer) error {
		seed := fs.Uint64("seed", 0, "base random seed (default: the scenario's)")
		sets := fs.StringArray("set", nil, "override a scenario field: path=value (repeatable)")
		tunes := fs.StringArray("tune", nil, "a field to tune: PATH=LO:HI, PATH=LO:HI:STEPS, PATH=LO:HI:log or PATH=LO:HI:STEPS:log (repeatable)")
		maximize := fs.String("maximize", "", "the metric to maximise (as in expect: blocks; METRIC@FROM:TO for a window of its own)")
		minimize := fs.String("minimize", "", "the metric to minimise")
		subject := fs.StringArray("subject-to", nil, "a constraint on a candidate's mean: METRIC<=X, METRIC>=X, METRIC<X or METRIC>X (repeatable)")
		window := fs.String("window", "", "measure over the intervals within [FROM, TO) of each run, e.g. 10s:30s (default: the measured window)")
		reps := fs.Int("replications", 0, "runs per candidate (default: the scenario's, else 10)")
		refine := fs.Int("refine", 1, "refinement rounds around the best feasible candidate")
		workers := fs.Int("workers", runtime.GOMAXPROCS(0), "runs at once")
		lim := addLimitFlags(fs)
		maxRuns := fs.Int("max-runs", experiment.DefaultMaxRuns, "refuse a tuning that could take more runs than this")
		maxCands := fs.Int("max-candidates", defaultMaxCandidates, "refuse a coarse grid of more candidates than this")
		out := fs.String("out", "", "output folder (default: out/<scenario>-tune)")
		plotToo := fs.Bool("plot", false, "also draw the Pareto figure next to the results")
		shardSpec := shardFlag(fs)
		format := jsonFormat(fs, "tune.json")
		return func(args []string, stdout, stderr io.Writer) error {
			ref, err := scenarioArg(args)
			if err != nil {
				return err
			}
			if err := checkFormat(*format); err != nil {
				return err
			}
			// Every problem with the flags at once, one a line.
			var problems []error
			bad := func(format string, a ...any) { problems = append(problems, fmt.Errorf(format, a...)) }
			if *workers < 1 {
				bad("--workers %d: must be ≥ 1", *workers)
			}
			if fs.Changed("replications") && *reps < 1 {
				bad("--replications %d: must be ≥ 1", *reps)
			}
			if *refine < 0 {
				bad("--refine %d: must be ≥ 0", *refine)
			}
			if *maxCands < 1 {
				bad("--max-candidates %d: must be ≥ 1", *maxCands)
			}
			if len(*tunes) == 0 {
				bad("--tune: none given: name at least one field to tune, PATH=LO:HI[:STEPS|log]")
			}
			switch {
			case *maximize == "" && *minimize == "":
				bad("--maximize or --minimize: neither given: name the metric to optimise, e.g. --maximize total.goodput")
			case *maximize != "" && *minimize != "":
				bad("--maximize %s and --minimize %s: give one objective", *maximize, *minimize)
			}
			if len(problems) > 0 {
				return errUsage{errors.Join(problems...)}
			}
			sc, err := loadScenario(ref, *sets)
			if err != nil {
				return err
			}
			if len(sc.Sweep.Parameters) > 0 { // the tuned fields replace the scenario's sweep
				if err := sc.Set("sweep.parameters", "null"); err != nil {
					return err
				}
			}
			if fs.Changed("replications") {
				if err := sc.Set("sweep.replications", strconv.Itoa(*reps)); err != nil {
					return err
				}
			}
			spec, err := parseTuneSpec(sc, *tunes, *maximize, *minimize, *subject, *window)
			if err != nil {
				return err
			}
			shard, err := parseShard(fs, *shardSpec, *format, *plotToo, "tuning")
			if err != nil {
				return err
			}
			if shard != nil {
				// Each refinement round depends on the results of the one before, which no
				// shard has: a sharded tuning is its coarse grid, finished by the merge.
				if fs.Changed("refine") && *refine != 0 {
					return usageErrorf("--refine %d with --shard: a refinement round needs the whole grid's results, which no shard has; shard the coarse grid (--refine 0), merge, then tune a narrower range", *refine)
				}
				*refine = 0
			}
			base := seedOf(fs, *seed, sc)
			t := tune.New(experiment.Header(sc, base, label()), spec.params, spec.objective, spec.constraints,
				sc.Sweep.Replications, *refine)
			if err := refuseTuning(sc, t, *workers, *maxRuns, *maxCands, lim); err != nil {
				return err
			}
			grid := tuneexp.Grid(t)
			points, err := tuneexp.Points(sc, grid) // every candidate of the grid is a valid scenario
			if err != nil {
				return usageErrorf("--tune: %v", err)
			}
			if shard != nil {
				dir := shardDir(*out, sc, "-tune", *shard)
				if err := prepareOut(dir); err != nil {
					return err
				}
				info := experiment.NewShardInfo(results.KindTune, t.Header, *shard, points, t.Replications)
				info.Tune = &results.TuneShard{Params: t.Params, Objective: t.Objective, Constraints: t.Constraints}
				return runShard(lim, info, points, base, *workers, dir, tuneexp.Expectations(t), stderr)
			}
			dir := outDir(*out, sc, "-tune")
			_, statErr := os.Stat(dir)
			created := errors.Is(statErr, os.ErrNotExist)
			if err := prepareOut(dir); err != nil {
				return err
			}
			var running atomic.Int64
			ctx, stop := lim.guard(stderr, func() string { return fmt.Sprintf("%d runs in progress", running.Load()) }, "")
			defer stop()
			fmt.Fprintf(stderr, "tuning %s: %d candidates on the coarse grid × %d replications, then up to %d refinement round%s\n",
				paramPaths(t), len(grid), t.Replications, t.Refine, plural(t.Refine))
			runner := &tuneexp.Runner{Scenario: sc, Seed: base, Workers: *workers, Options: runOptions(),
				Hooks: experiment.Hooks{Log: stderr, Bar: progressBars(stderr), Running: &running}, Interrupted: errInterrupted}
			return finishTune(t, tuneexp.Search(t, runner.Eval(ctx, t)), dir, created, *plotToo, *format, stdout, stderr)
		}
	},
}

// finishTune writes what the search of t found into dir and prints it, as the unsharded command
// and a merge of a tuning's shards both do: err is the search's error. An interrupted search
// writes the candidates that finished, marked partial; a search that found no feasible
// candidate, or failed, writes nothing (dir is removed if the command created it).
func finishTune(t *tune.Tuning, err error, dir string, created, plotToo bool, format string, stdout, stderr io.Writer) error {
	interrupted := err != nil && (errors.Is(err, errInterrupted) || signalled.Load() || limitStopped())
	if err != nil && !interrupted {
		removeIfEmpty(dir, created)
		return err
	}
	if len(t.Candidates) == 0 { // interrupted before any candidate finished
		removeIfEmpty(dir, created)
		return fmt.Errorf("%w: no candidate finished all its replications; nothing written", errInterrupted)
	}
	if t.Recommendation == nil && !interrupted {
		removeIfEmpty(dir, created)
		return fmt.Errorf("%s (%d candidates × %d replications; loosen a --subject-to or widen a --tune range); nothing written",
			t.Infeasible(), len(t.Candidates), t.Replications)
	}
	if werr := tune.WriteDir(dir, t); werr != nil {
		return werr
	}
	fmt.Fprintf(stderr, "wrote %s\n", dir)
	if plotToo {
		if perr := writeFigures(dir, stderr); perr != nil {
			return perr
		}
	}
	printTune(textOr(format, stdout), t)
	if interrupted {
		err = fmt.Errorf("%w: the tuning is partial (%s); %s is marked partial", errInterrupted, t.Partial, dir)
	}
	return printJSONFile(format, stdout, filepath.Join(dir, results.TuneFile), err)
}

// tuneSpec is what a tuning's flags ask for, checked against the scenario.
type tuneSpec struct {
	params      []results.TuneParam
	objective   results.TuneObjective
	constraints []results.TuneConstraint
}

// parseTuneSpec checks the --tune, --maximize or --minimize, --subject-to and --window flags
// against sc: every path a field of the scenario that takes both ends of its range (integer
// fields found by refusing a fraction), every metric one that the scenario's runs have (as its
// expect: block would name it), every window within the run.
func parseTuneSpec(sc *scenarios.Scenario, tunes []string, maximize, minimize string, subject []string, window string) (tuneSpec, error) {
	var spec tuneSpec
	var from, to time.Duration
	if window != "" {
		f, t, err := results.ParseTuneWindow(window)
		if err != nil {
			return spec, usageErrorf("--window %q: %v", window, err)
		}
		if t > sc.Duration {
			return spec, usageErrorf("--window %q: the window ends after the run (duration %s)", window, sc.Duration)
		}
		from, to = f, t
	}
	given := map[string]string{}
	for _, s := range tunes {
		p, err := results.ParseTuneParam(s)
		if err != nil {
			return spec, usageErrorf("--tune %q: %v", s, err)
		}
		if p.Path == "seed" {
			return spec, usageErrorf("--tune %q: runs take their seeds from the base seed (--seed) and their replication, so tuning seed would change nothing", s)
		}
		if prev, dup := given[p.Path]; dup {
			return spec, usageErrorf("--tune %q: %s is already tuned by --tune %q; give each path once", s, p.Path, prev)
		}
		given[p.Path] = s
		for _, x := range []float64{p.Lo, p.Hi} {
			if _, err := sc.With(p.Path, p.Text(x)); err != nil {
				return spec, usageErrorf("--tune %q: %v", s, tuneexp.ProblemText(err))
			}
		}
		p.Integer = p.Unit == "" && experiment.WholeNumbers(sc, p.Path, p.Lo, p.Hi, p.Text)
		spec.params = append(spec.params, p)
	}
	flag, text := "--maximize", maximize
	if minimize != "" {
		flag, text = "--minimize", minimize
	}
	m, err := results.ParseTuneMeasure(text, from, to)
	if err != nil {
		return spec, usageErrorf("%s %q: %v", flag, text, err)
	}
	if err := checkTuneMetric(sc, flag, text, m); err != nil {
		return spec, err
	}
	spec.objective = results.TuneObjective{Metric: m.Metric, From: m.From, To: m.To, Sense: strings.TrimPrefix(flag, "--")}
	for _, s := range subject {
		c, err := results.ParseTuneConstraint(s, from, to)
		if err != nil {
			return spec, usageErrorf("--subject-to %q: %v", s, err)
		}
		if err := checkTuneMetric(sc, "--subject-to", s, c.Measure()); err != nil {
			return spec, err
		}
		spec.constraints = append(spec.constraints, c)
	}
	return spec, nil
}

// checkTuneMetric checks that the scenario's runs have the measure's metric, and that its window
// lies within the run, by the rules of an expect: block; the error names flag and text, and lists
// the metrics' forms with the scenario's names.
func checkTuneMetric(sc *scenarios.Scenario, flag, text string, m results.TuneMeasure) error {
	if m.To > sc.Duration {
		e := m.Expectation()
		return usageErrorf("%s %q: the window %s ends after the run (duration %s)", flag, text, e.Window(), sc.Duration)
	}
	if why := sc.CheckMetric(m.Metric); why != "" {
		return usageErrorf("%s %q: %s; the metrics are %s", flag, text, why, metricForms(sc))
	}
	return nil
}

// metricForms lists the forms of the scenario's metrics, with its names: "total.METRIC,
// group.NAME.METRIC (NAME: a, b), server.NAME.METRIC (NAME: db), fault.NAME.METRIC (NAME: cut),
// METRIC as 'simulate help metrics' lists it (goodput, …, …)", the examples the catalogue's
// (results.Examples).
func metricForms(sc *scenarios.Scenario) string {
	var groups, servers, faults []string
	for _, g := range sc.Clients {
		groups = append(groups, g.Name)
	}
	for _, n := range sc.Topology.Nodes {
		servers = append(servers, n.Name)
	}
	seen := map[string]int{}
	for _, w := range sc.FaultWindows() {
		n := w.Name
		if seen[n]++; seen[n] > 1 {
			n += "#" + strconv.Itoa(seen[n])
		}
		faults = append(faults, n)
	}
	forms := []string{"total.METRIC"}
	for _, f := range []struct {
		kind  string
		names []string
	}{{"group", groups}, {"server", servers}, {"fault", faults}} {
		if len(f.names) > 0 {
			forms = append(forms, fmt.Sprintf("%s.NAME.METRIC (NAME: %s)", f.kind, strings.Join(f.names, ", ")))
		}
	}
	var examples []string
	for _, m := range results.Examples() {
		examples = append(examples, m.Name)
	}
	return strings.Join(forms, ", ") + ", METRIC as 'simulate help metrics' lists it (" + strings.Join(examples, ", ") + ", …)"
}

// refuseTuning refuses, up front, a tuning whose coarse grid has more than maxCands candidates,
// or whose runs (the grid and every refinement round at their largest) exceed --max-runs,
// --max-time or --max-memory, with the estimate.
func refuseTuning(sc *scenarios.Scenario, t *tune.Tuning, workers, maxRuns, maxCands int, lim *limits) error {
	reps := float64(t.Replications)
	if g := tuneexp.GridSize(t); g > float64(maxCands) {
		secs := g * reps * bench.EstimatedEvents(sc) / experiment.EventsPerCPUSecond / float64(workers)
		return usageErrorf("--tune: a coarse grid of %.0f candidates (%s) × %d replications = %.0f runs, about %s on %d workers: more than --max-candidates %d; give fewer STEPS or fewer fields",
			g, gridText(t), t.Replications, g*reps, experiment.HumanDuration(secs), workers, maxCands)
	}
	grid := float64(len(tuneexp.Grid(t)))
	cands := grid + float64(t.Refine)*tuneexp.RefineSize(t)
	what := fmt.Sprintf("up to %.0f candidates (%.0f on the coarse grid, up to %.0f in each of %d refinement rounds) × %d replications",
		cands, grid, tuneexp.RefineSize(t), t.Refine, t.Replications)
	if t.Refine == 0 {
		what = fmt.Sprintf("%.0f candidates × %d replications", grid, t.Replications)
	}
	if err := experiment.RefuseRuns(sc, cands*reps, what, workers, maxRuns); err != nil {
		return err
	}
	return lim.Check(sc, cands*reps, workers, what)
}

// gridText says the grid's shape: "5 × 5 levels".
func gridText(t *tune.Tuning) string {
	parts := make([]string, len(t.Params))
	for i, p := range t.Params {
		parts[i] = strconv.Itoa(p.Levels)
	}
	return strings.Join(parts, " × ") + " levels"
}

// paramPaths lists the tuned paths.
func paramPaths(t *tune.Tuning) string {
	parts := make([]string, len(t.Params))
	for i, p := range t.Params {
		parts[i] = p.Path
	}
	return strings.Join(parts, ", ")
}

// removeIfEmpty removes dir when this command created it and left it empty.
func removeIfEmpty(dir string, created bool) {
	if created {
		releaseOut(dir)    // its lock file
		_ = os.Remove(dir) // fails, harmlessly, when the folder is not empty
	}
}

// printTune prints what the tuning found: the recommendation with every measure's mean ± its
// confidence half-width, the runners-up, what each constraint excluded, and every candidate.
func printTune(w io.Writer, t *tune.Tuning) {
	var ranges []string
	for _, p := range t.Params {
		kind := fmt.Sprintf("%d levels", p.Levels)
		if p.Log {
			kind += ", log"
		}
		if p.Integer {
			kind += ", integer"
		}
		ranges = append(ranges, fmt.Sprintf("%s over %s (%s)", p.Path, p.Range, kind))
	}
	fmt.Fprintf(w, "%s: tuned %s\n", t.Header.Scenario, strings.Join(ranges, "; "))
	var ks []string
	for _, k := range t.Constraints {
		ks = append(ks, k.String())
	}
	goal := t.Objective.String()
	if len(ks) > 0 {
		goal += " subject to " + strings.Join(ks, ", ")
	}
	rounds := 0
	for _, c := range t.Candidates {
		rounds = max(rounds, c.Round)
	}
	fmt.Fprintf(w, "%s\n%d candidates (%d refinement round%s) × %d replications with common random numbers from seed %d\n",
		goal, len(t.Candidates), rounds, plural(rounds), t.Replications, t.Seed)
	fmt.Fprintln(w, "each value: the mean over the replications ± its 95 % confidence half-width")
	if t.Partial != "" {
		fmt.Fprintf(w, "partial: %s; the recommendation is among the candidates that finished\n", t.Partial)
	}
	fmt.Fprintln(w)
	if t.Recommendation == nil {
		fmt.Fprintf(w, "no recommendation among the candidates that finished: %s\n", t.Infeasible())
	}
	for _, line := range t.Describe() {
		fmt.Fprintln(w, line)
	}
	if t.Recommendation != nil {
		if len(t.RunnersUp) == 0 {
			fmt.Fprintln(w, "runners-up: none (no other feasible candidate's objective interval overlaps the recommendation's)")
		} else {
			fmt.Fprintln(w, "runners-up (objective interval overlaps the recommendation's: the evidence does not separate them):")
			for _, r := range t.RunnersUp {
				fmt.Fprintf(w, "  %s\n", t.PickText(r))
			}
		}
	}
	for _, n := range t.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	if len(t.Constraints) > 0 {
		fmt.Fprintln(w, "\nconstraints:")
		for _, ex := range t.Exclusions {
			fmt.Fprintf(w, "  %s excluded %d of %d candidates\n", ex.Constraint, ex.Excluded, len(t.Candidates))
		}
	}
	printTuneCandidates(w, t)
}

// printTuneCandidates prints one line per candidate: its round, values, every measure and
// whether it is the recommendation, a runner-up, feasible or which constraints it breaks.
func printTuneCandidates(w io.Writer, t *tune.Tuning) {
	header := []string{"round"}
	for _, p := range t.Params {
		header = append(header, p.Path)
	}
	for _, m := range t.Measures {
		header = append(header, m.Name())
	}
	header = append(header, "verdict")
	rows := [][]string{header}
	choice := map[int]string{}
	for _, r := range t.RunnersUp {
		choice[r.Candidate] = "runner-up"
	}
	if t.Recommendation != nil {
		choice[t.Recommendation.Candidate] = "RECOMMENDED"
	}
	for i, c := range t.Candidates {
		row := []string{strconv.Itoa(c.Round)}
		for _, p := range c.Params {
			row = append(row, p.Value)
		}
		for _, m := range t.Measures {
			st := c.Metric(m.Name())
			row = append(row, tuneCell(m.Metric, st))
		}
		verdict := choice[i]
		switch {
		case verdict != "":
		case c.Feasible:
			verdict = "feasible"
		default:
			verdict = "fails " + strings.Join(c.Failed, ", ")
		}
		rows = append(rows, append(row, verdict))
	}
	widths := make([]int, len(header))
	for _, r := range rows {
		for j, cell := range r[:len(r)-1] {
			widths[j] = max(widths[j], len([]rune(cell)))
		}
	}
	fmt.Fprintln(w, "\ncandidates:")
	for _, r := range rows {
		var b strings.Builder
		b.WriteString(" ")
		for j, cell := range r {
			b.WriteString(" ")
			if j == len(r)-1 {
				b.WriteString(cell)
				break
			}
			b.WriteString(cell + strings.Repeat(" ", widths[j]-len([]rune(cell))))
		}
		fmt.Fprintln(w, b.String())
	}
}

// tuneCell formats a candidate's statistic for the table: the mean ± the half-width, in the
// metric's unit; "-" for no value.
func tuneCell(metric string, st results.MetricStats) string {
	if math.IsNaN(st.Mean) {
		return "-"
	}
	return results.FormatMetricCI(metric, st)
}
