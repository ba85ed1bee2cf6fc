//go:build unix

package serverstatus

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestReadFileRefusesANamedPipe checks that a named pipe is refused by what it is, without
// opening it (which would wait for a writer).
func TestReadFileRefusesANamedPipe(t *testing.T) {
	path := filepath.Join(t.TempDir(), "status.json")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("no named pipe here: %v", err)
	}
	start := time.Now()
	_, err := ReadFile(path)
	want := path + ": a named pipe: must be a regular file (a serverStatus, getParameter or mongod log file)"
	if err == nil || err.Error() != want || !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadFile(named pipe) = %v, want %q", err, want)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("ReadFile took %v", d)
	}
}
