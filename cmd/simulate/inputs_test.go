package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/overloadsim/overloadsim/experiment"
	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/sweep"
)

// TestShardCountRefused: --shard n is at most experiment.MaxShards, a usage error naming the flag
// and the rule. (More shards than runs is allowed: the shards past the last run own nothing,
// so that a job array of fixed size fits any work; TestMergeEqualsOneMachine runs 13.)
func TestShardCountRefused(t *testing.T) {
	for _, tc := range []struct{ shard, want string }{
		{"0/1000000000", "--shard: shard \"0/1000000000\": n is 1000000000: there may be at most 100000 shards"},
	} {
		for _, cmd := range []string{"sweep", "map"} {
			dir := filepath.Join(t.TempDir(), "out")
			args := shardSweepArgs(dir, "--shard", tc.shard)
			if cmd == "map" {
				args = shardMapArgs(dir, "--shard", tc.shard)
			}
			var errb bytes.Buffer
			if s := run(args, io.Discard, &errb); s != exitUsage || !strings.Contains(errb.String(), tc.want) {
				t.Errorf("%s --shard %s: exit %d, %s; want exit %d saying %q", cmd, tc.shard, s, errb.String(), exitUsage, tc.want)
			}
		}
	}
}

// TestMergeRefusesOtherSLO: shards of one sweep made with different --slo are different work
// (the latency knee depends on it), refused in either order, naming both values.
func TestMergeRefusesOtherSLO(t *testing.T) {
	base := t.TempDir()
	a, b := filepath.Join(base, "0"), filepath.Join(base, "1")
	runOK(t, shardSweepArgs(a, "--shard", "0/2", "--slo", "20ms")...)
	runOK(t, shardSweepArgs(b, "--shard", "1/2", "--slo", "50ms")...)
	for _, order := range [][]string{{a, b}, {b, a}} {
		var errb bytes.Buffer
		args := append([]string{"merge"}, order...)
		args = append(args, "--out", filepath.Join(base, "merged"))
		s := run(args, io.Discard, &errb)
		if s == exitOK || !strings.Contains(errb.String(), "latency objective (--slo)") ||
			!strings.Contains(errb.String(), "20ms") || !strings.Contains(errb.String(), "50ms") {
			t.Errorf("merge %v: exit %d, %s; want it refused naming --slo, 20ms and 50ms", order, s, errb.String())
		}
	}
}

// TestCheckRefusesUnlistedSummary: check reads a run's summary.json only if the manifest lists
// it. A folder whose manifest leaves it out (another run's summary copied in, the manifest
// rewritten without it) was compared, and passed.
func TestCheckRefusesUnlistedSummary(t *testing.T) {
	base := t.TempDir()
	dir, baseline := filepath.Join(base, "run"), filepath.Join(base, "b.json")
	runOK(t, "run", "healthy", "--set", "duration=3s", "--set", "warmup=1s", "--out", dir)
	runOK(t, "check", "--write-baseline", baseline, dir)
	data, err := os.ReadFile(filepath.Join(dir, results.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	var m results.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	m.Files = slices.DeleteFunc(m.Files, func(f results.FileDigest) bool { return f.Name == results.SummaryFile })
	if data, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, results.ManifestFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
	s, _, errb := runStatus("check", "--baseline", baseline, dir)
	if s == exitOK || !strings.Contains(errb, "does not list summary.json") {
		t.Errorf("check of a folder whose manifest leaves out summary.json: exit %d, %s; want it refused naming summary.json", s, errb)
	}
}

// TestSweepResumeSaysDiscarded: a kept unit whose file holds another unit (copied over it) is
// not adopted: the sweep says so on stderr, naming the file, and runs the unit again.
func TestSweepResumeSaysDiscarded(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s")
	sc, err := loadScenario("healthy", []string{"duration=3s", "warmup=1s"})
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Vary("clients[0].workload.rate", "200/s,400/s,600/s"); err != nil {
		t.Fatal(err)
	}
	if err := sc.Set("sweep.replications", "2"); err != nil {
		t.Fatal(err)
	}
	u, _, err := experiment.OpenUnits(dir, experiment.UnitsKey(experiment.Header(sc, sc.Seed, label()), 2))
	if err != nil {
		t.Fatal(err)
	}
	var fake results.Summary
	fake.Total.Goodput, fake.Total.Issued, fake.Total.Succeeded = 12345, 1, 1
	if err := u.Put(0, fake); err != nil {
		t.Fatal(err)
	}
	unit := func(i int) string { return filepath.Join(dir, results.UnitsDir, fmt.Sprintf("%08d.gob", i)) }
	data, err := os.ReadFile(unit(0))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(unit(5), data, 0o644); err != nil { // unit 0 copied over unit 5
		t.Fatal(err)
	}
	_, _, errb := runStatus(sweepArgs(dir)...)
	if !strings.Contains(errb, "not resuming from "+unit(5)+": holds unit 0, not unit 5") {
		t.Errorf("the resumed sweep does not name the unit file it set aside:\n%s", errb)
	}
	_, pts, err := sweep.ReadSweep(dir)
	if err != nil {
		t.Fatal(err)
	}
	if g, _ := pts[2].Metric("total.goodput"); g.Mean > 1000 {
		t.Errorf("last point's goodput %g: unit 0's file, copied over unit 5, was adopted", g.Mean)
	}
}

// TestVaryStepLargerThanRange: --vary path=1000/s:2000/s:5000/s, whose step exceeds the range,
// swept one point silently; it is refused, naming the flag, the value and the rule.
func TestVaryStepLargerThanRange(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	s, _, errb := runStatus("sweep", "healthy", "--vary", "clients[0].workload.rate=1000/s:2000/s:5000/s", "--out", dir)
	if s == exitOK || !strings.Contains(errb, "--vary clients[0].workload.rate=1000/s:2000/s:5000/s") ||
		!strings.Contains(errb, "the step 5000/s is larger than to − from (2000/s − 1000/s)") {
		t.Errorf("sweep --vary with a step larger than its range: exit %d, %s; want it refused naming --vary and the rule", s, errb)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("the refused sweep wrote %s", dir)
	}
}

// TestTraceOptionsNeedTrace: --trace-window (and --trace-clients) without --trace were ignored;
// they are a usage error naming both flags.
func TestTraceOptionsNeedTrace(t *testing.T) {
	for _, args := range [][]string{{"--trace-window", "1s:2s"}, {"--trace-clients", "3"}} {
		dir := filepath.Join(t.TempDir(), "out")
		s, _, errb := runStatus(append([]string{"run", "healthy", "--set", "duration=3s", "--out", dir}, args...)...)
		if s != exitUsage || !strings.Contains(errb, args[0]+" "+args[1]+" without --trace") {
			t.Errorf("run %s without --trace: exit %d, %s; want exit %d naming %s and --trace", args, s, errb, exitUsage, args[0])
		}
		if _, err := os.Stat(dir); err == nil {
			t.Errorf("run %s without --trace wrote %s", args, dir)
		}
	}
	runOK(t, "run", "healthy", "--set", "duration=3s", "--out", filepath.Join(t.TempDir(), "ok"),
		"--trace", filepath.Join(t.TempDir(), "t.json"), "--trace-window", "1s:2s")
}
