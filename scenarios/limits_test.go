package scenarios

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadRefuses: Load refuses what is not a regular scenario file of at most MaxFileBytes with
// a Problem naming the path, the kind of file and the rule, without reading it: /dev/zero,
// which never ends, costs nothing, and a file one byte too large costs its limit at most.
func TestLoadRefuses(t *testing.T) {
	dir := t.TempDir()
	tooBig := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(tooBig, []byte(hostileBase+"#"+strings.Repeat("x", MaxFileBytes-len(hostileBase))), 0o644); err != nil {
		t.Fatal(err)
	}
	justRight := filepath.Join(dir, "full.yaml")
	if err := os.WriteFile(justRight, []byte(hostileBase+"#"+strings.Repeat("x", MaxFileBytes-len(hostileBase)-1)), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		gloss, path, want string
		maxAlloc          uint64
	}{
		{"a directory", dir, dir + ": (file): a directory: a scenario is a regular file, not a directory, device, pipe or socket", 1 << 20},
		{"one byte too large", tooBig, tooBig + ": (file): 1048577 bytes: a scenario file holds at most 1 MiB (1048576 bytes)", 1 << 20},
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		cases = append(cases, struct {
			gloss, path, want string
			maxAlloc          uint64
		}{"/dev/zero", "/dev/zero", "/dev/zero: (file): a character device: a scenario is a regular file, not a directory, device, pipe or socket", 1 << 20})
	}
	for _, tc := range cases {
		var err error
		alloc := measureAlloc(func() { _, err = Load(tc.path) })
		if err == nil || err.Error() != tc.want || !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: Load = %v, want %q", tc.gloss, err, tc.want)
		}
		if alloc > tc.maxAlloc {
			t.Errorf("%s: Load allocated %d bytes, want at most %d", tc.gloss, alloc, tc.maxAlloc)
		}
	}
	// A file of exactly MaxFileBytes is read and parsed (a comment fills it).
	if _, err := Load(justRight); err != nil {
		t.Errorf("Load(a file of MaxFileBytes) = %v, want it read", err)
	}
	// A file Load cannot open is the os package's error, not a problem of the scenario.
	if _, err := Load(filepath.Join(dir, "missing.yaml")); err == nil || !errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrInvalid) {
		t.Errorf("Load(missing) = %v, want fs.ErrNotExist", err)
	}
}

// TestDataFileLimits: the files a scenario names are read with MaxDataFileBytes, and refused
// when they are not regular files.
func TestDataFileLimits(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.csv")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	// A sparse file: its size is over the limit without writing it.
	if err := f.Truncate(MaxDataFileBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	name := filepath.Join(dir, "s.yaml")
	for _, tc := range []struct{ src, want string }{
		{hostileBase + "topology:\n  nodes: [{name: db, service: empirical(big.csv)}]\n",
			"topology.nodes[0].service: empirical(big.csv): file \"big.csv\": 67108865 bytes: a file a scenario names holds at most 64 MiB"},
		{"duration: 10s\nclients: [{name: a, workload: {rate: trace(big.csv)}}]\n",
			"clients[0].workload.rate: big.csv: 67108865 bytes: a file a scenario names holds at most 64 MiB"},
		{"duration: 10s\nclients: [{name: a, workload: {rate: trace(.)}}]\n",
			"clients[0].workload.rate: .: a directory: a file a scenario names must be a regular file"},
	} {
		var err error
		alloc := measureAlloc(func() { _, err = Parse(name, []byte(tc.src)) })
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse = %v, want %q", err, tc.want)
		}
		if alloc > 1<<20 {
			t.Errorf("Parse allocated %d bytes reading a file it refuses", alloc)
		}
	}
}

// TestSample: k of n indices, evenly spaced, the first and last included.
func TestSample(t *testing.T) {
	for _, tc := range []struct {
		n, k int
		want string
	}{
		{0, 5, "[]"}, {1, 5, "[0]"}, {3, 0, "[0 2]"}, {3, 5, "[0 1 2]"}, {10, 4, "[0 3 6 9]"}, {10000, 3, "[0 4999 9999]"},
	} {
		if got := fmt.Sprint(sample(tc.n, tc.k)); got != tc.want {
			t.Errorf("sample(%d, %d) = %s, want %s", tc.n, tc.k, got, tc.want)
		}
	}
}

// TestSweepTrialBudget: a sweep too long to try every value on when the scenario is read has
// a share of them tried, the first and last included; a bad value left untried is reported
// when Points builds its point.
func TestSweepTrialBudget(t *testing.T) {
	values := make([]string, 1000)
	for i := range values {
		values[i] = "1s"
	}
	values[1] = "6s" // longer than the run: not among the values tried
	src := strings.Replace(hostileBase, "10s", "5s", 1) + "sweep: {parameters: {interval: [" + strings.Join(values, ", ") + "]}}\n"
	sc, err := Parse("budget.yaml", []byte(src))
	if err != nil {
		t.Fatalf("Parse = %v; want the bad value left to Points", err)
	}
	if _, err := sc.Points(); err == nil || !strings.Contains(err.Error(), "interval: 6s: must be ≤ duration 5s") {
		t.Errorf("Points = %v, want the bad value reported", err)
	}
	values[1], values[999] = "1s", "6s" // the last value is always tried
	src = strings.Replace(hostileBase, "10s", "5s", 1) + "sweep: {parameters: {interval: [" + strings.Join(values, ", ") + "]}}\n"
	if _, err := Parse("budget.yaml", []byte(src)); err == nil || !strings.Contains(err.Error(), "sweep.parameters.interval: 6s: must be ≤ duration 5s") {
		t.Errorf("Parse = %v, want the last value reported", err)
	}
}
