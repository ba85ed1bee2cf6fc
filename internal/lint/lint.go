// Package lint holds the determinism rules of overloadsim as code: the model packages must not
// read the wall clock, use global or v1 randomness, start goroutines, use channels or sync, or
// draw plots. The rules run as a test (lint_test.go) so that CI enforces them.
package lint

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// ModelPackages are the directories (relative to the module root) whose code runs inside a
// simulation and must therefore be deterministic. Sub-packages are included.
var ModelPackages = []string{"sim", "server", "ratelimiter", "client", "scenarios", "wire", "dist", "internal/mmc", "internal/rtt"}

// Finding is one violation: where it is and what to do instead.
type Finding struct {
	Pos     token.Position
	Message string
}

func (f Finding) String() string { return fmt.Sprintf("%s: %s", f.Pos, f.Message) }

// wallClock lists the time functions that read or wait on the wall clock.
var wallClock = map[string]bool{
	"Now": true, "Since": true, "Until": true, "Sleep": true, "After": true, "AfterFunc": true,
	"NewTimer": true, "NewTicker": true, "Tick": true,
}

// randV2Allowed are the math/rand/v2 names that build an explicit generator; every other
// top-level function draws from the global generator.
var randV2Allowed = map[string]bool{
	"New": true, "NewPCG": true, "NewChaCha8": true, "NewZipf": true,
	"Rand": true, "Source": true, "PCG": true, "ChaCha8": true, "Zipf": true,
}

// ignoreMarker, on the line of a finding or the line above, suppresses it; a reason must follow.
const ignoreMarker = "lint:ignore"

// CheckModelFile reports the determinism violations in one Go source file of a model package.
func CheckModelFile(fset *token.FileSet, f *ast.File) []Finding {
	var out []Finding
	ignored := ignoredLines(fset, f)
	add := func(p token.Pos, msg string) {
		pos := fset.Position(p)
		if ignored[pos.Line] || ignored[pos.Line-1] {
			return
		}
		out = append(out, Finding{pos, msg})
	}
	names := map[string]string{} // local name -> import path
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		name := path[strings.LastIndex(path, "/")+1:]
		if path == "math/rand/v2" {
			name = "rand"
		}
		if imp.Name != nil {
			name = imp.Name.Name
		}
		names[name] = path
		switch {
		case path == "math/rand":
			add(imp.Pos(), `imports math/rand (v1): use math/rand/v2 with a stream from sim.NewStream(seed, "component/name")`)
		case path == "sync" || path == "sync/atomic":
			add(imp.Pos(), "imports "+path+": a run is single-threaded; parallelism belongs across runs in cmd/")
		case strings.HasPrefix(path, "gonum.org/v1/plot"):
			add(imp.Pos(), "imports "+path+": only results/plot may draw; record data and plot it there")
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GoStmt:
			add(n.Pos(), "starts a goroutine: model code runs on the event loop; schedule an event with loop.At/After instead")
		case *ast.SelectStmt:
			add(n.Pos(), "uses select: model code runs on the event loop; schedule events instead of waiting on channels")
		case *ast.ChanType:
			add(n.Pos(), "uses a channel type: components talk through events on the loop, not channels")
		case *ast.SelectorExpr:
			id, ok := n.X.(*ast.Ident)
			if !ok || id.Obj != nil { // a local variable, not a package
				return true
			}
			switch names[id.Name] {
			case "time":
				if wallClock[n.Sel.Name] {
					add(n.Pos(), fmt.Sprintf("calls time.%s (wall clock): take now sim.Time as an argument and schedule with loop.At/After", n.Sel.Name))
				}
			case "math/rand/v2":
				if !randV2Allowed[n.Sel.Name] {
					add(n.Pos(), fmt.Sprintf("calls rand.%s (the global generator): draw from a *rand.Rand made by sim.NewStream", n.Sel.Name))
				}
			}
		}
		return true
	})
	return out
}

// CheckPlotImports reports an import of gonum.org/v1/plot in a file outside results/.
func CheckPlotImports(fset *token.FileSet, f *ast.File, rel string) []Finding {
	if strings.HasPrefix(filepath.ToSlash(rel), "results/") {
		return nil
	}
	var out []Finding
	for _, imp := range f.Imports {
		if path, _ := strconv.Unquote(imp.Path.Value); strings.HasPrefix(path, "gonum.org/v1/plot") {
			out = append(out, Finding{fset.Position(imp.Pos()), "imports " + path + ": only results/plot may import gonum.org/v1/plot"})
		}
	}
	return out
}

func ignoredLines(fset *token.FileSet, f *ast.File) map[int]bool {
	m := map[int]bool{}
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			text := strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(c.Text, "//"), "/*"))
			if rest, ok := strings.CutPrefix(text, ignoreMarker); ok && strings.TrimSpace(rest) != "" {
				m[fset.Position(c.Pos()).Line] = true
			}
		}
	}
	return m
}

// CheckTree walks the module rooted at root and applies both rules to every non-test Go file.
// Findings are sorted by position.
func CheckTree(root string) ([]Finding, error) {
	var out []Finding
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if name := d.Name(); rel != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		out = append(out, CheckPlotImports(fset, f, rel)...)
		for _, m := range ModelPackages {
			if strings.HasPrefix(filepath.ToSlash(rel), m+"/") {
				out = append(out, CheckModelFile(fset, f)...)
				break
			}
		}
		return nil
	})
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].Pos, out[j].Pos
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		return a.Line < b.Line
	})
	return out, err
}
