package lint

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// TestNoFusableProducts is the lint-as-test of docs/conventions.md §9: no float product in the
// packages that reach a run's outputs may fuse with a sum.
func TestNoFusableProducts(t *testing.T) {
	findings, err := CheckFusableTree(moduleRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range findings {
		t.Errorf("%s", f)
	}
}

// TestFusableCatches runs CheckFusable on a fixture: every line marked "want" must be reported,
// and no other.
func TestFusableCatches(t *testing.T) {
	fset := token.NewFileSet()
	name := filepath.Join("testdata", "fma", "fma.go")
	f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	if _, err := conf.Check("fma", fset, []*ast.File{f}, info); err != nil {
		t.Fatal(err)
	}
	want := map[int]bool{}
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			if strings.HasPrefix(c.Text, "// want") {
				want[fset.Position(c.Pos()).Line] = true
			}
		}
	}
	got := map[int]bool{}
	for _, x := range CheckFusable(fset, f, info) {
		got[x.Pos.Line] = true
		if !want[x.Pos.Line] {
			t.Errorf("false positive: %s", x)
		}
	}
	for line := range want {
		if !got[line] {
			t.Errorf("%s:%d: a fusable product not reported", name, line)
		}
	}
}

// fusedOp matches the fused multiply-add instructions as go tool objdump prints them on arm64:
// FMADDD, FMSUBD, FNMADDD, FNMSUBD and the S forms.
var fusedOp = regexp.MustCompile(`^FN?M(ADD|SUB)[DS]$`)

// vexFMA reports whether the encoding (hex, as go tool objdump prints it) starts with an amd64
// FMA3 instruction (VFMADD231SD and the like): a three-byte VEX prefix (C4) for the 0F38 map
// with the 66 prefix, then an opcode in 96–9F, A6–AF or B6–BF. go tool objdump cannot decode
// VEX instructions (it prints them as something else), so the bytes are the evidence.
func vexFMA(enc string) bool {
	var b [4]byte
	if len(enc) < 8 {
		return false
	}
	if _, err := fmt.Sscanf(enc[:8], "%02x%02x%02x%02x", &b[0], &b[1], &b[2], &b[3]); err != nil {
		return false
	}
	lo := b[3] & 0x0f
	return b[0] == 0xc4 && b[1]&0x1f == 0x02 && b[2]&0x03 == 0x01 &&
		(b[3]>>4 == 0x9 || b[3]>>4 == 0xa || b[3]>>4 == 0xb) && lo >= 0x6
}

// TestNoFusedMultiplyAdd is the ground truth behind CheckFusable: it builds the simulator for
// linux/arm64 and for linux/amd64 with GOAMD64=v3, the targets whose compiler fuses a*b+c, and
// fails on any fused multiply-add whose source line is in this module. Instructions inlined
// from other modules (gonum's draw.Canvas arithmetic in the plots, the standard library) are
// logged, not failed: their source is not ours to convert.
func TestNoFusedMultiplyAdd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the simulator twice: skipped with -short")
	}
	root, err := filepath.Abs(moduleRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range [][]string{{"GOARCH=arm64"}, {"GOARCH=amd64", "GOAMD64=v3"}} {
		t.Run(strings.Join(target, ","), func(t *testing.T) {
			bin := filepath.Join(t.TempDir(), "simulate")
			build := exec.Command("go", "build", "-o", bin, "./cmd/simulate")
			build.Dir = root
			build.Env = append(os.Environ(), append([]string{"GOOS=linux", "CGO_ENABLED=0"}, target...)...)
			if out, err := build.CombinedOutput(); err != nil {
				t.Fatalf("go build %v: %v\n%s", target, err, out)
			}
			ours, theirs, err := fusedLines(bin, root, "github.com/overloadsim/overloadsim/")
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range theirs {
				t.Logf("left (not this module's source): %s", l)
			}
			for _, l := range ours {
				t.Errorf("fused multiply-add: %s; convert the product, float64(a*b) (docs/conventions.md §9)", l)
			}
		})
	}
}

// TestFusedLinesFinds checks the disassembly reader on a binary with known fused instructions:
// math.FMA compiles to one on both targets, so a program that calls it must be caught.
func TestFusedLinesFinds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program twice: skipped with -short")
	}
	root, err := filepath.Abs(moduleRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range [][]string{{"GOARCH=arm64"}, {"GOARCH=amd64", "GOAMD64=v3"}} {
		bin := filepath.Join(t.TempDir(), "fmaprog")
		build := exec.Command("go", "build", "-o", bin, "./internal/lint/testdata/fmaprog")
		build.Dir = root
		build.Env = append(os.Environ(), append([]string{"GOOS=linux", "CGO_ENABLED=0"}, target...)...)
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build %v: %v\n%s", target, err, out)
		}
		ours, _, err := fusedLines(bin, root, "main.")
		if err != nil {
			t.Fatal(err)
		}
		if len(ours) != 2 {
			t.Errorf("%v: found %d fused multiply-adds in testdata/fmaprog, want 2: %v", target, len(ours), ours)
		}
	}
}

// fusedLines disassembles bin and returns the fused multiply-adds in the functions whose names
// start with prefix, as "file:line (function)", split by whether the source line is under root.
func fusedLines(bin, root, prefix string) (ours, theirs []string, err error) {
	dis, err := exec.Command("go", "tool", "objdump", bin).Output()
	if err != nil {
		return nil, nil, fmt.Errorf("go tool objdump: %v", err)
	}
	var addrs []string
	fn := ""
	sc := bufio.NewScanner(bytes.NewReader(dis))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "TEXT "); ok {
			fn = strings.Fields(rest)[0]
			continue
		}
		if !strings.HasPrefix(fn, prefix) {
			continue
		}
		// file:line  address  encoding  instruction operands, separated by tabs.
		fields := strings.Split(strings.TrimSpace(line), "\t")
		var cols []string
		for _, f := range fields {
			if f = strings.TrimSpace(f); f != "" {
				cols = append(cols, f)
			}
		}
		if len(cols) >= 4 && (fusedOp.MatchString(strings.Fields(cols[3])[0]) || vexFMA(cols[2])) {
			addrs = append(addrs, cols[1])
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, err
	}
	if len(addrs) == 0 {
		return nil, nil, nil
	}
	a2l := exec.Command("go", "tool", "addr2line", bin)
	a2l.Stdin = strings.NewReader(strings.Join(addrs, "\n") + "\n")
	out, err := a2l.Output()
	if err != nil {
		return nil, nil, fmt.Errorf("go tool addr2line: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2*len(addrs) {
		return nil, nil, fmt.Errorf("go tool addr2line: %d lines for %d addresses", len(lines), len(addrs))
	}
	seen := map[string]bool{}
	for i := 0; i < len(lines); i += 2 {
		file := lines[i+1]
		where := fmt.Sprintf("%s (%s)", file, strings.TrimPrefix(lines[i], prefix))
		if seen[where] {
			continue
		}
		seen[where] = true
		if rel, err := filepath.Rel(root, file); err == nil && !strings.HasPrefix(rel, "..") {
			ours = append(ours, rel+strings.TrimPrefix(where, file))
		} else {
			theirs = append(theirs, where)
		}
	}
	sort.Strings(ours)
	sort.Strings(theirs)
	return ours, theirs, nil
}
