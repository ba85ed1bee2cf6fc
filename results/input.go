package results

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/overloadsim/overloadsim/internal/fileinfo"
)

// Limits on the files the package reads, checked before a file is decoded (as scenarios.Load
// bounds a scenario): every file read is opened only once it is known to be a regular file — a
// device such as /dev/zero, a named pipe, a directory or a socket is refused without blocking —
// and is read to at most its kind's limit plus one byte. Each limit is some hundreds of times
// what a real file of its kind weighs, so that no honest result reaches it while a hostile or
// mistaken path costs at most the limit (and the decoder's few times that) in memory.
const (
	// MaxManifestBytes bounds manifest.json: a run's weighs 0.8 KB, and a shard's lists each
	// of its units in about 140 bytes, so that a shard of 100 000 units weighs 14 MB.
	MaxManifestBytes = 16 << 20
	// MaxUnitBytes bounds a kept unit (units/NNNNNNNN.gob): one run's summary, 3 KB for a
	// scenario of one group and one server, 7 KB (as summary.json) for one of mongos and shards.
	MaxUnitBytes = 16 << 20
	// MaxSmallJSONBytes bounds run.json, summary.json and units/KEY: a header with the
	// canonical scenario (whose file is at most 1 MiB, scenarios.MaxFileBytes) or one summary;
	// run.json weighs 15 KB and summary.json 7 KB for sharded-layered-retries.
	MaxSmallJSONBytes = 16 << 20
	// MaxJSONBytes bounds every other JSON file read (sweep.json and baselines, shard.json,
	// map.json, tune.json, …): the largest baseline committed weighs 31 KB for its 9 points,
	// a sweep of healthy 27 KB for 3, so that 64 MiB holds a sweep of 7 000 to 20 000 points.
	MaxJSONBytes = 64 << 20
	// MaxTableBytes bounds timeseries.csv and shards.csv, read whole into a table: a row per
	// group and server per interval, some 0.5 KB each; 1 GiB holds two million rows, ten
	// hours of a 10-server scenario sampled every 100 ms.
	MaxTableBytes = 1 << 30
	// MaxFigureBytes bounds a figure or report read back for its mark (StaleFigures): the
	// library's figures weigh 30–300 KB.
	MaxFigureBytes = 256 << 20
)

// Errors of the bounded reads, matched with errors.Is.
var (
	// ErrNotRegular is an input path that is not a regular file: a directory, a device
	// (/dev/zero), a named pipe, a socket.
	ErrNotRegular = errors.New("results: not a regular file")
	// ErrTooLarge is an input file larger than the limit of its kind.
	ErrTooLarge = errors.New("results: file too large")
)

// limitOf returns the size limit of the file at path, by its name, and the name of its kind.
func limitOf(path string) (int64, string) {
	switch base := filepath.Base(path); {
	case base == ManifestFile:
		return MaxManifestBytes, "a " + ManifestFile
	case base == RunFile || base == SummaryFile || base == UnitsKeyFile:
		return MaxSmallJSONBytes, "a " + base
	case filepath.Ext(base) == ".gob":
		return MaxUnitBytes, "a kept unit"
	case base == SweepFile || base == ShardFile || base == MapFile || base == TuneFile || base == CompareFile ||
		base == TipFile || base == RareFile:
		return MaxJSONBytes, "a " + base
	}
	return MaxJSONBytes, "a JSON result or baseline"
}

// openRegular opens path for reading only if it is a regular file, without blocking on a named
// pipe: it is checked with Stat before it is opened, opened with O_NONBLOCK (so that a file
// swapped for a pipe in between does not block either) and checked again once open. limit
// (≥ 0; what names the file's kind in the message) bounds its size as Stat gives it; the caller
// reads at most limit+1 bytes of it all the same, in case it grows.
func openRegular(path string, limit int64, what string) (*os.File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := checkRegular(path, fi, limit, what); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	if fi, err = f.Stat(); err == nil {
		err = checkRegular(path, fi, limit, what)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// checkRegular refuses a file that is not regular, or whose size is over limit.
func checkRegular(path string, fi fs.FileInfo, limit int64, what string) error {
	if !fi.Mode().IsRegular() {
		return &inputError{path: path, value: fileinfo.Kind(fi.Mode()), rule: "must be a regular file", err: ErrNotRegular}
	}
	if fi.Size() > limit {
		return tooLarge(path, strconv.FormatInt(fi.Size(), 10)+" bytes", limit, what)
	}
	return nil
}

func tooLarge(path, size string, limit int64, what string) error {
	return &inputError{path: path, value: size, rule: fmt.Sprintf("must be at most %s (the limit for %s)", fileinfo.Size(limit), what), err: ErrTooLarge}
}

// inputError is an input file refused before it is read: "path: what it is: the rule", as
// field.Error prints one (which this package, below the model, does not import). It matches
// ErrNotRegular or ErrTooLarge under errors.Is.
type inputError struct {
	path, value, rule string
	err               error
}

func (e *inputError) Error() string { return e.path + ": " + e.value + ": " + e.rule }
func (e *inputError) Unwrap() error { return e.err }

// ReadBounded reads the regular file at path, of at most limit bytes, reading no more than
// limit+1 bytes of it (openRegular).
func ReadBounded(path string, limit int64, what string) ([]byte, error) {
	f, err := openRegular(path, limit, what)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAtMost(f, path, limit, what)
}

// readAtMost reads r to its end, which must come within limit bytes: it reads at most limit+1
// bytes, so that a file that grows after its size was checked is refused too.
func readAtMost(r io.Reader, path string, limit int64, what string) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, tooLarge(path, "more than "+strconv.FormatInt(limit, 10)+" bytes", limit, what)
	}
	return data, nil
}
