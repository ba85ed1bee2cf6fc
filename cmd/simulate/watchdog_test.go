package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/results"
)

// queueBomb is a run whose estimate is modest (a few MiB: it counts offered work) but whose
// queue grows without bound: 200 000 operations a second at one worker of 10 ms, for an hour.
const queueBomb = `name: bomb
duration: 1h
interval: 1s
topology:
  nodes:
    - {name: db, workers: 1, service: exp(10ms)}
clients:
  - {name: app, count: 10, workload: {rate: 200000/s}, mix: {find: 1}}
`

// limitedChild runs simulate args in a child process, killed after a minute (a limit not
// enforced would otherwise run for hours), and returns its exit status, stderr, peak resident
// memory and wall time.
func limitedChild(t *testing.T, args ...string) (status int, stderr string, peakRSS int64, wall time.Duration) {
	t.Helper()
	cmd, errb := child(t, args...)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(time.Minute, func() { _ = cmd.Process.Kill() })
	defer timer.Stop()
	_ = cmd.Wait()
	wall = time.Since(start)
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		peakRSS = ru.Maxrss << 10 // KiB on Linux
	}
	return cmd.ProcessState.ExitCode(), errb.String(), peakRSS, wall
}

// manifestPartial reads why dir's result is partial ("" when whole).
func manifestPartial(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, results.ManifestFile))
	if err != nil {
		t.Fatalf("no manifest in %s: %v", dir, err)
	}
	var m results.Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m.Partial
}

// TestMaxMemoryEnforced: a queue bomb that the estimate lets through is stopped when the memory
// in use crosses --max-memory, within the stated margin (10 % + 64 MiB of resident memory): the
// run so far is written, marked partial with the reason, the reason is on stderr, and the exit
// status is 1. A sweep of it keeps its finished points the same way.
func TestMaxMemoryEnforced(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a queue bomb to 200 MiB")
	}
	tmp := t.TempDir()
	bomb := filepath.Join(tmp, "bomb.yaml")
	if err := os.WriteFile(bomb, []byte(queueBomb), 0o644); err != nil {
		t.Fatal(err)
	}
	const limit = 200 << 20
	out := filepath.Join(tmp, "run")
	status, stderr, peak, wall := limitedChild(t, "run", bomb, "--max-memory", "200MiB", "--out", out)
	t.Logf("queue bomb under --max-memory 200MiB: peak RSS %.0f MiB, %s", float64(peak)/(1<<20), wall.Round(10*time.Millisecond))
	if status != exitFailure {
		t.Errorf("exit %d, want %d (a limit crossed)\n%s", status, exitFailure, stderr)
	}
	if !strings.Contains(stderr, "stopped: memory in use") || !strings.Contains(stderr, "over --max-memory 200 MiB") {
		t.Errorf("stderr does not give the reason:\n%s", stderr)
	}
	if !raceEnabled && peak > limit+limit/10+64<<20 { // the race detector's shadow memory is not the runtime's
		t.Errorf("peak RSS %d MiB, over --max-memory 200MiB + 10 %% + 64 MiB", peak>>20)
	}
	if wall > 20*time.Second {
		t.Errorf("took %s to stop", wall)
	}
	if p := manifestPartial(t, out); !strings.Contains(p, "over --max-memory 200 MiB") || !strings.Contains(p, "stopped at ") {
		t.Errorf("manifest partial = %q, want the limit and where the run stopped", p)
	}

	// A sweep: two points, the second a bomb. The first point is kept; the sweep is partial.
	sweep := filepath.Join(tmp, "sweep")
	status, stderr, peak, _ = limitedChild(t, "sweep", bomb, "--vary", "clients[0].workload.rate=1/s,200000/s",
		"--replications", "1", "--workers", "1", "--max-memory", "200MiB", "--out", sweep)
	if status != exitFailure || !strings.Contains(stderr, "over --max-memory 200 MiB") {
		t.Errorf("sweep: exit %d, want %d with the reason\n%s", status, exitFailure, stderr)
	}
	if !raceEnabled && peak > limit+limit/10+64<<20 { // the race detector's shadow memory is not the runtime's
		t.Errorf("sweep: peak RSS %d MiB, over --max-memory 200MiB + 10 %% + 64 MiB", peak>>20)
	}
	if p := manifestPartial(t, sweep); !strings.HasPrefix(p, "stopped: memory in use") || !strings.Contains(p, "1 of 2 points complete") {
		t.Errorf("sweep: manifest partial = %q, want the limit and the point kept", p)
	}
}

// TestMaxTimeEnforced: a retry storm the estimate cannot see (every rejected attempt retried at
// once, up to 100 attempts: about 2.5 s estimated, 13 s of work on this machine unlimited) is
// stopped under --max-time 3s within the stated margin (1 s), written partial with the reason,
// and exits 1.
func TestMaxTimeEnforced(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a retry storm for 3 s")
	}
	out := filepath.Join(t.TempDir(), "storm")
	status, stderr, _, wall := limitedChild(t, "run", "rejection-cost-storm", "--set", "duration=150s",
		"--set", "sweep.parameters=null", "--set", "clients[0].driver={retryPolicy: custom, custom: {maxAttempts: 100, backoff: {kind: none}}}", "--max-time", "3s", "--out", out)
	t.Logf("retry storm under --max-time 3s: %s", wall.Round(10*time.Millisecond))
	if status != exitFailure {
		t.Errorf("exit %d, want %d (a limit crossed)\n%s", status, exitFailure, stderr)
	}
	if !strings.Contains(stderr, "over --max-time 3s") {
		t.Errorf("stderr does not give the reason:\n%s", stderr)
	}
	if wall > 3*time.Second+5*time.Second { // 1 s stated; generous on a loaded machine
		t.Errorf("took %s under --max-time 3s", wall)
	}
	if p := manifestPartial(t, out); !strings.Contains(p, "over --max-time 3s") {
		t.Errorf("manifest partial = %q, want the limit", p)
	}
}

// TestRareStepEstimated: rare's --step counts in the estimate: a trajectory recorded every
// 100 µs holds a row per checkpoint, and one of spike is refused under --max-memory 1GiB before
// anything runs, naming --step's cost and the limit.
func TestRareStepEstimated(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd, errb := child(t, "rare", "spike", "--step", "100µs", "--levels", "10,100", "--n", "2", "--repetitions", "1",
		"--max-memory", "1GiB", "--out", filepath.Join(t.TempDir(), "rare"))
	_ = cmd.Start()
	go func() { <-ctx.Done(); _ = cmd.Process.Kill() }()
	_ = cmd.Wait()
	if s := cmd.ProcessState.ExitCode(); s != exitUsage || !strings.Contains(errb.String(), "more than --max-memory 1 GiB") {
		t.Errorf("exit %d, want %d, refused with the limit:\n%s", s, exitUsage, errb.String())
	}
}
