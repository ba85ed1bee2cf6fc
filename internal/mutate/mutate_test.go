package main

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	const good = `# a comment
mutant: quota-exact
pins: a retry is admitted at exactly its cost
file: client/retry/aws.go
old: if q < cost {
new: if q <= cost {
killer: ./client/retry TestQuota

mutant: drop-refund
pins: a success refunds
file: client/retry/aws.go
old: q += refund
new:
occurrence: 2
killer: ./client/retry Test(Quota|Refund)
`
	ms, err := parse("good.txt", good)
	if err != nil {
		t.Fatalf("parse(good) = %v", err)
	}
	want := []Mutant{
		{Name: "quota-exact", Pins: "a retry is admitted at exactly its cost", File: "client/retry/aws.go", Old: "if q < cost {", New: "if q <= cost {", Package: "./client/retry", Test: "TestQuota", Where: "good.txt:2"},
		{Name: "drop-refund", Pins: "a success refunds", File: "client/retry/aws.go", Old: "q += refund", New: "", Occ: 2, Package: "./client/retry", Test: "Test(Quota|Refund)", Where: "good.txt:9"},
	}
	if len(ms) != len(want) {
		t.Fatalf("parse(good) gave %d mutants, want %d", len(ms), len(want))
	}
	for i := range want {
		if ms[i] != want[i] {
			t.Errorf("parse(good)[%d] = %+v, want %+v", i, ms[i], want[i])
		}
	}
	if got := ms[0].RunPattern(); got != "^TestQuota$" {
		t.Errorf("RunPattern(plain name) = %q, want it anchored", got)
	}
	if got := ms[1].RunPattern(); got != "Test(Quota|Refund)" {
		t.Errorf("RunPattern(regexp) = %q, want it as written", got)
	}
}

func TestParseRefuses(t *testing.T) {
	block := func(over map[string]string) string {
		kv := map[string]string{"mutant": "m", "pins": "p", "file": "a/b.go", "old": "x", "new": "y", "killer": "./a TestX"}
		for k, v := range over {
			kv[k] = v
		}
		var b strings.Builder
		for _, k := range keys {
			if v, ok := kv[k]; ok && v != "-" {
				b.WriteString(k + ": " + v + "\n")
			}
		}
		return b.String()
	}
	for _, tc := range []struct {
		gloss, text, want string
	}{
		{"missing killer", block(map[string]string{"killer": "-"}), "t.txt:1: killer: \"\": missing"},
		{"name with capitals", block(map[string]string{"mutant": "Bad_Name"}), "mutant: \"Bad_Name\": must be lower-case words"},
		{"file outside the module", block(map[string]string{"file": "../x.go"}), "file: \"../x.go\": must be a clean relative path"},
		{"absolute file", block(map[string]string{"file": "/etc/x.go"}), "must be a clean relative path"},
		{"a test file", block(map[string]string{"file": "a/b_test.go"}), "must be a source file, not a test"},
		{"old equals new", block(map[string]string{"new": "x"}), "new: \"x\": must differ from old"},
		{"occurrence zero", block(map[string]string{"occurrence": "0"}), "occurrence: \"0\": must be a whole number ≥ 1"},
		{"killer without a test", block(map[string]string{"killer": "./a"}), "must be a package and a test"},
		{"killer with a pattern", block(map[string]string{"killer": "./... TestX"}), "one ./path inside the module"},
		{"killer regexp broken", block(map[string]string{"killer": "./a Test("}), "not a regular expression"},
		{"unknown key", "mutant: m\ncolour: red\n", "t.txt:2: colour: \"red\": unknown key"},
		{"block not starting with mutant", "pins: p\n", "t.txt:1: pins: \"p\": a block starts with mutant:"},
		{"key twice", "mutant: m\nmutant: n\n", "t.txt:2: mutant: \"n\": given twice in one block (first on line 1)"},
		{"not key value", "mutant: m\nhello\n", "t.txt:2: : \"hello\": a line is key: value"},
		{"duplicate names", block(nil) + "\n" + block(nil), "mutant: \"m\": names must be unique (also at t.txt:1)"},
	} {
		_, err := parse("t.txt", tc.text)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: parse = %v, want an error containing %q", tc.gloss, err, tc.want)
		}
	}
}

func TestApply(t *testing.T) {
	src := "a\n\tif x < y {\n\tz := 1\n\tz := 1\n"
	for _, tc := range []struct {
		gloss string
		m     Mutant
		want  string
		err   string
		line  int
	}{
		{"one line, spaces kept", Mutant{Old: "x < y", New: "x <= y"}, "a\n\tif x <= y {\n\tz := 1\n\tz := 1\n", "", 2},
		{"dropped text", Mutant{Old: "if x < y {", New: ""}, "a\n\t\n\tz := 1\n\tz := 1\n", "", 2},
		{"second occurrence", Mutant{Old: "z := 1", New: "z := 2", Occ: 2}, "a\n\tif x < y {\n\tz := 1\n\tz := 2\n", "", 4},
		{"not unique", Mutant{Old: "z := 1", New: "z := 2"}, "", "on 2 lines of f.go (line 3, line 4)", 3},
		{"not found", Mutant{Old: "w", New: "v"}, "", "not found in f.go", 0},
		{"occurrence past the end", Mutant{Old: "z := 1", New: "q", Occ: 3}, "", "has only 2 lines holding old", 0},
	} {
		tc.m.File, tc.m.Name = "f.go", "m"
		got, err := tc.m.Apply(src)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: Apply = %v, want an error containing %q", tc.gloss, err, tc.err)
			}
		} else if err != nil || got != tc.want {
			t.Errorf("%s: Apply = %q, %v, want %q", tc.gloss, got, err, tc.want)
		}
		if l := tc.m.Line(src); l != tc.line {
			t.Errorf("%s: Line = %d, want %d", tc.gloss, l, tc.line)
		}
	}
}

// TestProjectLists checks that every list in the repository parses and that each mutant still
// applies to the code it names, so a refactoring that moves a pinned line fails here, in the
// README's test command, rather than only when the mutants are run.
func TestProjectLists(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"-C", root, "-list"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("mutate -list = exit %d:\n%s", code, stderr.String())
	}
	if n := strings.Count(stdout.String(), "\n"); n == 0 {
		t.Fatal("mutate -list found no mutant in internal/mutate/mutants")
	}
}

// TestRunVerdicts runs the tool on testdata/mod, a tiny module with one mutant of each verdict.
func TestRunVerdicts(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command: skipped with -short")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
	root, err := filepath.Abs(filepath.Join("testdata", "mod"))
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"-C", root, "-j", "2", filepath.Join(root, "mutants.txt")}, &stdout, &stderr)
	if code != 1 {
		t.Errorf("exit = %d, want 1 (a mutant survives); stderr:\n%s", code, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{
		`(?m)^killed\s+max-compare\s+calc.go:6`,
		`(?m)^SURVIVED\s+abs-untested\s+calc.go:15`,
		`(?m)^INVALID\s+does-not-build\s+calc.go:15`,
		`(?m)^3 mutants: 1 killed, 1 survived, 1 invalid$`,
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("output lacks %s:\n%s", want, out)
		}
	}

	// Only the killed mutant: exit 0.
	stdout.Reset()
	if code := run(context.Background(), []string{"-C", root, "-run", "^max-", filepath.Join(root, "mutants.txt")}, &stdout, &stderr); code != 0 {
		t.Errorf("-run ^max-: exit = %d, want 0:\n%s", code, stdout.String())
	}
}

func FuzzParse(f *testing.F) {
	f.Add("mutant: a\npins: p\nfile: a.go\nold: x\nnew: y\nkiller: ./a TestA\n")
	f.Add("mutant: a\nmutant: b\n\n# c\nold:\n")
	f.Fuzz(func(t *testing.T, text string) {
		ms, err := parse("f.txt", text)
		if err != nil {
			return
		}
		for _, m := range ms {
			if m.Name == "" || m.Old == "" || m.Old == m.New || m.Package == "" || m.Test == "" {
				t.Errorf("parse accepted an incomplete mutant %+v from %q", m, text)
			}
		}
	})
}
