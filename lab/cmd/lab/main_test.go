package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/overloadsim/overloadsim/lab/record"
)

// TestDispatch: exit statuses and messages of the dispatcher and of run's command line.
func TestDispatch(t *testing.T) {
	cases := []struct {
		args   []string
		status int
		stderr string
	}{
		{nil, 2, "usage: lab"},
		{[]string{"help"}, 0, "run "},
		{[]string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{[]string{"run"}, 2, "--release: required"},
		{[]string{"run", "--release", "java-1.0.0"}, 2, "must be go-<x.y.z> or node-<x.y.z>"},
		{[]string{"run", "--bogus"}, 2, "flag provided but not defined"},
		{[]string{"run", "--release", "go-2.10.0", "--experiments", "../../experiments", "no-such-experiment"}, 1, "no-such-experiment.json"},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		if got := dispatch(c.args, &out, &errb); got != c.status || !strings.Contains(errb.String(), c.stderr) {
			t.Errorf("lab %v: status %d, stderr %q; want %d and %q", c.args, got, errb.String(), c.status, c.stderr)
		}
	}
}

// TestSummary: the histogram of attempts and the outcome classes with their codes.
func TestSummary(t *testing.T) {
	ok := record.Outcome{OK: true, Class: "ok"}
	over := record.Outcome{Class: "overload", Code: 462}
	a := record.Attempt{Server: "n0"}
	rec := &record.Record{Ops: []record.Op{
		{Attempts: []record.Attempt{a, a, a}, Outcome: ok},
		{Attempts: []record.Attempt{a, a, a}, Outcome: over},
		{Attempts: []record.Attempt{a}, Outcome: ok},
	}, Handshakes: []record.Attempt{a, a}}
	if got, want := summary(rec), "attempts 1×1 3×2  outcomes ok×2 overload(462)×1  handshakes 2"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}

// TestWriteFile: the record is written whole, indented with a trailing newline, replacing an
// older one, and no temporary file is left behind.
func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.json")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	rec := &record.Record{Experiment: "x", Runner: "go", Release: "go-2.10.0", Ops: []record.Op{}}
	if err := writeFile(path, recordJSON(rec)); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var back record.Record
	if err := json.Unmarshal(b, &back); err != nil || back.Release != "go-2.10.0" || !strings.HasSuffix(string(b), "}\n") || !strings.Contains(string(b), "\n  \"runner\"") {
		t.Errorf("written %q (%v)", b, err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v (%v), want 0644", st.Mode(), err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files in the folder, want the record alone", len(entries))
	}
}
