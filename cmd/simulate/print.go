package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/chart"
	"github.com/overloadsim/overloadsim/results/sweep"
	"github.com/overloadsim/overloadsim/scenarios"
)

// printSummary writes the human summary of a run: per group and in total, goodput against
// offered load, amplification, latency, failures by class; per server, utilisation and the share
// of capacity spent on rejections; per mongos and shard, the routing layer's overload retries;
// a Couchbase policy's retries by reason; and recovery after each fault.
func printSummary(w io.Writer, run *results.Run, where string) {
	h, s := run.Header, run.Summary
	fmt.Fprintf(w, "%s (seed %d): %s\n", h.Scenario, h.Seed, h.Claim)
	warm := "fixed"
	if h.WarmupAuto {
		warm = "MSER-5"
	}
	fmt.Fprintf(w, "measured %v after a %v warm-up (%s)\n", s.Measured, s.Warmup, warm)
	if where != "" {
		fmt.Fprintln(w, where)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%-16s %9s %9s %7s %9s %9s %9s  %s\n", "group", "offered/s", "goodput/s", "ampl", "p50", "p99", "failed/s", "failures by class")
	groups := append(append([]results.GroupSummary(nil), s.Groups...), s.Total)
	for _, g := range groups {
		fmt.Fprintf(w, "%-16s %9.1f %9.1f %7.3f %9s %9s %9.1f  %s\n", g.Name, g.Offered, g.Goodput,
			g.Amplification, secs(g.Success.P50), secs(g.Success.P99), g.FailureRate, failures(g.Failures))
	}
	fmt.Fprintf(w, "\n%-16s %9s %9s %9s %9s %9s\n", "server", "util", "done/s", "reject/s", "rejShare", "wasted")
	for _, sv := range s.Servers {
		fmt.Fprintf(w, "%-16s %9.3f %9.1f %9.1f %9.3f %9.3f\n", sv.Name, sv.Utilisation, sv.Throughput,
			sv.RejectionRate, sv.RejectShare, sv.WastedShare)
	}
	fmt.Fprint(w, serverLegend)
	if len(s.Shards) > 0 {
		fmt.Fprintf(w, "\n%-16s %-10s %9s %9s %9s %9s %7s %9s\n", "mongos", "shard", "routed", "ovlErrs", "ovlRetry", "retarget", "ampl", "budgetMin")
		for _, sh := range s.Shards {
			fmt.Fprintf(w, "%-16s %-10s %9d %9d %9d %9d %7.3f %9s\n", sh.Mongos, sh.Shard, sh.Attempted, sh.OverloadErrors,
				sh.OverloadRetries, sh.Retargeted, sh.Amplification, balance(sh.BalanceMin))
		}
	}
	for _, g := range s.Groups {
		if g.WritesLost > 0 {
			fmt.Fprintf(w, "\n%s: %d writes reported as succeeded were refused by the server (%.1f/s, counted in goodput): its driver release reports a NoWritesPerformed error as success (docs/drivers.md §2)\n",
				g.Name, g.WritesLost, float64(g.WritesLost)/s.Measured.Seconds())
		}
	}
	var reasons []string
	for _, g := range s.Groups {
		for _, r := range g.RetryReasons {
			reasons = append(reasons, fmt.Sprintf("%s: %s retried %d, not retried %d", g.Name, r.Reason, r.Retried, r.NotRetried))
		}
		if g.RetriesCancelled > 0 {
			reasons = append(reasons, fmt.Sprintf("%s: %d retries capped to the request timeout and cancelled", g.Name, g.RetriesCancelled))
		}
	}
	if len(reasons) > 0 {
		fmt.Fprintf(w, "\nretry reasons (Couchbase)\n  %s\n", strings.Join(reasons, "\n  "))
	}
	var gates []string
	for _, g := range s.Groups {
		if g.LocallyRejected > 0 {
			gates = append(gates, fmt.Sprintf("%s: %d attempts rejected by the client's own throttle (never sent)", g.Name, g.LocallyRejected))
		}
		if d := g.AdmitDelaySeconds; d != nil {
			gates = append(gates, fmt.Sprintf("%s: attempts held back %.3g s in all by the client-side rate limiter", g.Name, *d))
		}
		if g.HedgedCopies > 0 {
			gates = append(gates, fmt.Sprintf("%s: %d hedged copies sent, %d cancelled on the wire", g.Name, g.HedgedCopies, g.AttemptsCancelled))
		}
	}
	if len(gates) > 0 {
		fmt.Fprintf(w, "\nclient-side limits\n  %s\n", strings.Join(gates, "\n  "))
	}
	printPhases(w, s.Phases)
	if len(s.Recoveries) > 0 {
		fmt.Fprintln(w)
		for _, r := range s.Recoveries {
			fmt.Fprintf(w, "after %s: %s\n", r.Fault, r.Describe())
		}
	}
}

// whereToday says where the scenario's load sits against its configured capacity, in the words
// of results.Capacity.Sentence, which a run's report leads with.
func whereToday(ctx sweep.LoadContext) string {
	return results.Capacity{Today: ctx.Today, Ceiling: ctx.Ceiling, Source: ctx.CeilingSource}.Sentence()
}

// printPhases writes the run's phases around its triggers (results.Phases), all groups together:
// the whole run's averages hide a surge that a phase of its own shows.
func printPhases(w io.Writer, phases []results.Phase) {
	if len(phases) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%-24s %-13s %9s %9s %9s %7s %9s\n", "phase", "from–to", "offered/s", "goodput/s", "failed", "ampl", "p99")
	for _, p := range phases {
		span := fmt.Sprintf("%v–%v", time.Duration(p.Start), time.Duration(p.End))
		failed := "-"
		if !math.IsNaN(p.FailureShare) {
			failed = strconv.FormatFloat(100*p.FailureShare, 'f', 1, 64) + " %"
		}
		fmt.Fprintf(w, "%-24s %-13s %9.1f %9.1f %9s %7.3f %9s\n", p.Name, span, p.Offered, p.Goodput, failed, p.Amplification, secs(p.P99))
	}
}

// serverLegend explains the server table's shares (docs/metrics.md §9.3–9.5), each of the
// worker capacity while the server is up.
const serverLegend = `  util      busy worker time ÷ worker capacity
  rejShare  worker time spent rejecting requests ÷ worker capacity
  wasted    worker time spent on rejections and on requests whose client had already given up ÷ worker capacity
`

// balance formats a retry budget balance: "-" without a budget (+Inf, or NaN in JSON).
func balance(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "-"
	}
	return fmt.Sprintf("%.1f", x)
}

// secs formats a latency in seconds with a unit that fits it.
func secs(x float64) string {
	if math.IsNaN(x) || x == 0 {
		return "-"
	}
	d := time.Duration(x * 1e9)
	switch { // three or four significant digits, whatever the scale
	case d >= time.Second:
		return d.Round(time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond).String()
	}
	return d.Round(10 * time.Nanosecond).String()
}

func failures(fs []results.ClassFailures) string {
	var parts []string
	for _, f := range fs {
		if f.Count > 0 {
			parts = append(parts, fmt.Sprintf("%s %.1f/s", f.Class, f.Rate))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// printSweep writes one line per point: its parameters and the headline metrics that have a
// short name (results.Roles), all over every client group, each the mean over the
// replications with its 95 % confidence half-width. A point of one replication has no
// interval: its line gives the values alone and says so.
func printSweep(w io.Writer, points []sweep.PointStats) {
	fmt.Fprintln(w, "each value: the mean over the replications ± its 95 % confidence half-width")
	offered := offeredShown(points)
	for _, p := range points {
		var params []string
		for _, pr := range p.Params {
			params = append(params, pr.Path+"="+pr.Value)
		}
		label := strings.Join(params, " ")
		if label == "" {
			label = "(base)"
		}
		fmt.Fprintf(w, "%-40s", label)
		if st, ok := p.Metric("total.offered"); offered && ok {
			fmt.Fprintf(w, "  offered %s", meanCI(st, 1, "/s"))
		}
		for _, m := range results.Headlines(results.ScopeGroup) {
			if st, ok := p.Metric("total." + m.Name); m.Short != "" && ok {
				scale, unit := textUnit(m.Unit)
				fmt.Fprintf(w, "  %s %s", m.Short, meanCI(st, scale, unit))
			}
		}
		if p.Replications < 2 {
			fmt.Fprintf(w, "  (%d replication: no interval)", p.Replications)
		}
		fmt.Fprintln(w)
		for _, o := range p.Outcomes() {
			fmt.Fprintf(w, "%-40s  %s\n", "", o)
		}
	}
}

// printAnswers prints a load sweep's answers (sweep.SweepAnswers), a paragraph per line, or
// one paragraph naming all the lines whose answers coincide (sweep.MergeAnswers).
func printAnswers(w io.Writer, answers []sweep.LoadAnswers, ctx sweep.LoadContext) {
	if len(answers) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s\n", ctx.Sentence())
	// Lines whose values are YAML maps are named by the fields that differ, as in the figures.
	lines := make([]string, len(answers))
	for i, a := range answers {
		lines[i] = a.Line
	}
	named := slices.Clone(answers)
	for i, n := range chart.ValueNames(lines) {
		named[i].Line = n
	}
	for _, b := range sweep.MergeAnswers(named) {
		indent := ""
		if len(b.Lines) > 1 || b.Lines[0] != "" {
			head := results.JoinAnd(b.Lines)
			if len(b.Lines) > 1 {
				head += " (the same answer)"
			}
			fmt.Fprintf(w, "%s:\n", head)
			indent = "  "
		}
		for _, s := range b.Sentences {
			fmt.Fprintf(w, "%s%s\n", indent, s)
		}
	}
}

// textUnit is how a table shows a metric of the catalogue's unit: the factor from that unit to
// the one shown, and the one shown as a suffix of the number: a latency in milliseconds.
func textUnit(unit string) (scale float64, suffix string) {
	if unit == "s" {
		return 1000, " ms"
	}
	return 1, unit
}

// meanCI formats a metric's mean and its confidence half-width, scaled and with unit; the mean
// alone when there is no interval (fewer than two values), "-" when there is no value at all.
func meanCI(st results.MetricStats, scale float64, unit string) string {
	switch {
	case math.IsNaN(st.Mean):
		return "-"
	case math.IsNaN(st.CI95) || math.IsInf(st.CI95, 0):
		return fmt.Sprintf("%.4g%s", st.Mean*scale, unit)
	}
	return fmt.Sprintf("%.4g ± %.2g%s", st.Mean*scale, st.CI95*scale, unit)
}

// jsonFormat adds --format text|json to a command whose result has a JSON file: with json, the
// command prints that file on stdout instead of its text.
func jsonFormat(fs *pflag.FlagSet, file string) *string {
	return fs.String("format", "text", "what to print on stdout: text, or json ("+file+")")
}

// checkFormat refuses a --format other than text and json.
func checkFormat(format string) error {
	if format != "text" && format != "json" {
		return usageErrorf("--format %q: want text or json", format)
	}
	return nil
}

// textOr returns where a command prints its text: stdout, or nowhere when it prints JSON.
func textOr(format string, stdout io.Writer) io.Writer {
	if format == "json" {
		return io.Discard
	}
	return stdout
}

// printJSONFile prints a result's JSON file on stdout when format is json, then returns err
// (the command's own outcome, such as a failed claim, which the JSON records too).
func printJSONFile(format string, stdout io.Writer, path string, err error) error {
	if format != "json" || err != nil && !errors.Is(err, errExpectation) && !errors.Is(err, errInterrupted) {
		return err
	}
	if werr := writeFileTo(stdout, path); werr != nil {
		return werr
	}
	return err
}

// judged returns the expectations a run or sweep of sc judges: none when the user changed the
// scenario (--set, --vary), as its expect: block is a claim about the scenario as written, and
// it says so on stderr.
func judged(sc *scenarios.Scenario, changed bool, stderr io.Writer) []results.Expectation {
	exps := sc.Expectations()
	if changed && len(exps) > 0 {
		fmt.Fprintf(stderr, "note: the scenario was changed by --set or --vary: its expect: block (%d claims about the scenario as written) is not judged\n", len(exps))
		return nil
	}
	return exps
}

// printVerdicts prints the verdicts on the scenario's expectations, and those that were not
// judged, with why (points is how many sweep points there were, 0 for a run; measured is a
// run's measurements), and returns errExpectation when one failed.
func printVerdicts(w io.Writer, exps []results.Expectation, verdicts []results.Verdict, points int, measured []results.Measured) error {
	if len(exps) == 0 {
		return nil
	}
	fmt.Fprintln(w, "\nExpectations (the scenario's expect: block):")
	for _, v := range verdicts {
		fmt.Fprintf(w, "  %s\n", v)
	}
	for i := range exps {
		e := &exps[i]
		if !slices.ContainsFunc(verdicts, func(v results.Verdict) bool { return v.Index == i }) {
			why := "applies at a sweep point (run the sweep)"
			switch {
			case points > 0:
				why = "applies at no point of this sweep"
			case e.Over == "mean" && len(e.At) == 0:
				why = "a mean over replications (run the sweep)"
			case i < len(measured) && measured[i].Skip != "":
				why = measured[i].Skip
			case i < len(measured) && results.NoRecoveryTime(e, measured[i]):
				why = "no value: the trigger did not recover in this run"
			}
			fmt.Fprintf(w, "  SKIP %s: %s\n", e, why)
		}
	}
	if n := results.Failed(verdicts); n > 0 {
		return fmt.Errorf("%w: %d of %d expectations failed (the results are written)", errExpectation, n, len(verdicts))
	}
	return nil
}

func writeFileTo(w io.Writer, path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}
