// Package field holds the one error type of overloadsim for invalid input: a field, the value it
// holds and the rule the value breaks. Every Validate in the module reports its problems as
// *Error values (joined with errors.Join when there are several), so a caller that knows more
// about where the input came from — the scenarios package knows the file, the line and the path
// of every field — can re-attribute each one with errors.As instead of reading messages.
//
// A package may put context before an error's message by wrapping it (fmt.Errorf("mongos: %w",
// err)); Parts and errors.As still find the *Error inside, and Prefix moves errors under a
// parent field.
//
// The rules read "must be ≥ 0", "must be ≤ duration 10s": comparisons are spelt ≥ and ≤
// throughout.
//
// Messages print input as Show does: a value that does not print (a NUL, a newline, bytes that
// are not UTF-8) is quoted so that it shows, and a long one is cut to a line's worth with its
// length, "aaaa…(1048576 bytes)"; the Error's fields keep the whole text.
package field

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Error is one invalid input value.
type Error struct {
	// Field names the field that holds the value, as its owner spells it: a name (workers), a
	// path (data.failCommands[0], circuitBreaker.volumeThreshold), or "" when the value is the
	// whole input (the text of a distribution, a fault as a whole).
	Field string
	// Value is the offending value as text, as the input wrote it or as Go prints it (%v):
	// -1ms, 0, "" or "db/1" (quoted where the quotes show what is wrong).
	Value string
	// Rule is what the value must satisfy: "must be ≥ 1", "no such node; nodes: a, b".
	Rule string
	// Err, when not nil, is what the error also matches under errors.Is and errors.As (a
	// package's sentinel such as dist.ErrInvalid, or the cause, such as a file error). It is not
	// part of the message.
	Err error
}

// New returns the error for field holding value, which breaks rule. value is printed with %v,
// so a string is used as given and a time.Duration reads 250ms.
func New(field string, value any, rule string) *Error {
	return &Error{Field: field, Value: fmt.Sprint(value), Rule: rule}
}

// Error formats e as "field: value: rule", leaving out an empty field or value. Each part is
// printed as Show prints it, cut to its own length (MaxValueRunes for the value, MaxFieldRunes
// and MaxRuleRunes for the others): an input of a megabyte gives a message of a line. Value,
// Field and Rule themselves keep the whole text.
func (e *Error) Error() string {
	parts := make([]string, 0, 3)
	for _, p := range []struct {
		s   string
		max int
	}{{e.Field, MaxFieldRunes}, {e.Value, MaxValueRunes}, {e.Rule, MaxRuleRunes}} {
		if p.s != "" {
			parts = append(parts, ShowN(p.s, p.max))
		}
	}
	return strings.Join(parts, ": ")
}

// The most runes of each part of a message that Error (and the messages of other packages that
// print input, such as a scenario's problems) prints; a longer part is cut, and says how long
// it was. A value is the input's; a field may hold input (a map key) but is mostly a path; a
// rule is the package's words, which may quote input, and the longest of them (a list of the
// codes the model knows) runs to some 650 runes.
const (
	MaxValueRunes = 80
	MaxFieldRunes = 200
	MaxRuleRunes  = 800
)

// Show returns value as a message prints it (ShowN with MaxValueRunes): as it is when it is
// printable text, quoted when it is not, and cut when it is long.
func Show(value string) string { return ShowN(value, MaxValueRunes) }

// ShowN returns s as a message prints it:
//
//   - as it is when it is valid UTF-8 whose runes all print (strconv.IsPrint, which allows the
//     ASCII space but no other blank) and there are at most max of them;
//   - Go-quoted (strconv.Quote) when it holds a control character (a NUL, a newline, a tab),
//     another rune that does not print (a byte-order mark, a bidirectional override) or bytes
//     that are not UTF-8, so that what is wrong can be seen and the message stays one line;
//   - cut after max runes, at a rune boundary, followed by "…(N bytes)", N the whole length.
//
// max < 1 means MaxValueRunes.
func ShowN(s string, max int) string {
	head, cut := cutRunes(s, max)
	if !printable(head) {
		head = strconv.Quote(head)
	}
	if cut {
		head += "…(" + strconv.Itoa(len(s)) + " bytes)"
	}
	return head
}

// Quote returns strconv.Quote of value, cut as Show cuts it: "aaaa"…(1048576 bytes). It is for
// messages that always quote a value.
func Quote(value string) string {
	head, cut := cutRunes(value, MaxValueRunes)
	head = strconv.Quote(head)
	if cut {
		head += "…(" + strconv.Itoa(len(value)) + " bytes)"
	}
	return head
}

// cutRunes returns the first max runes of s (MaxValueRunes when max < 1), and whether that
// left any out.
func cutRunes(s string, max int) (string, bool) {
	if max < 1 {
		max = MaxValueRunes
	}
	if len(s) <= max || utf8.RuneCountInString(s) <= max {
		return s, false
	}
	i := 0
	for n := 0; n < max; n++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i], true
}

// printable reports whether s is valid UTF-8 of runes that print, the ASCII space included.
func printable(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f { // printable ASCII, the common case
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 || !strconv.IsPrint(r) {
			return false
		}
		i += size
	}
	return true
}

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

// Under returns a copy of e whose field is parent's: field workers under topology.nodes[0] is
// topology.nodes[0].workers, field [2] under hosts is hosts[2], and an empty field is parent
// itself.
func (e *Error) Under(parent string) *Error {
	c := *e
	c.Field = Join(parent, e.Field)
	return &c
}

// Join returns the path of field child under parent, either of which may be empty.
func Join(parent, child string) string {
	switch {
	case parent == "":
		return child
	case child == "":
		return parent
	case strings.HasPrefix(child, "["):
		return parent + child
	}
	return parent + "." + child
}

// Parts returns the problems err holds, in order: errors.Join lists (and any error with an
// Unwrap() []error that is not itself an *Error) are split, and every other error is one part,
// context wrappers included. errors.As finds the *Error of a part that has one. Parts of nil
// is nil.
func Parts(err error) []error {
	if err == nil {
		return nil
	}
	if _, ok := err.(*Error); ok {
		return []error{err}
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, Parts(e)...)
		}
		return out
	}
	return []error{err}
}

// Prefix returns err with each of its parts moved under parent: a part holding an *Error
// becomes that *Error under parent (its context wrappers give way to the longer path), any
// other part is wrapped as "parent: message". The parts are joined with errors.Join; Prefix of
// nil is nil.
func Prefix(parent string, err error) error {
	parts := Parts(err)
	out := make([]error, len(parts))
	for i, p := range parts {
		var fe *Error
		if errors.As(p, &fe) {
			out[i] = fe.Under(parent)
		} else {
			out[i] = fmt.Errorf("%s: %w", parent, p)
		}
	}
	return errors.Join(out...)
}
