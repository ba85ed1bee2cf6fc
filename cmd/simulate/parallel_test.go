package main

import (
	"bytes"
	"os"
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

// TestProgressLinesToALog: to a log (a file or a pipe, as in a CI job) progress is a plain line
// once PlainProgressEvery has passed since the last, with the pace so far, and a last line at
// the end when any was written; a job shorter than that leaves the log as it was.
func TestProgressLinesToALog(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	clock := time.Unix(1000, 0)
	p := newProgressBar(f, "map")
	if p.on || !p.plain {
		t.Fatalf("a file: on %v, plain %v; want plain lines", p.on, p.plain)
	}
	p.start, p.last, p.now = clock, clock, func() time.Time { return clock }
	step := func(d time.Duration, done, total int) {
		clock = clock.Add(d)
		p.update(done, total)
	}
	step(10*time.Second, 10, 40) // too soon
	step(25*time.Second, 20, 40) // 35 s: a line
	step(10*time.Second, 30, 40) // 45 s: too soon after the last
	step(5*time.Second, 40, 40)  // the end: a line, since one was written
	b, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), "map: 20/40, 35s elapsed, about 35s left\nmap: 40/40, 50s elapsed\n"; got != want {
		t.Errorf("log:\n%q\nwant\n%q", got, want)
	}

	short := newProgressBar(f, "sweep")
	short.now = func() time.Time { return short.start.Add(time.Second) }
	short.update(4, 4)
	if b2, _ := os.ReadFile(f.Name()); len(b2) != len(b) {
		t.Errorf("a job under %s wrote to the log: %q", PlainProgressEvery, b2[len(b):])
	}
}
