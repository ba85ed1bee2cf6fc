package main

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/overloadsim/overloadsim/internal/golden"
)

// statusLine is the part of an exported serverStatus document the tests read.
type statusLine struct {
	UptimeMillis int64 `json:"uptimeMillis"`
	OpLatencies  map[string]struct {
		Ops int64 `json:"ops"`
	} `json:"opLatencies"`
	Metrics struct {
		Commands map[string]struct {
			Failed int64 `json:"failed"`
			Total  int64 `json:"total"`
		} `json:"commands"`
	} `json:"metrics"`
}

// readStatus reads an exported serverStatus.json, one document per line.
func readStatus(t *testing.T, path string) []statusLine {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var docs []statusLine
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var d statusLine
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatalf("%s line %d: %v", path, len(docs)+1, err)
		}
		docs = append(docs, d)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return docs
}

// column returns the integer column name of the timeseries rows of kind, in time order.
func column(t *testing.T, timeseries []byte, kind, name string) []int64 {
	t.Helper()
	rows, err := csv.NewReader(bytes.NewReader(timeseries)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := -1
	for i, h := range rows[0] {
		if h == name {
			col = i
		}
	}
	var out []int64
	for _, r := range rows[1:] {
		if r[1] != kind {
			continue
		}
		v, err := strconv.ParseInt(r[col], 10, 64)
		if err != nil {
			t.Fatalf("timeseries %s %s: %v", kind, name, err)
		}
		out = append(out, v)
	}
	return out
}

// Rule (run's usage: the export changes nothing else the run writes): healthy with and without
// --serverstatus prints and writes the same bytes; the export has a folder for its node with a
// document at time 0 and one per interval end, and its counters agree with the run's own
// records: on a link without delay every attempt the group makes reaches the node in the same
// interval, so per interval the growth of metrics.commands' find, insert and update totals is
// the group's attempts, and the growth of opLatencies' reads and writes ops (every command
// answered, none failing) is the node's completed commands.
func TestRunServerStatus(t *testing.T) {
	base := t.TempDir()
	args := []string{"run", "healthy", "--set", "duration=5s", "--set", "warmup=1s", "--set", "topology.nodes[0].networkDelay=const(0s)"}
	plainOut := runOK(t, append(args, "--out", filepath.Join(base, "plain"))...)
	ss := filepath.Join(base, "export")
	seenOut := runOK(t, append(args, "--out", filepath.Join(base, "seen"), "--serverstatus", ss)...)
	if plainOut != seenOut {
		t.Errorf("stdout differs with --serverstatus:\n%s\n---\n%s", plainOut, seenOut)
	}
	names := []string{"run.json", "timeseries.csv", "summary.json", "manifest.json"}
	plain, seen := readAll(t, filepath.Join(base, "plain"), names...), readAll(t, filepath.Join(base, "seen"), names...)
	for _, n := range names {
		if !bytes.Equal(plain[n], seen[n]) {
			t.Errorf("%s differs with --serverstatus", n)
		}
	}
	entries, err := os.ReadDir(ss)
	if err != nil || len(entries) != 1 || entries[0].Name() != "db" {
		t.Fatalf("export folder holds %v (%v), want db alone", entries, err)
	}
	params, err := os.ReadFile(filepath.Join(ss, "db", paramsFile))
	if err != nil || bytes.Count(params, []byte("\n")) != 1 || !bytes.Contains(params, []byte(`"ingressRequestAdmissionRatePerSec":1000,`)) {
		t.Errorf("getParameter.json = %s (%v), want one line with the node's rate", params, err)
	}
	docs := readStatus(t, filepath.Join(ss, "db", statusFile))
	if len(docs) != 6 {
		t.Fatalf("%d documents, want 6: time 0 and five interval ends", len(docs))
	}
	attempts := column(t, plain["timeseries.csv"], "group", "attempts")
	completed := column(t, plain["timeseries.csv"], "server", "completed")
	app := func(d statusLine) int64 {
		c := d.Metrics.Commands
		return c["find"].Total + c["insert"].Total + c["update"].Total
	}
	answered := func(d statusLine) int64 { return d.OpLatencies["reads"].Ops + d.OpLatencies["writes"].Ops }
	for i := 1; i < len(docs); i++ {
		if docs[i].UptimeMillis != int64(i)*1000 {
			t.Errorf("document %d at %d ms, want %d", i, docs[i].UptimeMillis, i*1000)
		}
		if got := app(docs[i]) - app(docs[i-1]); got != attempts[i-1] {
			t.Errorf("interval %d: find+insert+update totals grew by %d, the group made %d attempts", i-1, got, attempts[i-1])
		}
		if got := answered(docs[i]) - answered(docs[i-1]); got != completed[i-1] {
			t.Errorf("interval %d: reads+writes ops grew by %d, the node completed %d", i-1, got, completed[i-1])
		}
	}
	if app(docs[len(docs)-1]) == 0 {
		t.Error("no command counted")
	}
}

// TestServerStatusGolden pins the export of a small scenario: the first two documents of
// healthy's node (time 0, before the load, and the end of the first interval) and its
// getParameter, byte for byte.
func TestServerStatusGolden(t *testing.T) {
	ss := filepath.Join(t.TempDir(), "export")
	runOK(t, "run", "healthy", "--set", "duration=2s", "--set", "warmup=0s", "--out", filepath.Join(t.TempDir(), "out"), "--serverstatus", ss)
	status, err := os.ReadFile(filepath.Join(ss, "db", statusFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(status), "\n")
	if len(lines) < 2 {
		t.Fatalf("%d lines", len(lines))
	}
	params, err := os.ReadFile(filepath.Join(ss, "db", paramsFile))
	if err != nil {
		t.Fatal(err)
	}
	got := "# serverStatus.json, lines 1 and 2\n" + lines[0] + lines[1] + "# getParameter.json\n" + string(params)
	golden.Check(t, filepath.Join("testdata", "serverstatus-healthy-db.golden"), []byte(got))
}

// Rule (run's usage: the export is written whole or not at all, into a new or empty folder;
// --force replaces an export simulate wrote, and nothing else): what --serverstatus refuses up
// front (exit 2, the folder untouched, no run made) and what it replaces.
func TestServerStatusFolder(t *testing.T) {
	short := []string{"run", "healthy", "--set", "duration=2s", "--set", "warmup=0s"}
	export := func(t *testing.T, dir string) {
		t.Helper()
		runOK(t, append(short, "--out", filepath.Join(t.TempDir(), "o"), "--serverstatus", dir)...)
	}
	tests := []struct {
		gloss   string
		prepare func(t *testing.T, dir string) // what dir holds before
		flags   []string
		export  bool // give --serverstatus
		status  int
		message string // in stderr, for a refusal
	}{
		{"a new folder", func(*testing.T, string) {}, nil, true, exitOK, ""},
		{"an empty folder", func(t *testing.T, dir string) { mkdir(t, dir) }, nil, true, exitOK, ""},
		{"an earlier export without --force", export, nil, true, exitUsage, "not empty (db): choose a new or empty folder, or give --force"},
		{"an earlier export with --force", export, []string{"--force"}, true, exitOK, ""},
		{"someone's file, even with --force", func(t *testing.T, dir string) {
			mkdir(t, dir)
			writeFile(t, filepath.Join(dir, "notes.txt"), "mine")
		}, []string{"--force"}, true, exitUsage, "holds files no overloadsim result lists (notes.txt): --force replaces only a serverStatus export"},
		{"someone's file inside an export, with --force", func(t *testing.T, dir string) {
			export(t, dir)
			writeFile(t, filepath.Join(dir, "db", "extra.json"), "{}")
		}, []string{"--force"}, true, exitUsage, "(db/extra.json)"},
		{"a file, not a folder", func(t *testing.T, dir string) { writeFile(t, dir, "x") }, nil, true, exitUsage, "not a folder"},
		{"--force without --serverstatus", func(*testing.T, string) {}, []string{"--force"}, false, exitUsage, "--force without --serverstatus"},
	}
	for _, tc := range tests {
		t.Run(tc.gloss, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "export")
			tc.prepare(t, dir)
			before := snapshotTree(t, dir)
			out := filepath.Join(t.TempDir(), "o")
			args := append(append([]string{}, short...), "--out", out)
			if tc.export {
				args = append(args, "--serverstatus", dir)
			}
			status, _, stderr := runStatus(append(args, tc.flags...)...)
			if status != tc.status || !strings.Contains(stderr, tc.message) {
				t.Fatalf("exit %d, stderr:\n%s\nwant exit %d and %q", status, stderr, tc.status, tc.message)
			}
			if status != exitOK {
				if after := snapshotTree(t, dir); after != before {
					t.Errorf("a refused export changed %s:\n%s\n---\n%s", dir, before, after)
				}
				if _, err := os.Stat(out); !os.IsNotExist(err) {
					t.Errorf("a refused run left its --out folder: %v", err)
				}
				return
			}
			if docs := readStatus(t, filepath.Join(dir, "db", statusFile)); len(docs) != 3 {
				t.Errorf("%d documents, want 3", len(docs))
			}
			if leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), ".export-*")); len(leftovers) > 0 {
				t.Errorf("temporaries left beside the export: %v", leftovers)
			}
		})
	}
}

// Rule (run's usage): the export may not be the run's own folder.
func TestServerStatusNotTheOutFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "same")
	status, _, stderr := runStatus("run", "healthy", "--set", "duration=2s", "--set", "warmup=0s", "--out", dir, "--serverstatus", dir)
	if status != exitUsage || !strings.Contains(stderr, "it is the --out folder") {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 2 naming the --out folder", status, stderr)
	}
}

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// snapshotTree lists every path under root with its mode, and a regular file's size and bytes,
// so that a test sees any change.
func snapshotTree(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	_ = filepath.Walk(root, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		b.WriteString(rel + " " + info.Mode().String())
		if info.Mode().IsRegular() {
			data, _ := os.ReadFile(path)
			b.WriteString(" " + strconv.Itoa(len(data)) + " " + string(data))
		}
		b.WriteString("\n")
		return nil
	})
	return b.String()
}
