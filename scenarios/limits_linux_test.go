package scenarios

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLoadFIFO: a named pipe is refused without being opened (opening one for reading waits
// for a writer, which would hang a validate for ever).
func TestLoadFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := Load(fifo)
		done <- err
	}()
	select {
	case err := <-done:
		want := fifo + ": (file): a named pipe: a scenario is a regular file, not a directory, device, pipe or socket"
		if err == nil || err.Error() != want || !errors.Is(err, ErrInvalid) {
			t.Errorf("Load(fifo) = %v, want %q", err, want)
		}
	case <-time.After(time.Minute):
		// Not a timing assertion: Load opened the pipe and waits for a writer that never comes.
		t.Fatal("Load(fifo) blocked: it opened the pipe")
	}
	// A scenario naming the pipe as a data file is refused the same way.
	_, err := Parse(filepath.Join(dir, "s.yaml"), []byte(hostileBase+"topology:\n  nodes: [{name: db, service: empirical(pipe.yaml)}]\n"))
	if err == nil || !strings.Contains(err.Error(), "a named pipe: a file a scenario names must be a regular file") {
		t.Errorf("empirical(fifo) = %v", err)
	}
}
