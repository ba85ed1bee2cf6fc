package tipping

import (
	"context"
	"fmt"

	"github.com/overloadsim/overloadsim/internal/parallel"
)

// job is one run: replication rep at x, for the probe with index probe in the round.
type job struct {
	probe int
	x     float64
	rep   int
}

// runJobs runs the jobs on up to workers goroutines (internal/parallel) and returns their
// outcomes by job index. Workers take jobs in index order and stop taking new ones after a
// failure, so every job before a failed one has run and the error returned, the first by index,
// does not depend on scheduling.
func runJobs(jobs []job, workers int, probe Probe) ([]Outcome, error) {
	outs, errs, _ := parallel.Map(context.Background(), len(jobs), workers, func(_ context.Context, i int) (Outcome, error) {
		o, err := probe(jobs[i].x, jobs[i].rep)
		if err == nil && (o < Undecided || o > Stuck) {
			err = fmt.Errorf("unknown outcome %d", int(o))
		}
		return o, err
	}, nil)
	if i := parallel.First(errs); i >= 0 {
		return nil, fmt.Errorf("tipping: probe at x=%s, replication %d: %w", num(jobs[i].x), jobs[i].rep, errs[i])
	}
	return outs, nil
}
