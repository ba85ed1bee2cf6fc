// Package parallel runs independent jobs on a few goroutines with results that do not depend on
// scheduling: indices are handed out in order and every result is stored at its index, never in
// completion order. It is the one worker pool of the commands and of the searches (tipping,
// splitting) that run many simulations.
package parallel

import (
	"context"
	"sync"
)

// Map runs job(ctx, i) for i in [0, n) on up to workers goroutines (at least one). It stops
// handing out indices once ctx is done or a job has failed; jobs already running finish (the
// ctx they are given is cancelled on the first failure, for jobs that can stop early). Every
// index below the lowest that failed has been handed out, so the first error by index does not
// depend on scheduling. out[i] and errs[i] hold job i's result; done[i] is true when job i ran
// and succeeded. progress, when not nil, is called after each success with the number done.
func Map[T any](ctx context.Context, n, workers int, job func(ctx context.Context, i int) (T, error),
	progress func(done, total int)) (out []T, errs []error, done []bool) {
	out, errs, done = make([]T, n), make([]error, n), make([]bool, n)
	inner, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex // guards next and finished
	next, finished := 0, 0
	var wg sync.WaitGroup
	for range max(1, min(workers, n)) {
		wg.Go(func() {
			for {
				mu.Lock()
				i := next
				if i >= n || inner.Err() != nil {
					mu.Unlock()
					return
				}
				next++
				mu.Unlock()
				v, err := job(inner, i)
				if err != nil {
					errs[i] = err
					cancel()
					continue
				}
				out[i], done[i] = v, true
				if progress != nil {
					mu.Lock()
					finished++
					progress(finished, n)
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	return out, errs, done
}

// First returns the lowest index whose error is set, and -1 when none is.
func First(errs []error) int {
	for i, err := range errs {
		if err != nil {
			return i
		}
	}
	return -1
}
