package golden

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// counter is the toy handler of testdata/counter.txt: add n=K [twice] adds K once or twice and
// reports each total; show reports the total, a blank line and a remark.
type counter struct {
	total int
	seen  []string
}

func (c *counter) do(t *testing.T, cmd Command) string {
	switch cmd.Name {
	case "add":
		n, _ := cmd.Arg("n")
		k, err := strconv.Atoi(n)
		if err != nil {
			t.Fatalf("%s: n=%q", cmd.Pos, n)
		}
		c.seen = append(c.seen, cmd.String())
		var out []string
		times := 1
		if cmd.Has("twice") {
			times = 2
		}
		for range times {
			c.total += k
			out = append(out, "total "+strconv.Itoa(c.total))
		}
		return strings.Join(out, "\n")
	case "show":
		return "total " + strconv.Itoa(c.total) + "\n\n(a blank line above)\n"
	}
	t.Fatalf("%s: unknown command %q", cmd.Pos, cmd)
	return ""
}

// TestTranscript runs the toy transcript: every command reaches the handler in order with its
// arguments, and the outputs, one with a blank line in it, match the file's.
func TestTranscript(t *testing.T) {
	if Updating() {
		t.Skip("-update would rewrite the toy transcript with itself")
	}
	var c counter
	Transcript(t, "testdata/counter.txt", c.do)
	if want := []string{"add n=2", "add n=3 twice"}; strings.Join(c.seen, "|") != strings.Join(want, "|") {
		t.Errorf("commands %q, want %q", c.seen, want)
	}
}

// TestParseTranscript: comments and blank lines are kept before their command, an output runs to
// the next blank line or between doubled separators, and a malformed file is an error naming its
// line.
func TestParseTranscript(t *testing.T) {
	steps, tail, err := parseTranscript("x", "# c\nnew a=1 b\n----\none\ntwo\n\nnext\n----\n\nshow\n----\n----\nx\n\ny\n----\n----\n# end\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 3 || steps[0].want != "one\ntwo" || steps[1].want != "" || steps[2].want != "x\n\ny" {
		t.Fatalf("steps %+v", steps)
	}
	if b := steps[0].before; len(b) != 1 || b[0] != "# c" {
		t.Errorf("lines before the first command %q, want the comment", b)
	}
	if c := steps[0].cmd; c.Name != "new" || !c.Has("b") || c.Has("c") || c.Pos != "x:2" || c.String() != "new a=1 b" {
		t.Errorf("command %+v", c)
	}
	if v, ok := steps[0].cmd.Arg("a"); !ok || v != "1" {
		t.Errorf("Arg(a) = %q, %v; want 1, true", v, ok)
	}
	if v, ok := steps[0].cmd.Arg("b"); !ok || v != "" {
		t.Errorf("Arg(b) = %q, %v; want \"\", true for a bare word", v, ok)
	}
	if len(tail) != 1 || tail[0] != "# end" {
		t.Errorf("tail %q, want the last comment", tail)
	}
	for _, bad := range []struct{ data, where string }{
		{"cmd\nno dashes\n", "x:1"},
		{"# c\n\ncmd\n", "x:3"},
		{"cmd\n----\n----\nopen\n", "x:1"},
	} {
		if _, _, err := parseTranscript("x", bad.data); err == nil || !strings.Contains(err.Error(), bad.where) {
			t.Errorf("parseTranscript(%q) gave %v, want an error at %s", bad.data, err, bad.where)
		}
	}
}

// TestTranscriptRewrite: under -update a transcript is rewritten with the new outputs, comments
// and commands kept, a blank line inside an output put between doubled separators; a second
// pass then finds nothing to change.
func TestTranscriptRewrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.txt")
	in := "# counter\nadd n=2\n----\nstale\n\nshow\n----\n\n# end\n"
	if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	saved := *update
	defer func() { *update = saved }()
	*update = true
	var c counter
	Transcript(t, path, c.do)
	got, _ := os.ReadFile(path)
	want := "# counter\nadd n=2\n----\ntotal 2\n\nshow\n----\n----\ntotal 2\n\n(a blank line above)\n----\n----\n\n# end\n"
	if string(got) != want {
		t.Fatalf("rewritten:\n%s\nwant:\n%s", got, want)
	}
	*update = false
	c = counter{}
	Transcript(t, path, c.do) // fails the test if the rewrite does not read back
}
