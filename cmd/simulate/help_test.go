package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/doc"
	"go/doc/comment"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/overloadsim/overloadsim/scenarios"
)

// commandNames returns the commands' names, sorted.
func commandNames() []string {
	var names []string
	for n := range commands {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// TestCommandHelpOnStdout: a command's --help and -h, and 'simulate help CMD', print the same
// help on stdout, nothing on stderr, and exit 0 (help asked for is the output, not a diagnostic).
func TestCommandHelpOnStdout(t *testing.T) {
	for _, name := range commandNames() {
		var helps []string
		for _, args := range [][]string{{name, "--help"}, {name, "-h"}, {"help", name}} {
			var out, errb bytes.Buffer
			if got := run(args, &out, &errb); got != exitOK {
				t.Errorf("run(%q) = %d, want %d; stderr:\n%s", args, got, exitOK, errb.String())
			}
			if errb.Len() > 0 {
				t.Errorf("run(%q) wrote to stderr:\n%s", args, errb.String())
			}
			if !strings.HasPrefix(out.String(), "Usage: simulate "+name) {
				t.Errorf("run(%q): stdout does not start with the usage line:\n%s", args, out.String())
			}
			helps = append(helps, out.String())
		}
		if helps[0] != helps[1] || helps[0] != helps[2] {
			t.Errorf("%s: --help, -h and 'help %s' differ:\n%s\n---\n%s\n---\n%s", name, name, helps[0], helps[1], helps[2])
		}
	}
	// Options are listed for a command that has them.
	var out bytes.Buffer
	run([]string{"help", "run"}, &out, &bytes.Buffer{})
	if !strings.Contains(out.String(), "\nOptions:\n") || !strings.Contains(out.String(), "--seed") {
		t.Errorf("'help run' lists no options:\n%s", out.String())
	}
}

// TestDocSummaries: main.go's doc comment gives every command, help included, with the
// summary 'simulate help' prints.
func TestDocSummaries(t *testing.T) {
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	summaries := map[string]string{"help": helpSummary}
	for n, c := range commands {
		summaries[n] = c.summary
	}
	for n, s := range summaries {
		if line := fmt.Sprintf("//\t%-10s %s\n", n, s); !strings.Contains(string(src), line) {
			t.Errorf("main.go's doc comment lacks the line %q", line)
		}
	}
}

// TestReadmeListsEveryCommand: the README's usage block names every command, help included.
func TestReadmeListsEveryCommand(t *testing.T) {
	src, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range append(commandNames(), "help") {
		if !strings.Contains(string(src), "\n  "+n+" ") {
			t.Errorf("README.md's command list lacks %q", n)
		}
	}
}

// TestShowPrintsLibraryFile: 'simulate show NAME' prints the library file as written (the
// scenario's description and claim included), and that text reads back to the same scenario.
func TestShowPrintsLibraryFile(t *testing.T) {
	var out, errb bytes.Buffer
	if got := run([]string{"show", "spike"}, &out, &errb); got != exitOK {
		t.Fatalf("show spike = %d; stderr:\n%s", got, errb.String())
	}
	src, err := scenarios.Source("spike")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), src) {
		t.Errorf("show spike does not print the library file as written:\n%s", out.String())
	}
	for _, want := range []string{"name: spike\n", "description:", "claim:"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("show spike lacks %q", want)
		}
	}
	shown, err := scenarios.Parse("spike.yaml", out.Bytes())
	if err != nil {
		t.Fatalf("show spike's output does not parse: %v", err)
	}
	lib, err := scenarios.Lookup("spike")
	if err != nil {
		t.Fatal(err)
	}
	if shown.String() != lib.String() {
		t.Errorf("show spike reads back to another scenario:\n%s\n---\n%s", shown.String(), lib.String())
	}
}

// TestHelpPointersExist checks that every 'go doc ./PATH' a command's or topic's help points to
// names a package folder of the module, and every 'simulate help NAME' a command's help points
// to names a command or topic, so that help does not send a reader to a package that moved or a
// topic that is gone.
func TestHelpPointersExist(t *testing.T) {
	goDoc := regexp.MustCompile(`go doc \./([A-Za-z0-9_/]+)`)
	help := regexp.MustCompile(`'simulate help ([a-z]+)'`)
	texts := map[string]string{}
	for name, cmd := range commands {
		texts["simulate "+name] = cmd.usage
	}
	for name, tp := range topics {
		var out bytes.Buffer
		if err := tp.write(&out); err != nil {
			t.Fatalf("help %s: %v", name, err)
		}
		texts["simulate help "+name] = tp.summary + "\n" + out.String()
	}
	pointers := 0
	for name, text := range texts {
		for _, m := range goDoc.FindAllStringSubmatch(text, -1) {
			pointers++
			dir := filepath.Join("..", "..", filepath.FromSlash(m[1]))
			if files, _ := filepath.Glob(filepath.Join(dir, "*.go")); len(files) == 0 {
				t.Errorf("%s's help points to 'go doc ./%s', which is no package of the module", name, m[1])
			}
		}
		for _, m := range help.FindAllStringSubmatch(text, -1) {
			pointers++
			if _, ok := commands[m[1]]; !ok && topics[m[1]].write == nil {
				t.Errorf("%s's help points to 'simulate help %s', which is no command or topic", name, m[1])
			}
		}
	}
	if pointers == 0 {
		t.Error("no help text points anywhere: the patterns no longer match the help's words")
	}
}

// TestHelpTopics: 'simulate help TOPIC' prints the topic on stdout and nothing on stderr, and
// 'simulate help' lists every topic with its summary.
func TestHelpTopics(t *testing.T) {
	var list bytes.Buffer
	if got := run([]string{"help"}, &list, &bytes.Buffer{}); got != exitOK {
		t.Fatalf("help = %d", got)
	}
	for _, name := range topicNames() {
		if line := fmt.Sprintf("\n  %-10s %s\n", name, topics[name].summary); !strings.Contains(list.String(), line) {
			t.Errorf("'simulate help' lacks the line %q", line)
		}
		var out, errb bytes.Buffer
		if got := run([]string{"help", name}, &out, &errb); got != exitOK || errb.Len() > 0 || out.Len() < 1000 {
			t.Errorf("help %s = %d, %d bytes on stdout, stderr:\n%s", name, got, out.Len(), errb.String())
		}
	}
}

// renderedPackageDoc returns the documentation of the package in dir as go doc renders it: the
// package comments of all its non-test files, read by go/doc.
func renderedPackageDoc(t *testing.T, dir, importPath string) *comment.Doc {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, n, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	p, err := doc.NewFromFiles(fset, files, importPath)
	if err != nil {
		t.Fatal(err)
	}
	return p.Parser().Parse(p.Doc)
}

// TestScenarioTopicIsPackageDoc: 'simulate help scenario' is the documentation of package
// scenarios as go doc renders it, word for word: it is built from the embedded doc.go, and this
// fails if the package's documentation moves out of doc.go or names a symbol it does not have.
func TestScenarioTopicIsPackageDoc(t *testing.T) {
	var out bytes.Buffer
	if err := writeScenarioTopic(&out); err != nil {
		t.Fatal(err)
	}
	var p comment.Printer
	want := p.Text(renderedPackageDoc(t, "../../scenarios", "github.com/overloadsim/overloadsim/scenarios"))
	_, body, _ := strings.Cut(out.String(), "\n\n")
	if body != string(want) {
		t.Errorf("'simulate help scenario' is not go doc ./scenarios's text:\n%s", lineDiff(string(want), body))
	}
}

// TestMetricsTopicIsCatalogue: 'simulate help metrics' has one line per row of docs/metrics.md
// §18 (the catalogue's table, which docs/metrics_test.go keeps in step with the catalogue), with
// the row's name, unit, direction, files (S when summary.json has it, T when timeseries.csv
// does), section and meaning, and ends with the section # Recovery of package results as go doc
// renders it, up to the next heading.
func TestMetricsTopicIsCatalogue(t *testing.T) {
	var out bytes.Buffer
	if err := writeMetricsTopic(&out); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("../../docs/metrics.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(src), "## 18. The catalogue")
	if !ok {
		t.Fatal("docs/metrics.md has no section 18. The catalogue")
	}
	row := regexp.MustCompile("(?m)^\\| `([a-z_A-Z0-9]+)` \\| [^|]+ \\| ([^|]+) \\| ([^|]+) \\| ([^|]+) \\| ([^|]+) \\| §([0-9.]+) \\| ([^|]+) \\|(?: [^|]* \\|)?$")
	rows := row.FindAllStringSubmatch(table, -1)
	if len(rows) < 40 {
		t.Fatalf("docs/metrics.md §18: %d rows read, want the whole catalogue", len(rows))
	}
	lines := strings.Split(out.String(), "\n")
	metricLines := 0
	for _, l := range lines {
		if strings.Contains(l, " §") && strings.HasPrefix(l, "  ") && !strings.HasPrefix(l, "  METRIC") {
			metricLines++
		}
	}
	if metricLines != len(rows) {
		t.Errorf("'simulate help metrics' has %d metric lines, docs/metrics.md §18 %d rows", metricLines, len(rows))
	}
	for _, r := range rows {
		name, unit, better, section, meaning := r[1], r[2], r[3], r[6], r[7]
		in := ""
		if r[4] != "—" {
			in += "S"
		}
		if r[5] == "yes" {
			in += "T"
		}
		found := false
		for _, l := range lines {
			f := strings.Fields(l)
			if strings.HasPrefix(l, "  ") && len(f) > 5 && f[0] == name {
				found = true
				if f[1] != unit || f[2] != better || f[3] != in || f[4] != "§"+section || !strings.HasSuffix(l, " "+meaning) {
					t.Errorf("%s: 'simulate help metrics' says %q, docs/metrics.md §18 %s, %s, %s, §%s, %q", name, l, unit, better, in, section, meaning)
				}
			}
		}
		if !found {
			t.Errorf("'simulate help metrics' lacks %s", name)
		}
	}
	var p comment.Printer
	all := string(p.Text(renderedPackageDoc(t, "../../results", "github.com/overloadsim/overloadsim/results")))
	_, rec, ok := strings.Cut(all, "\n# Recovery\n\n")
	if !ok {
		t.Fatalf("go doc ./results has no section Recovery:\n%s", all)
	}
	if i := strings.Index(rec, "\n# "); i >= 0 {
		rec = rec[:i]
	}
	if want := "\n\n" + rec; !strings.HasSuffix(out.String(), want) {
		t.Errorf("'simulate help metrics' does not end with go doc ./results's section Recovery:\n%s", want)
	}
}

// lineDiff returns the first line at which got departs from want, with its neighbours.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		if i >= len(w) || i >= len(g) || w[i] != g[i] {
			return fmt.Sprintf("line %d: want %q, got %q", i+1, at(w, i), at(g, i))
		}
	}
	return "(equal)"
}

func at(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "(end)"
}
