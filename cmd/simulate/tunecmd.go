package main

import (
	"context"
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
	"github.com/overloadsim/overloadsim/results"
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
Metrics are named and measured as in a scenario's expect: block (docs/metrics.md): total.goodput,
group.NAME.amplification, group.NAME.latency_ok_p99, server.NAME.reject_share,
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
		maxRuns := fs.Int("max-runs", defaultMaxRuns, "refuse a tuning that could take more runs than this")
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
			switch {
			case *workers < 1:
				return usageErrorf("--workers %d: must be ≥ 1", *workers)
			case fs.Changed("replications") && *reps < 1:
				return usageErrorf("--replications %d: must be ≥ 1", *reps)
			case *refine < 0:
				return usageErrorf("--refine %d: must be ≥ 0", *refine)
			case *maxCands < 1:
				return usageErrorf("--max-candidates %d: must be ≥ 1", *maxCands)
			case len(*tunes) == 0:
				return usageErrorf("--tune: none given: name at least one field to tune, PATH=LO:HI[:STEPS|log]")
			case *maximize == "" && *minimize == "":
				return usageErrorf("--maximize or --minimize: neither given: name the metric to optimise, e.g. --maximize total.goodput")
			case *maximize != "" && *minimize != "":
				return usageErrorf("--maximize %s and --minimize %s: give one objective", *maximize, *minimize)
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
			t := results.NewTuning(sweepHeader(sc, base), spec.params, spec.objective, spec.constraints,
				sc.Sweep.Replications, *refine)
			if err := refuseTuning(sc, t, *workers, *maxRuns, *maxCands, lim); err != nil {
				return err
			}
			grid := t.Grid()
			for _, c := range grid { // every candidate of the grid is a valid scenario
				if _, err := tuneScenario(sc, c); err != nil {
					return usageErrorf("--tune: the candidate %s: %v", c.Label(), problemText(err))
				}
			}
			if shard != nil {
				points, err := tuneShardPoints(sc, grid)
				if err != nil {
					return err
				}
				dir := shardDir(*out, sc, "-tune", *shard)
				if err := prepareOut(dir); err != nil {
					return err
				}
				info := shardInfo(results.KindTune, t.Header, *shard, points, t.Replications)
				info.Tune = &results.TuneShard{Params: t.Params, Objective: t.Objective, Constraints: t.Constraints}
				return runShard(lim, info, points, base, *workers, dir, tuneExpectations(t), stderr)
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
			eval := tuneEval(ctx, sc, t, base, *workers, &running, stderr)
			return finishTune(t, t.Search(eval), dir, created, *plotToo, *format, stdout, stderr)
		}
	},
}

// finishTune writes what the search of t found into dir and prints it, as the unsharded command
// and a merge of a tuning's shards both do: err is the search's error. An interrupted search
// writes the candidates that finished, marked partial; a search that found no feasible
// candidate, or failed, writes nothing (dir is removed if the command created it).
func finishTune(t *results.Tuning, err error, dir string, created, plotToo bool, format string, stdout, stderr io.Writer) error {
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
	if werr := results.WriteTuneDir(dir, t); werr != nil {
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

// tuneShardPoints are a tuning's coarse grid as a sharded command's points.
func tuneShardPoints(sc *scenarios.Scenario, grid []results.TuneCandidate) ([]scenarios.SweepPoint, error) {
	points := make([]scenarios.SweepPoint, len(grid))
	for i, c := range grid {
		s, err := tuneScenario(sc, c)
		if err != nil {
			return nil, usageErrorf("--tune: the candidate %s: %v", c.Label(), problemText(err))
		}
		points[i] = scenarios.SweepPoint{Params: c.Params, Scenario: s}
	}
	return points, nil
}

// tuneExpectations are the measures of t as expectations without bounds, for Measure.
func tuneExpectations(t *results.Tuning) []results.Expectation {
	exps := make([]results.Expectation, len(t.Measures))
	for i, m := range t.Measures {
		exps[i] = m.Expectation()
	}
	return exps
}

// mergedTuneEval is the TuneEval of a merged tuning: the coarse grid's measures, read from the
// units' summaries (runs, in unit order), for the one round a sharded tuning runs.
func mergedTuneEval(info results.ShardInfo, runs []results.Summary) results.TuneEval {
	return func(round int, cands []results.TuneCandidate) ([][][]float64, []bool, error) {
		reps := info.Replications
		if round > 0 || len(cands) != len(info.Points) {
			return nil, nil, fmt.Errorf("the shards ran %d candidates, the tuning asks for %d in round %d", len(info.Points), len(cands), round)
		}
		values := make([][][]float64, len(cands))
		done := make([]bool, len(cands))
		for c, cand := range cands {
			if results.ParamsText(cand.Params) != results.ParamsText(info.Points[c]) {
				return nil, nil, fmt.Errorf("candidate %d: the shards ran %s, the tuning's grid has %s", c, results.ParamsText(info.Points[c]), cand.Label())
			}
			done[c] = true
			for r := 0; r < reps; r++ {
				ms := runs[c*reps+r].Expected
				if values[c] == nil {
					values[c] = make([][]float64, len(ms))
				}
				for m := range ms {
					values[c][m] = append(values[c][m], ms[m].Value)
				}
			}
		}
		return values, done, nil
	}
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
				return spec, usageErrorf("--tune %q: %v", s, problemText(err))
			}
		}
		// A plain-number field that refuses a fraction between two whole ends takes integers
		// (as tip's search finds them).
		if p.Unit == "" && p.Lo == math.Trunc(p.Lo) && p.Hi == math.Trunc(p.Hi) {
			if _, err := sc.With(p.Path, p.Text(p.Lo+0.5)); err != nil {
				p.Integer = true
			}
		}
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
	item := "{metric: " + strconv.Quote(m.Metric) + ", atMost: 0"
	if m.To > 0 {
		item += fmt.Sprintf(", from: %s, to: %s", m.From, m.To)
	}
	if _, err := sc.With("expect", "["+item+"}]"); err != nil {
		why := problemText(err)
		var ps scenarios.Problems
		if errors.As(err, &ps) { // the rules alone: the expect: block is this check's, not the user's
			var rules []string
			for _, p := range ps {
				rules = append(rules, p.Rule)
			}
			why = strings.Join(rules, "; ")
		}
		return usageErrorf("%s %q: %s; the metrics are %s", flag, text, why, metricForms(sc))
	}
	return nil
}

// metricForms lists the forms of the scenario's metrics, with its names: "total.METRIC,
// group.NAME.METRIC (NAME: a, b), server.NAME.METRIC (NAME: db), fault.NAME.METRIC (NAME: cut),
// METRIC as docs/metrics.md defines it".
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
	return strings.Join(forms, ", ") + ", METRIC as in docs/metrics.md (goodput, amplification, latency_ok_p99, reject_share, recovery_time, …)"
}

// problemText is a scenario error without the override it names (the flag that caused it is
// named by the caller): each problem's path, value and rule.
func problemText(err error) string {
	var ps scenarios.Problems
	if !errors.As(err, &ps) {
		return strings.TrimPrefix(err.Error(), "scenarios: ")
	}
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = fmt.Sprintf("%s: %s: %s", p.Path, p.Value, p.Rule)
	}
	return strings.Join(parts, "; ")
}

// refuseTuning refuses, up front, a tuning whose coarse grid has more than maxCands candidates,
// or whose runs (the grid and every refinement round at their largest) exceed --max-runs,
// --max-time or --max-memory, with the estimate.
func refuseTuning(sc *scenarios.Scenario, t *results.Tuning, workers, maxRuns, maxCands int, lim *limits) error {
	reps := float64(t.Replications)
	if g := t.GridSize(); g > float64(maxCands) {
		secs := g * reps * bench.EstimatedEvents(sc) / eventsPerCPUSecond / float64(workers)
		return usageErrorf("--tune: a coarse grid of %.0f candidates (%s) × %d replications = %.0f runs, about %s on %d workers: more than --max-candidates %d; give fewer STEPS or fewer fields",
			g, gridText(t), t.Replications, g*reps, humanDuration(secs), workers, maxCands)
	}
	grid := float64(len(t.Grid()))
	cands := grid + float64(t.Refine)*t.RefineSize()
	what := fmt.Sprintf("up to %.0f candidates (%.0f on the coarse grid, up to %.0f in each of %d refinement rounds) × %d replications",
		cands, grid, t.RefineSize(), t.Refine, t.Replications)
	if t.Refine == 0 {
		what = fmt.Sprintf("%.0f candidates × %d replications", grid, t.Replications)
	}
	if err := refuseRuns(sc, cands*reps, what, workers, maxRuns); err != nil {
		return err
	}
	return lim.check(sc, cands*reps, workers, what)
}

// gridText says the grid's shape: "5 × 5 levels".
func gridText(t *results.Tuning) string {
	parts := make([]string, len(t.Params))
	for i, p := range t.Params {
		parts[i] = strconv.Itoa(p.Levels)
	}
	return strings.Join(parts, " × ") + " levels"
}

// paramPaths lists the tuned paths.
func paramPaths(t *results.Tuning) string {
	parts := make([]string, len(t.Params))
	for i, p := range t.Params {
		parts[i] = p.Path
	}
	return strings.Join(parts, ", ")
}

// tuneScenario returns sc with the candidate's values set, leaving sc unchanged.
func tuneScenario(sc *scenarios.Scenario, c results.TuneCandidate) (*scenarios.Scenario, error) {
	at, err := sc.With(c.Params[0].Path, c.Params[0].Value)
	if err != nil || len(c.Params) == 1 {
		return at, err
	}
	sets := make([]string, len(c.Params))
	for i, p := range c.Params {
		sets[i] = p.Path + "=" + p.Value
	}
	return at, at.SetAll(sets...)
}

// tuneEval returns the tuning's TuneEval: it runs every candidate's replications on workers,
// replication r of each with the run seed of replication r of base (common random numbers), and
// measures t's measures on each run. Results are kept by index, so they do not depend on the
// workers; once ctx is cancelled no new run starts, and the round ends interrupted.
func tuneEval(ctx context.Context, sc *scenarios.Scenario, t *results.Tuning, base uint64, workers int, running *atomic.Int64, stderr io.Writer) results.TuneEval {
	exps := tuneExpectations(t)
	reps := t.Replications
	return func(round int, cands []results.TuneCandidate) ([][][]float64, []bool, error) {
		scs := make([]*scenarios.Scenario, len(cands))
		for i, c := range cands {
			s, err := tuneScenario(sc, c)
			if err != nil {
				return nil, nil, fmt.Errorf("the candidate %s: %v", c.Label(), problemText(err))
			}
			scs[i] = s
		}
		label := "tune: coarse grid"
		if round > 0 {
			label = fmt.Sprintf("tune: refinement %d", round)
			fmt.Fprintf(stderr, "refinement %d: %d new candidate%s around %s\n", round, len(cands), plural(len(cands)), t.Candidates[t.Recommendation.Candidate].Label())
		}
		bar := newProgressBar(stderr, label)
		runs, done, err := runParallel(ctx, len(cands)*reps, workers, func(u int) ([]float64, error) {
			running.Add(1)
			defer running.Add(-1)
			r, err := bench.RunWith(scs[u/reps], base, u%reps, runOptions())
			if err != nil {
				return nil, fmt.Errorf("%s, replication %d: %w", cands[u/reps].Label(), u%reps, err)
			}
			ms := results.Measure(exps, &r.Summary, r.Series)
			vs := make([]float64, len(ms))
			for i, m := range ms {
				vs[i] = m.Value // NaN when the run has no value (or cannot measure it)
			}
			return vs, nil
		}, bar.update)
		values := make([][][]float64, len(cands))
		complete := make([]bool, len(cands))
		all := true
		for c := range cands {
			complete[c] = true
			values[c] = make([][]float64, len(exps))
			for r := 0; r < reps; r++ {
				u := c*reps + r
				if !done[u] {
					complete[c] = false
					continue
				}
				for m := range exps {
					values[c][m] = append(values[c][m], runs[u][m])
				}
			}
			all = all && complete[c]
		}
		if err == nil && !all {
			err = errInterrupted
		}
		return values, complete, err
	}
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
func printTune(w io.Writer, t *results.Tuning) {
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
func printTuneCandidates(w io.Writer, t *results.Tuning) {
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
