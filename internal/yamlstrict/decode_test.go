package yamlstrict_test

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/internal/yamlstrict"
)

// plain adds nothing to the decoder but defaults: a struct with a SetDefaults method starts
// from them.
type plain struct{}

func (plain) Expand(reflect.StructField, int, []string) ([]yamlstrict.Field, bool) { return nil, false }
func (plain) Write(reflect.Value, yamlstrict.Field) (*yamlstrict.Node, bool)       { return nil, false }
func (plain) Read(*yamlstrict.Node, reflect.Value, string, yamlstrict.Field) bool  { return false }
func (plain) ReadScalar(reflect.Value, string, yamlstrict.Field) (string, bool)    { return "", false }
func (plain) Defaults(v reflect.Value) {
	if d, ok := v.Addr().Interface().(interface{ SetDefaults() }); ok {
		d.SetDefaults()
	}
}

type server struct {
	Name    string         `yaml:"name"`
	Timeout time.Duration  `yaml:"timeout"`
	Weight  float64        `yaml:"weight,omitzero"`
	Tags    []string       `yaml:"tags"`
	Limits  map[string]int `yaml:"limits"`
}

func (s *server) SetDefaults() { s.Timeout = time.Second }

var input = yamlstrict.Input{What: "a test file", MaxBytes: 1 << 10}

// A document decodes strictly into a struct, from its defaults, and its canonical text reads
// back to the same tree.
func ExampleDecoder() {
	tree, errs := input.Parse([]byte("name: a\nlimits: {b: 2, a: 1}\ntags: [x, 'y z']\n"))
	if errs != nil {
		panic(errs[0])
	}
	var s server
	d := yamlstrict.NewDecoder(plain{}, nil)
	d.Decode(tree, &s)
	fmt.Println(len(d.Errors), s.Timeout, d.At["tags[1]"])
	fmt.Print(yamlstrict.Text(yamlstrict.Encode(reflect.ValueOf(s), yamlstrict.Field{}, plain{})))
	// Output:
	// 0 1s {3 11 }
	// name: a
	// timeout: 1s
	// tags: [x, y z]
	// limits: {a: 1, b: 2}
}

func TestDecodeProblems(t *testing.T) {
	tree, errs := input.Parse([]byte("nme: a\ntimeout: 5\nweight: x\ntags: {a: 1}\n"))
	if errs != nil {
		t.Fatal(errs[0])
	}
	var s server
	d := yamlstrict.NewDecoder(plain{}, nil)
	d.Decode(tree, &s)
	var got []string
	for _, e := range d.Errors {
		got = append(got, e.Error())
	}
	want := []string{
		"1:1: (top level): nme: unknown field; did you mean name?",
		"2:0: timeout: 5: must be a duration with a unit, such as 250ms or 1m30s",
		"3:0: weight: x: must be a finite number",
		"4:0: tags: {a: 1}: must be a list",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !d.Failed("tags") || d.Failed("name") {
		t.Errorf("Failed(tags) = %v, Failed(name) = %v; want true, false", d.Failed("tags"), d.Failed("name"))
	}
	d.ProblemAt("tags", "v", "rule") // already failed: one problem per field
	d.ProblemAt("limits.a", "v", "rule")
	if n := len(d.Errors); n != 5 || d.Errors[4].Line != 0 {
		t.Errorf("after ProblemAt: %d problems, last %v; want 5, the last without a line", n, d.Errors[n-1])
	}
}

func TestSetAndLookup(t *testing.T) {
	tree, errs := input.Parse([]byte("a: {b: [1, 2]}\n"))
	if errs != nil {
		t.Fatal(errs[0])
	}
	v, rule := input.ParseValue("{c: 3}")
	if rule != "" {
		t.Fatal(rule)
	}
	v.MarkOverride("--set a.b[2]={c: 3}")
	if err := tree.Set("a.b[2]", v); err != nil {
		t.Fatal(err)
	}
	if err := tree.Set("x.y", yamlstrict.NewScalar("z")); err != nil {
		t.Fatal(err)
	}
	if got := yamlstrict.Flow(tree); got != "{a: {b: [1, 2, {c: 3}]}, x: {y: z}}" {
		t.Errorf("tree = %s", got)
	}
	if n := tree.Lookup("a.b[2].c"); n == nil || n.Text != "3" || n.Pos.Override != "--set a.b[2]={c: 3}" {
		t.Errorf("Lookup(a.b[2].c) = %+v", n)
	}
	for path, want := range map[string]string{
		"a.b[4]":  `path "a.b[4]": a.b has 3 entries; index 4 is out of range`,
		"a.b.c":   `path "a.b.c": a.b is not a mapping`,
		"a[0]":    `path "a[0]": a is not a list`,
		"a..b":    `path "a..b": empty field name`,
		"a.b[-1]": `path "a.b[-1]": index "-1": want an integer ≥ 0`,
	} {
		if err := tree.Clone().Set(path, yamlstrict.NewScalar("v")); err == nil || err.Error() != want {
			t.Errorf("Set(%s) = %v, want %s", path, err, want)
		}
	}
}

func TestParseProblems(t *testing.T) {
	for doc, want := range map[string]string{
		"a: 1\n---\nb: 2\n":       "3:2: (document): 2 documents: a test file holds exactly one YAML document",
		"a: 1\na: 2\n":            "2:1: (syntax): \"a\": mapping key \"a\" already defined at [1:1]",
		"a: *x\n":                 "1:4: (syntax): *x: unknown alias",
		strings.Repeat("#", 2000): "0:0: (file): 2000 bytes: a test file holds at most 1 KiB (1024 bytes)",
		"<<: {a: 1}\n":            "1:1: (syntax): <<: merge keys are not supported; repeat the fields",
	} {
		_, errs := input.Parse([]byte(doc))
		if len(errs) == 0 || errs[0].Error() != want {
			t.Errorf("Parse(%.20q) = %v, want %s", doc, errs, want)
		}
	}
}

// FuzzParse: the parser never panics or returns a tree without its problems on any input;
// what it reads writes out (Text, Flow) as text that reads back to the same tree, and a copy
// of it (Clone) writes out the same.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"a: 1\n", "a: {b: [1, 'x y', \"\\t\"]}\n", "- a\n- b: c\n  d: [e]\n", "a: &x [1]\nb: *x\n", "a: |\n  text\n"} {
		f.Add([]byte(s))
	}
	// Scalars that are plain text to the parser only when quoted (TestTextRoundTrip).
	for _, s := range specialScalars {
		f.Add([]byte("a: " + strconv.Quote(s) + "\n" + strconv.Quote(s) + ": [" + strconv.Quote(s) + "]\n"))
	}
	big := yamlstrict.Input{What: "a fuzz input", MaxBytes: 1 << 16}
	f.Fuzz(func(t *testing.T, data []byte) {
		tree, errs := big.Parse(data)
		if (tree == nil) == (errs == nil) {
			t.Fatalf("Parse = %v, %v: want a tree or problems", tree, errs)
		}
		if errs != nil {
			return
		}
		text, flow := yamlstrict.Text(tree), yamlstrict.Flow(tree)
		if c := tree.Clone(); yamlstrict.Text(c) != text || yamlstrict.Flow(c) != flow || c.Count() != tree.Count() {
			t.Fatalf("the copy of %q writes out differently", text)
		}
		if err := readsBack(tree); err != nil {
			t.Fatal(err)
		}
	})
}
