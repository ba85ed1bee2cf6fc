package report

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/bench"
	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/compare"
	"github.com/overloadsim/overloadsim/results/plot"
	"github.com/overloadsim/overloadsim/results/sweep"
	"github.com/overloadsim/overloadsim/scenarios"
)

// chromiumPath is Debian's headless-capable Chromium (apt-get install chromium). CI installs
// it; without it the browser tests skip, or fail under OVERLOADSIM_BROWSER=require (browserEnv).
const chromiumPath = "/usr/bin/chromium"

// browserEnv names the environment variable that says what a browser test does when Chromium,
// node or playwright-core is missing. Unset or empty, it skips: the README's go test ./... passes
// on a fresh machine, and says so next to the command, since go test shows nothing of a passing
// package but its ok line. "require": it fails, naming what is missing; .ci/run sets it, so that
// CI never passes without having run the browser tests. Any other value fails every browser test.
const browserEnv = "OVERLOADSIM_BROWSER"

// browserAction decides what a browser test does, given browserEnv's value and what it needs
// that is missing ("" when nothing is): run (false, nil), skip (true, nil), or fail (an error
// that says why).
func browserAction(setting, missing string) (skip bool, err error) {
	if setting != "" && setting != "require" {
		return false, fmt.Errorf("%s=%q: want it unset (a missing browser skips the browser tests) or require (a missing browser fails them)", browserEnv, setting)
	}
	if missing == "" {
		return false, nil
	}
	if setting == "require" {
		return false, fmt.Errorf("%s, and %s=require: the browser tests must run here", missing, browserEnv)
	}
	return true, nil
}

// needBrowser runs, skips or fails the test t as browserAction says, missing being what it needs
// that is not there ("" when nothing is).
func needBrowser(t *testing.T, missing string) {
	t.Helper()
	skip, err := browserAction(os.Getenv(browserEnv), missing)
	if err != nil {
		t.Fatal(err)
	}
	if skip {
		t.Skipf("skipping the headless-browser checks: %s (%s=require makes this a failure)", missing, browserEnv)
	}
}

// chromiumTimeout bounds every Chromium process, so that a wedged browser fails the test instead
// of hanging it. A report loads in about a second.
const chromiumTimeout = 60 * time.Second

// chromiumFlags are the flags every run gets: headless, no sandbox (CI runs as root in a
// container), no GPU, and nothing that reaches the network on its own (QUIC, background
// networking, component updates, sync); a fresh profile in userDataDir; and a resolver that
// resolves no host name, so that a report that tried to fetch anything could not.
func chromiumFlags(userDataDir string) []string {
	return []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--host-resolver-rules=MAP * ~NOTFOUND", "--hide-scrollbars",
		"--user-data-dir=" + userDataDir,
	}
}

// needChromium skips or fails t (needBrowser) unless chromiumPath is there.
func needChromium(t *testing.T) {
	t.Helper()
	missing := ""
	if _, err := os.Stat(chromiumPath); err != nil {
		missing = fmt.Sprintf("%s not found (%v); install Debian's chromium package (apt-get install chromium) to run them", chromiumPath, err)
	}
	needBrowser(t, missing)
}

// runChromium runs Chromium with the common flags and args, bounded by chromiumTimeout, and
// returns its stdout and stderr.
func runChromium(t *testing.T, args ...string) (stdout, stderr []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), chromiumTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromiumPath, append(chromiumFlags(t.TempDir()), args...)...)
	cmd.WaitDelay = 5 * time.Second // do not wait forever on pipes a stray child holds open
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %s: %v (timeout %v)\nstderr:\n%s", strings.Join(args, " "), err, chromiumTimeout, tail(errb.String(), 40))
	}
	return out.Bytes(), errb.Bytes()
}

func tail(s string, lines int) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(ls[max(0, len(ls)-lines):], "\n")
}

// consoleLines returns the lines of Chromium's --enable-logging=stderr output that report a
// console message or an uncaught exception. A report's only scripts are its charts', which log
// nothing, so there should be none.
func consoleLines(stderr []byte) []string {
	var out []string
	for _, l := range strings.Split(string(stderr), "\n") {
		if strings.Contains(l, ":CONSOLE") || strings.Contains(l, "Uncaught") {
			out = append(out, l)
		}
	}
	return out
}

// tinySVG is a hand-written figure: a prolog to strip, an id to prefix, and a magenta bar.
const tinySVG = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">
<svg xmlns="http://www.w3.org/2000/svg" width="400" height="120">
<defs><clipPath id="c"><rect x="0" y="0" width="300" height="120"/></clipPath></defs>
<rect width="400" height="120" fill="#fff" stroke="#000"/>
<rect x="20" y="40" width="360" height="40" fill="#ff00ff" clip-path="url(#c)"/>
<text x="20" y="110" font-family="sans-serif" font-size="14">hand-written test figure</text>
</svg>
`

// spikeRun writes a run of the library's spike scenario cut to duration (the spike runs from
// 10 s) into a new folder, and returns it.
func spikeRun(t *testing.T, duration string) string {
	t.Helper()
	sc, err := scenarios.Lookup("spike")
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Set("duration", duration); err != nil {
		t.Fatal(err)
	}
	r, err := bench.Run(sc, sc.Seed, 0)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := results.WriteRunDir(dir, r); err != nil {
		t.Fatal(err)
	}
	return dir
}

// browserFolders builds the folders the browser tests render: a run of the library's spike
// scenario cut to 5 s (before the spike) with one hand-written figure (timeseries.svg), the
// fixed sweep folder of testdata, and its map folder without its hand-written figure, so that
// the page embeds the map figure results/plot draws. It returns the paths of their reports.
func browserFolders(t *testing.T) (run, sweep, phaseMap string) {
	t.Helper()
	dir := spikeRun(t, "5s")
	m, err := results.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "timeseries.svg"), results.MarkSVG([]byte(tinySVG), m.ResultDigest()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := results.AddFiles(dir, "timeseries.svg"); err != nil {
		t.Fatal(err)
	}
	if run, err = Write(dir); err != nil {
		t.Fatal(err)
	}
	if sweep, err = Write(copyFolder(t, "sweep")); err != nil {
		t.Fatal(err)
	}
	mapDir := copyFolder(t, "map")
	if err := os.Remove(filepath.Join(mapDir, "map.svg")); err != nil {
		t.Fatal(err)
	}
	stamp(t, mapDir)
	if phaseMap, err = Write(mapDir); err != nil {
		t.Fatal(err)
	}
	return run, sweep, phaseMap
}

func fileURL(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		panic(err)
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
}

// TestChromium opens reports in headless Chromium: the DOM it builds holds the figures and
// tables, a screenshot shows something, and loading logs no console message, throws nothing and
// requests nothing but the page itself.
func TestChromium(t *testing.T) {
	needChromium(t)
	run, sweep, phaseMap := browserFolders(t)

	t.Run("dom", func(t *testing.T) {
		t.Parallel()
		for _, c := range []struct {
			gloss  string
			report string
			want   []string
			svgs   int
		}{
			{"spike run, one figure", run, []string{
				`<table id="groups" class="cards">`, `<td class="name head">adaptive</td>`, `<td class="name head">plain</td>`,
				`<table id="servers" class="cards">`, `<td class="name head">db</td>`,
				`<pre class="canonical">name: spike`, `<figure id="figure-1">`,
				`<clipPath id="fig1-c">`, "hand-written test figure", "The scenario has no faults",
				"<footer>",
			}, 1},
			{"capacity-drop sweep, one figure", sweep, []string{
				`<table id="sweep" class="cards">`, `<code>clients[0].appRetry.attempts</code>`, " ± ",
				`<figure id="figure-1">`, "<footer>",
			}, 1},
			{"capacity-drop map, its drawn figure", phaseMap, []string{
				`<p class="map-summary">`, `<table id="cells">`, `<tr class="notrun">`,
				`<figure id="figure-1">`, "P(stuck) = ½, interpolated", "<footer>",
			}, 1},
		} {
			out, stderr := runChromium(t, "--enable-logging=stderr", "--v=0", "--dump-dom", fileURL(c.report))
			dom := string(out)
			for _, w := range c.want {
				if !strings.Contains(dom, w) {
					t.Errorf("%s: the DOM lacks %q", c.gloss, w)
				}
			}
			// Every figure's <svg> parsed as an element inside its <figure>, and nothing
			// after the figures was swallowed by a broken one.
			figs := regexp.MustCompile(`(?s)<figure id="figure-\d+">\s*<svg[ >].*?</svg>\s*<figcaption>`).FindAllString(dom, -1)
			if len(figs) != c.svgs {
				t.Errorf("%s: %d figures with an inline <svg> in the DOM, want %d", c.gloss, len(figs), c.svgs)
			}
			if n := strings.Count(dom, "<table"); n < 1 {
				t.Errorf("%s: no table in the DOM", c.gloss)
			}
			assertSelfContained(t, c.gloss+" (DOM)", dom)
			if lines := consoleLines(stderr); len(lines) > 0 {
				t.Errorf("%s: console output while loading:\n%s", c.gloss, strings.Join(lines, "\n"))
			}
		}
	})

	t.Run("screenshot", func(t *testing.T) {
		t.Parallel()
		shot := filepath.Join(t.TempDir(), "report.png")
		if dir := os.Getenv("REPORT_SCREENSHOT_DIR"); dir != "" { // to look at it
			shot = filepath.Join(dir, "report.png")
		}
		runChromium(t, "--screenshot="+shot, "--window-size=1200,2000", fileURL(run))
		f, err := os.Open(shot)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		img, err := png.Decode(f)
		if err != nil {
			t.Fatalf("screenshot: %v", err)
		}
		if b := img.Bounds(); b.Dx() != 1200 || b.Dy() != 2000 {
			t.Errorf("screenshot is %dx%d, want 1200x2000", b.Dx(), b.Dy())
		}
		colours, inked := inkStats(img)
		// Text, table stripes, the claim's box and the canonical block give dozens of colours
		// (anti-aliasing); a blank or single-colour page has one.
		if colours < 16 {
			t.Errorf("screenshot has %d distinct colours, want a rendered page (≥ 16)", colours)
		}
		if inked < 0.01 || inked > 0.9 {
			t.Errorf("screenshot is %.1f %% non-white, want between 1 %% and 90 %%", 100*inked)
		}
	})

	t.Run("devtools", func(t *testing.T) {
		t.Parallel()
		for _, report := range []string{run, sweep, phaseMap} {
			got := loadInDevTools(t, fileURL(report))
			for _, p := range got.problems {
				t.Errorf("%s: %s", filepath.Base(filepath.Dir(report)), p)
			}
			if got.scrollWidth > 1200 {
				t.Errorf("%s: the page is %d px wide at a 1200 px window: something overflows", report, got.scrollWidth)
			}
			for i, w := range got.figureWidths {
				if w < 100 {
					t.Errorf("%s: figure %d renders %v px wide", report, i+1, w)
				}
			}
		}
	})

	// The controls: a page that does log, throw and fetch must be caught by both the logging
	// scan and the DevTools check, or the checks above prove nothing.
	t.Run("controls", func(t *testing.T) {
		t.Parallel()
		bad := filepath.Join(t.TempDir(), "bad.html")
		page := `<!DOCTYPE html><html><head><link rel="stylesheet" href="https://fonts.example.com/x.css"></head>` +
			`<body><p>bad</p><script>console.error("deliberate"); undefinedFunction();</script></body></html>`
		if err := os.WriteFile(bad, []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
		_, stderr := runChromium(t, "--enable-logging=stderr", "--v=0", "--dump-dom", fileURL(bad))
		if lines := consoleLines(stderr); len(lines) < 2 {
			t.Errorf("logging scan caught %d console lines on the bad page, want 2:\n%s", len(lines), tail(string(stderr), 20))
		}
		got := loadInDevTools(t, fileURL(bad))
		joined := strings.Join(got.problems, "\n")
		for _, w := range []string{"console.error", "exception", "request to https://fonts.example.com/x.css"} {
			if !strings.Contains(joined, w) {
				t.Errorf("DevTools check missed %q on the bad page; it reported:\n%s", w, joined)
			}
		}
	})
}

// inkStats returns the number of distinct colours in img and the fraction of its pixels that
// are not white.
func inkStats(img image.Image) (colours int, inked float64) {
	seen := map[color.RGBA]bool{}
	b := img.Bounds()
	var n, ink int
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			seen[c] = true
			n++
			if c.R < 250 || c.G < 250 || c.B < 250 {
				ink++
			}
		}
	}
	return len(seen), float64(ink) / float64(n)
}

// devtoolsResult is what loadInDevTools saw.
type devtoolsResult struct {
	problems     []string  // console calls, exceptions, error log entries, requests for other URLs
	scrollWidth  int       // document width at a 1200 px viewport
	figureWidths []float64 // rendered width of each figure's <svg>
}

// loadInDevTools opens pageURL in headless Chromium driven over the DevTools protocol
// (--remote-debugging-pipe: JSON messages separated by NUL bytes on file descriptors 3 and 4),
// in a 1200×2000 viewport, and reports every console call, uncaught exception, error log entry
// and request for any URL but pageURL until the load event, then measures the layout.
func loadInDevTools(t *testing.T, pageURL string) devtoolsResult {
	t.Helper()
	expr := `JSON.stringify({scrollWidth: document.documentElement.scrollWidth,
		figureWidths: [...document.querySelectorAll("figure svg")].map(e => e.getBoundingClientRect().width)})`
	problems, value := evalInDevTools(t, pageURL, 1200, 2000, expr)
	var layout struct {
		ScrollWidth  int       `json:"scrollWidth"`
		FigureWidths []float64 `json:"figureWidths"`
	}
	if err := json.Unmarshal([]byte(value), &layout); err != nil {
		t.Fatalf("devtools: reading the layout: %v: %q", err, value)
	}
	return devtoolsResult{problems: problems, scrollWidth: layout.ScrollWidth, figureWidths: layout.FigureWidths}
}

// evalInDevTools opens pageURL as loadInDevTools does, in a width×height viewport, and once it
// has loaded evaluates expr, a JavaScript expression that yields a string; it returns what went
// wrong while loading (loadInDevTools) and that string.
func evalInDevTools(t *testing.T, pageURL string, width, height int, expr string) (problems []string, value string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), chromiumTimeout)
	defer cancel()
	toChrome, ourEnd, err := os.Pipe() // Chromium reads commands from fd 3
	if err != nil {
		t.Fatal(err)
	}
	fromChrome, theirEnd, err := os.Pipe() // and writes replies and events to fd 4
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, chromiumPath, append(chromiumFlags(t.TempDir()), "--remote-debugging-pipe", "about:blank")...)
	cmd.ExtraFiles = []*os.File{toChrome, theirEnd}
	cmd.WaitDelay = 5 * time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	toChrome.Close()
	theirEnd.Close()
	defer func() {
		ourEnd.Close()
		fromChrome.Close()
		cancel()
		cmd.Wait()
	}()

	c := &devtools{w: ourEnd, msgs: make(chan devtoolsMessage, 64), done: make(chan struct{})}
	defer close(c.done)
	go c.read(fromChrome)
	fail := func(step string, err error) {
		t.Helper()
		t.Fatalf("devtools %s: %v\nchromium stderr:\n%s", step, err, tail(stderr.String(), 30))
	}

	var target struct {
		TargetID string `json:"targetId"`
	}
	if err := c.call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		fail("Target.createTarget", err)
	}
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	if err := c.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached); err != nil {
		fail("Target.attachToTarget", err)
	}
	s := attached.SessionID
	for _, m := range []string{"Page.enable", "Runtime.enable", "Log.enable", "Network.enable"} {
		if err := c.call(ctx, s, m, nil, nil); err != nil {
			fail(m, err)
		}
	}
	if err := c.call(ctx, s, "Emulation.setDeviceMetricsOverride", map[string]any{
		"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}, nil); err != nil {
		fail("Emulation.setDeviceMetricsOverride", err)
	}
	c.events = nil // only what happens from the navigation on
	if err := c.call(ctx, s, "Page.navigate", map[string]any{"url": pageURL}, nil); err != nil {
		fail("Page.navigate", err)
	}
	if err := c.waitEvent(ctx, s, "Page.loadEventFired"); err != nil {
		fail("waiting for the load event", err)
	}
	var eval struct {
		Result struct {
			Value string `json:"value"`
		} `json:"result"`
	}
	if err := c.call(ctx, s, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &eval); err != nil {
		fail("Runtime.evaluate", err)
	}
	// Anything logged up to here counts; the evaluation itself logs nothing.
	for _, e := range c.events {
		if e.SessionID != s {
			continue
		}
		if p := describeEvent(e, pageURL); p != "" {
			problems = append(problems, p)
		}
	}
	_ = c.call(ctx, "", "Browser.close", nil, nil) // the process may exit before replying
	return problems, eval.Result.Value
}

// describeEvent says what is wrong with a DevTools event, or "" if nothing is.
func describeEvent(e devtoolsMessage, pageURL string) string {
	switch e.Method {
	case "Runtime.consoleAPICalled":
		var p struct {
			Type string `json:"type"`
			Args []struct {
				Value       any    `json:"value"`
				Description string `json:"description"`
			} `json:"args"`
		}
		json.Unmarshal(e.Params, &p)
		var args []string
		for _, a := range p.Args {
			args = append(args, fmt.Sprint(a.Value)+a.Description)
		}
		return fmt.Sprintf("console.%s(%s)", p.Type, strings.Join(args, ", "))
	case "Runtime.exceptionThrown":
		var p struct {
			Details struct {
				Text      string `json:"text"`
				Exception struct {
					Description string `json:"description"`
				} `json:"exception"`
			} `json:"exceptionDetails"`
		}
		json.Unmarshal(e.Params, &p)
		return fmt.Sprintf("uncaught exception: %s %s", p.Details.Text, p.Details.Exception.Description)
	case "Log.entryAdded":
		var p struct {
			Entry struct {
				Source, Level, Text, URL string
			} `json:"entry"`
		}
		json.Unmarshal(e.Params, &p)
		if p.Entry.Level == "error" {
			return fmt.Sprintf("log %s error: %s %s", p.Entry.Source, p.Entry.Text, p.Entry.URL)
		}
	case "Network.requestWillBeSent":
		var p struct {
			Request struct {
				URL string `json:"url"`
			} `json:"request"`
		}
		json.Unmarshal(e.Params, &p)
		if p.Request.URL != pageURL {
			return "request to " + p.Request.URL
		}
	}
	return ""
}

// devtoolsMessage is a DevTools protocol reply (ID set) or event (Method set).
type devtoolsMessage struct {
	ID        int             `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *struct{ Message string }
	SessionID string `json:"sessionId,omitempty"`
}

// devtools is a minimal DevTools protocol client over Chromium's debugging pipe.
type devtools struct {
	w      io.Writer
	msgs   chan devtoolsMessage
	done   chan struct{} // closed when the client is done: read stops forwarding
	lastID int
	events []devtoolsMessage // events received while waiting, in order
}

// read forwards every message from r until it closes.
func (c *devtools) read(r io.Reader) {
	defer close(c.msgs)
	br := bufio.NewReader(r)
	for {
		b, err := br.ReadBytes(0)
		if err != nil {
			return
		}
		var m devtoolsMessage
		if json.Unmarshal(b[:len(b)-1], &m) != nil {
			continue
		}
		select {
		case c.msgs <- m:
		case <-c.done:
			return
		}
	}
}

// next returns the next message, or an error when ctx ends or Chromium closes the pipe.
func (c *devtools) next(ctx context.Context) (devtoolsMessage, error) {
	select {
	case m, ok := <-c.msgs:
		if !ok {
			return m, errors.New("chromium closed the debugging pipe")
		}
		return m, nil
	case <-ctx.Done():
		return devtoolsMessage{}, ctx.Err()
	}
}

// call sends method with params in session ("" for the browser) and decodes the reply's result
// into result (if not nil), keeping the events that arrive meanwhile.
func (c *devtools) call(ctx context.Context, session, method string, params, result any) error {
	c.lastID++
	msg := map[string]any{"id": c.lastID, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	if _, err := c.w.Write(append(b, 0)); err != nil {
		return err
	}
	for {
		m, err := c.next(ctx)
		if err != nil {
			return fmt.Errorf("%s: %w", method, err)
		}
		if m.Method != "" {
			c.events = append(c.events, m)
			continue
		}
		if m.ID != c.lastID {
			continue
		}
		if m.Error != nil {
			return fmt.Errorf("%s: %s", method, m.Error.Message)
		}
		if result != nil {
			return json.Unmarshal(m.Result, result)
		}
		return nil
	}
}

// waitEvent waits for the event method in session, keeping every event up to it.
func (c *devtools) waitEvent(ctx context.Context, session, method string) error {
	for _, e := range c.events {
		if e.Method == method && e.SessionID == session {
			return nil
		}
	}
	for {
		m, err := c.next(ctx)
		if err != nil {
			return err
		}
		if m.Method != "" {
			c.events = append(c.events, m)
			if m.Method == method && m.SessionID == session {
				return nil
			}
		}
	}
}

// browserDir is the folder of the playwright-core driver of the interactive charts; `npm ci`
// there installs it (CI does).
const browserDir = "browser"

// TestInteractiveReport drives a run report's interactive charts in headless Chromium with
// playwright-core (browser/check-report.mjs): the legend shows, for the cursor's time, the value
// of timeseries.csv at the interval that ends then; the other chart's crosshair follows; a drag
// zooms both charts into the range dragged over; a click in the legend hides a series; each
// chart's y-axis title fits along its plot; the spike's window is shaded; and the page logs
// nothing, throws nothing and requests nothing.
func TestInteractiveReport(t *testing.T) {
	needChromium(t)
	node, err := exec.LookPath("node")
	if err != nil {
		needBrowser(t, fmt.Sprintf("node not found (%v); the interactive-chart checks need it", err))
	}
	if _, err := os.Stat(filepath.Join(browserDir, "node_modules", "playwright-core")); err != nil {
		needBrowser(t, fmt.Sprintf("playwright-core is not installed; run npm ci --prefix results/report/%s to run the interactive-chart checks", browserDir))
	}
	dir := spikeRun(t, "14s") // the spike's window shaded from 10 s
	run, err := Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := results.ReadTimeseries(dir)
	if err != nil {
		t.Fatal(err)
	}
	ends := ts.Ends()
	at := ends[len(ends)/2]
	want := 0.0
	for _, g := range ts.Names(results.KindGroup) {
		want += ts.Metric(results.KindGroup, g, "goodput")[len(ends)/2]
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*chromiumTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "check-report.mjs", run, strconv.FormatFloat(at.Seconds(), 'f', -1, 64), "goodput")
	cmd.Dir = browserDir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("check-report.mjs: %v\n%s", err, stderr.String())
	}
	var got struct {
		Console, Errors, Requests []string
		Hover, HoverTime          string
		Synced, Shown             bool
		Before, After, AfterOther []float64
		Labels                    []struct {
			Name        string
			Width, Room float64
		}
		Band []int // the colour (RGBA) in the middle of the spike's window, near the top
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("check-report.mjs printed %s: %v", out, err)
	}
	if w := fmt.Sprintf("%.1f/s", want); got.Hover != w {
		t.Errorf("hover at %s: goodput %q, want %q (timeseries.csv)", at, got.Hover, w)
	}
	if w := fmt.Sprintf("%.3f s", at.Seconds()); got.HoverTime != w {
		t.Errorf("hover at %s: the legend's time is %q, want %q", at, got.HoverTime, w)
	}
	if !got.Synced {
		t.Error("the amplification chart's crosshair did not follow the rates chart's")
	}
	if len(got.After) != 2 || len(got.Before) != 2 || !(got.After[0] > got.Before[0] && got.After[1] < got.Before[1]) {
		t.Errorf("drag to zoom: x range %v → %v, want a narrower range inside", got.Before, got.After)
	}
	if len(got.AfterOther) != 2 || got.AfterOther[0] != got.After[0] || got.AfterOther[1] != got.After[1] {
		t.Errorf("zoom: the other chart shows %v, want %v", got.AfterOther, got.After)
	}
	if got.Shown {
		t.Error("a click on goodput in the legend did not hide it")
	}
	if len(got.Labels) != 2 {
		t.Errorf("y-axis titles %+v: want the two charts'", got.Labels)
	}
	for _, l := range got.Labels {
		if !(l.Width > 0 && l.Width <= l.Room) {
			t.Errorf("chart %s: its y-axis title is %.0f px long along a plot %.0f px high: clipped", l.Name, l.Width, l.Room)
		}
	}
	if b := got.Band; len(b) != 4 || !(b[0] > b[1]+10 && b[0] > b[2]+10) {
		t.Errorf("the colour inside the spike's window is %v, want the fault's red shade", b)
	}
	if len(got.Console)+len(got.Errors)+len(got.Requests) > 0 {
		t.Errorf("console %q, errors %q, requests %q: want none", got.Console, got.Errors, got.Requests)
	}
}

// TestCompareChromium opens a comparison's report (compare.html) in headless Chromium: two runs
// of the spike scenario side by side, their table and their overlaid figure in the DOM, and
// nothing logged or fetched while loading.
func TestCompareChromium(t *testing.T) {
	needChromium(t)
	base := t.TempDir()
	var dirs []string
	var in []compare.Input
	for _, policy := range []string{"mongodb-2026-03", "mongodb-2026-07"} {
		sc, err := scenarios.Lookup("spike")
		if err != nil {
			t.Fatal(err)
		}
		if err := sc.SetAll("duration=12s", "clients[1].driver.retryPolicy="+policy); err != nil {
			t.Fatal(err)
		}
		r, err := bench.Run(sc, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(base, policy)
		if err := results.WriteRunDir(dir, r); err != nil {
			t.Fatal(err)
		}
		m, err := results.ReadManifest(dir)
		if err != nil {
			t.Fatal(err)
		}
		pts, err := sweep.ReadPoints(dir)
		if err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, dir)
		in = append(in, compare.Input{Label: policy, Kind: m.Kind, Digest: m.Digest, Header: r.Header, Points: pts})
	}
	c := compare.Compare(in)
	out := filepath.Join(base, "compare")
	if err := compare.Write(out, compare.Header(c, "overloadsim", "test"), c); err != nil {
		t.Fatal(err)
	}
	names, err := plot.WriteCompareFigures(out, dirs)
	if err != nil || len(names) != 1 {
		t.Fatalf("WriteCompareFigures = %v, %v", names, err)
	}
	if err := results.AddFiles(out, names[0]+".svg", names[0]+".png"); err != nil {
		t.Fatal(err)
	}
	page, err := WriteCompare(out)
	if err != nil {
		t.Fatal(err)
	}
	dom, stderr := runChromium(t, "--enable-logging=stderr", "--v=0", "--dump-dom", fileURL(page))
	for _, want := range []string{`<table id="results">`, `<table id="compare">`, "total.amplification", "Welch", `<figure id="figure-1">`} {
		if !strings.Contains(string(dom), want) {
			t.Errorf("compare.html's DOM lacks %q", want)
		}
	}
	if !regexp.MustCompile(`(?s)<figure id="figure-1">\s*<svg[ >].*?</svg>\s*<figcaption>`).Match(dom) {
		t.Error("compare.html's figure did not parse as an inline <svg>")
	}
	assertSelfContained(t, "compare (DOM)", string(dom))
	if lines := consoleLines(stderr); len(lines) > 0 {
		t.Errorf("console output while loading compare.html:\n%s", strings.Join(lines, "\n"))
	}
}

// TestBrowserAction: with OVERLOADSIM_BROWSER unset a missing browser skips the browser tests
// (the README's go test ./... passes on a fresh machine); with require it fails them, naming
// what is missing (.ci/run sets it, so that CI cannot pass without running them); any other
// value is an error, present browser or not, rather than a silent default.
func TestBrowserAction(t *testing.T) {
	const missing = "/usr/bin/chromium not found"
	for _, c := range []struct {
		gloss            string
		setting, missing string
		skip             bool
		err              string // a part of the error, "" for none
	}{
		{"unset, all there: run", "", "", false, ""},
		{"unset, missing: skip", "", missing, true, ""},
		{"require, all there: run", "require", "", false, ""},
		{"require, missing: fail naming it", "require", missing, false, missing + ", and OVERLOADSIM_BROWSER=require"},
		{"a misspelt value, all there: fail", "requir", "", false, `OVERLOADSIM_BROWSER="requir": want it unset`},
		{"a misspelt value, missing: fail, not skip", "skip", missing, false, `OVERLOADSIM_BROWSER="skip": want it unset`},
	} {
		skip, err := browserAction(c.setting, c.missing)
		if skip != c.skip {
			t.Errorf("%s: skip = %v, want %v", c.gloss, skip, c.skip)
		}
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: error %v, want none", c.gloss, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: error %v, want one containing %q", c.gloss, err, c.err)
		}
	}
}
