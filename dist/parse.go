package dist

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/overloadsim/overloadsim/field"
)

// Sentinel errors. Every error from Parse, ParseWith and the constructors matches one of them
// under errors.Is; an error from a loader or from time.ParseDuration stays in the chain too.
var (
	// ErrSyntax: the text is not of the form name(p1, p2, …) or a bare duration, or a
	// parameter is not a duration or number.
	ErrSyntax = errors.New("dist: syntax error")
	// ErrUnknown: the name before "(" is not a known distribution.
	ErrUnknown = errors.New("dist: unknown distribution")
	// ErrInvalid: the parameters are well-formed but break a rule (a negative mean, lo > hi,
	// the wrong number of parameters, an empirical file that cannot be loaded).
	ErrInvalid = errors.New("dist: invalid parameter")
)

// failure is an error before it knows where it happened; Parse and the constructors turn it
// into a *field.Error.
type failure struct {
	msg   string
	kind  error
	cause error
}

// as returns the error for value breaking f: a *field.Error after "dist: " that matches f's
// sentinel and cause under errors.Is.
func (f *failure) as(value string) error {
	err := f.kind
	if f.cause != nil {
		err = errors.Join(f.kind, f.cause)
	}
	return fmt.Errorf("dist: %w", &field.Error{Value: value, Rule: f.msg, Err: err})
}

func invalid(format string, args ...any) *failure {
	return &failure{msg: fmt.Sprintf(format, args...), kind: ErrInvalid}
}

func syntax(format string, args ...any) *failure {
	return &failure{msg: fmt.Sprintf(format, args...), kind: ErrSyntax}
}

// in turns f into the error of constructor family, whose value is the family's name
// ("dist: exp: mean -5ms: must be > 0"); a nil f gives a nil error.
func (f *failure) in(family string) error {
	if f == nil {
		return nil
	}
	return f.as(family)
}

// family describes one distribution name of the text syntax.
type family struct {
	name   string
	params []string // parameter names, for arity messages; empirical's list is open-ended
	build  func(args []string, load loader) (Duration, *failure)
}

// families is sorted by name; error messages list the names in this order.
var families = []family{
	{"const", []string{"duration"}, func(a []string, _ loader) (Duration, *failure) {
		d, f := parseDuration("duration", a[0])
		if f != nil {
			return nil, f
		}
		return ret(newConst(d))
	}},
	{"empirical", nil, buildEmpirical},
	{"exp", []string{"mean"}, func(a []string, _ loader) (Duration, *failure) {
		m, f := parseDuration("mean", a[0])
		if f != nil {
			return nil, f
		}
		return ret(newExp(m))
	}},
	{"gamma", []string{"mean", "shape"}, func(a []string, _ loader) (Duration, *failure) {
		m, f := parseDuration("mean", a[0])
		if f != nil {
			return nil, f
		}
		k, f := parseFloat("shape", a[1], shapeRule)
		if f != nil {
			return nil, f
		}
		return ret(newGamma(m, k))
	}},
	{"lognormal", []string{"mean", "sigma"}, func(a []string, _ loader) (Duration, *failure) {
		m, f := parseDuration("mean", a[0])
		if f != nil {
			return nil, f
		}
		sigma, f := parseFloat("sigma", a[1], sigmaRule)
		if f != nil {
			return nil, f
		}
		return ret(newLogNormal(m, sigma))
	}},
	{"uniform", []string{"lo", "hi"}, func(a []string, _ loader) (Duration, *failure) {
		lo, f := parseDuration("lo", a[0])
		if f != nil {
			return nil, f
		}
		hi, f := parseDuration("hi", a[1])
		if f != nil {
			return nil, f
		}
		return ret(newUniform(lo, hi))
	}},
}

// ret converts a typed constructor result to (Duration, *failure) without leaving a non-nil
// interface holding a nil pointer.
func ret[T Duration](d T, f *failure) (Duration, *failure) {
	if f != nil {
		return nil, f
	}
	return d, nil
}

func knownNames() string {
	names := make([]string, len(families))
	for i, fam := range families {
		names[i] = fam.name
	}
	return strings.Join(names, ", ")
}

// loader reads the values of an empirical distribution from the file name given in the text
// empirical(name). It lets the caller decide where files live; dist itself does no I/O.
type loader func(name string) ([]time.Duration, error)

// Parse reads a distribution from its text form (see the package documentation for the
// grammar). It never panics. empirical(file) is rejected, since Parse reads no files; use
// ParseWith for that.
func Parse(s string) (Duration, error) { return ParseWith(s, nil) }

// ParseWith is Parse with a loader for empirical(file): when the single argument of
// empirical(…) is not a duration, it is a file name, passed to load. The resulting
// distribution's String is empirical(file), so a scenario's canonical text names the file, not
// its contents. load may be nil, in which case empirical(file) is an error.
//
// An error is a *field.Error after "dist: " whose value is the quoted text and whose rule says
// what is wrong with it (dist: "exp(-5ms)": mean -5ms: must be > 0); it matches ErrSyntax,
// ErrUnknown or ErrInvalid, and the loader's error, under errors.Is.
func ParseWith(s string, load func(name string) ([]time.Duration, error)) (Duration, error) {
	d, f := parse(s, load)
	if f != nil {
		return nil, f.as(strconv.Quote(s))
	}
	return d, nil
}

func parse(s string, load loader) (Duration, *failure) {
	t := strings.TrimSpace(s)
	if t == "" {
		return nil, syntax("empty; want a duration such as 5ms or one of %s", knownNames())
	}
	open := strings.IndexByte(t, '(')
	if open < 0 {
		return parseBare(t)
	}
	name := strings.TrimSpace(t[:open])
	rest := t[open+1:]
	closing := strings.IndexByte(rest, ')')
	if closing < 0 {
		return nil, syntax(`missing ")"`)
	}
	if strings.IndexByte(rest[:closing], '(') >= 0 {
		return nil, syntax(`unexpected "(" inside parentheses`)
	}
	if after := strings.TrimSpace(rest[closing+1:]); after != "" {
		return nil, syntax(`unexpected %q after ")"`, after)
	}
	if name == "" {
		return nil, syntax(`missing distribution name before "("; known: %s`, knownNames())
	}
	var fam *family
	for i := range families {
		if families[i].name == name {
			fam = &families[i]
		}
	}
	if fam == nil {
		return nil, &failure{msg: fmt.Sprintf("unknown distribution %q; known: %s", name, knownNames()), kind: ErrUnknown}
	}
	var args []string
	if inner := strings.TrimSpace(rest[:closing]); inner != "" {
		args = strings.Split(inner, ",")
		for i := range args {
			args[i] = strings.TrimSpace(args[i])
		}
	}
	if fam.params != nil && len(args) != len(fam.params) {
		return nil, invalid("%s takes %s (%s), got %d",
			fam.name, plural(len(fam.params), "parameter"), strings.Join(fam.params, ", "), len(args))
	}
	return fam.build(args, load)
}

// parseBare reads a text without "(": a duration, which means const.
func parseBare(t string) (Duration, *failure) {
	d, err := time.ParseDuration(t)
	if err == nil {
		return ret(newConst(d))
	}
	for _, fam := range families {
		if fam.name == t {
			want := t + "(" + strings.Join(fam.params, ", ") + ")"
			if fam.params == nil {
				want = t + "(v1, v2, …) or " + t + "(file)"
			}
			return nil, syntax("missing parameters; want %s", want)
		}
	}
	if c := t[0]; c >= '0' && c <= '9' || c == '.' || c == '-' || c == '+' {
		return nil, &failure{msg: err.Error(), kind: ErrSyntax, cause: err}
	}
	return nil, &failure{
		msg:  fmt.Sprintf("unknown distribution %q; known: %s, or a bare duration such as 5ms", t, knownNames()),
		kind: ErrUnknown,
	}
}

func parseDuration(param, text string) (time.Duration, *failure) {
	if text == "" {
		return 0, syntax("%s: missing value", param)
	}
	d, err := time.ParseDuration(text)
	if err != nil {
		return 0, &failure{msg: param + ": " + err.Error(), kind: ErrSyntax, cause: err}
	}
	return d, nil
}

// parseFloat reads the float parameter param (strconv.ParseFloat); a value beyond the float64
// range breaks rule, the parameter's range.
func parseFloat(param, text, rule string) (float64, *failure) {
	if text == "" {
		return 0, syntax("%s: missing value", param)
	}
	x, err := strconv.ParseFloat(text, 64)
	if errors.Is(err, strconv.ErrRange) {
		return 0, invalid("%s %s: %s", param, text, rule)
	}
	if err != nil {
		return 0, syntax("%s %q: not a number", param, text)
	}
	return x, nil
}

func buildEmpirical(args []string, load loader) (Duration, *failure) {
	if len(args) == 0 {
		return nil, invalid("empirical takes at least 1 value or a file name, got 0")
	}
	if len(args) == 1 && args[0] != "" {
		if _, err := time.ParseDuration(args[0]); err != nil {
			return loadEmpirical(args[0], load)
		}
	}
	values := make([]time.Duration, len(args))
	for i, a := range args {
		d, f := parseDuration("value #"+strconv.Itoa(i+1), a)
		if f != nil {
			return nil, f
		}
		values[i] = d
	}
	return ret(newEmpirical(values, ""))
}

func loadEmpirical(file string, load loader) (Duration, *failure) {
	if load == nil {
		return nil, invalid("file %q: Parse reads no files; use ParseWith with a loader", file)
	}
	values, err := load(file)
	if err != nil {
		return nil, &failure{msg: fmt.Sprintf("file %q: %v", file, err), kind: ErrInvalid, cause: err}
	}
	d, f := newEmpirical(values, file)
	if f != nil {
		f.msg = fmt.Sprintf("file %q: %s", file, f.msg)
		return nil, f
	}
	return d, nil
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
