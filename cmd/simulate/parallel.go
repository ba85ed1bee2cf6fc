package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"overloadsim/internal/parallel"
)

// runParallel runs jobs 0..n-1 on up to workers goroutines (internal/parallel): results are
// stored by index, never in completion order, so the output cannot depend on the worker count or
// on scheduling. When ctx is cancelled no new job starts; jobs already running finish and are
// kept, and done reports which indices completed. A job error stops the rest the same way, and
// the first error by index is returned.
func runParallel[T any](ctx context.Context, n, workers int, job func(i int) (T, error), progress func(done, total int)) (out []T, done []bool, err error) {
	out, errs, done := parallel.Map(ctx, n, workers, func(_ context.Context, i int) (T, error) { return job(i) }, progress)
	if i := parallel.First(errs); i >= 0 {
		err = fmt.Errorf("run %d: %w", i, errs[i])
	}
	return out, done, err
}

// progressBar draws a one-line bar on w when w is a terminal, and nothing otherwise.
type progressBar struct {
	w     io.Writer
	label string
	on    bool
}

func newProgressBar(w io.Writer, label string) *progressBar {
	f, ok := w.(*os.File)
	on := false
	if ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			on = true
		}
	}
	return &progressBar{w: w, label: label, on: on}
}

func (p *progressBar) update(done, total int) {
	if !p.on {
		return
	}
	const width = 30
	filled := width * done / max(total, 1)
	fmt.Fprintf(p.w, "\r%s [%s%s] %d/%d", p.label, strings.Repeat("#", filled), strings.Repeat(" ", width-filled), done, total)
	if done == total {
		fmt.Fprintln(p.w)
	}
}
