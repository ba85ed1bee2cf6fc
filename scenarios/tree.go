package scenarios

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/lexer"
	"github.com/goccy/go-yaml/parser"

	"github.com/overloadsim/overloadsim/field"
	"github.com/overloadsim/overloadsim/internal/yamlstrict"
)

// nodeKind is the shape of a YAML node.
type nodeKind uint8

const (
	nullNode nodeKind = iota
	scalarNode
	mapNode
	seqNode
)

// node is one YAML node with where it came from. The decoder reads scalars from their text, so
// a node keeps the text as written (unescaped when quoted), whatever type YAML would give it.
type node struct {
	kind  nodeKind
	text  string  // scalarNode
	keys  []*node // mapNode: keys (scalars), in file order
	vals  []*node // mapNode: values, parallel to keys
	items []*node // seqNode
	pos   pos
}

// pos is a position in a scenario file, or the --set override a value came from.
type pos struct {
	line, col int
	set       string // non-empty: the override the value came from ("--set path=value"), not the file
}

// get returns the value of key in a mapping, or nil.
func (n *node) get(key string) *node {
	if n == nil || n.kind != mapNode {
		return nil
	}
	for i, k := range n.keys {
		if k.text == key {
			return n.vals[i]
		}
	}
	return nil
}

// lookup returns the node at path under n (a field path such as points[2].at), or nil when
// n has none there.
func (n *node) lookup(path string) *node {
	segs, err := parsePath(path)
	if err != nil {
		return nil
	}
	cur := n
	for _, seg := range segs {
		if cur = cur.get(seg.key); cur == nil {
			return nil
		}
		for _, i := range seg.indices {
			if cur.kind != seqNode || i >= len(cur.items) {
				return nil
			}
			cur = cur.items[i]
		}
	}
	return cur
}

// clone returns a deep copy of n.
func (n *node) clone() *node {
	if n == nil {
		return nil
	}
	c := *n
	c.keys, c.vals, c.items = cloneAll(n.keys), cloneAll(n.vals), cloneAll(n.items)
	return &c
}

func cloneAll(ns []*node) []*node {
	if ns == nil {
		return nil
	}
	out := make([]*node, len(ns))
	for i, n := range ns {
		out[i] = n.clone()
	}
	return out
}

// maxNodes bounds the nodes a document may expand to, aliases included, so that an alias bomb
// ("billion laughs") is an error rather than a hang.
const maxNodes = 100_000

// parseTree parses one YAML document into a node tree. A syntax error comes back as a Problem
// with its line and column, and so does input beyond the limits of limits.go (its size, its
// characters, its tokens, its nesting, its mappings' keys), which is refused before the
// parser sees it. An empty document is an empty mapping.
func parseTree(file string, data []byte) (*node, error) { return parseYAML(file, data, true) }

// canonicalTree parses the canonical text of a scenario (Scenario.String), which this package
// wrote from a scenario that was read within the limits: only its nesting and its mappings'
// keys, which the parser's cost grows with the square of, are checked, not its size or tokens,
// as every default written out makes it several times the file it came from.
func canonicalTree(file, text string) (*node, error) { return parseYAML(file, []byte(text), false) }

// parseYAML is parseTree, and canonicalTree without bound.
func parseYAML(file string, data []byte, bound bool) (n *node, err error) {
	defer func() {
		// The YAML parser is third-party code: a panic inside it on malformed input must not
		// take down a caller that only asked to validate a file.
		if r := recover(); r != nil {
			n, err = nil, Problems{{File: file, Path: "(document)", Value: "(unparsable)", Rule: fmt.Sprintf("YAML parser failed: %v", r)}}
		}
	}()
	// A byte-order mark may start a YAML stream (editors on Windows write one); the parser
	// would read it as part of the first key.
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	// The parser's time and memory grow faster than its input (with the square of the
	// nesting): bound the input first, on the raw bytes and then on the lexer's tokens.
	if bound {
		if ps := boundInput(file, data); ps != nil {
			return nil, ps
		}
	}
	tokens := lexer.Tokenize(string(data))
	if ps := checkNesting(file, tokens); ps != nil {
		return nil, ps
	}
	f, err := parser.Parse(tokens, 0)
	if err != nil {
		return nil, syntaxProblem(file, err)
	}
	var docs []*ast.DocumentNode
	for _, d := range f.Docs {
		if d != nil && d.Body != nil {
			docs = append(docs, d)
		}
	}
	switch len(docs) {
	case 0:
		return &node{kind: mapNode, pos: pos{line: 1, col: 1}}, nil
	case 1:
	default:
		p := docs[1].Body.GetToken().Position
		return nil, Problems{{File: file, Line: p.Line, Col: p.Column, Path: "(document)", Value: strconv.Itoa(len(docs)) + " documents", Rule: "a scenario file holds exactly one YAML document"}}
	}
	c := converter{file: file, anchors: map[string]*node{}}
	root := c.convert(docs[0].Body, 0)
	if len(c.probs) > 0 {
		return nil, c.probs
	}
	return root, nil
}

// syntaxProblem turns a parser error into a Problem at its position.
func syntaxProblem(file string, err error) Problems {
	var ye yaml.Error
	if errors.As(err, &ye) && ye.GetToken() != nil && ye.GetToken().Position != nil {
		p := ye.GetToken().Position
		msg, tok := ye.GetMessage(), ye.GetToken().Value
		if len(tok) > field.MaxValueRunes {
			// The parser's messages quote the token ("mapping key "…" already defined"): a
			// long one as the value is shown, so that the rest of the message shows too.
			msg = strings.ReplaceAll(msg, tok, field.Show(tok))
		}
		return Problems{{File: file, Line: p.Line, Col: p.Column, Path: "(syntax)", Value: describeToken(tok), Rule: msg}}
	}
	return Problems{{File: file, Path: "(syntax)", Value: "(document)", Rule: err.Error()}}
}

func describeToken(s string) string {
	if s == "" {
		return `""`
	}
	return strconv.Quote(s)
}

// converter turns the parser's AST into nodes, resolving anchors and aliases.
type converter struct {
	file    string
	anchors map[string]*node
	count   int
	probs   Problems
}

func (c *converter) fail(p pos, value, rule string) *node {
	c.probs = append(c.probs, Problem{File: c.file, Line: p.line, Col: p.col, Path: "(syntax)", Value: value, Rule: rule})
	return &node{kind: nullNode, pos: p}
}

func positionOf(a ast.Node) pos {
	if a == nil {
		return pos{}
	}
	if tk := a.GetToken(); tk != nil && tk.Position != nil {
		return pos{line: tk.Position.Line, col: tk.Position.Column}
	}
	return pos{}
}

func (c *converter) convert(a ast.Node, depth int) *node {
	p := positionOf(a)
	if len(c.probs) > 0 {
		return &node{kind: nullNode, pos: p}
	}
	if depth > yamlstrict.MaxDepth {
		return c.fail(p, "(nesting)", fmt.Sprintf("nested deeper than %d levels", yamlstrict.MaxDepth))
	}
	c.count++
	if c.count > maxNodes {
		return c.fail(p, "(document)", fmt.Sprintf("expands to more than %d values (check aliases)", maxNodes))
	}
	switch a := a.(type) {
	case nil:
		return &node{kind: nullNode, pos: p}
	case *ast.NullNode:
		return &node{kind: nullNode, pos: p}
	case *ast.StringNode:
		return &node{kind: scalarNode, text: a.Value, pos: p}
	case *ast.LiteralNode:
		v := ""
		if a.Value != nil {
			v = a.Value.Value
		}
		return &node{kind: scalarNode, text: v, pos: p}
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.InfinityNode, *ast.NanNode:
		return &node{kind: scalarNode, text: a.GetToken().Value, pos: p}
	case *ast.TagNode:
		return c.convert(a.Value, depth+1)
	case *ast.AnchorNode:
		v := c.convert(a.Value, depth+1)
		if a.Name != nil {
			c.anchors[a.Name.GetToken().Value] = v
		}
		return v
	case *ast.AliasNode:
		name := ""
		if a.Value != nil {
			name = a.Value.GetToken().Value
		}
		target, ok := c.anchors[name]
		if !ok {
			return c.fail(p, "*"+name, "unknown alias")
		}
		// Each use of an alias is a copy, counted towards maxNodes.
		c.count += countNodes(target)
		if c.count > maxNodes {
			return c.fail(p, "*"+name, fmt.Sprintf("expands to more than %d values", maxNodes))
		}
		return target.clone()
	case *ast.MappingNode:
		m := &node{kind: mapNode, pos: p}
		for _, mv := range a.Values {
			c.entry(m, mv, depth)
		}
		if len(a.Values) > 0 {
			m.pos = positionOf(a.Values[0].Key)
		}
		return m
	case *ast.MappingValueNode:
		m := &node{kind: mapNode, pos: positionOf(a.Key)}
		c.entry(m, a, depth)
		return m
	case *ast.SequenceNode:
		s := &node{kind: seqNode, pos: p}
		for _, v := range a.Values {
			s.items = append(s.items, c.convert(v, depth+1))
		}
		return s
	}
	return c.fail(p, a.Type().String(), "unsupported YAML construct")
}

// entry converts one key: value pair into m.
func (c *converter) entry(m *node, mv *ast.MappingValueNode, depth int) {
	if len(c.probs) > 0 {
		return
	}
	kp := positionOf(mv.Key)
	if mv.Key == nil {
		c.fail(kp, "(key)", "missing key")
		return
	}
	if mv.Key.IsMergeKey() {
		c.fail(kp, "<<", "merge keys are not supported; repeat the fields")
		return
	}
	k := c.convert(mv.Key, depth+1)
	if k.kind != scalarNode {
		c.fail(kp, "(key)", "a key must be a plain name")
		return
	}
	if len(m.keys) >= yamlstrict.MaxKeys {
		c.fail(kp, "more than "+strconv.Itoa(yamlstrict.MaxKeys)+" keys", fmt.Sprintf("a mapping holds at most %d keys", yamlstrict.MaxKeys))
		return
	}
	for _, old := range m.keys {
		if old.text == k.text {
			c.fail(kp, strconv.Quote(k.text), fmt.Sprintf("duplicate key (first on line %d)", old.pos.line))
			return
		}
	}
	m.keys = append(m.keys, k)
	m.vals = append(m.vals, c.convert(mv.Value, depth+1))
}

func countNodes(n *node) int {
	if n == nil {
		return 0
	}
	total := 1
	for _, s := range [][]*node{n.keys, n.vals, n.items} {
		for _, x := range s {
			total += countNodes(x)
		}
	}
	return total
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

// setPath replaces (or creates) the value at path in root with v. Missing mappings on the way
// are created; a sequence index may be the sequence's length, which appends.
func setPath(root *node, path string, v *node) error {
	segs, err := parsePath(path)
	if err != nil {
		return err
	}
	cur := root
	done := ""
	for si, seg := range segs {
		if cur.kind == nullNode {
			cur.kind = mapNode
		}
		if cur.kind != mapNode {
			return fmt.Errorf("path %q: %s is not a mapping", path, describePath(done))
		}
		last := si == len(segs)-1 && len(seg.indices) == 0
		child := cur.get(seg.key)
		if child == nil {
			child = &node{kind: nullNode, pos: v.pos}
			cur.keys = append(cur.keys, &node{kind: scalarNode, text: seg.key, pos: v.pos})
			cur.vals = append(cur.vals, child)
		}
		done = joinPath(done, seg.key)
		if last {
			*child = *v
			return nil
		}
		cur = child
		for ii, idx := range seg.indices {
			if cur.kind == nullNode {
				cur.kind = seqNode
			}
			if cur.kind != seqNode {
				return fmt.Errorf("path %q: %s is not a list", path, describePath(done))
			}
			switch {
			case idx < len(cur.items):
			case idx == len(cur.items):
				cur.items = append(cur.items, &node{kind: nullNode, pos: v.pos})
			default:
				return fmt.Errorf("path %q: %s has %d entries; index %d is out of range", path, done, len(cur.items), idx)
			}
			done += "[" + strconv.Itoa(idx) + "]"
			if si == len(segs)-1 && ii == len(seg.indices)-1 {
				*cur.items[idx] = *v
				return nil
			}
			cur = cur.items[idx]
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

func joinPath(parent, key string) string {
	if parent == "" {
		return key
	}
	return parent + "." + key
}

// parseValue reads the value of an override: any YAML value, typically a scalar such as 3,
// 250ms or true, or a flow collection such as {kind: step, …} or [a, b]. Every node gets the
// override as its position.
func parseValue(set, value string) (*node, error) {
	v, rule := parseYAMLValue(value)
	if rule != "" {
		return nil, fmt.Errorf("value %s: %s", field.Quote(value), rule)
	}
	markSet(v, set)
	return v, nil
}

// parseYAMLValue reads one YAML value, or says what is wrong with it (the rule, without the
// value).
func parseYAMLValue(value string) (*node, string) {
	n, err := parseTree("--set", []byte("v: "+value))
	if err != nil {
		var ps Problems
		if errors.As(err, &ps) && len(ps) > 0 {
			return nil, field.ShowN(ps[0].Rule, field.MaxRuleRunes)
		}
		return nil, err.Error()
	}
	v := n.get("v")
	if v == nil || len(n.keys) != 1 {
		return nil, "not a single YAML value"
	}
	return v, ""
}

func markSet(n *node, set string) {
	if n == nil {
		return
	}
	n.pos = pos{set: set}
	for _, s := range [][]*node{n.keys, n.vals, n.items} {
		for _, x := range s {
			markSet(x, set)
		}
	}
}

// flowText formats n as flow-style YAML on one line, for sweep values and messages.
func flowText(n *node) string {
	switch n.kind {
	case nullNode:
		return "null"
	case scalarNode:
		return quoteIfNeeded(n.text, true)
	case seqNode:
		parts := make([]string, len(n.items))
		for i, it := range n.items {
			parts[i] = flowText(it)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	parts := make([]string, len(n.keys))
	for i := range n.keys {
		parts[i] = quoteIfNeeded(n.keys[i].text, true) + ": " + flowText(n.vals[i])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// quoteIfNeeded returns s as a YAML scalar: plain when that reads back as the same text,
// double-quoted otherwise. In flow context commas and brackets also need quotes.
func quoteIfNeeded(s string, flow bool) string {
	if plainSafe(s, flow) {
		return s
	}
	return strconv.Quote(s)
}

func plainSafe(s string, flow bool) bool {
	if s == "" || s != strings.TrimSpace(s) {
		return false
	}
	switch strings.ToLower(s) {
	case "null", "~", "true", "false", "yes", "no", "on", "off", ".inf", "-.inf", "+.inf", ".nan":
		// YAML would read these as other types; the decoder reads text, but quoting keeps the
		// file unambiguous for other readers.
		if s != "true" && s != "false" {
			return false
		}
	}
	if strings.Contains(s, ": ") || strings.Contains(s, " #") || strings.HasSuffix(s, ":") {
		return false
	}
	switch s[0] {
	case '-', '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
		if !(s[0] == '-' && len(s) > 1 && (s[1] >= '0' && s[1] <= '9' || s[1] == '.')) {
			return false
		}
	}
	for _, r := range s {
		switch {
		case r < 0x20 || r == 0x7f || r == '\uFEFF':
			return false
		case flow && strings.ContainsRune(",[]{}", r):
			return false
		}
	}
	return true
}
