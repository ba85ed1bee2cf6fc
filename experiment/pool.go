package experiment

import (
	"context"
	"errors"
	"fmt"

	"github.com/overloadsim/overloadsim/bench"
	"github.com/overloadsim/overloadsim/internal/parallel"
)

// RunIndexed runs jobs 0..n-1 on up to workers goroutines (internal/parallel): results are
// stored by index, never in completion order, so the output cannot depend on the worker count or
// on scheduling. When ctx is cancelled no new job starts; jobs already running finish and are
// kept, and done reports which indices completed. A job error stops the rest the same way, and
// the first error by index is returned. A job stopped by a limit the command crossed
// (bench.ErrStopped) is not done, and no error. progress, when not nil, is told how many
// jobs are done after each one.
func RunIndexed[T any](ctx context.Context, n, workers int, job func(i int) (T, error), progress func(done, total int)) (out []T, done []bool, err error) {
	out, errs, done := parallel.Map(ctx, n, workers, func(_ context.Context, i int) (T, error) { return job(i) }, progress)
	for i, e := range errs {
		if errors.Is(e, bench.ErrStopped) { // a limit stopped it: unfinished, like one never started
			errs[i] = nil
		}
	}
	if i := parallel.First(errs); i >= 0 {
		err = fmt.Errorf("run %d: %w", i, errs[i])
	}
	return out, done, err
}
