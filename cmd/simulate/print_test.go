package main

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/sweep"
)

// TestPrintSummaryExplainsServerColumns: the server table's rejShare and wasted columns are
// explained by a legend right under the table, in the words of docs/metrics.md §9.4–9.5.
func TestPrintSummaryExplainsServerColumns(t *testing.T) {
	run := &results.Run{
		Header: results.Header{Scenario: "toy", Seed: 1, Claim: "a claim"},
		Summary: results.Summary{
			Warmup: 0, Measured: 10 * time.Second,
			Groups: []results.GroupSummary{{Name: "app", Offered: 100, Goodput: 90, Amplification: 1.5}},
			Total:  results.GroupSummary{Name: "total", Offered: 100, Goodput: 90, Amplification: 1.5},
			Servers: []results.ServerSummary{{Name: "db", Utilisation: 0.9, Throughput: 90,
				RejectionRate: 60, RejectShare: 0.125, WastedShare: 0.25}},
		},
	}
	var b bytes.Buffer
	printSummary(&b, run, "")
	out := b.String()
	lines := strings.Split(out, "\n")
	row := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "db ") {
			row = i
		}
	}
	if row < 0 {
		t.Fatalf("no server row for db:\n%s", out)
	}
	if !strings.Contains(lines[row], "0.125") || !strings.Contains(lines[row], "0.250") {
		t.Errorf("server row lacks the shares: %q", lines[row])
	}
	legend := strings.Join(lines[row+1:], "\n")
	for _, want := range []string{
		"rejShare  worker time spent rejecting requests ÷ worker capacity",
		"wasted    worker time spent on rejections and on requests whose client had already given up ÷ worker capacity",
	} {
		if !strings.Contains(legend, want) {
			t.Errorf("no legend line %q under the server table:\n%s", want, out)
		}
	}
}

// point is a sweep point of one parameter with the three headline metrics: goodput (per
// second), amplification and success p99 (seconds, as in the results), each with its half-width.
func point(value string, reps int, goodput, amp, p99 results.MetricStats) sweep.PointStats {
	goodput.Name, amp.Name, p99.Name = "total.goodput", "total.amplification", "total.latency_ok_p99"
	return sweep.PointStats{
		Params:       []results.Param{{Path: "clients[0].workload.rate", Value: value}},
		Replications: reps,
		Metrics:      []results.MetricStats{goodput, amp, p99},
	}
}

// TestPrintSweepUnits: p99 is printed in milliseconds, with its unit, and so is its half-width.
func TestPrintSweepUnits(t *testing.T) {
	pts := []sweep.PointStats{point("500/s", 5,
		results.MetricStats{Mean: 502.3, CI95: 8.5, N: 5},
		results.MetricStats{Mean: 1.25, CI95: 0.01, N: 5},
		results.MetricStats{Mean: 0.02424, CI95: 0.00053, N: 5})}
	var b bytes.Buffer
	printSweep(&b, pts)
	out := b.String()
	for _, want := range []string{
		"clients[0].workload.rate=500/s",
		"goodput 502.3 ± 8.5/s",
		"amplification 1.25 ± 0.01",
		"p99 24.24 ± 0.53 ms",
		"95 % confidence half-width",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("sweep summary lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "no interval") {
		t.Errorf("five replications have an interval:\n%s", out)
	}
}

// TestPrintSweepOneReplication: with one replication there is no interval (CI95 is NaN): the
// line gives the means alone, says why, and never prints NaN.
func TestPrintSweepOneReplication(t *testing.T) {
	nan := math.NaN()
	pts := []sweep.PointStats{
		point("500/s", 1,
			results.MetricStats{Mean: 494.6, CI95: nan, N: 1},
			results.MetricStats{Mean: 1, CI95: nan, N: 1},
			results.MetricStats{Mean: 0.02405, CI95: nan, N: 1}),
		// No successes at all: p99 has no value in any replication.
		point("9000/s", 1,
			results.MetricStats{Mean: 0, CI95: nan, N: 1},
			results.MetricStats{Mean: 4, CI95: nan, N: 1},
			results.MetricStats{Mean: nan, CI95: nan, N: 0}),
	}
	var b bytes.Buffer
	printSweep(&b, pts)
	out := b.String()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("want a header and two point lines, got:\n%s", out)
	}
	for _, l := range lines[1:] {
		if strings.Contains(l, "NaN") || strings.Contains(l, "±") {
			t.Errorf("one replication printed an interval or NaN: %q", l)
		}
	}
	for _, want := range []string{"goodput 494.6/s", "amplification 1 ", "p99 24.05 ms", "(1 replication: no interval)"} {
		if !strings.Contains(lines[1], want) {
			t.Errorf("line %q lacks %q", lines[1], want)
		}
	}
	for _, want := range []string{"goodput 0/s", "amplification 4 ", "p99 -", "(1 replication: no interval)"} {
		if !strings.Contains(lines[2], want) {
			t.Errorf("line %q lacks %q", lines[2], want)
		}
	}
}

// TestRunSaysWhereTodaySits: a run says where the scenario's load sits against its configured
// ceiling, and shows its phases around the trigger, where the whole run's averages hide the
// surge (the spike's failures: 850/s over the run, 63 % of operations during the spike).
func TestRunSaysWhereTodaySits(t *testing.T) {
	var out, errb bytes.Buffer
	if s := run([]string{"run", "spike", "--out", t.TempDir()}, &out, &errb); s != exitOK {
		t.Fatalf("run spike = %d; stderr:\n%s", s, errb.String())
	}
	for _, want := range []string{
		"today's load 1611/s (the scenario as configured, averaged over the run) = 161 % of the configured ceiling 1000/s (ingress request limiter 1000/s on db)",
		"before spike             0s–10s            508.4     508.4     0.0 %   1.000",
		"during spike             10s–30s          3003.6    1049.7    62.8 %   2.864",
		"after spike              30s–45s",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("run spike does not say %q:\n%s", want, out.String())
		}
	}
}
