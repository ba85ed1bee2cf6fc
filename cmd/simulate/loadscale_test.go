package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/tip"
)

// twoTierScenario is two open-loop tiers on one node of 8 workers at 1 ms (a ceiling of 8000/s),
// offering 4000/s between them as written; closed adds a closed-loop group.
func twoTierScenario(t *testing.T, closed bool) string {
	t.Helper()
	text := `name: two-tier
duration: 6s
clients:
  - name: web
    workload: {rate: 3000/s}
  - name: api
    workload: {rate: 1000/s}
`
	if closed {
		text += `  - name: batch
    workload: {threads: 1, think: const(99ms)}
`
	}
	path := filepath.Join(t.TempDir(), "two-tier.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSweepLoadScale: a sweep of the load factor (--vary load=…) is a load sweep
// (sweep.IsLoadPath): its answers, the knee and the headroom over today's load (the scenario as
// written, 4000/s), are in sweep.json and printed; and the factor scales both tiers' offered
// load (Scenario.Load), each group's measured offered rate following load × its written rate.
func TestSweepLoadScale(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	args := []string{"sweep", twoTierScenario(t, false), "--vary", "load=0.5:2.5:0.5", "--replications", "2", "--workers", "2", "--out", dir}
	if s := run(args, &stdout, &stderr); s != exitOK {
		t.Fatalf("status %d: %s", s, stderr.String())
	}
	for _, want := range []string{"Today's load (the scenario as configured) is 4000/s.", "The knee is between ", "× today's load"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
		}
	}
	if strings.Contains(stderr.String(), "closed-loop") {
		t.Errorf("a scenario of open loops only has a closed-loop note:\n%s", stderr.String())
	}
	data, err := os.ReadFile(filepath.Join(dir, results.SweepFile))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Context struct{ Today float64 }
		Answers []struct {
			KneeFound        bool
			Knee, LastServed float64
			Headroom         float64
		}
		Points []struct {
			Params  []struct{ Path, Value string }
			Metrics []struct {
				Name string
				Mean float64
			}
		}
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Context.Today != 4000 {
		t.Errorf("today's load %v, want 4000/s: the scenario as written, at load 1", doc.Context.Today)
	}
	if len(doc.Answers) != 1 {
		t.Fatalf("%d answers in sweep.json, want 1 (a load sweep's)", len(doc.Answers))
	}
	a := doc.Answers[0]
	// The ceiling is 8000/s: the points at 2 (8000/s) or 2.5 (10000/s) fall short, not those
	// at 1.5 (6000/s) and below.
	if !a.KneeFound || a.Knee < 7000 || a.LastServed < 5000 || !(a.Headroom > 1.5 && a.Headroom < 2.7) {
		t.Errorf("answers %+v: want a knee between 6000/s and 10000/s, headroom knee ÷ 4000/s", a)
	}
	if len(doc.Points) != 5 {
		t.Fatalf("%d points, want 5", len(doc.Points))
	}
	for _, p := range doc.Points {
		load, err := strconv.ParseFloat(p.Params[0].Value, 64)
		if p.Params[0].Path != "load" || err != nil {
			t.Fatalf("point %+v: not a value of load", p.Params)
		}
		for _, m := range p.Metrics {
			base := map[string]float64{"group.web.offered": 3000, "group.api.offered": 1000}[m.Name]
			if base > 0 && (m.Mean < 0.9*load*base || m.Mean > 1.1*load*base) {
				t.Errorf("load=%v: %s %v/s, want about %v/s", load, m.Name, m.Mean, load*base)
			}
		}
	}
}

// TestSweepLoadScaleClosedLoopNote: a sweep of load over a scenario with a closed-loop group says
// that the factor leaves that group's load as it is (Scenario.Load).
func TestSweepLoadScaleClosedLoopNote(t *testing.T) {
	var stdout, stderr bytes.Buffer
	args := []string{"sweep", twoTierScenario(t, true), "--vary", "load=1,2", "--set", "duration=1s", "--replications", "1", "--out", filepath.Join(t.TempDir(), "out")}
	if s := run(args, &stdout, &stderr); s != exitOK {
		t.Fatalf("status %d: %s", s, stderr.String())
	}
	if want := "the closed-loop groups (batch) keep their threads"; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
	}
}

// TestTipLoadScale: tip searches the load factor as any numeric field: tiny-cut recovers from
// its CPU cut at a fifth of its load and sticks at one and a half times it.
func TestTipLoadScale(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	args := []string{"tip", tinyCut, "--param", "load", "--range", "0.2:1.5", "--precision", "0.3", "--max-reps", "8", "--out", dir}
	if s := run(args, &stdout, &stderr); s != exitOK {
		t.Fatalf("status %d: %s", s, stderr.String())
	}
	if !strings.Contains(stdout.String(), "runs stick above load = ") {
		t.Errorf("stdout names no boundary in load:\n%s", stdout.String())
	}
	got, err := tip.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	verdicts := map[string]string{}
	for _, p := range got.Probes {
		verdicts[p.Value] = p.Verdict
	}
	if verdicts["0.2"] != "recovered" || verdicts["1.5"] != "stuck" {
		t.Errorf("probes %v: want 0.2 recovered and 1.5 stuck", verdicts)
	}
}

// TestValidateLoadScale: a load that is not a number > 0 is refused with the file, the line, the
// field, the value and the rule.
func TestValidateLoadScale(t *testing.T) {
	for _, load := range []string{"0", "-1", "fast"} {
		t.Run(load, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "bad.yaml")
			text := "name: bad\nload: " + load + "\nclients:\n  - name: web\n    workload: {rate: 100/s}\n"
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			if s := run([]string{"validate", path}, &stdout, &stderr); s != exitFailure {
				t.Errorf("status %d, want %d", s, exitFailure)
			}
			want := path + ":2: load: " + load + ": must be a finite number > 0"
			if !strings.Contains(stderr.String(), want) {
				t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
			}
		})
	}
}
