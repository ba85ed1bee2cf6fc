package serverstatus

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestReadFileRefusesWhatIsNotARegularFile checks that a directory and a device are refused
// by what they are, before anything is read, and that a missing file names the file.
func TestReadFileRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		gloss, path, want string
		is                error
	}{
		{"a directory", dir, dir + ": a directory: must be a regular file (a serverStatus, getParameter or mongod log file)", ErrNotRegular},
		{"a character device", os.DevNull, os.DevNull + ": a character device: must be a regular file (a serverStatus, getParameter or mongod log file)", ErrNotRegular},
		{"a missing file", filepath.Join(dir, "none.json"), filepath.Join(dir, "none.json") + ": cannot be read: no such file or directory", fs.ErrNotExist},
	} {
		if c.path == os.DevNull {
			if fi, err := os.Stat(c.path); err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
				continue // no character device here
			}
		}
		_, err := ReadFile(c.path)
		if err == nil || err.Error() != c.want || !errors.Is(err, c.is) {
			t.Errorf("%s: ReadFile(%s) = %v, want %q matching %v", c.gloss, c.path, err, c.want, c.is)
		}
	}
}

// TestReadFileRefusesALargeLogUnread checks that a log of 1 GiB, a sparse file that costs no
// disk, is refused from its size alone: at once, naming the file, its size and the limit, and
// saying how to cut it.
func TestReadFileRefusesALargeLogUnread(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mongod.log")
	if err := os.WriteFile(path, []byte(`{"t":{"$date":"2026-03-02T10:00:00.000Z"},"s":"I","c":"COMMAND","id":51803,"msg":"Slow query"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, 1<<30); err != nil {
		t.Skipf("no sparse file of 1 GiB here: %v", err)
	}
	start := time.Now()
	_, err := ReadFile(path)
	want := path + `: 1073741824 bytes: a mongod log read for calibration holds at most 256 MiB: keep the slow-query and client-metadata lines, grep -E '"id":(51803|51800),' mongod.log > calibrate.log`
	if err == nil || err.Error() != want || !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadFile(1 GiB log) = %v, want %q", err, want)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("ReadFile took %v to refuse a file by its size", d)
	}
}

// TestReadLimitsByKind checks the two size limits on small stand-ins (limits of 1 and 4 KiB
// in place of 64 and 256 MiB): a file whose first document is a log line may hold up to the
// log limit, any other file up to the document limit; a file over its limit is refused from its
// size (SIZE below) when it is known, and where it passes the limit when it is a stream.
func TestReadLimitsByKind(t *testing.T) {
	lim := limits{docFile: 1 << 10, logFile: 4 << 10}
	logLine := `{"t":{"$date":"2026-03-02T10:00:00.000Z"},"s":"I","c":"NETWORK","id":22943,"msg":"Connection accepted"}` + "\n"
	status := `{"host":"db:27017","process":"mongod","uptime":1,"uptimeMillis":1000,"opcounters":{"query":5}}` + "\n"
	repeat := func(s string, size int) string { return strings.Repeat(s, size/len(s)+1) }
	for _, c := range []struct {
		gloss string
		text  string
		size  bool // the size is known (a file) rather than not (a stream)
		want  string
	}{
		{"a log of 2 KiB", repeat(logLine, 2<<10), true, ""},
		{"a log of 2 KiB, streamed", repeat(logLine, 2<<10), false, ""},
		{"documents of 2 KiB", repeat(status, 2<<10), true,
			"f: SIZE bytes: a file of serverStatus or getParameter documents holds at most 1 KiB: split it, a file per node or per hour"},
		{"documents of 2 KiB, streamed", repeat(status, 2<<10), false,
			"f: more than 1024 bytes: a file of serverStatus or getParameter documents holds at most 1 KiB: split it, a file per node or per hour"},
		{"a log of 5 KiB", repeat(logLine, 5<<10), true,
			"f: SIZE bytes: a mongod log read for calibration holds at most 4 KiB: keep the slow-query and client-metadata lines, " + LogCutHint},
		{"a log of 5 KiB, streamed", repeat(logLine, 5<<10), false,
			"f: more than 4096 bytes: a mongod log read for calibration holds at most 4 KiB: keep the slow-query and client-metadata lines, " + LogCutHint},
	} {
		size := int64(-1)
		if c.size {
			size = int64(len(c.text))
		}
		f, err := read(strings.NewReader(c.text), "f", size, lim)
		var got string
		if err != nil {
			got = problems(t, err, "")[len(problems(t, err, ""))-1]
		}
		if want := strings.ReplaceAll(c.want, "SIZE", strconv.Itoa(len(c.text))); got != want {
			t.Errorf("%s: read = %q, want %q", c.gloss, got, want)
		}
		if c.want != "" && (f != nil || !errors.Is(err, ErrTooLarge)) {
			t.Errorf("%s: read = %v, %v; want no File and ErrTooLarge", c.gloss, f, err)
		}
	}
}

// TestReadDocumentSizeLimit checks that one document longer than 16 MiB is refused by its
// size, the next one read.
func TestReadDocumentSizeLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 16 MiB")
	}
	big := `{"host":"` + strings.Repeat("a", maxDocumentBytes) + `"}` + "\n"
	_, err := Read(strings.NewReader(big+`{"x":1}`+"\n"), "f")
	want := []string{
		"f:1: more than 16777216 bytes: a document or log line holds at most 16 MiB",
		"f:2: {x}: not a serverStatus, getParameter or mongod log document",
	}
	if got := problems(t, err, ""); !reflect.DeepEqual(got, want) {
		t.Errorf("Read = %q, want %q", got, want)
	}
}

// TestReadNeverHangs checks that a stream that fails is reported, and that one that returns
// no bytes without an error ends the read rather than spinning.
func TestReadNeverHangs(t *testing.T) {
	broken := io.MultiReader(strings.NewReader(`{"host":"db:27017","uptimeMillis":1,"opcounters":{}}`+"\n"), iotestErr{})
	_, err := Read(broken, "f")
	if got := problems(t, err, ""); len(got) != 1 || got[0] != "f: cannot be read: disk on fire" {
		t.Errorf("Read(failing stream) = %q", got)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, err := Read(stuck{}, "f")
		if err == nil {
			t.Errorf("Read(stuck stream) = nil error")
		}
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Read of a stream that returns nothing did not return")
	}
}

type iotestErr struct{}

func (iotestErr) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

// stuck returns no bytes and no error, forever.
type stuck struct{}

func (stuck) Read([]byte) (int, error) { return 0, nil }

// TestReadByteOrderMark checks that a file saved with a UTF-8 byte-order mark reads.
func TestReadByteOrderMark(t *testing.T) {
	f, err := Read(bytes.NewReader([]byte("\xEF\xBB\xBF"+`{"host":"db:27017","uptimeMillis":1,"opcounters":{}}`)), "f")
	if err != nil || len(f.Status) != 1 {
		t.Errorf("Read(BOM + document) = %v, %v", f, err)
	}
}
