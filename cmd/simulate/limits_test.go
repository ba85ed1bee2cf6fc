package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/bench"
	"github.com/overloadsim/overloadsim/results"
)

// TestRefusedUpFront: work that cannot finish, or would not fit in memory, is refused before
// any of it runs (no output folder is made), with the estimate and the flag that raises the
// limit, and without allocating for it.
func TestRefusedUpFront(t *testing.T) {
	tmp := t.TempDir()
	huge := filepath.Join(tmp, "huge.yaml")
	var b strings.Builder
	b.WriteString("name: huge\nduration: 60s\ntopology:\n  nodes:\n    - {name: db, workers: 8, service: exp(1ms)}\nclients:\n")
	for i := range 100 {
		b.WriteString("  - {name: g" + strconv.Itoa(i) + ", count: 100000, workload: {rate: 10/s}, mix: {find: 1}}\n")
	}
	if err := os.WriteFile(huge, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "out")
	for _, c := range []struct {
		gloss string
		args  []string
		want  []string
	}{
		{"a billion replications", []string{"sweep", "healthy", "--replications", "1000000000"},
			[]string{"1000000000 replications", "days on", "--max-time 4h0m0s"}},
		{"a billion seconds", []string{"run", "healthy", "--set", "duration=1000000000s"},
			[]string{"one run of healthy", "events", "--max-time"}},
		{"1 ns intervals", []string{"run", "healthy", "--set", "interval=1ns"},
			[]string{"TiB of memory", "--max-memory 8 GiB"}},
		{"100 groups of 100 000 clients", []string{"run", huge},
			[]string{"GiB of memory", "--max-memory"}},
		{"a lower --max-time", []string{"run", "healthy", "--max-time", "1ms"},
			[]string{"more than --max-time 1ms"}},
		{"a lower --max-memory", []string{"run", "healthy", "--max-memory", "1KiB"},
			[]string{"more than --max-memory 1 KiB"}},
		{"an M/M/c horizon of 100 000 h", []string{"mmc", "--horizon", "100000h"},
			[]string{"M/M/4 over --horizon", "--max-time"}},
		{"a map of a billion replications", []string{"map", "tiny-cut.yaml", "--vary", "faults[0].speed=0.3,0.6", "--vary", "faults[0].for=1s,2s",
			"--replications", "100000000", "--max-runs", "2000000000"}, []string{"--max-time"}},
		{"a bad --max-memory", []string{"run", "healthy", "--max-memory", "lots"}, []string{"want a size > 0"}},
	} {
		args := c.args
		if args[0] != "mmc" {
			args = append(args, "--out", out)
		}
		for i, a := range args {
			if a == "tiny-cut.yaml" {
				args[i] = filepath.Join("testdata", a)
			}
		}
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		start := time.Now()
		s, stdout, stderr := runStatus(args...)
		runtime.ReadMemStats(&m1)
		if s != exitUsage {
			t.Errorf("%s: exit %d, want %d (refused)\n%s%s", c.gloss, s, exitUsage, stdout, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s: the refusal lacks %q:\n%s", c.gloss, w, stderr)
			}
		}
		if d := m1.TotalAlloc - m0.TotalAlloc; d > 64<<20 {
			t.Errorf("%s: allocated %d MiB before refusing", c.gloss, d>>20)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Logf("%s: took %s to refuse", c.gloss, d)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: the refused work made its output folder", c.gloss)
		}
	}
}

// TestProgressKeepsResults: a run that reports its progress (RunOptions.Progress, which runs
// the loop a hundredth of the horizon at a time) writes the same bytes as one that does not.
func TestProgressKeepsResults(t *testing.T) {
	sc, err := loadScenario("spike", []string{"duration=20s"})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := bench.RunWith(sc, 3, 0, runOptions())
	if err != nil {
		t.Fatal(err)
	}
	opts := runOptions()
	var calls int
	var last time.Duration
	opts.Progress = func(now, horizon time.Duration) {
		calls++
		if now < last || horizon != sc.Duration {
			t.Errorf("progress went from %s to %s of %s", last, now, horizon)
		}
		last = now
	}
	reported, err := bench.RunWith(sc, 3, 0, opts)
	if err != nil {
		t.Fatal(err)
	}
	if calls != 100 || last != sc.Duration {
		t.Errorf("progress reported %d times, last at %s; want 100, the last at the horizon", calls, last)
	}
	a, b := t.TempDir(), t.TempDir()
	if err := results.WriteRunDir(a, plain); err != nil {
		t.Fatal(err)
	}
	if err := results.WriteRunDir(b, reported); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{results.RunFile, results.TimeseriesFile, results.SummaryFile} {
		x, _ := os.ReadFile(filepath.Join(a, f))
		y, _ := os.ReadFile(filepath.Join(b, f))
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs with progress reporting", f)
		}
	}
}
