package yamlstrict

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Kind is the shape of a YAML node.
type Kind uint8

// The shapes of a node.
const (
	NullKind   Kind = iota // null, ~ or nothing
	ScalarKind             // a single value, kept as its text
	MapKind                // a mapping of keys to values
	SeqKind                // a list
)

// Node is one YAML node with where it came from. A decoder reads scalars from their text, so a
// node keeps the text as written (unescaped when quoted), whatever type YAML would give it.
type Node struct {
	Kind  Kind
	Text  string  // ScalarKind
	Keys  []*Node // MapKind: the keys (scalars), in file order
	Vals  []*Node // MapKind: the values, parallel to Keys
	Items []*Node // SeqKind
	Pos   Pos
}

// Pos is a position in a YAML input, or the override a value came from instead.
type Pos struct {
	Line, Col int
	// Override, when non-empty, is the override the value came from ("--set path=value"),
	// not the input.
	Override string
}

// NewScalar returns a scalar node of text s, without a position.
func NewScalar(s string) *Node { return &Node{Kind: ScalarKind, Text: s} }

// Get returns the value of key in a mapping, or nil (also for a nil n or one that is no
// mapping).
func (n *Node) Get(key string) *Node {
	if n == nil || n.Kind != MapKind {
		return nil
	}
	for i, k := range n.Keys {
		if k.Text == key {
			return n.Vals[i]
		}
	}
	return nil
}

// Lookup returns the node at path under n (a field path such as points[2].at), or nil when n
// has none there.
func (n *Node) Lookup(path string) *Node {
	segs, err := parsePath(path)
	if err != nil {
		return nil
	}
	cur := n
	for _, seg := range segs {
		if cur = cur.Get(seg.key); cur == nil {
			return nil
		}
		for _, i := range seg.indices {
			if cur.Kind != SeqKind || i >= len(cur.Items) {
				return nil
			}
			cur = cur.Items[i]
		}
	}
	return cur
}

// Clone returns a deep copy of n.
func (n *Node) Clone() *Node {
	if n == nil {
		return nil
	}
	c := *n
	c.Keys, c.Vals, c.Items = cloneAll(n.Keys), cloneAll(n.Vals), cloneAll(n.Items)
	return &c
}

func cloneAll(ns []*Node) []*Node {
	if ns == nil {
		return nil
	}
	out := make([]*Node, len(ns))
	for i, n := range ns {
		out[i] = n.Clone()
	}
	return out
}

// Count returns the number of nodes in the tree under n, n included (0 for nil).
func (n *Node) Count() int {
	if n == nil {
		return 0
	}
	total := 1
	for _, s := range [][]*Node{n.Keys, n.Vals, n.Items} {
		for _, x := range s {
			total += x.Count()
		}
	}
	return total
}

// MarkOverride positions n and every node under it at the override it came from.
func (n *Node) MarkOverride(override string) {
	if n == nil {
		return
	}
	n.Pos = Pos{Override: override}
	for _, s := range [][]*Node{n.Keys, n.Vals, n.Items} {
		for _, x := range s {
			x.MarkOverride(override)
		}
	}
}

// segment is one step of a field path: a mapping key, optionally followed by indices.
type segment struct {
	key     string
	indices []int
}

// parsePath reads a field path such as clients[0].driver.adaptiveRetries.
func parsePath(path string) ([]segment, error) {
	if path == "" {
		return nil, errors.New("empty path")
	}
	var out []segment
	for _, part := range strings.Split(path, ".") {
		key, rest, _ := strings.Cut(part, "[")
		if key == "" {
			return nil, fmt.Errorf("path %q: empty field name", path)
		}
		seg := segment{key: key}
		if rest != "" || strings.Contains(part, "[") {
			rest = "[" + rest
			for rest != "" {
				if rest[0] != '[' {
					return nil, fmt.Errorf("path %q: want [index] after %s", path, key)
				}
				end := strings.IndexByte(rest, ']')
				if end < 0 {
					return nil, fmt.Errorf("path %q: missing ]", path)
				}
				i, err := strconv.Atoi(rest[1:end])
				if err != nil || i < 0 {
					return nil, fmt.Errorf("path %q: index %q: want an integer ≥ 0", path, rest[1:end])
				}
				seg.indices = append(seg.indices, i)
				rest = rest[end+1:]
			}
		}
		out = append(out, seg)
	}
	return out, nil
}

// Set replaces (or creates) the value at path (a field path such as clients[0].count) under
// n with v. Missing mappings on the way are created; a sequence index may be the sequence's
// length, which appends. A path that does not fit the tree (a key under a list, an index out
// of range) is an error naming the path.
func (n *Node) Set(path string, v *Node) error {
	segs, err := parsePath(path)
	if err != nil {
		return err
	}
	cur := n
	done := ""
	for si, seg := range segs {
		if cur.Kind == NullKind {
			cur.Kind = MapKind
		}
		if cur.Kind != MapKind {
			return fmt.Errorf("path %q: %s is not a mapping", path, describePath(done))
		}
		last := si == len(segs)-1 && len(seg.indices) == 0
		child := cur.Get(seg.key)
		if child == nil {
			child = &Node{Kind: NullKind, Pos: v.Pos}
			cur.Keys = append(cur.Keys, &Node{Kind: ScalarKind, Text: seg.key, Pos: v.Pos})
			cur.Vals = append(cur.Vals, child)
		}
		done = JoinPath(done, seg.key)
		if last {
			*child = *v
			return nil
		}
		cur = child
		for ii, idx := range seg.indices {
			if cur.Kind == NullKind {
				cur.Kind = SeqKind
			}
			if cur.Kind != SeqKind {
				return fmt.Errorf("path %q: %s is not a list", path, describePath(done))
			}
			switch {
			case idx < len(cur.Items):
			case idx == len(cur.Items):
				cur.Items = append(cur.Items, &Node{Kind: NullKind, Pos: v.Pos})
			default:
				return fmt.Errorf("path %q: %s has %d entries; index %d is out of range", path, done, len(cur.Items), idx)
			}
			done += "[" + strconv.Itoa(idx) + "]"
			if si == len(segs)-1 && ii == len(seg.indices)-1 {
				*cur.Items[idx] = *v
				return nil
			}
			cur = cur.Items[idx]
		}
	}
	return nil
}

func describePath(p string) string {
	if p == "" {
		return "the document"
	}
	return p
}

// JoinPath returns the path of field key under parent ("" for the top level).
func JoinPath(parent, key string) string {
	if parent == "" {
		return key
	}
	return parent + "." + key
}

// ParentPath strips the last field or index from a path: clients for clients[0], clients[0]
// for clients[0].count, "" for a top-level field.
func ParentPath(p string) string {
	i := strings.LastIndexAny(p, ".[")
	if i < 0 {
		return ""
	}
	return p[:i]
}
