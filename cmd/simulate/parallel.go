package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
)

// runParallel runs jobs 0..n-1 on up to workers goroutines. Results are stored by index, never in
// completion order, so the output cannot depend on the worker count or on scheduling. When ctx
// is cancelled no new job starts; jobs already running finish and are kept, and done reports
// which indices completed. The first job error stops the rest the same way and is returned.
func runParallel[T any](ctx context.Context, n, workers int, job func(i int) (T, error), progress func(done, total int)) (out []T, done []bool, err error) {
	out, done = make([]T, n), make([]bool, n)
	if workers < 1 {
		workers = 1
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan int)
	type result struct {
		i   int
		v   T
		err error
	}
	results := make(chan result)
	var wg sync.WaitGroup
	for w := 0; w < min(workers, n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				v, err := job(i)
				results <- result{i, v, err}
			}
		}()
	}
	go func() { // hand out indices in order until cancelled
		defer close(next)
		for i := 0; i < n; i++ {
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(results) }()
	finished := 0
	for r := range results {
		if r.err != nil {
			if err == nil {
				err = fmt.Errorf("run %d: %w", r.i, r.err)
			}
			cancel()
			continue
		}
		out[r.i], done[r.i] = r.v, true
		finished++
		if progress != nil {
			progress(finished, n)
		}
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
