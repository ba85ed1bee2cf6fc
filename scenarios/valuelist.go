package scenarios

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/overloadsim/overloadsim/internal/yamlstrict"
)

// listError is what is wrong with a value list (the values of a --vary): the rule it breaks
// and where, pos counting characters (runes) from 1 at the start of the list.
type listError struct {
	pos   int
	msg   string
	empty bool // an empty value, not unbalanced brackets or quotes
}

func (e *listError) Error() string { return e.msg }

// splitValues splits a value list, a,b,c, at its top-level commas, and trims each value. A
// comma inside brackets, braces or parentheses ([1s, 2s], {kind: step, at: 10s},
// lognormal(1ms, 0.5)) or inside a quoted string ("a,b", 'a,b') belongs to its value. A quote
// opens a quoted string where a YAML value can start: at the start of a value, or after one of
// [ { ( , : (spaces aside); elsewhere, as in don't, it is a character of the value. Inside
// double quotes a backslash escapes the next character; inside single quotes a doubled quote
// stands for one.
//
// Brackets, braces and parentheses must be balanced and properly nested, quotes closed, and no
// value may be empty: anything else is a *listError naming the character and its position.
func splitValues(list string) ([]string, error) { return splitList(list, 0) }

// splitList is splitValues with base added to every position: list is part of a longer text,
// after its first base characters.
func splitList(list string, base int) ([]string, error) {
	type open struct {
		r   rune
		pos int
	}
	var (
		out      []string
		stack    []open
		start    int    // byte offset where the current value starts
		pos      = base // position (runes, from 1) of the current rune
		prev     rune   // the last non-space rune outside quotes; 0 at the start of a value
		quote    rune   // the open quote; 0 for none
		quotePos int
		comma    int // position of the last top-level comma
	)
	closer := map[rune]rune{'[': ']', '{': '}', '(': ')'}
	// empty reports the empty value that ends at a comma at position at, or at the end (at 0).
	empty := func(at int) error {
		switch {
		case strings.TrimSpace(list) == "":
			return &listError{pos: base + 1, msg: "no values: want a,b,c, [a, b, c] or from:to:step", empty: true}
		case at > 0:
			return &listError{pos: at, msg: fmt.Sprintf("value %d is empty: nothing before the comma at character %d", len(out)+1, at), empty: true}
		}
		return &listError{pos: comma, msg: fmt.Sprintf("value %d is empty: nothing after the comma at character %d", len(out)+1, comma), empty: true}
	}
	for i := 0; i < len(list); {
		r, size := utf8.DecodeRuneInString(list[i:])
		pos++
		next := i + size
		if quote != 0 {
			switch {
			case quote == '"' && r == '\\' && next < len(list):
				_, s := utf8.DecodeRuneInString(list[next:])
				next += s
				pos++
			case quote == '\'' && r == '\'' && next < len(list) && list[next] == '\'':
				next++
				pos++
			case r == quote:
				quote, prev = 0, r
			}
			i = next
			continue
		}
		if unicode.IsSpace(r) { // as strings.TrimSpace, which trims the values, sees it
			i = next
			continue
		}
		switch r {
		case '"', '\'':
			if prev == 0 || strings.ContainsRune("[{(,:", prev) {
				quote, quotePos = r, pos
			}
		case '[', '{', '(':
			stack = append(stack, open{r, pos})
		case ']', '}', ')':
			if len(stack) == 0 {
				return nil, &listError{pos: pos, msg: fmt.Sprintf("%q at character %d closes nothing", r, pos)}
			}
			top := stack[len(stack)-1]
			if closer[top.r] != r {
				return nil, &listError{pos: pos, msg: fmt.Sprintf("%q at character %d does not close %q at character %d", r, pos, top.r, top.pos)}
			}
			stack = stack[:len(stack)-1]
		case ',':
			if len(stack) == 0 {
				v := strings.TrimSpace(list[start:i])
				if v == "" {
					return nil, empty(pos)
				}
				out = append(out, v)
				start, prev, comma, i = next, 0, pos, next
				continue
			}
		}
		prev = r
		i = next
	}
	if quote != 0 {
		return nil, &listError{pos: quotePos, msg: fmt.Sprintf("the quote %q at character %d is never closed", quote, quotePos)}
	}
	if len(stack) > 0 {
		top := stack[len(stack)-1]
		return nil, &listError{pos: top.pos, msg: fmt.Sprintf("%q at character %d is never closed", top.r, top.pos)}
	}
	v := strings.TrimSpace(list[start:])
	if v == "" {
		return nil, empty(0)
	}
	return append(out, v), nil
}

// isRange reports whether a lone value is a range, from:to:step: two colons and none of the
// characters of a flow collection, a function or a quoted string.
func isRange(v string) bool {
	return strings.Count(v, ":") == 2 && !strings.ContainsAny(v, "[]{}()\"' \t")
}

// varyValues reads the values of a --vary: a range from:to:step (a scalar node, which the
// sweep expands), a YAML flow list [a, b, {x: 1}], or a list a,b,c split by splitValues, each
// value YAML as Set reads it. Every node gets the override as its position. A bad list is a
// Problem of the override.
func varyValues(file, label, path, spec string) (*yamlstrict.Node, error) {
	bad := func(value, rule string) error {
		if value == "" {
			value = `""`
		}
		return Problems{{File: file, Override: label, Path: "sweep.parameters." + path, Value: value, Rule: rule}}
	}
	items, err := splitValues(spec)
	if err != nil {
		return nil, bad(spec, err.Error())
	}
	var values *yamlstrict.Node
	switch {
	case len(items) == 1 && isRange(items[0]):
		values = &yamlstrict.Node{Kind: yamlstrict.ScalarKind, Text: items[0]}
	case len(items) == 1 && strings.HasPrefix(items[0], "[") && strings.HasSuffix(items[0], "]"):
		// One flow list, [a, b, c]: its items are the values, split as a list is, so that
		// [lognormal(1ms, 0.5), exp(2ms)] is two values. (To sweep over one list value, write
		// [[a, b]].)
		open := strings.IndexByte(spec, '[')
		inner, err := splitList(items[0][1:len(items[0])-1], utf8.RuneCountInString(spec[:open+1]))
		var le *listError
		switch {
		case err == nil:
			items = inner
		case errors.As(err, &le) && le.empty:
			return nil, bad(spec, err.Error())
		}
		// Otherwise the first [ does not close at the end ([a] [b]): one value, which YAML
		// reads, or not.
		fallthrough
	default:
		values = &yamlstrict.Node{Kind: yamlstrict.SeqKind}
		for i, it := range items {
			n, rule := scenarioFile.ParseValue(it)
			if rule != "" {
				if len(items) > 1 {
					rule = fmt.Sprintf("value %d of %d: %s", i+1, len(items), rule)
				}
				return nil, bad(it, rule)
			}
			values.Items = append(values.Items, n)
		}
	}
	values.MarkOverride(label)
	return values, nil
}
