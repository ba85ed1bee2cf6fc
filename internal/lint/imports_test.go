package lint

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImportDirection is the lint-as-test of the import-direction rule (Layers) on the module:
// it reports every import that points up or sideways, with its file, line and rule.
func TestImportDirection(t *testing.T) {
	findings, err := CheckImportTree(moduleRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range findings {
		t.Errorf("%s", f)
	}
}

// TestImportRuleCatchesViolations runs the rule on testdata/imports, a small tree laid out
// like the module with one violation of each kind and some allowed imports, so that a rule that
// silently stopped matching fails here.
func TestImportRuleCatchesViolations(t *testing.T) {
	root := filepath.Join("testdata", "imports")
	findings, err := checkImportTree(root, "example.org/m")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range findings {
		rel, _ := filepath.Rel(root, f.Pos.Filename)
		got = append(got, filepath.ToSlash(rel)+":"+strconv.Itoa(f.Pos.Line)+": "+f.Message)
	}
	want := []string{
		"analysis/splitting/bad.go:4: imports example.org/m/results: layer analysis",
		"client/bad.go:5: imports example.org/m/scenarios: layer client",
		"client/bad.go:6: imports example.org/m/server: layer client",
		"client/retry/bad.go:4: imports example.org/m/record: layer client",
		"newpkg/x.go:4: imports example.org/m/sim, but example.org/m/newpkg is in no layer",
		"record/bad.go:5: imports example.org/m/scenarios: layer record",
		"results/plot/bad.go:4: imports example.org/m/server/mongos: layer results (results/...) may import only sim, internal/stats, internal/fileinfo, dist",
		"results/results.go:4: imports example.org/m/client: layer results",
		"results/results.go:6: imports example.org/m/internal/parallel: layer results",
		"scenarios/bad.go:3: imports example.org/m/record: layer scenarios",
		"sim/bad.go:4: imports example.org/m/wire: layer sim",
		"wire/bad.go:4: imports example.org/m/ratelimiter: layer wire",
		"wire/bad.go:5: imports example.org/m/newpkg: layer wire (wire) may import only sim, dist, field, internal/...: wire is below client and server, beside ratelimiter; example.org/m/newpkg is in no layer",
	}
	if len(got) != len(want) {
		t.Errorf("got %d findings, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range min(len(got), len(want)) {
		if !strings.Contains(got[i], want[i]) {
			t.Errorf("finding %d:\n got %s\nwant it to contain %s", i, got[i], want[i])
		}
	}
}

func TestMatchPkg(t *testing.T) {
	for _, tc := range []struct {
		pattern, pkg string
		want         bool
	}{
		{"client/...", "client", true},
		{"client/...", "client/retry", true},
		{"client/...", "clientx", false},
		{"sim", "sim", true},
		{"sim", "sim/x", false},
		{"...", "anything/at/all", true},
	} {
		if got := matchPkg(tc.pattern, tc.pkg); got != tc.want {
			t.Errorf("matchPkg(%q, %q) = %v, want %v", tc.pattern, tc.pkg, got, tc.want)
		}
	}
}

// TestLayersCoverEachPackageOnce checks the table: no package pattern in two rows, and every
// MayImport pattern names a package some row holds.
func TestLayersCoverEachPackageOnce(t *testing.T) {
	seen := map[string]string{}
	for _, l := range Layers {
		for _, p := range l.Packages {
			if other, ok := seen[p]; ok {
				t.Errorf("%s is in layers %s and %s", p, other, l.Name)
			}
			seen[p] = l.Name
		}
	}
	for _, l := range Layers {
		for _, p := range l.MayImport {
			if p == "..." {
				continue
			}
			if layerOf(strings.TrimSuffix(p, "/...")) == nil {
				t.Errorf("layer %s may import %s, which no layer holds", l.Name, p)
			}
		}
	}
}
