package experiment

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/results"
)

// TestUnitsCheckKeyAndIndex pins that a kept unit is adopted only when its file names the
// sweep's key and its own index (Units; conventions §15, "Nothing silently wrong"): a unit
// written into the folder by another sweep that ran at the same time, or a unit's file copied
// over another's, is set aside and named in Discarded, and its unit runs again.
func TestUnitsCheckKeyAndIndex(t *testing.T) {
	sum := func(n uint64) results.Summary {
		var s results.Summary
		s.Total.Issued = n
		return s
	}
	t.Run("another sweep's unit", func(t *testing.T) {
		dir := t.TempDir()
		a, _, err := OpenUnits(dir, "kA")
		if err != nil {
			t.Fatal(err)
		}
		b, _, err := OpenUnits(dir, "kB") // the second sweep claims the folder's units
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Put(1, sum(11)); err != nil { // the first, still running, keeps a unit
			t.Fatal(err)
		}
		if err := b.Put(2, sum(22)); err != nil {
			t.Fatal(err)
		}
		u, kept, err := OpenUnits(dir, "kB")
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := kept[1]; ok || len(kept) != 1 || kept[2].Total.Issued != 22 {
			t.Errorf("OpenUnits(kB) kept %v; want only unit 2: unit 1 is sweep kA's", shpIssued(kept))
		}
		if len(u.Discarded) != 1 || !strings.Contains(u.Discarded[0], "00000001.gob") || !strings.Contains(u.Discarded[0], "other work") {
			t.Errorf("Discarded = %q; want unit 1's file named as another work's", u.Discarded)
		}
	})
	t.Run("a unit copied over another", func(t *testing.T) {
		dir := t.TempDir()
		u, _, err := OpenUnits(dir, "k")
		if err != nil {
			t.Fatal(err)
		}
		for _, i := range []int{3, 5} {
			if err := u.Put(i, sum(uint64(i))); err != nil {
				t.Fatal(err)
			}
		}
		data, err := os.ReadFile(filepath.Join(dir, results.UnitsDir, unitFile(3)))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, results.UnitsDir, unitFile(5)), data, 0o644); err != nil {
			t.Fatal(err)
		}
		u, kept, err := OpenUnits(dir, "k")
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := kept[5]; ok || kept[3].Total.Issued != 3 {
			t.Errorf("OpenUnits kept %v; want unit 3 only: unit 5's file holds unit 3", shpIssued(kept))
		}
		if len(u.Discarded) != 1 || !strings.Contains(u.Discarded[0], "00000005.gob") || !strings.Contains(u.Discarded[0], "holds unit 3, not unit 5") {
			t.Errorf("Discarded = %q; want unit 5's file named as holding unit 3", u.Discarded)
		}
	})
}

// TestReadShardChecksUnitKeyAndIndex pins that ReadShard reads a unit only if its file names
// the shard's key and the unit (readUnit): a unit copied over another before the shard
// finished (so that the manifest lists it) is refused, naming the unit and the file.
func TestReadShardChecksUnitKeyAndIndex(t *testing.T) {
	dir := t.TempDir()
	info := shpInfo(1, 2, 4)
	units, _, err := OpenShard(dir, info)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []int{1, 3} {
		if err := units.Put(u, shpUnit(u)); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, results.UnitsDir, unitFile(3)))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, results.UnitsDir, unitFile(1)), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := FinishShard(dir, info); err != nil {
		t.Fatal(err)
	}
	r, err := ReadShard(dir)
	if err == nil || !strings.Contains(err.Error(), "00000001.gob: holds unit 3, not unit 1") {
		t.Errorf("ReadShard = %v, %v; want unit 1's file refused as holding unit 3", shpIssued(r.Units), err)
	}
}

// withinSeconds runs f and fails the test if it does not return within limit: a reader that
// blocks on a named pipe or reads /dev/zero for ever fails instead of hanging the tests.
func withinSeconds(t *testing.T, what string, limit time.Duration, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(limit):
		t.Fatalf("%s did not return within %s: it blocks on, or reads without end, what it was given", what, limit)
		return nil
	}
}

// TestShardInputsBounded pins that every file a shard or a sweep's kept units are read from is
// refused, by path and rule, when it is not a regular file (a link to /dev/zero, a named pipe:
// neither may block or grow memory without end) or is over its kind's limit (conventions §15:
// "input is bounded before it is decoded"; results.TestInputsBounded pins the results' own).
// A units/KEY that cannot be read is no key: the units are another sweep's and start afresh.
func TestShardInputsBounded(t *testing.T) {
	type reader struct {
		name string
		file string // the file under test, relative to the folder
		read func(dir string) error
	}
	readers := []reader{
		{"ReadShard (shard.json)", results.ShardFile, func(dir string) error { _, err := ReadShard(dir); return err }},
		{"ReadShard (a unit)", filepath.Join(results.UnitsDir, unitFile(1)), func(dir string) error { _, err := ReadShard(dir); return err }},
		{"OpenUnits (a unit)", filepath.Join(results.UnitsDir, unitFile(1)), func(dir string) error {
			u, _, err := OpenUnits(dir, "k")
			if err == nil && len(u.Discarded) > 0 {
				err = errors.New(strings.Join(u.Discarded, "; "))
			}
			return err
		}},
		{"OpenUnits (units/KEY)", filepath.Join(results.UnitsDir, results.UnitsKeyFile), func(dir string) error {
			_, _, err := OpenUnits(dir, "k")
			return err
		}},
	}
	setup := func(t *testing.T, r reader) string {
		dir := t.TempDir()
		switch {
		case strings.HasPrefix(r.name, "ReadShard"):
			shpFinishShard(t, dir, shpInfo(1, 2, 4))
		case r.name == "OpenUnits (a unit)":
			if _, _, err := OpenUnits(dir, "k"); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, r.file)), 0o755); err != nil {
			t.Fatal(err)
		}
		os.Remove(filepath.Join(dir, r.file))
		return dir
	}
	for _, r := range readers {
		for _, c := range []struct {
			what, rule string
			make       func(path string) error
		}{
			{"a link to /dev/zero", "a character device", func(path string) error { return os.Symlink("/dev/zero", path) }},
			{"a named pipe", "a named pipe", func(path string) error { return syscall.Mkfifo(path, 0o644) }},
		} {
			t.Run(r.name+"/"+c.what, func(t *testing.T) {
				dir := setup(t, r)
				path := filepath.Join(dir, r.file)
				if err := c.make(path); err != nil {
					t.Skipf("%s: %v", c.what, err)
				}
				err := withinSeconds(t, r.name+" of "+c.what, 5*time.Second, func() error { return r.read(dir) })
				if r.name == "OpenUnits (units/KEY)" {
					if err != nil {
						t.Errorf("OpenUnits with %s for its key = %v; want the units started afresh", c.what, err)
					}
					return
				}
				if err == nil || !strings.Contains(err.Error(), path+": "+c.rule+": must be a regular file") {
					t.Errorf("%s of %s = %v; want it refused naming %s as %s", r.name, c.what, err, path, c.rule)
				}
			})
		}
	}
	// Over the limit: sparse files one byte larger than their kind's limit.
	for _, c := range []struct {
		r     reader
		lim   int64
		limit string
	}{
		{readers[0], results.MaxJSONBytes, "64 MiB (the limit for a shard.json)"},
		{readers[2], results.MaxUnitBytes, "16 MiB (the limit for a kept unit)"},
	} {
		t.Run(c.r.name+"/too-large", func(t *testing.T) {
			dir := setup(t, c.r)
			path := filepath.Join(dir, c.r.file)
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := f.Truncate(c.lim + 1); err != nil {
				t.Fatal(err)
			}
			f.Close()
			err = c.r.read(dir)
			if err == nil || !strings.Contains(err.Error(), path+": "+strconv.FormatInt(c.lim+1, 10)+" bytes: must be at most "+c.limit) {
				t.Errorf("%s of a file of %d bytes = %v; want it refused naming %s and %q", c.r.name, c.lim+1, err, path, c.limit)
			}
		})
	}
}

// TestUnitsExact: a kept unit reads back to the same summary, bit for bit (its metrics
// aggregate to the same bytes), and units under another key are discarded.
func TestUnitsExact(t *testing.T) {
	dir := t.TempDir()
	s, err := results.ReadSummary(filepath.Join("..", "results", "testdata", "TestGoldenRun"))
	if err != nil {
		t.Fatal(err)
	}
	u, kept, err := OpenUnits(dir, "k1")
	if err != nil || len(kept) != 0 {
		t.Fatalf("OpenUnits of a new folder = %v, %v", kept, err)
	}
	if err := u.Put(7, s); err != nil {
		t.Fatal(err)
	}
	_, kept, err = OpenUnits(dir, "k1")
	if err != nil || len(kept) != 1 {
		t.Fatalf("OpenUnits again = %d units, %v; want 1", len(kept), err)
	}
	back := kept[7]
	a, b := s.Metrics(), back.Metrics()
	if len(a) != len(b) {
		t.Fatalf("%d metrics read back, want %d", len(b), len(a))
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].Value != b[i].Value && !(a[i].Value != a[i].Value && b[i].Value != b[i].Value) {
			t.Errorf("metric %s: %v read back as %v", a[i].Name, a[i].Value, b[i].Value)
		}
	}
	if _, kept, _ = OpenUnits(dir, "k2"); len(kept) != 0 {
		t.Errorf("units of another sweep were kept: %d", len(kept))
	}
}
