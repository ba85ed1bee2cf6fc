package field

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
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
