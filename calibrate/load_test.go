package calibrate

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/field"
	"github.com/overloadsim/overloadsim/results/serverstatus"
)

// TestLoadHostile reads every file of testdata/hostile through Load: the reader's own errors
// come back as they are (file, line, field, value, rule), the problems that involve two
// documents are Load's, naming both files, the host and the field, and a 6.0 document loads.
func TestLoadHostile(t *testing.T) {
	const dir = "testdata/hostile"
	tests := []struct {
		gloss, file, want string
	}{
		{"truncated JSON: the reader's error", "truncated.json",
			"testdata/hostile/truncated.json:1: opcounters: truncated: the document ends inside an object"},
		{"a log field of the wrong type: the reader's error", "wrong-type.log",
			`testdata/hostile/wrong-type.log:3: attr.durationMillis: "142ms": must be a number`},
		{"mongosh's shell notation: the reader's error", "shell-notation.txt",
			"testdata/hostile/shell-notation.txt:2: host: 'db:27017',: a key must be a quoted string: this is mongosh's shell notation, not Extended JSON; print the document with EJSON.stringify(…)"},
		{"counters reset by a restart: the file (once), the host, uptime", "counters-reset.json",
			"testdata/hostile/counters-reset.json: host db:27017: uptime: 12 after 86400: the process restarted between the documents: its counters started again; calibrate from the documents after the restart"},
		{"two documents at one instant: the file (once), the host, localTime", "same-localtime.json",
			"testdata/hostile/same-localtime.json: host db:27017: localTime: 2026-03-02T09:00:00Z: two documents of one host taken at the same instant: take them some seconds apart, or drop one"},
		{"another server version's document loads", "version-6.0.json", ""},
	}
	for _, tc := range tests {
		t.Run(tc.gloss, func(t *testing.T) {
			in, err := Load([]string{filepath.Join(dir, tc.file)})
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Load(%s) = %v, want no error", tc.file, err)
				}
				if len(in.Nodes) != 1 || len(in.Nodes[0].Docs) != 1 {
					t.Fatalf("Load(%s) gave %d nodes, want 1 with 1 document", tc.file, len(in.Nodes))
				}
				return
			}
			if err == nil {
				t.Fatalf("Load(%s) = nil error, want %q", tc.file, tc.want)
			}
			if err.Error() != tc.want {
				t.Errorf("Load(%s) = %q,\nwant %q", tc.file, err.Error(), tc.want)
			}
			if in != nil {
				t.Errorf("Load(%s) returned inputs with its error", tc.file)
			}
			var fe *field.Error
			if !errors.As(err, &fe) {
				t.Errorf("Load(%s) = %T, want a *field.Error", tc.file, err)
			}
		})
	}
}

// TestLoadHostileDirectory: a directory is walked for *.json, *.jsonl, *.log and *.ejson only
// (shell-notation.txt is not read), and every file's reader errors come back at once, in
// lexical order, before any document is checked against another.
func TestLoadHostileDirectory(t *testing.T) {
	_, err := Load([]string{"testdata/hostile"})
	want := "testdata/hostile/truncated.json:1: opcounters: truncated: the document ends inside an object\n" +
		`testdata/hostile/wrong-type.log:3: attr.durationMillis: "142ms": must be a number`
	if err == nil || err.Error() != want {
		t.Errorf("Load(testdata/hostile) = %v,\nwant %q", err, want)
	}
}

// TestLoadAcrossFiles: when the two documents come from two files, Load's cross-document
// errors name both, the older first.
func TestLoadAcrossFiles(t *testing.T) {
	for _, tc := range []struct {
		gloss, src, want string
	}{
		{"a restart", "counters-reset.json",
			"{dir}/1-before.json and {dir}/2-after.json: host db:27017: uptime: 12 after 86400: the process restarted between the documents: its counters started again; calibrate from the documents after the restart"},
		{"one instant", "same-localtime.json",
			"{dir}/1-before.json and {dir}/2-after.json: host db:27017: localTime: 2026-03-02T09:00:00Z: two documents of one host taken at the same instant: take them some seconds apart, or drop one"},
	} {
		t.Run(tc.gloss, func(t *testing.T) {
			dir := t.TempDir()
			lines := readLines(t, filepath.Join("testdata/hostile", tc.src))
			writeFile(t, filepath.Join(dir, "1-before.json"), lines[0])
			writeFile(t, filepath.Join(dir, "2-after.json"), lines[1])
			_, err := Load([]string{dir})
			want := strings.ReplaceAll(tc.want, "{dir}", dir)
			if err == nil || err.Error() != want {
				t.Errorf("Load(%s split in two) = %v,\nwant %q", tc.src, err, want)
			}
		})
	}
}

// TestOrderRefuses checks Node.order's rules on documents that differ in one field: time must
// move forward, and so must every cumulative counter (a counter that went back with uptime
// moving forward means the documents come from two processes); gauges and histogram buckets
// may go down; documents out of file order are put in time order.
func TestOrderRefuses(t *testing.T) {
	base := standaloneDocs(t)
	tests := []struct {
		gloss  string
		change func(a, b *serverstatus.Doc)
		want   string // "" = no error
	}{
		{"unchanged: no error", func(a, b *serverstatus.Doc) {}, ""},
		{"opcounters.query went back", func(a, b *serverstatus.Doc) {
			oc := *b.Opcounters
			oc.Query = a.Opcounters.Query - 1
			b.Opcounters = &oc
		}, fmt.Sprintf("a.json and b.json: host db7:27017: opcounters.query: %d after %d: a cumulative counter went back: the process restarted, or the documents come from different processes; calibrate from the documents after the restart",
			base[0].Opcounters.Query-1, base[0].Opcounters.Query)},
		{"metrics.commands.find.total went back", func(a, b *serverstatus.Doc) {
			m := map[string]serverstatus.CommandCount{}
			for k, v := range b.Metrics.Commands {
				m[k] = v
			}
			m["find"] = serverstatus.CommandCount{Total: a.Metrics.Commands["find"].Total - 7}
			b.Metrics = &serverstatus.Metrics{Commands: m}
		}, fmt.Sprintf("a.json and b.json: host db7:27017: metrics.commands.find.total: %d after %d: a cumulative counter went back: the process restarted, or the documents come from different processes; calibrate from the documents after the restart",
			base[0].Metrics.Commands["find"].Total-7, base[0].Metrics.Commands["find"].Total)},
		{"a gauge went down: no error", func(a, b *serverstatus.Doc) {
			c := *b.Connections
			c.Current = a.Connections.Current - 100
			b.Connections = &c
		}, ""},
		{"a histogram bucket went down: no error (buckets are not compared)", func(a, b *serverstatus.Doc) {
			r := *b.OpLatencies.Reads
			r.Histogram = []serverstatus.Bucket{{Micros: 1024, Count: 1}}
			ol := *b.OpLatencies
			ol.Reads = &r
			b.OpLatencies = &ol
		}, ""},
		{"uptime went back, localTime forward: a restart", func(a, b *serverstatus.Doc) {
			b.UptimeMillis = a.UptimeMillis - 1000
			b.Uptime = a.Uptime - 1
		}, "a.json and b.json: host db7:27017: uptime: 7199 after 7200: the process restarted between the documents: its counters started again; calibrate from the documents after the restart"},
		{"the same localTime: the files in the order read", func(a, b *serverstatus.Doc) { b.LocalTime = a.LocalTime },
			"b.json and a.json: host db7:27017: localTime: 2026-03-02T10:00:00.25Z: two documents of one host taken at the same instant: take them some seconds apart, or drop one"},
	}
	for _, tc := range tests {
		t.Run(tc.gloss, func(t *testing.T) {
			a, b := base[0], base[1]
			tc.change(&a, &b)
			// b's file first: order puts the documents in time order before comparing them.
			in, err := assemble([]*serverstatus.File{{Path: "b.json", Status: []serverstatus.Doc{b}}, {Path: "a.json", Status: []serverstatus.Doc{a}}})
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Fatalf("assemble = %q,\nwant %q", got, tc.want)
			}
			if err == nil && !slices.Equal(in.Nodes[0].Sources, []string{"a.json", "b.json"}) {
				t.Errorf("sources %v, want [a.json b.json]: documents in time order", in.Nodes[0].Sources)
			}
		})
	}
}

// TestLoadWalksInLexicalOrder: the paths given are read in the order given; a directory is
// walked in lexical order, subdirectories included, and only input extensions are read.
func TestLoadWalksInLexicalOrder(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"b.json", "a.json", "A.jsonl", "sub/c.ejson", "z.log", "notes.txt", "README.md", "x.yaml"} {
		writeFile(t, filepath.Join(dir, name), gp(8))
	}
	other := filepath.Join(t.TempDir(), "first.json")
	writeFile(t, other, gp(8))
	in, err := Load([]string{other, dir})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{other}
	for _, name := range []string{"A.jsonl", "a.json", "b.json", "sub/c.ejson", "z.log"} {
		want = append(want, filepath.Join(dir, name))
	}
	if !slices.Equal(in.Files, want) {
		t.Errorf("Load read %q,\nwant %q", in.Files, want)
	}
}

// TestLoadAttachesParams pins the getParameter rules: the output in a file named for the node
// (its name and one of . - _), else one in the directory of the node's documents, else the
// only one read; a file named for another node is that node's only; two different outputs for
// one node are an error naming both files and the host.
func TestLoadAttachesParams(t *testing.T) {
	const rs = "testdata/replset-8.0/"
	type file struct{ path, from string } // from: a testdata file, or "gp N" for a getParameter of N tickets
	tests := []struct {
		gloss string
		files []file
		want  map[string]string // host → the file its Params came from ("" = none)
		err   string            // exact; {dir} is the temporary directory
	}{
		{"named for the node, with . - and _", []file{
			{"rs0a.json", rs + "rs0a.json"}, {"rs0b.json", rs + "rs0b.json"}, {"rs0c.json", rs + "rs0c.json"},
			{"rs0a.getParameter.json", "gp 12"}, {"rs0b-getparameter.json", "gp 13"}, {"rs0c_params.json", "gp 14"},
		}, map[string]string{"rs0a:27017": "rs0a.getParameter.json", "rs0b:27017": "rs0b-getparameter.json", "rs0c:27017": "rs0c_params.json"}, ""},
		{"a longer name is not the node's (rs0ax.json is not rs0a's)", []file{
			{"rs0a.json", rs + "rs0a.json"}, {"rs0a.getParameter.json", "gp 12"}, {"rs0ax.json", "gp 99"},
		}, map[string]string{"rs0a:27017": "rs0a.getParameter.json"}, ""},
		{"in the directory of the node's documents", []file{
			{"a/rs0a.json", rs + "rs0a.json"}, {"a/params.json", "gp 12"},
			{"b/rs0b.json", rs + "rs0b.json"}, {"b/params.json", "gp 13"},
			{"c/rs0c.json", rs + "rs0c.json"},
		}, map[string]string{"rs0a:27017": "a/params.json", "rs0b:27017": "b/params.json", "rs0c:27017": ""}, ""},
		{"the only one read applies to every node", []file{
			{"a/rs0a.json", rs + "rs0a.json"}, {"b/rs0b.json", rs + "rs0b.json"}, {"c/rs0c.json", rs + "rs0c.json"},
			{"p/params.json", "gp 15"},
		}, map[string]string{"rs0a:27017": "p/params.json", "rs0b:27017": "p/params.json", "rs0c:27017": "p/params.json"}, ""},
		{"a file named for another node is not this node's by directory", []file{
			{"rs0a.json", rs + "rs0a.json"}, {"rs0b.json", rs + "rs0b.json"}, {"rs0c.json", rs + "rs0c.json"},
			{"rs0a.getParameter.json", "gp 12"}, {"rs0b.getParameter.json", "gp 16"},
		}, map[string]string{"rs0a:27017": "rs0a.getParameter.json", "rs0b:27017": "rs0b.getParameter.json", "rs0c:27017": ""}, ""},
		{"the only one read, named for another node: that node's only", []file{
			{"a/rs0a.json", rs + "rs0a.json"}, {"b/rs0b.json", rs + "rs0b.json"}, {"p/rs0a.getParameter.json", "gp 12"},
		}, map[string]string{"rs0a:27017": "p/rs0a.getParameter.json", "rs0b:27017": ""}, ""},
		{"two identical ones for one node: the first", []file{
			{"rs0a.json", rs + "rs0a.json"}, {"p1.json", "gp 12"}, {"p2.json", "gp 12"},
		}, map[string]string{"rs0a:27017": "p1.json"}, ""},
		{"two different ones for one node: an error", []file{
			{"rs0a.json", rs + "rs0a.json"}, {"p1.json", "gp 12"}, {"p2.json", "gp 16"},
		}, nil, "{dir}/p2.json: getParameter: differs from {dir}/p1.json, which also applies to host rs0a:27017: keep one getParameter output per node (name it rs0a.getParameter.json)"},
	}
	for _, tc := range tests {
		t.Run(tc.gloss, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range tc.files {
				dst := filepath.Join(dir, f.path)
				if n, ok := strings.CutPrefix(f.from, "gp "); ok {
					writeFile(t, dst, gp(atoi(t, n)))
				} else {
					copyFile(t, f.from, dst)
				}
			}
			in, err := Load([]string{dir})
			if tc.err != "" {
				want := strings.ReplaceAll(tc.err, "{dir}", dir)
				if err == nil || err.Error() != want {
					t.Fatalf("Load = %v,\nwant %q", err, want)
				}
				return
			}
			if err != nil {
				t.Fatalf("Load = %v", err)
			}
			got := map[string]string{}
			for _, n := range in.Nodes {
				rel := ""
				if n.ParamsFrom != "" {
					rel = filepath.ToSlash(strings.TrimPrefix(n.ParamsFrom, dir+string(filepath.Separator)))
				}
				got[n.Host] = rel
				if (n.Params == nil) != (n.ParamsFrom == "") {
					t.Errorf("%s: Params %v but ParamsFrom %q", n.Host, n.Params, n.ParamsFrom)
				}
			}
			for h, w := range tc.want {
				if got[h] != w {
					t.Errorf("%s: getParameter from %q, want %q", h, got[h], w)
				}
			}
		})
	}
}

// TestLoadShardedWithoutOneGetParameter: the sharded layout (one file per node, its
// getParameter output on line 1) with one node's output missing loads, and that node has none:
// the other nodes' files are named for them.
func TestLoadShardedWithoutOneGetParameter(t *testing.T) {
	dir := t.TempDir()
	src := "testdata/sharded-8.2"
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		copyFile(t, filepath.Join(src, e.Name()), filepath.Join(dir, e.Name()))
	}
	lines := readLines(t, filepath.Join(src, "mongos1.json"))
	writeFile(t, filepath.Join(dir, "mongos1.json"), strings.Join(lines[1:], "\n"))
	in, err := Load([]string{dir})
	if err != nil {
		t.Fatalf("Load = %v", err)
	}
	for _, n := range in.Nodes {
		want := filepath.Join(dir, n.Name()+".json")
		if n.Host == "mongos1:27017" {
			want = ""
		}
		if n.ParamsFrom != want {
			t.Errorf("%s: getParameter from %q, want %q", n.Host, n.ParamsFrom, want)
		}
	}
	if _, err := Calibrate(in, Options{}); err != nil {
		t.Errorf("Calibrate = %v", err)
	}
}

// TestLoadPlacesLogs pins which node a log's slow operations go to: a log named for the node,
// or in a directory holding only that node's documents, or the only node's; any other log is
// unplaced (its client metadata still counts), and Calibrate says so in a note.
func TestLoadPlacesLogs(t *testing.T) {
	const rs = "testdata/replset-8.0/"
	tests := []struct {
		gloss    string
		files    [][2]string // path in the temporary directory, testdata file
		owner    string      // host that gets the log, "" = none
		unplaced string      // the unplaced log, relative
	}{
		{"named for the node", [][2]string{{"rs0a.json", rs + "rs0a.json"}, {"rs0b.json", rs + "rs0b.json"}, {"rs0c.json", rs + "rs0c.json"}, {"rs0a.log", rs + "rs0a.log"}},
			"rs0a:27017", ""},
		{"the sole host in its directory", [][2]string{{"a/rs0a.json", rs + "rs0a.json"}, {"a/mongod.log", rs + "rs0a.log"}, {"b/rs0b.json", rs + "rs0b.json"}, {"c/rs0c.json", rs + "rs0c.json"}},
			"rs0a:27017", ""},
		{"the only node", [][2]string{{"docs/rs0a.json", rs + "rs0a.json"}, {"logs/mongod.log", rs + "rs0a.log"}},
			"rs0a:27017", ""},
		{"several hosts in its directory, named for none: unplaced", [][2]string{{"rs0a.json", rs + "rs0a.json"}, {"rs0b.json", rs + "rs0b.json"}, {"rs0c.json", rs + "rs0c.json"}, {"mongod.log", rs + "rs0a.log"}},
			"", "mongod.log"},
		{"a directory of no node's documents, several nodes: unplaced", [][2]string{{"a/rs0a.json", rs + "rs0a.json"}, {"b/rs0b.json", rs + "rs0b.json"}, {"logs/mongod.log", rs + "rs0a.log"}},
			"", "logs/mongod.log"},
	}
	for _, tc := range tests {
		t.Run(tc.gloss, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range tc.files {
				copyFile(t, f[1], filepath.Join(dir, f[0]))
			}
			in, err := Load([]string{dir})
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range in.Nodes {
				switch {
				case n.Host == tc.owner && (len(n.Log) != 200 || n.LogFrom == ""):
					t.Errorf("%s: %d slow operations from %q, want the log's 200", n.Host, len(n.Log), n.LogFrom)
				case n.Host != tc.owner && (len(n.Log) != 0 || n.LogFrom != ""):
					t.Errorf("%s: %d slow operations from %q, want none", n.Host, len(n.Log), n.LogFrom)
				}
			}
			var want []string
			if tc.unplaced != "" {
				want = []string{filepath.Join(dir, tc.unplaced)}
			}
			if !slices.Equal(in.Unplaced, want) {
				t.Errorf("Unplaced = %q, want %q", in.Unplaced, want)
			}
			if len(in.Log) != 210 {
				t.Errorf("Inputs.Log holds %d entries, want the log's 210 wherever it is placed", len(in.Log))
			}
			res, err := Calibrate(in, Options{})
			if err != nil {
				t.Fatal(err)
			}
			note := ""
			if tc.unplaced != "" {
				note = fmt.Sprintf("log %s: no node could be tied to it, so its slow operations are not used for service times: name it for its node (rs0a.log) or put it in the node's directory", want[0])
			}
			if got := findNote(res.Notes, "log "); got != note {
				t.Errorf("note %q,\nwant %q", got, note)
			}
			if got := totalCount(res); got != 5 {
				t.Errorf("clients %d, want the log's 5 client hosts", got)
			}
		})
	}
}

// TestLoadNoInputs: Load without a path, or with a path that does not exist, is an error.
func TestLoadNoInputs(t *testing.T) {
	_, err := Load(nil)
	want := "inputs: none: name at least one serverStatus, getParameter or mongod log file, or a directory of them"
	if err == nil || err.Error() != want {
		t.Errorf("Load(nil) = %v, want %q", err, want)
	}
	missing := filepath.Join(t.TempDir(), "nope.json")
	if _, err := Load([]string{missing}); err == nil || !strings.Contains(err.Error(), missing) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load(%s) = %v, want a not-exist error naming it", missing, err)
	}
}

// TestLoadRefusesHugeLog: a 1 GiB log (sparse) is refused from its size, before it is read,
// naming the file and the size and saying how to cut it.
func TestLoadRefusesHugeLog(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "mongod.log")
	writeFile(t, big, "")
	if err := os.Truncate(big, 1<<30); err != nil {
		t.Skipf("cannot make a sparse file here: %v", err)
	}
	start := time.Now()
	_, err := Load([]string{dir})
	took := time.Since(start)
	want := big + `: 1073741824 bytes: a mongod log read for calibration holds at most 256 MiB: keep the slow-query and client-metadata lines, grep -E '"id":(51803|51800),' mongod.log > calibrate.log`
	if err == nil || err.Error() != want {
		t.Fatalf("Load(1 GiB log) = %v,\nwant %q", err, want)
	}
	if !errors.Is(err, serverstatus.ErrTooLarge) {
		t.Errorf("Load(1 GiB log) = %v, want errors.Is ErrTooLarge", err)
	}
	// Reading 1 GiB of zeros takes seconds; refusing from the size, microseconds.
	if took > time.Second {
		t.Errorf("Load(1 GiB log) took %s: the size must be refused before reading", took)
	}
}

// TestVersion60 loads a 6.0 serverStatus (tickets at the top of
// wiredTiger.concurrentTransactions, no histograms, no queues, no limiter sections): alone it
// cannot be calibrated (one document), and with a second document some seconds later the
// scenario's comments and notes name what 6.0 does not give.
func TestVersion60(t *testing.T) {
	const file = "testdata/hostile/version-6.0.json"
	in, err := Load([]string{file})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Calibrate(in, Options{})
	want := "inputs: " + file + ": no node has two serverStatus documents: take each node's twice, some seconds apart"
	if err == nil || err.Error() != want {
		t.Fatalf("Calibrate(one 6.0 document) = %v,\nwant %q", err, want)
	}
	n := in.Nodes[0]
	n.Docs = append(n.Docs, later(t, n.Docs[0], 10*time.Second))
	n.Sources = append(n.Sources, file)
	res, err := Calibrate(in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	yaml := string(res.YAML)
	for _, s := range []string{
		"# execution tickets: serverStatus execution totalTickets, largest seen\n      workers: 8\n",
		"# shape: exp fitted to nothing: exponential assumed (no logged operations or latency histogram to fit a shape to)",
		"# count: no client metadata in a log (id 51800): 10 clients assumed",
		"mix: {find: 200, insert: 50}",
	} {
		if !strings.Contains(yaml, s) {
			t.Errorf("the 6.0 scenario lacks %q:\n%s", s, yaml)
		}
	}
	for _, s := range []string{"ingressRequest", "NaN"} {
		if strings.Contains(yaml, s) {
			t.Errorf("the 6.0 scenario has %q:\n%s", s, yaml)
		}
	}
	for _, note := range []string{
		"db6: read service shape assumed exponential: no logged operations or latency histogram to fit a shape to",
		"db6: write service shape assumed exponential: no logged operations or latency histogram to fit a shape to",
	} {
		if !slices.Contains(res.Notes, note) {
			t.Errorf("notes %q lack %q", res.Notes, note)
		}
	}
}

// gp is a getParameter output giving n execution tickets per pool.
func gp(n int) string {
	return fmt.Sprintf(`{"executionControlConcurrentReadTransactions": %d, "executionControlConcurrentWriteTransactions": %d, "executionControlConcurrencyAdjustmentAlgorithm": "fixedConcurrentTransactions", "ok": 1}`, n, n)
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	var n int
	if _, err := fmt.Sscan(s, &n); err != nil {
		t.Fatal(err)
	}
	return n
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dst, string(data))
}

// readLines returns a file's non-empty lines.
func readLines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

// standaloneDocs are the three documents of testdata/standalone-7.0, oldest first.
func standaloneDocs(t *testing.T) []serverstatus.Doc {
	t.Helper()
	f, err := serverstatus.ReadFile("testdata/standalone-7.0/serverstatus.json")
	if err != nil {
		t.Fatal(err)
	}
	return f.Status
}

// findNote returns the first note starting with prefix, or "".
func findNote(notes []string, prefix string) string {
	for _, n := range notes {
		if strings.HasPrefix(n, prefix) {
			return n
		}
	}
	return ""
}

// totalCount is the clients of every group of a calibration's scenario.
func totalCount(res *Result) int {
	n := 0
	for _, g := range res.Scenario.Clients {
		n += g.Count
	}
	return n
}

// later is the document a node whose load has not changed since it started shows d after d0:
// every cumulative counter grown by the ratio of the uptimes, the gauges as they were.
func later(t *testing.T, d0 serverstatus.Doc, d time.Duration) serverstatus.Doc {
	t.Helper()
	data, err := json.Marshal(d0)
	if err != nil {
		t.Fatal(err)
	}
	var d1 serverstatus.Doc
	if err := json.Unmarshal(data, &d1); err != nil {
		t.Fatal(err)
	}
	f := (d0.Uptime + d.Seconds()) / d0.Uptime
	scaleCounters(reflect.ValueOf(&d1).Elem(), f)
	d1.Uptime += d.Seconds()
	d1.UptimeMillis += d.Milliseconds()
	d1.LocalTime = d0.LocalTime.Add(d)
	return d1
}

// scaleCounters multiplies every cumulative counter under v (the int64 fields counterBack
// compares) by f.
func scaleCounters(v reflect.Value, f float64) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			scaleCounters(v.Elem(), f)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			name := strings.Split(v.Type().Field(i).Tag.Get("json"), ",")[0]
			if name == "" || name == "-" || name == "histogram" || gauges[name] {
				continue
			}
			scaleCounters(v.Field(i), f)
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(v.MapIndex(k))
			scaleCounters(e, f)
			v.SetMapIndex(k, e)
		}
	case reflect.Int64:
		v.SetInt(int64(math.Round(float64(v.Int()) * f)))
	}
}
