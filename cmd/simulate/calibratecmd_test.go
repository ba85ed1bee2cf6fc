package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/calibrate"
)

// calData is the calibration test data (calibrate/testdata/README.md).
const calData = "../../calibrate/testdata"

var standalone70 = filepath.Join(calData, "standalone-7.0")

// runCalibrate runs the CLI and returns its exit status, stdout and stderr.
func runCalibrate(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	status := run(args, &out, &errb)
	return status, out.String(), errb.String()
}

// dirNames lists a folder's entries.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// TestCalibrateOut: calibrate INPUT --out F writes the scenario Calibrate writes, and only it,
// into F (no temporary left beside it) and prints the report on stdout; without --out the
// scenario is the output and the report goes to stderr (docs/conventions.md §15).
func TestCalibrateOut(t *testing.T) {
	in, err := calibrate.Load([]string{standalone70})
	if err != nil {
		t.Fatal(err)
	}
	res, err := calibrate.Calibrate(in, calibrate.Options{Name: "calibrated", Duration: time.Minute, Warmup: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	report := []string{
		"db7:27017: delete 10.0/s, find 500.0/s, getMore 50.0/s, insert 120.0/s, ping 10.0/s, update 80.0/s over 20s; utilisation 8.5 %; 144 connections, 0.2 opened/s\n",
		"fit db7 read pool: gamma(1.41ms, 1.91) (mean from read tickets' processing time",
		"   * gamma     AIC",
		"note: commands not in the workload (no application operation stands for them): ping 10.00/s\n",
	}

	dir := t.TempDir()
	out := filepath.Join(dir, "my.yaml")
	status, stdout, stderr := runCalibrate("calibrate", standalone70, "--out", out)
	if status != exitOK || stderr != "" {
		t.Fatalf("calibrate --out = %d, stderr:\n%s", status, stderr)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, res.YAML) {
		t.Errorf("%s differs from what Calibrate writes:\n%s", out, got)
	}
	if names := dirNames(t, dir); !slices.Equal(names, []string{"my.yaml"}) {
		t.Errorf("the folder holds %q, want only my.yaml", names)
	}
	for _, s := range append(report, "wrote "+out+"; next: simulate calibrate --check "+out+" <the same inputs>\n") {
		if !strings.Contains(stdout, s) {
			t.Errorf("the report lacks %q:\n%s", s, stdout)
		}
	}

	status, stdout, stderr = runCalibrate("calibrate", standalone70)
	if status != exitOK || stdout != string(res.YAML) {
		t.Errorf("calibrate without --out = %d, stdout:\n%s\nwant the scenario", status, stdout)
	}
	for _, s := range report {
		if !strings.Contains(stderr, s) {
			t.Errorf("the report on stderr lacks %q:\n%s", s, stderr)
		}
	}
	if strings.Contains(stderr, "wrote ") {
		t.Errorf("stderr says a file was written:\n%s", stderr)
	}
}

// TestCalibrateOutExists: an existing --out file is refused up front (exit 2) and left as it
// was; --force replaces it.
func TestCalibrateOutExists(t *testing.T) {
	out := filepath.Join(t.TempDir(), "my.yaml")
	if err := os.WriteFile(out, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	status, stdout, stderr := runCalibrate("calibrate", standalone70, "--out", out)
	if status != exitUsage || stdout != "" || !strings.Contains(stderr, "--out "+out+": the file exists; add --force to replace it") {
		t.Errorf("calibrate --out EXISTING = %d, stdout %q, stderr:\n%s", status, stdout, stderr)
	}
	if got, _ := os.ReadFile(out); string(got) != "mine\n" {
		t.Errorf("the existing file was changed to:\n%s", got)
	}
	status, _, stderr = runCalibrate("calibrate", standalone70, "--out", out, "--force")
	if got, _ := os.ReadFile(out); status != exitOK || !strings.HasPrefix(string(got), "# Written by simulate calibrate") {
		t.Errorf("calibrate --out EXISTING --force = %d, file:\n%s\nstderr:\n%s", status, got, stderr)
	}
}

// TestCalibrateHostile: a hostile input fails (exit 1) naming the file and the field, and
// nothing is written.
func TestCalibrateHostile(t *testing.T) {
	for _, tc := range []struct{ file, field string }{
		{"truncated.json", "opcounters: truncated"},
		{"counters-reset.json", "host db:27017: uptime: 12 after 86400"},
		{"same-localtime.json", "host db:27017: localTime: 2026-03-02T09:00:00Z"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			dir := t.TempDir()
			status, stdout, stderr := runCalibrate("calibrate", filepath.Join(calData, "hostile", tc.file), "--out", filepath.Join(dir, "my.yaml"))
			if status != exitFailure || stdout != "" || !strings.Contains(stderr, tc.file) || !strings.Contains(stderr, tc.field) {
				t.Errorf("calibrate %s = %d, stdout %q, stderr:\n%s", tc.file, status, stdout, stderr)
			}
			if names := dirNames(t, dir); len(names) != 0 {
				t.Errorf("the folder holds %q, want nothing", names)
			}
		})
	}
}

// TestCalibrateCheck: --check on the standalone data agrees with the scenario calibrated from
// it (exit 0), and disagrees (exit 1, DISAGREES) once that scenario's service times are
// doubled.
func TestCalibrateCheck(t *testing.T) {
	dir := t.TempDir()
	sc := filepath.Join(dir, "my.yaml")
	if status, _, stderr := runCalibrate("calibrate", standalone70, "--out", sc); status != exitOK {
		t.Fatalf("calibrate = %d:\n%s", status, stderr)
	}
	status, stdout, stderr := runCalibrate("calibrate", "--check", sc, standalone70)
	if status != exitOK || !strings.Contains(stdout, "agrees: all 12 judged points within their tolerances") {
		t.Fatalf("calibrate --check = %d, stdout:\n%s\nstderr:\n%s", status, stdout, stderr)
	}

	text, err := os.ReadFile(sc)
	if err != nil {
		t.Fatal(err)
	}
	means := regexp.MustCompile(`\b(exp|gamma|lognormal)\(([0-9.]+)(ms|µs)`)
	doubled := means.ReplaceAllStringFunc(string(text), func(m string) string {
		p := means.FindStringSubmatch(m)
		v, err := strconv.ParseFloat(p[2], 64)
		if err != nil {
			t.Fatal(err)
		}
		return p[1] + "(" + strconv.FormatFloat(2*v, 'f', -1, 64) + p[3]
	})
	if strings.Count(doubled, "gamma(2.82ms") != 1 || strings.Count(doubled, "gamma(5.4ms") != 6 {
		t.Fatalf("the service times were not doubled:\n%s", doubled)
	}
	slow := filepath.Join(dir, "slow.yaml")
	if err := os.WriteFile(slow, []byte(doubled), 0o644); err != nil {
		t.Fatal(err)
	}
	status, stdout, stderr = runCalibrate("calibrate", "--check", slow, standalone70)
	if status != exitFailure || !strings.Contains(stdout, "DISAGREES: ") || !strings.Contains(stdout, "mean reads") ||
		!strings.Contains(stderr, "the scenario disagrees with production") {
		t.Errorf("calibrate --check (service doubled) = %d, stdout:\n%s\nstderr:\n%s", status, stdout, stderr)
	}
}

// TestCalibrateUsage: usage errors exit 2, say what is wrong, and write nothing; help
// calibrate prints the usage on stdout.
func TestCalibrateUsage(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "my.yaml")
	for _, tc := range []struct {
		gloss string
		args  []string
		want  string
	}{
		{"no INPUT", []string{"calibrate", "--out", out}, "want at least one INPUT"},
		{"--check with --out", []string{"calibrate", "--check", "x.yaml", "--out", out, standalone70}, "--check compares a scenario; it writes none: leave out --out"},
		{"--cores -1", []string{"calibrate", "--cores", "-1", "--out", out, standalone70}, "--cores -1: must be ≥ 0"},
	} {
		t.Run(tc.gloss, func(t *testing.T) {
			status, stdout, stderr := runCalibrate(tc.args...)
			if status != exitUsage || stdout != "" || !strings.Contains(stderr, tc.want) {
				t.Errorf("run(%q) = %d, stdout %q, stderr:\n%s\nwant %d and %q", tc.args, status, stdout, stderr, exitUsage, tc.want)
			}
			if names := dirNames(t, dir); len(names) != 0 {
				t.Errorf("the folder holds %q, want nothing", names)
			}
		})
	}
	status, stdout, stderr := runCalibrate("help", "calibrate")
	if status != exitOK || stderr != "" || !strings.HasPrefix(stdout, "Usage: simulate calibrate INPUT...") ||
		!strings.Contains(stdout, "simulate calibrate --check SCENARIO INPUT...") || !strings.Contains(stdout, "--cores") {
		t.Errorf("help calibrate = %d, stdout:\n%s\nstderr:\n%s", status, stdout, stderr)
	}
}
