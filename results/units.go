package results

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
)

// UnitsDir is the folder, inside a sweep's output folder, where the sweep keeps the summary of
// every replication that finished until the whole sweep has: re-running the same sweep into the
// same folder (after an interrupt, a crash or a kill) skips them. A result of another kind
// written into the folder removes it.
const UnitsDir = "units"

// unitsKeyFile holds the key of the sweep whose units the folder keeps.
const unitsKeyFile = "KEY"

// Units keeps the finished replications (units) of one sweep on disk, one file per unit written
// atomically, so that whatever was killed leaves only whole units. The key names the sweep: the
// scenario's canonical form with its sweep, the base seed, the replications and the simulator's
// version; units kept under another key are stale and are discarded, never reused.
type Units struct {
	dir string
}

// UnitsKey returns the key of a sweep: the digest of everything its units depend on.
func UnitsKey(hdr Header, replications int) string {
	return ScenarioDigest(strings.Join([]string{hdr.Tool, hdr.Version, hdr.Canonical,
		strconv.FormatUint(hdr.Seed, 10), strconv.Itoa(replications)}, "\x00"))
}

// OpenUnits opens the units of the sweep with key in the output folder dir, creating them, and
// returns those already finished by index. Units of another sweep, or unreadable ones, are
// removed first.
func OpenUnits(dir, key string) (*Units, map[int]Summary, error) {
	u := &Units{dir: filepath.Join(dir, UnitsDir)}
	done := map[int]Summary{}
	old, err := os.ReadFile(filepath.Join(u.dir, unitsKeyFile))
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
			s, err := readUnit(filepath.Join(u.dir, e.Name()))
			if err != nil {
				continue // cannot happen for an atomically written file; run it again
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
	if err := WriteFileAtomic(filepath.Join(u.dir, unitsKeyFile), func(w io.Writer) error {
		_, err := io.WriteString(w, key)
		return err
	}); err != nil {
		return nil, nil, err
	}
	return u, done, nil
}

// Put keeps unit i's summary. The summary is stored exactly (gob: every float's bits), so a
// resumed sweep aggregates to the same bytes as one that never stopped.
func (u *Units) Put(i int, s Summary) error {
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(s); err != nil {
		return fmt.Errorf("results: unit %d: %w", i, err)
	}
	return WriteFileAtomic(filepath.Join(u.dir, fmt.Sprintf("%08d.gob", i)), func(w io.Writer) error {
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

func readUnit(path string) (Summary, error) {
	var s Summary
	f, err := os.Open(path)
	if err != nil {
		return s, err
	}
	defer f.Close()
	return s, gob.NewDecoder(f).Decode(&s)
}
