package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// A Mutant is one single-line change to a source file that breaks one rule, and the test that
// must fail when the change is made.
type Mutant struct {
	Name    string // unique, lower-case words joined by hyphens
	Pins    string // the rule the mutant breaks, and where the rule is written
	File    string // the source file, relative to the module root, slash-separated
	Old     string // text that occurs on exactly one line of File (or on the Occurrence-th)
	New     string // what replaces Old on that line; empty drops it
	Occ     int    // which line holding Old, 1-based; 0 means Old must be on one line only
	Package string // the killer's package pattern, ./client/retry
	Test    string // the killer's test name, or a regular expression for go test -run
	Where   string // the list file and line of the mutant's first key, for messages
}

// keys are the fields of a mutant block, in the order they are written. Every one but
// occurrence is required.
var keys = []string{"mutant", "pins", "file", "old", "new", "occurrence", "killer"}

var nameRule = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// maxListBytes bounds a list file: lists are written by hand, a few kilobytes each.
const maxListBytes = 1 << 20

// ParseFile reads one mutant list file; see parse for the format.
func ParseFile(path string) ([]Mutant, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxListBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxListBytes {
		return nil, fmt.Errorf("%s: larger than %d bytes: a mutant list is a hand-written file", path, maxListBytes)
	}
	return parse(filepath.ToSlash(path), string(data))
}

// parse reads a mutant list: blocks of "key: value" lines separated by blank lines, # for
// comments. It reports every problem at once, each as FILE:LINE: key: value: rule.
func parse(name, text string) ([]Mutant, error) {
	var (
		out   []Mutant
		probs []string
		cur   map[string]string
		lines map[string]int
		start int
	)
	bad := func(line int, key, value, rule string) {
		if len(value) > 60 {
			value = value[:60] + "…"
		}
		probs = append(probs, fmt.Sprintf("%s:%d: %s: %q: %s", name, line, key, value, rule))
	}
	flush := func() {
		if cur == nil {
			return
		}
		m := Mutant{Where: fmt.Sprintf("%s:%d", name, start)}
		for _, k := range keys {
			if _, ok := cur[k]; !ok && k != "occurrence" {
				bad(start, k, "", "missing: every mutant has mutant, pins, file, old, new and killer")
			}
		}
		m.Name, m.Pins, m.File, m.Old, m.New = cur["mutant"], cur["pins"], cur["file"], cur["old"], cur["new"]
		if _, ok := cur["mutant"]; ok && !nameRule.MatchString(m.Name) {
			bad(lines["mutant"], "mutant", m.Name, "must be lower-case words joined by hyphens")
		}
		if _, ok := cur["pins"]; ok && m.Pins == "" {
			bad(lines["pins"], "pins", m.Pins, "must say which rule the mutant breaks")
		}
		if _, ok := cur["file"]; ok {
			clean := filepath.ToSlash(filepath.Clean(m.File))
			if m.File == "" || filepath.IsAbs(m.File) || strings.HasPrefix(clean, "../") || clean == ".." || clean != m.File || !strings.HasSuffix(m.File, ".go") {
				bad(lines["file"], "file", m.File, "must be a clean relative path to a .go file inside the module")
			} else if strings.HasSuffix(m.File, "_test.go") {
				bad(lines["file"], "file", m.File, "must be a source file, not a test: a mutant breaks the code a test pins")
			}
		}
		if _, ok := cur["old"]; ok && m.Old == "" {
			bad(lines["old"], "old", m.Old, "must not be empty")
		}
		if _, ok := cur["old"]; ok && m.Old == m.New {
			bad(lines["new"], "new", m.New, "must differ from old")
		}
		if v, ok := cur["occurrence"]; ok {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				bad(lines["occurrence"], "occurrence", v, "must be a whole number ≥ 1")
			}
			m.Occ = n
		}
		if v, ok := cur["killer"]; ok {
			pkg, test, found := strings.Cut(v, " ")
			test = strings.TrimSpace(test)
			switch {
			case !found || test == "":
				bad(lines["killer"], "killer", v, "must be a package and a test: ./client/retry TestName")
			case (pkg != "." && !strings.HasPrefix(pkg, "./")) || strings.Contains(pkg, "..."):
				bad(lines["killer"], "killer", v, "the package must be one ./path inside the module")
			default:
				if _, err := regexp.Compile(test); err != nil {
					bad(lines["killer"], "killer", v, "the test is not a regular expression: "+err.Error())
				}
			}
			m.Package, m.Test = pkg, test
		}
		out = append(out, m)
		cur = nil
	}
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 64*1024), maxListBytes)
	n := 0
	for sc.Scan() {
		n++
		raw := sc.Text()
		line := strings.TrimSpace(raw)
		if line == "" {
			flush()
			continue
		}
		if strings.HasPrefix(line, "#") {
			continue
		}
		key, value, ok := strings.Cut(line, ":")
		if !ok {
			bad(n, "", line, "a line is key: value, a # comment or blank")
			continue
		}
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		known := false
		for _, k := range keys {
			known = known || k == key
		}
		if !known {
			bad(n, key, value, "unknown key: the keys are "+strings.Join(keys, ", "))
			continue
		}
		if cur == nil {
			if key != "mutant" {
				bad(n, key, value, "a block starts with mutant:")
			}
			cur, lines, start = map[string]string{}, map[string]int{}, n
		}
		if _, dup := cur[key]; dup {
			bad(n, key, value, fmt.Sprintf("given twice in one block (first on line %d)", lines[key]))
			continue
		}
		cur[key], lines[key] = value, n
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	flush()
	seen := map[string]string{}
	for _, m := range out {
		if m.Name == "" {
			continue
		}
		if w, dup := seen[m.Name]; dup {
			probs = append(probs, fmt.Sprintf("%s: mutant: %q: names must be unique (also at %s)", m.Where, m.Name, w))
		}
		seen[m.Name] = m.Where
	}
	if len(probs) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(probs, "\n"))
	}
	return out, nil
}

// Apply returns src with the mutant's change made, or an error naming the mutant when its Old
// text is not on exactly one line (or on fewer lines than its Occurrence).
func (m Mutant) Apply(src string) (string, error) {
	lines := strings.SplitAfter(src, "\n")
	var at []int
	for i, l := range lines {
		if strings.Contains(l, m.Old) {
			at = append(at, i)
		}
	}
	var i int
	switch {
	case len(at) == 0:
		return "", fmt.Errorf("%s: mutant %s: old: %q: not found in %s (has the code moved? update the list)", m.Where, m.Name, m.Old, m.File)
	case m.Occ == 0 && len(at) > 1:
		return "", fmt.Errorf("%s: mutant %s: old: %q: on %d lines of %s (%s): give a longer text or occurrence", m.Where, m.Name, m.Old, len(at), m.File, lineList(at))
	case m.Occ > len(at):
		return "", fmt.Errorf("%s: mutant %s: occurrence: %d: %s has only %d lines holding old", m.Where, m.Name, m.Occ, m.File, len(at))
	case m.Occ > 0:
		i = at[m.Occ-1]
	default:
		i = at[0]
	}
	if strings.Count(lines[i], m.Old) > 1 {
		return "", fmt.Errorf("%s: mutant %s: old: %q: twice on line %d of %s: give a longer text", m.Where, m.Name, m.Old, i+1, m.File)
	}
	lines[i] = strings.Replace(lines[i], m.Old, m.New, 1)
	return strings.Join(lines, ""), nil
}

// Line is the 1-based line Apply changes, for reports; 0 when Apply would fail.
func (m Mutant) Line(src string) int {
	k := 0
	for i, l := range strings.SplitAfter(src, "\n") {
		if strings.Contains(l, m.Old) {
			k++
			if m.Occ == 0 || k == m.Occ {
				return i + 1
			}
		}
	}
	return 0
}

func lineList(at []int) string {
	s := make([]string, len(at))
	for i, a := range at {
		s[i] = "line " + strconv.Itoa(a+1)
	}
	return strings.Join(s, ", ")
}

// RunPattern is the -run argument that selects the killer: a plain test name is anchored, so
// TestX does not also run TestXY; anything else is passed as written.
func (m Mutant) RunPattern() string {
	if regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`).MatchString(m.Test) {
		return "^" + m.Test + "$"
	}
	return m.Test
}
