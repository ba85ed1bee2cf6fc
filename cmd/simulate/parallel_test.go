package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

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
