package main

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/internal/countergen/testdata/fixture"
)

// directivePrefix starts every go:generate line that runs countergen.
const directivePrefix = "//go:generate go run github.com/overloadsim/overloadsim/internal/countergen "

func moduleRoot(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// directives returns, by package directory, the countergen command lines of the module's
// generate directives (outside testdata folders, plus this package's fixture), and the files
// that carry countergen's header.
func directives(t *testing.T, root string) (map[string][]options, []string) {
	t.Helper()
	byDir := map[string][]options{}
	var generated []string
	fixtureDir := filepath.Join(root, "internal", "countergen", "testdata", "fixture")
	visit := func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && path != fixtureDir && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.HasPrefix(src, []byte(header)) {
			generated = append(generated, path)
		}
		sc := bufio.NewScanner(bytes.NewReader(src))
		for sc.Scan() {
			args, ok := strings.CutPrefix(sc.Text(), directivePrefix)
			if !ok {
				continue
			}
			o, err := parseArgs(strings.Fields(args))
			if err != nil {
				t.Errorf("%s: %s: %v", path, sc.Text(), err)
				continue
			}
			o.dir = filepath.Dir(path)
			byDir[o.dir] = append(byDir[o.dir], o)
		}
		return sc.Err()
	}
	if err := filepath.WalkDir(root, visit); err != nil {
		t.Fatal(err)
	}
	if err := filepath.WalkDir(fixtureDir, visit); err != nil {
		t.Fatal(err)
	}
	return byDir, generated
}

// TestGeneratedFilesUpToDate regenerates, in memory, every file a countergen directive names and
// fails when the file on disk differs (run go generate in that package), and when a file with
// countergen's header is no directive's output (delete it).
func TestGeneratedFilesUpToDate(t *testing.T) {
	root := moduleRoot(t)
	byDir, generated := directives(t, root)
	if len(byDir) < 4 {
		t.Errorf("found countergen directives in %d packages, want at least 4 (client, server, server/mongos, the fixture)", len(byDir))
	}
	want := map[string]bool{}
	dirs := make([]string, 0, len(byDir))
	for dir := range byDir {
		dirs = append(dirs, dir)
	}
	slices.Sort(dirs)
	for _, dir := range dirs {
		pkg, err := load(dir)
		if err != nil {
			t.Error(err)
			continue
		}
		for _, o := range byDir[dir] {
			for _, typ := range o.types {
				path := o.outputFile(typ)
				want[path] = true
				src, err := Generate(pkg, typ)
				if err != nil {
					t.Error(err)
					continue
				}
				rel, _ := filepath.Rel(root, path)
				disk, err := os.ReadFile(path)
				switch {
				case err != nil:
					t.Errorf("%s: %v: run go generate in %s", rel, err, filepath.Dir(rel))
				case !bytes.Equal(disk, src):
					t.Errorf("%s is stale: run go generate in %s", rel, filepath.Dir(rel))
				}
			}
		}
	}
	for _, path := range generated {
		if !want[path] {
			rel, _ := filepath.Rel(root, path)
			t.Errorf("%s has countergen's header but no directive generates it: delete it", rel)
		}
	}
}

// TestFixtureArithmetic checks the generated methods of the fixture, which has a field of every
// kind: counters of every numeric type, arrays, nested arrays and arrays of structs, nested,
// embedded and anonymous structs, and gauges and labels that keep the receiver's value.
func TestFixtureArithmetic(t *testing.T) {
	inner := func(h uint64, l float64) fixture.Inner { return fixture.Inner{Hits: h, Level: l} }
	mk := func(k int, label string, level float64, up bool) fixture.Sample {
		s := fixture.Sample{
			Embedded: fixture.Embedded{Extra: int32(k)},
			Duration: time.Duration(k) * time.Second,
			Name:     label,
			N:        k, I64: int64(k), U: uint64(k), F: float64(k) / 2,
			D: time.Duration(k) * time.Millisecond, C: fixture.Count(k),
			Arr:    [3]uint64{uint64(k), uint64(2 * k), uint64(3 * k)},
			Grid:   [2][2]int{{k, 2 * k}, {3 * k, 4 * k}},
			Durs:   [2]time.Duration{time.Duration(k), time.Duration(2 * k)},
			In:     inner(uint64(k), level),
			Ins:    [2]fixture.Inner{inner(uint64(k), level), inner(uint64(2*k), level)},
			Level:  level,
			Up:     up,
			Forced: uint64(k),
			Frozen: inner(uint64(k), level),
			Levels: [2]fixture.Inner{inner(uint64(k), level), inner(uint64(k), level)},
			Ptr:    &fixture.Inner{Hits: uint64(k)},
		}
		s.Anon.A, s.Anon.B = uint64(k), uint64(2*k)
		return s
	}
	// Counters scale with k; gauges and labels are what the receiver had.
	check := func(name string, got fixture.Sample, k int, recv fixture.Sample) {
		t.Helper()
		want := mk(k, recv.Name, recv.Level, recv.Up)
		want.Frozen = recv.Frozen // kept whole, counters included
		want.Ptr = recv.Ptr
		if got.Ptr != want.Ptr {
			t.Errorf("%s: Ptr %p, want the receiver's %p", name, got.Ptr, want.Ptr)
		}
		got.Ptr, want.Ptr = nil, nil
		if got != want {
			t.Errorf("%s:\n got %+v\nwant %+v", name, got, want)
		}
	}

	a, b := mk(5, "a", 1.5, true), mk(3, "b", 9, false)
	b0 := b
	sum := a
	sum.Add(&b)
	check("Add", sum, 8, a)
	if b != b0 {
		t.Errorf("Add changed its argument: %+v", b)
	}

	now, prev := mk(10, "now", 2, false), mk(4, "prev", 7, true)
	d := now
	d.Sub(&prev)
	check("Sub", d, 6, now)

	back := d
	back.Add(&prev)
	check("Sub then Add", back, 10, now)
}

// TestRefusals runs the generator on structs it must refuse, and checks it names the field and
// the fix.
func TestRefusals(t *testing.T) {
	pkg, err := load(filepath.Join("testdata", "bad"))
	if err != nil {
		t.Fatal(err)
	}
	for typ, want := range map[string]string{
		"Flag":      "Flag.On: bool is not a counter",
		"Slice":     "Slice.Xs: []uint64 is not a counter",
		"Comment":   "Comment.Queued: its comment calls it a gauge but it has no tag",
		"Tag":       `Tag.N: tag counter:"level": want "sum", "gauge" or "-"`,
		"Method":    "Method: already has a field or method Add",
		"NotStruct": "NotStruct: not a struct type",
		"Missing":   "no type Missing",
	} {
		_, err := Generate(pkg, typ)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one containing %q", typ, err, want)
		}
	}
}

func TestFileName(t *testing.T) {
	for in, want := range map[string]string{
		"Stats":      "stats_counters.go",
		"GroupStats": "group_stats_counters.go",
		"ShardStats": "shard_stats_counters.go",
		"HTTPStats":  "http_stats_counters.go",
		"statsV2":    "stats_v2_counters.go",
	} {
		if got := fileName(in); got != want {
			t.Errorf("fileName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseArgs(t *testing.T) {
	o, err := parseArgs([]string{"-type=A, B", "some/dir"})
	if err != nil || !slices.Equal(o.types, []string{"A", "B"}) || o.dir != "some/dir" {
		t.Errorf("parseArgs = %+v, %v", o, err)
	}
	if o.outputFile("B") != filepath.Join("some", "dir", "b_counters.go") {
		t.Errorf("outputFile(B) = %s", o.outputFile("B"))
	}
	for _, bad := range [][]string{{}, {"-type="}, {"-type=A,B", "-output=x.go"}, {"-type=A", "d1", "d2"}, {"-nope"}} {
		if _, err := parseArgs(bad); err == nil {
			t.Errorf("parseArgs(%q): no error", bad)
		}
	}
}
