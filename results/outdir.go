package results

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// ClaimFile names the record an unfinished write keeps in its output folder: the files it
// removes and writes there, written before the old manifest is removed and itself removed once
// the new manifest is written. With it, a folder a killed command left without a manifest is
// still known to be overloadsim's, and the files it names are overloadsim's to replace.
const ClaimFile = ".overloadsim-claim"

// ErrForeign is returned (wrapped) for an output folder that holds files no overloadsim result
// lists: they are refused, never removed or overwritten.
var ErrForeign = errors.New("holds files no overloadsim result lists")

// maxClaimBytes bounds the claim record read back.
const maxClaimBytes = 1 << 20

// unitName matches a unit file inside a units folder.
var unitName = regexp.MustCompile(`^[0-9]{8}\.gob$`)

// keyText matches a units folder's key.
var keyText = regexp.MustCompile(`^[0-9a-f]{64}$`)

// isTemporary reports whether name is one of overloadsim's temporaries: ".NAME.tmp"
// (WriteFileAtomic) or ".probe-…" (a probe that the folder can be written).
func isTemporary(name string) bool {
	return strings.HasPrefix(name, ".") && (strings.HasSuffix(name, ".tmp") || strings.HasPrefix(name, ".probe-"))
}

// topLevel reports whether a name a manifest or claim lists is a file directly in the folder:
// only those are ever removed, never a nested path (a shard's units/…) nor one leaving it.
func topLevel(name string) bool { return filepath.IsLocal(name) && filepath.Base(name) == name }

// ourUnits reports whether path is a units folder overloadsim wrote (Units): a real folder
// holding its key and nothing but unit files and temporaries.
func ourUnits(path string) bool {
	st, err := os.Lstat(path)
	if err != nil || !st.IsDir() {
		return false
	}
	key, err := os.Lstat(filepath.Join(path, UnitsKeyFile))
	if err != nil || !key.Mode().IsRegular() || key.Size() != 64 {
		return false
	}
	b, err := os.ReadFile(filepath.Join(path, UnitsKeyFile))
	if err != nil || !keyText.Match(b) {
		return false
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return false
	}
	for _, e := range entries {
		n := e.Name()
		if !(n == UnitsKeyFile || isTemporary(n)) && !(unitName.MatchString(n) && e.Type().IsRegular()) {
			return false
		}
	}
	return true
}

// readClaim returns the top-level names dir's claim record lists (none without one).
func readClaim(dir string) (names []string, ok bool) {
	path := filepath.Join(dir, ClaimFile)
	st, err := os.Lstat(path)
	if err != nil || !st.Mode().IsRegular() || st.Size() > maxClaimBytes {
		return nil, false
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, false
	}
	for _, n := range strings.Split(string(b), "\n") {
		if n != "" && topLevel(n) {
			names = append(names, n)
		}
	}
	return names, true
}

// writeClaim records names as the files of dir an unfinished write owns.
func writeClaim(dir string, names []string) error {
	slices.Sort(names)
	names = slices.Compact(names)
	return WriteFileAtomic(filepath.Join(dir, ClaimFile), func(w io.Writer) error {
		for _, n := range names {
			if _, err := io.WriteString(w, n+"\n"); err != nil {
				return err
			}
		}
		return nil
	})
}

// RemoveClaim removes dir's claim record: its manifest now lists what the folder holds.
func RemoveClaim(dir string) error {
	if err := os.Remove(filepath.Join(dir, ClaimFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("results: %w", err)
	}
	return nil
}

// ownedNames returns the entries of dir that overloadsim may remove or replace, by what its
// manifest and claim record list (a nested path owns its top-level folder), and whether dir is
// overloadsim's at all: it has a manifest, a claim record or a units folder of ours.
func ownedNames(dir string) (owned map[string]bool, ours bool) {
	owned = map[string]bool{ManifestFile: true, ClaimFile: true, LockFile: true}
	var m Manifest
	if st, err := os.Lstat(filepath.Join(dir, ManifestFile)); err == nil && st.Mode().IsRegular() &&
		readJSON(filepath.Join(dir, ManifestFile), &m) == nil && m.Kind != "" {
		ours = true
		for _, f := range m.Files {
			if filepath.IsLocal(f.Name) {
				owned[strings.SplitN(filepath.ToSlash(f.Name), "/", 2)[0]] = true
			}
		}
	}
	if names, ok := readClaim(dir); ok {
		ours = true
		for _, n := range names {
			owned[n] = true
		}
	}
	if ourUnits(filepath.Join(dir, UnitsDir)) {
		ours = true
		owned[UnitsDir] = true
	}
	return owned, ours
}

// writtenNames are the names a result of some kind writes or removes in its folder: in a folder
// of ours, a file under one of them that no manifest lists is refused rather than overwritten.
var writtenNames = append(slices.Clone(resultFiles), UnitsDir, ShardFile, ManifestFile)

// CheckOutDir checks that dir may receive a result: it does not exist, is empty, or is
// overloadsim's (it has a manifest, a claim record left by a write that did not finish, or the
// units of an unfinished sweep or shard) and holds no file of its own under a name a result
// writes. Otherwise it holds files overloadsim did not write, which it refuses to remove or
// overwrite: the error (ErrForeign) names the folder and a few of them. Temporaries (".NAME.tmp"),
// the lock and the claim record are overloadsim's wherever they are.
func CheckOutDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: cannot be an output folder: %v", dir, PathlessError(err))
	}
	owned, ours := ownedNames(dir)
	var foreign []string
	for _, e := range entries {
		n := e.Name()
		if owned[n] || isTemporary(n) {
			continue
		}
		if ours && !slices.Contains(writtenNames, n) {
			continue // the user's own file beside a result: left alone
		}
		foreign = append(foreign, n)
	}
	if len(foreign) == 0 {
		return nil
	}
	return foreignError(dir, foreign)
}

// foreignError says that dir holds the files names, which no overloadsim result lists.
func foreignError(dir string, names []string) error {
	const shown = 3
	list := strings.Join(names[:min(len(names), shown)], ", ")
	if len(names) > shown {
		list += fmt.Sprintf(" and %d more", len(names)-shown)
	}
	return fmt.Errorf("%s %w (%s): refusing to delete or overwrite them; choose an empty folder or one simulate wrote", dir, ErrForeign, list)
}

// ResolvePath returns path absolute with every symbolic link in it resolved; a path that does not
// exist yet is resolved as far as it exists, so that two names of one folder compare equal.
func ResolvePath(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	rest := ""
	for p := abs; ; {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest), nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(p)
		if parent == p {
			return abs, nil
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// CheckDrawn reports whether name (a figure or report about to be drawn into dir, whose
// manifest is m) may be written: when dir holds no file of that name, when m lists it, or when
// the file there carries an overloadsim result mark (a figure or report drawn earlier, for this
// result or another). Anything else is a file of someone else's under a name a figure or report
// takes: it is refused with ErrForeign, never overwritten. A figure's bytes are read back only
// when it is a regular file within MaxFigureBytes.
func CheckDrawn(dir string, m *Manifest, name string) error {
	path := filepath.Join(dir, name)
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case m.Has(name):
		return nil
	}
	if st.Mode().IsRegular() {
		if data, err := ReadBounded(path, MaxFigureBytes, "a figure or report"); err == nil && MarkedResult(data) != "" {
			return nil
		}
	}
	return fmt.Errorf("%s %w (%s): refusing to overwrite it with a figure or report; move it away first", dir, ErrForeign, name)
}
