package yamlstrict

import (
	"strconv"
)

// Difference is one place where two trees differ: its field path (clients[0].workload.rate.peak,
// as overrides name it) and the value each tree has there on one line (Inline), "" where a tree
// has none.
type Difference struct {
	Path string
	A, B string
}

// Diff lists every place where tree b differs from tree a, in a's order (then b's for what
// only b has): a scalar with another text, a value of another shape, a key or a list item that
// only one has. Mappings are compared key by key and lists item by item, so that a changed
// field is named by its own path rather than by the collection around it; anything else that
// differs (a mapping against a list, a scalar against a mapping) is one difference at its path.
// Two equal trees have none.
func Diff(a, b *Node) []Difference {
	var out []Difference
	diff(a, b, "", &out)
	return out
}

// diff appends the differences between a and b (either may be nil: absent) under path.
func diff(a, b *Node, path string, out *[]Difference) {
	switch {
	case a == nil && b == nil:
		return
	case a != nil && b != nil && a.Kind == MapKind && b.Kind == MapKind:
		for i, k := range a.Keys {
			diff(a.Vals[i], b.Get(k.Text), JoinPath(path, k.Text), out)
		}
		for i, k := range b.Keys {
			if a.Get(k.Text) == nil {
				diff(nil, b.Vals[i], JoinPath(path, k.Text), out)
			}
		}
		return
	case a != nil && b != nil && a.Kind == SeqKind && b.Kind == SeqKind:
		for i := range max(len(a.Items), len(b.Items)) {
			var x, y *Node
			if i < len(a.Items) {
				x = a.Items[i]
			}
			if i < len(b.Items) {
				y = b.Items[i]
			}
			diff(x, y, path+"["+strconv.Itoa(i)+"]", out)
		}
		return
	}
	x, y := inlineOrNone(a), inlineOrNone(b)
	if a == nil || b == nil || a.Kind != b.Kind || x != y {
		*out = append(*out, Difference{Path: path, A: x, B: y})
	}
}

// inlineOrNone is n on one line, "" for an absent n.
func inlineOrNone(n *Node) string {
	if n == nil {
		return ""
	}
	return Inline(n)
}
