package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// progressBar draws a one-line bar on w when w is a terminal, and nothing otherwise.
type progressBar struct {
	w     io.Writer
	label string
	on    bool
	start time.Time // for the elapsed time and the estimate of what is left
}

func newProgressBar(w io.Writer, label string) *progressBar {
	f, ok := w.(*os.File)
	on := false
	if ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			on = true
		}
	}
	return &progressBar{w: w, label: label, on: on, start: time.Now()}
}

func (p *progressBar) update(done, total int) {
	if !p.on {
		return
	}
	const width = 30
	filled := width * done / max(total, 1)
	elapsed := time.Since(p.start)
	fmt.Fprintf(p.w, "\r%s [%s%s] %d/%d, %s elapsed", p.label, strings.Repeat("#", filled), strings.Repeat(" ", width-filled),
		done, total, elapsed.Round(time.Second))
	if done > 0 && done < total {
		left := time.Duration(float64(elapsed) * float64(total-done) / float64(done))
		fmt.Fprintf(p.w, ", about %s left   ", left.Round(time.Second))
	}
	if done == total {
		fmt.Fprintln(p.w)
	}
}

// runProgress draws a one-line progress of a single run in virtual time, with the wall time
// taken and an estimate of what remains, on w when w is a terminal and the run has taken more
// than a second; it reads the wall clock only to draw the line, never inside the model.
type runProgress struct {
	bar   *progressBar
	start time.Time
	shown bool
}

func newRunProgress(w io.Writer, label string) *runProgress {
	return &runProgress{bar: newProgressBar(w, label), start: time.Now()}
}

// update is bench.RunOptions.Progress.
func (p *runProgress) update(now, horizon time.Duration) {
	if !p.bar.on {
		return
	}
	elapsed := time.Since(p.start)
	if elapsed < time.Second && !p.shown {
		return
	}
	p.shown = true
	frac := float64(now) / float64(max(horizon, 1))
	eta := time.Duration(float64(elapsed) * (1 - frac) / max(frac, 1e-9))
	fmt.Fprintf(p.bar.w, "\r%s: %s of %s virtual, %s elapsed, about %s left   ",
		p.bar.label, now.Round(time.Millisecond), horizon, elapsed.Round(100*time.Millisecond), eta.Round(100*time.Millisecond))
	if now >= horizon {
		fmt.Fprintln(p.bar.w)
	}
}

// checkWritable makes sure path can be written before any long work starts: it creates the
// folder (dir true) or the file's parent folders, and writes and removes a probe file there.
func checkWritable(path string, dir bool) error {
	folder := path
	if !dir {
		folder = filepath.Dir(path)
		if st, err := os.Stat(path); err == nil && st.IsDir() {
			return fmt.Errorf("%s is a folder: want a file name", path)
		}
	}
	if err := os.MkdirAll(folder, 0o755); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	f, err := os.CreateTemp(folder, ".probe-*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %v", path, errors.Unwrap(err))
	}
	f.Close()
	return os.Remove(f.Name())
}

// progressBars returns what draws a progress bar on w for each batch of runs an engine labels
// (experiment.Hooks.Bar).
func progressBars(w io.Writer) func(label string) func(done, total int) {
	return func(label string) func(done, total int) { return newProgressBar(w, label).update }
}
