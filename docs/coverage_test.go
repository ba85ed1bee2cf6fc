// Package docs holds the repository's own documentation (see README.md in this folder). Its
// test keeps that documentation honest against the code:
//
//   - every row of the tables in spec-coverage.md names a Go test that exists, in the file the
//     row names, and, when the row names a case of that test, a case that exists;
//   - every spec test the repository replays has a row. The replays are found in the code, not
//     listed here: every Test function whose doc comment cites a specification or the model
//     (citeSource), and every named spec case inside a test's tables (caseTags);
//   - every § citation that names a file of this folder, in a Go comment or in a file of this
//     folder, resolves to a numbered heading of that file;
//   - no Go comment, and neither README, cites a design document that is not in the repository;
//   - metrics.md's catalogue table (§18), the sections it cites, and summary.schema.json agree
//     with the metric catalogue, results.Catalogue (metrics_test.go, schemas_test.go).
package docs

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// coverageFile is the table this test keeps complete, relative to this folder.
const coverageFile = "spec-coverage.md"

// tableHeader is the header row of a coverage table; other tables are not read.
var tableHeader = []string{"Spec test or rule", "Expected", "Go test", "File"}

// citeSource matches a doc comment that cites a public specification, a spec test, the server's
// source, or the model's documentation: a Test function with such a comment checks a rule the
// project models and must have a row in the coverage table. The alternatives are names of
// sources, not of tests.
var citeSource = regexp.MustCompile(strings.Join([]string{
	`docs/model\.md`,
	`https?://`,
	`Client Backpressure`, `client-backpressure`, `backpressure-[a-z]`, `getMore-retried`,
	`Retryable (Reads|Writes)`, `retryable-(reads|writes)`, `transactions/tests`,
	`[Pp]rose( test)? \d`,
	`server-selection`, `SDAM`, `CMAP`, `Connection Pool Backpressure`,
	`internal-client`, `RFC 0049`,
	`jstest`, `folly`, `backoff_with_jitter`, `retry_strategy`, `\w\.(cpp|h|idl|yml)\b`,
}, "|"))

// Named spec cases inside tests (caseTags).
var (
	// proseGloss is a table row's gloss that starts with a prose test of Retryable Reads or
	// Writes: "reads 2.1: …", "writes 6 case 1: …".
	proseGloss = regexp.MustCompile(`^((?:reads|writes) \d+(?:\.\d+)?(?: case \d+)?):`)
	// proseRun is a case name in a prose-test replay (a Test function named …Prose…) that
	// starts with the prose test's number: "3.1 2026-03 overload".
	proseRun = regexp.MustCompile(`^(\d+\.\d+) `)
	// specTestMention names a spec test file inside a string: "(spec test Name)".
	specTestMention = regexp.MustCompile(`spec test ([A-Za-z0-9_]+)`)
	// citeTag is the case name a cite-table entry appends to a spec test folder or prose list.
	citeTag = regexp.MustCompile(`^([A-Za-z0-9_.]+)`)
)

// sectionRef is a citation of numbered sections of a file of this folder: "docs/model.md §4.1",
// "metrics.md §13", "docs/conventions.md §6 and §7", across a line break in a comment too.
// Group 1 is the file, group 2 the first section, group 3 the rest of a list.
var sectionRef = regexp.MustCompile(`(?:docs/)?([a-z][a-z0-9-]*\.md)\s+§\s?(\d+(?:\.\d+)*)((?:\s*(?:,|and|or)\s*§\s?\d+(?:\.\d+)*)*)`)

// listedSection is one section number in the rest of a sectionRef list.
var listedSection = regexp.MustCompile(`§\s?(\d+(?:\.\d+)*)`)

// sections returns the section numbers a sectionRef match cites.
func sections(m []string) []string {
	out := []string{m[2]}
	for _, l := range listedSection.FindAllStringSubmatch(m[3], -1) {
		out = append(out, l[1])
	}
	return out
}

// bareSectionRef is a § citation without a file name; inside a file of this folder it refers to
// that file.
var bareSectionRef = regexp.MustCompile(`(^|[^\w.])§\s?(\d+(?:\.\d+)*)`)

// numberedHeading is a section heading that can be cited: "## 4. …" or "### 4.1 …".
var numberedHeading = regexp.MustCompile(`^#{2,4} (\d+(?:\.\d+)*)\.? `)

// outsideDoc is a citation of a design document kept outside the repository. (The names are
// spelled with classes so that a plain search for them finds none in the repository.)
var outsideDoc = regexp.MustCompile(`\b(MODEL-FACT[S]|DESIG[N]|STYL[E]|POLICIE[S])(\.md)?\s+(§|rule|section)`)

// moduleRoot is the repository's root: the folder above this one.
func moduleRoot(t *testing.T) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot locate the test file")
	}
	return filepath.Dir(filepath.Dir(file))
}

// goFile is one parsed Go file of the module.
type goFile struct {
	rel  string // slash-separated, relative to the module root
	fset *token.FileSet
	f    *ast.File
}

// loadGoFiles parses every Go file of the module with its comments, skipping hidden folders and
// testdata.
func loadGoFiles(t *testing.T, root string) []*goFile {
	t.Helper()
	var out []*goFile
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		out = append(out, &goFile{rel: filepath.ToSlash(rel), fset: fset, f: f})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].rel < out[j].rel })
	return out
}

// testFunc is a top-level Test function.
type testFunc struct {
	file *goFile
	decl *ast.FuncDecl
	pkg  []*goFile // the files of its package, for the package-level tables it reads
}

func (tf *testFunc) name() string { return tf.decl.Name.Name }

// isTestFunc reports whether d is a test the go tool runs: func TestXxx(t *testing.T).
func isTestFunc(d *ast.FuncDecl) bool {
	n := d.Name.Name
	if d.Recv != nil || !strings.HasPrefix(n, "Test") || n == "TestMain" {
		return false
	}
	if r, _ := utf8.DecodeRuneInString(n[len("Test"):]); unicode.IsLower(r) {
		return false // Testify is not a test
	}
	p := d.Type.Params
	if p == nil || len(p.List) != 1 {
		return false
	}
	star, ok := p.List[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	sel, ok := star.X.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "T"
}

// testFuncs returns the Test functions of the module's _test.go files by file, then name.
func testFuncs(files []*goFile) map[string]map[string]*testFunc {
	byPkg := map[string][]*goFile{} // folder + package name
	for _, gf := range files {
		key := filepath.Dir(gf.rel) + " " + gf.f.Name.Name
		byPkg[key] = append(byPkg[key], gf)
	}
	out := map[string]map[string]*testFunc{}
	for _, gf := range files {
		if !strings.HasSuffix(gf.rel, "_test.go") {
			continue
		}
		for _, d := range gf.f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || !isTestFunc(fd) {
				continue
			}
			if out[gf.rel] == nil {
				out[gf.rel] = map[string]*testFunc{}
			}
			out[gf.rel][fd.Name.Name] = &testFunc{file: gf, decl: fd,
				pkg: byPkg[filepath.Dir(gf.rel)+" "+gf.f.Name.Name]}
		}
	}
	return out
}

// reach returns the expressions a test's cases live in: its body, and the values of the
// package-level variables its body names (tables such as var cases = []struct{…}{…}).
func (tf *testFunc) reach() []ast.Node {
	nodes := []ast.Node{tf.decl.Body}
	used := map[string]bool{}
	ast.Inspect(tf.decl.Body, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			used[id.Name] = true
		}
		return true
	})
	for _, gf := range tf.pkg {
		for _, d := range gf.f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, s := range gd.Specs {
				vs := s.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if used[n.Name] && i < len(vs.Values) {
						nodes = append(nodes, vs.Values[i])
					}
				}
			}
		}
	}
	return nodes
}

// literals returns the string literals a test reaches.
func (tf *testFunc) literals() []string {
	var out []string
	for _, n := range tf.reach() {
		ast.Inspect(n, func(n ast.Node) bool {
			if bl, ok := n.(*ast.BasicLit); ok && bl.Kind == token.STRING {
				if s, err := strconv.Unquote(bl.Value); err == nil {
					out = append(out, s)
				}
			}
			return true
		})
	}
	return out
}

// hasCase reports whether a literal the test reaches contains tag as a whole word: not
// preceded or followed by a letter, digit, underscore or dot.
func (tf *testFunc) hasCase(tag string) bool {
	word := func(b byte) bool {
		return b == '_' || b == '.' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
	}
	for _, s := range tf.literals() {
		for i := 0; ; {
			j := strings.Index(s[i:], tag)
			if j < 0 {
				break
			}
			j += i
			end := j + len(tag)
			if (j == 0 || !word(s[j-1])) && (end == len(s) || !word(s[end])) {
				return true
			}
			i = j + 1
		}
	}
	return false
}

// stringConsts returns the string constants declared in a file, resolving concatenations of
// literals and earlier constants.
func stringConsts(gf *goFile) map[string]string {
	out := map[string]string{}
	var eval func(e ast.Expr) (string, bool)
	eval = func(e ast.Expr) (string, bool) {
		switch e := e.(type) {
		case *ast.BasicLit:
			if e.Kind != token.STRING {
				return "", false
			}
			s, err := strconv.Unquote(e.Value)
			return s, err == nil
		case *ast.Ident:
			s, ok := out[e.Name]
			return s, ok
		case *ast.BinaryExpr:
			if e.Op != token.ADD {
				return "", false
			}
			x, ok1 := eval(e.X)
			y, ok2 := eval(e.Y)
			return x + y, ok1 && ok2
		case *ast.ParenExpr:
			return eval(e.X)
		}
		return "", false
	}
	for _, d := range gf.f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, s := range gd.Specs {
			vs := s.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if i < len(vs.Values) {
					if v, ok := eval(vs.Values[i]); ok {
						out[n.Name] = v
					}
				}
			}
		}
	}
	return out
}

// caseTags returns the named spec cases a test reaches: prose-test glosses ("reads 2.1"),
// prose case names in a prose replay ("3.1"), "spec test Name" mentions, and cite-table entries
// that append a case to a constant naming a spec test folder or a prose list
// (specSel + "DeprioritizedPrimary", specRR + "3.1").
func (tf *testFunc) caseTags() []string {
	seen := map[string]bool{}
	var out []string
	add := func(tag string) {
		if tag != "" && !seen[tag] {
			seen[tag] = true
			out = append(out, tag)
		}
	}
	prose := strings.Contains(tf.name(), "Prose")
	for _, s := range tf.literals() {
		if m := proseGloss.FindStringSubmatch(s); m != nil {
			add(m[1])
		}
		if m := proseRun.FindStringSubmatch(s); prose && m != nil {
			add(m[1])
		}
		for _, m := range specTestMention.FindAllStringSubmatch(s, -1) {
			add(m[1])
		}
	}
	consts := map[string]string{}
	for _, gf := range tf.pkg {
		for k, v := range stringConsts(gf) {
			consts[k] = v
		}
	}
	for _, n := range tf.reach() {
		ast.Inspect(n, func(n ast.Node) bool {
			be, ok := n.(*ast.BinaryExpr)
			if !ok || be.Op != token.ADD {
				return true
			}
			id, ok1 := be.X.(*ast.Ident)
			lit, ok2 := be.Y.(*ast.BasicLit)
			if !ok1 || !ok2 || lit.Kind != token.STRING {
				return true
			}
			if v := consts[id.Name]; strings.Contains(v, "/tests/") || strings.HasSuffix(v, "prose test ") {
				s, _ := strconv.Unquote(lit.Value)
				if m := citeTag.FindStringSubmatch(s); m != nil {
					add(strings.TrimSuffix(m[1], "."))
				}
			}
			return true
		})
	}
	return out
}

// row is one row of a coverage table.
type row struct {
	line                     int
	rule, expected, test, fp string
	fn, tag                  string // test split at its first "/"
}

// readTable reads the rows of every coverage table in path.
func readTable(t *testing.T, path string) []row {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rows []row
	cells := func(line string) []string {
		line = strings.TrimSpace(line)
		line = strings.TrimPrefix(strings.TrimSuffix(line, "|"), "|")
		var out []string
		for _, c := range strings.Split(line, "|") {
			out = append(out, strings.TrimSpace(c))
		}
		return out
	}
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	in := false
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if !strings.HasPrefix(strings.TrimSpace(line), "|") {
			in = false
			continue
		}
		c := cells(line)
		switch {
		case slices.Equal(c, tableHeader):
			in = true
			continue
		case !in || strings.Trim(strings.Join(c, ""), "-: ") == "":
			continue
		}
		if len(c) != len(tableHeader) {
			t.Errorf("%s:%d: %d cells, want %d: %s", coverageFile, n, len(c), len(tableHeader), line)
			continue
		}
		r := row{line: n, rule: c[0], expected: c[1], test: strings.Trim(c[2], "`"), fp: strings.Trim(c[3], "`")}
		r.fn, r.tag, _ = strings.Cut(r.test, "/")
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		t.Fatalf("%s: no coverage table (header %q)", coverageFile, strings.Join(tableHeader, " | "))
	}
	return rows
}

// TestCoverageRowsResolve checks every row: its source is cited, its Go test exists in its file,
// and its case, if any, exists in that test.
func TestCoverageRowsResolve(t *testing.T) {
	root := moduleRoot(t)
	funcs := testFuncs(loadGoFiles(t, root))
	for _, r := range readTable(t, filepath.Join(root, "docs", coverageFile)) {
		where := fmt.Sprintf("%s:%d", coverageFile, r.line)
		if !strings.Contains(r.rule, "](http") && !sectionRef.MatchString(r.rule) {
			t.Errorf("%s: %q cites no source (a link or a docs section)", where, r.rule)
		}
		if r.expected == "" {
			t.Errorf("%s: %q: the Expected cell is empty", where, r.rule)
		}
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(r.fp))); err != nil {
			t.Errorf("%s: file %s does not exist", where, r.fp)
			continue
		}
		tf := funcs[r.fp][r.fn]
		if tf == nil {
			t.Errorf("%s: no func %s(t *testing.T) in %s", where, r.fn, r.fp)
			continue
		}
		if r.tag != "" && !tf.hasCase(r.tag) {
			t.Errorf("%s: %s in %s has no case %q", where, r.fn, r.fp, r.tag)
		}
	}
}

// TestCoverageComplete checks that every spec test and rule the code replays has a row: each
// Test function whose doc comment cites a source (citeSource), and each named case in a test's
// tables (caseTags).
func TestCoverageComplete(t *testing.T) {
	root := moduleRoot(t)
	funcs := testFuncs(loadGoFiles(t, root))
	rows := readTable(t, filepath.Join(root, "docs", coverageFile))
	hasFunc := map[[2]string]bool{}
	hasCase := map[[3]string]bool{}
	for _, r := range rows {
		hasFunc[[2]string{r.fp, r.fn}] = true
		if r.tag != "" {
			hasCase[[3]string{r.fp, r.fn, r.tag}] = true
		}
	}
	var files []string
	for f := range funcs {
		files = append(files, f)
	}
	sort.Strings(files)
	cited, cases := 0, 0
	for _, f := range files {
		var names []string
		for n := range funcs[f] {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			tf := funcs[f][n]
			doc := ""
			if tf.decl.Doc != nil {
				doc = tf.decl.Doc.Text()
			}
			if m := citeSource.FindString(doc); m != "" {
				cited++
				if !hasFunc[[2]string{f, n}] {
					t.Errorf("%s: %s cites %q but has no row in %s", f, n, m, coverageFile)
				}
			}
			for _, tag := range tf.caseTags() {
				cases++
				if !hasCase[[3]string{f, n, tag}] {
					t.Errorf("%s: %s replays spec case %q but %s has no row %s/%s", f, n, tag, coverageFile, n, tag)
				}
			}
		}
	}
	if cited == 0 || cases == 0 {
		t.Errorf("found %d citing tests and %d named spec cases: the enumeration has stopped matching the code", cited, cases)
	}
	t.Logf("%d rows; %d tests cite a source; %d named spec cases", len(rows), cited, cases)
}

// commentLine names the file and line of the byte at offset in text, the Text of cg: the
// group's first line plus the line breaks before offset (exact for // comments).
func commentLine(gf *goFile, cg *ast.CommentGroup, text string, offset int) string {
	return fmt.Sprintf("%s:%d", gf.rel, gf.fset.Position(cg.Pos()).Line+strings.Count(text[:offset], "\n"))
}

// headings returns the numbered section headings of a file of this folder.
func headings(t *testing.T, path string) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	out := map[string]bool{}
	fence := false
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "```") {
			fence = !fence
		}
		if m := numberedHeading.FindStringSubmatch(line); m != nil && !fence {
			if out[m[1]] {
				t.Errorf("%s: section %s is numbered twice", filepath.Base(path), m[1])
			}
			out[m[1]] = true
		}
	}
	return out
}

// TestSectionCitations checks that every § citation of a file of this folder, in a Go comment
// anywhere in the module or in a file of this folder, names a file that exists and a numbered
// heading it has.
func TestSectionCitations(t *testing.T) {
	root := moduleRoot(t)
	docsDir := filepath.Join(root, "docs")
	cache := map[string]map[string]bool{}
	resolve := func(where, file, sec string) {
		h, ok := cache[file]
		if !ok {
			h = headings(t, filepath.Join(docsDir, file))
			cache[file] = h
		}
		switch {
		case h == nil:
			t.Errorf("%s: cites %s §%s, but docs/%s does not exist", where, file, sec, file)
		case !h[sec]:
			t.Errorf("%s: cites %s §%s, which has no such numbered section", where, file, sec)
		}
	}
	n := 0
	for _, gf := range loadGoFiles(t, root) {
		for _, cg := range gf.f.Comments {
			text := cg.Text()
			for _, m := range sectionRef.FindAllStringSubmatchIndex(text, -1) {
				where := commentLine(gf, cg, text, m[0])
				for _, sec := range sections([]string{"", text[m[2]:m[3]], text[m[4]:m[5]], text[m[6]:m[7]]}) {
					n++
					resolve(where, text[m[2]:m[3]], sec)
				}
			}
		}
	}
	mds, _ := filepath.Glob(filepath.Join(docsDir, "*.md"))
	for _, md := range mds {
		data, err := os.ReadFile(md)
		if err != nil {
			t.Fatal(err)
		}
		self := filepath.Base(md)
		for i, line := range strings.Split(string(data), "\n") {
			where := fmt.Sprintf("docs/%s:%d", self, i+1)
			for _, m := range sectionRef.FindAllStringSubmatch(line, -1) {
				for _, sec := range sections(m) {
					n++
					resolve(where, m[1], sec)
				}
			}
			for _, m := range bareSectionRef.FindAllStringSubmatch(sectionRef.ReplaceAllString(line, ""), -1) {
				n++
				resolve(where, self, m[2])
			}
		}
	}
	if n == 0 {
		t.Error("no § citation found: the pattern has stopped matching")
	}
}

// TestIndexListsEveryDoc checks that README.md of this folder links every other file of it.
func TestIndexListsEveryDoc(t *testing.T) {
	docsDir := filepath.Join(moduleRoot(t), "docs")
	index, err := os.ReadFile(filepath.Join(docsDir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	mds, _ := filepath.Glob(filepath.Join(docsDir, "*.md"))
	for _, md := range mds {
		if name := filepath.Base(md); name != "README.md" && !strings.Contains(string(index), "("+name+")") {
			t.Errorf("docs/README.md does not link %s", name)
		}
	}
}

// TestNoOutsideDocs checks that no Go comment, and neither README, cites a design document kept
// outside the repository: the docs of this folder and the public specifications stand in for
// them.
func TestNoOutsideDocs(t *testing.T) {
	root := moduleRoot(t)
	for _, gf := range loadGoFiles(t, root) {
		for _, cg := range gf.f.Comments {
			text := cg.Text()
			for _, m := range outsideDoc.FindAllStringIndex(text, -1) {
				t.Errorf("%s: cites %q, which is not in the repository", commentLine(gf, cg, text, m[0]), text[m[0]:m[1]])
			}
		}
	}
	for _, rel := range []string{"README.md", "notebooks/README.md"} {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			continue
		}
		if m := outsideDoc.FindString(string(data)); m != "" {
			t.Errorf("%s: cites %q, which is not in the repository", rel, m)
		}
	}
}
