package main

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestRunParallelOrder: results come back by index for any worker count.
func TestRunParallelOrder(t *testing.T) {
	job := func(i int) (int, error) { return i * i, nil }
	want, _, _ := runParallel(context.Background(), 50, 1, job, nil)
	for _, w := range []int{2, 4, 16} {
		got, done, err := runParallel(context.Background(), 50, w, job, nil)
		if err != nil || !slices.Equal(got, want) || slices.Contains(done, false) {
			t.Fatalf("workers=%d: %v %v", w, got, err)
		}
	}
}

// TestRunParallelCancel: a cancelled sweep keeps the points that finished and starts no more.
func TestRunParallelCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	started := 0
	job := func(i int) (int, error) {
		started++ // one worker: no race
		if i == 3 {
			cancel()
		}
		return i, nil
	}
	_, done, err := runParallel(ctx, 100, 1, job, nil)
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

func TestRunParallelError(t *testing.T) {
	boom := errors.New("boom")
	_, _, err := runParallel(context.Background(), 10, 2, func(i int) (int, error) {
		if i == 5 {
			return 0, boom
		}
		return i, nil
	}, nil)
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
}

// TestProgressBarSilentWhenNotATerminal: progress goes to a terminal only.
func TestProgressBarSilentWhenNotATerminal(t *testing.T) {
	var b bytes.Buffer
	p := newProgressBar(&b, "sweep")
	p.update(1, 2)
	p.update(2, 2)
	if b.Len() != 0 {
		t.Fatalf("progress written to a non-terminal: %q", b.String())
	}
}

// TestProgressBarETA: on a terminal the bar says how long it has run and, from the pace so far,
// about how long is left; the last update ends the line.
func TestProgressBarETA(t *testing.T) {
	var b bytes.Buffer
	p := &progressBar{w: &b, label: "sweep", on: true, start: time.Now().Add(-10 * time.Second)}
	p.update(1, 4)
	if got := b.String(); !strings.Contains(got, "1/4, 10s elapsed, about 30s left") {
		t.Errorf("progress line %q, want 1/4 after 10s with about 30s left", got)
	}
	b.Reset()
	p.update(4, 4)
	if got := b.String(); strings.Contains(got, "left") || !strings.HasSuffix(got, "\n") {
		t.Errorf("last progress line %q, want no estimate and a newline", got)
	}
}
