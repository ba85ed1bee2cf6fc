package experiment

import (
	"fmt"
	"io"
	"sync/atomic"
)

// Hooks are how a command watches an engine's work while it runs: what it tells, its progress,
// the runs in progress. None of them changes a result, and each may be left out.
type Hooks struct {
	// Log is where the stages of the work are told as they start (nil: nowhere).
	Log io.Writer
	// Bar returns the progress callback of a batch of runs labelled label (nil: no progress).
	Bar func(label string) func(done, total int)
	// Running, when not nil, counts the runs in progress, for what a watchdog or an interrupt
	// says while it waits for them.
	Running *atomic.Int64
}

// Logf tells a stage of the work on Log, when there is one.
func (h Hooks) Logf(format string, a ...any) {
	if h.Log != nil {
		fmt.Fprintf(h.Log, format, a...)
	}
}

// Progress is the progress callback of a batch of runs labelled label, nil when there is no Bar.
func (h Hooks) Progress(label string) func(done, total int) {
	if h.Bar == nil {
		return nil
	}
	return h.Bar(label)
}

// Start counts a run in progress until the returned func is called.
func (h Hooks) Start() (end func()) {
	if h.Running == nil {
		return func() {}
	}
	h.Running.Add(1)
	return func() { h.Running.Add(-1) }
}
