package report

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/overloadsim/overloadsim/internal/golden"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/phasemap"
	"github.com/overloadsim/overloadsim/results/sweep"
)

// copyFolder copies the fixed result folder testdata/name into a fresh temporary folder, so
// that writing report.html never touches testdata.
func copyFolder(t *testing.T, name string) string {
	t.Helper()
	src := filepath.Join("testdata", name)
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	dst := t.TempDir()
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stamp(t, dst)
	return dst
}

// stamp writes dir's manifest listing every file in it, as the result its JSON file says: the
// fixture folders are hand-assembled, and tests that change a file re-stamp the folder so that
// the report reads it (an unstamped change is refused, TestChangedFileRefused).
func stamp(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if e.Name() != results.ManifestFile {
			names = append(names, e.Name())
		}
	}
	var hdr results.Header
	kind := results.KindRun
	switch {
	case slices.Contains(names, results.MapFile):
		m, err := phasemap.Read(dir)
		if err != nil {
			t.Fatal(err)
		}
		kind, hdr = results.KindMap, m.Header
	case slices.Contains(names, results.SweepFile):
		if hdr, _, err = sweep.ReadSweep(dir); err != nil {
			t.Fatal(err)
		}
		kind = results.KindSweep
	default:
		if hdr, err = results.ReadHeader(dir); err != nil {
			t.Fatal(err)
		}
	}
	if err := results.Stamp(dir, kind, hdr, names...); err != nil {
		t.Fatal(err)
	}
	// The fixtures' figures were drawn for their result: mark the unmarked ones as plot does,
	// then stamp again, as the marks change the files' digests (not the result's).
	m, err := results.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		path := filepath.Join(dir, name)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if results.MarkedResult(b) != "" {
			continue
		}
		switch filepath.Ext(name) {
		case ".svg":
			b = results.MarkSVG(b, m.ResultDigest())
		case ".png":
			b = results.MarkPNG(b, m.ResultDigest())
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := results.Stamp(dir, kind, hdr, names...); err != nil {
		t.Fatal(err)
	}
}

// TestChangedFileRefused: a figure changed or removed after the result was written, or a
// folder without a manifest, gives no report; figures the manifest does not list are left out.
func TestChangedFileRefused(t *testing.T) {
	dir := copyFolder(t, "run")
	if err := os.WriteFile(filepath.Join(dir, "servers.svg"), []byte("<svg></svg>"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(dir); !errors.Is(err, ErrNoResult) || !strings.Contains(err.Error(), "servers.svg changed") {
		t.Errorf("Write(folder with a changed figure) error = %v, want ErrNoResult naming servers.svg", err)
	}
	if err := os.Remove(filepath.Join(dir, "servers.svg")); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(dir); !errors.Is(err, ErrNoResult) || !strings.Contains(err.Error(), "servers.svg, which cannot be read") {
		t.Errorf("Write(folder with a figure removed) error = %v, want ErrNoResult naming servers.svg", err)
	}
	if err := os.Remove(filepath.Join(dir, results.ManifestFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(dir); !errors.Is(err, ErrNoResult) {
		t.Errorf("Write(folder without a manifest) error = %v, want ErrNoResult", err)
	}

	// A figure of another run lying in the folder, not in its manifest: not in the report.
	dir = copyFolder(t, "run")
	if err := os.WriteFile(filepath.Join(dir, "amplification.svg"), []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"></svg>`), 0o644); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Render(&b, dir); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "(amplification.svg)") {
		t.Error("the report shows a figure its manifest does not list")
	}
}

// TestGolden renders the fixed folders testdata/run (capacity-drop, 20 s, with two hand-written
// figures) and testdata/sweep (its sweep, 2 points × 2 replications, one figure) and compares
// the bytes with testdata/TestGolden/NAME.html. Regenerate with -update and review the diff.
func TestGolden(t *testing.T) {
	for _, name := range []string{"run", "sweep"} {
		t.Run(name, func(t *testing.T) {
			dir := copyFolder(t, name)
			path, err := Write(dir)
			if err != nil {
				t.Fatal(err)
			}
			if want := filepath.Join(dir, File); path != want {
				t.Errorf("Write(%s) = %s, want %s", dir, path, want)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "TestGolden", name+".html"), got)

			// A second report of the same folder is byte-identical, and no temporary file is
			// left behind.
			if _, err := Write(dir); err != nil {
				t.Fatal(err)
			}
			again, _ := os.ReadFile(path)
			if !bytes.Equal(again, got) {
				t.Errorf("second Write(%s) gave different bytes", name)
			}
			if _, err := os.Stat(filepath.Join(dir, "."+File+".tmp")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("temporary file left behind: %v", err)
			}
		})
	}
}

// TestGoldenContent checks what a reader relies on in the golden reports, so that a regenerated
// golden cannot silently lose it.
func TestGoldenContent(t *testing.T) {
	read := func(name string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join("testdata", "TestGolden", name+".html"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	run, sweep := read("run"), read("sweep")
	for _, c := range []struct {
		gloss, page, want string
	}{
		{"claim", run, "A short capacity drop is survivable"},
		{"seed", run, "<dt>seed</dt><dd>1</dd>"},
		{"canonical text in a pre block", run, `<pre class="canonical">name: capacity-drop`},
		{"replay command", run, "simulate run scenario.yaml --seed 1"},
		{"group table", run, `<table id="groups" class="cards">`},
		{"timeout failures column", run, `<th class="num">timeout</th>`},
		{"server table", run, `<table id="servers" class="cards">`},
		{"recovery row", run, `<td class="name head">cpu-cut</td>`},
		{"the answer first: the trigger's verdict", run, `<section id="answer" class="answer">
<strong>Answer</strong>
<ul class="triggers">
<li><b>cpu-cut</b> (10 s – 15 s): <span class="failed">stuck</span>`},
		{"figure 1 is the time series", run, "<b>Figure 1.</b> Offered load, attempts, goodput"},
		{"figure 2 is servers.svg", run, "(servers.svg)"},
		{"prolog stripped", run, "<figure id=\"figure-1\">\n<svg "},
		{"ids prefixed per figure", run, `<clipPath id="fig2-clip0">`},
		{"references prefixed", run, `clip-path="url(#fig1-clip0)"`},
		{"viewBox added", run, `width="480" height="160" viewBox="0 0 480 160"`},
		{"sweep parameter column", sweep, "<code>clients[0].appRetry.attempts</code>"},
		{"mean ± ci95", sweep, `</span> <span class="ci">± `},
		{"base seed", sweep, "<dt>base seed</dt><dd>1</dd>"},
		{"sweep figure", sweep, "(sweep-goodput.svg)"},
	} {
		if !strings.Contains(c.page, c.want) {
			t.Errorf("%s: report lacks %q", c.gloss, c.want)
		}
	}
	for _, c := range []struct {
		gloss, page, unwanted string
	}{
		{"XML declaration", run, "<?xml"},
		{"doctype of the SVG", run, "<!DOCTYPE svg"},
		{"sweep report has no run summary", sweep, `<table id="groups">`},
	} {
		if strings.Contains(c.page, c.unwanted) {
			t.Errorf("%s: report contains %q", c.gloss, c.unwanted)
		}
	}
	for name, page := range map[string]string{"run": run, "sweep": sweep} {
		assertSelfContained(t, name, page)
	}
}

// assertSelfContained fails if page could fetch anything: no linked stylesheets, no src
// attributes, no network calls in its scripts, no URLs but XML namespace names. Its only scripts
// are inline: the chart library, the chart code and the charts' data (interactive.go).
func assertSelfContained(t *testing.T, name, page string) {
	t.Helper()
	for _, bad := range []string{"<link", "<iframe", "<img", " src=", "@import", "@font-face", "fetch(", "xmlhttprequest", "websocket", "import(", "sendbeacon"} {
		if strings.Contains(strings.ToLower(page), bad) {
			t.Errorf("%s: report contains %q", name, bad)
		}
	}
	scripts := regexp.MustCompile(`<script[^>]*>`).FindAllString(page, -1)
	for _, s := range scripts {
		if s != "<script>" && s != `<script type="application/json" id="chart-data">` {
			t.Errorf("%s: report has a script tag %s: only inline scripts belong in a report", name, s)
		}
	}
	if strings.Contains(page, `id="chart-rates"`) && len(scripts) != 3 {
		t.Errorf("%s: %d script tags, want 3 (the charts' data, the library, the chart code)", name, len(scripts))
	}
	namespaces := regexp.MustCompile(`xmlns(:\w+)?="http://www\.w3\.org/[^"]*"`)
	if u := regexp.MustCompile(`(?i)(https?:)?//[a-z0-9.-]+\.[a-z]{2,}`).FindString(namespaces.ReplaceAllString(page, "")); u != "" {
		t.Errorf("%s: report refers to %q", name, u)
	}
}

func TestNoFigures(t *testing.T) {
	dir := copyFolder(t, "run")
	for _, f := range []string{"timeseries.svg", "servers.svg"} {
		if err := os.Remove(filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	stamp(t, dir)
	var b bytes.Buffer
	if err := Render(&b, dir); err != nil {
		t.Fatal(err)
	}
	want := "No figures: the folder holds none of timeseries.svg, amplification.svg, latency.svg, shards.svg, servers.svg."
	if !strings.Contains(b.String(), want) {
		t.Errorf("Render without figures lacks %q", want)
	}
	if strings.Contains(b.String(), "<figure") {
		t.Error("Render without figures has a <figure>")
	}
}

// TestEscaping: text from the result files is data, never markup.
func TestEscaping(t *testing.T) {
	dir := t.TempDir()
	hdr := results.Header{
		Tool: "overloadsim", Version: "dev", Scenario: `evil<script>alert(1)</script>`,
		Description: `a <b>bold</b> & "quoted" claim`, Claim: `x < y`,
		Canonical: "name: a\ndescription: </pre><script>alert(2)</script>\n",
	}
	pts := []sweep.PointStats{{
		Params:       []results.Param{{Path: `clients[0].name`, Value: `<i>v</i>`}},
		Replications: 1,
		Metrics:      []results.MetricStats{{Name: "total.goodput", Mean: 10, CI95: math.NaN(), N: 1}},
	}}
	if err := sweep.WriteSweepDir(dir, hdr, pts, "", nil); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Render(&b, dir); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, raw := range []string{"<script", "<b>bold", "<i>v</i>", "</pre><script"} {
		if strings.Contains(page, raw) {
			t.Errorf("report contains unescaped %q", raw)
		}
	}
	for _, esc := range []string{"evil&lt;script&gt;", "&lt;b&gt;bold&lt;/b&gt; &amp; &#34;quoted&#34;", "x &lt; y", "&lt;i&gt;v&lt;/i&gt;"} {
		if !strings.Contains(page, esc) {
			t.Errorf("report lacks escaped %q", esc)
		}
	}
	// One replication: a mean without a confidence interval; a missing metric is "–".
	if !strings.Contains(page, `<td class="num" data-label="goodput/s"><span class="mean">10.0</span></td>`) {
		t.Error("a point with one replication should show its mean alone")
	}
	if !strings.Contains(page, `<td class="num" data-label="offered/s"><span class="mean">–</span></td>`) {
		t.Error("a missing metric should show –")
	}
}

func TestNoResult(t *testing.T) {
	dir := t.TempDir()
	if _, err := Write(dir); !errors.Is(err, ErrNoResult) {
		t.Errorf("Write(empty folder) error = %v, want ErrNoResult", err)
	}
	if _, err := os.Stat(filepath.Join(dir, File)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Write(empty folder) left %s: %v", File, err)
	}
}

func TestBadFigureLeavesNoReport(t *testing.T) {
	dir := copyFolder(t, "run")
	if err := os.WriteFile(filepath.Join(dir, "latency.svg"), []byte("not an svg"), 0o644); err != nil {
		t.Fatal(err)
	}
	stamp(t, dir)
	if _, err := Write(dir); err == nil || !strings.Contains(err.Error(), "latency.svg: no <svg> element") {
		t.Errorf("Write(folder with a broken latency.svg) error = %v, want one naming the file", err)
	}
	if _, err := os.Stat(filepath.Join(dir, File)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed Write left %s: %v", File, err)
	}
}

func TestInlineSVG(t *testing.T) {
	for _, c := range []struct {
		gloss   string
		in      string
		want    string // "" when an error is wanted
		wantErr string
	}{
		// Happy paths.
		{"plain svg is kept", `<svg viewBox="0 0 1 1"><rect/></svg>`, `<svg viewBox="0 0 1 1"><rect/></svg>`, ""},
		{"prolog, doctype and comment go", "<?xml version=\"1.0\"?>\n<!DOCTYPE svg>\n<!-- c -->\n<svg viewBox=\"0 0 1 1\"/>\n", `<svg viewBox="0 0 1 1"/>`, ""},
		{"ids and references get the prefix", `<svg viewBox="0 0 1 1"><clipPath id="c"/><g clip-path="url(#c)"/><use xlink:href="#c"/><use href='#c'/></svg>`,
			`<svg viewBox="0 0 1 1"><clipPath id="p-c"/><g clip-path="url(#p-c)"/><use xlink:href="#p-c"/><use href='#p-c'/></svg>`, ""},
		{"a viewBox is added to a pixel-sized root", `<svg width="40px" height="30"><rect/></svg>`, `<svg width="40px" height="30" viewBox="0 0 40 30"><rect/></svg>`, ""},
		{"points are left alone", `<svg width="40pt" height="30pt"/>`, `<svg width="40pt" height="30pt"/>`, ""},
		{"namespaces are not external references", `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 1 1"/>`,
			`<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 1 1"/>`, ""},
		{"text that reads like a handler is text", `<svg viewBox="0 0 1 1"><text>retries on = off</text></svg>`, `<svg viewBox="0 0 1 1"><text>retries on = off</text></svg>`, ""},

		// Sad paths.
		{"no svg element", "<html></html>", "", "no <svg> element"},
		{"a script", `<svg><script>alert(1)</script></svg>`, "", "script"},
		{"an event handler", `<svg onload="alert(1)"/>`, "", "event handler"},
		{"an external image", `<svg><image href="https://example.com/x.png"/></svg>`, "", "external"},
		{"an external font", `<svg><style>@import url(//fonts.example.com/x.css);</style></svg>`, "", "external"},
	} {
		got, err := inlineSVG([]byte(c.in), "p-")
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%s: inlineSVG(%q) error = %v, want one containing %q", c.gloss, c.in, err, c.wantErr)
			}
			continue
		}
		if err != nil || string(got) != c.want {
			t.Errorf("%s: inlineSVG(%q) = %q, %v, want %q", c.gloss, c.in, got, err, c.want)
		}
	}
}

func TestFormat(t *testing.T) {
	for _, c := range []struct {
		gloss string
		got   string
		want  string
	}{
		{"rate", rate(1234.56), "1234.6"},
		{"no value", rate(math.NaN()), "–"},
		{"negative zero", fixed(math.Copysign(0, -1), 1), "0.0"},
		{"rounds to zero", fixed(-0.01, 1), "0.0"},
		{"amplification", ratio(1.94542), "1.945"},
		{"share", share(0.0123), "1.2 %"},
		{"microseconds", latency(850e-6), "850 µs"},
		{"milliseconds, three figures", latency(0.00486605), "4.87 ms"},
		{"tens of milliseconds", latency(0.0123), "12.3 ms"},
		{"seconds", latency(1.25), "1.25 s"},
		{"no latency", latency(math.Inf(1)), "–"},
		{"latency ± in the mean's unit", latencyPair(0.0129, 0.0042).CI, "4.2 ms"},
		{"duration", seconds(2500e6), "2.5 s"},
	} {
		if c.got != c.want {
			t.Errorf("%s: got %q, want %q", c.gloss, c.got, c.want)
		}
	}
}

// A run with mongos nodes gets a table of each mongos's traffic to each shard, with the
// summary's numbers; a run without has none (the golden reports above).
func TestShardsTable(t *testing.T) {
	s := results.Summary{Shards: []results.ShardSummary{
		{Mongos: "m1", Shard: "s0", Attempted: 1000, OverloadErrors: 300, OverloadRetries: 250, Retargeted: 7,
			Amplification: 1.25, Backoff: 12.5, BalanceMin: 0.3},
		{Mongos: "m1", Shard: "s1", Attempted: 10, Amplification: 1, BalanceMin: math.Inf(1)},
	}}
	v := runPage(results.Header{Scenario: "x"}, s)
	var b bytes.Buffer
	if err := page.Execute(&b, v); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	for _, want := range []string{`<table id="shards" class="cards">`, `<td class="num" data-label="routed">1000</td>`, `<td class="num" data-label="amplification">1.250</td>`,
		`<td class="num" data-label="backoff (s)">12.5</td>`, `<td class="num" data-label="lowest budget">0.3</td>`, `<td class="num" data-label="lowest budget">` + noValue + "</td></tr>"} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	b.Reset()
	if err := page.Execute(&b, runPage(results.Header{}, results.Summary{})); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), `id="shards"`) {
		t.Error("a run without mongos nodes shows a shards table")
	}
}

// TestSweepAnswers: a load sweep's report says its answers in words, before the points: the
// ceiling, today's load, the safe load and its headroom first, then the knee.
func TestSweepAnswers(t *testing.T) {
	dir := loadSweepFolder(t)
	var b bytes.Buffer
	if err := Render(&b, dir); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{`<section id="answer" class="answer">`, "The configured ceiling is 1000/s (ingress request limiter 1000/s on db).",
		"Safe to 2.50× today&#39;s load (1000/s): beyond it, at 1500/s,", "The knee is between 1000/s (2.50×, served in full", "Latency gives out at 1500/s"} {
		if !strings.Contains(page, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	if a := strings.Index(page, `id="answer"`); a < 0 || a > strings.Index(page, `<dl class="facts">`) {
		t.Error("the answers do not come first, before the facts and the points")
	}
}

// TestStaleFigureRefused: a figure listed in the manifest but drawn from another result (its
// mark says so) is never shown as this result's.
func TestStaleFigureRefused(t *testing.T) {
	dir := copyFolder(t, "run")
	b, err := os.ReadFile(filepath.Join(dir, "timeseries.svg"))
	if err != nil {
		t.Fatal(err)
	}
	other := strings.Repeat("0", 64)
	b = []byte(regexp.MustCompile(`overloadsim result [0-9a-f]{64}`).ReplaceAllString(string(b), results.ResultMark(other)))
	if err := os.WriteFile(filepath.Join(dir, "timeseries.svg"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	stamp(t, dir)
	if _, err := Write(dir); !errors.Is(err, ErrStaleFigure) || !strings.Contains(err.Error(), "timeseries.svg") || !strings.Contains(err.Error(), other) {
		t.Errorf("Write(folder with another result's figure) = %v, want ErrStaleFigure naming timeseries.svg", err)
	}
	if _, err := os.Stat(filepath.Join(dir, File)); !errors.Is(err, os.ErrNotExist) {
		t.Error("a report was written over a stale figure")
	}
}

// TestRunPhases: a run report shows the run's phases around its trigger (results.Phases), so
// that the surge's failures are not read from the whole run's averages.
func TestRunPhases(t *testing.T) {
	dir := spikeRun(t, "14s") // the spike runs from 10 s to the end
	var b bytes.Buffer
	if err := Render(&b, dir); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{`<table id="phases" class="cards">`, `<td class="name head">before spike</td><td class="name" data-label="from – to">0 s – 10 s</td>`,
		`<td class="name head">during spike</td><td class="name" data-label="from – to">10 s – 14 s</td>`} {
		if !strings.Contains(page, want) {
			t.Errorf("the report lacks %s", want)
		}
	}
}
