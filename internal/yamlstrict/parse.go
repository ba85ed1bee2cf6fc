package yamlstrict

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
	"github.com/overloadsim/overloadsim/internal/fileinfo"
)

// MaxNodes bounds the nodes a document may expand to, aliases included, so that an alias bomb
// ("billion laughs") is an error rather than a hang.
const MaxNodes = 100_000

// Input is a kind of YAML input, as Parse bounds it and its problems name it.
type Input struct {
	What     string // the input in the rules of problems: "a scenario file"
	MaxBytes int    // the most bytes it may hold
}

// SizeRule is the rule an input larger than in.MaxBytes breaks.
func (in Input) SizeRule() string {
	return fmt.Sprintf("%s holds at most %s (%d bytes)", in.What, fileinfo.Size(int64(in.MaxBytes)), in.MaxBytes)
}

// Parse parses one YAML document into a node tree. A syntax error is an *Error at its line and
// column, and so is input beyond the limits (its size, in.MaxBytes; its characters, tokens,
// nesting and mappings' keys, Prescan's), which is refused before the parser sees it. An empty
// document is an empty mapping. The problems found are returned in the order found: one, or a
// key's own and the one of the key it makes.
func (in Input) Parse(data []byte) (*Node, []*Error) { return in.parse(data, true) }

// ParseCanonical parses text that this program wrote from an input read within the limits (a
// canonical text, Text): only its nesting and its mappings' keys, which the parser's cost grows
// with the square of, are checked, not its size or tokens, as a canonical text with every
// default written out is several times the input it came from.
func (in Input) ParseCanonical(data []byte) (*Node, []*Error) { return in.parse(data, false) }

// ParseValue reads one YAML value, as an override gives it: a scalar such as 3, 250ms or true,
// or a flow collection such as {kind: step, …} or [a, b]. It returns the value, or what is
// wrong with it (the rule, without the value).
func (in Input) ParseValue(value string) (*Node, string) {
	n, errs := in.Parse([]byte("v: " + value))
	if errs != nil {
		return nil, field.ShowN(errs[0].Rule, field.MaxRuleRunes)
	}
	v := n.Get("v")
	if v == nil || len(n.Keys) != 1 {
		return nil, "not a single YAML value"
	}
	return v, ""
}

// parse is Parse, and ParseCanonical without bound.
func (in Input) parse(data []byte, bound bool) (n *Node, errs []*Error) {
	defer func() {
		// The YAML parser is third-party code: a panic inside it on malformed input must not
		// take down a caller that only asked to validate a file.
		if r := recover(); r != nil {
			n, errs = nil, []*Error{{Path: "(document)", Value: "(unparsable)", Rule: fmt.Sprintf("YAML parser failed: %v", r)}}
		}
	}()
	// A byte-order mark may start a YAML stream (editors on Windows write one); the parser
	// would read it as part of the first key.
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	// The parser's time and memory grow faster than its input (with the square of the
	// nesting): bound the input first, on the raw bytes and then on the lexer's tokens.
	if bound {
		if len(data) > in.MaxBytes {
			return nil, []*Error{{Path: "(file)", Value: strconv.Itoa(len(data)) + " bytes", Rule: in.SizeRule()}}
		}
		if e := Prescan(data, in.What); e != nil {
			return nil, []*Error{e}
		}
	}
	tokens := lexer.Tokenize(string(data))
	if e := CheckTokens(tokens); e != nil {
		return nil, []*Error{e}
	}
	f, perr := parser.Parse(tokens, 0)
	if perr != nil {
		return nil, []*Error{syntaxError(perr)}
	}
	var docs []*ast.DocumentNode
	for _, d := range f.Docs {
		if d != nil && d.Body != nil {
			docs = append(docs, d)
		}
	}
	switch len(docs) {
	case 0:
		return &Node{Kind: MapKind, Pos: Pos{Line: 1, Col: 1}}, nil
	case 1:
	default:
		p := docs[1].Body.GetToken().Position
		return nil, []*Error{{Line: p.Line, Col: p.Column, Path: "(document)", Value: strconv.Itoa(len(docs)) + " documents", Rule: in.What + " holds exactly one YAML document"}}
	}
	c := converter{anchors: map[string]*Node{}}
	root := c.convert(docs[0].Body, 0)
	if c.errs != nil {
		return nil, c.errs
	}
	return root, nil
}

// syntaxError turns a parser error into an *Error at its position.
func syntaxError(err error) *Error {
	var ye yaml.Error
	if errors.As(err, &ye) && ye.GetToken() != nil && ye.GetToken().Position != nil {
		p := ye.GetToken().Position
		msg, tok := ye.GetMessage(), ye.GetToken().Value
		if len(tok) > field.MaxValueRunes {
			// The parser's messages quote the token ("mapping key "…" already defined"): a
			// long one as the value is shown, so that the rest of the message shows too.
			msg = strings.ReplaceAll(msg, tok, field.Show(tok))
		}
		return &Error{Line: p.Line, Col: p.Column, Path: "(syntax)", Value: describeToken(tok), Rule: msg}
	}
	return &Error{Path: "(syntax)", Value: "(document)", Rule: err.Error()}
}

func describeToken(s string) string {
	if s == "" {
		return `""`
	}
	return strconv.Quote(s)
}

// converter turns the parser's AST into nodes, resolving anchors and aliases. It converts
// nothing more after a problem, but for the key being converted, whose own problem follows.
type converter struct {
	anchors map[string]*Node
	count   int
	errs    []*Error
}

func (c *converter) fail(p Pos, value, rule string) *Node {
	c.errs = append(c.errs, &Error{Line: p.Line, Col: p.Col, Path: "(syntax)", Value: value, Rule: rule})
	return &Node{Kind: NullKind, Pos: p}
}

func positionOf(a ast.Node) Pos {
	if a == nil {
		return Pos{}
	}
	if tk := a.GetToken(); tk != nil && tk.Position != nil {
		return Pos{Line: tk.Position.Line, Col: tk.Position.Column}
	}
	return Pos{}
}

func (c *converter) convert(a ast.Node, depth int) *Node {
	p := positionOf(a)
	if c.errs != nil {
		return &Node{Kind: NullKind, Pos: p}
	}
	if depth > MaxDepth {
		return c.fail(p, "(nesting)", fmt.Sprintf("nested deeper than %d levels", MaxDepth))
	}
	c.count++
	if c.count > MaxNodes {
		return c.fail(p, "(document)", fmt.Sprintf("expands to more than %d values (check aliases)", MaxNodes))
	}
	switch a := a.(type) {
	case nil:
		return &Node{Kind: NullKind, Pos: p}
	case *ast.NullNode:
		return &Node{Kind: NullKind, Pos: p}
	case *ast.StringNode:
		return &Node{Kind: ScalarKind, Text: a.Value, Pos: p}
	case *ast.LiteralNode:
		v := ""
		if a.Value != nil {
			v = a.Value.Value
		}
		return &Node{Kind: ScalarKind, Text: v, Pos: p}
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.InfinityNode, *ast.NanNode:
		return &Node{Kind: ScalarKind, Text: a.GetToken().Value, Pos: p}
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
		// Each use of an alias is a copy, counted towards MaxNodes.
		c.count += target.Count()
		if c.count > MaxNodes {
			return c.fail(p, "*"+name, fmt.Sprintf("expands to more than %d values", MaxNodes))
		}
		return target.Clone()
	case *ast.MappingNode:
		m := &Node{Kind: MapKind, Pos: p}
		for _, mv := range a.Values {
			c.entry(m, mv, depth)
		}
		if len(a.Values) > 0 {
			m.Pos = positionOf(a.Values[0].Key)
		}
		return m
	case *ast.MappingValueNode:
		m := &Node{Kind: MapKind, Pos: positionOf(a.Key)}
		c.entry(m, a, depth)
		return m
	case *ast.SequenceNode:
		s := &Node{Kind: SeqKind, Pos: p}
		for _, v := range a.Values {
			s.Items = append(s.Items, c.convert(v, depth+1))
		}
		return s
	}
	return c.fail(p, a.Type().String(), "unsupported YAML construct")
}

// entry converts one key: value pair into m.
func (c *converter) entry(m *Node, mv *ast.MappingValueNode, depth int) {
	if c.errs != nil {
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
	if k.Kind != ScalarKind {
		c.fail(kp, "(key)", "a key must be a plain name")
		return
	}
	if len(m.Keys) >= MaxKeys {
		c.fail(kp, "more than "+strconv.Itoa(MaxKeys)+" keys", fmt.Sprintf("a mapping holds at most %d keys", MaxKeys))
		return
	}
	for _, old := range m.Keys {
		if old.Text == k.Text {
			c.fail(kp, strconv.Quote(k.Text), fmt.Sprintf("duplicate key (first on line %d)", old.Pos.Line))
			return
		}
	}
	m.Keys = append(m.Keys, k)
	m.Vals = append(m.Vals, c.convert(mv.Value, depth+1))
}
