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
package field

import (
	"errors"
	"fmt"
	"strings"
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

// Error formats e as "field: value: rule", leaving out an empty field or value.
func (e *Error) Error() string {
	parts := make([]string, 0, 3)
	for _, s := range []string{e.Field, e.Value, e.Rule} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, ": ")
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
