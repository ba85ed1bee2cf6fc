package main

import (
	"bytes"
	"fmt"
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

// TestHelpGoDocPathsExist checks that every 'go doc ./PATH' a command's help points to names a
// package folder of the module, so that help does not send a reader to a package that moved.
func TestHelpGoDocPathsExist(t *testing.T) {
	re := regexp.MustCompile(`go doc \./([A-Za-z0-9_/]+)`)
	for name, cmd := range commands {
		for _, m := range re.FindAllStringSubmatch(cmd.usage, -1) {
			dir := filepath.Join("..", "..", filepath.FromSlash(m[1]))
			if files, _ := filepath.Glob(filepath.Join(dir, "*.go")); len(files) == 0 {
				t.Errorf("simulate %s's help points to 'go doc ./%s', which is no package of the module", name, m[1])
			}
		}
	}
}
