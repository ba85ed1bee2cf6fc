package results

import (
	"bufio"
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/overloadsim/overloadsim/sim"
)

// File names in an output folder.
const (
	RunFile        = "run.json"
	TimeseriesFile = "timeseries.csv"
	SummaryFile    = "summary.json"
	PointsFile     = "points.csv"
	SweepFile      = "sweep.json"
)

// Header describes a run well enough to replay it: what ran, with which seed and streams.
type Header struct {
	Tool        string `json:"tool"`
	Version     string `json:"version"`
	Scenario    string `json:"scenario"`
	Description string `json:"description"`
	Claim       string `json:"claim"`     // what the scenario demonstrates
	Canonical   string `json:"canonical"` // the scenario in canonical form
	Seed        uint64 `json:"seed"`
	// Replication is the replication's index within a sweep point (0 for a single run).
	Replication int `json:"replication"`
	// Streams are the derived random streams, numbered families collapsed (CompactStreams);
	// StreamRule says how each stream's seeds follow from Seed and its name.
	Streams    []Stream `json:"streams"`
	StreamRule string   `json:"streamRule"`
	// Duration is the horizon, Interval the sampling interval, Warmup the warm-up used (after
	// MSER-5 when WarmupAuto).
	Duration   time.Duration `json:"duration"`
	Interval   time.Duration `json:"interval"`
	Warmup     time.Duration `json:"warmup"`
	WarmupAuto bool          `json:"warmupAuto"`
}

// Stream is one derived random stream: its name and the two PCG seed words
// sim.StreamSeeds(seed, name) gives. After CompactStreams it may instead stand for a family of
// Count streams, whose Name holds one {first..last} range of integers in place of a path
// segment ("client/app/{0..99999}") and whose seeds, one pair per member, follow from StreamRule
// and are not listed (S1 and S2 are 0).
type Stream struct {
	Name  string `json:"name"`
	S1    uint64 `json:"s1,omitempty"`
	S2    uint64 `json:"s2,omitempty"`
	Count int    `json:"count,omitempty"` // members of a family; 0 for a single stream
}

// StreamRule is how a run derives a stream's two PCG seed words from the run seed and the
// stream's name (sim.StreamSeeds), recorded in every header so that a family of streams can be
// listed by its names alone.
const StreamRule = "PCG(s1, s2) with h = FNV-1a-64(name bytes), s1 = splitmix64(seed XOR h), " +
	"s2 = splitmix64(s1 XOR 0x9e3779b97f4a7c15)"

// minFamily is the fewest streams collapsed into a family: below it the streams are listed one
// by one, with their seeds.
const minFamily = 3

// CompactStreams collapses families of streams: names that are equal but for one path segment
// that is a decimal number (the first such segment), with consecutive numbers, become one entry
// "prefix/{first..last}/suffix" once there are at least minFamily of them; other streams are
// kept whole. Entries come in the order of each family's (or stream's) first appearance. A
// 100 000-client run thus records a handful of families instead of half a million streams.
func CompactStreams(streams []Stream) []Stream {
	type member struct {
		n int
		s Stream
	}
	type family struct {
		head, tail string // the name before and after the numbered segment
		members    []member
	}
	var order []string // family keys and single names, in first appearance
	fams := map[string]*family{}
	for _, st := range streams {
		head, num, tail, ok := numberedSegment(st.Name)
		key := head + "{}" + tail
		if !ok {
			key = st.Name
		}
		f := fams[key]
		if f == nil {
			f = &family{head: head, tail: tail}
			fams[key] = f
			order = append(order, key)
		}
		if !ok {
			num = -1
		}
		f.members = append(f.members, member{num, st})
	}
	var out []Stream
	for _, key := range order {
		f := fams[key]
		ms := f.members
		if len(ms) < minFamily || ms[0].n < 0 {
			for _, m := range ms {
				out = append(out, m.s)
			}
			continue
		}
		slices.SortStableFunc(ms, func(a, b member) int { return cmp.Compare(a.n, b.n) })
		// One entry per run of consecutive numbers; short runs stay single streams.
		for i := 0; i < len(ms); {
			j := i + 1
			for j < len(ms) && ms[j].n == ms[j-1].n+1 {
				j++
			}
			if j-i < minFamily {
				for _, m := range ms[i:j] {
					out = append(out, m.s)
				}
			} else {
				out = append(out, Stream{Name: fmt.Sprintf("%s{%d..%d}%s", f.head, ms[i].n, ms[j-1].n, f.tail), Count: j - i})
			}
			i = j
		}
	}
	return out
}

// numberedSegment splits name at its first path segment that is a decimal number without
// leading zeros: "link/app/17/mongos1" gives "link/app/", 17, "/mongos1".
func numberedSegment(name string) (head string, n int, tail string, ok bool) {
	start := 0
	for start <= len(name) {
		end := strings.IndexByte(name[start:], '/')
		if end < 0 {
			end = len(name)
		} else {
			end += start
		}
		seg := name[start:end]
		if v, err := strconv.Atoi(seg); err == nil && v >= 0 && strconv.Itoa(v) == seg {
			return name[:start], v, name[end:], true
		}
		start = end + 1
	}
	return "", 0, "", false
}

// DeriveStreams returns the streams with the given names in a run seeded by seed, in the order
// given.
func DeriveStreams(seed uint64, names ...string) []Stream {
	out := make([]Stream, len(names))
	for i, n := range names {
		s1, s2 := sim.StreamSeeds(seed, n)
		out[i] = Stream{Name: n, S1: s1, S2: s2}
	}
	return out
}

// Run is a finished run: its header, time series and summary.
type Run struct {
	Header  Header
	Series  *Series
	Summary Summary
	// Partial says why the run stopped before its horizon (a limit crossed), "" for a whole
	// run; WriteRunDir records it in the manifest.
	Partial string
}

// NewRun completes a run from its header and series: the warm-up is chosen by AutoWarmup when
// hdr.WarmupAuto (and written back into the header), the interval is taken from the series,
// and the summary is computed over the measured window, with its phases around the triggers.
func NewRun(hdr Header, s *Series) *Run {
	if hdr.WarmupAuto {
		hdr.Warmup = AutoWarmup(s)
	}
	hdr.Interval = s.Interval
	sum := Summarize(s, hdr.Warmup)
	sum.Phases = Phases(s, hdr.Warmup)
	return &Run{Header: hdr, Series: s, Summary: sum}
}

// WriteRunDir writes run.json, timeseries.csv, shards.csv (runs with mongos nodes only) and
// summary.json into dir (created if needed), replacing whatever result dir held: the old
// manifest goes first and the new one (ManifestFile) comes last, and each file is written under
// a temporary name and renamed into place, so a reader that checks the manifest sees either the
// old result whole, the new one whole, or an unfinished folder.
func WriteRunDir(dir string, run *Run) error {
	files := []outputFile{
		{RunFile, func(w io.Writer) error { return writeJSON(w, run.Header) }},
		{TimeseriesFile, func(w io.Writer) error { return WriteTimeseries(w, run.Series) }},
	}
	if len(run.Series.Shards) > 0 {
		files = append(files, outputFile{ShardsFile, func(w io.Writer) error { return WriteShards(w, run.Series) }})
	}
	sum := run.Summary
	h := run.Header
	sum.Header = &SummaryHeader{Schema: SummarySchema, Tool: h.Tool, Version: h.Version, Scenario: h.Scenario,
		Digest: ScenarioDigest(h.Canonical), Seed: h.Seed, Replication: h.Replication}
	files = append(files, outputFile{SummaryFile, func(w io.Writer) error { return writeJSON(w, sum) }})
	m := NewManifest(KindRun, run.Header)
	m.Partial = run.Partial
	return writeResult(dir, m, files)
}

// ReadHeader reads run.json from a run's folder.
func ReadHeader(dir string) (Header, error) {
	var h Header
	return h, readJSON(filepath.Join(dir, RunFile), &h)
}

// ReadSummary reads summary.json from a run's folder.
func ReadSummary(dir string) (Summary, error) {
	var s Summary
	return s, readJSON(filepath.Join(dir, SummaryFile), &s)
}

func writeJSON(w io.Writer, v any) error {
	b, err := marshalJSON(v)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// readJSON reads the JSON file at path into v, bounded as its kind is (limitOf: only a regular
// file, of at most its kind's size). An empty file says so, and what it should hold, rather
// than "EOF".
func readJSON(path string, v any) error {
	limit, what := limitOf(path)
	b, err := ReadBounded(path, limit, what)
	if err != nil {
		return fmt.Errorf("results: %w", err)
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return fmt.Errorf("results: %s: the file is empty (%d bytes): want %s, a JSON object", path, len(b), what)
	}
	if err := unmarshalJSON(b, v); err != nil {
		return fmt.Errorf("results: %s: %w", path, err)
	}
	return nil
}

// WriteFileAtomic writes path through write: into ".NAME.tmp" in the same folder, created
// exclusively (a stale temporary is removed first, a symbolic link in its place never followed),
// flushed and synced, then renamed to path, which replaces path itself even when it is a
// symbolic link, never the file the link points to. On any error the temporary file is removed and path is left as
// it was, so a file with its final name is always complete. Every output file of overloadsim
// (results, figures, reports, traces) is written this way. Errors name path, never the
// temporary file.
func WriteFileAtomic(path string, write func(io.Writer) error) error {
	_, err := writeAtomic(path, write)
	return err
}

// writeAtomic is WriteFileAtomic that also returns the written file's size and SHA-256.
func writeAtomic(path string, write func(io.Writer) error) (d FileDigest, err error) {
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	// A temporary left by a writer that was killed (or anything under its name, a symbolic
	// link included) is removed, never written through: the new one is created exclusively.
	if err := os.Remove(tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return d, fmt.Errorf("writing %s: %w", path, PathlessError(err))
	}
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|noFollow, 0o644)
	if err != nil {
		return d, fmt.Errorf("writing %s: %w", path, PathlessError(err))
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
			err = fmt.Errorf("writing %s: %w", path, PathlessError(err))
		}
	}()
	h := sha256.New()
	bw := bufio.NewWriter(io.MultiWriter(f, h))
	if err = write(bw); err != nil {
		return d, err
	}
	if err = bw.Flush(); err != nil {
		return d, err
	}
	if err = f.Sync(); err != nil {
		return d, err
	}
	st, err := f.Stat()
	if err != nil {
		return d, err
	}
	if err = f.Close(); err != nil {
		return d, err
	}
	if err = os.Rename(tmp, path); err != nil {
		return d, err
	}
	return FileDigest{Name: filepath.Base(path), Bytes: st.Size(), SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// groupColumn is one group metric column of timeseries.csv.
type groupColumn struct {
	name  string
	value func(g *GroupInterval) float64
}

// groupColumns returns the group metrics of timeseries.csv, the catalogue's in its order, with
// a failure column per error class of classes.
func groupColumns(classes []string) []groupColumn {
	var cols []groupColumn
	for i := range catalogue {
		switch m := &catalogue[i]; {
		case m.interval != nil:
			cols = append(cols, groupColumn{m.Name, m.interval})
		case m.classInterval != nil:
			for c, class := range classes {
				cols = append(cols, groupColumn{classPrefix + class, func(g *GroupInterval) float64 { return m.classInterval(g, c) }})
			}
		}
	}
	return cols
}

// serverColumns returns the server metrics of timeseries.csv, the catalogue's in its order.
func serverColumns() []MetricInfo {
	var cols []MetricInfo
	for _, m := range catalogue {
		if m.serverIvl != nil {
			cols = append(cols, m)
		}
	}
	return cols
}

// TimeseriesColumns returns the header row of timeseries.csv for s: the failure columns follow
// its error classes.
func TimeseriesColumns(s *Series) []string {
	cols := []string{"time", "kind", "name"}
	for _, c := range groupColumns(s.ErrClasses) {
		cols = append(cols, c.name)
	}
	for _, c := range serverColumns() {
		cols = append(cols, c.Name)
	}
	return cols
}

// WriteTimeseries writes s as CSV: the header row TimeseriesColumns, then one row per interval
// per group (kind "group") and per server (kind "server"), in (time, kind, name) order. time is
// the interval's end in seconds; a group row leaves the server columns empty and the other way
// round; an empty cell is "no value".
func WriteTimeseries(w io.Writer, s *Series) error {
	cw := csv.NewWriter(w)
	header := TimeseriesColumns(s)
	if err := cw.Write(header); err != nil {
		return err
	}
	row := make([]string, len(header))
	gcols, scols := groupColumns(s.ErrClasses), serverColumns()
	ng := len(gcols)
	emit := func(end sim.Time, kind, name string) error {
		row[0], row[1], row[2] = formatSeconds(int64(end)), kind, name
		return cw.Write(row)
	}
	i, j := 0, 0
	for i < len(s.Groups) || j < len(s.Servers) {
		t := sim.Never
		if i < len(s.Groups) {
			t = s.Groups[i].End
		}
		if j < len(s.Servers) {
			t = min(t, s.Servers[j].End)
		}
		for ; i < len(s.Groups) && s.Groups[i].End == t; i++ {
			g := &s.Groups[i]
			for k, c := range gcols {
				row[3+k] = formatFloat(c.value(g))
			}
			clear(row[3+ng:])
			if err := emit(t, "group", g.Name); err != nil {
				return err
			}
		}
		for ; j < len(s.Servers) && s.Servers[j].End == t; j++ {
			v := &s.Servers[j]
			clear(row[3 : 3+ng])
			for k, c := range scols {
				row[3+ng+k] = formatFloat(c.serverIvl(v))
			}
			if err := emit(t, "server", v.Name); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}
