package field

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestError: the message is "field: value: rule", leaving out an empty field or value; New
// prints the value with %v; Err is matched but not printed.
func TestError(t *testing.T) {
	for _, tc := range []struct {
		err  *Error
		want string
	}{
		{New("workers", 0, "must be ≥ 1"), "workers: 0: must be ≥ 1"},
		{New("inFlightPenalty", -time.Microsecond, "must be ≥ 0"), "inFlightPenalty: -1µs: must be ≥ 0"},
		{New("node", `""`, "required for a down fault"), `node: "": required for a down fault`},
		{New("", "capacity", "must set workers or speed"), "capacity: must set workers or speed"},
		{&Error{Field: "data", Rule: "required"}, "data: required"},
		{&Error{Value: `"exp(-5ms)"`, Rule: "mean -5ms: must be > 0", Err: fs.ErrInvalid}, `"exp(-5ms)": mean -5ms: must be > 0`},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("%#v.Error() = %q, want %q", tc.err, got, tc.want)
		}
	}
	e := &Error{Field: "file", Value: "x.csv", Rule: "cannot be read", Err: fs.ErrNotExist}
	if !errors.Is(fmt.Errorf("ctx: %w", e), fs.ErrNotExist) {
		t.Error("errors.Is does not reach Err through the error")
	}
}

// TestJoinAndUnder: a child field goes under its parent with a dot, an index without one, and an
// empty field is its parent; Under leaves the original unchanged.
func TestJoinAndUnder(t *testing.T) {
	for _, tc := range []struct{ parent, child, want string }{
		{"topology.nodes[0]", "workers", "topology.nodes[0].workers"},
		{"clients[0].hosts", "[2]", "clients[0].hosts[2]"},
		{"faults[1]", "", "faults[1]"},
		{"", "at", "at"},
		{"faults[0]", "data.failCommands[0]", "faults[0].data.failCommands[0]"},
	} {
		if got := Join(tc.parent, tc.child); got != tc.want {
			t.Errorf("Join(%q, %q) = %q, want %q", tc.parent, tc.child, got, tc.want)
		}
	}
	e := New("for", "0s", "must be > 0")
	if u := e.Under("faults[3]"); u.Field != "faults[3].for" || e.Field != "for" || u.Value != e.Value || u.Rule != e.Rule {
		t.Errorf("Under: %+v from %+v", u, e)
	}
}

// TestPartsAndPrefix: Parts splits errors.Join lists (nested ones too) and keeps each wrapped
// field error whole, context included; Prefix moves every field error under a parent, dropping
// its context for the longer path, and wraps any other error.
func TestPartsAndPrefix(t *testing.T) {
	if Parts(nil) != nil || Prefix("x", nil) != nil {
		t.Fatal("Parts(nil) or Prefix(x, nil) is not nil")
	}
	plain := errors.New("the cluster has no replica set")
	err := errors.Join(
		fmt.Errorf("server %q: %w", "db", New("workers", 0, "must be ≥ 1")),
		errors.Join(New("at", "-1s", "must be ≥ 0"), plain),
	)
	var msgs []string
	for _, p := range Parts(err) {
		msgs = append(msgs, p.Error())
	}
	want := []string{`server "db": workers: 0: must be ≥ 1`, "at: -1s: must be ≥ 0", "the cluster has no replica set"}
	if !slices.Equal(msgs, want) {
		t.Errorf("Parts = %q, want %q", msgs, want)
	}
	got := Prefix("nodes[2]", err).Error()
	if w := "nodes[2].workers: 0: must be ≥ 1\nnodes[2].at: -1s: must be ≥ 0\nnodes[2]: the cluster has no replica set"; got != w {
		t.Errorf("Prefix =\n%s\nwant\n%s", got, w)
	}
	var fe *Error
	if p := Parts(Prefix("nodes[2]", err)); len(p) != 3 || !errors.As(p[0], &fe) || fe.Field != "nodes[2].workers" || !errors.Is(p[2], plain) {
		t.Errorf("Prefix parts %v: want the field errors moved and the plain error kept", p)
	}
}

// TestShow: printable text up to the limit is printed as it is; text that does not print is
// quoted so that it shows; long text is cut at a rune boundary and says how long it was.
func TestShow(t *testing.T) {
	long := strings.Repeat("a", 1<<20)
	for _, tc := range []struct {
		gloss, in string
		max       int
		want      string
	}{
		{"plain", "exp(5ms)", 0, "exp(5ms)"},
		{"already quoted", `"db/1"`, 0, `"db/1"`},
		{"empty", "", 0, ""},
		{"symbols and letters print", "≥ 1µs — é", 0, "≥ 1µs — é"},
		{"NUL", "a\x00b", 0, `"a\x00b"`},
		{"newline and tab", "a\nb\tc", 0, `"a\nb\tc"`},
		{"invalid UTF-8", "a\xffb", 0, `"a\xffb"`},
		{"byte-order mark", "\ufeffname", 0, `"\ufeffname"`},
		{"bidi override", "a\u202eb", 0, `"a\u202eb"`},
		{"DEL", "a\x7f", 0, `"a\x7f"`},
		{"no-break space", "a\u00a0b", 0, `"a\u00a0b"`},
		{"exactly the limit", strings.Repeat("x", 80), 0, strings.Repeat("x", 80)},
		{"one over", strings.Repeat("x", 81), 0, strings.Repeat("x", 80) + "…(81 bytes)"},
		{"a megabyte", long, 0, strings.Repeat("a", 80) + "…(1048576 bytes)"},
		{"cut at a rune boundary", strings.Repeat("é", 10), 4, "éééé…(20 bytes)"},
		{"cut, then quoted", strings.Repeat("\x00", 100), 3, `"\x00\x00\x00"…(100 bytes)`},
		{"a smaller limit", "abcdef", 3, "abc…(6 bytes)"},
	} {
		var got string
		if tc.max == 0 {
			got = Show(tc.in)
		} else {
			got = ShowN(tc.in, tc.max)
		}
		if got != tc.want {
			t.Errorf("%s: Show(%.40q) = %.200q, want %.200q", tc.gloss, tc.in, got, tc.want)
		}
	}
}

// TestErrorBounded: a huge or unprintable value, field or rule gives a short one-line message,
// and the error keeps the whole value.
func TestErrorBounded(t *testing.T) {
	huge := strings.Repeat("n", 1<<20)
	e := &Error{Field: "name", Value: huge, Rule: "must be at most 100 bytes"}
	msg := e.Error()
	if want := "name: " + strings.Repeat("n", 80) + "…(1048576 bytes): must be at most 100 bytes"; msg != want {
		t.Errorf("Error() = %.200q…, want %.200q", msg, want)
	}
	if len(e.Value) != 1<<20 {
		t.Errorf("Value was changed: %d bytes", len(e.Value))
	}
	e = &Error{Field: "clients[0].mix." + huge, Value: "x\x00y", Rule: "unknown; " + huge}
	msg = e.Error()
	if len(msg) > 2*(MaxFieldRunes+MaxValueRunes+MaxRuleRunes) || strings.ContainsAny(msg, "\x00\n") ||
		!strings.Contains(msg, `"x\x00y"`) {
		t.Errorf("Error() = %.300q (%d bytes): want a short line showing the NUL", msg, len(msg))
	}
	if got := New("at", "-1s", "must be ≥ 0").Error(); got != "at: -1s: must be ≥ 0" {
		t.Errorf("a short error changed: %q", got)
	}
}

// TestQuote: always quoted, cut as Show cuts.
func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"{":                      `"{"`,
		"a\x00":                  `"a\x00"`,
		strings.Repeat("b", 100): `"` + strings.Repeat("b", 80) + `"…(100 bytes)`,
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%.20q) = %q, want %q", in, got, want)
		}
	}
}
