package results

import (
	"bytes"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/internal/golden"
)

// fixtureSeries is a hand-built series: groups "a" and "b", server "db", three one-second
// intervals and a half one, a trigger from 1 s to 2 s.
func fixtureSeries() *Series {
	s := &Series{Interval: time.Second, Faults: []FaultWindow{{"spike", at(1), at(2)}},
		ErrClasses: testNames.ErrClasses, RetryReasons: testNames.RetryReasons}
	ends := []float64{1, 2, 3, 3.5}
	for i, end := range ends {
		start := 0.0
		if i > 0 {
			start = ends[i-1]
		}
		for gi, name := range []string{"a", "b"} {
			k := uint64(i + 1 + 10*gi)
			g := GroupInterval{Start: at(start), End: at(end), Name: name,
				Issued: 100 * k, Succeeded: 90 * k, Failed: 7 * k, AppRetries: k, DriverOps: 101 * k,
				Attempts: 150 * k, Retries: 50 * k, RetriesRefused: 2 * k, Backoff: time.Duration(k) * 30 * time.Millisecond,
				CheckoutFailed: k % 2, PoolClears: 0, TokensMin: math.NaN()}
			g.FailedByClass = []uint64{5 * k, 2 * k, 0, 0, 0, 0} // overload, timeout
			if name == "a" {
				g.TokensMin, g.TokensSum, g.TokensN = 900-float64(k), 1900-float64(k), 2
			}
			for v := range 20 {
				g.Success.Record(time.Duration(v+1) * time.Duration(k) * 137 * time.Microsecond)
			}
			for v := range 3 {
				g.Failure.Record(time.Duration(v+1) * time.Duration(k) * 2 * time.Second)
			}
			s.Groups = append(s.Groups, g)
		}
		s.Servers = append(s.Servers, ServerInterval{Start: at(start), End: at(end), Name: "db",
			Completed: uint64(1000 * (i + 1)), RejectedAdmissions: uint64(40 * i), QueueOverflows: uint64(i), ConnRejected: 1,
			BusyArea: 1.5 * (end - start), CapacityArea: 2 * (end - start), QueueArea: 0.25 * float64(i),
			RejectBusy: time.Duration(i) * time.Millisecond, WastedBusy: time.Duration(i) * 3 * time.Millisecond,
			Workers: 2, Connections: 20 + i, Tokens: math.Inf(1), Down: i == 1})
	}
	return s
}

func fixtureHeader() Header {
	return Header{Tool: "overloadsim", Version: "v0.0.0-test", Scenario: "golden", Description: "a hand-built series",
		Claim: "formats are stable", Canonical: "name: golden\nseed: 7\nduration: 3.5s\n", Seed: 7,
		Streams:    DeriveStreams(7, "group/a", "group/b", "server/db/service"),
		StreamRule: StreamRule,
		Duration:   3500 * time.Millisecond, Interval: time.Second, Warmup: time.Second}
}

func readDir(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = b
	}
	return out
}

// TestGoldenRun: run.json, timeseries.csv, summary.json and the manifest listing them (with
// their digests) of a hand-built run, byte for byte.
func TestGoldenRun(t *testing.T) {
	dir := t.TempDir()
	if err := WriteRunDir(dir, NewRun(fixtureHeader(), fixtureSeries())); err != nil {
		t.Fatal(err)
	}
	files := readDir(t, dir)
	if len(files) != 4 {
		t.Errorf("folder holds %d files, want exactly run.json, timeseries.csv, summary.json, manifest.json", len(files))
	}
	for _, name := range []string{RunFile, TimeseriesFile, SummaryFile, ManifestFile} {
		golden.Check(t, filepath.Join("testdata", t.Name(), name), files[name])
	}
}

// writeSweepFixture writes a sweep's files (points.csv, sweep.json and the manifest listing
// them) into dir as results/sweep does; their contents do not matter to the tests that use it.
func writeSweepFixture(dir string) error {
	hdr := fixtureHeader()
	return WriteResult(dir, KindSweep, hdr, "", []OutputFile{
		{Name: PointsFile, Write: func(w io.Writer) error { _, err := io.WriteString(w, "replications\n3\n"); return err }},
		{Name: SweepFile, Write: func(w io.Writer) error {
			return WriteJSON(w, struct {
				Header Header `json:"header"`
			}{hdr})
		}}})
}

// TestReadBack: the header reads back exactly; summary.json reads back to the same bytes, its
// header (SummaryHeader) included.
func TestReadBack(t *testing.T) {
	dir := t.TempDir()
	run := NewRun(fixtureHeader(), fixtureSeries())
	if err := WriteRunDir(dir, run); err != nil {
		t.Fatal(err)
	}
	hdr, err := ReadHeader(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(hdr, run.Header) {
		t.Errorf("ReadHeader = %+v, want %+v", hdr, run.Header)
	}
	sum, err := ReadSummary(dir)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := marshalJSON(sum)
	b, _ := os.ReadFile(filepath.Join(dir, SummaryFile))
	if !bytes.Equal(a, b) {
		t.Errorf("summary.json read back and rewritten differs:\n%s\nwant\n%s", a, b)
	}
	if !math.IsNaN(sum.Groups[1].TokensMin) {
		t.Errorf("a null float read back as %v, want NaN", sum.Groups[1].TokensMin)
	}
}

// TestFormatSeconds: durations are written as exact decimal seconds and read back exactly.
func TestFormatSeconds(t *testing.T) {
	for _, c := range []struct {
		ns   int64
		want string
	}{{0, "0"}, {1, "0.000000001"}, {1e9, "1"}, {1500e6, "1.5"}, {-250e6, "-0.25"}, {3600e9 + 1, "3600.000000001"}} {
		if got := formatSeconds(c.ns); got != c.want {
			t.Errorf("formatSeconds(%d) = %q, want %q", c.ns, got, c.want)
		}
		if back, err := parseSeconds(c.want); err != nil || back != c.ns {
			t.Errorf("parseSeconds(%q) = %d, %v; want %d", c.want, back, err, c.ns)
		}
	}
	for _, c := range []struct {
		x    float64
		want string
	}{{math.NaN(), ""}, {math.Inf(1), ""}, {1234567, "1.23457e+06"}, {0.1 + 0.2, "0.3"}, {2.5, "2.5"}} {
		if got := formatFloat(c.x); got != c.want {
			t.Errorf("formatFloat(%v) = %q, want %q", c.x, got, c.want)
		}
	}
}

var errInjected = errors.New("injected failure")

// failAfter writes n bytes, then fails.
type failAfter struct {
	w io.Writer
	n int
}

func (f *failAfter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		k, _ := f.w.Write(p[:f.n])
		f.n = 0
		return k, errInjected
	}
	f.n -= len(p)
	return f.w.Write(p)
}

// TestAtomicWriteFailingWriter: a write that fails midway leaves no file under the final name
// and no temporary file, and leaves an earlier complete file untouched.
func TestAtomicWriteFailingWriter(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, TimeseriesFile)
	series := fixtureSeries()
	// Five copies of the series (about 12 KB) through a writer that fails after 9000 bytes: the
	// 4096-byte buffer in front of the file has flushed real bytes before the failure.
	failing := func(w io.Writer) error {
		fw := &failAfter{w: w, n: 9000}
		for range 5 {
			if err := WriteTimeseries(fw, series); err != nil {
				return err
			}
		}
		return io.ErrShortWrite
	}
	if err := WriteFileAtomic(path, failing); !errors.Is(err, errInjected) {
		t.Fatalf("WriteFileAtomic = %v, want the injected failure", err)
	}
	if names := dirNames(t, dir); len(names) != 0 {
		t.Errorf("after a failed write the folder holds %v, want nothing", names)
	}
	if err := WriteFileAtomic(path, func(w io.Writer) error { _, err := io.WriteString(w, "complete\n"); return err }); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(path, failing); err == nil {
		t.Fatal("second failing write succeeded")
	}
	if b, _ := os.ReadFile(path); string(b) != "complete\n" {
		t.Errorf("a failed rewrite changed the complete file to %q", b)
	}
	if names := dirNames(t, dir); len(names) != 1 {
		t.Errorf("folder holds %v, want only %s", names, TimeseriesFile)
	}
}

// TestWriteRunDirFailsMidway: when the last file cannot be put in place (a directory occupies
// its name), WriteRunDir fails, leaves no temporary file, and no summary.json file appears.
func TestWriteRunDirFailsMidway(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, SummaryFile)
	if err := os.MkdirAll(filepath.Join(blocker, "occupied"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteRunDir(dir, NewRun(fixtureHeader(), fixtureSeries())); err == nil {
		t.Fatal("WriteRunDir succeeded with summary.json blocked")
	}
	if fi, err := os.Stat(blocker); err != nil || !fi.IsDir() {
		t.Errorf("summary.json is no longer the blocking directory: %v", err)
	}
	for _, n := range dirNames(t, dir) {
		if strings.HasSuffix(n, ".tmp") {
			t.Errorf("temporary file %s left behind", n)
		}
	}
}

// TestWriteRunDirReadOnly: in a folder that cannot be written nothing with a final name appears.
func TestWriteRunDirReadOnly(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes into read-only folders")
	}
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(dir, 0o755)
	if err := WriteRunDir(dir, NewRun(fixtureHeader(), fixtureSeries())); err == nil {
		t.Fatal("WriteRunDir into a read-only folder succeeded")
	}
	if names := dirNames(t, dir); len(names) != 0 {
		t.Errorf("read-only folder holds %v", names)
	}
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestCompactStreams: numbered families of three or more consecutive members collapse into one
// {first..last} entry at their first appearance; gaps split a family into runs; short runs,
// numbers with leading zeros and unnumbered names stay single streams with their seeds; and
// expanding the families gives back exactly the names that went in.
func TestCompactStreams(t *testing.T) {
	names := []string{
		"server/db/service",
		"link/app/0/db", "client/app/0", "link/app/1/db", "client/app/1", "link/app/2/db", "client/app/2",
		"client/app/5", "client/app/6", // a run of two after a gap: kept whole
		"client/app/007", // leading zeros: not a number
		"group/app",
		"link/app/3/db",
		"mongos/m1/0/x", "mongos/m1/1/x", // a family of two: kept whole
	}
	in := DeriveStreams(7, names...)
	got := CompactStreams(in)
	want := []string{
		"server/db/service",
		"link/app/{0..3}/db",
		"client/app/{0..2}", "client/app/5", "client/app/6",
		"client/app/007", "group/app", "mongos/m1/0/x", "mongos/m1/1/x",
	}
	var gotNames []string
	for _, s := range got {
		gotNames = append(gotNames, s.Name)
	}
	if !slices.Equal(gotNames, want) {
		t.Fatalf("CompactStreams names:\n%q\nwant\n%q", gotNames, want)
	}
	byName := map[string]Stream{}
	for _, s := range in {
		byName[s.Name] = s
	}
	var expanded []string
	for _, s := range got {
		open, close := strings.Index(s.Name, "{"), strings.Index(s.Name, "}")
		if open < 0 {
			if s.Count != 0 || s != byName[s.Name] {
				t.Errorf("single stream %+v, want %+v unchanged", s, byName[s.Name])
			}
			expanded = append(expanded, s.Name)
			continue
		}
		var lo, hi int
		if _, err := fmt.Sscanf(s.Name[open:close+1], "{%d..%d}", &lo, &hi); err != nil || s.Count != hi-lo+1 || s.S1 != 0 || s.S2 != 0 {
			t.Errorf("family %+v: want Count = last − first + 1 and no seeds (%v)", s, err)
		}
		for n := lo; n <= hi; n++ {
			expanded = append(expanded, s.Name[:open]+strconv.Itoa(n)+s.Name[close+1:])
		}
	}
	slices.Sort(expanded)
	sorted := slices.Sorted(slices.Values(names))
	if !slices.Equal(expanded, sorted) {
		t.Errorf("expanded families give\n%q\nwant the names that went in\n%q", expanded, sorted)
	}
}

// TestStreamRule: the rule a header records, implemented from its text alone, gives the seeds
// the run used (sim.StreamSeeds), so a family's seeds can be recomputed from its names.
func TestStreamRule(t *testing.T) {
	if StreamRule != "PCG(s1, s2) with h = FNV-1a-64(name bytes), s1 = splitmix64(seed XOR h), s2 = splitmix64(s1 XOR 0x9e3779b97f4a7c15)" {
		t.Fatalf("StreamRule changed to %q: update this implementation of it", StreamRule)
	}
	splitmix64 := func(x uint64) uint64 { // Steele, Lea and Flood's SplitMix64 output function
		x += 0x9e3779b97f4a7c15
		x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
		x = (x ^ (x >> 27)) * 0x94d049bb133111eb
		return x ^ (x >> 31)
	}
	for _, tc := range []struct {
		seed uint64
		name string
	}{{1, "client/app/0"}, {42, "link/app/99999/mongos4"}, {0, ""}} {
		h := fnv.New64a()
		h.Write([]byte(tc.name))
		s1 := splitmix64(tc.seed ^ h.Sum64())
		s2 := splitmix64(s1 ^ 0x9e3779b97f4a7c15)
		if got := DeriveStreams(tc.seed, tc.name)[0]; got.S1 != s1 || got.S2 != s2 {
			t.Errorf("seed %d, %q: the run's seeds %d %d, the rule's %d %d", tc.seed, tc.name, got.S1, got.S2, s1, s2)
		}
	}
}
