package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A transcript is a golden file that interleaves commands with the output each must produce, so
// that someone who knows the rules but not the code can read what happens step by step. Its
// format is that of datadriven test files (github.com/cockroachdb/datadriven, as etcd-io/raft
// uses them):
//
//	# A comment: lines starting with # and blank lines are kept as written.
//	advance 10ms
//	----
//	tokens 5.5 at 10ms
//
//	take n=3
//	----
//	admitted 3; tokens 2.5
//
// A command is one line: a name, then arguments separated by spaces, each a bare word or
// key=value. The "----" line ends it; its output follows, up to the next blank line or the end
// of the file. An output that itself contains blank lines is written between two doubled
// separators ("----" twice before it and twice after it).
//
// Transcript replays a file through a function that returns each command's output and compares
// it with the file; under -update (the repository's one golden flag) it writes the outputs back
// into the file instead, keeping the comments and commands exactly as written.

// separator ends a command and starts its output.
const separator = "----"

// Command is one command of a transcript.
type Command struct {
	// Pos is where the command is, as file:line, for messages.
	Pos string
	// Name is the command's first word.
	Name string
	// Args are the words after the name, as written: bare words and key=value pairs.
	Args []string
}

// String returns the command as written in the file.
func (c Command) String() string {
	return strings.Join(append([]string{c.Name}, c.Args...), " ")
}

// Has reports whether the command has the bare word key, or an argument key=value.
func (c Command) Has(key string) bool {
	_, ok := c.Arg(key)
	return ok
}

// Arg returns the value of the argument key=value, and whether there is such an argument; a
// bare word key has the value "".
func (c Command) Arg(key string) (string, bool) {
	for _, a := range c.Args {
		k, v, _ := strings.Cut(a, "=")
		if k == key {
			return v, true
		}
	}
	return "", false
}

// step is one command of a parsed transcript, with the lines before it (comments and blank
// lines, kept verbatim) and the output the file holds for it, without its final newline.
type step struct {
	before []string
	cmd    Command
	want   string
}

// parseTranscript reads a transcript; name is used in positions. tail holds the lines after
// the last command's output.
func parseTranscript(name, data string) (steps []step, tail []string, err error) {
	data = strings.ReplaceAll(data, "\r\n", "\n")
	lines := strings.Split(data, "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1] // the final newline
	}
	var before []string
	for i := 0; i < len(lines); {
		l := strings.TrimSpace(lines[i])
		if l == "" || strings.HasPrefix(l, "#") {
			before = append(before, lines[i])
			i++
			continue
		}
		start := i
		words := strings.Fields(l)
		cmd := Command{Pos: fmt.Sprintf("%s:%d", name, start+1), Name: words[0], Args: words[1:]}
		i++
		if i >= len(lines) || lines[i] != separator {
			return nil, nil, fmt.Errorf("%s:%d: %q is not followed by a %q line", name, start+1, l, separator)
		}
		i++
		var out []string
		if i < len(lines) && lines[i] == separator { // doubled: the output may hold blank lines
			i++
			for ; ; i++ {
				if i+1 >= len(lines) {
					return nil, nil, fmt.Errorf("%s:%d: the output of %q opens with %q twice and is never closed", name, start+1, l, separator)
				}
				if lines[i] == separator && lines[i+1] == separator {
					i += 2
					break
				}
				out = append(out, lines[i])
			}
		} else {
			for ; i < len(lines) && strings.TrimSpace(lines[i]) != ""; i++ {
				out = append(out, lines[i])
			}
		}
		steps = append(steps, step{before: before, cmd: cmd, want: strings.Join(out, "\n")})
		before = nil
	}
	return steps, before, nil
}

// formatOutput returns a command's output as the file holds it after the separator: between
// doubled separators if it has a blank line, and with a final newline unless it is empty.
func formatOutput(out string) string {
	if out == "" {
		return ""
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.TrimSpace(l) == "" {
			return separator + "\n" + out + "\n" + separator + "\n" + separator + "\n"
		}
	}
	return out + "\n"
}

// maxReported is how many differing commands a failing transcript shows in full.
const maxReported = 3

// Transcript replays the transcript at path: it calls do for each command in order and compares
// what do returns (final newlines aside) with the output in the file. A command whose output
// differs fails the test, naming its position and both outputs; the commands after it still run
// (their state follows from the commands, not from the outputs), and past the first few
// differences only their number is reported. Under -update the file is rewritten with the
// outputs do returned. do may call t.Fatal for a command it does not understand.
func Transcript(t *testing.T, path string, do func(t *testing.T, c Command) string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (write the transcript's commands, then run the test with -update)", err)
	}
	steps, tail, err := parseTranscript(path, string(data))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	differ := 0
	for _, s := range steps {
		for _, l := range s.before {
			b.WriteString(l + "\n")
		}
		b.WriteString(s.cmd.String() + "\n" + separator + "\n")
		got := strings.TrimRight(do(t, s.cmd), "\n")
		b.WriteString(formatOutput(got))
		if *update || got == s.want {
			continue
		}
		if differ++; differ <= maxReported {
			t.Errorf("%s: %s\n got:\n%s\nwant:\n%s", s.cmd.Pos, s.cmd, indent(got), indent(s.want))
		}
	}
	for _, l := range tail {
		b.WriteString(l + "\n")
	}
	if differ > maxReported {
		t.Errorf("%s: %d more commands differ", path, differ-maxReported)
	}
	if differ > 0 {
		t.Errorf("%s: %d commands differ from the transcript (review the change, then rerun with -update)", path, differ)
	}
	if *update && b.String() != string(data) {
		if err := writeFile(path, []byte(b.String())); err != nil {
			t.Fatal(err)
		}
	}
}

// indent marks each line of s for a failure message, so that blank lines and an empty output
// show.
func indent(s string) string {
	if s == "" {
		return "  (nothing)"
	}
	return "  | " + strings.ReplaceAll(s, "\n", "\n  | ")
}

// writeFile writes data to path under a temporary name and renames it, so that a file with its
// final name is always complete (docs/conventions.md §9).
func writeFile(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := firstErr(werr, cerr, os.Chmod(tmp.Name(), 0o644)); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
