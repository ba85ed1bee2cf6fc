package results

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
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
	// KindCompare is a comparison of runs and sweeps (results/compare).
	KindCompare = "compare"
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
	// units the manifest lists (see experiment.ShardInfo).
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

// NewManifest returns the manifest of a result of kind with header hdr, listing no files yet.
func NewManifest(kind string, hdr Header) Manifest {
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
		got, err := DigestFile(dir, f.Name)
		if err != nil {
			return m, fmt.Errorf("%s: %w: %s lists %s, which cannot be read: %v", dir, ErrNoResult, ManifestFile, f.Name, PathlessError(err))
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

// DigestFile returns the size and SHA-256 of dir/name, which must be a regular file (a named
// pipe or a device such as /dev/zero is refused before it is opened, openRegular); it hashes at
// most one byte more than the size the file had when opened, so a file that grows without end
// ends the hash too.
func DigestFile(dir, name string) (FileDigest, error) {
	path := filepath.Join(dir, name)
	f, err := openRegular(path, math.MaxInt64-1, "a result file")
	if err != nil {
		return FileDigest{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return FileDigest{}, err
	}
	h := sha256.New()
	n, err := io.CopyN(h, f, fi.Size()+1)
	if errors.Is(err, io.EOF) {
		err = nil
	}
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
		d, err := DigestFile(dir, name)
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

// The file names of the studies whose records live in packages of their own (results/KIND):
// they are here, beside the run's and the sweep's, so that a folder's discipline (resultFiles,
// CheckOutDir) and the bounds on what is read (input.go) know every name a result writes.
const (
	MapFile        = "map.json"     // a metastability map: header, trigger, axes and cells (results/phasemap)
	MapCellsFile   = "map.csv"      // the map's cells, one row each
	TipFile        = "tip.json"     // a tipping-point search (results/tip)
	RareFile       = "rare.json"    // a rare-event estimate (results/rare)
	CompareFile    = "compare.json" // a comparison of results (results/compare)
	CompareCSVFile = "compare.csv"  // the comparison's table
)

// resultFiles are the names a result of any kind may write: in a folder of ours, a file under
// one of them that no manifest lists is refused, not overwritten (CheckOutDir).
var resultFiles = []string{RunFile, TimeseriesFile, ShardsFile, SummaryFile, PointsFile, SweepFile, CompareFile, CompareCSVFile,
	MapFile, MapCellsFile, TipFile, RareFile}

// ClaimDir makes dir ready for a new result that writes the files writes: it creates dir and
// refuses it when it holds files no overloadsim result lists (CheckOutDir). Then it records,
// in the claim record (ClaimFile), what the folder's old result and any unfinished write listed
// with what the new one writes, and only then removes the old manifest (so the folder reads as
// unfinished from here on, yet is still known to be ours), the files the old manifest and claim
// listed (figures and report included) and, unless keepUnits, a sweep's kept units (UnitsDir).
// Nothing else is removed: a file under a name to be written that no manifest lists is refused.
func ClaimDir(dir string, keepUnits bool, writes ...string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	if err := CheckOutDir(dir); err != nil {
		return err
	}
	var old Manifest
	mpath := filepath.Join(dir, ManifestFile)
	_ = readJSON(mpath, &old) // a damaged or missing manifest lists nothing
	names, _ := readClaim(dir)
	for _, f := range old.Files {
		if topLevel(f.Name) {
			names = append(names, f.Name)
		}
	}
	if err := writeClaim(dir, append(slices.Clone(names), writes...)); err != nil {
		return err
	}
	if err := os.Remove(mpath); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("results: %w", err)
	}
	for _, name := range names {
		if name == ManifestFile || name == ClaimFile || name == LockFile {
			continue
		}
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("results: %w", err)
		}
	}
	if !keepUnits && ourUnits(filepath.Join(dir, UnitsDir)) {
		if err := os.RemoveAll(filepath.Join(dir, UnitsDir)); err != nil {
			return fmt.Errorf("results: %w", err)
		}
	}
	var foreign []string
	for _, name := range writes {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			foreign = append(foreign, name)
		}
	}
	if len(foreign) > 0 {
		return foreignError(dir, foreign)
	}
	return nil
}

// outputFile is one file of a result and how to write it.
type outputFile struct {
	name  string
	write func(io.Writer) error
}

// writeResult replaces whatever result dir holds with a new one: ClaimDir, then each file
// atomically in order, then the manifest listing them, last, and the claim record goes.
func writeResult(dir string, m Manifest, files []outputFile) error {
	writes := []string{ManifestFile}
	for _, f := range files {
		writes = append(writes, f.name)
	}
	if err := ClaimDir(dir, m.Kind == KindSweep, writes...); err != nil {
		return err
	}
	for _, f := range files {
		d, err := writeAtomic(filepath.Join(dir, f.name), f.write)
		if err != nil {
			return err
		}
		m.Files = append(m.Files, d)
	}
	if err := WriteFileAtomic(filepath.Join(dir, ManifestFile), func(w io.Writer) error { return writeJSON(w, m) }); err != nil {
		return err
	}
	return RemoveClaim(dir)
}

// PathlessError returns err without the path an *fs.PathError carries, for messages that name
// the path themselves.
func PathlessError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Stamp writes dir's manifest for a result of kind with header hdr made of the files names,
// already in dir: for tools that assemble a result folder from parts, and for tests of readers.
func Stamp(dir, kind string, hdr Header, names ...string) error {
	m := NewManifest(kind, hdr)
	for _, name := range names {
		d, err := DigestFile(dir, name)
		if err != nil {
			return fmt.Errorf("results: %w", err)
		}
		m.Files = append(m.Files, d)
	}
	return WriteFileAtomic(filepath.Join(dir, ManifestFile), func(w io.Writer) error { return writeJSON(w, m) })
}

// ResultDigest identifies the result the manifest describes: the hex SHA-256 of its kind,
// scenario digest, seed, version and the digests of its result files (every file but figures
// and the report, which are drawn from the result). Figures and the report carry it
// (ResultMark), so that one drawn from another result is told apart even under the right name.
func (m *Manifest) ResultDigest() string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%d\x00%s\x00%s\x00", m.Tool, m.Kind, m.Seed, m.Version, m.Digest)
	for _, f := range m.Files {
		if !isDrawn(f.Name) {
			fmt.Fprintf(h, "%s\x00%s\x00", f.Name, f.SHA256)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// isDrawn reports whether a folder's file is drawn from its result (a figure, the report)
// rather than part of it.
func isDrawn(name string) bool {
	switch filepath.Ext(name) {
	case ".svg", ".png", ".html":
		return true
	}
	return false
}

// ResultMark is the text a figure or report carries to say which result it was drawn from:
// in an SVG's <desc>, a PNG's tEXt chunk and the report's <meta>.
func ResultMark(digest string) string { return "overloadsim result " + digest }

// resultMarkRE finds a ResultMark in a file's bytes.
var resultMarkRE = regexp.MustCompile(`overloadsim result ([0-9a-f]{64})`)

// MarkedResult returns the result digest a figure or report file carries (ResultMark), "" when
// it carries none.
func MarkedResult(data []byte) string {
	if m := resultMarkRE.FindSubmatch(data); m != nil {
		return string(m[1])
	}
	return ""
}

// MarkSVG returns the SVG with ResultMark(digest) as the <desc> of its root element.
func MarkSVG(svg []byte, digest string) []byte {
	i := bytes.Index(svg, []byte("<svg"))
	if i < 0 {
		return svg
	}
	j := bytes.IndexByte(svg[i:], '>')
	if j < 0 {
		return svg
	}
	at := i + j + 1
	out := append([]byte{}, svg[:at]...)
	out = append(out, "\n<desc>"+ResultMark(digest)+"</desc>"...)
	return append(out, svg[at:]...)
}

// MarkPNG returns the PNG with a tEXt chunk "Comment" holding ResultMark(digest), right after
// its IHDR chunk.
func MarkPNG(png []byte, digest string) []byte {
	const ihdrEnd = 8 + 4 + 4 + 13 + 4 // signature, IHDR length, type, data, CRC
	if len(png) < ihdrEnd || string(png[12:16]) != "IHDR" {
		return png
	}
	data := append([]byte("Comment\x00"), ResultMark(digest)...)
	chunk := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	typed := append([]byte("tEXt"), data...)
	chunk = append(chunk, typed...)
	chunk = binary.BigEndian.AppendUint32(chunk, crc32.ChecksumIEEE(typed))
	out := append([]byte{}, png[:ihdrEnd]...)
	out = append(out, chunk...)
	return append(out, png[ihdrEnd:]...)
}

// StaleFigures returns the figures and report the manifest lists whose mark is not the
// result's (ResultDigest): drawn from another result, or by a version that did not mark them.
func StaleFigures(dir string, m *Manifest) ([]string, error) {
	want := m.ResultDigest()
	var stale []string
	for _, f := range m.Files {
		if !isDrawn(f.Name) {
			continue
		}
		data, err := ReadBounded(filepath.Join(dir, f.Name), MaxFigureBytes, "a figure or report")
		if err != nil {
			return nil, fmt.Errorf("results: %w", err)
		}
		if MarkedResult(data) != want {
			stale = append(stale, f.Name)
		}
	}
	return stale, nil
}

// RequireListed refuses a folder whose manifest leaves out a file that is about to be read:
// unlisted, the file is not verified, and may be another result's.
func (m *Manifest) RequireListed(dir string, names ...string) error {
	for _, name := range names {
		if !m.Has(name) {
			return fmt.Errorf("%s: %w: its %s (a %s) does not list %s, which is read from it: the folder mixes results or was edited; write the result again",
				dir, ErrNoResult, ManifestFile, m.Kind, name)
		}
	}
	return nil
}
