package tipping

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// job is one run: replication rep at x, for the probe with index probe in the round.
type job struct {
	probe int
	x     float64
	rep   int
}

// runJobs runs the jobs on up to workers goroutines and returns their outcomes by job index.
// Workers take jobs in index order and stop taking new ones after a failure, so every job
// before a failed one has run and the error returned, the first by index, does not depend on
// scheduling.
func runJobs(jobs []job, workers int, probe Probe) ([]Outcome, error) {
	outs := make([]Outcome, len(jobs))
	errs := make([]error, len(jobs))
	var next atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	for range min(workers, len(jobs)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(jobs) || failed.Load() {
					return
				}
				o, err := probe(jobs[i].x, jobs[i].rep)
				if err == nil && (o < Undecided || o > Stuck) {
					err = fmt.Errorf("unknown outcome %d", int(o))
				}
				if err != nil {
					errs[i] = err
					failed.Store(true)
				}
				outs[i] = o
			}
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("tipping: probe at x=%s, replication %d: %w", num(jobs[i].x), jobs[i].rep, err)
		}
	}
	return outs, nil
}
