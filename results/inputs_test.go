package results

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// withinSeconds runs f and fails the test if it does not return within limit: a reader that
// blocks on a named pipe or reads /dev/zero for ever fails instead of hanging the tests.
func withinSeconds(t *testing.T, what string, limit time.Duration, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(limit):
		t.Fatalf("%s did not return within %s: it blocks on, or reads without end, what it was given", what, limit)
		return nil
	}
}

// TestInputsBounded pins that every file the package reads is refused, by path and rule, when it
// is not a regular file (a link to /dev/zero, a named pipe: neither may block or grow memory
// without end) or is over its kind's limit (package doc, # Files; conventions §15: "input is
// bounded before it is decoded").
func TestInputsBounded(t *testing.T) {
	type reader struct {
		name string
		file string // the file under test, relative to the folder
		read func(dir string) error
	}
	run := func(dir string) error { _, err := ReadSummary(dir); return err }
	readers := []reader{
		{"ReadManifest", ManifestFile, func(dir string) error { _, err := ReadManifest(dir); return err }},
		{"ReadManifest of a listed file", SummaryFile, func(dir string) error { _, err := ReadManifest(dir); return err }},
		{"ReadSummary", SummaryFile, run},
		{"ReadHeader", RunFile, func(dir string) error { _, err := ReadHeader(dir); return err }},
		{"ReadTimeseries", TimeseriesFile, func(dir string) error { _, err := ReadTimeseries(dir); return err }},
		{"ReadJSON of a baseline", "base.json", func(dir string) error { var b map[string]any; return ReadJSON(filepath.Join(dir, "base.json"), &b) }},
	}
	setup := func(t *testing.T, r reader) string {
		dir := t.TempDir()
		switch {
		default:
			if err := WriteRunDir(dir, NewRun(fixtureHeader(), fixtureSeries())); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, r.file)), 0o755); err != nil {
			t.Fatal(err)
		}
		os.Remove(filepath.Join(dir, r.file))
		return dir
	}
	for _, r := range readers {
		t.Run(r.name+"/dev-zero", func(t *testing.T) {
			dir := setup(t, r)
			path := filepath.Join(dir, r.file)
			if err := os.Symlink("/dev/zero", path); err != nil {
				t.Fatal(err)
			}
			err := withinSeconds(t, r.name+" of a link to /dev/zero", 5*time.Second, func() error { return r.read(dir) })
			if err == nil || !strings.Contains(err.Error(), path+": a character device: must be a regular file") {
				t.Errorf("%s of a link to /dev/zero = %v; want it refused naming %s as a character device", r.name, err, path)
			}
		})
		t.Run(r.name+"/fifo", func(t *testing.T) {
			dir := setup(t, r)
			path := filepath.Join(dir, r.file)
			if err := syscall.Mkfifo(path, 0o644); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			err := withinSeconds(t, r.name+" of a named pipe", 5*time.Second, func() error { return r.read(dir) })
			if err == nil || !strings.Contains(err.Error(), path+": a named pipe: must be a regular file") {
				t.Errorf("%s of a named pipe = %v; want it refused naming %s as a named pipe", r.name, err, path)
			}
		})
	}
	// Over the limit: sparse files one byte larger than their kind's limit.
	for _, c := range []struct {
		r     reader
		limit string
	}{
		{readers[0], "16 MiB (the limit for a manifest.json)"},
		{readers[2], "16 MiB (the limit for a summary.json)"},
		{readers[5], "64 MiB (the limit for a JSON result or baseline)"},
	} {
		t.Run(c.r.name+"/too-large", func(t *testing.T) {
			dir := setup(t, c.r)
			path := filepath.Join(dir, c.r.file)
			lim, _ := limitOf(path)
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := f.Truncate(lim + 1); err != nil {
				t.Fatal(err)
			}
			f.Close()
			err = c.r.read(dir)
			if err == nil || !strings.Contains(err.Error(), path+": "+strconv.FormatInt(lim+1, 10)+" bytes: must be at most "+c.limit) {
				t.Errorf("%s of a file of %d bytes = %v; want it refused naming %s and %q", c.r.name, lim+1, err, path, c.limit)
			}
		})
	}
}

// endless is a reader that never ends, as a file that keeps growing.
type endless struct{}

func (endless) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// TestReadBoundedStopsAtLimit pins that a file that grows past its limit after its size was
// checked is still refused: at most limit+1 bytes are read.
func TestReadBoundedStopsAtLimit(t *testing.T) {
	err := withinSeconds(t, "readAtMost of an endless reader", 5*time.Second, func() error {
		_, err := readAtMost(endless{}, "grows.json", 1<<20, "a test file")
		return err
	})
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "grows.json: more than 1048576 bytes: must be at most 1 MiB") {
		t.Errorf("readAtMost of an endless reader = %v; want it refused at 1 MiB", err)
	}
	path := filepath.Join(t.TempDir(), "x.json")
	if err := os.WriteFile(path, bytes.Repeat([]byte{' '}, 11), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadBounded(path, 10, "a test file"); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadBounded of 11 bytes with limit 10 = %v; want ErrTooLarge", err)
	}
	if b, err := ReadBounded(path, 11, "a test file"); err != nil || len(b) != 11 {
		t.Errorf("ReadBounded of 11 bytes with limit 11 = %d bytes, %v", len(b), err)
	}
}

// dropFromManifest rewrites dir's manifest without name, as a tool that mixes folders would.
func dropFromManifest(t *testing.T, dir, name string) {
	t.Helper()
	shpEditManifest(t, dir, func(m *Manifest) {
		m.Files = slices.DeleteFunc(m.Files, func(f FileDigest) bool { return f.Name == name })
	})
}
