package experiment

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/overloadsim/overloadsim/results"
)

// Units keeps the finished replications (units) of one sweep on disk, one file per unit written
// atomically, so that whatever was killed leaves only whole units. The key names the sweep: the
// scenario's canonical form with its sweep, the base seed, the replications and the simulator's
// version; units kept under another key are stale and are discarded, never reused. Each unit's
// file carries the key and the unit's index too, and a file whose key or index is not its own
// (written by another sweep into the same folder at the same time, or copied over another
// unit) is not adopted: the unit runs again, and Discarded says which file was set aside and
// why.
type Units struct {
	dir string
	key string
	// Discarded names each unit file OpenUnits found but did not adopt, and why: for the
	// command to say on stderr before it runs those units again.
	Discarded []string
}

// unitRecord is a unit's file: the key of the work it belongs to, its index, and its summary.
type unitRecord struct {
	Key     string
	Index   int
	Summary results.Summary
}

// UnitsKey returns the key of a sweep: the digest of everything its units depend on.
func UnitsKey(hdr results.Header, replications int) string {
	return results.ScenarioDigest(strings.Join([]string{hdr.Tool, hdr.Version, hdr.Canonical,
		strconv.FormatUint(hdr.Seed, 10), strconv.Itoa(replications)}, "\x00"))
}

// OpenUnits opens the units of the sweep with key in the output folder dir, creating them, and
// returns those already finished by index. Units of another sweep are removed first; a unit
// file that cannot be read, or that names another key or index than its own, is not returned
// (its unit runs again) and is listed in Units.Discarded.
func OpenUnits(dir, key string) (*Units, map[int]results.Summary, error) {
	u := &Units{dir: filepath.Join(dir, results.UnitsDir), key: key}
	done := map[int]results.Summary{}
	keyPath := filepath.Join(u.dir, results.UnitsKeyFile)
	old, err := results.ReadBounded(keyPath, results.MaxSmallJSONBytes, "a units "+results.UnitsKeyFile)
	if err == nil && string(old) == key {
		entries, err := os.ReadDir(u.dir)
		if err != nil {
			return nil, nil, fmt.Errorf("results: %w", err)
		}
		for _, e := range entries {
			name, ok := strings.CutSuffix(e.Name(), ".gob")
			i, err := strconv.Atoi(name)
			if !ok || err != nil || i < 0 {
				continue // temporary files of a unit being written when it stopped
			}
			path := filepath.Join(u.dir, e.Name())
			s, err := readUnit(path, key, i)
			if err != nil {
				u.Discarded = append(u.Discarded, fmt.Sprintf("%v; unit %d runs again", err, i))
				continue
			}
			done[i] = s
		}
		return u, done, nil
	}
	if err := os.RemoveAll(u.dir); err != nil {
		return nil, nil, fmt.Errorf("results: %w", err)
	}
	if err := os.MkdirAll(u.dir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("results: %w", err)
	}
	if err := results.WriteFileAtomic(keyPath, func(w io.Writer) error {
		_, err := io.WriteString(w, key)
		return err
	}); err != nil {
		return nil, nil, err
	}
	return u, done, nil
}

// Put keeps unit i's summary, with the units' key and i. The summary is stored exactly (gob:
// every float's bits), so a resumed sweep aggregates to the same bytes as one that never
// stopped.
func (u *Units) Put(i int, s results.Summary) error {
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(unitRecord{Key: u.key, Index: i, Summary: s}); err != nil {
		return fmt.Errorf("results: unit %d: %w", i, err)
	}
	return results.WriteFileAtomic(filepath.Join(u.dir, unitFile(i)), func(w io.Writer) error {
		_, err := w.Write(b.Bytes())
		return err
	})
}

// Remove deletes the units: the sweep they belong to has been written whole.
func (u *Units) Remove() error {
	if err := os.RemoveAll(u.dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("results: %w", err)
	}
	return nil
}

// readUnit reads the unit file at path, which must be unit index of the work with key: a file
// that is not a regular file of at most results.MaxUnitBytes, does not decode, or names another key or
// index is an error naming path.
func readUnit(path, key string, index int) (results.Summary, error) {
	data, err := results.ReadBounded(path, results.MaxUnitBytes, "a kept unit")
	if err != nil {
		return results.Summary{}, err
	}
	var r unitRecord
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&r); err != nil {
		return results.Summary{}, fmt.Errorf("%s: cannot be decoded as a kept unit: %v", path, err)
	}
	switch {
	case r.Key != key:
		return results.Summary{}, fmt.Errorf("%s: belongs to other work: its key is %.12s…, this work's is %.12s…", path, r.Key, key)
	case r.Index != index:
		return results.Summary{}, fmt.Errorf("%s: holds unit %d, not unit %d (copied over another unit's file?)", path, r.Index, index)
	}
	return r.Summary, nil
}
