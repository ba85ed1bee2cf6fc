package scenarios

import (
	"cmp"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/overloadsim/overloadsim/field"
)

// Sentinel errors.
var (
	// ErrInvalid is matched (errors.Is) by every Problems error: the scenario could not be
	// read or broke a rule.
	ErrInvalid = errors.New("scenarios: invalid scenario")
	// ErrUnknownScenario is returned, wrapped with the name, by Lookup and Source for a name
	// the library does not hold.
	ErrUnknownScenario = errors.New("scenarios: unknown scenario")
)

// Problem is one thing wrong with a scenario: where (file, line and, for syntax and unknown
// fields, column), which field (its path, such as clients[0].driver.maxAdaptiveRetries), the
// offending value and the rule it breaks.
type Problem struct {
	File      string // the scenario file's name
	Line, Col int    // 0 when unknown (a default value, or a field missing from the file)
	Override  string // the override the value came from, if any: "--set path=value" or "--vary path=spec"
	Path      string // the field, e.g. clients[0].driver.maxAdaptiveRetries
	Value     string // the offending value as text
	Rule      string // what the value must satisfy
}

// Error formats p as file:line: path: value: rule (file:line:col: … when the column is
// known; "--set path=value: …" for a value from an override). The override, path, value and
// rule are printed as field.ShowN prints them: text that does not print (a NUL, a newline) is
// quoted, and a long part is cut with its length, so that a problem is one line of modest
// length whatever the input; the Problem's fields keep the whole text.
func (p Problem) Error() string {
	var b strings.Builder
	switch {
	case p.Override != "":
		b.WriteString(field.ShowN(p.Override, field.MaxFieldRunes))
	default:
		b.WriteString(p.File)
		if p.Line > 0 {
			b.WriteString(":" + strconv.Itoa(p.Line))
			if p.Col > 0 {
				b.WriteString(":" + strconv.Itoa(p.Col))
			}
		}
	}
	b.WriteString(": ")
	b.WriteString(field.ShowN(p.Path, field.MaxFieldRunes))
	b.WriteString(": ")
	b.WriteString(field.Show(p.Value))
	b.WriteString(": ")
	b.WriteString(field.ShowN(p.Rule, field.MaxRuleRunes))
	return b.String()
}

// Unwrap returns p as a *field.Error, its field the path: what the model packages report,
// without the file and line a scenario knows.
func (p Problem) Unwrap() error { return &field.Error{Field: p.Path, Value: p.Value, Rule: p.Rule} }

// Problems is every problem found in a scenario, in file order. It is the error Load, Parse,
// Validate and Set return.
type Problems []Problem

// Error lists the problems one per line.
func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.Error()
	}
	return strings.Join(lines, "\n")
}

// Is reports whether target is ErrInvalid.
func (ps Problems) Is(target error) bool { return target == ErrInvalid }

// Unwrap returns the problems, so that errors.As finds each one's *field.Error and
// field.Parts lists them.
func (ps Problems) Unwrap() []error {
	out := make([]error, len(ps))
	for i, p := range ps {
		out[i] = p
	}
	return out
}

// sorted returns ps ordered by override (file values first), position, path and text, without
// duplicates.
func (ps Problems) sorted() Problems {
	out := slices.Clone(ps)
	slices.SortStableFunc(out, func(a, b Problem) int {
		if c := strings.Compare(a.Override, b.Override); c != 0 {
			return c
		}
		// Problems without a line (defaults, missing fields) come after those with one.
		la, lb := a.Line, b.Line
		if la == 0 {
			la = int(^uint(0) >> 1)
		}
		if lb == 0 {
			lb = int(^uint(0) >> 1)
		}
		if c := cmp.Or(cmp.Compare(la, lb), cmp.Compare(a.Col, b.Col), strings.Compare(a.Path, b.Path)); c != 0 {
			return c
		}
		// Formatting both messages only for a tie keeps sorting thousands of problems cheap.
		return strings.Compare(a.Error(), b.Error())
	})
	return slices.CompactFunc(out, func(a, b Problem) bool { return a == b })
}
