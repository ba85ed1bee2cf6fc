package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestReadmeSweepAnswer runs the README's first sweep and checks that the answer the README
// quotes is the one the command prints (the README's "A first sweep"): a quoted answer that no
// longer matches the tool is a planner misled.
func TestReadmeSweepAnswer(t *testing.T) {
	src, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	section := string(src)
	i := strings.Index(section, "### A first sweep")
	if i < 0 {
		t.Fatal("README.md has no section \"A first sweep\"")
	}
	section = section[i:]
	command := fenced(t, section, "```sh\n")
	quoted := fenced(t, section, "```text\n")

	args := shellWords(strings.TrimPrefix(strings.ReplaceAll(command, "\\\n", " "), "go run ./cmd/simulate "))
	for j := range args {
		if j > 0 && args[j-1] == "--out" {
			args[j] = t.TempDir()
		}
	}
	var out, errb bytes.Buffer
	if got := run(args, &out, &errb); got != exitOK {
		t.Fatalf("simulate %q = %d; stderr:\n%s", args, got, errb.String())
	}
	printed := out.String()
	if k := strings.Index(printed, "\n\n"); k >= 0 {
		printed = printed[k+2:]
	}
	if printed != quoted {
		t.Errorf("README.md quotes the sweep's answer as\n%s\nbut the command prints\n%s", quoted, printed)
	}
}

// fenced returns the body of the first code block in text that opens with fence.
func fenced(t *testing.T, text, fence string) string {
	t.Helper()
	i := strings.Index(text, fence)
	if i < 0 {
		t.Fatalf("no %q block", strings.TrimSpace(fence))
	}
	body := text[i+len(fence):]
	j := strings.Index(body, "```")
	if j < 0 {
		t.Fatalf("unclosed %q block", strings.TrimSpace(fence))
	}
	return body[:j]
}

// shellWords splits a command line as a POSIX shell would for the README's commands: words
// separated by blanks, single quotes kept together.
func shellWords(line string) []string {
	var words []string
	var w strings.Builder
	in, quoted := false, false
	for _, r := range line {
		switch {
		case r == '\'':
			quoted, in = !quoted, true
		case !quoted && (r == ' ' || r == '\t' || r == '\n'):
			if in {
				words = append(words, w.String())
				w.Reset()
				in = false
			}
		default:
			w.WriteRune(r)
			in = true
		}
	}
	if in {
		words = append(words, w.String())
	}
	return words
}
