package yamlstrict_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/overloadsim/overloadsim/internal/yamlstrict"
)

// specialScalars are texts that YAML reads as something else when written plain: other types,
// indicators, document markers, merge keys, comments, characters the parser refuses raw.
var specialScalars = []string{
	"<<", "x<<", "<<<", "<< x", "...", "... x", "...x", "---", "--- x", "---x", "--", "-- x",
	"null", "Null", "NULL", "~", "yes", "no", "on", "off", ".inf", "-.Inf", "+.inf", ".NaN",
	"-", "- x", "?", "? x", ":", ": x", "x:", "a: b", "a:b", "1:2", "x:y", "a #b", "#", "@",
	"`", "%", "!", "!!str", "&a", "*a", "|", ">", "'", "\"", "[", "]", "{", "}", "a,b", "x]",
	"", " a", "a ", "\t", "a\tb", "a\nb", "\x7f", "\ufeffa", "a\u2028b", "\u0085", "\u00a0",
	"\ufffe", "\uffff", "\ue000",
}

// TestTextRoundTrip: Text and Flow write every scalar, special ones included, as text that
// reads back to the same tree, wherever it stands: a value, a key, an item or a key in a flow
// collection, an item of a block list, the whole document.
func TestTextRoundTrip(t *testing.T) {
	ordinary := []string{"x", "a b", "true", "false", "-5", "-.5", "1e3", "0x10", "exp(2ms)", "≈ 1", "é", "a'b", `a"b`, `a\b`, "http://x"}
	for _, s := range append(ordinary, specialScalars...) {
		for _, tree := range placings(yamlstrict.NewScalar(s)) {
			if err := readsBack(tree); err != nil {
				t.Errorf("%q: %v", s, err)
			}
		}
	}
	// An empty list and an empty mapping, the whole document or not.
	for _, kind := range []yamlstrict.Kind{yamlstrict.SeqKind, yamlstrict.MapKind} {
		n := &yamlstrict.Node{Kind: kind}
		k := yamlstrict.NewScalar("k")
		for _, tree := range []*yamlstrict.Node{
			n, // the document
			{Kind: yamlstrict.MapKind, Keys: []*yamlstrict.Node{k}, Vals: []*yamlstrict.Node{n}}, // k: n
			{Kind: yamlstrict.SeqKind, Items: []*yamlstrict.Node{n, k}},                          // [n, k]
		} {
			if err := readsBack(tree); err != nil {
				t.Errorf("an empty collection: %v", err)
			}
		}
	}
	// The canonical text of ordinary scalars stays plain; of special ones, quoted.
	for _, s := range ordinary {
		if got := yamlstrict.Inline(yamlstrict.NewScalar(s)); got != s {
			t.Errorf("Inline(%q) = %s, want it plain", s, got)
		}
	}
	rng := &yamlstrict.Node{Kind: yamlstrict.MapKind, Keys: []*yamlstrict.Node{yamlstrict.NewScalar("k")}, Vals: []*yamlstrict.Node{yamlstrict.NewScalar("1s:5s:1s")}}
	if got := yamlstrict.Flow(rng); got != "{k: 1s:5s:1s}" {
		t.Errorf("Flow = %s, want a flow mapping's value with colons (a sweep's range) plain", got)
	}
	for _, s := range []string{"<<", "...", "---", "--- x", "... x"} {
		if got := yamlstrict.Inline(yamlstrict.NewScalar(s)); got != fmt.Sprintf("%q", s) {
			t.Errorf("Inline(%q) = %s, want it quoted", s, got)
		}
	}
}

// placings returns s in each place a scalar can stand in a document.
func placings(s *yamlstrict.Node) []*yamlstrict.Node {
	k, z := yamlstrict.NewScalar("k"), yamlstrict.NewScalar("z")
	mapping := func(key, val *yamlstrict.Node) *yamlstrict.Node {
		return &yamlstrict.Node{Kind: yamlstrict.MapKind, Keys: []*yamlstrict.Node{key}, Vals: []*yamlstrict.Node{val}}
	}
	list := func(items ...*yamlstrict.Node) *yamlstrict.Node {
		return &yamlstrict.Node{Kind: yamlstrict.SeqKind, Items: items}
	}
	long := yamlstrict.NewScalar(strings.Repeat("0", 80)) // too long for flow style
	return []*yamlstrict.Node{
		mapping(k, s),                      // k: s
		mapping(s, z),                      // s: z
		mapping(k, list(s, z)),             // k: [s, z]
		mapping(k, mapping(s, z)),          // k: {s: z}
		mapping(k, mapping(z, s)),          // k: {z: s}
		list(s, long),                      // - s
		list(mapping(s, z), long),          // - s: z
		mapping(k, list(mapping(s, long))), // k:\n  - s: 000…
		s,                                  // the document
	}
}

// readsBack returns what is wrong with tree's canonical text, Text, and its flow text, Flow:
// each must parse to tree again.
func readsBack(tree *yamlstrict.Node) error {
	in := yamlstrict.Input{What: "a canonical text", MaxBytes: 1 << 20}
	for _, text := range []string{yamlstrict.Text(tree), "v: " + yamlstrict.Flow(tree) + "\n"} {
		back, errs := in.ParseCanonical([]byte(text))
		if errs != nil {
			return fmt.Errorf("%q does not read back: %v", text, errs[0])
		}
		if strings.HasPrefix(text, "v: ") {
			back = back.Get("v")
		}
		if !sameTree(tree, back) {
			return fmt.Errorf("%q reads back as %s, not %s", text, yamlstrict.Flow(back), yamlstrict.Flow(tree))
		}
	}
	return nil
}

// sameTree reports whether a and b hold the same kinds, texts, keys and items, wherever they
// stood.
func sameTree(a, b *yamlstrict.Node) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Kind != b.Kind || a.Text != b.Text || len(a.Keys) != len(b.Keys) || len(a.Items) != len(b.Items) {
		return false
	}
	for i := range a.Keys {
		if !sameTree(a.Keys[i], b.Keys[i]) || !sameTree(a.Vals[i], b.Vals[i]) {
			return false
		}
	}
	for i := range a.Items {
		if !sameTree(a.Items[i], b.Items[i]) {
			return false
		}
	}
	return true
}
