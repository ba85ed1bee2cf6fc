package yamlstrict

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"strconv"

	"github.com/overloadsim/overloadsim/field"
	"github.com/overloadsim/overloadsim/internal/fileinfo"
)

// Errors of ReadFileBounded, matched with errors.Is.
var (
	// ErrNotRegular is a path that is not a regular file: a directory, a device (/dev/zero), a
	// named pipe, a socket.
	ErrNotRegular = errors.New("yamlstrict: not a regular file")
	// ErrTooLarge is a file larger than the limit it was read with.
	ErrTooLarge = errors.New("yamlstrict: file too large")
)

// ReadFileBounded reads the regular file at path, which may hold at most limit bytes (limit ≥ 0),
// without reading more than limit+1 bytes of it: a device such as /dev/zero, a named pipe, a
// directory or a socket is refused before it is opened (and checked again once open, in case
// it changed in between), and a file that grows past the limit while it is read is refused
// too. scenarios.Load reads scenarios with it (limit scenarios.MaxFileBytes), and Parse the
// files a scenario names (scenarios.MaxDataFileBytes).
//
// A file it refuses is a *field.Error whose field is path, whose value says what the file is
// ("a character device", "more than 1048576 bytes") and whose rule is what a file must be; it
// matches ErrNotRegular or ErrTooLarge under errors.Is. Other errors (a missing file, no
// permission) are those of the os package, unchanged.
func ReadFileBounded(path string, limit int64) ([]byte, error) {
	limit = max(limit, 0)
	fi, err := os.Stat(path)
	if err != nil {
		// Stat is how a file is opened here: its error reads as os.Open's would
		// ("open x.csv: no such file or directory").
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
			pe.Op = "open"
		}
		return nil, err
	}
	if err := checkFile(path, fi, limit); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, err
	}
	if err := checkFile(path, fi, limit); err != nil {
		return nil, err
	}
	return ReadBounded(f, path, limit)
}

// ReadBounded reads r to its end, which must come within limit bytes (limit ≥ 0): it reads at
// most limit+1 bytes, and more than limit is a *field.Error whose field is name, matching
// ErrTooLarge. It is for input from a stream, such as a scenario on standard input for a file
// named "-": data, err := ReadBounded(os.Stdin, "-", scenarios.MaxFileBytes), then
// scenarios.Parse("-", data).
func ReadBounded(r io.Reader, name string, limit int64) ([]byte, error) {
	limit = max(limit, 0)
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, tooLarge(name, "more than "+strconv.FormatInt(limit, 10)+" bytes", limit)
	}
	return data, nil
}

// checkFile refuses a file that is not regular, or whose size is over limit.
func checkFile(path string, fi fs.FileInfo, limit int64) error {
	if !fi.Mode().IsRegular() {
		return &field.Error{Field: path, Value: fileinfo.Kind(fi.Mode()), Rule: "must be a regular file", Err: ErrNotRegular}
	}
	if fi.Size() > limit {
		return tooLarge(path, strconv.FormatInt(fi.Size(), 10)+" bytes", limit)
	}
	return nil
}

// tooLarge is the refusal of a file of size bytes, more than limit.
func tooLarge(path, size string, limit int64) error {
	return &field.Error{Field: path, Value: size, Rule: "must be at most " + fileinfo.Size(limit), Err: ErrTooLarge}
}
