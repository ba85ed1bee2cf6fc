package report

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/overloadsim/overloadsim/internal/golden"
	"github.com/overloadsim/overloadsim/results/phasemap"
)

// TestGoldenMap renders the fixed folder testdata/map (capacity-drop's CPU cut, speed × length,
// 3 × 3 cells × 4 replications, one cell not run, one undecided and one baseline-less
// replication; a hand-written map.svg) and compares the bytes with
// testdata/TestGoldenMap/map.html. Regenerate with -run TestGoldenMap -update and review.
func TestGoldenMap(t *testing.T) {
	dir := copyFolder(t, "map")
	path, err := Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "TestGoldenMap", "map.html"), got)
	if _, err := Write(dir); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.ReadFile(path); !bytes.Equal(again, got) {
		t.Error("a second Write of the map gave different bytes")
	}
	// The folder had its figure: Write drew nothing.
	if _, err := os.Stat(filepath.Join(dir, "map.png")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Write drew map.png although map.svg was there: %v", err)
	}
}

// TestMapPage checks what a reader relies on in the map report.
func TestMapPage(t *testing.T) {
	var b bytes.Buffer
	if err := Render(&b, copyFolder(t, "map")); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	m, err := phasemap.Read(filepath.Join("testdata", "map"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ gloss, want string }{
		{"title", "<title>capacity-drop · map report · overloadsim</title>"},
		{"kind", `<span class="kind">metastability map</span>`},
		{"claim", "A short capacity drop is survivable"},
		{"trigger", "<dt>trigger</dt><dd>cpu-cut</dd>"},
		{"axes", "<dt>axes</dt><dd>faults[0].speed × faults[0].for</dd>"},
		{"cells, one not run", "<dt>cells</dt><dd>8 of 9 ran</dd>"},
		{"replications", "<dt>replications per cell</dt><dd>4</dd>"},
		{"seed", "<dt>base seed</dt><dd>1</dd>"},
		{"horizon", "<dt>horizon</dt><dd>60 s</dd>"},
		{"summary paragraph", `<p class="map-summary">` + phasemap.Summary(m) + "</p>"},
		{"axis values", "<li><code>faults[0].for</code>: 2s, 5s, 8s</li>"},
		{"figure inline", "<figure id=\"figure-1\">\n<svg "},
		{"figure caption", "<b>Figure 1.</b> Metastability map:"},
		{"figure ids prefixed", `<clipPath id="fig1-cells">`},
		{"cells table", `<table id="cells">`},
		{"no-baseline column, as one replication had none", `<th class="num">no baseline</th>`},
		{"a cell: values with units, counts, P(stuck) as k/n, Wilson interval holding ½ and marked, median recovery",
			`<tr><td class="name">0.5</td><td class="name">5 s</td><td class="num">4</td><td class="num">2</td><td class="num">1</td><td class="num">1</td><td class="num">0</td><td class="num"><span>1/3 = 0.33</span><span class="ci"> (0.06–0.79)</span> <span class="straddle" title="the 95 % interval holds ½: the replications do not say on which side of the boundary this cell lies">holds ½</span></td><td class="num">7.5 s</td></tr>`},
		{"a stuck cell is marked, its interval above ½ unmarked, no recovery time",
			`<td class="num"><span class="stuck">4/4 = 1.00</span><span class="ci"> (0.51–1.00)</span></td><td class="num">–</td></tr>`},
		{"a recovered cell, its interval below ½ unmarked",
			`<tr><td class="name">0.5</td><td class="name">2 s</td><td class="num">4</td><td class="num">4</td><td class="num">0</td><td class="num">0</td><td class="num">0</td><td class="num"><span>0/4 = 0.00</span><span class="ci"> (0.00–0.49)</span></td>`},
		{"the mark explained", `A cell marked <span class="straddle">holds ½</span> (framed with a dashed line in the figure) has an interval that holds ½`},
		{"the cell not run", `<tr class="notrun"><td class="name">0.7</td><td class="name">8 s</td><td class="num">0</td>`},
		{"no replay command, what the cells ran", "Each cell of the map ran it with the axes' fields set to the cell's values."},
	} {
		if !strings.Contains(page, c.want) {
			t.Errorf("%s: the map report lacks %q", c.gloss, c.want)
		}
	}
	// The cells whose Wilson interval holds ½ (chart.Straddles): 1/4, 1/3, 3/4 and 0/3; not
	// 0/4 (up to 0.49) nor 4/4 (from 0.51).
	if n := strings.Count(page, `<span class="straddle" title=`); n != 4 {
		t.Errorf("%d cells marked as holding ½, want 4", n)
	}
	for _, unwanted := range []string{`<table id="groups">`, `<table id="sweep">`, "To replay"} {
		if strings.Contains(page, unwanted) {
			t.Errorf("the map report contains %q", unwanted)
		}
	}
	assertSelfContained(t, "map", page)
}

// A map folder without its figure: Render draws it in memory and writes nothing; Write draws
// map.svg and map.png into the folder, and both give the same page.
func TestMapDrawsMissingFigure(t *testing.T) {
	dir := copyFolder(t, "map")
	if err := os.Remove(filepath.Join(dir, "map.svg")); err != nil {
		t.Fatal(err)
	}
	stamp(t, dir)
	var b bytes.Buffer
	if err := Render(&b, dir); err != nil {
		t.Fatal(err)
	}
	rendered := b.String()
	for _, want := range []string{"<figure id=\"figure-1\">\n<svg ", "P(stuck) = ½, interpolated", "(map.svg)"} {
		if !strings.Contains(rendered, want) {
			t.Errorf("Render without map.svg lacks %q", want)
		}
	}
	for _, f := range []string{"map.svg", "map.png"} {
		if _, err := os.Stat(filepath.Join(dir, f)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("Render wrote %s into the folder: %v", f, err)
		}
	}
	path, err := Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"map.svg", "map.png"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("Write did not draw %s: %v", f, err)
		}
	}
	written, _ := os.ReadFile(path)
	if string(written) != rendered {
		t.Error("Write (figure drawn into the folder) and Render (drawn in memory) give different pages")
	}
	assertSelfContained(t, "map with a drawn figure", rendered)
}

// TestMapEscaping: a map's trigger and values are data, never markup.
func TestMapEscaping(t *testing.T) {
	m, err := phasemap.Read(filepath.Join("testdata", "map"))
	if err != nil {
		t.Fatal(err)
	}
	m.Trigger = `<b>cut</b>`
	m.Axes[1].Values[0] = `<i>2s</i>`
	m.Cells[0].Params[1].Value = `<i>2s</i>`
	dir := t.TempDir()
	if err := phasemap.Write(dir, m); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Render(&b, dir); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	// The raw text may appear only inside the inline SVG, which escapes it itself.
	body := page[:strings.Index(page, "<section id=\"figures\">")] + page[strings.Index(page, "<section id=\"cells\">"):]
	for _, raw := range []string{"<b>cut</b>", "<i>2s</i>"} {
		if strings.Contains(page, raw) {
			t.Errorf("the map report contains unescaped %q", raw)
		}
	}
	for _, esc := range []string{"&lt;b&gt;cut&lt;/b&gt;", "&lt;i&gt;2s&lt;/i&gt;"} {
		if !strings.Contains(body, esc) {
			t.Errorf("the map report lacks escaped %q", esc)
		}
	}
}
