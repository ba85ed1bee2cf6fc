// Package lint holds the determinism rules of overloadsim as code: the model packages must not
// read the wall clock, use global or v1 randomness, start goroutines, use channels or sync, or
// draw plots; and the packages import one another in one direction only (Layers). The rules run
// as tests (lint_test.go, imports_test.go) so that CI enforces them.
package lint

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// ModelPackages are the packages whose code runs inside a simulation and must therefore be
// deterministic, as patterns relative to the module root like the Layers' ("client/..." is
// client and every package below it): the model and its helpers, the scenario's conversions into
// the model's configurations (scenarios), what wires a scenario onto a loop and drives it
// (bench), and what observes a run from inside the loop — the recorder and the trace writer
// (record/...), the records, histograms and series they fill (results, not its plots or
// reports) and the serverStatus documents (results/serverstatus).
var ModelPackages = []string{
	"sim/...", "server/...", "ratelimiter", "client/...", "wire/...", "dist", "field",
	"internal/mmc", "internal/rtt", "scenarios", "bench", "record/...", "results", "results/serverstatus",
}

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

// CheckPlotImports reports an import of gonum.org/v1/plot in a file outside results/plot/:
// results/chart builds the figures as data, and only results/plot draws them with gonum.
func CheckPlotImports(fset *token.FileSet, f *ast.File, rel string) []Finding {
	if strings.HasPrefix(filepath.ToSlash(rel), "results/plot/") {
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
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if name := d.Name(); rel != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		out = append(out, CheckPlotImports(fset, f, rel)...)
		if matchAny(ModelPackages, path.Dir(filepath.ToSlash(rel))) {
			out = append(out, CheckModelFile(fset, f)...)
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

// Layer is one row of the import-direction table: the packages it holds and the packages they
// may import. Patterns are import paths relative to the module: "sim" is that package alone,
// "client/..." is client and every package below it. A layer may always import its own
// packages; standard and third-party imports are not its concern (CheckPlotImports keeps plot
// in results/plot).
type Layer struct {
	Name      string   // the row's name in findings
	Packages  []string // the packages the row holds, as patterns
	MayImport []string // the patterns of the module packages they may import besides their own
	Why       string   // the reason, quoted in every finding
}

// util are the packages every layer but results may use: small, self-contained helpers.
var util = []string{"dist", "field", "internal/..."}

// Layers is the import-direction rule. The module's dependency graph points one way, down:
//
//	             cmd/..., lab/...
//	                    │
//	      experiment/..., calibrate/...                          (studies; production ▶ scenario)
//	                    │
//	                  bench ────────────▶ analysis/...           (a scenario run ▶ analysis)
//	                    │
//	                scenarios                                    (the scenario as data)
//	                    │
//	                record/... ─────────▶ results/...            (wiring ▶ records)
//	                    │                     │
//	        ┌───────────┴──────────┐          │
//	    client/...            server/...      │                  (the model)
//	        │   ╲              ╱   │          │
//	        │    wire, ratelimiter │          │
//	        │          │           │          │
//	        └────────▶ sim ◀───────┴──────────┘
//
//	dist, field, internal/...: helpers usable from every layer (from results: dist,
//	field, internal/stats and internal/fileinfo only); they import only sim and one another.
//	internal/yamlstrict, strict YAML with positions and input bounds, is one of them.
//	sim/simtest, wire/wiretest: test kits, just above what they stand in for; only tests
//	import them, and the conformance lab, whose replay scripts servers with wiretest's nodes.
//
// An arrow reaches every layer under it (bench imports client and sim directly), never one
// beside it or above it: experiment, which produces the studies from runs, and calibrate, which
// reads production measurements into a scenario and checks it, are below the commands only;
// bench, which wires a scenario onto a loop and runs it, is below experiment, calibrate and the
// commands; scenarios, the scenario as data with its conversions into the model's
// configurations, is below bench and knows neither record nor the analyses; client and server
// meet only through wire; the model never imports scenarios, record, results or cmd; results
// (the records, their files, plots and reports) sits below the model and knows only sim,
// internal/stats, internal/fileinfo, dist and field, because record is the one package that
// reads the model into records; the analyses (analysis/tipping, analysis/splitting,
// analysis/tuning) are on their own, and bench, experiment and cmd drive them. Layers are derived from
//
//	go list -f '{{.ImportPath}}: {{join .Imports " "}}' ./...
//
// and a new package must join a row before it can be imported. Test files are exempt: an
// external test may drive its package from above.
var Layers = []Layer{
	{"cmd", []string{"cmd/..."}, []string{"..."}, "the commands sit on top and may use anything"},
	{"experiment", []string{"experiment/..."},
		append([]string{"bench", "scenarios/...", "record/...", "results/...", "analysis/...", "client/...", "server/...", "wire", "ratelimiter", "sim"}, util...),
		"experiment produces the studies (the pool of runs, refusal up front, the engines) from runs of the layers below it; only cmd is above it"},
	{"calibrate", []string{"calibrate/..."},
		append([]string{"bench", "scenarios/...", "record/...", "results/...", "analysis/...", "client/...", "server/...", "wire", "ratelimiter", "sim"}, util...),
		"calibrate turns production measurements into a scenario with the layers below it; only cmd is above it"},
	{"lab", []string{"lab/..."}, []string{"..."},
		"the conformance lab (a module of its own) sits on top beside the commands: it drives the model as they do, and its replay's scripted servers are the wire test kit's nodes"},
	{"bench", []string{"bench"},
		append([]string{"scenarios/...", "record/...", "results/...", "analysis/...", "client/...", "server/...", "wire", "ratelimiter", "sim"}, util...),
		"bench wires a scenario onto a loop and runs it with the layers below it; only experiment, calibrate, cmd and lab are above it"},
	{"scenarios", []string{"scenarios/..."},
		append([]string{"results/...", "client/...", "server/...", "wire", "ratelimiter", "sim"}, util...),
		"scenarios is the scenario as data, with its conversions into the model's configurations; bench wires it onto a loop, and bench, calibrate, cmd and lab are above it"},
	{"record", []string{"record/..."},
		append([]string{"results/...", "client/...", "server/...", "wire", "ratelimiter", "sim"}, util...),
		"record observes a run from inside the loop and reads the model into results; bench, calibrate and cmd are above it"},
	{"analysis", []string{"analysis/..."}, util,
		"the analyses (tipping, splitting, tuning) are self-contained: they know neither the model nor results"},
	{"client", []string{"client/..."}, append([]string{"wire", "ratelimiter", "sim"}, util...),
		"the model: client talks to server only through wire, and never imports the layers above"},
	{"server", []string{"server/..."}, append([]string{"wire", "ratelimiter", "sim"}, util...),
		"the model: server talks to client only through wire, and never imports the layers above"},
	{"wire", []string{"wire"}, append([]string{"sim"}, util...), "wire is below client and server, beside ratelimiter"},
	{"ratelimiter", []string{"ratelimiter"}, append([]string{"sim"}, util...), "ratelimiter is below client and server, beside wire"},
	{"sim", []string{"sim"}, util, "sim is the bottom of the model"},
	{"testkit", []string{"sim/simtest", "wire/wiretest"}, append([]string{"wire", "sim"}, util...),
		"the test kits stand in for a run's streams and counters and for a wire peer; only tests import them"},
	{"chart", []string{"results/chart"}, []string{"results", "results/sweep", "results/phasemap", "results/tune", "results/compare", "results/tip", "sim", "internal/stats", "internal/fileinfo", "dist", "field"},
		"results/chart builds the figures as data from the records (results and the studies' records); results/plot and results/report render them, so it imports neither (nor gonum/plot)"},
	{"results", []string{"results/..."}, []string{"sim", "internal/stats", "internal/fileinfo", "dist", "field"},
		"results is below the model: record reads the model into results' records"},
	{"util", util, []string{"sim"}, "dist, field and internal/... are helpers: they import only sim and one another"},
}

// matchPkg reports whether the module-relative import path pkg matches pattern.
func matchPkg(pattern, pkg string) bool {
	if pattern == "..." {
		return true
	}
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return pkg == base || strings.HasPrefix(pkg, base+"/")
	}
	return pkg == pattern
}

// matchAny reports whether pkg matches one of patterns.
func matchAny(patterns []string, pkg string) bool {
	for _, p := range patterns {
		if matchPkg(p, pkg) {
			return true
		}
	}
	return false
}

// layerOf returns the row of Layers that holds pkg (relative to the module), or nil.
func layerOf(pkg string) *Layer {
	for i := range Layers {
		if matchAny(Layers[i].Packages, pkg) {
			return &Layers[i]
		}
	}
	return nil
}

// CheckImports reports the imports of f that break Layers. f is a non-test file of package pkg,
// an import path relative to module (client/retry in module overloadsim).
func CheckImports(fset *token.FileSet, f *ast.File, module, pkg string) []Finding {
	from := layerOf(pkg)
	var out []Finding
	for _, imp := range f.Imports {
		full, _ := strconv.Unquote(imp.Path.Value)
		rel, ok := strings.CutPrefix(full, module+"/")
		if !ok {
			continue // standard library or another module
		}
		pos := fset.Position(imp.Pos())
		if from == nil {
			out = append(out, Finding{pos, fmt.Sprintf("imports %s, but %s/%s is in no layer: add it to the table in internal/lint (Layers)", full, module, pkg)})
			continue
		}
		if matchAny(from.Packages, rel) || matchAny(from.MayImport, rel) {
			continue
		}
		msg := fmt.Sprintf("imports %s: layer %s (%s) may import only %s: %s",
			full, from.Name, strings.Join(from.Packages, ", "), strings.Join(from.MayImport, ", "), from.Why)
		if layerOf(rel) == nil {
			msg += fmt.Sprintf("; %s is in no layer: add it to the table in internal/lint (Layers)", full)
		}
		out = append(out, Finding{pos, msg})
	}
	return out
}

// CheckImportTree walks the module rooted at root (its path read from root/go.mod) and applies
// the import-direction rule to every non-test Go file outside testdata. Findings are sorted by
// position.
func CheckImportTree(root string) ([]Finding, error) {
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return nil, err
	}
	module := ""
	for _, line := range strings.Split(string(mod), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			module = strings.Trim(strings.TrimSpace(rest), `"`)
			break
		}
	}
	if module == "" {
		return nil, fmt.Errorf("%s: no module line", filepath.Join(root, "go.mod"))
	}
	return checkImportTree(root, module)
}

// checkImportTree is CheckImportTree for a tree whose module path is given.
func checkImportTree(root, module string) ([]Finding, error) {
	var out []Finding
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if name := d.Name(); rel != "." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		out = append(out, CheckImports(fset, f, module, path.Dir(filepath.ToSlash(rel)))...)
		return nil
	})
	sortFindings(out)
	return out, err
}

// sortFindings orders findings by file and line.
func sortFindings(out []Finding) {
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Pos, out[j].Pos
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		return a.Line < b.Line
	})
}
