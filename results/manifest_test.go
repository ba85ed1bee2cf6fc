package results

import (
	"bytes"
	"errors"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestNewResultReplacesOld: a result written into a folder that holds another one leaves none
// of the old result's files (figures listed in its manifest included), keeps files it does not
// own, and reads back whole.
func TestNewResultReplacesOld(t *testing.T) {
	dir := t.TempDir()
	run := NewRun(fixtureHeader(), fixtureSeries())
	if err := WriteRunDir(dir, run); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"timeseries.svg", "mine.txt"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := AddFiles(dir, "timeseries.svg"); err != nil {
		t.Fatal(err)
	}
	if err := writeSweepFixture(dir); err != nil {
		t.Fatal(err)
	}
	names := dirNames(t, dir)
	want := []string{ManifestFile, "mine.txt", PointsFile, SweepFile}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("folder after a sweep replaced a run: %v, want %v", names, want)
	}
	m, err := ReadManifest(dir)
	if err != nil || m.Kind != KindSweep || len(m.Files) != 2 {
		t.Errorf("ReadManifest = %+v, %v; want the sweep's two files", m, err)
	}
}

// TestReadManifestRefuses: no manifest, a file changed, a file missing, a manifest without a
// kind: each is ErrNoResult, naming what is wrong.
func TestReadManifestRefuses(t *testing.T) {
	for _, c := range []struct {
		gloss string
		spoil func(dir string) error
		want  string
	}{
		{"no manifest", func(dir string) error { return os.Remove(filepath.Join(dir, ManifestFile)) }, "has no manifest.json"},
		{"a file changed", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, SummaryFile), []byte("{}\n"), 0o644)
		}, "summary.json changed"},
		{"a file missing", func(dir string) error { return os.Remove(filepath.Join(dir, TimeseriesFile)) }, "timeseries.csv, which cannot be read"},
		{"a manifest without a kind", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, ManifestFile), []byte(`{"files": []}`), 0o644)
		}, "names no kind"},
	} {
		dir := t.TempDir()
		if err := WriteRunDir(dir, NewRun(fixtureHeader(), fixtureSeries())); err != nil {
			t.Fatal(err)
		}
		if err := c.spoil(dir); err != nil {
			t.Fatal(err)
		}
		_, err := ReadManifest(dir)
		if !errors.Is(err, ErrNoResult) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: ReadManifest error = %v, want ErrNoResult saying %q", c.gloss, err, c.want)
		}
	}
}

// TestAddFilesRedraws: a figure drawn again with other bytes (by a newer version, say) takes its
// new digest; the folder reads back whole. A file changed that is not being added is still
// refused.
func TestAddFilesRedraws(t *testing.T) {
	dir := t.TempDir()
	if err := WriteRunDir(dir, NewRun(fixtureHeader(), fixtureSeries())); err != nil {
		t.Fatal(err)
	}
	fig := filepath.Join(dir, "fig.svg")
	for i, content := range []string{"<svg>first</svg>", "<svg>drawn again, longer</svg>"} {
		if err := os.WriteFile(fig, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := AddFiles(dir, "fig.svg"); err != nil {
			t.Fatalf("drawing %d: AddFiles: %v", i, err)
		}
		if _, err := ReadManifest(dir); err != nil {
			t.Fatalf("drawing %d: %v", i, err)
		}
	}
	if err := os.WriteFile(fig, []byte("<svg>edited</svg>"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "other.svg"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := AddFiles(dir, "other.svg"); err == nil || !strings.Contains(err.Error(), "fig.svg changed") {
		t.Errorf("AddFiles over an edited figure: %v, want it refused", err)
	}
}

// TestResultMarks: the result digest depends on the result's files and not on its figures; a
// marked SVG and PNG carry it, and the PNG still decodes.
func TestResultMarks(t *testing.T) {
	dir := t.TempDir()
	if err := WriteRunDir(dir, NewRun(fixtureHeader(), fixtureSeries())); err != nil {
		t.Fatal(err)
	}
	m, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	d := m.ResultDigest()
	withFigure := m
	withFigure.Files = append(slices.Clone(m.Files), FileDigest{Name: "timeseries.svg", SHA256: "ab"}, FileDigest{Name: "report.html", SHA256: "cd"})
	if withFigure.ResultDigest() != d {
		t.Error("drawing a figure changed the result digest")
	}
	changed := m
	changed.Files = slices.Clone(m.Files)
	changed.Files[0].SHA256 = "00"
	if changed.ResultDigest() == d {
		t.Error("a changed result file left the result digest as it was")
	}

	img := image.NewNRGBA(image.Rect(0, 0, 3, 2))
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	marked := MarkPNG(b.Bytes(), d)
	if MarkedResult(marked) != d {
		t.Error("the marked PNG does not carry the digest")
	}
	if _, err := png.Decode(bytes.NewReader(marked)); err != nil {
		t.Errorf("the marked PNG does not decode: %v", err)
	}
	svg := MarkSVG([]byte(`<?xml version="1.0"?><svg width="1" height="1"><rect/></svg>`), d)
	if MarkedResult(svg) != d || !strings.Contains(string(svg), "<svg width=\"1\" height=\"1\">\n<desc>overloadsim result "+d+"</desc><rect/>") {
		t.Errorf("marked SVG: %s", svg)
	}
	if MarkedResult([]byte("<svg></svg>")) != "" {
		t.Error("an unmarked SVG has a mark")
	}
}
