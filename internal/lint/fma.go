package lint

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"math"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"
)

// FusePackages are the packages (relative to the module root, sub-packages included) whose
// float arithmetic reaches a run's outputs: the model, the recorders, the records and their
// files and plots, and the analyses. Their float products must not fuse into a multiply-add
// (CheckFusable).
var FusePackages = []string{
	"sim", "server", "ratelimiter", "client", "scenarios", "bench", "wire", "dist", "field",
	"record", "results", "analysis", "experiment", "internal/mmc", "internal/rtt",
	"internal/queueing", "internal/stats", "calibrate",
}

// fuseHint is the advice every fusable-product finding ends with.
const fuseHint = "the compiler may fuse it into one multiply-add (arm64, amd64 with GOAMD64=v3) " +
	"that rounds once where amd64 rounds twice, and the bytes differ by machine: convert the product, " +
	"float64(a*b), which rounds it and prevents fusion (docs/conventions.md §9)"

// CheckFusable reports the float products in f that the compiler may fuse with an addition or
// subtraction: a product that is an operand of + or - (a*b + c, c - a*b, x += a*b), possibly
// under parentheses or a unary minus, and a product stored in a local variable that is then
// such an operand, since fusion may cross statements (p := a*b; x += p). A division by a
// power of two counts as a product (a/2 compiles to a*0.5), and a doubling as a sum (2*p compiles
// to p+p). A returned product is reported too: the function may be inlined into a sum. A product wrapped in an
// explicit conversion, float64(a*b), is rounded and cannot fuse; so are constant products. info
// must hold the types of f's expressions and the objects of its identifiers.
func CheckFusable(fset *token.FileSet, f *ast.File, info *types.Info) []Finding {
	var out []Finding
	for _, x := range fusable(fset, f, info) {
		out = append(out, x.Finding)
	}
	return out
}

// fusableProduct is a finding of CheckFusable with the product it is about.
type fusableProduct struct {
	Finding
	Product ast.Expr // a product, or a call of one of inlinedProducts
}

// inlinedProducts are the standard library's functions that end in a product and are small
// enough to be inlined, so that a caller's sum may fuse with it: math.Log10 is log2(x)·(ln 2/ln 10).
var inlinedProducts = map[string]bool{"math.Log10": true}

// fusable is CheckFusable with the products.
func fusable(fset *token.FileSet, f *ast.File, info *types.Info) []fusableProduct {
	var out []fusableProduct
	ignored := ignoredLines(fset, f)
	seen := map[token.Pos]bool{}
	add := func(p ast.Expr, msg string) {
		at := p.Pos()
		if b, ok := p.(*ast.BinaryExpr); ok {
			at = b.OpPos
		}
		pos := fset.Position(at)
		if seen[at] || ignored[pos.Line] || ignored[pos.Line-1] {
			return
		}
		seen[at] = true
		out = append(out, fusableProduct{Finding{pos, msg}, p})
	}
	isFloat := func(e ast.Expr) bool {
		t := info.TypeOf(e)
		if t == nil {
			return false
		}
		b, ok := t.Underlying().(*types.Basic)
		return ok && b.Info()&types.IsFloat != 0
	}
	isConst := func(e ast.Expr) bool {
		tv, ok := info.Types[e]
		return ok && tv.Value != nil
	}
	powerOfTwo := func(e ast.Expr) bool {
		tv, ok := info.Types[e]
		if !ok || tv.Value == nil {
			return false
		}
		v, _ := constant.Float64Val(constant.ToFloat(tv.Value))
		frac, _ := math.Frexp(math.Abs(v))
		return frac == 0.5
	}
	// two reports whether e is the constant 2 or -2: the compiler turns 2*x into x+x.
	two := func(e ast.Expr) bool {
		tv, ok := info.Types[e]
		if !ok || tv.Value == nil {
			return false
		}
		s := tv.Value.ExactString()
		return s == "2" || s == "-2"
	}
	// product returns the float product that e is (under parentheses and unary signs), if any:
	// a multiplication, a division by a power of two or a call of one of inlinedProducts.
	product := func(e ast.Expr) ast.Expr {
		switch x := bare(e).(type) {
		case *ast.CallExpr:
			if sel, ok := x.Fun.(*ast.SelectorExpr); ok {
				if fn, ok := info.Uses[sel.Sel].(*types.Func); ok && fn.Pkg() != nil && inlinedProducts[fn.Pkg().Path()+"."+fn.Name()] {
					return x
				}
			}
		case *ast.BinaryExpr:
			if !isFloat(x) || isConst(x) {
				return nil // constants are computed exactly at compile time
			}
			// A division by a power of two counts: the compiler turns a/2 into a*0.5.
			if x.Op == token.MUL || x.Op == token.QUO && powerOfTwo(x.Y) {
				return x
			}
		}
		return nil
	}
	// local returns the local variable that e names (under parentheses and unary signs), if any.
	local := func(e ast.Expr) *types.Var {
		if x, ok := bare(e).(*ast.Ident); ok {
			if v, ok := info.ObjectOf(x).(*types.Var); ok && !v.IsField() && v.Parent() != nil && v.Parent() != v.Pkg().Scope() {
				return v
			}
		}
		return nil
	}
	direct := "is an operand of + or - (or of a doubling): "
	stored := map[*types.Var][]ast.Expr{} // locals assigned a bare product
	summed := map[*types.Var]int{}        // locals that are an operand of + or -, and where
	operand := func(e ast.Expr, at token.Pos) {
		if p := product(e); p != nil {
			add(p, "float product "+direct+fuseHint)
		}
		if v := local(e); v != nil {
			if _, ok := summed[v]; !ok {
				summed[v] = fset.Position(at).Line
			}
		}
	}
	store := func(lhs, rhs ast.Expr) {
		if p := product(rhs); p != nil {
			if v := local(lhs); v != nil {
				stored[v] = append(stored[v], p)
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			if !isFloat(n) {
				break
			}
			switch {
			case n.Op == token.ADD || n.Op == token.SUB:
				operand(n.X, n.OpPos)
				operand(n.Y, n.OpPos)
			case n.Op == token.MUL && two(n.X):
				operand(n.Y, n.OpPos)
			case n.Op == token.MUL && two(n.Y):
				operand(n.X, n.OpPos)
			}
		case *ast.AssignStmt:
			switch n.Tok {
			case token.ADD_ASSIGN, token.SUB_ASSIGN:
				if len(n.Lhs) == 1 && isFloat(n.Lhs[0]) {
					operand(n.Lhs[0], n.TokPos)
					operand(n.Rhs[0], n.TokPos)
				}
			case token.MUL_ASSIGN:
				if len(n.Lhs) == 1 && isFloat(n.Lhs[0]) && two(n.Rhs[0]) {
					operand(n.Lhs[0], n.TokPos)
				}
			case token.ASSIGN, token.DEFINE:
				if len(n.Lhs) == len(n.Rhs) {
					for i := range n.Lhs {
						store(n.Lhs[i], n.Rhs[i])
					}
				}
			}
		case *ast.ReturnStmt:
			for _, r := range n.Results {
				if p := product(r); p != nil {
					add(p, "float product is returned, and a caller that inlines the function may fuse it with its own + or -: "+fuseHint)
				}
			}
		case *ast.ValueSpec:
			if len(n.Names) == len(n.Values) {
				for i := range n.Names {
					store(n.Names[i], n.Values[i])
				}
			}
		}
		return true
	})
	for v, ps := range stored {
		line, ok := summed[v]
		if !ok {
			continue
		}
		for _, p := range ps {
			add(p, fmt.Sprintf("float product stored in %s, which is an operand of + or - (or of a doubling) on line %d: %s", v.Name(), line, fuseHint))
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Product.Pos() < out[j].Product.Pos() })
	return out
}

// CheckFusableTree loads the module rooted at root with its types and applies CheckFusable to
// every non-test file of the FusePackages. Findings are sorted by position.
func CheckFusableTree(root string) ([]Finding, error) {
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo,
		Dir:  root,
	}
	var patterns []string
	for _, p := range FusePackages {
		patterns = append(patterns, "./"+p+"/...")
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, err
	}
	var out []Finding
	for _, pkg := range pkgs {
		if len(pkg.Errors) > 0 {
			return nil, fmt.Errorf("%s: %v", pkg.PkgPath, pkg.Errors[0])
		}
		for _, f := range pkg.Syntax {
			name := pkg.Fset.File(f.Pos()).Name()
			if strings.HasSuffix(name, "_test.go") || strings.Contains(filepath.ToSlash(name), "/testdata/") {
				continue
			}
			out = append(out, CheckFusable(pkg.Fset, f, pkg.TypesInfo)...)
		}
	}
	sortFindings(out)
	return out, nil
}

// bare is e without the parentheses and unary signs around it: the value a product or a local
// is, whatever its sign.
func bare(e ast.Expr) ast.Expr {
	for {
		switch x := e.(type) {
		case *ast.ParenExpr:
			e = x.X
		case *ast.UnaryExpr:
			if x.Op != token.SUB && x.Op != token.ADD {
				return e
			}
			e = x.X
		default:
			return e
		}
	}
}
