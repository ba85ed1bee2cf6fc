package parallel

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
)

// TestMapOrder: results are stored by index for any number of workers.
func TestMapOrder(t *testing.T) {
	sq := func(_ context.Context, i int) (int, error) { return i * i, nil }
	want, _, _ := Map(context.Background(), 100, 1, sq, nil)
	for _, w := range []int{0, 2, 4, 32} {
		got, errs, done := Map(context.Background(), 100, w, sq, nil)
		if !slices.Equal(got, want) || First(errs) >= 0 || slices.Contains(done, false) {
			t.Errorf("workers %d: results differ or a job is missing", w)
		}
	}
}

// TestMapStopsAfterFailure: after a failure no new index is handed out, every lower index has
// run, and the first error by index is the failing job's whatever the worker count. Jobs above
// the failing one hold their worker until the failure has cancelled the pool's context, so the
// count of jobs started does not depend on how the scheduler orders the workers: at most the
// failing job's index, itself, and one job on each other worker.
func TestMapStopsAfterFailure(t *testing.T) {
	boom := errors.New("boom")
	for _, w := range []int{1, 2, 4} {
		var started atomic.Int64
		_, errs, done := Map(context.Background(), 1000, w, func(ctx context.Context, i int) (int, error) {
			started.Add(1)
			switch {
			case i == 10:
				return 0, boom
			case i > 10:
				<-ctx.Done() // cancelled when job 10 fails
			}
			return i, nil
		}, nil)
		if First(errs) != 10 || !errors.Is(errs[10], boom) {
			t.Errorf("workers %d: first error at %d, want 10", w, First(errs))
		}
		for i := range 10 {
			if !done[i] {
				t.Errorf("workers %d: job %d below the failure did not run", w, i)
			}
		}
		if n := started.Load(); n > 10+int64(w) {
			t.Errorf("workers %d: %d jobs started, want at most %d after the failure", w, n, 10+w)
		}
	}
}

// TestMapCancelled: a cancelled context starts nothing more and keeps what finished.
func TestMapCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var progressed int
	_, _, done := Map(ctx, 50, 1, func(_ context.Context, i int) (int, error) {
		if i == 3 {
			cancel()
		}
		return i, nil
	}, func(d, total int) { progressed = d })
	if !done[3] || done[4] || progressed != 4 {
		t.Errorf("done %v, progress %d: want jobs 0–3 done and nothing after", done[:6], progressed)
	}
}
