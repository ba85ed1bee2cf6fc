package results

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// ManifestFile names the manifest of an output folder: what result the folder holds (kind,
// scenario and its digest, seed, version) and every file that belongs to it with its size and
// SHA-256. It is written last, after every file it lists, and removed first when a new result
// replaces the folder's, so a folder without one holds no finished result: it was interrupted,
// or written by something else.
const ManifestFile = "manifest.json"

// Kinds of result an output folder holds.
const (
	KindRun   = "run"
	KindSweep = "sweep"
	KindMap   = "map"
	KindTip   = "tip"
	KindRare  = "rare"
)

// Manifest describes the one result an output folder holds.
type Manifest struct {
	Tool     string `json:"tool"`
	Version  string `json:"version"`
	Kind     string `json:"kind"`     // KindRun, KindSweep, …
	Scenario string `json:"scenario"` // the scenario's name
	// Digest is the SHA-256 of the scenario's canonical form (Header.Canonical): two results
	// with equal digests come from the same scenario, overrides and sweep included.
	Digest string `json:"digest"`
	Seed   uint64 `json:"seed"`
	// Partial says why the result is incomplete (an interrupted sweep keeps its finished points);
	// "" for a whole result.
	Partial string `json:"partial,omitempty"`
	// Shard is "i/n" for a folder of kind KindShard: shard i of n of a sweep or map, whose
	// units the manifest lists (see ShardInfo).
	Shard string       `json:"shard,omitempty"`
	Files []FileDigest `json:"files"`
}

// FileDigest is one file of an output folder: its name within the folder, size and SHA-256.
type FileDigest struct {
	Name   string `json:"name"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// ScenarioDigest returns the hex SHA-256 of a scenario's canonical form.
func ScenarioDigest(canonical string) string {
	sum := sha256.Sum256([]byte(canonical))
	return hex.EncodeToString(sum[:])
}

// newManifest returns the manifest of a result of kind with header hdr, listing no files yet.
func newManifest(kind string, hdr Header) Manifest {
	return Manifest{Tool: hdr.Tool, Version: hdr.Version, Kind: kind, Scenario: hdr.Scenario,
		Digest: ScenarioDigest(hdr.Canonical), Seed: hdr.Seed}
}

// Has reports whether the manifest lists the file name.
func (m *Manifest) Has(name string) bool {
	return slices.ContainsFunc(m.Files, func(f FileDigest) bool { return f.Name == name })
}

// ErrNoResult is returned (wrapped) when a folder holds no finished result.
var ErrNoResult = errors.New("no finished result")

// ReadManifest reads dir's manifest and checks that every file it lists is there, whole and
// unchanged (size and SHA-256). A folder without a manifest, or whose files differ from it, is
// an error naming the folder and what is wrong: readers never take a mix of results, or an
// interrupted one, for a result.
func ReadManifest(dir string) (Manifest, error) { return readManifest(dir, nil) }

// readManifest is ReadManifest that does not check the files named in replacing: they are
// being rewritten.
func readManifest(dir string, replacing []string) (Manifest, error) {
	var m Manifest
	path := filepath.Join(dir, ManifestFile)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return m, fmt.Errorf("%s: %w: it has no %s (the run was interrupted, is still being written, or the folder was not written by simulate); run it again", dir, ErrNoResult, ManifestFile)
	}
	if err := readJSON(path, &m); err != nil {
		return m, err
	}
	if m.Kind == "" || m.Digest == "" {
		return m, fmt.Errorf("%s: %w: %s names no kind or scenario digest", dir, ErrNoResult, ManifestFile)
	}
	for _, f := range m.Files {
		if slices.Contains(replacing, f.Name) {
			continue
		}
		got, err := digestFile(dir, f.Name)
		if err != nil {
			return m, fmt.Errorf("%s: %w: %s lists %s, which cannot be read: %v", dir, ErrNoResult, ManifestFile, f.Name, pathlessError(err))
		}
		if got != f {
			return m, fmt.Errorf("%s: %w: %s changed after the result was written (%d bytes, sha256 %.12s…; the manifest says %d bytes, %.12s…)", dir, ErrNoResult, f.Name, got.Bytes, got.SHA256, f.Bytes, f.SHA256)
		}
	}
	return m, nil
}

// ReadManifestOf is ReadManifest that also requires the result's kind.
func ReadManifestOf(dir, kind string) (Manifest, error) {
	m, err := ReadManifest(dir)
	if err == nil && m.Kind != kind {
		err = fmt.Errorf("%s holds a %s, not a %s", dir, m.Kind, kind)
	}
	return m, err
}

// digestFile returns the size and SHA-256 of dir/name.
func digestFile(dir, name string) (FileDigest, error) {
	f, err := os.Open(filepath.Join(dir, name))
	if err != nil {
		return FileDigest{}, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return FileDigest{}, err
	}
	return FileDigest{Name: name, Bytes: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// AddFiles lists the files names (written into dir after its result, such as figures and the
// report) in dir's manifest, which must be intact but for those files, and rewrites the
// manifest. A file already listed (a figure drawn again, by another version perhaps) gets its
// new digest.
func AddFiles(dir string, names ...string) error {
	m, err := readManifest(dir, names)
	if err != nil {
		return err
	}
	for _, name := range names {
		d, err := digestFile(dir, name)
		if err != nil {
			return fmt.Errorf("results: %w", err)
		}
		if i := slices.IndexFunc(m.Files, func(f FileDigest) bool { return f.Name == name }); i >= 0 {
			m.Files[i] = d
		} else {
			m.Files = append(m.Files, d)
		}
	}
	return WriteFileAtomic(filepath.Join(dir, ManifestFile), func(w io.Writer) error { return writeJSON(w, m) })
}

// resultFiles are the names a result of any kind may write; a new result removes them from its
// folder along with the files the old manifest lists.
var resultFiles = []string{RunFile, TimeseriesFile, ShardsFile, SummaryFile, PointsFile, SweepFile,
	MapFile, MapCellsFile, TipFile, RareFile}

// claimDir makes dir ready for a new result: it creates dir and removes the old result's manifest
// first (so the folder reads as unfinished from here on), then every file the old manifest
// listed (figures and report included), every result file name and, unless keepUnits, a
// sweep's kept units (UnitsDir). Other files are left alone.
func claimDir(dir string, keepUnits bool) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	var old Manifest
	mpath := filepath.Join(dir, ManifestFile)
	_ = readJSON(mpath, &old) // a damaged or missing manifest lists nothing
	if err := os.Remove(mpath); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("results: %w", err)
	}
	names := slices.Clone(resultFiles)
	for _, f := range old.Files {
		if filepath.IsLocal(f.Name) && filepath.Base(f.Name) == f.Name {
			names = append(names, f.Name)
		}
	}
	for _, name := range names {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("results: %w", err)
		}
	}
	if !keepUnits {
		if err := os.RemoveAll(filepath.Join(dir, UnitsDir)); err != nil {
			return fmt.Errorf("results: %w", err)
		}
	}
	return nil
}

// outputFile is one file of a result and how to write it.
type outputFile struct {
	name  string
	write func(io.Writer) error
}

// writeResult replaces whatever result dir holds with a new one: claimDir, then each file
// atomically in order, then the manifest listing them, last.
func writeResult(dir string, m Manifest, files []outputFile) error {
	if err := claimDir(dir, m.Kind == KindSweep); err != nil {
		return err
	}
	for _, f := range files {
		d, err := writeAtomic(filepath.Join(dir, f.name), f.write)
		if err != nil {
			return err
		}
		m.Files = append(m.Files, d)
	}
	return WriteFileAtomic(filepath.Join(dir, ManifestFile), func(w io.Writer) error { return writeJSON(w, m) })
}

// pathlessError returns err without the path an *fs.PathError carries, for messages that name
// the path themselves.
func pathlessError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Stamp writes dir's manifest for a result of kind with header hdr made of the files names,
// already in dir: for tools that assemble a result folder from parts, and for tests of readers.
func Stamp(dir, kind string, hdr Header, names ...string) error {
	m := newManifest(kind, hdr)
	for _, name := range names {
		d, err := digestFile(dir, name)
		if err != nil {
			return fmt.Errorf("results: %w", err)
		}
		m.Files = append(m.Files, d)
	}
	return WriteFileAtomic(filepath.Join(dir, ManifestFile), func(w io.Writer) error { return writeJSON(w, m) })
}
