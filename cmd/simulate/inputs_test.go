package main

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// TestShardCountRefused: --shard n is at most results.MaxShards, a usage error naming the flag
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
