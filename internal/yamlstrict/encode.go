package yamlstrict

import (
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Encode builds the canonical node tree of v, field f: struct fields in declaration order,
// mapping keys sorted, omitzero fields left out when zero, nil pointers left out (nil), what s
// writes as s writes it. It panics on a type it cannot write, which is a programming error.
func Encode(v reflect.Value, f Field, s Schema) *Node {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		return Encode(v.Elem(), f, s)
	}
	if n, ok := s.Write(v, f); ok {
		return n
	}
	if v.Type() == durationType {
		return NewScalar(time.Duration(v.Int()).String())
	}
	switch v.Kind() {
	case reflect.Struct:
		m := &Node{Kind: MapKind}
		for _, fi := range Fields(v.Type(), s) {
			fv := v.FieldByIndex(fi.Index)
			if fi.Has("omitzero") && fv.IsZero() {
				continue
			}
			c := Encode(fv, fi, s)
			if c == nil {
				continue
			}
			m.Keys = append(m.Keys, NewScalar(fi.Name))
			m.Vals = append(m.Vals, c)
		}
		return m
	case reflect.Slice:
		n := &Node{Kind: SeqKind}
		for i := 0; i < v.Len(); i++ {
			n.Items = append(n.Items, Encode(v.Index(i), f.elem(), s))
		}
		return n
	case reflect.Map:
		m := &Node{Kind: MapKind}
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
		for _, k := range keys {
			m.Keys = append(m.Keys, NewScalar(k.String()))
			m.Vals = append(m.Vals, Encode(v.MapIndex(k), f.elem(), s))
		}
		return m
	case reflect.String:
		return NewScalar(v.String())
	case reflect.Bool:
		return NewScalar(strconv.FormatBool(v.Bool()))
	case reflect.Int, reflect.Int64:
		return NewScalar(strconv.FormatInt(v.Int(), 10))
	case reflect.Uint64:
		return NewScalar(strconv.FormatUint(v.Uint(), 10))
	case reflect.Float64:
		return NewScalar(FormatFloat(v.Float()))
	}
	panic("yamlstrict: Encode: unsupported type " + v.Type().String())
}

// FormatFloat prints x in the fewest digits that read back exactly, without an exponent
// between 1e-4 and 1e21.
func FormatFloat(x float64) string {
	if a := math.Abs(x); a == 0 || a >= 1e-4 && a < 1e21 {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// Text returns the canonical text of n: block-style YAML, indented by two spaces, with short
// collections of scalars written on one line in flow style. Parse reads it back to the same
// tree.
func Text(n *Node) string {
	if n.Kind == SeqKind && len(n.Items) == 0 {
		// In block style an empty list is no text at all: an empty document, which Parse reads
		// as an empty mapping.
		return "[]\n"
	}
	var b strings.Builder
	writeBlock(&b, n, 0)
	return b.String()
}

// writeBlock prints n as block-style YAML at the given indentation.
func writeBlock(b *strings.Builder, n *Node, indent int) {
	pad := strings.Repeat("  ", indent)
	switch n.Kind {
	case MapKind:
		for i, k := range n.Keys {
			b.WriteString(pad)
			b.WriteString(quoteKey(k.Text, false))
			b.WriteString(":")
			writeChild(b, n.Vals[i], indent)
		}
	case SeqKind:
		for _, it := range n.Items {
			b.WriteString(pad)
			b.WriteString("-")
			if it.Kind == MapKind && len(it.Keys) > 0 {
				// The first field goes on the dash's line, the rest under it.
				var sub strings.Builder
				writeBlock(&sub, it, indent+1)
				b.WriteString(" ")
				b.WriteString(strings.TrimPrefix(sub.String(), pad+"  "))
				continue
			}
			writeChild(b, it, indent)
		}
	default:
		b.WriteString(pad)
		b.WriteString(Inline(n))
		b.WriteString("\n")
	}
}

// maxFlow is the longest collection of scalars written on one line, in flow style.
const maxFlow = 72

// flowFits reports whether n is a short collection of scalars, written in flow style.
func flowFits(n *Node) bool {
	for _, c := range append(slices.Clone(n.Vals), n.Items...) {
		if c.Kind != ScalarKind {
			return false
		}
	}
	return len(Flow(n)) <= maxFlow
}

// writeChild writes the value after "key:" or "-".
func writeChild(b *strings.Builder, v *Node, indent int) {
	switch {
	case (v.Kind == MapKind && len(v.Keys) > 0 || v.Kind == SeqKind && len(v.Items) > 0) && !flowFits(v):
		b.WriteString("\n")
		writeBlock(b, v, indent+1)
	default:
		b.WriteString(" ")
		b.WriteString(Inline(v))
		b.WriteString("\n")
	}
}

// Inline returns n as it is written on one line: a scalar as plain or quoted text, null, a
// collection in flow style.
func Inline(n *Node) string {
	switch n.Kind {
	case NullKind:
		return "null"
	case MapKind, SeqKind:
		return Flow(n)
	}
	return quoteIfNeeded(n.Text, false)
}

// Flow formats n as flow-style YAML on one line ({a: 1, b: [x, y]}), for values in messages
// and lists.
func Flow(n *Node) string {
	switch n.Kind {
	case NullKind:
		return "null"
	case ScalarKind:
		return quoteIfNeeded(n.Text, true)
	case SeqKind:
		parts := make([]string, len(n.Items))
		for i, it := range n.Items {
			if it.Kind == ScalarKind {
				parts[i] = quoteItem(it.Text)
			} else {
				parts[i] = Flow(it)
			}
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	parts := make([]string, len(n.Keys))
	for i := range n.Keys {
		parts[i] = quoteKey(n.Keys[i].Text, true) + ": " + Flow(n.Vals[i])
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

// quoteKey is quoteIfNeeded for a mapping's key: a "<<" anywhere in a plain key makes it a
// merge key to the parser, which Parse refuses, and in flow context the parser ends a plain key
// at its first colon ({a:b: c} is {a: "b: c"}).
func quoteKey(s string, flow bool) string {
	if strings.Contains(s, "<<") || flow && strings.Contains(s, ":") {
		return strconv.Quote(s)
	}
	return quoteIfNeeded(s, flow)
}

// quoteItem is quoteIfNeeded for an item of a flow list: inside a flow mapping the parser reads
// a plain a:b there as the mapping {a: b}. (A flow mapping's value, such as a sweep's range
// 1s:5s:1s, reads back plain.)
func quoteItem(s string) string {
	if strings.Contains(s, ":") {
		return strconv.Quote(s)
	}
	return quoteIfNeeded(s, true)
}

// plainSafe reports whether s, written plain, reads back as the same text, to this package's
// parser and to other YAML readers alike.
func plainSafe(s string, flow bool) bool {
	if s == "" || s != strings.TrimSpace(s) {
		return false
	}
	switch strings.ToLower(s) {
	case "null", "~", "true", "false", "yes", "no", "on", "off", ".inf", "-.inf", "+.inf", ".nan", "<<":
		// YAML would read these as other types (<< as a merge key); the decoder reads text,
		// but quoting keeps the file unambiguous for other readers.
		if s != "true" && s != "false" {
			return false
		}
	}
	if strings.HasPrefix(s, "---") || strings.HasPrefix(s, "...") {
		// Where a line starts, a document's start or end marker: the parser reads "..." there
		// as the end of the document, and "... x" as x.
		return false
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
		case r != ' ' && !unicode.IsPrint(r):
			// Controls, format characters (a byte-order mark), line and paragraph separators,
			// noncharacters the parser refuses (U+FFFE): strconv.Quote escapes exactly these.
			return false
		case flow && strings.ContainsRune(",[]{}", r):
			return false
		}
	}
	return true
}
