package yamlstrict

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadFileBounded: a regular file up to the limit is read whole; one byte more, a
// directory or a device is refused with an error that names the path and matches its
// sentinel; a missing file is the os package's error, as opening it reports it.
func TestReadFileBounded(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, n int) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(strings.Repeat("x", n)), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if data, err := ReadFileBounded(write("ten", 10), 10); err != nil || len(data) != 10 {
		t.Errorf("10 bytes with limit 10: %d bytes, %v", len(data), err)
	}
	if data, err := ReadFileBounded(write("empty", 0), 0); err != nil || len(data) != 0 {
		t.Errorf("0 bytes with limit 0: %d bytes, %v", len(data), err)
	}
	for _, tc := range []struct {
		gloss, path string
		limit       int64
		is          error
		want        string
	}{
		{"one byte over", write("eleven", 11), 10, ErrTooLarge, "eleven: 11 bytes: must be at most 10 bytes"},
		{"a MiB over", write("big", 2<<20), 1 << 20, ErrTooLarge, "big: 2097152 bytes: must be at most 1 MiB"},
		{"a directory", dir, 1 << 20, ErrNotRegular, ": a directory: must be a regular file"},
		{"a device", "/dev/zero", 1 << 20, ErrNotRegular, "/dev/zero: a character device: must be a regular file"},
		{"missing", filepath.Join(dir, "missing"), 10, fs.ErrNotExist, "open " + filepath.Join(dir, "missing") + ": no such file or directory"},
	} {
		if tc.path == "/dev/zero" {
			if _, err := os.Stat(tc.path); err != nil {
				continue // no /dev/zero here
			}
		}
		data, err := ReadFileBounded(tc.path, tc.limit)
		if err == nil || !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.want) || data != nil {
			t.Errorf("%s: ReadFileBounded(%s, %d) = %d bytes, %v; want %v mentioning %q", tc.gloss, tc.path, tc.limit, len(data), err, tc.is, tc.want)
		}
	}
}

// TestReadBounded: a stream is read to its end within the limit, and no more than a byte past
// it otherwise (an endless stream included).
func TestReadBounded(t *testing.T) {
	if data, err := ReadBounded(strings.NewReader("abc"), "-", 3); err != nil || string(data) != "abc" {
		t.Errorf("3 bytes with limit 3: %q, %v", data, err)
	}
	endless := &countingReader{}
	data, err := ReadBounded(endless, "-", 1<<20)
	if err == nil || !errors.Is(err, ErrTooLarge) || data != nil || err.Error() != "-: more than 1048576 bytes: must be at most 1 MiB" {
		t.Errorf("an endless stream: %d bytes, %v", len(data), err)
	}
	if endless.n > 1<<20+1 {
		t.Errorf("read %d bytes of an endless stream, want at most the limit + 1", endless.n)
	}
}

// countingReader is an endless stream of zeros that counts what was read.
type countingReader struct{ n int }

func (c *countingReader) Read(p []byte) (int, error) {
	clear(p)
	c.n += len(p)
	return len(p), nil
}
