package experiment

import (
	"context"
	"errors"
	"slices"
	"testing"
)

// TestRunIndexedOrder: results come back by index for any worker count.
func TestRunIndexedOrder(t *testing.T) {
	job := func(i int) (int, error) { return i * i, nil }
	want, _, _ := RunIndexed(context.Background(), 50, 1, job, nil)
	for _, w := range []int{2, 4, 16} {
		got, done, err := RunIndexed(context.Background(), 50, w, job, nil)
		if err != nil || !slices.Equal(got, want) || slices.Contains(done, false) {
			t.Fatalf("workers=%d: %v %v", w, got, err)
		}
	}
}

// TestRunIndexedCancel: a cancelled sweep keeps the points that finished and starts no more.
func TestRunIndexedCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	started := 0
	job := func(i int) (int, error) {
		started++ // one worker: no race
		if i == 3 {
			cancel()
		}
		return i, nil
	}
	_, done, err := RunIndexed(ctx, 100, 1, job, nil)
	n := 0
	for _, d := range done {
		if d {
			n++
		}
	}
	if err != nil || n < 4 || n > 5 || started != n {
		t.Fatalf("after cancel at job 3: %d done, %d started, err %v", n, started, err)
	}
}

func TestRunIndexedError(t *testing.T) {
	boom := errors.New("boom")
	_, _, err := RunIndexed(context.Background(), 10, 2, func(i int) (int, error) {
		if i == 5 {
			return 0, boom
		}
		return i, nil
	}, nil)
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
}
