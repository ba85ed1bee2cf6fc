package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/tip"
)

// TestTipFindsBoundary: the search brackets the cut length where tiny-cut flips from
// recovering to sticking, the bracket contains every stuck-side probe above it and every
// recovered-side probe below it, and tip.json is byte-identical for any number of workers.
func TestTipFindsBoundary(t *testing.T) {
	base := t.TempDir()
	for _, w := range []string{"1", "2"} {
		var stdout, stderr bytes.Buffer
		args := []string{"tip", tinyCut, "--param", "faults[0].for", "--range", "100ms:3s", "--precision", "200ms",
			"--workers", w, "--out", filepath.Join(base, w)}
		if s := run(args, &stdout, &stderr); s != exitOK {
			t.Fatalf("workers %s: status %d: %s", w, s, stderr.String())
		}
		if !strings.Contains(stdout.String(), "runs stick above faults[0].for = ") {
			t.Errorf("stdout names no boundary:\n%s", stdout.String())
		}
		// The lead comes first, conservative and in the parameter's words (issue 28 item 9).
		if first, _, _ := strings.Cut(stdout.String(), "\n"); !strings.HasPrefix(first, "tiny-cut: after cpu-cut, cut length up to 100 ms: recovered in every run (12 of 12, P(stuck) ≤ 27 % at 95 %); at ") ||
			!strings.Contains(first, " runs stuck") {
			t.Errorf("stdout does not lead with the conservative bound:\n%s", stdout.String())
		}
	}
	a, _ := os.ReadFile(filepath.Join(base, "1", results.TipFile))
	b, _ := os.ReadFile(filepath.Join(base, "2", results.TipFile))
	if !bytes.Equal(a, b) {
		t.Fatal("tip.json differs between 1 and 2 workers")
	}
	tip, err := tip.Read(filepath.Join(base, "1"))
	if err != nil {
		t.Fatal(err)
	}
	if !(tip.Lo <= tip.Boundary && tip.Boundary <= tip.Hi && tip.Lo >= 0.1 && tip.Hi <= 3) {
		t.Errorf("boundary %v in [%v, %v], want inside [0.1, 3]", tip.Boundary, tip.Lo, tip.Hi)
	}
	if tip.Name != "cut length" || tip.LeadText != tip.Lead() {
		t.Errorf("tip.json: name %q, lead %q; want the cut length and the lead sentence", tip.Name, tip.LeadText)
	}
	for _, p := range tip.Probes {
		if lo, hi := p.Lo95, p.Hi95; p.Replications > 0 && !(lo <= float64(p.Stuck)/float64(p.Decided()) && float64(p.Stuck)/float64(p.Decided()) <= hi && hi-lo < 1) {
			t.Errorf("probe %s: 95 %% interval [%v, %v] does not hold its share %d/%d", p.Value, lo, hi, p.Stuck, p.Decided())
		}
		if p.Verdict == "stuck" && p.X < tip.Lo || p.Verdict == "recovered" && p.X > tip.Hi {
			t.Errorf("probe %s (%s) lies on the wrong side of the bracket [%v, %v]", p.Value, p.Verdict, tip.Lo, tip.Hi)
		}
	}
}

// TestTipBadInput: every search that cannot answer is refused with a message naming why, and
// writes nothing.
func TestTipBadInput(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		status int
		stderr string
	}{
		{"the other way", []string{"--param", "faults[0].for", "--range", "100ms:3s", "--precision", "200ms", "--sticks", "below"}, exitFailure, "the flip runs the other way"},
		{"missing flags", []string{"--param", "faults[0].for"}, exitUsage, "are required"},
		{"reversed range", []string{"--param", "faults[0].for", "--range", "3s:1s", "--precision", "1s"}, exitUsage, "FROM must be below TO"},
		{"not numeric", []string{"--param", "clients[0].driver.retryPolicy", "--range", "none:mongodb-legacy", "--precision", "1"}, exitUsage, "numbers of one kind"},
		{"kinds differ", []string{"--param", "faults[0].for", "--range", "1s:2", "--precision", "1s"}, exitUsage, "numbers of one kind"},
		{"precision of another kind", []string{"--param", "faults[0].for", "--range", "1s:3s", "--precision", "5"}, exitUsage, "same kind as the range"},
		{"precision wider than the range", []string{"--param", "faults[0].for", "--range", "1s:3s", "--precision", "5s"}, exitUsage, "narrower than the range"},
		{"a field that does not exist", []string{"--param", "faults[0].fr", "--range", "1s:3s", "--precision", "1s"}, exitFailure, "unknown field"},
		{"an invalid end", []string{"--param", "faults[0].speed", "--range", "-1:0.5", "--precision", "0.1"}, exitFailure, "speed"},
		{"sticks sideways", []string{"--param", "faults[0].for", "--range", "1s:3s", "--precision", "1s", "--sticks", "left"}, exitUsage, "want above or below"},
		{"a bad batch", []string{"--param", "faults[0].for", "--range", "1s:3s", "--precision", "1s", "--batch", "0"}, exitUsage, "--batch 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			var stdout, stderr bytes.Buffer
			args := append(append([]string{"tip", tinyCut}, tc.args...), "--out", dir)
			if s := run(args, &stdout, &stderr); s != tc.status {
				t.Errorf("status %d, want %d; stderr: %s", s, tc.status, stderr.String())
			}
			if !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, stderr.String())
			}
			if _, err := os.Stat(dir); err == nil {
				t.Errorf("a refused search left %s behind", dir)
			}
		})
	}
}

// TestTipNoFlip: a range that holds no flip is an answer, written and quoted like a boundary
// (exit 0, tip.json with noFlip): never stuck up to the end where runs would stick first, with
// the exact interval for P(stuck) there; or stuck throughout, down to the end where they would
// recover first.
func TestTipNoFlip(t *testing.T) {
	for _, tc := range []struct {
		name, span, precision, sticks string
		side, value, words            string
		stuck                         bool
	}{
		{"never stuck", "1ms:20ms", "5ms", "above", "recovered", "20ms", "never stuck in the range: up to cut length = 20ms, 0 of ", false},
		{"never stuck, sticking below", "1ms:20ms", "5ms", "below", "recovered", "1ms", "never stuck in the range: down to cut length = 1ms, 0 of ", false},
		{"stuck throughout", "2s:4s", "500ms", "above", "stuck", "2s", "stuck throughout the range: even at cut length = 2s, ", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			var stdout, stderr bytes.Buffer
			args := []string{"tip", tinyCut, "--param", "faults[0].for", "--range", tc.span, "--precision", tc.precision, "--sticks", tc.sticks, "--out", dir}
			if s := run(args, &stdout, &stderr); s != exitOK {
				t.Fatalf("status %d, want %d (a written result); stderr: %s", s, exitOK, stderr.String())
			}
			if !strings.Contains(stdout.String(), tc.words) || !strings.Contains(stdout.String(), "(95 % interval); no flip in the range") {
				t.Errorf("stdout lacks %q:\n%s", tc.words, stdout.String())
			}
			got, err := tip.Read(dir)
			if err != nil {
				t.Fatal(err)
			}
			f := got.NoFlip
			if f == nil || f.Side != tc.side || f.Value != tc.value || f.Runs == 0 || f.Level != 0.95 || len(got.Probes) != 2 {
				t.Fatalf("tip.json: noFlip %+v, %d probes; want side %s at %s over the two ends", f, len(got.Probes), tc.side, tc.value)
			}
			if tc.stuck != (f.Stuck == f.Runs) || !tc.stuck && (f.Stuck != 0 || !(f.PHi > 0 && f.PHi < 0.5)) || tc.stuck && !(f.PLo > 0.5 && f.PLo < 1) {
				t.Errorf("noFlip %+v: want every run on the %s side, and the exact interval for P(stuck) there", f, tc.side)
			}
		})
	}
}

// TestTipIntegerParam: a field that takes whole numbers is searched on integers.
func TestTipIntegerParam(t *testing.T) {
	sc, err := loadScenario(tinyCut, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, err := tipRange(sc, "clients[0].appRetry.attempts", "1:5", "1")
	if err != nil {
		t.Fatal(err)
	}
	if !a.Integer || a.Text(2.5) != "3" {
		t.Errorf("attempts: integer %v, 2.5 written %q; want an integer axis writing 3", a.Integer, a.Text(2.5))
	}
	b, err := tipRange(sc, "faults[0].speed", "0:1", "0.1")
	if err == nil && b.Integer {
		t.Errorf("speed read as an integer field")
	}
}

// TestTipPlotAndReport: tip --plot draws tip.svg and tip.png and lists them in the manifest;
// report on the folder writes a page that leads with the sentence the command printed first,
// then the values tested and the figure; plot draws the figure again on its own.
func TestTipPlotAndReport(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	args := []string{"tip", tinyCut, "--param", "faults[0].for", "--range", "100ms:3s", "--precision", "1s", "--max-reps", "8", "--plot", "--out", dir}
	if s := run(args, &stdout, &stderr); s != exitOK {
		t.Fatalf("tip: status %d: %s", s, stderr.String())
	}
	m, err := results.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !m.Has("tip.svg") || !m.Has("tip.png") {
		t.Errorf("tip --plot: the manifest lists no tip.svg and tip.png")
	}
	stdout.Reset()
	if s := run([]string{"report", dir}, &stdout, &stderr); s != exitOK {
		t.Fatalf("report: status %d: %s", s, stderr.String())
	}
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := tip.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	lead := got.Lead()
	lead = strings.ToUpper(lead[:1]) + lead[1:]
	i, j, k := strings.Index(string(page), lead), strings.Index(string(page), `<table id="values">`), strings.Index(string(page), `<figure id="figure-1">`)
	if !(i >= 0 && i < j && j < k) {
		t.Errorf("the page does not lead with %q, then the values, then the figure (at %d, %d, %d)", lead, i, j, k)
	}
	if s := run([]string{"plot", dir}, &stdout, &stderr); s != exitOK {
		t.Errorf("plot: status %d: %s", s, stderr.String())
	}
}
