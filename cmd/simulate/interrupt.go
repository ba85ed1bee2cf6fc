package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
)

// exitInterrupted is the exit status of a command stopped by SIGINT or SIGTERM (128 + SIGINT).
const exitInterrupted = 130

// errInterrupted marks a command that stopped on a signal; what it kept is in the message.
var errInterrupted = errors.New("interrupted")

// signalled is set once a command has received SIGINT or SIGTERM: whatever error it then
// returns, it stopped because it was asked to, and exits with exitInterrupted.
var signalled atomic.Bool

// interruptible returns a context that the first SIGINT (Ctrl-C) or SIGTERM cancels: a long
// command then starts no new run, finishes the runs in progress and keeps what finished. It
// says so on stderr, with what it is waiting for (waiting(), e.g. "2 runs in progress"), and
// that a second signal stops at once: the second exits the process with exitInterrupted
// without waiting, leaving the output folder unfinished (no manifest), and kept (what
// finished, e.g. a sweep's units) says what survives. stop releases the signals.
func interruptible(stderr io.Writer, waiting func() string, kept string) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	quit := make(chan struct{})
	go func() {
		select {
		case s := <-sig:
			signalled.Store(true)
			cancel()
			fmt.Fprintf(stderr, "\n%s: waiting for %s to finish; send it again to stop at once\n", signalName(s), waiting())
		case <-quit:
			return
		}
		select {
		case s := <-sig:
			fmt.Fprintf(stderr, "\n%s again: stopped at once; the output folder is left unfinished%s\n", signalName(s), kept)
			releaseAll()
			os.Exit(exitInterrupted)
		case <-quit:
		}
	}()
	return ctx, func() {
		signal.Stop(sig)
		close(quit)
		cancel()
	}
}

func signalName(s os.Signal) string {
	if s == os.Interrupt {
		return "interrupt"
	}
	return s.String()
}
