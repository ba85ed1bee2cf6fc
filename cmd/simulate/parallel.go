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

// PlainProgressEvery is how often a progress line goes to a log (stderr a file or a pipe, as in a
// CI job): a long sweep or map that printed nothing for minutes looks hung, and a bar redrawn
// with carriage returns would fill the log.
const PlainProgressEvery = 30 * time.Second

// progressBar draws a one-line bar on w when w is a terminal; when w is a file or a pipe (a
// log), a plain line every PlainProgressEvery and one at the end if any was written; nothing on
// anything else (a buffer).
type progressBar struct {
	w     io.Writer
	label string
	on    bool      // w is a terminal: redraw the bar
	plain bool      // w is a log: a line now and then
	start time.Time // for the elapsed time and the estimate of what is left
	last  time.Time // the last plain line, or start
	wrote bool      // a plain line was written
	now   func() time.Time
}

func newProgressBar(w io.Writer, label string) *progressBar {
	p := &progressBar{w: w, label: label, start: time.Now(), now: time.Now}
	p.last = p.start
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil {
			p.on = st.Mode()&os.ModeCharDevice != 0
			p.plain = !p.on
		}
	}
	return p
}

func (p *progressBar) update(done, total int) {
	switch {
	case p.plain:
		p.line(done, total)
		return
	case !p.on:
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

// line writes a plain progress line to a log: "map: 120/400, 1m0s elapsed, about 2m20s left",
// once PlainProgressEvery has passed since the last one, and the last at the end when any was
// written before, so that a short job leaves nothing and a long one shows it is alive.
func (p *progressBar) line(done, total int) {
	now, end := p.now(), done == total
	if !p.due(now, end) {
		return
	}
	elapsed := now.Sub(p.start)
	fmt.Fprintf(p.w, "%s: %d/%d, %s elapsed", p.label, done, total, elapsed.Round(time.Second))
	if done > 0 && !end {
		left := time.Duration(float64(elapsed) * float64(total-done) / float64(done))
		fmt.Fprintf(p.w, ", about %s left", left.Round(time.Second))
	}
	fmt.Fprintln(p.w)
}

// due says whether a plain line is due at now: PlainProgressEvery after the last (or the
// start), or at the end when one was written before; it records the line.
func (p *progressBar) due(now time.Time, end bool) bool {
	if end && !p.wrote || !end && now.Sub(p.last) < PlainProgressEvery {
		return false
	}
	p.last, p.wrote = now, true
	return true
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
	if p.bar.plain {
		p.plainLine(now, horizon)
		return
	}
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

// plainLine writes a run's progress to a log as progressBar.line does: a line every
// PlainProgressEvery, and one at the end when any was written.
func (p *runProgress) plainLine(now, horizon time.Duration) {
	b := p.bar
	wall := b.now()
	if !b.due(wall, now >= horizon) {
		return
	}
	fmt.Fprintf(b.w, "%s: %s of %s virtual, %s elapsed\n", b.label, now.Round(time.Millisecond), horizon, wall.Sub(b.start).Round(time.Second))
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
