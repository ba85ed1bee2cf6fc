package main

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
	"time"

	"github.com/overloadsim/overloadsim/experiment"
)

// watchEvery is how often, in wall time, the watchdog samples the live heap and the time taken.
const watchEvery = 100 * time.Millisecond

// The metrics the watchdog reads: the heap the last garbage collection found live, all the
// memory the Go runtime has mapped, and what of it is released to the operating system. Mapped
// less released is the memory the runtime's soft limit holds down (debug.SetMemoryLimit): the
// heap, garbage not yet collected included, and the runtime's own structures.
const (
	liveHeapMetric = "/gc/heap/live:bytes"
	totalMetric    = "/memory/classes/total:bytes"
	releasedMetric = "/memory/classes/heap/released:bytes"
)

// processStart is when the process started, near enough: --max-time bounds the whole command.
var processStart = time.Now()

// limitStop holds why the command stopped on a limit it crossed while running ("stopped: live
// heap 1.02 GiB over --max-memory 1 GiB"); nil while it crossed none.
var limitStop atomic.Pointer[string]

// limitStopped reports whether the command crossed a limit: its runs in progress stop
// (bench.RunOptions.Stop) and it starts no new one.
func limitStopped() bool { return limitStop.Load() != nil }

// stopCause is why a command stopped early: the limit it crossed, or an interrupt (a signal).
func stopCause() string {
	if r := limitStop.Load(); r != nil {
		return *r
	}
	return "interrupted"
}

// guard starts what watches a command's work while it runs: the interrupt handling
// (interruptible, with its waiting and kept texts) and the limits' watchdog (enforce). Its stop
// ends the watchdog, then the interrupt handling, the order in which the two were started.
func (l *limits) guard(stderr io.Writer, waiting func() string, kept string) (ctx context.Context, stop func()) {
	ctx, stopSignals := interruptible(stderr, waiting, kept)
	ctx, unwatch := l.enforce(ctx, stderr)
	return ctx, func() { unwatch(); stopSignals() }
}

// enforce holds the command to its limits while it runs, not only to their estimate: it sets
// the runtime's soft memory limit to --max-memory (the garbage collector works harder as the
// heap nears it), and every watchEvery of wall time it samples the memory in use and the time
// since the process started. When the live heap is over --max-memory, or the time over --max-time, it
// records why (limitStop), says so on stderr and cancels the returned context: the command then
// stops the runs in progress where they stand (runOptions' Stop) and starts no new one, and
// keeps what finished as an interrupt does, marked partial with the reason; run exits with
// exitFailure. stop ends the watch and restores the memory limit.
func (l *limits) enforce(parent context.Context, stderr io.Writer) (ctx context.Context, stop func()) {
	limitStop.Store(nil)
	ctx, cancel := context.WithCancel(parent)
	old := debug.SetMemoryLimit(int64(min(float64(l.MaxMemory), 1<<62)))
	quit := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(watchEvery)
		defer tick.Stop()
		samples := []metrics.Sample{{Name: liveHeapMetric}, {Name: totalMetric}, {Name: releasedMetric}}
		for {
			select {
			case <-quit:
				return
			case <-tick.C:
			}
			if reason := l.crossed(samples, time.Since(processStart)); reason != "" {
				limitStop.Store(&reason)
				cancel()
				fmt.Fprintf(stderr, "\n%s: stopping the runs in progress and keeping what finished\n", reason)
				return
			}
		}
	}()
	return ctx, func() {
		close(quit)
		<-done
		cancel()
		debug.SetMemoryLimit(old)
	}
}

// crossed samples the memory and says which limit is crossed, if any ("" when none): the
// memory in use over --max-memory, or elapsed over --max-time. The memory in use is what the
// runtime holds (mapped less released): with the soft limit at --max-memory the collector keeps
// it below while what is live fits, garbage included, so it crosses the limit only when the
// live heap nears it, and stopping then bounds the process's resident memory, not only its
// heap.
func (l *limits) crossed(samples []metrics.Sample, elapsed time.Duration) string {
	if elapsed > l.MaxTime {
		return fmt.Sprintf("stopped: %.3g s over --max-time %s", elapsed.Seconds(), l.MaxTime)
	}
	metrics.Read(samples)
	live, inUse := samples[0].Value.Uint64(), samples[1].Value.Uint64()-samples[2].Value.Uint64()
	if float64(inUse) > float64(l.MaxMemory) {
		return fmt.Sprintf("stopped: memory in use %s (live heap %s) over --max-memory %s", experiment.ByteSize(inUse), experiment.ByteSize(live), l.MaxMemory)
	}
	return ""
}
