package yamlstrict_test

import (
	"reflect"
	"testing"

	"github.com/overloadsim/overloadsim/internal/yamlstrict"
)

// TestDiff: every field that differs is listed by its own path, as overrides name it, with both
// values on one line: scalars in nested mappings and list items, fields of a flow mapping, keys
// and items only one side has (in the first tree's order, then the second's), a value of
// another shape; equal trees have none.
func TestDiff(t *testing.T) {
	a := `seed: 1
duration: 45s
topology:
  nodes:
    - name: db
      workers: 8
clients:
  - name: web
    workload:
      rate: {kind: spike, base: 250/s, peak: 1500/s}
  - name: batch
    count: 2
faults: []
`
	b := `seed: 2
duration: 45s
topology:
  nodes:
    - name: db
      workers: 1
    - name: db2
      workers: 8
clients:
  - name: web
    workload:
      rate: {kind: spike, base: 250/s, peak: 3000/s}
  - name: batch
faults: [{kind: pause}]
load: 2
`
	parse := func(s string) *yamlstrict.Node {
		n, errs := yamlstrict.Input{What: "a test file", MaxBytes: 1 << 12}.Parse([]byte(s))
		if errs != nil {
			t.Fatal(errs[0])
		}
		return n
	}
	want := []yamlstrict.Difference{
		{Path: "seed", A: "1", B: "2"},
		{Path: "topology.nodes[0].workers", A: "8", B: "1"},
		{Path: "topology.nodes[1]", A: "", B: "{name: db2, workers: 8}"},
		{Path: "clients[0].workload.rate.peak", A: "1500/s", B: "3000/s"},
		{Path: "clients[1].count", A: "2", B: ""},
		{Path: "faults[0]", A: "", B: "{kind: pause}"},
		{Path: "load", A: "", B: "2"},
	}
	if got := yamlstrict.Diff(parse(a), parse(b)); !reflect.DeepEqual(got, want) {
		t.Errorf("Diff:\n got %+v\nwant %+v", got, want)
	}
	if got := yamlstrict.Diff(parse(a), parse(a)); got != nil {
		t.Errorf("Diff of equal trees = %+v, want none", got)
	}
	// A value of another shape is one difference at its path.
	if got := yamlstrict.Diff(parse("x: [1, 2]\n"), parse("x: {a: 1}\n")); !reflect.DeepEqual(got, []yamlstrict.Difference{{Path: "x", A: "[1, 2]", B: "{a: 1}"}}) {
		t.Errorf("Diff of a list and a mapping = %+v", got)
	}
}
